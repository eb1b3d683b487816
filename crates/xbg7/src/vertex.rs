//! Declaration-driven vertex-buffer reading: bytes + [`Declaration`] → mesh attributes.
//!
//! Owns the usage → [`Mesh`] field mapping (documented in `synth::truth` too):
//! POSITION 0 → positions (xyz), NORMAL 0 → normals (xyz, not renormalised),
//! TEXCOORD n → texcoords ordered by usage index (xy), COLOR 0 → colors (RGBA).
//! Other usages are decoded by nobody (not exported yet).

use crate::decl::{per_common_type, Declaration, Element, Usage};
use crate::mesh::Mesh;

/// Elements of a declaration that land in a [`Mesh`].
#[derive(Clone, Debug, PartialEq)]
pub struct AttributeMap {
    pub position: Option<Element>,
    pub normal: Option<Element>,
    /// TEXCOORD elements sorted by usage index.
    pub texcoords: Vec<Element>,
    pub color: Option<Element>,
}

impl AttributeMap {
    pub fn of(decl: &Declaration) -> AttributeMap {
        let find = |u: Usage| {
            decl.elements
                .iter()
                .copied()
                .find(|e| e.usage == u && e.usage_index == 0)
        };
        let mut texcoords: Vec<Element> = decl
            .elements
            .iter()
            .copied()
            .filter(|e| e.usage == Usage::TexCoord)
            .collect();
        texcoords.sort_by_key(|e| e.usage_index);
        texcoords.dedup_by_key(|e| e.usage_index);
        AttributeMap {
            position: find(Usage::Position),
            normal: find(Usage::Normal),
            texcoords,
            color: find(Usage::Color),
        }
    }
}

/// Do `count ≥ 1` elements at `base + k·stride + e.offset` lie inside `len` bytes?
fn elem_fits(len: usize, base: usize, stride: usize, count: usize, e: &Element) -> bool {
    let last = count
        .checked_sub(1)
        .and_then(|c| c.checked_mul(stride))
        .and_then(|x| x.checked_add(base))
        .and_then(|x| x.checked_add(e.offset as usize + e.ty.size()));
    last.is_some_and(|last| last <= len)
}

/// Read `count` elements at `base + k·stride + e.offset`, keeping the first `N`
/// components of each (straight into the mesh's vector, no intermediate copy); `None`
/// if any byte is out of range.
fn read_elem<const N: usize>(
    data: &[u8],
    base: usize,
    stride: usize,
    count: usize,
    e: &Element,
) -> Option<Vec<[f32; N]>> {
    if !elem_fits(data.len(), base, stride, count, e) {
        return None;
    }
    let first = base + e.offset as usize;
    Some(per_common_type!(e.ty, |ty| gather(
        data,
        first,
        stride,
        count,
        ty.size(),
        |b| ty.decode(b)
    )))
}

/// `count` elements of `size` bytes at `first + k·stride`, decoded by `decode` (range
/// checked by the caller).
#[inline(always)]
fn gather<const N: usize>(
    data: &[u8],
    first: usize,
    stride: usize,
    count: usize,
    size: usize,
    decode: impl Fn(&[u8]) -> [f32; 4],
) -> Vec<[f32; N]> {
    (0..count)
        .map(|k| {
            let at = first + k * stride;
            let c = decode(&data[at..at + size]);
            std::array::from_fn(|j| c[j])
        })
        .collect()
}

/// Would [`read_vertices`] read these vertices (not `None`), without reading them: at
/// least one vertex, a stride, a POSITION element, every mapped element inside `len`.
pub fn vertices_fit(len: usize, base: usize, count: usize, decl: &Declaration, map: &AttributeMap) -> bool {
    let fits = |e: &Element| elem_fits(len, base, decl.stride, count, e);
    count > 0
        && decl.stride > 0
        && map.position.as_ref().is_some_and(fits)
        && map.normal.as_ref().is_none_or(fits)
        && map.texcoords.iter().all(fits)
        && map.color.as_ref().is_none_or(fits)
}

/// Decode `count` vertices starting at `base` into a mesh with no indices yet.
/// `None` when the buffer runs past the data or there is no POSITION element
/// (exactly when [`vertices_fit`] is false).
pub fn read_vertices(data: &[u8], base: usize, count: usize, decl: &Declaration, map: &AttributeMap) -> Option<Mesh> {
    if !vertices_fit(data.len(), base, count, decl, map) {
        return None;
    }
    let positions = read_elem::<3>(data, base, decl.stride, count, map.position.as_ref()?)?;
    let mut mesh = read_attributes(data, base, count, decl, map)?;
    mesh.positions = positions;
    Some(mesh)
}

/// Decode the elements of `map` other than POSITION for `count` vertices at `base` (a
/// stream of a multi-stream declaration placed apart from the positions) into a mesh
/// with no positions and no indices; `None` when an element runs past the data.
pub fn read_attributes(data: &[u8], base: usize, count: usize, decl: &Declaration, map: &AttributeMap) -> Option<Mesh> {
    let s = decl.stride;
    let normals = match &map.normal {
        Some(e) => Some(read_elem::<3>(data, base, s, count, e)?),
        None => None,
    };
    let mut texcoords = Vec::with_capacity(map.texcoords.len());
    for e in &map.texcoords {
        texcoords.push(read_elem::<2>(data, base, s, count, e)?);
    }
    let colors = match &map.color {
        Some(e) => Some(read_elem::<4>(data, base, s, count, e)?),
        None => None,
    };
    Some(Mesh {
        positions: Vec::new(),
        normals,
        texcoords,
        colors,
        indices: Vec::new(),
        primitives: Vec::new(),
    })
}

/// Read `count` big-endian u16 indices at `at`; `None` when out of range.
pub fn read_indices(data: &[u8], at: usize, count: usize) -> Option<Vec<u32>> {
    let end = at.checked_add(count.checked_mul(2)?)?;
    let b = data.get(at..end)?;
    Some(
        b.chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
            .collect(),
    )
}

/// Append `other`'s vertices and (rebased) indices/primitives to `into`. Both meshes must
/// carry the same attribute set (same declaration).
pub fn append(into: &mut Mesh, mut other: Mesh) {
    let base = into.positions.len() as u32;
    let ibase = into.indices.len() as u32;
    into.positions.append(&mut other.positions);
    if let (Some(a), Some(b)) = (into.normals.as_mut(), other.normals.as_mut()) {
        a.append(b);
    }
    for (a, b) in into.texcoords.iter_mut().zip(other.texcoords.iter_mut()) {
        a.append(b);
    }
    if let (Some(a), Some(b)) = (into.colors.as_mut(), other.colors.as_mut()) {
        a.append(b);
    }
    into.indices.extend(other.indices.iter().map(|i| i + base));
    for mut p in other.primitives {
        p.first_index += ibase;
        into.primitives.push(p);
    }
}
