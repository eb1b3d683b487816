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

use std::collections::BTreeMap;

use gltf_json as json;
use json::validation::{Checked, USize64};

use xbg7::mesh::Mesh;

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

/// Add images, textures and material texture references (see [`try_build_textured`]).
/// `root.materials[k]` is primitive `k`'s material, as [`document`] writes them.
fn apply_textures(
    root: &mut json::Root,
    mesh: &Mesh,
    src: &Source<'_>,
    links: &xbg7::texture::maps::TextureLinks,
    mode: SpecularGloss,
) {
    let has_uv = !mesh.texcoords.is_empty();
    let pbr = mode == SpecularGloss::Pbr && has_uv;
    let mut by_uri: BTreeMap<String, json::Index<json::Texture>> = BTreeMap::new();
    for (k, prim) in mesh.primitives.iter().enumerate() {
        let Some(name) = &prim.material else { continue };
        let maps = xbg7::texture::maps::material_maps(name, links);
        if maps.is_empty() || k >= root.materials.len() {
            continue;
        }
        let mut texture = |root: &mut json::Root, uri: &str| -> json::texture::Info {
            let index = *by_uri.entry(uri.to_string()).or_insert_with(|| {
                let image = root.push(json::Image {
                    buffer_view: None,
                    mime_type: Some(json::image::MimeType("image/png".to_string())),
                    name: None,
                    uri: Some(uri.to_string()),
                    extensions: None,
                    extras: None,
                });
                root.push(json::Texture {
                    name: None,
                    sampler: None,
                    source: image,
                    extensions: None,
                    extras: None,
                })
            });
            json::texture::Info {
                index,
                tex_coord: 0,
                extensions: None,
                extras: None,
            }
        };
        let col = maps.get("col").filter(|_| has_uv).map(|u| texture(root, u));
        let lum = maps.get("lum").filter(|_| has_uv).map(|u| texture(root, u));
        let base = xbg7::texture::maps::map_base(name);
        let rough = links
            .get(&format!("{base}_gls{}", xbg7::texture::maps::ROUGHNESS_KEY))
            .filter(|_| pbr)
            .map(|u| texture(root, u));
        let spc = maps.get("spc").filter(|_| pbr).map(|u| texture(root, u));
        if spc.is_some() && !root.extensions_used.iter().any(|e| e == SPECULAR_EXT) {
            root.extensions_used.push(SPECULAR_EXT.to_string());
        }
        let m = &mut root.materials[k];
        if let Some(info) = rough {
            m.pbr_metallic_roughness.metallic_roughness_texture = Some(info);
            m.pbr_metallic_roughness.roughness_factor = json::material::StrengthFactor(1.0);
        }
        if let Some(info) = spc {
            m.extensions = Some(json::extensions::material::Material {
                specular: Some(json::extensions::material::Specular {
                    specular_factor: Default::default(),
                    specular_texture: None,
                    specular_color_factor: Default::default(),
                    specular_color_texture: Some(info),
                    extras: None,
                }),
            });
        }
        if let Some(info) = col {
            m.pbr_metallic_roughness.base_color_texture = Some(info);
        }
        if let Some(info) = lum {
            m.emissive_texture = Some(info);
            m.emissive_factor = json::material::EmissiveFactor([1.0, 1.0, 1.0]);
        }
        m.extras = raw(&serde_json::json!({ "textures": src.textures, "maps": maps }));
    }
}

