//! TX2D textures: D3DBaseTexture header and fetch constant (`header`), endian swaps and
//! Xenos 2D untiling (`tiling`), block decoding (`bcn`), one TX2D resource → its header
//! and image (`resource`), and the material-map names materials find their textures by
//! (`maps`). Writing PNGs is the exporter's (`xbg7_export::export::textures`).
//!
//! Decoding is pure over the descriptor and data-section bytes: blocks decode to their
//! stored components, which the fetch constant's swizzle maps to RGBA; only the base mip
//! level is decoded; a base level in the packed mip tail, an unknown format, a non-2D texture
//! or data outside the data section is a reject with a [`TextureCode`], never a panic,
//! and no allocation is sized by the header before the data is known to be there.

pub mod bcn;
pub mod header;
pub mod maps;
pub mod resource;
pub mod tiling;

use serde::{Deserialize, Serialize};

pub use header::{Format, TextureHeader};
pub use tiling::Endian;

/// Why a texture was not decoded (the manifest's `textures[].reason.code`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextureCode {
    /// Shorter than 52 bytes, or the directory entry's range is bad.
    BadDescriptor,
    /// `Common` type is not 3 or the fetch constant type is not 2.
    NotTexture,
    /// Cube, 3D or 1D.
    #[serde(rename = "not_2d")]
    Not2d,
    /// A GPU format this exporter does not decode.
    UnknownFormat,
    /// The base level is in the packed mip tail (≤ 16 px with packed mips).
    PackedMipTail,
    /// The base level's bytes are not inside the data section.
    BadRange,
}

impl TextureCode {
    pub const ALL: [TextureCode; 6] = [
        TextureCode::BadDescriptor,
        TextureCode::NotTexture,
        TextureCode::Not2d,
        TextureCode::UnknownFormat,
        TextureCode::PackedMipTail,
        TextureCode::BadRange,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TextureCode::BadDescriptor => "bad_descriptor",
            TextureCode::NotTexture => "not_texture",
            TextureCode::Not2d => "not_2d",
            TextureCode::UnknownFormat => "unknown_format",
            TextureCode::PackedMipTail => "packed_mip_tail",
            TextureCode::BadRange => "bad_range",
        }
    }
}

/// A texture reject: code plus human detail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(deny_unknown_fields)]
#[error("{}: {detail}", code.as_str())]
pub struct Reject {
    pub code: TextureCode,
    pub detail: String,
}

impl Reject {
    pub fn new(code: TextureCode, detail: impl Into<String>) -> Reject {
        Reject {
            code,
            detail: detail.into(),
        }
    }
}

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

/// Decode the base level described by `header` from the data section `data`.
pub fn decode_base(header: &TextureHeader, data: &[u8]) -> Result<Image, Reject> {
    let format = header.check()?;
    let (wb, hb) = header.blocks(format);
    let bpb = format.block_bytes();
    let pitch = header.pitch_blocks(format);
    let base = header.base_address as usize;
    let full = header.base_size(format);
    let avail = data.len().saturating_sub(base) as u64;
    // Every visible block must be readable; at least that many bytes must be there
    // before anything is allocated (the RGBA output is at most 8× the block bytes).
    let minimum = wb as u64 * hb as u64 * bpb as u64;
    if base > data.len() || minimum > avail {
        return Err(Reject::new(
            TextureCode::BadRange,
            format!(
                "base level at {base:#x} ({full:#x} bytes) is outside the {:#x}-byte data section",
                data.len()
            ),
        ));
    }
    let take = full.min(avail) as usize;
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
