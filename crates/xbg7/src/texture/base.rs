//! A TX2D's base level decoded to RGBA ([`Image`]): the bytes located by the header,
//! endian-swapped, untiled, block-decoded and swizzled.

use super::bcn;
use super::header::{self, Format, TextureHeader};
use super::reject::{Reject, TextureCode};
use super::tiling::{self, Endian};

/// A decoded image: `rgba` is `width × height` RGBA8 pixels, row-major, top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Image {
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = 4 * (y as usize * self.width as usize + x as usize);
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]]
    }
}

/// What [`decode_base`] checks before it allocates anything: a supported 2D format
/// ([`TextureHeader::check`]), and every visible block's bytes inside the data section of
/// `data_len` bytes. The format, or the reject.
fn located(header: &TextureHeader, data_len: usize) -> Result<Format, Reject> {
    let format = header.check()?;
    let (wb, hb) = header.blocks(format);
    let base = header.base_address as usize;
    let avail = data_len.saturating_sub(base) as u64;
    // Every visible block must be readable; at least that many bytes must be there
    // before anything is allocated (the RGBA output is at most 8× the block bytes).
    let minimum = wb as u64 * hb as u64 * format.block_bytes() as u64;
    if base > data_len || minimum > avail {
        return Err(Reject::new(
            TextureCode::BadRange,
            format!(
                "base level at {base:#x} ({:#x} bytes) is outside the {data_len:#x}-byte data section",
                header.base_size(format)
            ),
        ));
    }
    Ok(format)
}

/// The bytes of the RGBA image [`decode_base`] makes of `header` over a data section of
/// `data_len` bytes (`width × height × 4`: at most 8× the bytes of the visible blocks,
/// which are inside the section), or the reject it gives before decoding a block.
pub fn decoded_bytes(header: &TextureHeader, data_len: usize) -> Result<u64, Reject> {
    located(header, data_len).map(|_| header.width as u64 * header.height as u64 * 4)
}

/// Decode the base level described by `header` from the data section `data`.
pub fn decode_base(header: &TextureHeader, data: &[u8]) -> Result<Image, Reject> {
    let format = located(header, data.len())?;
    let (wb, hb) = header.blocks(format);
    let bpb = format.block_bytes();
    let pitch = header.pitch_blocks(format);
    let base = header.base_address as usize;
    let avail = data.len().saturating_sub(base) as u64;
    let take = header.base_size(format).min(avail) as usize;
    // Copied only when it must be swapped.
    let src: std::borrow::Cow<[u8]> = match header.endian {
        Endian::None => std::borrow::Cow::Borrowed(&data[base..base + take]),
        endian => {
            let mut v = data[base..base + take].to_vec();
            tiling::endian_swap(&mut v, endian);
            std::borrow::Cow::Owned(v)
        }
    };

    let (w, h) = (header.width as usize, header.height as usize);
    let mut rgba = vec![0u8; w * h * 4];
    let dim = format.block_dim() as usize;
    let log2 = tiling::bpb_log2(bpb);
    let sel = bcn::Swizzle::new(header.swizzle_channels());
    let identity = sel.is_identity();
    let direct = identity && bcn::has_rgba_rows(format);
    let mut px = [[0u8; 4]; 16];
    for by in 0..hb {
        let row = if header.tiled {
            tiling::tiled_row(by, pitch, log2) as usize
        } else {
            by as usize * pitch as usize * bpb as usize
        };
        for bx in 0..wb {
            let off = if header.tiled {
                tiling::tiled_column(bx, by, log2, row as u32) as usize
            } else {
                row + bx as usize * bpb as usize
            };
            let Some(block) = src.get(off..off + bpb as usize) else {
                return Err(Reject::new(
                    TextureCode::BadRange,
                    format!("block ({bx}, {by}) at {off:#x} is outside the data section"),
                ));
            };
            let (x0, y0) = (bx as usize * dim, by as usize * dim);
            // A whole BC1–BC3 block inside the image without a swizzle: its rows are
            // decoded straight into the image (the same bytes, without the copy).
            if direct && x0 + 4 <= w && y0 + 4 <= h {
                let o = 4 * (y0 * w + x0);
                bcn::decode_rgba_rows(format, block, &mut rgba[o..o + 3 * 4 * w + 16], 4 * w);
                continue;
            }
            bcn::decode_block(format, block, &mut px);
            if !identity {
                // The whole block at once (each channel one shift and mask over its
                // texels, which the compiler vectorises).
                for t in &mut px[..dim * dim] {
                    *t = sel.apply(*t);
                }
            }
            // The block's texels inside the image (bx < wb, so x0 < w), a row at a time.
            let cols = dim.min(w - x0);
            for dy in 0..dim.min(h - y0) {
                let o = 4 * ((y0 + dy) * w + x0);
                let texels = &px[dy * dim..dy * dim + cols];
                // Whole rows of a 4×4 block and single texels as fixed-size copies.
                match cols {
                    4 => rgba[o..o + 16].copy_from_slice(texels.as_flattened()),
                    1 => rgba[o..o + 4].copy_from_slice(&texels[0]),
                    _ => rgba[o..o + 4 * cols].copy_from_slice(texels.as_flattened()),
                }
            }
        }
    }
    Ok(Image {
        width: header.width,
        height: header.height,
        rgba,
    })
}

