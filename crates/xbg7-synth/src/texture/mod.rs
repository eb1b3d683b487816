//! TX2D textures for the synthetic disc: 52-byte D3DBaseTexture descriptors (FORMAT.md §8)
//! and payloads holding known images (smooth gradients, block-aligned checkers, labelled
//! bar patterns, chosen from the texture's name) in every format the exporter decodes:
//! DXT1, DXT2_3, DXT4_5, DXN, DXT5A, CTX1, 8_8_8_8 and 5_6_5.
//!
//! Written from the public format descriptions alone, independently of `xbg7::texture`:
//! its own block encoders, its own reference block decoder (the integer arithmetic of
//! the public `bcdec` decoder for BC1–BC5, xenia's for CTX1), its own Xenos tiling
//! (UModel's single-expression `GetTiledOffset`) and its own endian swaps.
//!
//! Layout: as on the console, a texture is normally stored **tiled**, its footprint padded
//! to whole 32×32-block tiles (row pitch and height aligned to 32 blocks, the header's
//! pitch is the aligned pitch; padding bytes are zero) and as long as the tiled address
//! of its last tile reaches ([`TexPlan::payload_size`]: with 2-byte texels and an odd
//! number of tiles that is 0x400 bytes more than pitch × rows × 2); a plan with
//! `tiled: false` is stored linear, rows of the header's pitch (the width rounded up to 32
//! *blocks*, the GPU's rule for linear rows too; the disc keeps a deliberate fraction
//! linear, see [`TexPlan::tiled_by_name`]). Endian: 8in32 for 8_8_8_8, 8in16 for
//! everything else.
//!
//! Components and swizzle: every descriptor carries the fetch constant's swizzle (dword3
//! bits 1–12) the XDK would write for its format; 8_8_8_8 textures come in three byte
//! orders ([`Argb8Order`]: A8R8G8B8, A8B8G8R8, X8R8G8B8, by name), each stored with its
//! own swizzle. The reference decoder reads the components as stored and applies the
//! swizzle like the GPU.
//!
//! Files: `plan` (formats, the texture plan and its stored shape), `tiling` (the Xenos
//! tiled block index), `source` (the images), `encode` (block encoders), `reference`
//! (the expected decode); this file holds the TX2D descriptor and the layout (block
//! placement, endian) that turns blocks into a payload.

use super::rng::Gen;

mod encode;
mod plan;
mod reference;
mod source;
mod tiling;

use encode::encode_block;
pub use plan::{name_hash, swizzle_field, Argb8Order, TexFormat, TexPlan, ODD_TILE_SHAPES};
pub use reference::reference_decode_block;
pub use source::{pattern, source_image, Pattern};
pub use tiling::tiled_block_index;

/// Size of a TX2D descriptor.
pub const TX2D_DESC_SIZE: usize = 52;

/// The 52-byte D3DBaseTexture for a payload at data-relative `data_offset` (4096-aligned).
pub fn tx2d_descriptor(t: &TexPlan, data_offset: u32) -> [u8; TX2D_DESC_SIZE] {
    let pitch = (t.pitch_texels() / 32) & 0x1FF;
    let tiled = t.tiled as u32;
    let words: [u32; 13] = [
        3,                                                                   // Common: type 3 = texture
        1,                                                                   // RefCount
        0,                                                                   // Fence
        0,                                                                   // ReadFence
        0,                                                                   // Identifier
        0xFFFF_0000,                                                         // BaseFlush
        0xFFFF_0000,                                                         // MipFlush
        2 | (pitch << 22) | (tiled << 31),                                   // dword0: type 2, pitch, tiled
        (data_offset & !0xFFF) | (t.format.endian() << 6) | t.format.code(), // dword1: base, endian, format
        ((t.width - 1) & 0x1FFF) | (((t.height - 1) & 0x1FFF) << 13),        // dword2: size
        t.swizzle() << 1,                                                    // dword3: swizzle
        0,                                                                   // dword4
        1 << 9,                                                              // dword5: dimension 2D, no packed mips
    ];
    let mut out = [0u8; TX2D_DESC_SIZE];
    for (k, w) in words.iter().enumerate() {
        out[4 * k..4 * k + 4].copy_from_slice(&w.to_be_bytes());
    }
    out
}

// ---------------------------------------------------------------------------------------
// Layout: blocks, tiling, endian

