//! The binary buffer: a mesh's attributes in the output frame (axis flip, winding,
//! normals recomputed where missing or degenerate, colours clamped), exact bounds,
//! 4-byte alignment, and the images embedded after the mesh's data.

use gltf_json as json;
use json::validation::USize64;

use xbg7::mesh::Mesh;

use super::types::{Axis, GltfError, GltfOptions, VertexColor};

pub(super) fn pad4(n: usize) -> usize {
    n.div_ceil(4) * 4
}

/// Embed every image `png` supplies (by its URI) in `bin`: a `bufferView` after the
/// mesh's, 4-byte aligned, replacing the image's URI; the buffer's `byteLength` follows.
pub(super) fn embed_images<'p>(root: &mut json::Root, bin: &mut Vec<u8>, png: &dyn Fn(&str) -> Option<&'p [u8]>) {
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
}

/// Where one attribute lives in the binary buffer.
pub(super) struct AttributeSpec {
    pub(super) semantic: json::mesh::Semantic,
    pub(super) offset: usize,
    pub(super) len: usize,
    pub(super) type_: json::accessor::Type,
    /// Exact bounds (positions only).
    pub(super) bounds: Option<([f32; 3], [f32; 3])>,
}

/// The binary buffer and where everything is in it.
pub(super) struct Encoded {
    pub(super) bin: Vec<u8>,
    pub(super) vertex_count: usize,
    pub(super) attributes: Vec<AttributeSpec>,
    pub(super) index_offset: usize,
    pub(super) index_u32: bool,
    /// Per primitive: (first element in the index view, element count).
    pub(super) primitives: Vec<(usize, usize)>,
}

/// Check the mesh, convert it to the output frame and lay out the binary buffer.
pub(super) fn encode(mesh: &Mesh, opts: &GltfOptions) -> Result<Encoded, GltfError> {
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

pub(super) fn check_len(attribute: &str, expected: usize, got: Option<usize>) -> Result<(), GltfError> {
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
pub(super) struct OutputIndices {
    pub(super) values: Vec<u32>,
    pub(super) ranges: Vec<(usize, usize)>,
}

pub(super) fn output_indices(mesh: &Mesh, flip: bool) -> Result<OutputIndices, GltfError> {
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
pub(super) fn to_output_frame(v: [f32; 3], flip: bool) -> [f32; 3] {
    if flip {
        [v[0], v[1], -v[2]]
    } else {
        v
    }
}

pub(super) fn output_positions(positions: &[[f32; 3]], flip: bool) -> Result<Vec<[f32; 3]>, GltfError> {
    if let Some(v) = positions.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
        return Err(GltfError::NonFinite {
            attribute: "POSITION".to_string(),
            vertex: v,
        });
    }
    Ok(positions.iter().map(|&p| to_output_frame(p, flip)).collect())
}

/// Unit vector of `v`, or `None` when it is zero or not finite.
pub(super) fn unit(v: [f64; 3]) -> Option<[f32; 3]> {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if !len.is_finite() || len <= 0.0 {
        return None;
    }
    let u = [(v[0] / len) as f32, (v[1] / len) as f32, (v[2] / len) as f32];
    u.iter().all(|c| c.is_finite()).then_some(u)
}

/// Renormalised output-frame normals, with the documented fallback for unusable ones.
pub(super) fn output_normals(
    normals: &[[f32; 3]],
    out_positions: &[[f32; 3]],
    out_indices: &[u32],
    flip: bool,
) -> Vec<[f32; 3]> {
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
pub(super) fn face_normal_sums(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f64; 3]> {
    let mut sums = vec![[0.0f64; 3]; positions.len()];
    let at = |i: u32| {
        let p = positions[i as usize];
        [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])]
    };
    for tri in indices.chunks_exact(3) {
        let (a, b, c) = (at(tri[0]), at(tri[1]), at(tri[2]));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let cross = xbg7::mesh::cross(u, v);
        for &i in tri {
            for k in 0..3 {
                sums[i as usize][k] += cross[k];
            }
        }
    }
    sums
}

pub(super) fn clamp01(c: f32) -> f32 {
    if c.is_nan() {
        0.0
    } else {
        c.clamp(0.0, 1.0)
    }
}

/// Exact component-wise bounds of finite points (`None` when empty). Uses strict
/// comparisons, so the first of `0.0`/`-0.0` seen wins (deterministic either way).
pub(super) fn exact_bounds(points: &[[f32; 3]]) -> Option<([f32; 3], [f32; 3])> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gltf_out::document::json_vec;
    use xbg7::mesh::Primitive;

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
