//! Preview composition: stage thumbnail grids (cast sheets) from per-resource renders.
//!
//! Owns the grid layout: cells in the given (directory) order, row-major, each sub-model
//! fitted into its own cell by [`crate::raster::render_mesh`] (or
//! [`crate::raster::render_mesh_textured`] with its
//! albedo textures); a rejected resource is an empty cell with a
//! small grey cross so gaps stay visible. Cells render in parallel (rayon); every cell is
//! an independent deterministic render, so the grid is identical to a sequential one.

use rayon::prelude::*;

use crate::raster::{render_mesh_with, Background, Image, RenderOptions, Scratch, Texture, MAX_SIZE};
use xbg7::mesh::Mesh;

/// Colour of the cross marking a rejected cell.
pub const CROSS_RGBA: [u8; 4] = [140, 140, 140, 255];

/// One grid cell, in directory order.
pub enum Cell<'a> {
    Mesh(&'a Mesh),
    /// A mesh with an albedo texture per primitive (see [`crate::raster::render_mesh_textured`]).
    Textured(&'a Mesh, Vec<Option<&'a Texture>>),
    /// A rejected resource: drawn as an empty cell with a small cross.
    Rejected,
}

/// Pixel budget of one stage grid: 4096 × 4096 RGBA (64 MiB), whatever the stage holds.
/// A stage with more cells than fit shows the first ones; the manifest's `preview_cells`
/// says how many (a 300 000-entry stage asked for one 19.7 GB image before the cap).
pub const MAX_GRID_PIXELS: u64 = 4096 * 4096;

/// Cells rendered at once (bounds the per-cell images held before blitting).
const CELL_BATCH: usize = 64;

/// How many of `n` cells a grid of `cell_size`-pixel cells at most `max_width` wide shows
/// within [`MAX_GRID_PIXELS`] (at least one).
pub fn grid_capacity(n: usize, cell_size: u32, max_width: u32) -> usize {
    let l = GridLayout::new(1, cell_size, max_width);
    let cols = (max_width / l.cell).max(1) as u64;
    let cell_px = l.cell as u64 * l.cell as u64;
    let rows = (MAX_GRID_PIXELS / (cols * cell_px)).max(1);
    n.min(usize::try_from(rows * cols).unwrap_or(usize::MAX)).max(1)
}

/// Grid geometry chosen by [`stage_grid`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridLayout {
    /// Side of one (square) cell in pixels.
    pub cell: u32,
    pub cols: u32,
    pub rows: u32,
}

impl GridLayout {
    /// Layout of `n` cells: `cell = clamp(cell_size, 1, min(max_width, MAX_SIZE))`,
    /// `cols = min(n, max_width / cell)`, `rows = ceil(n / cols)`; an empty list is laid
    /// out as one blank cell.
    pub fn new(n: usize, cell_size: u32, max_width: u32) -> GridLayout {
        let cell = cell_size.clamp(1, max_width.clamp(1, MAX_SIZE));
        let n = n.max(1) as u64;
        let cols = (max_width / cell).max(1) as u64;
        let cols = cols.min(n);
        let rows = n.div_ceil(cols);
        GridLayout {
            cell,
            cols: cols as u32,
            rows: u32::try_from(rows).unwrap_or(u32::MAX),
        }
    }

    pub fn width(&self) -> u32 {
        self.cols * self.cell
    }

    pub fn height(&self) -> u32 {
        self.rows.saturating_mul(self.cell)
    }

    /// Top-left pixel of cell `i` (row-major).
    pub fn origin(&self, i: usize) -> (u32, u32) {
        let cols = self.cols as usize;
        ((i % cols) as u32 * self.cell, (i / cols) as u32 * self.cell)
    }
}

