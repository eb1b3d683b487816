//! Block and texel decoding to the four stored components (x, y, z, w) the fetch
//! constant's swizzle then selects from ([`swizzle`]): BC1–BC5 through `bcdec_rs` (a port
//! of the public `bcdec` reference decoder), CTX1 and the uncompressed formats by hand.
//! Input is one block (or texel) already endian-swapped to the GPU's little-endian layout.
//!
//! Components follow the Xenos order (xenia `d3d12_texture_cache.cc` host formats and
//! `xenos.h`): `8_8_8_8` x = the low byte of the little-endian texel; `5_6_5` x = bits
//! 0–4, y = 5–10, z = 11–15; BCn x, y, z, w = R, G, B, A; formats with fewer components
//! replicate their last one into the rest (DXN and CTX1 `x y y y`, DXT5A and `5_6_5`'s w
//! `x x x x` / `z`), as the GPU does before the swizzle.

use super::header::Format;

/// Decode one block of `format` (`block.len() == format.block_bytes()`) into `out`:
/// 16 texels of components (x, y, z, w) row-major for 4×4 formats, the first texel
/// for 1×1 formats. [`swizzle`] turns them into RGBA.
pub fn decode_block(format: Format, block: &[u8], out: &mut [[u8; 4]; 16]) {
    match format {
        Format::Rgb565 => {
            let v = u16::from_le_bytes([block[0], block[1]]);
            let (lo, mid, hi) = (v & 31, (v >> 5) & 63, (v >> 11) & 31);
            let hi = ((hi << 3) | (hi >> 2)) as u8;
            out[0] = [((lo << 3) | (lo >> 2)) as u8, ((mid << 2) | (mid >> 4)) as u8, hi, hi];
        }
        Format::Argb8888 => {
            out[0] = [block[0], block[1], block[2], block[3]];
        }
        Format::Dxt1 | Format::Dxt2_3 | Format::Dxt4_5 => decode_rgba_rows(format, block, out.as_flattened_mut(), 16),
        Format::Dxn => {
            let mut rg = [0u8; 32];
            bcdec_rs::bc5(block, &mut rg, 8, false);
            for (p, c) in out.iter_mut().zip(rg.chunks_exact(2)) {
                *p = [c[0], c[1], c[1], c[1]];
            }
        }
        Format::Dxt5a => {
            let mut r = [0u8; 16];
            bcdec_rs::bc4(block, &mut r, 4, false);
            for (p, v) in out.iter_mut().zip(r) {
                *p = [v; 4];
            }
        }
        Format::Ctx1 => ctx1(block, out),
    }
}

/// Whether [`decode_rgba_rows`] decodes `format`: its components are R, G, B, A, so
/// without a swizzle they are the image's texels.
pub fn has_rgba_rows(format: Format) -> bool {
    matches!(format, Format::Dxt1 | Format::Dxt2_3 | Format::Dxt4_5)
}

/// Decode a BC1–BC3 block as four rows of four RGBA texels, row `r` at `out[r · pitch..]`
/// (16 bytes each; `out` holds at least `3 · pitch + 16`), the components [`decode_block`]
/// gives. Other formats: nothing is written (see [`has_rgba_rows`]).
pub fn decode_rgba_rows(format: Format, block: &[u8], out: &mut [u8], pitch: usize) {
    match format {
        Format::Dxt1 => bcdec_rs::bc1(block, out, pitch),
        Format::Dxt2_3 => bcdec_rs::bc2(block, out, pitch),
        Format::Dxt4_5 => bcdec_rs::bc3(block, out, pitch),
        _ => debug_assert!(!has_rgba_rows(format), "a format with RGBA rows is decoded"),
    }
}

/// CTX1 (Xenos): bytes `y0 x0 y1 x1`, then a little-endian u32 of 2-bit indices (pixel
/// `i` at bits `2i`); palette `e0, e1, (2·e0 + e1)/3, (e0 + 2·e1)/3` per component in
/// integers, truncated (FORMAT.md §8; xenia's `XeCTX1TwoBlocksRowToR8G8` divides the
/// weighted sum by 3). Components `x y y y`.
pub fn ctx1(block: &[u8], out: &mut [[u8; 4]; 16]) {
    let (y0, x0, y1, x1) = (block[0] as u32, block[1] as u32, block[2] as u32, block[3] as u32);
    let third = |a: u32, b: u32| ((2 * a + b) / 3) as u8;
    let x = [x0 as u8, x1 as u8, third(x0, x1), third(x1, x0)];
    let y = [y0 as u8, y1 as u8, third(y0, y1), third(y1, y0)];
    let bits = u32::from_le_bytes([block[4], block[5], block[6], block[7]]);
    for (i, p) in out.iter_mut().enumerate() {
        let k = ((bits >> (2 * i)) & 3) as usize;
        *p = [x[k], y[k], y[k], y[k]];
    }
}

/// Apply the fetch constant's swizzle (`[red, green, blue, alpha]` selectors, see
/// [`crate::texture::header::SWIZZLE_ZERO`]) to one texel of components.
#[inline]
pub fn swizzle(c: [u8; 4], sel: [u8; 4]) -> [u8; 4] {
    sel.map(|s| match s {
        0..=3 => c[s as usize],
        s if s & 1 == 0 => 0,
        _ => 255,
    })
}

/// [`swizzle`] for one texture's selectors, prepared once: each output channel is a shift
/// and mask of the texel held as a little-endian u32 (R in the low byte), or a constant,
/// so a texel is swizzled in registers (the per-channel `match` went through memory for
/// every texel of the base level).
#[derive(Clone, Copy, Debug)]
pub struct Swizzle {
    shift: [u32; 4],
    mask: [u32; 4],
    fill: u32,
}

