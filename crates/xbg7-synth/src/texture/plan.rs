//! What a texture is planned as: its format (block shape and size, stored extents),
//! the 8_8_8_8 byte orders and swizzles, the [`TexPlan`] with the disc's per-name
//! choices (tiling, odd tile shapes) and its stored size.

use super::tiling::tiled_block_index;

/// Texture formats the generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexFormat {
    Dxt1,
    Dxt5,
    Argb8,
    Dxt3,
    Dxn,
    Dxt5a,
    Ctx1,
    Rgb565,
}

impl TexFormat {
    pub const ALL: [TexFormat; 8] = [
        TexFormat::Dxt1,
        TexFormat::Dxt5,
        TexFormat::Argb8,
        TexFormat::Dxt3,
        TexFormat::Dxn,
        TexFormat::Dxt5a,
        TexFormat::Ctx1,
        TexFormat::Rgb565,
    ];

    /// GPU format number (fetch constant dword1 bits 0–5).
    pub const fn code(self) -> u32 {
        match self {
            TexFormat::Dxt1 => 18,
            TexFormat::Dxt5 => 20,
            TexFormat::Argb8 => 6,
            TexFormat::Dxt3 => 19,
            TexFormat::Dxn => 49,
            TexFormat::Dxt5a => 59,
            TexFormat::Ctx1 => 60,
            TexFormat::Rgb565 => 4,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            TexFormat::Dxt1 => "DXT1",
            TexFormat::Dxt5 => "DXT4_5",
            TexFormat::Argb8 => "8_8_8_8",
            TexFormat::Dxt3 => "DXT2_3",
            TexFormat::Dxn => "DXN",
            TexFormat::Dxt5a => "DXT5A",
            TexFormat::Ctx1 => "CTX1",
            TexFormat::Rgb565 => "5_6_5",
        }
    }

    /// Texels per block side.
    pub const fn block_dim(self) -> u32 {
        match self {
            TexFormat::Argb8 | TexFormat::Rgb565 => 1,
            _ => 4,
        }
    }

    /// Bytes per block (per texel when uncompressed).
    pub const fn block_bytes(self) -> u32 {
        match self {
            TexFormat::Rgb565 => 2,
            TexFormat::Argb8 => 4,
            TexFormat::Dxt1 | TexFormat::Dxt5a | TexFormat::Ctx1 => 8,
            TexFormat::Dxt3 | TexFormat::Dxt5 | TexFormat::Dxn => 16,
        }
    }

    /// Fetch-constant endian mode the generator stores this format with.
    pub const fn endian(self) -> u32 {
        match self {
            TexFormat::Argb8 => 2,
            _ => 1,
        }
    }

    /// Size in blocks of a `w × h` image.
    pub const fn blocks(self, w: u32, h: u32) -> (u32, u32) {
        (w.div_ceil(self.block_dim()), h.div_ceil(self.block_dim()))
    }

    /// Bytes of the `w × h` blocks of an image (the linear size when the width is a
    /// multiple of 32 texels).
    pub const fn payload_size(self, w: u32, h: u32) -> usize {
        let (wb, hb) = self.blocks(w, h);
        (wb * hb * self.block_bytes()) as usize
    }

    /// Row pitch and rows, in blocks, of a `w × h` image stored tiled (both aligned to 32).
    pub const fn tiled_blocks(self, w: u32, h: u32) -> (u32, u32) {
        let (wb, hb) = self.blocks(w, h);
        (wb.div_ceil(32) * 32, hb.div_ceil(32) * 32)
    }

    /// Payload bytes of a `w × h` image stored tiled: whole 32×32-block tiles.
    pub const fn tiled_size(self, w: u32, h: u32) -> usize {
        let (pb, rb) = self.tiled_blocks(w, h);
        (pb * rb * self.block_bytes()) as usize
    }
}

/// The byte order of an 8_8_8_8 texture (the XDK's D3DFMT names) and the swizzle that
/// goes with it. Component x is the low byte of the little-endian texel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Argb8Order {
    /// Texel `0xAARRGGBB`, swizzle `ZYXW`.
    Argb,
    /// Texel `0xAABBGGRR`, swizzle `XYZW`.
    Abgr,
    /// Texel `0x??RRGGBB` (the top byte is not alpha), swizzle `ZYX1`.
    Xrgb,
}

/// A swizzle field (12 bits) from four selectors: 0–3 = component x, y, z, w; 4 = 0,
/// 5 = 1.
pub const fn swizzle_field(sel: [u32; 4]) -> u32 {
    sel[0] | (sel[1] << 3) | (sel[2] << 6) | (sel[3] << 9)
}

pub(super) const SW_X: u32 = 0;
pub(super) const SW_Y: u32 = 1;
pub(super) const SW_Z: u32 = 2;
pub(super) const SW_W: u32 = 3;
pub(super) const SW_0: u32 = 4;
pub(super) const SW_1: u32 = 5;

/// One planned texture.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TexPlan {
    pub name: String,
    pub format: TexFormat,
    pub width: u32,
    pub height: u32,
    /// Stored tiled (padded to whole tiles) or linear.
    pub tiled: bool,
}

/// FNV-1a (64-bit) of a texture name: the disc's stable per-name choices (concrete
/// format, tiling) come from it, never from the plan's random stream.
pub fn name_hash(name: &str) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01B3);
    }
    mix(h)
}