/// A grid of normalised thumbnails, at most `max_width` pixels wide and at most
/// [`MAX_GRID_PIXELS`] in all: only the first [`grid_capacity`] cells are drawn.
///
/// Every cell is `render_mesh(mesh, opts with size = cell)`; the grid background (and a
/// rejected cell) is `opts.background`. See [`GridLayout::new`] for the geometry.
pub fn stage_grid(cells: &[Cell<'_>], cell_size: u32, max_width: u32, opts: &RenderOptions) -> Image {
    stage_grid_with(cells, cell_size, max_width, opts, &|_, _| {})
}

/// [`stage_grid`], handing every drawn mesh cell's render to `on_cell` (its index in
/// `cells`) on the thread that drew it, before it is copied into the grid: a stage's
/// per-resource thumbnails are these renders, so each is drawn once and equals its cell.
pub fn stage_grid_with(
    cells: &[Cell<'_>],
    cell_size: u32,
    max_width: u32,
    opts: &RenderOptions,
    on_cell: &(dyn Fn(usize, &Image) + Sync),
) -> Image {
    let cells = &cells[..grid_capacity(cells.len(), cell_size, max_width).min(cells.len())];
    let layout = GridLayout::new(cells.len(), cell_size, max_width);
    let cell_opts = RenderOptions {
        size: layout.cell,
        ..opts.clone()
    };
    let bg = match opts.background {
        Background::Transparent => [0; 4],
        Background::Solid(c) => c,
    };
    let mut grid = Image::filled(layout.width(), layout.height(), bg);
    for (b, batch) in cells.chunks(CELL_BATCH).enumerate() {
        let renders: Vec<Option<Image>> = batch
            .par_iter()
            .enumerate()
            .map_init(Scratch::default, |scratch, (k, c)| {
                let img = match c {
                    Cell::Mesh(m) => render_mesh_with(m, &cell_opts, &[], scratch),
                    Cell::Textured(m, albedo) => render_mesh_with(m, &cell_opts, albedo, scratch),
                    Cell::Rejected => return None,
                };
                on_cell(b * CELL_BATCH + k, &img);
                Some(img)
            })
            .collect();
        for (k, r) in renders.iter().enumerate() {
            let (ox, oy) = layout.origin(b * CELL_BATCH + k);
            match r {
                Some(img) => blit(&mut grid, img, ox, oy),
                None => draw_cross(&mut grid, ox, oy, layout.cell),
            }
        }
    }
    grid
}

/// Copy `src` into `dst` with its top-left corner at `(ox, oy)`, clipped to `dst`.
fn blit(dst: &mut Image, src: &Image, ox: u32, oy: u32) {
    let w = src.width.min(dst.width.saturating_sub(ox)) as usize;
    if w == 0 {
        return;
    }
    for y in 0..src.height {
        let dy = oy as u64 + y as u64;
        if dy >= dst.height as u64 {
            break;
        }
        let s = y as usize * src.width as usize * 4;
        let d = (dy as usize * dst.width as usize + ox as usize) * 4;
        if let (Some(from), Some(to)) = (src.rgba.get(s..s + w * 4), dst.rgba.get_mut(d..d + w * 4)) {
            to.copy_from_slice(from);
        }
    }
}

/// A small diagonal cross centred in the cell at `(ox, oy)`: arms of `cell/8` pixels
/// (at least 2), lines `2·(cell/128) + 1` pixels wide (horizontally).
fn draw_cross(img: &mut Image, ox: u32, oy: u32, cell: u32) {
    let c = (cell / 2) as i64;
    let arm = ((cell / 8) as i64).max(2);
    let t = ((cell / 128) as i64).max(0);
    for dy in -arm..=arm {
        for dx in -arm..=arm {
            if (dx - dy).abs() > t && (dx + dy).abs() > t {
                continue;
            }
            let (x, y) = (c + dx, c + dy);
            if x < 0 || y < 0 || x >= cell as i64 || y >= cell as i64 {
                continue;
            }
            let (px, py) = (ox as u64 + x as u64, oy as u64 + y as u64);
            if px >= img.width as u64 || py >= img.height as u64 {
                continue;
            }
            let i = (py as usize * img.width as usize + px as usize) * 4;
            if let Some(p) = img.rgba.get_mut(i..i + 4) {
                p.copy_from_slice(&CROSS_RGBA);
            }
        }
    }
}