/// The glTF extension `_spc` maps are written with.
pub const SPECULAR_EXT: &str = "KHR_materials_specular";

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
pub fn try_build_glb_textured(
    mesh: &Mesh,
    opts: &GltfOptions,
    src: &Source<'_>,
    links: &xbg7::texture::maps::TextureLinks,
    png: &dyn Fn(&str) -> Option<Vec<u8>>,
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
        bin.extend_from_slice(&bytes);
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

fn pad4(n: usize) -> usize {
    n.div_ceil(4) * 4
}

/// Where one attribute lives in the binary buffer.
struct AttributeSpec {
    semantic: json::mesh::Semantic,
    offset: usize,
    len: usize,
    type_: json::accessor::Type,
    /// Exact bounds (positions only).
    bounds: Option<([f32; 3], [f32; 3])>,
}

/// The binary buffer and where everything is in it.
struct Encoded {
    bin: Vec<u8>,
    vertex_count: usize,
    attributes: Vec<AttributeSpec>,
    index_offset: usize,
    index_u32: bool,
    /// Per primitive: (first element in the index view, element count).
    primitives: Vec<(usize, usize)>,
}

/// Check the mesh, convert it to the output frame and lay out the binary buffer.
fn encode(mesh: &Mesh, opts: &GltfOptions) -> Result<Encoded, GltfError> {
    let n = mesh.vertex_count();
    if n == 0 {
        return Err(GltfError::NoVertices);
    }
    if mesh.primitives.is_empty() {
        return Err(GltfError::NoPrimitives);
    }
    check_len("NORMAL", n, mesh.normals.as_ref().map(Vec::len))?;
    for (k, set) in mesh.texcoords.iter().enumerate() {
        check_len(&format!("TEXCOORD_{k}"), n, Some(set.len()))?;
    }
    check_len("COLOR", n, mesh.colors.as_ref().map(Vec::len))?;
    let flip = opts.axis == Axis::FlipZ;

    let indices = output_indices(mesh, flip)?;
    let positions = output_positions(&mesh.positions, flip)?;
    let normals = mesh
        .normals
        .as_ref()
        .map(|ns| output_normals(ns, &positions, &indices.values, flip));
    for (k, set) in mesh.texcoords.iter().enumerate() {
        if let Some(v) = set.iter().position(|t| !t.iter().all(|c| c.is_finite())) {
            return Err(GltfError::NonFinite {
                attribute: format!("TEXCOORD_{k}"),
                vertex: v,
            });
        }
    }

    let mut bin = Vec::new();
    let mut attributes = Vec::new();
    let mut push = |semantic, type_, bounds, data: &[f32], bin: &mut Vec<u8>| {
        let offset = bin.len();
        for v in data {
            bin.extend_from_slice(&v.to_le_bytes());
        }
        attributes.push(AttributeSpec {
            semantic,
            offset,
            len: bin.len() - offset,
            type_,
            bounds,
        });
    };
    use json::accessor::Type;
    use json::mesh::Semantic;
    let flat3 = |v: &[[f32; 3]]| v.iter().flatten().copied().collect::<Vec<f32>>();
    push(
        Semantic::Positions,
        Type::Vec3,
        exact_bounds(&positions),
        &flat3(&positions),
        &mut bin,
    );
    if let Some(ns) = &normals {
        push(Semantic::Normals, Type::Vec3, None, &flat3(ns), &mut bin);
    }
    for (k, set) in mesh.texcoords.iter().enumerate() {
        let flat: Vec<f32> = set.iter().flatten().copied().collect();
        push(Semantic::TexCoords(k as u32), Type::Vec2, None, &flat, &mut bin);
    }
    if let Some(cs) = &mesh.colors {
        let semantic = match opts.vertex_color {
            VertexColor::Color0 => Some(Semantic::Colors(0)),
            VertexColor::Custom => Some(Semantic::Extras("VERTEXCOLOR".to_string())),
            VertexColor::Drop => None,
        };
        if let Some(semantic) = semantic {
            let flat: Vec<f32> = cs.iter().flatten().map(|&c| clamp01(c)).collect();
            push(semantic, Type::Vec4, None, &flat, &mut bin);
        }
    }

    // All attribute data is f32, so the index view starts 4-byte aligned.
    let index_offset = bin.len();
    let index_u32 = indices.values.iter().any(|&i| i >= 65535);
    for &i in &indices.values {
        if index_u32 {
            bin.extend_from_slice(&i.to_le_bytes());
        } else {
            // Every index is < 65535 here.
            bin.extend_from_slice(&(i as u16).to_le_bytes());
        }
    }
    if u32::try_from(bin.len()).is_err() {
        return Err(GltfError::TooLarge {
            bytes: bin.len() as u64,
        });
    }
    Ok(Encoded {
        bin,
        vertex_count: n,
        attributes,
        index_offset,
        index_u32,
        primitives: indices.ranges,
    })
}

fn check_len(attribute: &str, expected: usize, got: Option<usize>) -> Result<(), GltfError> {
    match got {
        Some(got) if got != expected => Err(GltfError::AttributeLength {
            attribute: attribute.to_string(),
            expected,
            got,
        }),
        _ => Ok(()),
    }
}

/// The index list as written: every primitive's range back to back, winding reversed
/// under FlipZ, with each primitive's (start, count) in it.
struct OutputIndices {
    values: Vec<u32>,
    ranges: Vec<(usize, usize)>,
}

fn output_indices(mesh: &Mesh, flip: bool) -> Result<OutputIndices, GltfError> {
    let n = mesh.vertex_count();
    let total = mesh.indices.len();
    let mut values = Vec::with_capacity(total);
    let mut ranges = Vec::with_capacity(mesh.primitives.len());
    for (p, prim) in mesh.primitives.iter().enumerate() {
        if prim.index_count == 0 || prim.index_count % 3 != 0 {
            return Err(GltfError::PrimitiveCount {
                primitive: p,
                count: prim.index_count,
            });
        }
        let first = prim.first_index as usize;
        let range = first
            .checked_add(prim.index_count as usize)
            .and_then(|end| mesh.indices.get(first..end))
            .ok_or(GltfError::PrimitiveRange {
                primitive: p,
                first: prim.first_index,
                count: prim.index_count,
                total,
            })?;
        if let Some(&bad) = range.iter().find(|&&i| i as usize >= n) {
            return Err(GltfError::IndexOutOfRange {
                primitive: p,
                index: bad,
                vertices: n,
            });
        }
        ranges.push((values.len(), range.len()));
        for tri in range.chunks_exact(3) {
            if flip {
                values.extend_from_slice(&[tri[0], tri[2], tri[1]]);
            } else {
                values.extend_from_slice(tri);
            }
        }
    }
    Ok(OutputIndices { values, ranges })
}

/// Negate Z when flipping (a pure sign flip: exact mirror, `0.0` → `-0.0`).
fn to_output_frame(v: [f32; 3], flip: bool) -> [f32; 3] {
    if flip {
        [v[0], v[1], -v[2]]
    } else {
        v
    }
}

fn output_positions(positions: &[[f32; 3]], flip: bool) -> Result<Vec<[f32; 3]>, GltfError> {
    if let Some(v) = positions.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
        return Err(GltfError::NonFinite {
            attribute: "POSITION".to_string(),
            vertex: v,
        });
    }
    Ok(positions.iter().map(|&p| to_output_frame(p, flip)).collect())
}