/// Parse a TX2D descriptor and decode its base level.
pub fn decode(desc: &[u8], data: &[u8]) -> Result<(TextureHeader, Image), Reject> {
    let header = header::parse(desc)?;
    let image = decode_base(&header, data)?;
    Ok((header, image))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::tiling::Endian;
    use proptest::prelude::*;

    proptest! {
        /// A BC1–BC3 base level of any size (whole blocks inside the image and cut
        /// ones at its right and bottom edges), tiled or linear, with or without a
        /// swizzle: each texel is the one its block decodes to (`decode_block`, then the
        /// swizzle), whichever way `decode_base` wrote it.
        #[test]
        fn every_texel_is_its_blocks(
            format in prop_oneof![Just(Format::Dxt1), Just(Format::Dxt2_3), Just(Format::Dxt4_5)],
            w in 1u32..70,
            h in 1u32..70,
            tiled: bool,
            swizzle in prop_oneof![Just(0o3210u32), 0u32..4096],
            seed: u64,
        ) {
            let header = TextureHeader {
                common: 3,
                fetch_type: 2,
                format_code: 0,
                format: Some(format),
                endian: Endian::None,
                tiled,
                pitch: w,
                width: w,
                height: h,
                base_address: 0,
                mip_address: 0,
                packed_mips: false,
                dimension: 1,
                swizzle,
            };
            let size = header.base_size(format) as usize;
            let mut x = seed | 1;
            let data: Vec<u8> = (0..size)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let img = decode_base(&header, &data).unwrap();
            let (wb, _) = header.blocks(format);
            let bpb = format.block_bytes() as usize;
            let pitch = header.pitch_blocks(format);
            let log2 = tiling::bpb_log2(format.block_bytes());
            let sel = header.swizzle_channels();
            for y in 0..h {
                for xx in 0..w {
                    let (bx, by) = (xx / 4, y / 4);
                    prop_assert!(bx < wb);
                    let off = if tiled {
                        tiling::tiled_column(bx, by, log2, tiling::tiled_row(by, pitch, log2)) as usize
                    } else {
                        (by * pitch + bx) as usize * bpb
                    };
                    let mut px = [[0u8; 4]; 16];
                    bcn::decode_block(format, &data[off..off + bpb], &mut px);
                    let want = bcn::swizzle(px[(4 * (y % 4) + xx % 4) as usize], sel);
                    prop_assert_eq!(img.pixel(xx, y), want, "texel ({}, {})", xx, y);
                }
            }
        }
    }
}