impl Swizzle {
    pub fn new(sel: [u8; 4]) -> Swizzle {
        let (mut shift, mut mask, mut fill) = ([0; 4], [0; 4], 0u32);
        for (i, &s) in sel.iter().enumerate() {
            match s {
                0..=3 => (shift[i], mask[i]) = (8 * s as u32, 0xFF),
                s if s & 1 == 0 => {}
                _ => fill |= 0xFF << (8 * i),
            }
        }
        Swizzle { shift, mask, fill }
    }

    /// Every channel is itself (then texels are copied as they are).
    pub fn is_identity(&self) -> bool {
        self.fill == 0 && self.mask == [0xFF; 4] && self.shift == [0, 8, 16, 24]
    }

    #[inline(always)]
    pub fn apply(&self, c: [u8; 4]) -> [u8; 4] {
        let v = u32::from_le_bytes(c);
        let mut o = self.fill;
        for i in 0..4 {
            o |= ((v >> self.shift[i]) & self.mask[i]) << (8 * i);
        }
        o.to_le_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepared_swizzle_equals_the_selector_rule_for_every_selector() {
        // All 8⁴ selector words (0–3 a component, even ≥ 4 zero, odd ≥ 5 one) on texels
        // whose four bytes differ, and on the extremes.
        let texels = [[0x12, 0x34, 0x56, 0x78], [0, 0, 0, 0], [255; 4], [1, 128, 254, 7]];
        for w in 0..8u32.pow(4) {
            let sel: [u8; 4] = std::array::from_fn(|c| ((w >> (3 * c)) & 7) as u8);
            let p = Swizzle::new(sel);
            for t in texels {
                assert_eq!(p.apply(t), swizzle(t, sel), "{sel:?} {t:?}");
            }
            assert_eq!(p.is_identity(), sel == [0, 1, 2, 3], "{sel:?}");
        }
    }

    #[test]
    fn uncompressed_texels() {
        const ARGB: [u8; 4] = [2, 1, 0, 3];
        const ABGR: [u8; 4] = [0, 1, 2, 3];
        const XRGB: [u8; 4] = [2, 1, 0, 5];
        const RGB565: [u8; 4] = [2, 1, 0, 5];
        let mut out = [[0u8; 4]; 16];
        decode_block(Format::Argb8888, &[0x30, 0x20, 0x10, 0x80], &mut out);
        assert_eq!(swizzle(out[0], ARGB), [0x10, 0x20, 0x30, 0x80]);
        assert_eq!(swizzle(out[0], ABGR), [0x30, 0x20, 0x10, 0x80]);
        assert_eq!(swizzle(out[0], XRGB), [0x10, 0x20, 0x30, 0xFF]);
        decode_block(Format::Rgb565, &0xF81Fu16.to_le_bytes(), &mut out);
        assert_eq!(swizzle(out[0], RGB565), [255, 0, 255, 255]);
        decode_block(Format::Rgb565, &0x07E0u16.to_le_bytes(), &mut out);
        assert_eq!(swizzle(out[0], RGB565), [0, 255, 0, 255]);
        decode_block(Format::Rgb565, &0xF800u16.to_le_bytes(), &mut out);
        assert_eq!(swizzle(out[0], RGB565), [255, 0, 0, 255]);
        assert_eq!(swizzle([1, 2, 3, 4], [4, 5, 6, 7]), [0, 255, 0, 255]);
    }

    #[test]
    fn ctx1_palette_and_indices() {
        let mut out = [[0u8; 4]; 16];
        // g0=0 r0=255 g1=255 r1=0; pixel i uses index i % 4.
        let bits: u32 = (0..16).map(|i| (i % 4) << (2 * i)).sum();
        let mut b = vec![0, 255, 255, 0];
        b.extend(bits.to_le_bytes());
        ctx1(&b, &mut out);
        assert_eq!(out[0], [255, 0, 0, 0]);
        assert_eq!(out[1], [0, 255, 255, 255]);
        assert_eq!(out[2], [170, 85, 85, 85]);
        assert_eq!(out[3], [85, 170, 170, 170]);
        assert_eq!(out[7], out[3]);
        // Equal endpoints stay equal at every index (200, not 199).
        let mut b = vec![200, 200, 200, 200];
        b.extend(0xFFFF_FFFFu32.to_le_bytes());
        ctx1(&b, &mut out);
        assert!(out.iter().all(|p| *p == [200; 4]));
    }

    #[test]
    fn bc_formats_decode_solid_blocks() {
        let mut out = [[0u8; 4]; 16];
        // BC1 c0 = c1 = pure red (0xF800), all indices 0.
        decode_block(Format::Dxt1, &[0x00, 0xF8, 0x00, 0xF8, 0, 0, 0, 0], &mut out);
        assert!(out.iter().all(|p| *p == [255, 0, 0, 255]));
        // BC4 with a0 = 200 everywhere.
        decode_block(Format::Dxt5a, &[200, 100, 0, 0, 0, 0, 0, 0], &mut out);
        assert!(out.iter().all(|p| *p == [200; 4]));
        // BC5: red 10, green 250.
        let mut b = [0u8; 16];
        b[0] = 10;
        b[8] = 250;
        decode_block(Format::Dxn, &b, &mut out);
        assert!(out.iter().all(|p| *p == [10, 250, 250, 250]));
        // BC3 alpha 77, colour white.
        let mut b = [0u8; 16];
        b[0] = 77;
        b[8..12].copy_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF]);
        decode_block(Format::Dxt4_5, &b, &mut out);
        assert!(out.iter().all(|p| *p == [255, 255, 255, 77]));
    }
}