/// Unit vector of `v`, or `None` when it is zero or not finite.
fn unit(v: [f64; 3]) -> Option<[f32; 3]> {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if !len.is_finite() || len <= 0.0 {
        return None;
    }
    let u = [(v[0] / len) as f32, (v[1] / len) as f32, (v[2] / len) as f32];
    u.iter().all(|c| c.is_finite()).then_some(u)
}

/// Renormalised output-frame normals, with the documented fallback for unusable ones.
fn output_normals(normals: &[[f32; 3]], out_positions: &[[f32; 3]], out_indices: &[u32], flip: bool) -> Vec<[f32; 3]> {
    let as64 = |v: [f32; 3]| [f64::from(v[0]), f64::from(v[1]), f64::from(v[2])];
    let mut out: Vec<Option<[f32; 3]>> = normals
        .iter()
        .map(|&nv| unit(as64(to_output_frame(nv, flip))))
        .collect();
    if out.iter().any(Option::is_none) {
        let face_sums = face_normal_sums(out_positions, out_indices);
        for (slot, sum) in out.iter_mut().zip(face_sums) {
            if slot.is_none() {
                *slot = Some(unit(sum).unwrap_or([0.0, 0.0, 1.0]));
            }
        }
    }
    out.into_iter().map(|v| v.unwrap_or([0.0, 0.0, 1.0])).collect()
}

/// Per vertex, the sum of the (area-weighted, counter-clockwise) face normals of the
/// triangles using it, in the output frame.
fn face_normal_sums(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f64; 3]> {
    let mut sums = vec![[0.0f64; 3]; positions.len()];
    let at = |i: u32| {
        let p = positions[i as usize];
        [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])]
    };
    for tri in indices.chunks_exact(3) {
        let (a, b, c) = (at(tri[0]), at(tri[1]), at(tri[2]));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let cross = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        for &i in tri {
            for k in 0..3 {
                sums[i as usize][k] += cross[k];
            }
        }
    }
    sums
}

fn clamp01(c: f32) -> f32 {
    if c.is_nan() {
        0.0
    } else {
        c.clamp(0.0, 1.0)
    }
}

/// Exact component-wise bounds of finite points (`None` when empty). Uses strict
/// comparisons, so the first of `0.0`/`-0.0` seen wins (deterministic either way).
fn exact_bounds(points: &[[f32; 3]]) -> Option<([f32; 3], [f32; 3])> {
    let first = *points.first()?;
    let (mut lo, mut hi) = (first, first);
    for p in &points[1..] {
        for k in 0..3 {
            if p[k] < lo[k] {
                lo[k] = p[k];
            }
            if p[k] > hi[k] {
                hi[k] = p[k];
            }
        }
    }
    Some((lo, hi))
}

