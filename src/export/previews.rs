//! Preview glue between a container's decode and the rasterizer: stage-grid cells, the
//! albedos the previews sample (prepared once per container) and which primitive gets
//! which.

use crate::config::Config;
use crate::manifest::Kind;
use xbg7::mesh::Mesh;
use xbg7::texture::maps::albedo_for;
use xbg7::texture::resource::Albedos;
use xbg7::{ContainerDecode, ResourceOutcome};
use xbg7_preview::{preview, raster};

/// Stage-grid cells in the given order: decoded meshes, a crossed cell per reject,
/// skybox planes skipped (they would dwarf every thumbnail's scale).
pub fn grid_cells<'a>(resources: impl Iterator<Item = &'a ResourceOutcome>) -> Vec<preview::Cell<'a>> {
    resources
        .filter(|r| in_grid(r))
        .map(|r| match &r.result {
            Ok(dr) => preview::Cell::Mesh(&dr.mesh),
            Err(_) => preview::Cell::Rejected,
        })
        .collect()
}

/// Whether `r` has a cell in its stage's grid: every resource but skybox planes.
pub fn in_grid(r: &ResourceOutcome) -> bool {
    !matches!(&r.result, Ok(dr) if dr.skybox)
}

/// For each cell of [`grid_cells`] over `resources`, the position of its resource.
pub fn grid_members<'a>(resources: impl Iterator<Item = &'a ResourceOutcome>) -> Vec<usize> {
    resources
        .enumerate()
        .filter(|(_, r)| in_grid(r))
        .map(|(i, _)| i)
        .collect()
}

/// The `_col` textures a preview of `d` can sample: those of the materials of decoded
/// meshes with a `TEXCOORD_0` for every vertex (the others render untextured, so
/// preparing their albedos, half the stage textures' pixels on the synthetic disc, would
/// be wasted).
pub(super) fn sampled_albedos(d: &ContainerDecode) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
    for r in &d.resources {
        let Ok(dr) = &r.result else { continue };
        let m = &dr.mesh;
        if m.texcoords.first().is_none_or(|t| t.len() != m.positions.len()) {
            continue;
        }
        for p in &m.primitives {
            if let Some(material) = p.material.as_deref() {
                names.insert(xbg7::texture::maps::albedo_name(material));
            }
        }
    }
    names
}

/// The export's render options for a preview `size` pixels a side: the configured
/// supersampling ([`crate::config::OutputConfig::preview_supersample`]), defaults
/// otherwise. (`render` draws with [`raster::RenderOptions::default`]'s 2×2.)
pub fn render_options(cfg: &Config, size: u32) -> raster::RenderOptions {
    raster::RenderOptions {
        size,
        supersample: cfg.output.preview_supersample,
        ..Default::default()
    }
}

/// A container's albedos prepared for the previews (mip chains), by TX2D name.
pub type PreviewTextures = std::collections::BTreeMap<String, raster::Texture>;

/// Largest texture side a container's previews sample: about two texels per pixel of
/// the image a texture can cover (a stage's grid cell, a model's preview).
pub fn preview_texture_side(kind: Kind, cfg: &Config) -> u32 {
    let side = match kind {
        Kind::Stage => cfg.output.stage_cell,
        _ => cfg.output.preview_size,
    };
    side.saturating_mul(2).next_power_of_two()
}

/// Prepare every decoded albedo once (a stage grid samples one texture in many cells),
/// at most `max_side` texels a side (see [`preview_texture_side`]).
pub fn prepare_albedos(albedos: &Albedos, max_side: u32) -> PreviewTextures {
    albedos
        .iter()
        .filter_map(|(name, img)| {
            let t = raster::Texture::reduced(img.width, img.height, &img.rgba, max_side)?;
            Some((name.clone(), t))
        })
        .collect()
}

/// Per primitive of `m`, the albedo its material gets (`<base>_col`, as in the glTF).
pub fn mesh_albedo<'a>(m: &Mesh, textures: &'a PreviewTextures) -> Vec<Option<&'a raster::Texture>> {
    m.primitives
        .iter()
        .map(|p| albedo_for(p.material.as_deref()?, textures))
        .collect()
}

/// [`grid_cells`], each mesh textured with its albedos when it has any.
pub fn textured_grid_cells<'a>(
    resources: impl Iterator<Item = &'a ResourceOutcome>,
    textures: &'a PreviewTextures,
) -> Vec<preview::Cell<'a>> {
    grid_cells(resources)
        .into_iter()
        .map(|c| match c {
            preview::Cell::Mesh(m) => {
                let albedo = mesh_albedo(m, textures);
                if albedo.iter().any(Option::is_some) {
                    preview::Cell::Textured(m, albedo)
                } else {
                    preview::Cell::Mesh(m)
                }
            }
            other => other,
        })
        .collect()
}
