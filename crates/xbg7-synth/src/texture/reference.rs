//! The reference decoder: the expected output of a correct exporter for every block the
//! encoders write (its own palettes and rounding, independent of the project's decoder).

use super::plan::TexFormat;

pub(super) fn from565(v: u16) -> [i32; 3] {
    let r = ((v >> 11) & 31) as i32;
    let g = ((v >> 5) & 63) as i32;
    let b = (v & 31) as i32;
    [(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)]
}

pub(super) fn ref_bc1_palette(b: &[u8], opaque: bool) -> [[u8; 4]; 4] {
    let c0 = u16::from_le_bytes([b[0], b[1]]) as u32;
    let c1 = u16::from_le_bytes([b[2], b[3]]) as u32;
    let (r0, g0, b0) = (c0 >> 11, (c0 >> 5) & 63, c0 & 31);
    let (r1, g1, b1) = (c1 >> 11, (c1 >> 5) & 63, c1 & 31);
    let e5 = |v: u32| ((v * 527 + 23) >> 6) as u8;
    let e6 = |v: u32| ((v * 259 + 33) >> 6) as u8;
    let t5 = |a: u32, b: u32| (((2 * a + b) * 351 + 61) >> 7) as u8;
    let t6 = |a: u32, b: u32| (((2 * a + b) * 2763 + 1039) >> 11) as u8;
    let mut pal = [
        [e5(r0), e6(g0), e5(b0), 255],
        [e5(r1), e6(g1), e5(b1), 255],
        [0; 4],
        [0; 4],
    ];
    if c0 > c1 || opaque {
        pal[2] = [t5(r0, r1), t6(g0, g1), t5(b0, b1), 255];
        pal[3] = [t5(r1, r0), t6(g1, g0), t5(b1, b0), 255];
    } else {
        let h5 = |a: u32, b: u32| (((a + b) * 1053 + 125) >> 8) as u8;
        let h6 = |a: u32, b: u32| (((a + b) * 4145 + 1019) >> 11) as u8;
        pal[2] = [h5(r0, r1), h6(g0, g1), h5(b0, b1), 255];
    }
    pal
}

pub(super) fn ref_bc4_palette(a0: u8, a1: u8) -> [u8; 8] {
    let (a, b) = (a0 as u32, a1 as u32);
    let mut p = [a0, a1, 0, 0, 0, 0, 0, 255];
    if a > b {
        const W: [u32; 6] = [9363, 18724, 28086, 37450, 46812, 56173];
        for k in 0..6 {
            p[2 + k] = ((W[5 - k] * a + W[k] * b + 32768) >> 16) as u8;
        }
    } else {
        const W: [u32; 4] = [13107, 26215, 39321, 52429];
        for k in 0..4 {
            p[2 + k] = ((W[3 - k] * a + W[k] * b + 32768) >> 16) as u8;
        }
    }
    p
}

/// BC3's alpha block uses its own (`(k·a + (7−k)·b + 1) / 7`) rounding in `bcdec`.
pub(super) fn ref_bc3_alpha_palette(a0: u8, a1: u8) -> [u8; 8] {
    let (a, b) = (a0 as u32, a1 as u32);
    let mut p = [a0, a1, 0, 0, 0, 0, 0, 255];
    if a > b {
        for k in 1..7u32 {
            p[1 + k as usize] = (((7 - k) * a + k * b + 1) / 7) as u8;
        }
    } else {
        for k in 1..5u32 {
            p[1 + k as usize] = (((5 - k) * a + k * b + 1) / 5) as u8;
        }
    }
    p
}

/// CTX1's palette in (x, y): the thirds in integers, truncated (FORMAT.md §8).
pub(super) fn ref_ctx1_palette(b: &[u8]) -> [[u8; 2]; 4] {
    let (g0, r0, g1, r1) = (b[0] as u32, b[1] as u32, b[2] as u32, b[3] as u32);
    let t = |a: u32, b: u32| ((2 * a + b) / 3) as u8;
    [
        [r0 as u8, g0 as u8],
        [r1 as u8, g1 as u8],
        [t(r0, r1), t(g0, g1)],
        [t(r1, r0), t(g1, g0)],
    ]
}