/// The texture's blocks in linear order (GPU little-endian layout, no endian swap).
fn linear_blocks(t: &TexPlan, img: &[[u8; 4]]) -> Vec<Vec<u8>> {
    let f = t.format;
    let d = f.block_dim();
    let (wb, hb) = f.blocks(t.width, t.height);
    let mut out = Vec::with_capacity((wb * hb) as usize);
    let mut px = [[0u8; 4]; 16];
    let salt = name_hash(&t.name) as u32;
    for by in 0..hb {
        for bx in 0..wb {
            for (i, p) in px.iter_mut().enumerate().take((d * d) as usize) {
                let (x, y) = (bx * d + i as u32 % d, by * d + i as u32 / d);
                *p = img[(y.min(t.height - 1) * t.width + x.min(t.width - 1)) as usize];
            }
            let spare = (salt ^ (bx * 31 + by * 17)) as u8 & 0x7F;
            out.push(encode_block(t, &px, spare));
        }
    }
    out
}

/// Apply a GPU endian mode (1 = 8in16, 2 = 8in32, 3 = 16in32) to a whole payload.
pub fn apply_endian(buf: &mut [u8], mode: u32) {
    match mode {
        1 => buf.chunks_exact_mut(2).for_each(|c| c.swap(0, 1)),
        2 => buf.chunks_exact_mut(4).for_each(|c| {
            let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            c.copy_from_slice(&v.to_be_bytes());
        }),
        3 => buf.chunks_exact_mut(4).for_each(|c| {
            let (a, b) = c.split_at_mut(2);
            a.swap_with_slice(b);
        }),
        _ => {}
    }
}

/// Swap the two bytes of every u16 (GPU endian mode 1, 8-in-16).
pub fn swap16(buf: &mut [u8]) {
    apply_endian(buf, 1);
}

/// The payload bytes of `t` (layout and endian as the module doc says), independent of
/// any random stream.
pub fn encode_texture(t: &TexPlan) -> Vec<u8> {
    place_blocks(t, &linear_blocks(t, &source_image(t)))
}

/// The payload of `t` and, from the same blocks, its [`reference_image`].
pub fn encode_texture_with_reference(t: &TexPlan) -> (Vec<u8>, Vec<[u8; 4]>) {
    let blocks = linear_blocks(t, &source_image(t));
    (place_blocks(t, &blocks), reference_from_blocks(t, &blocks))
}

/// Lay linear-order blocks out as stored (tiled or linear) and apply the endian swap.
fn place_blocks(t: &TexPlan, blocks: &[Vec<u8>]) -> Vec<u8> {
    let f = t.format;
    let bpb = f.block_bytes() as usize;
    let mut out = vec![0u8; t.payload_size()];
    let (wb, _) = f.blocks(t.width, t.height);
    let (pitch, _) = t.stored_blocks();
    for (i, b) in blocks.iter().enumerate() {
        let (x, y) = (i as u32 % wb, i as u32 / wb);
        let at = if t.tiled {
            tiled_block_index(x, y, wb, f.block_bytes().trailing_zeros()) as usize
        } else {
            (y * pitch + x) as usize
        };
        out[at * bpb..(at + 1) * bpb].copy_from_slice(b);
    }
    apply_endian(&mut out, f.endian());
    out
}

/// What a correct exporter decodes `t` to: the generator's blocks through its own
/// reference decoder, RGBA row-major.
pub fn reference_image(t: &TexPlan) -> Vec<[u8; 4]> {
    reference_from_blocks(t, &linear_blocks(t, &source_image(t)))
}

/// BLAKE3 of a reference image the way the exporter's manifest digests a decoded
/// texture: width and height (u32 little-endian), then the RGBA bytes.
pub fn image_digest(t: &TexPlan, img: &[[u8; 4]]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&t.width.to_le_bytes());
    h.update(&t.height.to_le_bytes());
    for p in img {
        h.update(p);
    }
    h.finalize().to_hex().to_string()
}

fn reference_from_blocks(t: &TexPlan, blocks: &[Vec<u8>]) -> Vec<[u8; 4]> {
    let f = t.format;
    let d = f.block_dim();
    let (wb, _) = f.blocks(t.width, t.height);
    let mut out = vec![[0u8; 4]; (t.width * t.height) as usize];
    for (i, b) in blocks.iter().enumerate() {
        let px = reference_decode_block(f, b, t.swizzle());
        let (bx, by) = (i as u32 % wb, i as u32 / wb);
        for k in 0..(d * d) {
            let (x, y) = (bx * d + k % d, by * d + k / d);
            if x < t.width && y < t.height {
                out[(y * t.width + x) as usize] = px[k as usize];
            }
        }
    }
    out
}

/// Random draws the previous generator's image parameters took: still drawn (and
/// ignored) so every later choice of a container's stream, hence the mesh ground truth
/// and the layout, stays the same.
const IMAGE_DRAWS: usize = 12;

