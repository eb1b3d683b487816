//! Stage scenes: one glTF that brings a whole stage's sub-models into a tool at once.
//!
//! This module owns merging the writer's per-resource documents ([`crate::gltf_out`]) into
//! one scene and the cast-sheet layout of its nodes. Geometry is never re-encoded: the
//! scene is built from the very documents the writer produced, so its accessors and
//! buffer views are the writer's own layout.
//!
//! - **`.gltf` mode** ([`merge_gltf`]): every part keeps its buffer *by URI*, so the
//!   scene's accessors point into the same `.bin` files as the per-resource `.gltf` files
//!   next to it (the scene must be written into the same folder as those `.bin` files).
//! - **`.glb` mode** ([`merge_glb`]): the parts are the writer's `.glb` files; their
//!   embedded BIN chunks are concatenated (each part starting 4-byte aligned, so every
//!   view keeps its alignment) into one embedded buffer, the views shifted by the part's
//!   offset: one self-contained `.glb`.
//! - **Structure**: one root node named after the stage (`extras.source.container`) whose
//!   children are the parts' root nodes, each translated to its cell ([`cast_sheet`]).
//!   Samplers, images, textures and materials that are identical after re-indexing are
//!   stored once (a material shared by several sub-models stays one material in Blender
//!   instead of `name.001`, `name.002`, …). `extensionsUsed`/`Required` are merged.
//! - **Layout** ([`cast_sheet`]): parts in the given order on a near-square grid in the
//!   XZ plane (glTF Y is up); each column is as wide as its widest part, each row as deep
//!   as its deepest, with a gap of [`GAP_FRACTION`] of the largest footprint side; every
//!   part is centred in its cell and stands on `y = 0`; the whole sheet is centred on the
//!   origin. Boxes come from the parts' `POSITION` accessor `min`/`max` (output frame).
//!
//! Parts with cameras, skins or animations are refused ([`SceneError::Unsupported`]): the
//! writer never produces them, and merging them would need more re-indexing than this
//! module does.

use gltf_json as json;
use json::validation::USize64;
use json::Index;

/// Gap between grid cells, as a fraction of the largest footprint side of all parts.
pub const GAP_FRACTION: f64 = 0.1;

/// Why a scene cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SceneError {
    #[error("part {part}: not a glTF document: {detail}")]
    Json { part: usize, detail: String },
    #[error("part {part}: not a GLB file: {detail}")]
    Glb { part: usize, detail: String },
    #[error("part {part}: {what} are not supported in a stage scene")]
    Unsupported { part: usize, what: &'static str },
    #[error("part {part}: {detail}")]
    Invalid { part: usize, detail: String },
    #[error("scene of {bytes} bytes is too large for GLB")]
    TooLarge { bytes: u64 },
    #[error("a scene needs at least one part")]
    Empty,
}

/// Axis-aligned bounds `(min, max)` in the output frame.
pub type Bounds = ([f32; 3], [f32; 3]);