pub(super) fn ref_indices(block: &[u8], bits_per: u32, count: usize) -> Vec<usize> {
    let mut v = 0u64;
    for (i, &b) in block.iter().enumerate() {
        v |= (b as u64) << (8 * i);
    }
    (0..count)
        .map(|i| ((v >> (bits_per * i as u32)) & ((1 << bits_per) - 1)) as usize)
        .collect()
}

/// Decode one of this generator's blocks (GPU little-endian layout) to 16 RGBA pixels
/// (the first only for uncompressed formats), with the swizzle `swizzle` (12 bits).
pub fn reference_decode_block(f: TexFormat, b: &[u8], swizzle: u32) -> [[u8; 4]; 16] {
    let mut comps = reference_components(f, b);
    for p in comps.iter_mut() {
        let c = *p;
        for (k, v) in p.iter_mut().enumerate() {
            *v = match (swizzle >> (3 * k)) & 7 {
                s @ 0..=3 => c[s as usize],
                4 | 6 => 0,
                _ => 255,
            };
        }
    }
    comps
}

/// The stored components (x, y, z, w) of a block: BCn colour R, G, B, A; one- and
/// two-component formats repeat their last component; 8_8_8_8 x = the texel's low byte;
/// 5_6_5 x = bits 0–4, z = bits 11–15 (w repeats z).
pub(super) fn reference_components(f: TexFormat, b: &[u8]) -> [[u8; 4]; 16] {
    let mut out = reference_rgba(f, b);
    for p in out.iter_mut() {
        *p = match f {
            TexFormat::Dxn | TexFormat::Ctx1 => [p[0], p[1], p[1], p[1]],
            TexFormat::Dxt5a => [p[0]; 4],
            _ => *p,
        };
    }
    out
}

pub(super) fn reference_rgba(f: TexFormat, b: &[u8]) -> [[u8; 4]; 16] {
    let mut out = [[0u8; 4]; 16];
    match f {
        TexFormat::Argb8 => out[0] = [b[0], b[1], b[2], b[3]],
        TexFormat::Rgb565 => {
            let [hi, mid, lo] = from565(u16::from_le_bytes([b[0], b[1]])).map(|c| c as u8);
            out[0] = [lo, mid, hi, hi];
        }
        TexFormat::Dxt1 | TexFormat::Dxt3 | TexFormat::Dxt5 => {
            let colour = if f == TexFormat::Dxt1 { b } else { &b[8..] };
            let pal = ref_bc1_palette(colour, f != TexFormat::Dxt1);
            for (p, k) in out.iter_mut().zip(ref_indices(&colour[4..8], 2, 16)) {
                *p = pal[k];
            }
            if f == TexFormat::Dxt3 {
                for (p, a) in out.iter_mut().zip(ref_indices(&b[..8], 4, 16)) {
                    p[3] = (a * 17) as u8;
                }
            } else if f == TexFormat::Dxt5 {
                let pal = ref_bc3_alpha_palette(b[0], b[1]);
                for (p, k) in out.iter_mut().zip(ref_indices(&b[2..8], 3, 16)) {
                    p[3] = pal[k];
                }
            }
        }
        TexFormat::Dxt5a | TexFormat::Dxn => {
            let r = ref_bc4_palette(b[0], b[1]);
            for (p, k) in out.iter_mut().zip(ref_indices(&b[2..8], 3, 16)) {
                *p = if f == TexFormat::Dxn {
                    [r[k], 0, 0, 255]
                } else {
                    [r[k], r[k], r[k], 255]
                };
            }
            if f == TexFormat::Dxn {
                let g = ref_bc4_palette(b[8], b[9]);
                for (p, k) in out.iter_mut().zip(ref_indices(&b[10..16], 3, 16)) {
                    p[1] = g[k];
                }
            }
        }
        TexFormat::Ctx1 => {
            let pal = ref_ctx1_palette(b);
            for (p, k) in out.iter_mut().zip(ref_indices(&b[4..8], 2, 16)) {
                *p = [pal[k][0], pal[k][1], 0, 255];
            }
        }
    }
    out
}
