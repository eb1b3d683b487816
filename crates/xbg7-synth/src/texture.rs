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

use super::rng::Gen;

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

const SW_X: u32 = 0;
const SW_Y: u32 = 1;
const SW_Z: u32 = 2;
const SW_W: u32 = 3;
const SW_0: u32 = 4;
const SW_1: u32 = 5;

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
// Source images

/// FNV-1a of the plan (name, size, format): the image depends on nothing else.
fn plan_seed(t: &TexPlan) -> u64 {
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

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    z = (z ^ (z >> 33)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    z ^ (z >> 33)
}

fn colour(seed: u64) -> [f32; 4] {
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
            let wave = ((fx * std::f32::consts::TAU).sin() * (fy * std::f32::consts::PI).cos()) * 10.0;
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

fn representable(t: &TexPlan, [r, g, b, a]: [u8; 4]) -> [u8; 4] {
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

// ---------------------------------------------------------------------------------------
// Block encoders (standard little-endian BCn layouts)

fn to565(c: [u8; 4]) -> u16 {
    let r = (c[0] as u32 * 31 + 127) / 255;
    let g = (c[1] as u32 * 63 + 127) / 255;
    let b = (c[2] as u32 * 31 + 127) / 255;
    ((r << 11) | (g << 5) | b) as u16
}

fn from565(v: u16) -> [i32; 3] {
    let r = ((v >> 11) & 31) as i32;
    let g = ((v >> 5) & 63) as i32;
    let b = (v & 31) as i32;
    [(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)]
}

/// Standard (little-endian) BC1 colour block of 16 RGBA pixels, 4-colour mode.
fn bc1_block(px: &[[u8; 4]; 16]) -> [u8; 8] {
    let (a, b) = farthest_pair(px, 3);
    let (mut c0, mut c1) = (to565(px[a]), to565(px[b]));
    if c0 < c1 {
        std::mem::swap(&mut c0, &mut c1);
    }
    let mut bits = 0u32;
    if c0 != c1 {
        let mut block = [0u8; 8];
        block[0..2].copy_from_slice(&c0.to_le_bytes());
        block[2..4].copy_from_slice(&c1.to_le_bytes());
        let pal = ref_bc1_palette(&block, true);
        for (i, p) in px.iter().enumerate() {
            let mut best = (i32::MAX, 0u32);
            for (j, q) in pal.iter().enumerate() {
                let d: i32 = (0..3).map(|k| (p[k] as i32 - q[k] as i32).pow(2)).sum();
                if d < best.0 {
                    best = (d, j as u32);
                }
            }
            bits |= best.1 << (2 * i);
        }
    }
    let mut out = [0u8; 8];
    out[0..2].copy_from_slice(&c0.to_le_bytes());
    out[2..4].copy_from_slice(&c1.to_le_bytes());
    out[4..8].copy_from_slice(&bits.to_le_bytes());
    out
}

/// The two pixels farthest apart over the first `channels` channels (the endpoints).
fn farthest_pair(px: &[[u8; 4]; 16], channels: usize) -> (usize, usize) {
    let mut best = (0, 0, -1i32);
    for i in 0..16 {
        for j in i + 1..16 {
            let d: i32 = (0..channels).map(|k| (px[i][k] as i32 - px[j][k] as i32).pow(2)).sum();
            if d > best.2 {
                best = (i, j, d);
            }
        }
    }
    (best.0, best.1)
}

/// Standard BC4 block of one channel (8-value mode when the values differ).
fn bc4_block(v: &[u8; 16]) -> [u8; 8] {
    let a0 = v.iter().copied().max().unwrap_or(255);
    let a1 = v.iter().copied().min().unwrap_or(255);
    let mut block = [0u8; 8];
    block[0] = a0;
    block[1] = a1;
    let mut bits = 0u64;
    if a0 > a1 {
        let pal = ref_bc4_palette(a0, a1);
        for (i, &a) in v.iter().enumerate() {
            let (j, _) = pal
                .iter()
                .enumerate()
                .min_by_key(|(_, &q)| (a as i32 - q as i32).abs())
                .unwrap_or((0, &0));
            bits |= (j as u64) << (3 * i);
        }
    }
    block[2..8].copy_from_slice(&bits.to_le_bytes()[..6]);
    block
}

/// BC2 explicit 4-bit alpha.
fn bc2_alpha(px: &[[u8; 4]; 16]) -> [u8; 8] {
    let mut bits = 0u64;
    for (i, p) in px.iter().enumerate() {
        bits |= ((p[3] as u64 * 15 + 127) / 255) << (4 * i);
    }
    bits.to_le_bytes()
}

/// CTX1: `g0 r0 g1 r1` endpoints (the farthest pair) and 2-bit indices, little-endian.
fn ctx1_block(px: &[[u8; 4]; 16]) -> [u8; 8] {
    let (a, b) = farthest_pair(px, 2);
    let mut block = [px[a][1], px[a][0], px[b][1], px[b][0], 0, 0, 0, 0];
    let pal = ref_ctx1_palette(&block);
    let mut bits = 0u32;
    if block[..2] == block[2..4] {
        // A flat block: every index means the same colour; use all four (the thirds of
        // equal endpoints must come out equal, also at 129 and above).
        for i in 0..16 {
            bits |= ((i as u32 * 7 + 1) % 4) << (2 * i);
        }
        block[4..8].copy_from_slice(&bits.to_le_bytes());
        return block;
    }
    for (i, p) in px.iter().enumerate() {
        let (j, _) = pal
            .iter()
            .enumerate()
            .min_by_key(|(_, q)| (p[0] as i32 - q[0] as i32).pow(2) + (p[1] as i32 - q[1] as i32).pow(2))
            .unwrap_or((0, &[0, 0]));
        bits |= (j as u32) << (2 * i);
    }
    block[4..8].copy_from_slice(&bits.to_le_bytes());
    block
}

/// One block (or texel) of `t`'s format in the GPU's little-endian layout (before the
/// endian swap). `spare` is what an X8R8G8B8 texel keeps in its unused top byte.
fn encode_block(t: &TexPlan, px: &[[u8; 4]; 16], spare: u8) -> Vec<u8> {
    let chan = |k: usize| -> [u8; 16] { std::array::from_fn(|i| px[i][k]) };
    match t.format {
        TexFormat::Argb8 => {
            let [r, g, b, a] = px[0];
            match t.argb8_order() {
                Argb8Order::Argb => vec![b, g, r, a],
                Argb8Order::Abgr => vec![r, g, b, a],
                Argb8Order::Xrgb => vec![b, g, r, spare],
            }
        }
        TexFormat::Rgb565 => to565(px[0]).to_le_bytes().to_vec(),
        TexFormat::Dxt1 => bc1_block(px).to_vec(),
        TexFormat::Dxt3 => [bc2_alpha(px), bc1_block(px)].concat(),
        TexFormat::Dxt5 => [bc4_block(&chan(3)), bc1_block(px)].concat(),
        TexFormat::Dxn => [bc4_block(&chan(0)), bc4_block(&chan(1))].concat(),
        TexFormat::Dxt5a => bc4_block(&chan(0)).to_vec(),
        TexFormat::Ctx1 => ctx1_block(px).to_vec(),
    }
}

// ---------------------------------------------------------------------------------------
// Reference decoder (the expected output of a correct exporter)

fn ref_bc1_palette(b: &[u8], opaque: bool) -> [[u8; 4]; 4] {
    let c0 = u16::from_le_bytes([b[0], b[1]]) as u32;
    let c1 = u16::from_le_bytes([b[2], b[3]]) as u32;
    let (r0, g0, b0) = (c0 >> 11, (c0 >> 5) & 63, c0 & 31);
    let (r1, g1, b1) = (c1 >> 11, (c1 >> 5) & 63, c1 & 31);
    let e5 = |v: u32| ((v * 527 + 23) >> 6) as u8;
    let e6 = |v: u32| ((v * 259 + 33) >> 6) as u8;
    let t5 = |a: u32, b: u32| (((2 * a + b) * 351 + 61) >> 7) as u8;
    let t6 = |a: u32, b: u32| (((2 * a + b) * 2763 + 1039) >> 11) as u8;
    let mut pal = [
        [e5(r0), e6(g0), e5(b0), 255],
        [e5(r1), e6(g1), e5(b1), 255],
        [0; 4],
        [0; 4],
    ];
    if c0 > c1 || opaque {
        pal[2] = [t5(r0, r1), t6(g0, g1), t5(b0, b1), 255];
        pal[3] = [t5(r1, r0), t6(g1, g0), t5(b1, b0), 255];
    } else {
        let h5 = |a: u32, b: u32| (((a + b) * 1053 + 125) >> 8) as u8;
        let h6 = |a: u32, b: u32| (((a + b) * 4145 + 1019) >> 11) as u8;
        pal[2] = [h5(r0, r1), h6(g0, g1), h5(b0, b1), 255];
    }
    pal
}

fn ref_bc4_palette(a0: u8, a1: u8) -> [u8; 8] {
    let (a, b) = (a0 as u32, a1 as u32);
    let mut p = [a0, a1, 0, 0, 0, 0, 0, 255];
    if a > b {
        const W: [u32; 6] = [9363, 18724, 28086, 37450, 46812, 56173];
        for k in 0..6 {
            p[2 + k] = ((W[5 - k] * a + W[k] * b + 32768) >> 16) as u8;
        }
    } else {
        const W: [u32; 4] = [13107, 26215, 39321, 52429];
        for k in 0..4 {
            p[2 + k] = ((W[3 - k] * a + W[k] * b + 32768) >> 16) as u8;
        }
    }
    p
}

/// BC3's alpha block uses its own (`(k·a + (7−k)·b + 1) / 7`) rounding in `bcdec`.
fn ref_bc3_alpha_palette(a0: u8, a1: u8) -> [u8; 8] {
    let (a, b) = (a0 as u32, a1 as u32);
    let mut p = [a0, a1, 0, 0, 0, 0, 0, 255];
    if a > b {
        for k in 1..7u32 {
            p[1 + k as usize] = (((7 - k) * a + k * b + 1) / 7) as u8;
        }
    } else {
        for k in 1..5u32 {
            p[1 + k as usize] = (((5 - k) * a + k * b + 1) / 5) as u8;
        }
    }
    p
}

/// CTX1's palette in (x, y): the thirds in integers, truncated (FORMAT.md §8).
fn ref_ctx1_palette(b: &[u8]) -> [[u8; 2]; 4] {
    let (g0, r0, g1, r1) = (b[0] as u32, b[1] as u32, b[2] as u32, b[3] as u32);
    let t = |a: u32, b: u32| ((2 * a + b) / 3) as u8;
    [
        [r0 as u8, g0 as u8],
        [r1 as u8, g1 as u8],
        [t(r0, r1), t(g0, g1)],
        [t(r1, r0), t(g1, g0)],
    ]
}

fn ref_indices(block: &[u8], bits_per: u32, count: usize) -> Vec<usize> {
    let mut v = 0u64;
    for (i, &b) in block.iter().enumerate() {
        v |= (b as u64) << (8 * i);
    }
    (0..count)
        .map(|i| ((v >> (bits_per * i as u32)) & ((1 << bits_per) - 1)) as usize)
        .collect()
}

/// Decode one of this generator's blocks (GPU little-endian layout) to 16 RGBA pixels
/// (the first only for uncompressed formats), with the swizzle `swizzle` (12 bits).
pub fn reference_decode_block(f: TexFormat, b: &[u8], swizzle: u32) -> [[u8; 4]; 16] {
    let mut comps = reference_components(f, b);
    for p in comps.iter_mut() {
        let c = *p;
        for (k, v) in p.iter_mut().enumerate() {
            *v = match (swizzle >> (3 * k)) & 7 {
                s @ 0..=3 => c[s as usize],
                4 | 6 => 0,
                _ => 255,
            };
        }
    }
    comps
}

/// The stored components (x, y, z, w) of a block: BCn colour R, G, B, A; one- and
/// two-component formats repeat their last component; 8_8_8_8 x = the texel's low byte;
/// 5_6_5 x = bits 0–4, z = bits 11–15 (w repeats z).
fn reference_components(f: TexFormat, b: &[u8]) -> [[u8; 4]; 16] {
    let mut out = reference_rgba(f, b);
    for p in out.iter_mut() {
        *p = match f {
            TexFormat::Dxn | TexFormat::Ctx1 => [p[0], p[1], p[1], p[1]],
            TexFormat::Dxt5a => [p[0]; 4],
            _ => *p,
        };
    }
    out
}

fn reference_rgba(f: TexFormat, b: &[u8]) -> [[u8; 4]; 16] {
    let mut out = [[0u8; 4]; 16];
    match f {
        TexFormat::Argb8 => out[0] = [b[0], b[1], b[2], b[3]],
        TexFormat::Rgb565 => {
            let [hi, mid, lo] = from565(u16::from_le_bytes([b[0], b[1]])).map(|c| c as u8);
            out[0] = [lo, mid, hi, hi];
        }
        TexFormat::Dxt1 | TexFormat::Dxt3 | TexFormat::Dxt5 => {
            let colour = if f == TexFormat::Dxt1 { b } else { &b[8..] };
            let pal = ref_bc1_palette(colour, f != TexFormat::Dxt1);
            for (p, k) in out.iter_mut().zip(ref_indices(&colour[4..8], 2, 16)) {
                *p = pal[k];
            }
            if f == TexFormat::Dxt3 {
                for (p, a) in out.iter_mut().zip(ref_indices(&b[..8], 4, 16)) {
                    p[3] = (a * 17) as u8;
                }
            } else if f == TexFormat::Dxt5 {
                let pal = ref_bc3_alpha_palette(b[0], b[1]);
                for (p, k) in out.iter_mut().zip(ref_indices(&b[2..8], 3, 16)) {
                    p[3] = pal[k];
                }
            }
        }
        TexFormat::Dxt5a | TexFormat::Dxn => {
            let r = ref_bc4_palette(b[0], b[1]);
            for (p, k) in out.iter_mut().zip(ref_indices(&b[2..8], 3, 16)) {
                *p = if f == TexFormat::Dxn {
                    [r[k], 0, 0, 255]
                } else {
                    [r[k], r[k], r[k], 255]
                };
            }
            if f == TexFormat::Dxn {
                let g = ref_bc4_palette(b[8], b[9]);
                for (p, k) in out.iter_mut().zip(ref_indices(&b[10..16], 3, 16)) {
                    p[1] = g[k];
                }
            }
        }
        TexFormat::Ctx1 => {
            let pal = ref_ctx1_palette(b);
            for (p, k) in out.iter_mut().zip(ref_indices(&b[4..8], 2, 16)) {
                *p = [pal[k][0], pal[k][1], 0, 255];
            }
        }
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

/// Xenos tiled block index of block `(x, y)` in a surface `width` blocks wide (UModel's
/// `GetTiledOffset`: the byte-offset expression, shifted back to blocks).
pub fn tiled_block_index(x: u32, y: u32, width: u32, log_bpb: u32) -> u32 {
    let aligned = (width + 31) & !31;
    let macro_ = ((x >> 5) + (y >> 5) * (aligned >> 5)) << (log_bpb + 7);
    let micro = ((x & 7) + ((y & 0xE) << 2)) << log_bpb;
    let offset = macro_ + ((micro & !0xF) << 1) + (micro & 0xF) + ((y & 1) << 4);
    (((offset & !0x1FF) << 3)
        + ((y & 16) << 7)
        + ((offset & 0x1C0) << 2)
        + (((((y & 8) >> 2) + (x >> 3)) & 3) << 6)
        + (offset & 0x3F))
        >> log_bpb
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
