//! Test fixture: a square pyramid block (5 vertices, outward normals, 6 triangles, base
//! first) in the stride-20 `FLOAT3` position + `FLOAT16_4` normal layout. Shared by the
//! anchoring unit tests and `tests/it/hostile_complexity.rs` (which includes this file by
//! path), so the two cannot drift apart.

/// The block's declaration as big-endian words: `POSITION@0 FLOAT3, NORMAL@12 FLOAT16_4`
/// (stride 20), END.
pub const DECL_WORDS: [u32; 9] = [
    0,
    0x002A_23B9,
    0,
    0x0000_000C,
    0x001A_2360,
    0x0003_0000,
    0x00FF_0000,
    0xFFFF_FFFF,
    0,
];

/// The pyramid's indices.
pub const PYR_IDX: [u16; 18] = [0, 2, 1, 0, 3, 2, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4];
/// The pyramid's positions (unit base, apex at height 1).
pub const PYR_POS: [[f32; 3]; 5] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.5, 0.5, 1.0],
];

/// The vertex buffer, positions scaled by `scale`, normals pointing away from the centre.
pub fn vertices(scale: f32) -> Vec<u8> {
    let mut out = Vec::new();
    for p in PYR_POS {
        let d = [p[0] - 0.5, p[1] - 0.5, p[2] - 0.4];
        let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        for c in p {
            out.extend((c * scale).to_be_bytes());
        }
        for c in [d[0] / l, d[1] / l, d[2] / l, 0.0] {
            out.extend(half::f16::from_f32(c).to_bits().to_be_bytes());
        }
    }
    out
}

/// A cone of `n` vertices (apex, then the rim), `extra` of its triangles repeated at the
/// end (the same vertex count, more indices), at `scale`, in the stride-20 layout.
#[allow(dead_code)] // used by the decoder crate's tests only
pub fn cone(n: u16, extra: usize, scale: f32) -> (Vec<u16>, Vec<u8>) {
    let rim = n - 1;
    let mut idx: Vec<u16> = (1..=rim).flat_map(|k| [0, k, k % rim + 1]).collect();
    for t in 0..extra {
        let k = (3 * (t * 5 + 1)) % idx.len();
        idx.extend_from_within(k - k % 3..k - k % 3 + 3);
    }
    let mut out = Vec::new();
    for k in 0..n {
        let a = std::f32::consts::TAU * k as f32 / rim as f32;
        let p = if k == 0 {
            [0.0, 0.0, 1.0]
        } else {
            [a.cos(), a.sin(), 0.0]
        };
        let d = [p[0], p[1], p[2] - 0.3];
        let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        for c in p {
            out.extend((c * scale).to_be_bytes());
        }
        for c in [d[0] / l, d[1] / l, d[2] / l, 0.0] {
            out.extend(half::f16::from_f32(c).to_bits().to_be_bytes());
        }
    }
    (idx, out)
}

/// Big-endian u16 indices.
pub fn indices(idx: &[u16]) -> Vec<u8> {
    idx.iter().flat_map(|i| i.to_be_bytes()).collect()
}

/// The whole block: its indices, then its vertices scaled by `s`.
#[allow(dead_code)] // used by tests/it/hostile_complexity.rs only
pub fn pyramid(s: f32) -> Vec<u8> {
    let mut out = indices(&PYR_IDX);
    out.extend(vertices(s));
    out
}
