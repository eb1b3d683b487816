//! The 52-byte D3DBaseTexture descriptor of a TX2D resource and its GPU texture fetch
//! constant (FORMAT.md §8): format, endian, size, pitch, tiling, base and mip addresses.

use super::reject::{Reject, TextureCode};
use super::tiling::{self, Endian};

/// Size of a TX2D descriptor.
pub const DESCRIPTOR_SIZE: usize = 52;
/// Offset of the 6-dword fetch constant inside the descriptor.
pub const FETCH_OFFSET: usize = 0x1C;

/// GPU texture formats this module decodes (fetch constant dword1 bits 0–5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// 16-bit `5_6_5`: after the endian swap a little-endian u16, red in bits 11–15,
    /// green 5–10, blue 0–4 (D3DFMT_R5G6B5).
    Rgb565,
    /// 32-bit `8_8_8_8`: after the endian swap a little-endian u32 `0xAARRGGBB`
    /// (D3DFMT_A8R8G8B8; with endian 8in32 the file bytes are A, R, G, B).
    Argb8888,
    /// BC1.
    Dxt1,
    /// BC2.
    Dxt2_3,
    /// BC3.
    Dxt4_5,
    /// BC5: two BC4 channels, written as red and green (blue 0).
    Dxn,
    /// BC4: one channel, written as grey.
    Dxt5a,
    /// Xenos CTX1: two 8:8 endpoints and 2-bit indices, written as red and green.
    Ctx1,
}

impl Format {
    pub const ALL: [Format; 8] = [
        Format::Rgb565,
        Format::Argb8888,
        Format::Dxt1,
        Format::Dxt2_3,
        Format::Dxt4_5,
        Format::Dxn,
        Format::Dxt5a,
        Format::Ctx1,
    ];

    pub const fn from_code(code: u32) -> Option<Format> {
        Some(match code {
            4 => Format::Rgb565,
            6 => Format::Argb8888,
            18 => Format::Dxt1,
            19 => Format::Dxt2_3,
            20 => Format::Dxt4_5,
            49 => Format::Dxn,
            59 => Format::Dxt5a,
            60 => Format::Ctx1,
            _ => return None,
        })
    }

    pub const fn code(self) -> u32 {
        match self {
            Format::Rgb565 => 4,
            Format::Argb8888 => 6,
            Format::Dxt1 => 18,
            Format::Dxt2_3 => 19,
            Format::Dxt4_5 => 20,
            Format::Dxn => 49,
            Format::Dxt5a => 59,
            Format::Ctx1 => 60,
        }
    }

    /// The XDK name (`DXT1`, `DXT4_5`, `8_8_8_8`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Format::Rgb565 => "5_6_5",
            Format::Argb8888 => "8_8_8_8",
            Format::Dxt1 => "DXT1",
            Format::Dxt2_3 => "DXT2_3",
            Format::Dxt4_5 => "DXT4_5",
            Format::Dxn => "DXN",
            Format::Dxt5a => "DXT5A",
            Format::Ctx1 => "CTX1",
        }
    }

    /// Texels per block side (4 for block-compressed formats, 1 otherwise).
    pub const fn block_dim(self) -> u32 {
        match self {
            Format::Rgb565 | Format::Argb8888 => 1,
            _ => 4,
        }
    }

    /// Bytes per block (or per texel for uncompressed formats).
    pub const fn block_bytes(self) -> u32 {
        match self {
            Format::Rgb565 => 2,
            Format::Argb8888 => 4,
            Format::Dxt1 | Format::Dxt5a | Format::Ctx1 => 8,
            Format::Dxt2_3 | Format::Dxt4_5 | Format::Dxn => 16,
        }
    }
}

