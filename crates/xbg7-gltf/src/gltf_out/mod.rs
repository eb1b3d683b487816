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
//!   non-finite positions or texcoords, > 4 GiB) are rejected by [`try_build`] /
//!   [`try_build_glb`] with a [`GltfError`]; such a mesh cannot be written as valid glTF.
//!
//! Floats in `min`/`max` are written as the f64 value of the f32 (e.g.
//! `0.10000000149011612`), so that a reader parsing them as f64 *or* f32 gets exactly the
//! value in the buffer.
//!
//! Files: `buffer` (the binary data), `document` (the JSON), `material` (textured
//! materials); this file holds the options and the `.gltf` / `.glb` entry points.

use std::collections::BTreeMap;

use gltf_json as json;
use json::validation::{Checked, USize64};

use xbg7::mesh::Mesh;

mod buffer;
mod document;
mod material;

use buffer::*;
use document::*;
pub use material::SPECULAR_EXT;
use material::*;

/// How file-frame coordinates map to glTF.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// Treat the file as Direct3D left-handed: negate Z (positions, normals) and reverse
    /// the triangle winding so it still agrees with the normals. The default.
    #[default]
    FlipZ,
    /// Write values exactly as stored.
    Keep,
}

/// What to do with a decoded vertex colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VertexColor {
    /// Standard `COLOR_0` (multiplies base colour in viewers).
    Color0,
    /// Custom `_VERTEXCOLOR` attribute (kept, but not applied by viewers).
    Custom,
    /// Not written.
    Drop,
}

/// How a material's `_spc` (specular) and `_gls` (gloss) maps are written
/// (`pipeline.toml` `output.specular_gloss`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpecularGloss {
    /// `_gls` → roughness (`1 − gloss`, a derived `<gls>~roughness.png` in the green
    /// channel of `metallicRoughnessTexture`, roughness factor 1); `_spc` →
    /// `KHR_materials_specular` `specularColorTexture`. The default.
    #[default]
    Pbr,
    /// Only listed in the material's `extras.maps` (plain roughness 0.8, no specular).
    Extras,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GltfOptions {
    pub axis: Axis,
    pub vertex_color: VertexColor,
    pub specular_gloss: SpecularGloss,
}

/// Where the resource came from (goes into `extras`).
#[derive(Clone, Debug, PartialEq)]
pub struct Source<'a> {
    /// Container path relative to the disc root, '/'-separated.
    pub container: &'a str,
    pub directory_index: u32,
    /// Resource name (lossy UTF-8), used for node and mesh names.
    pub name: &'a str,
    /// TX2D resource names of the container (listed in material extras).
    pub textures: &'a [String],
}

/// The two output files of one resource.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfFiles {
    pub gltf: Vec<u8>,
    pub bin: Vec<u8>,
}

/// Why a mesh cannot be written as valid glTF.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GltfError {
    #[error("mesh has no vertices")]
    NoVertices,
    #[error("mesh has no primitives")]
    NoPrimitives,
    #[error("{attribute} has {got} entries, expected one per vertex ({expected})")]
    AttributeLength {
        attribute: String,
        expected: usize,
        got: usize,
    },
    #[error("primitive {primitive}: indices {first}..+{count} outside the {total} indices")]
    PrimitiveRange {
        primitive: usize,
        first: u32,
        count: u32,
        total: usize,
    },
    #[error("primitive {primitive}: index count {count} is not a positive multiple of 3")]
    PrimitiveCount { primitive: usize, count: u32 },
    #[error("primitive {primitive}: index {index} is not below the vertex count {vertices}")]
    IndexOutOfRange {
        primitive: usize,
        index: u32,
        vertices: usize,
    },
    #[error("{attribute} of vertex {vertex} is not finite")]
    NonFinite { attribute: String, vertex: usize },
    #[error("output of {bytes} bytes is too large for glTF")]
    TooLarge { bytes: u64 },
    #[error("JSON serialisation failed: {0}")]
    Json(String),
}

