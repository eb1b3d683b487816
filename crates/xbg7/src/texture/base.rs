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
            bcn::decode_block(format, block, &mut px);
            // The block's texels inside the image (bx < wb, so x0 < w), a row at a time.
            let (x0, y0) = (bx as usize * dim, by as usize * dim);
            let cols = dim.min(w - x0);
            for dy in 0..dim.min(h - y0) {
                let o = 4 * ((y0 + dy) * w + x0);
                let texels = &px[dy * dim..dy * dim + cols];
                // Whole rows of a 4×4 block and single texels as fixed-size copies.
                match (identity, cols) {
                    (true, 4) => rgba[o..o + 16].copy_from_slice(texels.as_flattened()),
                    (true, 1) => rgba[o..o + 4].copy_from_slice(&texels[0]),
                    (true, _) => rgba[o..o + 4 * cols].copy_from_slice(texels.as_flattened()),
                    (false, _) => {
                        for (d, &t) in rgba[o..o + 4 * cols].chunks_exact_mut(4).zip(texels) {
                            d.copy_from_slice(&sel.apply(t));
                        }
                    }
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