/// The fields of a TX2D descriptor this exporter uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureHeader {
    /// `Common` (low 4 bits: resource type, 3 = texture).
    pub common: u32,
    /// Fetch constant type (dword0 bits 0–1; 2 = texture).
    pub fetch_type: u32,
    /// Raw format number (dword1 bits 0–5).
    pub format_code: u32,
    /// The decodable format, `None` when `format_code` is not supported.
    pub format: Option<Format>,
    pub endian: Endian,
    pub tiled: bool,
    /// Row pitch in texels (the 9-bit field × 32).
    pub pitch: u32,
    pub width: u32,
    pub height: u32,
    /// Byte offset of the base level, relative to the data section (`dword1 & !0xFFF`).
    pub base_address: u32,
    /// Byte offset of the mip chain, relative to the data section (`dword5 & !0xFFF`).
    pub mip_address: u32,
    pub packed_mips: bool,
    /// dword5 bits 9–10 (1 = 2D).
    pub dimension: u32,
    /// dword3 bits 1–12: the destination swizzle, 3 bits per output channel (x = red
    /// in bits 0–2, then y, z, w). See [`TextureHeader::swizzle_channels`].
    pub swizzle: u32,
}

/// A swizzle selector (3 bits): 0–3 pick the stored component x, y, z, w; 4 = constant
/// 0, 5 = constant 1. 6 and 7 are not defined by the public sources: read as 0 and 1
/// like 4 and 5 (their low bit), so no input panics.
pub const SWIZZLE_ZERO: u8 = 4;
/// See [`SWIZZLE_ZERO`].
pub const SWIZZLE_ONE: u8 = 5;

/// The identity swizzle `XYZW` as a 12-bit field.
pub const SWIZZLE_XYZW: u32 = (1 << 3) | (2 << 6) | (3 << 9);

fn be32(d: &[u8], off: usize) -> u32 {
    u32::from_be_bytes([d[off], d[off + 1], d[off + 2], d[off + 3]])
}

/// Parse a TX2D descriptor (at least 52 bytes; extra bytes are ignored).
pub fn parse(desc: &[u8]) -> Result<TextureHeader, Reject> {
    if desc.len() < DESCRIPTOR_SIZE {
        return Err(Reject::new(
            TextureCode::BadDescriptor,
            format!(
                "descriptor is {} bytes, a D3DBaseTexture needs {DESCRIPTOR_SIZE}",
                desc.len()
            ),
        ));
    }
    let common = be32(desc, 0);
    let f = |k: usize| be32(desc, FETCH_OFFSET + 4 * k);
    let (d0, d1, d2, d3, d5) = (f(0), f(1), f(2), f(3), f(5));
    let format_code = d1 & 0x3F;
    Ok(TextureHeader {
        common,
        fetch_type: d0 & 3,
        format_code,
        format: Format::from_code(format_code),
        endian: Endian::from_bits(d1 >> 6),
        tiled: d0 >> 31 == 1,
        pitch: ((d0 >> 22) & 0x1FF) << 5,
        width: (d2 & 0x1FFF) + 1,
        height: ((d2 >> 13) & 0x1FFF) + 1,
        base_address: d1 & !0xFFF,
        mip_address: d5 & !0xFFF,
        packed_mips: (d5 >> 11) & 1 == 1,
        dimension: (d5 >> 9) & 3,
        swizzle: (d3 >> 1) & 0xFFF,
    })
}

/// Largest side of a texture whose base level lives in the packed mip tail.
pub const PACKED_TAIL_MAX: u32 = 16;

impl TextureHeader {
    /// The supported format, or why not (`unknown_format`, `not_texture`, `not_2d`,
    /// `packed_mip_tail`).
    pub fn check(&self) -> Result<Format, Reject> {
        if self.common & 0xF != 3 || self.fetch_type != 2 {
            return Err(Reject::new(
                TextureCode::NotTexture,
                format!(
                    "Common type {} / fetch type {} (a texture has 3 / 2)",
                    self.common & 0xF,
                    self.fetch_type
                ),
            ));
        }
        if self.dimension != 1 {
            return Err(Reject::new(
                TextureCode::Not2d,
                format!("dimension {} (only 2D = 1 is exported)", self.dimension),
            ));
        }
        let format = self.format.ok_or_else(|| {
            Reject::new(
                TextureCode::UnknownFormat,
                format!("GPU texture format {} is not supported", self.format_code),
            )
        })?;
        if self.packed_mips && (self.width <= PACKED_TAIL_MAX || self.height <= PACKED_TAIL_MAX) {
            return Err(Reject::new(
                TextureCode::PackedMipTail,
                format!(
                    "{}×{} base level lives in the packed mip tail (not decoded)",
                    self.width, self.height
                ),
            ));
        }
        Ok(format)
    }

