//! glTF 2.0 writer: one decoded resource → `.gltf` JSON + `.bin` bytes (or one `.glb`),
//! deterministic (same input → same bytes).
//!
//! This module owns the mapping from a [`Mesh`] (file frame) to a glTF document:
//!
//! - **Buffer**: one buffer, non-interleaved (no `byteStride`). Buffer views in this order:
//!   `POSITION`, `NORMAL`, `TEXCOORD_0..n`, colour, then one index view holding every
//!   primitive's indices back to back. Attribute views are `ARRAY_BUFFER`, the index view
//!   `ELEMENT_ARRAY_BUFFER`; every view starts 4-byte aligned (all attributes are f32, and
//!   the index view comes last). The buffer's `byteLength` is the exact `.bin` length.
//! - **Accessors**: `POSITION` VEC3 f32 with exact `min`/`max` of the written values;
//!   `NORMAL` VEC3 f32 renormalised to unit length (see *Normal fallback*); `TEXCOORD_n`
//!   VEC2 f32 exactly as stored (no V flip: the file uses glTF's top-left origin);
//!   colour VEC4 f32 clamped to `[0, 1]` (NaN → 0) as `COLOR_0`, `_VERTEXCOLOR`, or not
//!   written, per [`VertexColor`]. Indices are `UNSIGNED_SHORT` when every written index
//!   is `< 65535` (65535 is the primitive-restart value), else `UNSIGNED_INT`.
//! - **Axis**: [`Axis::FlipZ`] (the default) treats the file as Direct3D left-handed and
//!   mirrors it into glTF's right-handed frame: Z of positions and normals is negated
//!   (a pure sign flip, so `0.0` becomes `-0.0`) and every triangle `(a, b, c)` is
//!   written `(a, c, b)`, so the winding still agrees with the normals (a mirror flips
//!   the sign of `(b − a) × (c − a) · n`, the swap flips it back). [`Axis::Keep`] writes
//!   positions, normals and winding exactly as stored.
//! - **Structure**: one mesh (named `src.name`) with one TRIANGLES primitive per
//!   [`Mesh::primitives`] entry, all sharing the attribute accessors, each with its own
//!   index accessor (a `byteOffset` into the shared index view) and a material named
//!   after the primitive's material, else `<name>_mat<k>` (primitives with the same
//!   material name share one material, so tools do not import `name.001` copies; plain
//!   metallic-roughness, metallic 0, roughness 0.8, single-sided, `extras.textures` = the
//!   container's TX2D names). One node (named `src.name`) referencing the mesh, one scene,
//!   `scene: 0`. The root and the node carry
//!   `extras.source = { container, directory_index }`.
//! - **Normal fallback**: a normal that is zero or has a non-finite component is
//!   replaced by the normalised area-weighted sum of the (output-frame,
//!   winding-consistent) face normals of the triangles that use the vertex; if that is
//!   zero too (isolated vertex, degenerate triangles only), by `(0, 0, 1)` of the output
//!   frame. Every written normal is therefore unit length.
//! - **Invalid meshes** (no vertices, attribute lengths ≠ vertex count, a primitive range
//!   outside the indices or not a positive multiple of 3, an index ≥ vertex count,
//!   non-finite positions or texcoords, > 4 GiB) are rejected by [`build`] with a
//!   [`GltfError`]; such a mesh cannot be written as valid glTF.
//!
//! Floats in `min`/`max` are written as the f64 value of the f32 (e.g.
//! `0.10000000149011612`), so that a reader parsing them as f64 *or* f32 gets exactly the
//! value in the buffer.
//!
//! Files: `types` (options, source, error), `buffer` (the binary data, images embedded
//! in it), `document` (the JSON), `material` (textured materials); this file holds the
//! one entry point [`build`] (mesh → [`Built`], in the [`Output`] form asked for) and
//! the GLB container.

use gltf_json as json;

use xbg7::mesh::Mesh;
use xbg7::texture::maps::TextureLinks;

mod buffer;
mod document;
mod material;
mod types;

use buffer::{embed_images, encode, pad4};
use document::document;
use material::apply_textures;
pub use material::SPECULAR_EXT;
pub use types::{Axis, GltfError, GltfFiles, GltfOptions, Source, SpecularGloss, VertexColor};

/// The form [`build`] writes a resource in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output<'a> {
    /// `.gltf` (pretty JSON) + `.bin`; `bin_uri` is the relative URI written into the
    /// buffer (written as given: pass a safe file-name stem (the exporter's `names`),
    /// which needs no percent-encoding).
    Gltf { bin_uri: &'a str },
    /// One binary `.glb`: 12-byte header, JSON chunk padded with spaces, BIN chunk padded
    /// with zeros (glTF 2.0 §4.4).
    Glb,
}

/// The bytes of a linked image by its URI (see [`Textures::png`]).
pub type PngLookup<'a, 'p> = &'a dyn Fn(&str) -> Option<&'p [u8]>;