/// The payload bytes of `t` and its reference image (see
/// [`encode_texture_with_reference`]); advances `gen` by the fixed number of draws the
/// layout's stream expects.
pub fn encode_payload(t: &TexPlan, gen: &mut Gen) -> (Vec<u8>, Vec<[u8; 4]>) {
    for _ in 0..IMAGE_DRAWS {
        gen.u32();
    }
    encode_texture_with_reference(t)
}

#[cfg(test)]
mod tests {
    use super::encode::{bc1_block, ctx1_block};
    use super::plan::{SW_0, SW_1, SW_X, SW_Y};
    use super::*;

    fn plan(format: TexFormat, w: u32, h: u32) -> TexPlan {
        TexPlan {
            name: "t_col".into(),
            format,
            width: w,
            height: h,
            tiled: true,
        }
    }

    #[test]
    fn descriptor_fields_follow_format_md() {
        let d = tx2d_descriptor(&plan(TexFormat::Dxt5, 256, 128), 0x23000);
        let w = |k: usize| u32::from_be_bytes(d[4 * k..4 * k + 4].try_into().unwrap());
        assert_eq!(w(0) & 0xF, 3);
        let f0 = w(7);
        assert_eq!(f0 & 3, 2);
        assert_eq!((f0 >> 22) & 0x1FF, 8);
        assert_eq!(f0 >> 31, 1, "64×32 blocks: tiled");
        let f1 = w(8);
        assert_eq!(f1 & 0x3F, 20);
        assert_eq!((f1 >> 6) & 3, 1);
        assert_eq!(f1 & !0xFFF, 0x23000);
        let f2 = w(9);
        assert_eq!(f2 & 0x1FFF, 255);
        assert_eq!((f2 >> 13) & 0x1FFF, 127);
        let small = tx2d_descriptor(&plan(TexFormat::Dxt1, 64, 64), 0);
        let w0 = u32::from_be_bytes(small[0x1C..0x20].try_into().unwrap());
        assert_eq!(w0 >> 31, 1, "16×16 blocks: tiled, padded");
        assert_eq!((w0 >> 22) & 0x1FF, 4, "pitch: 32 blocks = 128 texels");
        let linear = TexPlan {
            tiled: false,
            ..plan(TexFormat::Dxt1, 64, 64)
        };
        let w0 = u32::from_be_bytes(tx2d_descriptor(&linear, 0)[0x1C..0x20].try_into().unwrap());
        assert_eq!(
            (w0 >> 31, (w0 >> 22) & 0x1FF),
            (0, 4),
            "linear: pitch 32 blocks = 128 texels"
        );
        let w3 = u32::from_be_bytes(small[0x28..0x2C].try_into().unwrap());
        assert_eq!(w3, 0xD10, "DXT1: swizzle XYZW");
        let argb = tx2d_descriptor(&plan(TexFormat::Argb8, 64, 64), 0);
        assert_eq!(argb[0x1C] >> 7, 1, "64×64 texels: tiled");
        assert_eq!((argb[0x23] >> 6) & 3, 2, "8in32");
    }

    #[test]
    fn payloads_have_exact_sizes_and_real_content() {
        let mut g = Gen::new(5);
        for (f, w, h, size, tiled) in [
            (TexFormat::Dxt1, 64, 64, 2048, 8192),
            (TexFormat::Dxt5, 128, 64, 8192, 16384),
            (TexFormat::Argb8, 64, 32, 8192, 8192),
            (TexFormat::Dxn, 128, 128, 16384, 16384),
            (TexFormat::Rgb565, 64, 64, 8192, 8192),
        ] {
            let (p, img) = encode_payload(&plan(f, w, h), &mut g);
            assert_eq!(p.len(), tiled);
            assert_eq!(f.payload_size(w, h), size);
            assert_eq!(f.tiled_size(w, h), tiled);
            assert_eq!(img, reference_image(&plan(f, w, h)));
            let linear = TexPlan {
                tiled: false,
                ..plan(f, w, h)
            };
            let p = encode_texture(&linear);
            assert_eq!(p.len(), linear.payload_size());
            let (wb, hb) = f.blocks(w, h);
            assert_eq!(p.len() as u32, wb.div_ceil(32) * 32 * hb * f.block_bytes());
            assert!(
                p.iter().filter(|&&c| c != 0).count() > size / 2,
                "padding aside, real content"
            );
        }
    }

    #[test]
    fn payload_draws_match_the_previous_generator() {
        // The previous image parameters: 8 colour + angle + amplitude + wave draws (f32)
        // and one u32 seed; each is one u32 of the stream.
        let mut a = Gen::new(9);
        let mut b = Gen::new(9);
        let _ = encode_payload(&plan(TexFormat::Dxt1, 64, 64), &mut a);
        for _ in 0..11 {
            b.f32_in(0.0, 1.0);
        }
        b.u32();
        assert_eq!(a.u64(), b.u64());
    }