    /// Width and height in blocks.
    pub fn blocks(&self, format: Format) -> (u32, u32) {
        let d = format.block_dim();
        (self.width.div_ceil(d), self.height.div_ceil(d))
    }

    /// Row pitch in blocks: the header's pitch (at least the width), aligned to 32 blocks
    /// — tiled *and* linear: the GPU rounds every base level's row pitch up to 32 blocks
    /// (xenia `texture_util.cc` `GetGuestTextureLayout`: `row_pitch_blocks_tile_aligned`
    /// is used for linear base levels too). With 16-byte blocks a 64-texel-wide linear
    /// texture has 512-byte rows, not 256.
    pub fn pitch_blocks(&self, format: Format) -> u32 {
        let (wb, _) = self.blocks(format);
        let p = (self.pitch / format.block_dim()).max(wb);
        p.div_ceil(32) * 32
    }

    /// Bytes the base level spans from its base address. Tiled: up to the end of the
    /// 32×32-block tile holding the last block, which for 2-byte blocks is 0xC00 bytes
    /// past the tile's tiled origin (the tiling interleaves pairs of tiles), not 0x800 —
    /// so it can exceed pitch × aligned rows × bytes per block (xenia
    /// `GetTiledAddressUpperBound2D`: a 32×32 `5_6_5` level spans 3 072 bytes). Linear:
    /// `pitch × (rows − 1)` plus the last row's blocks.
    pub fn base_size(&self, format: Format) -> u64 {
        let (wb, hb) = self.blocks(format);
        let bpb = format.block_bytes() as u64;
        let pitch = self.pitch_blocks(format);
        if wb == 0 || hb == 0 {
            return 0;
        }
        if self.tiled {
            let log2 = tiling::bpb_log2(format.block_bytes());
            let origin = tiling::tiled_offset((wb - 1) & !31, (hb - 1) & !31, pitch, log2) as u64;
            origin + tiling::tile_span(log2) as u64
        } else {
            pitch as u64 * (hb as u64 - 1) * bpb + wb as u64 * bpb
        }
    }