/// The materials' textures (see [`build`]).
#[derive(Clone, Copy)]
pub struct Textures<'a, 'p> {
    /// TX2D name → image URI relative to the model's folder.
    pub links: &'a TextureLinks,
    /// The bytes of a linked image (by its URI in `links`), to embed it in the binary
    /// buffer instead of referencing it by URI (the exporter passes it for GLB); an image
    /// it cannot supply keeps its URI (still valid glTF, then not self-contained). `None`:
    /// every image is referenced by URI.
    pub png: Option<PngLookup<'a, 'p>>,
}

/// What [`build`] wrote, in the [`Output`] form asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Built {
    /// From [`Output::Gltf`].
    Gltf(GltfFiles),
    /// From [`Output::Glb`].
    Glb(Vec<u8>),
}

impl Built {
    /// The `.gltf` + `.bin` files, if built as [`Output::Gltf`].
    pub fn into_gltf(self) -> Option<GltfFiles> {
        match self {
            Built::Gltf(files) => Some(files),
            Built::Glb(_) => None,
        }
    }

    /// The `.glb` bytes, if built as [`Output::Glb`].
    pub fn into_glb(self) -> Option<Vec<u8>> {
        match self {
            Built::Glb(glb) => Some(glb),
            Built::Gltf(_) => None,
        }
    }
}

/// Build one resource as `output`, or say why the mesh cannot be written as valid glTF:
/// encode the binary buffer, write the document, add the textured materials, embed the
/// images `png` supplies, serialise.
///
/// With `textures`, each primitive's material named after a TX2D name gets its
/// `<base>_col` as `baseColorTexture` and `<base>_lum` as `emissiveTexture` (emissive
/// factor 1) when the mesh has `TEXCOORD_0`, and every linked map of its base
/// (`col`/`spc`/`gls`/`lum` → URI) in `extras.maps`. With [`SpecularGloss::Pbr`] also
/// the derived roughness of `<base>_gls` (link `<base>_gls~roughness`, see
/// [`xbg7::texture::maps::ROUGHNESS_KEY`]) as `metallicRoughnessTexture` (roughness
/// factor 1) and `<base>_spc` as `KHR_materials_specular`'s `specularColorTexture`.
/// Images are shared per URI. An image embedded by [`Textures::png`] becomes a
/// `bufferView` after the mesh's (4-byte aligned) with `mimeType` `image/png`.
pub fn build(
    mesh: &Mesh,
    opts: &GltfOptions,
    src: &Source<'_>,
    textures: Option<Textures<'_, '_>>,
    output: Output<'_>,
) -> Result<Built, GltfError> {
    let encoded = encode(mesh, opts)?;
    let uri = match output {
        Output::Gltf { bin_uri } => Some(bin_uri),
        Output::Glb => None,
    };
    let mut root = document(&encoded, uri, mesh, src);
    let mut bin = encoded.bin;
    if let Some(t) = textures {
        apply_textures(&mut root, mesh, src, t.links, opts.specular_gloss);
        if let Some(png) = t.png {
            embed_images(&mut root, &mut bin, png);
        }
    }
    match output {
        Output::Gltf { .. } => {
            let gltf = json::serialize::to_vec_pretty(&root).map_err(|e| GltfError::Json(e.to_string()))?;
            Ok(Built::Gltf(GltfFiles { gltf, bin }))
        }
        Output::Glb => {
            let json = json::serialize::to_vec(&root).map_err(|e| GltfError::Json(e.to_string()))?;
            glb_container(&json, &bin).map(Built::Glb)
        }
    }
}

/// Assemble a GLB from its JSON text and binary buffer.
fn glb_container(json: &[u8], bin: &[u8]) -> Result<Vec<u8>, GltfError> {
    let json_len = pad4(json.len());
    let bin_len = pad4(bin.len());
    let total = 12 + 8 + json_len + 8 + bin_len;
    let too_large = GltfError::TooLarge { bytes: total as u64 };
    let total32 = u32::try_from(total).map_err(|_| too_large.clone())?;
    let json_len32 = u32::try_from(json_len).map_err(|_| too_large.clone())?;
    let bin_len32 = u32::try_from(bin_len).map_err(|_| too_large)?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&json_len32.to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(out.len() + json_len - json.len(), b' ');
    out.extend_from_slice(&bin_len32.to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out.resize(out.len() + bin_len - bin.len(), 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glb_chunks_are_padded_per_spec() {
        let glb = glb_container(b"{\"a\":1}", &[1, 2, 3, 4, 5]).unwrap();
        let mut want = b"glTF".to_vec();
        want.extend(2u32.to_le_bytes());
        want.extend(44u32.to_le_bytes());
        want.extend(8u32.to_le_bytes());
        want.extend(b"JSON{\"a\":1} ");
        want.extend(8u32.to_le_bytes());
        want.extend(b"BIN\0");
        want.extend([1, 2, 3, 4, 5, 0, 0, 0]);
        assert_eq!(glb, want);
    }
}
