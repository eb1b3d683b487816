//! Source images: each texture's seeded pattern and colours, limited to what its
//! format can represent.

use super::encode::to565;
use super::plan::{mix, Argb8Order, TexFormat, TexPlan};
use super::reference::from565;
use crate::math::Math as _;

/// FNV-1a of the plan (name, size, format): the image depends on nothing else.
pub(super) fn plan_seed(t: &TexPlan) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    let size = [
        t.width.to_le_bytes(),
        t.height.to_le_bytes(),
        t.format.code().to_le_bytes(),
    ];
    for b in t.name.bytes().chain(size.iter().flatten().copied()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01B3);
    }
    h
}

pub(super) fn colour(seed: u64) -> [f32; 4] {
    let c = |k: u32| 16.0 + ((seed >> (8 * k)) & 0xFF) as f32 * 0.85;
    [c(0), c(1), c(2), 255.0]
}

/// Which picture a texture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// A smooth two-colour diagonal gradient with a gentle wave.
    Gradient,
    /// Two colours in 6- or 10-pixel squares (across the 4×4 block edges).
    Checker,
    /// Vertical bars (8 px) spelling the name's hash bits over a gradient: a label.
    Label,
}

/// The pattern of a planned texture.
pub fn pattern(t: &TexPlan) -> Pattern {
    match mix(plan_seed(t)) % 3 {
        0 => Pattern::Gradient,
        1 => Pattern::Checker,
        _ => Pattern::Label,
    }
}

/// The image the texture encodes, RGBA row-major, already restricted to what the format
/// carries: DXN / CTX1 keep red and green (blue 0), DXT5A is grey, 5_6_5 is quantised to
/// 5/6/5 bits, formats without alpha are opaque.
pub fn source_image(t: &TexPlan) -> Vec<[u8; 4]> {
    let s = mix(plan_seed(t));
    let (c0, c1) = (colour(mix(s ^ 1)), colour(mix(s ^ 2)));
    let (w, h) = (t.width as f32, t.height as f32);
    let kind = pattern(t);
    let square = if s & 8 == 0 { 6 } else { 10 };
    let bars = mix(s ^ 3);
    let mut out = Vec::with_capacity((t.width * t.height) as usize);
    for y in 0..t.height {
        for x in 0..t.width {
            let (fx, fy) = (x as f32 / w, y as f32 / h);
            let grad = (0.6 * fx + 0.4 * fy).clamp(0.0, 1.0);
            let wave = ((fx * std::f32::consts::TAU).m_sin() * (fy * std::f32::consts::PI).m_cos()) * 10.0;
            let lerp = |k: usize, f: f32| c0[k] + (c1[k] - c0[k]) * f;
            let px: [f32; 4] = match kind {
                Pattern::Gradient => [0, 1, 2, 3].map(|k| lerp(k, grad) + if k < 3 { wave } else { 0.0 }),
                Pattern::Checker => {
                    let on = ((x / square) + (y / square)) % 2 == 1;
                    [0, 1, 2, 3].map(|k| if on { c1[k] } else { c0[k] })
                }
                Pattern::Label => {
                    let bit = (bars >> ((x / 8) % 64)) & 1 == 1;
                    let band = y * 4 / t.height.max(1) == 1;
                    [0, 1, 2, 3].map(|k| {
                        if band && bit {
                            255.0 - lerp(k, grad)
                        } else {
                            lerp(k, grad)
                        }
                    })
                }
            };
            let alpha = 255.0 - 160.0 * fy;
            let p = [px[0], px[1], px[2], alpha].map(|v| v.round().clamp(0.0, 255.0) as u8);
            out.push(representable(t, p));
        }
    }
    out
}

pub(super) fn representable(t: &TexPlan, [r, g, b, a]: [u8; 4]) -> [u8; 4] {
    match t.format {
        TexFormat::Argb8 if t.argb8_order() == Argb8Order::Xrgb => [r, g, b, 255],
        TexFormat::Dxn | TexFormat::Ctx1 => [r, g, 0, 255],
        TexFormat::Dxt5a => [r, r, r, 255],
        TexFormat::Dxt1 => [r, g, b, 255],
        TexFormat::Rgb565 => {
            let v = to565([r, g, b, 255]);
            let [r, g, b] = from565(v).map(|c| c as u8);
            [r, g, b, 255]
        }
        TexFormat::Argb8 | TexFormat::Dxt3 | TexFormat::Dxt5 => [r, g, b, a],
    }
}