    /// The output channel selectors (red, green, blue, alpha) of the swizzle field.
    pub fn swizzle_channels(&self) -> [u8; 4] {
        std::array::from_fn(|c| ((self.swizzle >> (3 * c)) & 7) as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(d0: u32, d1: u32, d2: u32, d5: u32) -> Vec<u8> {
        let mut words = [0u32; 13];
        words[0] = 3;
        words[7] = d0;
        words[8] = d1;
        words[9] = d2;
        words[12] = d5;
        words.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    #[test]
    fn fields_follow_format_md() {
        let d = desc(
            2 | (4 << 22) | (1 << 31),
            0x0002_3000 | (2 << 6) | 20,
            127 | (63 << 13),
            (1 << 9) | (1 << 11) | 0x0004_5000,
        );
        let h = parse(&d).unwrap();
        assert_eq!(h.format, Some(Format::Dxt4_5));
        assert_eq!(h.endian, Endian::E8in32);
        assert!(h.tiled);
        assert_eq!((h.pitch, h.width, h.height), (128, 128, 64));
        assert_eq!((h.base_address, h.mip_address), (0x23000, 0x45000));
        assert!(h.packed_mips);
        assert_eq!(h.dimension, 1);
        assert_eq!(h.check(), Ok(Format::Dxt4_5));
        assert_eq!(h.blocks(Format::Dxt4_5), (32, 16));
        assert_eq!(h.pitch_blocks(Format::Dxt4_5), 32);
        assert_eq!(h.base_size(Format::Dxt4_5), 32 * 32 * 16);
        assert_eq!(h.swizzle_channels(), [0, 0, 0, 0], "dword3 = 0: XXXX");
    }

    #[test]
    fn rejects_have_codes() {
        assert_eq!(parse(&[0; 51]).unwrap_err().code, TextureCode::BadDescriptor);
        let unknown = parse(&desc(2, 7, 63 | (63 << 13), 1 << 9)).unwrap();
        assert_eq!(unknown.check().unwrap_err().code, TextureCode::UnknownFormat);
        let cube = parse(&desc(2, 18, 63 | (63 << 13), 3 << 9)).unwrap();
        assert_eq!(cube.check().unwrap_err().code, TextureCode::Not2d);
        let tail = parse(&desc(2, 18, 15 | (15 << 13), (1 << 9) | (1 << 11))).unwrap();
        assert_eq!(tail.check().unwrap_err().code, TextureCode::PackedMipTail);
        let mut not_tex = desc(2, 18, 63 | (63 << 13), 1 << 9);
        not_tex[3] = 1;
        assert_eq!(
            parse(&not_tex).unwrap().check().unwrap_err().code,
            TextureCode::NotTexture
        );
    }

    #[test]
    fn linear_pitch_is_aligned_to_32_blocks() {
        // 64×64 DXT1, header pitch 64 texels = 16 blocks: rows are 32 blocks apart.
        let h = parse(&desc(2 | (2 << 22), 18, 63 | (63 << 13), 1 << 9)).unwrap();
        assert_eq!(h.pitch_blocks(Format::Dxt1), 32);
        assert_eq!(h.base_size(Format::Dxt1), 15 * 32 * 8 + 16 * 8);
        // A wider header pitch is kept (rounded up to 32 blocks).
        let wide = parse(&desc(2 | (5 << 22), 18, 63 | (63 << 13), 1 << 9)).unwrap();
        assert_eq!(wide.pitch_blocks(Format::Dxt1), 64);
        for f in Format::ALL {
            assert_eq!(Format::from_code(f.code()), Some(f));
        }
    }

    #[test]
    fn tiled_extent_of_odd_tile_counts_with_2_byte_texels() {
        // 32×32 5_6_5 tiled: one tile of 2-byte blocks spans 0xC00 bytes.
        let h = parse(&desc(2 | (1 << 22) | (1 << 31), 4, 31 | (31 << 13), 1 << 9)).unwrap();
        assert_eq!(h.base_size(Format::Rgb565), 3072);
        // 64×32: two tiles interleave into exactly 2 × 2048.
        let h = parse(&desc(2 | (2 << 22) | (1 << 31), 4, 63 | (31 << 13), 1 << 9)).unwrap();
        assert_eq!(h.base_size(Format::Rgb565), 4096);
        // 32×16 reaches only the upper half of its tile.
        let h = parse(&desc(2 | (1 << 22) | (1 << 31), 4, 31 | (15 << 13), 1 << 9)).unwrap();
        assert_eq!(h.base_size(Format::Rgb565), 3072);
        // 4-byte texels: one tile is exactly 4096 bytes.
        let h = parse(&desc(2 | (1 << 22) | (1 << 31), 6, 31 | (31 << 13), 1 << 9)).unwrap();
        assert_eq!(h.base_size(Format::Argb8888), 4096);
    }

    #[test]
    fn swizzle_field_is_dword3_bits_1_to_12() {
        let mut d = desc(2, 6, 63 | (63 << 13), 1 << 9);
        // X8R8G8B8: z, y, x, 1.
        let sw: u32 = 2 | (1 << 3) | (5 << 9);
        d[0x28..0x2C].copy_from_slice(&((sw << 1) | 1).to_be_bytes());
        let h = parse(&d).unwrap();
        assert_eq!(h.swizzle_channels(), [2, 1, 0, 5]);
        assert_eq!(SWIZZLE_XYZW, 0x688);
    }
}
