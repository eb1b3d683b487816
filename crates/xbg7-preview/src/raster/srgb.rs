//! sRGB bytes ↔ linear light on the γ = 2 curve (`x²` and a correctly rounded `sqrt`,
//! so no `powf` platform drift).

pub(super) fn srgb_to_linear(c: u8) -> f32 {
    let x = c as f32 / 255.0;
    x * x
}

pub(super) fn linear_to_srgb8(x: f32) -> u8 {
    let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    (x.sqrt() * 255.0 + 0.5) as u8
}
