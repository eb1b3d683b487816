//! One container looked at alone (the `info` and `render` subcommands): its directory,
//! declarations, records and per-resource outcome as text ([`info`]), and its preview
//! ([`render`]: the model itself, or a grid of its resources) as PNG bytes. The CLI
//! prints and writes what these return.

use crate::config::{Config, PREVIEW_SIZE, STAGE_CELL};
use crate::export;
use crate::manifest::Kind;
use crate::text::plural;
use std::io::Write;
use std::path::Path;
use thiserror::Error;
use xbg7::reason::Reason;
use xbg7_preview::{preview, raster};

/// `render`'s default model size: the bigger view a user asks for, on demand (the export's
/// own previews are `output.preview_size`, 128² by default).
pub const RENDER_SIZE: u32 = 512;

// The texts carry their cause themselves (no `source` chain), as the CLI's messages did.
#[derive(Debug, Error)]
pub enum InspectError {
    #[error("reading {path}: {error}")]
    Read {
        path: String,
        error: crate::input::ReadError,
    },
    /// The container cannot be parsed or decoded.
    #[error("{0}")]
    Container(Reason),
    #[error(transparent)]
    Glob(#[from] globset::Error),
    #[error("no resource of {0} matches")]
    NoMatch(String),
    /// Writing the text out (`info`).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The file's bytes and its name (for the container kind).
fn read(file: &Path) -> Result<(Vec<u8>, String), InspectError> {
    let bytes =
        crate::input::read_bounded(file, crate::input::MAX_CONTAINER_BYTES, "an XPR2 container").map_err(|error| {
            InspectError::Read {
                path: file.display().to_string(),
                error,
            }
        })?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((bytes, name))
}

/// Write to `w` a container's directory (each resource with its descriptor, and for an
/// XBG7 its marker, declaration and records), then each resource's decode outcome
/// (layout, counts and streams, or the reject reason).
pub fn info(file: &Path, cfg: &Config, w: &mut dyn Write) -> Result<(), InspectError> {
    let (bytes, name) = read(file)?;
    let c = xbg7::Xpr::parse(&bytes)
        .map_err(InspectError::Container)?
        .into_container();
    writeln!(
        w,
        "{}: XPR2 header_size {:#x}, data at {:#x} ({} bytes), {}",
        file.display(),
        c.header_size,
        c.data_start,
        c.data_size,
        plural(c.resources.len(), "resource", "resources")
    )?;
    for r in &c.resources {
        writeln!(
            w,
            "  [{:3}] {} {:?} desc {:#x}+{}",
            r.index,
            r.tag_str(),
            r.name_lossy(),
            r.descriptor_offset,
            r.descriptor.len()
        )?;
        if r.is(xbg7::container::TAG_XBG7) {
            match xbg7::descriptor::parse(r.descriptor) {
                Ok(d) => {
                    writeln!(
                        w,
                        "        marker @{:#x}: {} indices, {} vertices; {}",
                        d.marker_offset,
                        d.index_count,
                        d.vertex_count,
                        export::describe_declaration(&d.decl)
                    )?;
                    for rec in &d.records {
                        writeln!(
                            w,
                            "        record @{:#x}: vtx {} idx {} tail {}",
                            rec.offset, rec.vtx_count, rec.idx_count, rec.tail
                        )?;
                    }
                }
                Err(e) => writeln!(w, "        descriptor: {e}")?,
            }
        }
    }
    let d = export::decode_container(&bytes, export::kind_of(&name), cfg).map_err(InspectError::Container)?;
    for r in &d.resources {
        match &r.result {
            Ok(dr) => {
                writeln!(
                    w,
                    "  [{:3}] decoded ({}) at {:#x}: {}, {}, {}",
                    r.index,
                    dr.layout.as_str(),
                    dr.placements[0].index_offset,
                    plural(dr.mesh.vertex_count(), "vertex", "vertices"),
                    plural(dr.mesh.triangle_count(), "triangle", "triangles"),
                    plural(dr.mesh.primitives.len(), "sub-mesh", "sub-meshes")
                )?;
                for s in &dr.streams {
                    match (s.offset, &s.left_out) {
                        (Some(at), _) => writeln!(w, "        stream {} (stride {}) at {at:#x}", s.stream, s.stride)?,
                        (None, why) => writeln!(
                            w,
                            "        stream {} (stride {}) left out: {}",
                            s.stream,
                            s.stride,
                            why.as_deref().unwrap_or("")
                        )?,
                    }
                }
            }
            Err(reason) => writeln!(w, "  [{:3}] rejected: {reason}", r.index)?,
        }
    }
    Ok(())
}

/// A container's preview, as [`render`] made it.
#[derive(Debug)]
pub struct Rendered {
    /// The PNG bytes.
    pub png: Vec<u8>,
    /// Resources picked (by `only`) and, of them, decoded.
    pub picked: usize,
    pub decoded: usize,
    /// A grid over its pixel budget: the cells shown of the cells there were.
    pub capped: Option<(usize, usize)>,
}

/// Decode one container and render its preview: the model itself when exactly one
/// resource decodes (and it is a model file), otherwise a grid in directory order.
/// `only` picks resources by a name glob; `size` is the image (model) or cell (grid)
/// size, clamped to its range.
pub fn render(file: &Path, only: Option<&str>, size: Option<u32>, cfg: &Config) -> Result<Rendered, InspectError> {
    let (bytes, name) = read(file)?;
    let kind = export::kind_of(&name);
    let d = export::decode_container(&bytes, kind, cfg).map_err(InspectError::Container)?;
    let glob = match only {
        Some(g) => Some(
            globset::GlobBuilder::new(g)
                .case_insensitive(true)
                .build()?
                .compile_matcher(),
        ),
        None => None,
    };
    let picked: Vec<_> = d
        .resources
        .iter()
        .filter(|r| {
            glob.as_ref()
                .is_none_or(|g| g.is_match(String::from_utf8_lossy(&r.name).as_ref()))
        })
        .collect();
    if picked.is_empty() {
        return Err(InspectError::NoMatch(file.display().to_string()));
    }
    let decoded: Vec<_> = picked.iter().filter_map(|r| r.result.as_ref().ok()).collect();
    // The `_col` albedos, as the export's previews use them (decode_container parsed the
    // same bytes, so the parse cannot fail here).
    let albedos = xbg7::Xpr::parse(&bytes)
        .map(|x| {
            let c = x.into_container();
            let albedos = xbg7::texture::resource::decode_albedos(&c);
            export::prepare_albedos(&albedos, export::preview_texture_side(kind, cfg))
        })
        .unwrap_or_default();
    let mut capped = None;
    let img = if kind == Kind::Model && picked.len() == 1 && decoded.len() == 1 {
        let range = PREVIEW_SIZE;
        let opts = raster::RenderOptions {
            size: size.unwrap_or(RENDER_SIZE).clamp(*range.start(), *range.end()),
            ..Default::default()
        };
        let m = &decoded[0].mesh;
        raster::render_mesh_textured(m, &opts, &export::mesh_albedo(m, &albedos))
    } else {
        let mut cells = export::textured_grid_cells(picked.iter().copied(), &albedos);
        let opts = raster::RenderOptions::default();
        let range = STAGE_CELL;
        let cell = size
            .unwrap_or(cfg.output.stage_cell)
            .clamp(*range.start(), *range.end());
        let shown = preview::grid_capacity(cells.len(), cell, cfg.output.stage_max_width);
        if shown < cells.len() {
            capped = Some((shown, cells.len()));
            cells.truncate(shown);
        }
        let grid = preview::stage_grid(&cells, cell, cfg.output.stage_max_width, &opts);
        // Each cell's name under it, as the report's grid shows them.
        let layout = preview::GridLayout::new(cells.len(), cell, cfg.output.stage_max_width);
        let names: Vec<String> = picked
            .iter()
            .filter(|r| export::in_grid(r))
            .take(cells.len())
            .map(|r| String::from_utf8_lossy(&r.name).into_owned())
            .collect();
        crate::label::labelled(&grid, &layout, &names)
    };
    Ok(Rendered {
        png: raster::encode_png(&img),
        picked: picked.len(),
        decoded: decoded.len(),
        capped,
    })
}
