//! Preview composition: stage thumbnail grids (cast sheets) from per-resource renders.

use crate::mesh::Mesh;
use crate::raster::{Image, RenderOptions};

/// One grid cell, in directory order.
pub enum Cell<'a> {
    Mesh(&'a Mesh),
    /// A rejected resource: drawn as an empty cell with a small cross.
    Rejected,
}

/// A grid of normalised thumbnails, at most `max_width` pixels wide.
pub fn stage_grid(cells: &[Cell<'_>], cell_size: u32, max_width: u32, opts: &RenderOptions) -> Image {
    let _ = (cells, cell_size, max_width, opts);
    todo!("raster helper")
}