/// Build `.gltf` + `.bin`; `bin_uri` is the relative URI written into the buffer (written
/// as given: pass a safe file-name stem (the exporter's `names`), which needs no percent-encoding).
///
/// # Panics
/// If the mesh breaks its documented invariants (see [`try_build`], which returns the
/// reason instead; use it for meshes not already checked by the gates).
pub fn build(mesh: &Mesh, bin_uri: &str, opts: &GltfOptions, src: &Source<'_>) -> GltfFiles {
    match try_build(mesh, bin_uri, opts, src) {
        Ok(files) => files,
        Err(e) => panic!("gltf_out::build: invalid mesh for {}: {e}", src.name),
    }
}

/// Build `.gltf` + `.bin`, or say why the mesh cannot be written as valid glTF.
pub fn try_build(mesh: &Mesh, bin_uri: &str, opts: &GltfOptions, src: &Source<'_>) -> Result<GltfFiles, GltfError> {
    let encoded = encode(mesh, opts)?;
    let root = document(&encoded, Some(bin_uri), mesh, src);
    let gltf = json::serialize::to_vec_pretty(&root).map_err(|e| GltfError::Json(e.to_string()))?;
    Ok(GltfFiles { gltf, bin: encoded.bin })
}

/// [`try_build`], with the materials' textures from `links` (TX2D name → image URI
/// relative to the `.gltf`): each primitive's material named after a TX2D name gets its
/// `<base>_col` as `baseColorTexture` and `<base>_lum` as `emissiveTexture` (emissive
/// factor 1) when the mesh has `TEXCOORD_0`, and every linked map of its base
/// (`col`/`spc`/`gls`/`lum` → URI) in `extras.maps`. With [`SpecularGloss::Pbr`] also
/// the derived roughness of `<base>_gls` (link `<base>_gls~roughness`, see
/// [`xbg7::texture::maps::ROUGHNESS_KEY`]) as `metallicRoughnessTexture` (roughness
/// factor 1) and `<base>_spc` as `KHR_materials_specular`'s `specularColorTexture`.
/// Images are shared per URI.
pub fn try_build_textured(
    mesh: &Mesh,
    bin_uri: &str,
    opts: &GltfOptions,
    src: &Source<'_>,
    links: &xbg7::texture::maps::TextureLinks,
) -> Result<GltfFiles, GltfError> {
    let encoded = encode(mesh, opts)?;
    let mut root = document(&encoded, Some(bin_uri), mesh, src);
    apply_textures(&mut root, mesh, src, links, opts.specular_gloss);
    let gltf = json::serialize::to_vec_pretty(&root).map_err(|e| GltfError::Json(e.to_string()))?;
    Ok(GltfFiles { gltf, bin: encoded.bin })
}

/// Build one binary `.glb` (same document, buffer embedded).
///
/// # Panics
/// As [`build`]; [`try_build_glb`] returns the reason instead.
pub fn build_glb(mesh: &Mesh, opts: &GltfOptions, src: &Source<'_>) -> Vec<u8> {
    match try_build_glb(mesh, opts, src) {
        Ok(glb) => glb,
        Err(e) => panic!("gltf_out::build_glb: invalid mesh for {}: {e}", src.name),
    }
}

/// Build one binary `.glb`: 12-byte header, JSON chunk padded with spaces, BIN chunk
/// padded with zeros (glTF 2.0 §4.4), or say why the mesh cannot be written.
pub fn try_build_glb(mesh: &Mesh, opts: &GltfOptions, src: &Source<'_>) -> Result<Vec<u8>, GltfError> {
    let encoded = encode(mesh, opts)?;
    let root = document(&encoded, None, mesh, src);
    let json = json::serialize::to_vec(&root).map_err(|e| GltfError::Json(e.to_string()))?;
    glb_container(&json, &encoded.bin)
}

