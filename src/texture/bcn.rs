//! Block and texel decoding to RGBA8: BC1–BC5 through `bcdec_rs` (a port of the public
//! `bcdec` reference decoder), CTX1 and the uncompressed formats by hand. Input is one
//! block (or texel) already endian-swapped to the GPU's little-endian layout.

use super::header::Format;

/// Decode one block of `format` (`block.len() == format.block_bytes()`) into `out`:
/// 16 RGBA pixels row-major for 4×4 formats, the first pixel for 1×1 formats.
pub fn decode_block(format: Format, block: &[u8], out: &mut [[u8; 4]; 16]) {
    let mut flat = [0u8; 64];
    match format {
        Format::Rgb565 => {
            let v = u16::from_le_bytes([block[0], block[1]]);
            let (r, g, b) = ((v >> 11) & 31, (v >> 5) & 63, v & 31);
            out[0] = [
                ((r << 3) | (r >> 2)) as u8,
                ((g << 2) | (g >> 4)) as u8,
                ((b << 3) | (b >> 2)) as u8,
                255,
            ];
            return;
        }
        Format::Argb8888 => {
            // Little-endian 0xAARRGGBB: bytes B, G, R, A.
            out[0] = [block[2], block[1], block[0], block[3]];
            return;
        }
        Format::Dxt1 => bcdec_rs::bc1(block, &mut flat, 16),
        Format::Dxt2_3 => bcdec_rs::bc2(block, &mut flat, 16),
        Format::Dxt4_5 => bcdec_rs::bc3(block, &mut flat, 16),
        Format::Dxn => {
            let mut rg = [0u8; 32];
            bcdec_rs::bc5(block, &mut rg, 8, false);
            for (p, c) in out.iter_mut().zip(rg.chunks_exact(2)) {
                *p = [c[0], c[1], 0, 255];
            }
            return;
        }
        Format::Dxt5a => {
            let mut r = [0u8; 16];
            bcdec_rs::bc4(block, &mut r, 4, false);
            for (p, v) in out.iter_mut().zip(r) {
                *p = [v, v, v, 255];
            }
            return;
        }
        Format::Ctx1 => {
            ctx1(block, out);
            return;
        }
    }
    for (p, c) in out.iter_mut().zip(flat.chunks_exact(4)) {
        *p = [c[0], c[1], c[2], c[3]];
    }
}

/// CTX1 (Xenos): bytes `g0 r0 g1 r1`, then a little-endian u32 of 2-bit indices (pixel
/// `i` at bits `2i`); palette `e0, e1, (2·e0 + e1)/3, (e0 + 2·e1)/3` per channel, the
/// thirds rounded as xenia does (`((2a + b)·85 + 128) >> 8`). Red and green out, blue 0.
pub fn ctx1(block: &[u8], out: &mut [[u8; 4]; 16]) {
    let (g0, r0, g1, r1) = (block[0] as u32, block[1] as u32, block[2] as u32, block[3] as u32);
    let third = |a: u32, b: u32| (((2 * a + b) * 85 + 128) >> 8) as u8;
    let r = [r0 as u8, r1 as u8, third(r0, r1), third(r1, r0)];
    let g = [g0 as u8, g1 as u8, third(g0, g1), third(g1, g0)];
    let bits = u32::from_le_bytes([block[4], block[5], block[6], block[7]]);
    for (i, p) in out.iter_mut().enumerate() {
        let k = ((bits >> (2 * i)) & 3) as usize;
        *p = [r[k], g[k], 0, 255];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncompressed_texels() {
        let mut out = [[0u8; 4]; 16];
        decode_block(Format::Argb8888, &[0x30, 0x20, 0x10, 0x80], &mut out);
        assert_eq!(out[0], [0x10, 0x20, 0x30, 0x80]);
        decode_block(Format::Rgb565, &0xF81Fu16.to_le_bytes(), &mut out);
        assert_eq!(out[0], [255, 0, 255, 255]);
        decode_block(Format::Rgb565, &0x07E0u16.to_le_bytes(), &mut out);
        assert_eq!(out[0], [0, 255, 0, 255]);
    }

    #[test]
    fn ctx1_palette_and_indices() {
        let mut out = [[0u8; 4]; 16];
        // g0=0 r0=255 g1=255 r1=0; pixel i uses index i % 4.
        let bits: u32 = (0..16).map(|i| (i % 4) << (2 * i)).sum();
        let mut b = vec![0, 255, 255, 0];
        b.extend(bits.to_le_bytes());
        ctx1(&b, &mut out);
        assert_eq!(out[0], [255, 0, 0, 255]);
        assert_eq!(out[1], [0, 255, 0, 255]);
        assert_eq!(out[2], [169, 85, 0, 255]);
        assert_eq!(out[3], [85, 169, 0, 255]);
        assert_eq!(out[7], out[3]);
    }

    #[test]
    fn bc_formats_decode_solid_blocks() {
        let mut out = [[0u8; 4]; 16];
        // BC1 c0 = c1 = pure red (0xF800), all indices 0.
        decode_block(Format::Dxt1, &[0x00, 0xF8, 0x00, 0xF8, 0, 0, 0, 0], &mut out);
        assert!(out.iter().all(|p| *p == [255, 0, 0, 255]));
        // BC4 with a0 = 200 everywhere.
        decode_block(Format::Dxt5a, &[200, 100, 0, 0, 0, 0, 0, 0], &mut out);
        assert!(out.iter().all(|p| *p == [200, 200, 200, 255]));
        // BC5: red 10, green 250.
        let mut b = [0u8; 16];
        b[0] = 10;
        b[8] = 250;
        decode_block(Format::Dxn, &b, &mut out);
        assert!(out.iter().all(|p| *p == [10, 250, 0, 255]));
        // BC3 alpha 77, colour white.
        let mut b = [0u8; 16];
        b[0] = 77;
        b[8..12].copy_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF]);
        decode_block(Format::Dxt4_5, &b, &mut out);
        assert!(out.iter().all(|p| *p == [255, 255, 255, 77]));
    }
}