/// Translations that lay `boxes` out as a cast sheet (see the module doc), one per box,
/// in order. Non-finite bounds count as an empty box at the origin.
pub fn cast_sheet(boxes: &[Bounds]) -> Vec<[f32; 3]> {
    let n = boxes.len();
    if n == 0 {
        return Vec::new();
    }
    let clean: Vec<([f64; 3], [f64; 3])> = boxes
        .iter()
        .map(|(lo, hi)| {
            let lo = lo.map(f64::from);
            let hi = hi.map(f64::from);
            if lo.iter().chain(&hi).all(|c| c.is_finite()) && (0..3).all(|k| lo[k] <= hi[k]) {
                (lo, hi)
            } else {
                ([0.0; 3], [0.0; 3])
            }
        })
        .collect();
    let cols = (1..=n).find(|c| c * c >= n).unwrap_or(n);
    let rows = n.div_ceil(cols);
    let width = |b: &([f64; 3], [f64; 3])| b.1[0] - b.0[0];
    let depth = |b: &([f64; 3], [f64; 3])| b.1[2] - b.0[2];
    let largest = clean.iter().map(|b| width(b).max(depth(b))).fold(0.0, f64::max);
    let gap = if largest > 0.0 { GAP_FRACTION * largest } else { 1.0 };
    let mut col_w = vec![0.0f64; cols];
    let mut row_d = vec![0.0f64; rows];
    for (i, b) in clean.iter().enumerate() {
        col_w[i % cols] = col_w[i % cols].max(width(b));
        row_d[i / cols] = row_d[i / cols].max(depth(b));
    }
    let starts = |sizes: &[f64]| -> (Vec<f64>, f64) {
        let mut at = 0.0;
        let mut out = Vec::with_capacity(sizes.len());
        for s in sizes {
            out.push(at);
            at += s + gap;
        }
        (out, at - gap)
    };
    let (x0, total_w) = starts(&col_w);
    let (z0, total_d) = starts(&row_d);
    clean
        .iter()
        .enumerate()
        .map(|(i, (lo, hi))| {
            let (c, r) = (i % cols, i / cols);
            let cx = x0[c] + col_w[c] / 2.0 - total_w / 2.0;
            let cz = z0[r] + row_d[r] / 2.0 - total_d / 2.0;
            // `+ 0.0` turns a `-0.0` into `0.0`.
            [
                (cx - (lo[0] + hi[0]) / 2.0 + 0.0) as f32,
                (-lo[1] + 0.0) as f32,
                (cz - (lo[2] + hi[2]) / 2.0 + 0.0) as f32,
            ]
        })
        .collect()
}

/// Merge the writer's `.gltf` documents (buffers by URI, kept as they are) into one
/// stage scene; `name` names the root node, `container` goes into `extras.source`.
pub fn merge_gltf(parts: &[&[u8]], name: &str, container: &str) -> Result<Vec<u8>, SceneError> {
    let docs = parts
        .iter()
        .enumerate()
        .map(|(k, p)| parse_doc(k, p))
        .collect::<Result<Vec<_>, _>>()?;
    let root = merge(docs, name, container, None)?;
    json::serialize::to_vec_pretty(&root).map_err(|e| SceneError::Json {
        part: 0,
        detail: e.to_string(),
    })
}

/// Merge the writer's `.glb` files into one self-contained `.glb` stage scene.
pub fn merge_glb(parts: &[&[u8]], name: &str, container: &str) -> Result<Vec<u8>, SceneError> {
    let mut docs = Vec::with_capacity(parts.len());
    let mut bins = Vec::with_capacity(parts.len());
    for (k, p) in parts.iter().enumerate() {
        let (j, bin) = split_glb(p).map_err(|detail| SceneError::Glb { part: k, detail })?;
        docs.push(parse_doc(k, j)?);
        bins.push(bin);
    }
    let mut blob = Vec::new();
    let mut offsets = Vec::with_capacity(bins.len());
    for b in &bins {
        blob.resize(blob.len().div_ceil(4) * 4, 0);
        offsets.push(blob.len());
        blob.extend_from_slice(b);
    }
    let root = merge(docs, name, container, Some((&offsets, blob.len())))?;
    let text = json::serialize::to_vec(&root).map_err(|e| SceneError::Json {
        part: 0,
        detail: e.to_string(),
    })?;
    assemble_glb(&text, &blob)
}

fn parse_doc(part: usize, bytes: &[u8]) -> Result<json::Root, SceneError> {
    let root: json::Root = serde_json::from_slice(bytes).map_err(|e| SceneError::Json {
        part,
        detail: e.to_string(),
    })?;
    let unsupported = |what| Err(SceneError::Unsupported { part, what });
    if !root.cameras.is_empty() {
        return unsupported("cameras");
    }
    if !root.skins.is_empty() {
        return unsupported("skins");
    }
    if !root.animations.is_empty() {
        return unsupported("animations");
    }
    Ok(root)
}