/// Sizes the disc gives some 2-byte-texel (5_6_5) textures: odd numbers of tiles both
/// ways, reaching into the lower half of the last tile (the tiled extent exceeds
/// pitch × rows × 2 for them).
pub const ODD_TILE_SHAPES: [(u32, u32); 7] = [(32, 32), (17, 17), (32, 20), (96, 32), (32, 96), (96, 96), (160, 17)];

impl TexPlan {
    /// The disc's tiling policy: tiled, except one name in eight (by [`name_hash`]) kept
    /// linear so both storage paths stay covered.
    pub fn tiled_by_name(name: &str) -> bool {
        !(name_hash(name) >> 40).is_multiple_of(8)
    }

    /// A texture of the disc: the planned name, format and power-of-two size, then, by
    /// the name's hash (never the plan's random stream, so nothing else moves), the
    /// shapes the Xenos layout rules make special: half the 5_6_5 textures get an
    /// [`ODD_TILE_SHAPES`] size (tiled), and half the linear block-compressed textures
    /// lose 64 texels of width (16 blocks past a multiple of 32: the padded row pitch
    /// matters).
    pub fn on_disc(name: String, format: TexFormat, width: u32, height: u32) -> TexPlan {
        let h = name_hash(&name);
        let mut t = TexPlan {
            tiled: TexPlan::tiled_by_name(&name),
            name,
            format,
            width,
            height,
        };
        if format == TexFormat::Rgb565 && (h >> 12).is_multiple_of(2) {
            (t.width, t.height) = ODD_TILE_SHAPES[((h >> 16) % ODD_TILE_SHAPES.len() as u64) as usize];
            t.tiled = true;
        } else if !t.tiled && format.block_dim() == 4 && width >= 128 && (h >> 12).is_multiple_of(2) {
            t.width = width - 64;
        }
        t
    }

    /// The byte order of an 8_8_8_8 texture, by name: a third each.
    pub fn argb8_order(&self) -> Argb8Order {
        match (name_hash(&self.name) >> 24) % 3 {
            0 => Argb8Order::Argb,
            1 => Argb8Order::Abgr,
            _ => Argb8Order::Xrgb,
        }
    }

    /// The fetch constant's swizzle (12 bits) for this texture: what the XDK writes for
    /// the format (BCn colour `XYZW`, DXN / CTX1 `XY01`, DXT5A `XXX1`, 5_6_5 `ZYX1`, and
    /// per [`Argb8Order`] for 8_8_8_8).
    pub fn swizzle(&self) -> u32 {
        swizzle_field(match self.format {
            TexFormat::Dxt1 | TexFormat::Dxt3 | TexFormat::Dxt5 => [SW_X, SW_Y, SW_Z, SW_W],
            TexFormat::Dxn | TexFormat::Ctx1 => [SW_X, SW_Y, SW_0, SW_1],
            TexFormat::Dxt5a => [SW_X, SW_X, SW_X, SW_1],
            TexFormat::Rgb565 => [SW_Z, SW_Y, SW_X, SW_1],
            TexFormat::Argb8 => match self.argb8_order() {
                Argb8Order::Argb => [SW_Z, SW_Y, SW_X, SW_W],
                Argb8Order::Abgr => [SW_X, SW_Y, SW_Z, SW_W],
                Argb8Order::Xrgb => [SW_Z, SW_Y, SW_X, SW_1],
            },
        })
    }

    /// Row pitch and rows of the stored base level, in blocks: tiled, both aligned to 32
    /// blocks; linear, the width in blocks rounded up to 32 and exactly the rows.
    pub fn stored_blocks(&self) -> (u32, u32) {
        let f = self.format;
        if self.tiled {
            f.tiled_blocks(self.width, self.height)
        } else {
            let (wb, hb) = f.blocks(self.width, self.height);
            (wb.div_ceil(32) * 32, hb)
        }
    }

    /// Payload bytes (base level). Linear: pitch × rows. Tiled: up to the end of the
    /// highest tiled address of the last (highest-numbered) 32×32-block tile of the
    /// padded footprint, found by walking that tile's 1 024 block positions through
    /// [`tiled_block_index`] — which for 2-byte blocks and an odd tile count lies past
    /// pitch × rows × 2 (the tiling pairs tiles up).
    pub fn payload_size(&self) -> usize {
        let (pitch, rows) = self.stored_blocks();
        let bpb = self.format.block_bytes();
        if !self.tiled {
            return (pitch * rows * bpb) as usize;
        }
        let (wb, _) = self.format.blocks(self.width, self.height);
        let log = bpb.trailing_zeros();
        let (x0, y0) = (pitch - 32, rows - 32);
        let last = (0..32)
            .flat_map(|dy| (0..32).map(move |dx| tiled_block_index(x0 + dx, y0 + dy, wb, log)))
            .max()
            .unwrap_or(0);
        ((last + 1) * bpb) as usize
    }

    /// The header's row pitch in texels (a multiple of 32).
    pub fn pitch_texels(&self) -> u32 {
        self.stored_blocks().0 * self.format.block_dim()
    }
}

/// MurmurHash3's 64-bit finaliser (fmix64): spreads every input bit over the output.
pub(super) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    z = (z ^ (z >> 33)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    z ^ (z >> 33)
}