    #[test]
    fn bc1_endpoints_are_ordered_for_four_colour_mode() {
        let mut px = [[0u8; 4]; 16];
        for (i, p) in px.iter_mut().enumerate() {
            *p = [(i * 16) as u8, 100, 200 - (i * 8) as u8, 255];
        }
        let b = bc1_block(&px);
        let c0 = u16::from_le_bytes([b[0], b[1]]);
        let c1 = u16::from_le_bytes([b[2], b[3]]);
        assert!(c0 > c1);
        assert!(matches!(b[4] & 3, 1 | 3));
    }

    #[test]
    fn uncompressed_formats_round_trip_through_the_reference() {
        for f in [TexFormat::Argb8, TexFormat::Rgb565] {
            let t = plan(f, 64, 32);
            assert_eq!(reference_image(&t), source_image(&t));
        }
        // Every 8_8_8_8 byte order, with its swizzle, round-trips; each stores other bytes.
        let mut stored = std::collections::BTreeMap::new();
        for k in 0..40 {
            let t = TexPlan {
                name: format!("n{k}_col"),
                ..plan(TexFormat::Argb8, 32, 20)
            };
            assert_eq!(reference_image(&t), source_image(&t), "{}", t.name);
            let mut b = encode_block(&t, &[[1, 2, 3, 4]; 16], 9);
            apply_endian(&mut b, 2);
            stored.insert(format!("{:?}", t.argb8_order()), b);
        }
        assert_eq!(stored["Argb"], [4, 1, 2, 3], "file bytes A, R, G, B");
        assert_eq!(stored["Abgr"], [4, 3, 2, 1], "file bytes A, B, G, R");
        assert_eq!(stored["Xrgb"], [9, 1, 2, 3], "file bytes X, R, G, B");
    }

    #[test]
    fn tiled_extent_follows_the_last_tile() {
        // 2-byte texels, one tile each way: 0xC00 bytes; two tile columns: 2 × 2048.
        assert_eq!(plan(TexFormat::Rgb565, 32, 32).payload_size(), 3072);
        assert_eq!(plan(TexFormat::Rgb565, 17, 17).payload_size(), 3072);
        assert_eq!(plan(TexFormat::Rgb565, 64, 32).payload_size(), 4096);
        assert_eq!(plan(TexFormat::Rgb565, 96, 96).payload_size(), 8 * 2048 + 3072);
        assert_eq!(plan(TexFormat::Argb8, 32, 32).payload_size(), 4096);
        assert_eq!(plan(TexFormat::Dxt1, 128, 128).payload_size(), 8192);
        for (w, h) in ODD_TILE_SHAPES {
            let t = plan(TexFormat::Rgb565, w, h);
            assert_eq!(reference_image(&t), source_image(&t));
            assert_eq!(encode_texture(&t).len(), t.payload_size());
        }
    }

    #[test]
    fn ctx1_flat_blocks_use_every_index() {
        let b = ctx1_block(&[[200, 150, 0, 255]; 16]);
        assert_eq!(&b[..4], &[150, 200, 150, 200]);
        let bits = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        assert!((0..16).any(|i| (bits >> (2 * i)) & 3 == 2) && (0..16).any(|i| (bits >> (2 * i)) & 3 == 3));
        let px = reference_decode_block(TexFormat::Ctx1, &b, swizzle_field([SW_X, SW_Y, SW_0, SW_1]));
        assert!(px.iter().all(|p| *p == [200, 150, 0, 255]));
    }

    #[test]
    fn disc_shapes_by_name() {
        let mut odd = 0;
        let mut narrowed = 0;
        for k in 0..200 {
            let t = TexPlan::on_disc(format!("s{k}_spc"), TexFormat::Rgb565, 64, 64);
            if (t.width, t.height) != (64, 64) {
                assert!(t.tiled && ODD_TILE_SHAPES.contains(&(t.width, t.height)));
                odd += 1;
            }
            let t = TexPlan::on_disc(format!("s{k}_col"), TexFormat::Dxn, 256, 256);
            if t.width != 256 {
                assert!(!t.tiled && t.width == 192);
                narrowed += 1;
            }
        }
        assert!((60..140).contains(&odd), "{odd}");
        assert!((3..25).contains(&narrowed), "{narrowed}");
    }

    #[test]
    fn tiled_indices_for_a_64x64_dxt1() {
        let at = |x, y| tiled_block_index(x, y, 16, 3);
        assert_eq!([at(0, 0), at(1, 0), at(2, 0), at(3, 0), at(4, 0)], [0, 1, 4, 5, 32]);
        assert_eq!([at(0, 1), at(0, 2), at(8, 0), at(0, 16)], [2, 64, 8, 256]);
    }
}