/// Split a GLB into its JSON chunk and its (optional, else empty) BIN chunk.
pub fn split_glb(glb: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let u32_at = |at: usize| -> Result<u32, String> {
        glb.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| format!("truncated at byte {at}"))
    };
    if glb.get(..4) != Some(b"glTF".as_slice()) {
        return Err("no glTF magic".to_string());
    }
    if u32_at(4)? != 2 {
        return Err("not GLB version 2".to_string());
    }
    let total = (u32_at(8)? as usize).min(glb.len());
    let chunk = |at: usize, tag: &[u8; 4]| -> Result<Option<(&[u8], usize)>, String> {
        if at >= total {
            return Ok(None);
        }
        let len = u32_at(at)? as usize;
        if glb.get(at + 4..at + 8) != Some(tag.as_slice()) {
            return Err(format!(
                "expected a {} chunk at byte {at}",
                String::from_utf8_lossy(tag)
            ));
        }
        let body = glb
            .get(at + 8..)
            .and_then(|rest| rest.get(..len))
            .ok_or_else(|| format!("chunk at byte {at} runs past the end"))?;
        Ok(Some((body, at + 8 + len)))
    };
    let (json_chunk, next) = chunk(12, b"JSON")?.ok_or("no JSON chunk")?;
    let bin = chunk(next, b"BIN\0")?.map_or(&[][..], |(b, _)| b);
    Ok((json_chunk, bin))
}