/// [`try_build_glb`] with the materials of [`try_build_textured`]: the same images,
/// textures, samplers and extras as the `.gltf`, each image embedded in the BIN chunk
/// (a `bufferView` after the mesh's, 4-byte aligned, and `mimeType` `image/png`) instead
/// of referenced by URI. `png(uri)` returns the bytes of a linked image (URI relative to
/// the model's folder, as in `links`); an image it cannot supply keeps its URI (still
/// valid glTF, then not self-contained).
pub fn try_build_glb_textured<'p>(
    mesh: &Mesh,
    opts: &GltfOptions,
    src: &Source<'_>,
    links: &xbg7::texture::maps::TextureLinks,
    png: &dyn Fn(&str) -> Option<&'p [u8]>,
) -> Result<Vec<u8>, GltfError> {
    let encoded = encode(mesh, opts)?;
    let mut root = document(&encoded, None, mesh, src);
    apply_textures(&mut root, mesh, src, links, opts.specular_gloss);
    let mut bin = encoded.bin;
    let buffer = json::Index::new(0);
    for k in 0..root.images.len() {
        let Some(bytes) = root.images[k].uri.as_deref().and_then(png) else {
            continue;
        };
        bin.resize(pad4(bin.len()), 0);
        let view = root.push(json::buffer::View {
            buffer,
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(bin.len())),
            byte_stride: None,
            name: None,
            target: None,
            extensions: None,
            extras: None,
        });
        bin.extend_from_slice(bytes);
        let im = &mut root.images[k];
        im.uri = None;
        im.buffer_view = Some(view);
    }
    if let Some(b) = root.buffers.first_mut() {
        b.byte_length = USize64::from(bin.len());
    }
    let json = json::serialize::to_vec(&root).map_err(|e| GltfError::Json(e.to_string()))?;
    glb_container(&json, &bin)
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
    use xbg7::mesh::Primitive;

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

    #[test]
    fn bounds_are_exact_and_deterministic_for_signed_zero() {
        let pts = [[0.0, -0.0, 1.5], [-0.0, 0.0, -2.25], [0.1, 3.0, 0.0]];
        let (lo, hi) = exact_bounds(&pts).unwrap();
        assert_eq!(lo.map(f32::to_bits), [0.0f32, -0.0, -2.25].map(f32::to_bits));
        assert_eq!(hi.map(f32::to_bits), [0.1f32, 3.0, 1.5].map(f32::to_bits));
        assert_eq!(exact_bounds(&[]), None);
        assert_eq!(json_vec(&[0.1]), serde_json::json!([0.10000000149011612]));
    }

    #[test]
    fn unit_rejects_zero_and_non_finite() {
        assert_eq!(unit([3.0, 0.0, 4.0]), Some([0.6, 0.0, 0.8]));
        assert_eq!(unit([0.0; 3]), None);
        assert_eq!(unit([f64::NAN, 0.0, 1.0]), None);
        assert_eq!(unit([f64::INFINITY, 0.0, 0.0]), None);
        assert_eq!(unit([1e-40, 0.0, 0.0]), Some([1.0, 0.0, 0.0]));
    }

    #[test]
    fn flip_swaps_second_and_third_index_per_primitive() {
        let mesh = Mesh {
            positions: vec![[0.0; 3]; 6],
            indices: vec![0, 1, 2, 3, 4, 5, 5, 4, 3],
            primitives: vec![
                Primitive {
                    first_index: 0,
                    index_count: 3,
                    material: None,
                },
                Primitive {
                    first_index: 3,
                    index_count: 6,
                    material: None,
                },
            ],
            ..Default::default()
        };
        let out = output_indices(&mesh, true).unwrap();
        assert_eq!(out.values, [0, 2, 1, 3, 5, 4, 5, 3, 4]);
        assert_eq!(out.ranges, [(0, 3), (3, 6)]);
        let keep = output_indices(&mesh, false).unwrap();
        assert_eq!(keep.values, mesh.indices);
    }

    #[test]
    fn colours_clamp_and_nan_becomes_zero() {
        assert_eq!(clamp01(f32::NAN), 0.0);
        assert_eq!(clamp01(-1.0), 0.0);
        assert_eq!(clamp01(2.0), 1.0);
        assert_eq!(clamp01(0.25), 0.25);
    }
}