/// An f32 vector as a JSON array of the exact f64 values.
fn json_vec(v: &[f32]) -> json::Value {
    json::Value::Array(v.iter().map(|&c| json::Value::from(f64::from(c))).collect())
}

fn raw(value: &serde_json::Value) -> json::extras::Extras {
    // Serialising an in-memory `Value` cannot fail.
    serde_json::value::to_raw_value(value).ok()
}

/// The glTF document for an encoded mesh; `uri: None` for GLB (embedded buffer).
fn document(enc: &Encoded, uri: Option<&str>, mesh: &Mesh, src: &Source<'_>) -> json::Root {
    use json::accessor::{ComponentType, GenericComponentType, Type};
    let source = serde_json::json!({
        "source": { "container": src.container, "directory_index": src.directory_index }
    });
    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(format!("xbg7-export {}", env!("CARGO_PKG_VERSION"))),
            version: "2.0".to_string(),
            ..Default::default()
        },
        extras: raw(&source),
        ..Default::default()
    };
    let buffer = root.push(json::Buffer {
        byte_length: USize64::from(enc.bin.len()),
        name: None,
        uri: uri.map(str::to_string),
        extensions: None,
        extras: None,
    });
    let view = |root: &mut json::Root, offset: usize, len: usize, target| {
        root.push(json::buffer::View {
            buffer,
            byte_length: USize64::from(len),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: Some(Checked::Valid(target)),
            extensions: None,
            extras: None,
        })
    };
    let accessor = |view, offset: usize, count: usize, ct, type_, bounds: Option<_>| {
        let (min, max) = match bounds {
            Some((lo, hi)) => {
                let (lo, hi): ([f32; 3], [f32; 3]) = (lo, hi);
                (Some(json_vec(&lo)), Some(json_vec(&hi)))
            }
            None => (None, None),
        };
        json::Accessor {
            buffer_view: Some(view),
            byte_offset: (offset > 0).then(|| USize64::from(offset)),
            count: USize64::from(count),
            component_type: Checked::Valid(GenericComponentType(ct)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        }
    };

    let mut attributes = BTreeMap::new();
    for a in &enc.attributes {
        let v = view(&mut root, a.offset, a.len, json::buffer::Target::ArrayBuffer);
        let acc = root.push(accessor(v, 0, enc.vertex_count, ComponentType::F32, a.type_, a.bounds));
        attributes.insert(Checked::Valid(a.semantic.clone()), acc);
    }
    let (index_ct, index_size) = if enc.index_u32 {
        (ComponentType::U32, 4)
    } else {
        (ComponentType::U16, 2)
    };
    let index_len = enc.bin.len() - enc.index_offset;
    let index_view = view(
        &mut root,
        enc.index_offset,
        index_len,
        json::buffer::Target::ElementArrayBuffer,
    );

    let textures = serde_json::json!({ "textures": src.textures });
    let primitive = |attributes, indices, material| json::mesh::Primitive {
        attributes,
        extensions: None,
        extras: None,
        indices: Some(indices),
        material: Some(material),
        mode: Checked::Valid(json::mesh::Mode::Triangles),
        targets: None,
    };
    let mut materials_by_name = BTreeMap::new();
    let mut primitives = Vec::with_capacity(enc.primitives.len());
    for (k, (&(start, count), prim)) in enc.primitives.iter().zip(&mesh.primitives).enumerate() {
        let indices = root.push(accessor(
            index_view,
            start * index_size,
            count,
            index_ct,
            Type::Scalar,
            None,
        ));
        let material_name = prim.material.clone().unwrap_or_else(|| format!("{}_mat{k}", src.name));
        if let Some(&m) = materials_by_name.get(&material_name) {
            // One material per name: Blender would import a second one as `name.001`.
            primitives.push(primitive(attributes.clone(), indices, m));
            continue;
        }
        let material = root.push(json::Material {
            name: Some(material_name.clone()),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(0.8),
                ..Default::default()
            },
            double_sided: false,
            extras: raw(&textures),
            ..Default::default()
        });
        materials_by_name.insert(material_name, material);
        primitives.push(primitive(attributes.clone(), indices, material));
    }
    let mesh_index = root.push(json::Mesh {
        extensions: None,
        extras: None,
        name: Some(src.name.to_string()),
        primitives,
        weights: None,
    });
    let node = root.push(json::Node {
        mesh: Some(mesh_index),
        name: Some(src.name.to_string()),
        extras: raw(&source),
        ..Default::default()
    });
    let scene = root.push(json::Scene {
        extensions: None,
        extras: None,
        name: None,
        nodes: vec![node],
    });
    root.scene = Some(scene);
    root
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