fn assemble_glb(json_text: &[u8], bin: &[u8]) -> Result<Vec<u8>, SceneError> {
    let pad4 = |n: usize| n.div_ceil(4) * 4;
    let (jl, bl) = (pad4(json_text.len()), pad4(bin.len()));
    let total = 12 + 8 + jl + if bin.is_empty() { 0 } else { 8 + bl };
    let too_large = || SceneError::TooLarge { bytes: total as u64 };
    let total32 = u32::try_from(total).map_err(|_| too_large())?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&(jl as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json_text);
    out.resize(out.len() + jl - json_text.len(), b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(bl as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out.resize(out.len() + bl - bin.len(), 0);
    }
    Ok(out)
}

/// Bounds of a document: the union of the `POSITION` accessor `min`/`max` of every mesh
/// its default scene's root nodes use (`None` when it has none).
fn doc_bounds(doc: &json::Root) -> Option<Bounds> {
    let scene = doc.scene.map_or(0, |s| s.value());
    let mut acc: Option<Bounds> = None;
    let roots = doc.scenes.get(scene).map(|s| s.nodes.as_slice()).unwrap_or(&[]);
    for node in roots.iter().filter_map(|n| doc.nodes.get(n.value())) {
        let Some(mesh) = node.mesh.and_then(|m| doc.meshes.get(m.value())) else {
            continue;
        };
        for p in &mesh.primitives {
            let key = json::validation::Checked::Valid(json::mesh::Semantic::Positions);
            let Some(a) = p.attributes.get(&key).and_then(|a| doc.accessors.get(a.value())) else {
                continue;
            };
            let (Some(lo), Some(hi)) = (vec3(a.min.as_ref()), vec3(a.max.as_ref())) else {
                continue;
            };
            acc = Some(match acc {
                None => (lo, hi),
                Some((l, h)) => (
                    [l[0].min(lo[0]), l[1].min(lo[1]), l[2].min(lo[2])],
                    [h[0].max(hi[0]), h[1].max(hi[1]), h[2].max(hi[2])],
                ),
            });
        }
    }
    acc
}

fn vec3(v: Option<&json::Value>) -> Option<[f32; 3]> {
    let a = v?.as_array()?;
    if a.len() != 3 {
        return None;
    }
    let c = |i: usize| a[i].as_f64().map(|x| x as f32);
    Some([c(0)?, c(1)?, c(2)?])
}

fn idx<T>(i: Index<T>, base: usize) -> Index<T> {
    Index::new((i.value() + base) as u32)
}

/// Push `item` unless an identical one (same JSON) is already in `list`; its index.
fn push_dedup<T: serde::Serialize>(list: &mut Vec<T>, keys: &mut Vec<String>, item: T) -> u32 {
    let key = serde_json::to_string(&item).unwrap_or_default();
    if let Some(i) = keys.iter().position(|k| *k == key) {
        return i as u32;
    }
    keys.push(key);
    list.push(item);
    (list.len() - 1) as u32
}

/// Merge documents; `embedded` = (per-part offset of its GLB buffer in the blob, blob
/// length) for GLB mode (each part's buffer 0 without URI is its embedded buffer).
fn merge(
    docs: Vec<json::Root>,
    name: &str,
    container: &str,
    embedded: Option<(&[usize], usize)>,
) -> Result<json::Root, SceneError> {
    if docs.is_empty() {
        return Err(SceneError::Empty);
    }
    let boxes: Vec<Bounds> = docs
        .iter()
        .map(|d| doc_bounds(d).unwrap_or(([0.0; 3], [0.0; 3])))
        .collect();
    let moves = cast_sheet(&boxes);
    let source = serde_json::json!({ "source": { "container": container } });
    let mut merger = Merger::new(&source, embedded);
    for (k, (doc, shift)) in docs.into_iter().zip(moves).enumerate() {
        merger.add_part(k, doc, shift)?;
    }
    Ok(merger.finish(name, &source))
}

/// The scene being merged: the output document, the dedup keys of the shared lists and
/// the root nodes of the parts added so far.
struct Merger<'e> {
    out: json::Root,
    embedded: Option<(&'e [usize], usize)>,
    sampler_keys: Vec<String>,
    image_keys: Vec<String>,
    texture_keys: Vec<String>,
    material_keys: Vec<String>,
    children: Vec<Index<json::Node>>,
}

/// Where a part's buffers went: per part buffer, its scene buffer and the shift of its
/// views' offsets (the part's offset in the GLB blob).
struct BufferMap {
    index: Vec<u32>,
    shift: Vec<u64>,
}

impl<'e> Merger<'e> {
    /// An empty scene (asset, `extras.source`), with the embedded buffer in GLB mode.
    fn new(source: &serde_json::Value, embedded: Option<(&'e [usize], usize)>) -> Self {
        let mut out = json::Root {
            asset: json::Asset {
                generator: Some(format!("xbg7-export {}", env!("CARGO_PKG_VERSION"))),
                version: "2.0".to_string(),
                ..Default::default()
            },
            extras: serde_json::value::to_raw_value(source).ok(),
            ..Default::default()
        };
        if let Some((_, len)) = embedded {
            out.buffers.push(json::Buffer {
                byte_length: USize64::from(len),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
        Merger {
            out,
            embedded,
            sampler_keys: Vec::new(),
            image_keys: Vec::new(),
            texture_keys: Vec::new(),
            material_keys: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Append part `k` re-indexed, its root moved by `shift`.
    fn add_part(&mut self, k: usize, doc: json::Root, shift: [f32; 3]) -> Result<(), SceneError> {
        let buffers = self.add_buffers(k, doc.buffers)?;
        let view_base = self.add_views(k, doc.buffer_views, &buffers)?;
        let accessor_base = self.add_accessors(doc.accessors, view_base);
        let texture_map = self.add_textures(k, doc.samplers, doc.images, doc.textures, view_base)?;
        let material_map = self.add_materials(k, doc.materials, &texture_map)?;
        let mesh_base = self.add_meshes(k, doc.meshes, accessor_base, &material_map)?;
        let node_base = self.add_nodes(k, doc.nodes, mesh_base)?;
        self.place_roots(k, doc.scene, &doc.scenes, node_base, shift);
        self.add_extensions(doc.extensions_used, doc.extensions_required);
        Ok(())
    }

    /// Buffers: the embedded one (GLB) maps to the blob, the others keep their URI.
    fn add_buffers(&mut self, k: usize, buffers: Vec<json::Buffer>) -> Result<BufferMap, SceneError> {
        let mut map = BufferMap {
            index: Vec::with_capacity(buffers.len()),
            shift: Vec::with_capacity(buffers.len()),
        };
        for (b, buf) in buffers.into_iter().enumerate() {
            match self.embedded {
                Some((offsets, _)) if b == 0 && buf.uri.is_none() => {
                    map.index.push(0u32);
                    map.shift.push(offsets[k] as u64);
                }
                _ => {
                    if buf.uri.is_none() {
                        return Err(invalid(k, format!("buffer {b} has no URI")));
                    }
                    self.out.buffers.push(buf);
                    map.index.push((self.out.buffers.len() - 1) as u32);
                    map.shift.push(0);
                }
            }
        }
        Ok(map)
    }

    /// Buffer views onto their scene buffers, offsets shifted; the first view's index.
    fn add_views(
        &mut self,
        k: usize,
        views: Vec<json::buffer::View>,
        buffers: &BufferMap,
    ) -> Result<usize, SceneError> {
        let view_base = self.out.buffer_views.len();
        for mut v in views {
            let b = v.buffer.value();
            let (Some(&nb), Some(&sh)) = (buffers.index.get(b), buffers.shift.get(b)) else {
                return Err(invalid(k, format!("buffer view names missing buffer {b}")));
            };
            v.buffer = Index::new(nb);
            if sh > 0 {
                let at = v.byte_offset.map_or(0, |o| o.0);
                v.byte_offset = Some(USize64(at + sh));
            }
            self.out.buffer_views.push(v);
        }
        Ok(view_base)
    }

    /// Accessors onto the re-indexed views; the first accessor's index.
    fn add_accessors(&mut self, accessors: Vec<json::Accessor>, view_base: usize) -> usize {
        let accessor_base = self.out.accessors.len();
        for mut a in accessors {
            a.buffer_view = a.buffer_view.map(|v| idx(v, view_base));
            if let Some(s) = &mut a.sparse {
                s.indices.buffer_view = idx(s.indices.buffer_view, view_base);
                s.values.buffer_view = idx(s.values.buffer_view, view_base);
            }
            self.out.accessors.push(a);
        }
        accessor_base
    }

    /// Samplers, images and textures, each stored once; per part texture, its scene index.
    fn add_textures(
        &mut self,
        k: usize,
        samplers: Vec<json::texture::Sampler>,
        images: Vec<json::Image>,
        textures: Vec<json::Texture>,
        view_base: usize,
    ) -> Result<Vec<u32>, SceneError> {
        let sampler_map: Vec<u32> = samplers
            .into_iter()
            .map(|s| push_dedup(&mut self.out.samplers, &mut self.sampler_keys, s))
            .collect();
        let image_map: Vec<u32> = images
            .into_iter()
            .map(|mut im| {
                im.buffer_view = im.buffer_view.map(|v| idx(v, view_base));
                push_dedup(&mut self.out.images, &mut self.image_keys, im)
            })
            .collect();
        let mut texture_map = Vec::with_capacity(textures.len());
        for mut t in textures {
            let map = |m: &[u32], i: usize, what: &str| {
                m.get(i)
                    .copied()
                    .ok_or_else(|| invalid(k, format!("texture names missing {what} {i}")))
            };
            t.source = Index::new(map(&image_map, t.source.value(), "image")?);
            t.sampler = t
                .sampler
                .map(|s| map(&sampler_map, s.value(), "sampler").map(Index::new))
                .transpose()?;
            texture_map.push(push_dedup(&mut self.out.textures, &mut self.texture_keys, t));
        }
        Ok(texture_map)
    }

    /// Materials with their texture references re-indexed, each stored once; per part
    /// material, its scene index.
    fn add_materials(
        &mut self,
        k: usize,
        materials: Vec<json::Material>,
        texture_map: &[u32],
    ) -> Result<Vec<u32>, SceneError> {
        let tex = |i: Index<json::Texture>| -> Result<Index<json::Texture>, SceneError> {
            texture_map
                .get(i.value())
                .map(|&t| Index::new(t))
                .ok_or_else(|| invalid(k, format!("material names missing texture {}", i.value())))
        };
        let mut material_map = Vec::with_capacity(materials.len());
        for mut m in materials {
            let pbr = &mut m.pbr_metallic_roughness;
            for info in [
                &mut pbr.base_color_texture,
                &mut pbr.metallic_roughness_texture,
                &mut m.emissive_texture,
            ]
            .into_iter()
            .flatten()
            {
                info.index = tex(info.index)?;
            }
            if let Some(t) = &mut m.normal_texture {
                t.index = tex(t.index)?;
            }
            if let Some(t) = &mut m.occlusion_texture {
                t.index = tex(t.index)?;
            }
            // KHR_materials_specular (the writer's `_spc` mapping) names textures too.
            if let Some(sp) = m.extensions.as_mut().and_then(|e| e.specular.as_mut()) {
                for info in [&mut sp.specular_texture, &mut sp.specular_color_texture]
                    .into_iter()
                    .flatten()
                {
                    info.index = tex(info.index)?;
                }
            }
            material_map.push(push_dedup(&mut self.out.materials, &mut self.material_keys, m));
        }
        Ok(material_map)
    }

    /// Meshes with their accessors, materials and morph targets re-indexed; the first
    /// mesh's index.
    fn add_meshes(
        &mut self,
        k: usize,
        meshes: Vec<json::Mesh>,
        accessor_base: usize,
        material_map: &[u32],
    ) -> Result<usize, SceneError> {
        let mesh_base = self.out.meshes.len();
        for mut mesh in meshes {
            for p in &mut mesh.primitives {
                for a in p.attributes.values_mut() {
                    *a = idx(*a, accessor_base);
                }
                p.indices = p.indices.map(|i| idx(i, accessor_base));
                if let Some(m) = p.material {
                    let nm = material_map
                        .get(m.value())
                        .ok_or_else(|| invalid(k, format!("primitive names missing material {}", m.value())))?;
                    p.material = Some(Index::new(*nm));
                }
                for t in p.targets.iter_mut().flatten() {
                    for a in [&mut t.positions, &mut t.normals, &mut t.tangents]
                        .into_iter()
                        .flatten()
                    {
                        *a = idx(*a, accessor_base);
                    }
                }
            }
            self.out.meshes.push(mesh);
        }
        Ok(mesh_base)
    }

    /// Nodes with their mesh and children re-indexed; the first node's index.
    fn add_nodes(&mut self, k: usize, nodes: Vec<json::Node>, mesh_base: usize) -> Result<usize, SceneError> {
        let node_base = self.out.nodes.len();
        let node_count = nodes.len();
        for mut n in nodes {
            n.mesh = n.mesh.map(|m| idx(m, mesh_base));
            if let Some(ch) = &mut n.children {
                for c in ch.iter_mut() {
                    if c.value() >= node_count {
                        return Err(invalid(k, format!("node names missing child {}", c.value())));
                    }
                    *c = idx(*c, node_base);
                }
            }
            self.out.nodes.push(n);
        }
        Ok(node_base)
    }

    /// Move the part's default-scene roots to its cell: its one root node itself when it
    /// has no matrix, else a `part_<k>` node holding them; that node becomes a child of
    /// the scene's root.
    fn place_roots(
        &mut self,
        k: usize,
        scene: Option<Index<json::Scene>>,
        scenes: &[json::Scene],
        node_base: usize,
        shift: [f32; 3],
    ) {
        let scene = scene.map_or(0, |s| s.value());
        let roots = scenes.get(scene).map(|s| s.nodes.clone()).unwrap_or_default();
        let movable = roots.len() == 1 && self.out.nodes[node_base + roots[0].value()].matrix.is_none();
        if movable {
            let n = &mut self.out.nodes[node_base + roots[0].value()];
            let t = n.translation.unwrap_or([0.0; 3]);
            n.translation = Some([t[0] + shift[0], t[1] + shift[1], t[2] + shift[2]]);
            self.children.push(idx(roots[0], node_base));
        } else {
            self.out.nodes.push(json::Node {
                name: Some(format!("part_{k}")),
                translation: Some(shift),
                children: Some(roots.iter().map(|r| idx(*r, node_base)).collect()),
                ..Default::default()
            });
            self.children.push(Index::new((self.out.nodes.len() - 1) as u32));
        }
    }

    /// Merge `extensionsUsed` / `extensionsRequired` (first occurrence order).
    fn add_extensions(&mut self, used: Vec<String>, required: Vec<String>) {
        for e in used {
            if !self.out.extensions_used.contains(&e) {
                self.out.extensions_used.push(e);
            }
        }
        for e in required {
            if !self.out.extensions_required.contains(&e) {
                self.out.extensions_required.push(e);
            }
        }
    }

    /// The scene: one root node named `name` (with `extras.source`) over the parts.
    fn finish(mut self, name: &str, source: &serde_json::Value) -> json::Root {
        let root_node = self.out.push(json::Node {
            name: Some(name.to_string()),
            children: Some(self.children),
            extras: serde_json::value::to_raw_value(source).ok(),
            ..Default::default()
        });
        let scene = self.out.push(json::Scene {
            extensions: None,
            extras: None,
            name: Some(name.to_string()),
            nodes: vec![root_node],
        });
        self.out.scene = Some(scene);
        self.out
    }
}

/// A part's document naming something it does not have.
fn invalid(part: usize, detail: String) -> SceneError {
    SceneError::Invalid { part, detail }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_sheet_of_one_box_centres_it_on_the_ground() {
        let t = cast_sheet(&[([1.0, 2.0, 3.0], [3.0, 4.0, 7.0])]);
        assert_eq!(t, vec![[-2.0, -2.0, -5.0]]);
    }

    #[test]
    fn cast_sheet_columns_and_rows_follow_the_largest_part() {
        // 3 boxes → 2 columns, 2 rows. Widths 2, 4 (col 0 = max(2, 6)), depth 2, 2, 6.
        let boxes = [
            ([0.0, 0.0, 0.0], [2.0, 1.0, 2.0]),
            ([0.0, 0.0, 0.0], [4.0, 1.0, 2.0]),
            ([-3.0, -1.0, -3.0], [3.0, 1.0, 3.0]),
        ];
        // gap = 0.1 × 6 = 0.6; col widths [6, 4] → total 10.6; row depths [2, 6] → 8.6.
        let t = cast_sheet(&boxes);
        let near = |a: [f32; 3], b: [f32; 3]| (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5);
        // box 0: cell x centre 3 − 5.3 = −2.3, minus box centre 1 → −3.3; z: 1 − 4.3 − 1.
        assert!(near(t[0], [-3.3, 0.0, -4.3]), "{:?}", t[0]);
        // box 1: col 1 starts at 6.6, centre 8.6 − 5.3 = 3.3, minus 2 → 1.3.
        assert!(near(t[1], [1.3, 0.0, -4.3]), "{:?}", t[1]);
        // box 2: col 0, row 1 starts at 2.6, centre 5.6 − 4.3 = 1.3; stands on y = 0.
        assert!(near(t[2], [-2.3, 1.0, 1.3]), "{:?}", t[2]);
        assert!(cast_sheet(&[]).is_empty());
    }

    #[test]
    fn cast_sheet_tolerates_bad_bounds() {
        let t = cast_sheet(&[([f32::NAN, 0.0, 0.0], [1.0, 1.0, 1.0]), ([1.0; 3], [0.0; 3])]);
        // Both count as empty boxes at the origin; gap 1.0 between two zero-width columns.
        assert_eq!(t, vec![[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0]]);
    }

    #[test]
    fn split_glb_reads_both_chunks_and_rejects_garbage() {
        let glb = assemble_glb(b"{}", &[1, 2, 3]).unwrap();
        assert_eq!(split_glb(&glb).unwrap(), (&b"{}  "[..], &[1u8, 2, 3, 0][..]));
        assert!(split_glb(b"glTX").is_err());
        assert!(split_glb(&glb[..20]).is_err());
        let no_bin = assemble_glb(b"{}", &[]).unwrap();
        assert_eq!(split_glb(&no_bin).unwrap().1, &[] as &[u8]);
    }

    #[test]
    fn accessor_bounds_survive_the_merge_bit_for_bit() {
        // f32 bounds printed as shortest f64 must parse back exactly (serde_json's
        // `float_roundtrip`): the lossy default parser moved this one by an ulp.
        let part = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":12,"uri":"a.bin"}],
            "bufferViews":[{"buffer":0,"byteLength":12}],
            "accessors":[{"bufferView":0,"count":1,"componentType":5126,"type":"VEC3",
              "min":[-10.388270378112793,-13.431476593017578,-7.5899834632873535],
              "max":[-10.388270378112793,-13.431476593017578,-7.5899834632873535]}],
            "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
            "nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0}"#;
        let merged = String::from_utf8(merge_gltf(&[part], "s", "c").unwrap()).unwrap();
        assert!(merged.contains("-10.388270378112793"), "{merged}");
        assert!(!merged.contains("-10.388270378112791"));
    }

    #[test]
    fn merge_refuses_no_parts_and_bad_json() {
        assert_eq!(merge_gltf(&[], "s", "c"), Err(SceneError::Empty));
        assert!(matches!(
            merge_gltf(&[b"nope"], "s", "c"),
            Err(SceneError::Json { part: 0, .. })
        ));
        assert!(matches!(
            merge_glb(&[b"nope"], "s", "c"),
            Err(SceneError::Glb { part: 0, .. })
        ));
    }
}
