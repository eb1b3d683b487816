//! Block encoders (standard little-endian BCn layouts, CTX1): one 4×4 block of source
//! pixels → its bytes.

use super::plan::{Argb8Order, TexFormat, TexPlan};
use super::reference::{ref_bc1_palette, ref_bc4_palette, ref_ctx1_palette};

pub(super) fn to565(c: [u8; 4]) -> u16 {
    let r = (c[0] as u32 * 31 + 127) / 255;
    let g = (c[1] as u32 * 63 + 127) / 255;
    let b = (c[2] as u32 * 31 + 127) / 255;
    ((r << 11) | (g << 5) | b) as u16
}

/// Standard (little-endian) BC1 colour block of 16 RGBA pixels, 4-colour mode.
pub(super) fn bc1_block(px: &[[u8; 4]; 16]) -> [u8; 8] {
    let (a, b) = farthest_pair(px, 3);
    let (mut c0, mut c1) = (to565(px[a]), to565(px[b]));
    if c0 < c1 {
        std::mem::swap(&mut c0, &mut c1);
    }
    let mut bits = 0u32;
    if c0 != c1 {
        let mut block = [0u8; 8];
        block[0..2].copy_from_slice(&c0.to_le_bytes());
        block[2..4].copy_from_slice(&c1.to_le_bytes());
        let pal = ref_bc1_palette(&block, true);
        for (i, p) in px.iter().enumerate() {
            let mut best = (i32::MAX, 0u32);
            for (j, q) in pal.iter().enumerate() {
                let d: i32 = (0..3).map(|k| (p[k] as i32 - q[k] as i32).pow(2)).sum();
                if d < best.0 {
                    best = (d, j as u32);
                }
            }
            bits |= best.1 << (2 * i);
        }
    }
    let mut out = [0u8; 8];
    out[0..2].copy_from_slice(&c0.to_le_bytes());
    out[2..4].copy_from_slice(&c1.to_le_bytes());
    out[4..8].copy_from_slice(&bits.to_le_bytes());
    out
}

/// The two pixels farthest apart over the first `channels` channels (the endpoints).
pub(super) fn farthest_pair(px: &[[u8; 4]; 16], channels: usize) -> (usize, usize) {
    let mut best = (0, 0, -1i32);
    for i in 0..16 {
        for j in i + 1..16 {
            let d: i32 = (0..channels).map(|k| (px[i][k] as i32 - px[j][k] as i32).pow(2)).sum();
            if d > best.2 {
                best = (i, j, d);
            }
        }
    }
    (best.0, best.1)
}

/// Standard BC4 block of one channel (8-value mode when the values differ).
pub(super) fn bc4_block(v: &[u8; 16]) -> [u8; 8] {
    let a0 = v.iter().copied().max().unwrap_or(255);
    let a1 = v.iter().copied().min().unwrap_or(255);
    let mut block = [0u8; 8];
    block[0] = a0;
    block[1] = a1;
    let mut bits = 0u64;
    if a0 > a1 {
        let pal = ref_bc4_palette(a0, a1);
        for (i, &a) in v.iter().enumerate() {
            let (j, _) = pal
                .iter()
                .enumerate()
                .min_by_key(|(_, &q)| (a as i32 - q as i32).abs())
                .unwrap_or((0, &0));
            bits |= (j as u64) << (3 * i);
        }
    }
    block[2..8].copy_from_slice(&bits.to_le_bytes()[..6]);
    block
}

/// BC2 explicit 4-bit alpha.
pub(super) fn bc2_alpha(px: &[[u8; 4]; 16]) -> [u8; 8] {
    let mut bits = 0u64;
    for (i, p) in px.iter().enumerate() {
        bits |= ((p[3] as u64 * 15 + 127) / 255) << (4 * i);
    }
    bits.to_le_bytes()
}

/// CTX1: `g0 r0 g1 r1` endpoints (the farthest pair) and 2-bit indices, little-endian.
pub(super) fn ctx1_block(px: &[[u8; 4]; 16]) -> [u8; 8] {
    let (a, b) = farthest_pair(px, 2);
    let mut block = [px[a][1], px[a][0], px[b][1], px[b][0], 0, 0, 0, 0];
    let pal = ref_ctx1_palette(&block);
    let mut bits = 0u32;
    if block[..2] == block[2..4] {
        // A flat block: every index means the same colour; use all four (the thirds of
        // equal endpoints must come out equal, also at 129 and above).
        for i in 0..16 {
            bits |= ((i as u32 * 7 + 1) % 4) << (2 * i);
        }
        block[4..8].copy_from_slice(&bits.to_le_bytes());
        return block;
    }
    for (i, p) in px.iter().enumerate() {
        let (j, _) = pal
            .iter()
            .enumerate()
            .min_by_key(|(_, q)| (p[0] as i32 - q[0] as i32).pow(2) + (p[1] as i32 - q[1] as i32).pow(2))
            .unwrap_or((0, &[0, 0]));
        bits |= (j as u32) << (2 * i);
    }
    block[4..8].copy_from_slice(&bits.to_le_bytes());
    block
}

/// One block (or texel) of `t`'s format in the GPU's little-endian layout (before the
/// endian swap). `spare` is what an X8R8G8B8 texel keeps in its unused top byte.
pub(super) fn encode_block(t: &TexPlan, px: &[[u8; 4]; 16], spare: u8) -> Vec<u8> {
    let chan = |k: usize| -> [u8; 16] { std::array::from_fn(|i| px[i][k]) };
    match t.format {
        TexFormat::Argb8 => {
            let [r, g, b, a] = px[0];
            match t.argb8_order() {
                Argb8Order::Argb => vec![b, g, r, a],
                Argb8Order::Abgr => vec![r, g, b, a],
                Argb8Order::Xrgb => vec![b, g, r, spare],
            }
        }
        TexFormat::Rgb565 => to565(px[0]).to_le_bytes().to_vec(),
        TexFormat::Dxt1 => bc1_block(px).to_vec(),
        TexFormat::Dxt3 => [bc2_alpha(px), bc1_block(px)].concat(),
        TexFormat::Dxt5 => [bc4_block(&chan(3)), bc1_block(px)].concat(),
        TexFormat::Dxn => [bc4_block(&chan(0)), bc4_block(&chan(1))].concat(),
        TexFormat::Dxt5a => bc4_block(&chan(0)).to_vec(),
        TexFormat::Ctx1 => ctx1_block(px).to_vec(),
    }
}
