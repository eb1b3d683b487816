//! A vertex's bytes read as geometry: one element's first three components from a
//! buffer ([`element3`]), and whether a position or a triangle is plausible geometry
//! rather than bytes of something else ([`plausible_position`], [`has_area`]). Shared by
//! the run search, the structural search and the no-normal search; reads the bytes only.

use crate::decl::{DeclType, Element};

/// The first three components of `e` of vertex `k` of a buffer at `p` (stride `s`),
/// as [`crate::vertex::read_vertices`] reads them (the caller has checked the range).
#[inline]
pub(crate) fn element3(data: &[u8], p: usize, s: usize, e: &Element, k: u32) -> [f32; 3] {
    let at = p + k as usize * s + e.offset as usize;
    // The common case read directly (the same bits as `decode`'s).
    if matches!(e.ty, DeclType::Float3 | DeclType::Float4) {
        let b = &data[at..at + 12];
        let f = |i: usize| f32::from_bits(u32::from_be_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]));
        return [f(0), f(1), f(2)];
    }
    let c = e.ty.decode(&data[at..at + e.ty.size()]);
    [c[0], c[1], c[2]]
}

/// Smallest |coordinate| that is geometry rather than bytes of something else read as
/// a float (index pairs of small meshes read as FLOAT3 land far below it), 0 excepted.
pub(super) const MIN_NONZERO_COORDINATE: f32 = 1.0e-30;

pub(crate) fn plausible_position(c: [f32; 3], bound: f64) -> bool {
    c.iter()
        .all(|&x| x.is_finite() && (x.abs() as f64) <= bound && (x == 0.0 || x.abs() >= MIN_NONZERO_COORDINATE))
}

/// A triangle with real extent (finite, non-zero area), by the same measure as the gates.
pub(crate) fn has_area(p: [[f32; 3]; 3]) -> bool {
    let d = |a: [f32; 3], b: [f32; 3]| [0, 1, 2].map(|k| (a[k] - b[k]) as f64);
    let (e, f) = (d(p[1], p[0]), d(p[2], p[0]));
    let n = [
        e[1] * f[2] - e[2] * f[1],
        e[2] * f[0] - e[0] * f[2],
        e[0] * f[1] - e[1] * f[0],
    ];
    let a2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    a2.is_finite() && a2 > 0.0
}

/// The face of the triangle `p` by the right-hand rule, not normalised (in `f32` as the
/// bytes are).
#[inline]
pub(crate) fn face_normal(p: [[f32; 3]; 3]) -> [f32; 3] {
    let e = [0, 1, 2].map(|j| p[1][j] - p[0][j]);
    let f = [0, 1, 2].map(|j| p[2][j] - p[0][j]);
    [
        e[1] * f[2] - e[2] * f[1],
        e[2] * f[0] - e[0] * f[2],
        e[0] * f[1] - e[1] * f[0],
    ]
}

/// `a · b` in `f32`, left to right.
#[inline]
pub(crate) fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The face of the triangle `p` ([`face_normal`]) dotted with `n` (the sum of its
/// vertices' normals): positive where the face agrees with them, negative where it is
/// against them (the winding gate's measure).
pub(crate) fn face_dot(p: [[f32; 3]; 3], n: [f32; 3]) -> f32 {
    dot3(face_normal(p), n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::Usage;
    use proptest::prelude::*;

    proptest! {
        /// The direct read of FLOAT3 / FLOAT4 gives `decode`'s bits (NaNs included), and
        /// every other type what `decode` gives.
        #[test]
        fn element3_reads_what_decode_reads(bytes in proptest::collection::vec(any::<u8>(), 64),
                                            k in 0usize..DeclType::ALL.len(), offset in 0u16..8, p in 0usize..8, v in 0u32..3) {
            let ty = if k % 3 == 0 { DeclType::Float3 } else if k % 3 == 1 { DeclType::Float4 } else { DeclType::ALL[k] };
            let e = Element { stream: 0, offset, ty, method: 0, usage: Usage::Position, usage_index: 0 };
            let at = p + v as usize * 16 + offset as usize;
            let want = ty.decode(&bytes[at..at + ty.size()]);
            let got = element3(&bytes, p, 16, &e, v);
            prop_assert_eq!(got.map(f32::to_bits), [want[0], want[1], want[2]].map(f32::to_bits));
        }
    }
}
