//! TX2D textures for the synthetic disc: 52-byte D3DBaseTexture descriptors (FORMAT.md §8)
//! and realistic payloads — DXT1 / DXT5 (block-compressed noisy gradients) or 8_8_8_8,
//! untiled, stored with endian 1 (every u16 byte-swapped).

use super::rng::Gen;

/// Texture formats the generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexFormat {
    Dxt1,
    Dxt5,
    Argb8,
}

impl TexFormat {
    /// GPU format number (fetch constant dword1 bits 0–5).
    pub const fn code(self) -> u32 {
        match self {
            TexFormat::Dxt1 => 18,
            TexFormat::Dxt5 => 20,
            TexFormat::Argb8 => 6,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            TexFormat::Dxt1 => "DXT1",
            TexFormat::Dxt5 => "DXT4_5",
            TexFormat::Argb8 => "8_8_8_8",
        }
    }

    /// Payload bytes of a `w × h` image (untiled, no mips).
    pub const fn payload_size(self, w: u32, h: u32) -> usize {
        let blocks = (w.div_ceil(4) * h.div_ceil(4)) as usize;
        match self {
            TexFormat::Dxt1 => blocks * 8,
            TexFormat::Dxt5 => blocks * 16,
            TexFormat::Argb8 => (w * h) as usize * 4,
        }
    }
}

/// One planned texture.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TexPlan {
    pub name: String,
    pub format: TexFormat,
    pub width: u32,
    pub height: u32,
}

/// Size of a TX2D descriptor.
pub const TX2D_DESC_SIZE: usize = 52;

/// The 52-byte D3DBaseTexture for a payload at data-relative `data_offset` (4096-aligned).
pub fn tx2d_descriptor(t: &TexPlan, data_offset: u32) -> [u8; TX2D_DESC_SIZE] {
    let pitch = t.width.div_ceil(32) & 0x1FF;
    let words: [u32; 13] = [
        3,                                                            // Common: type 3 = texture
        1,                                                            // RefCount
        0,                                                            // Fence
        0,                                                            // ReadFence
        0,                                                            // Identifier
        0xFFFF_0000,                                                  // BaseFlush
        0xFFFF_0000,                                                  // MipFlush
        2 | (pitch << 22),                                            // dword0: type 2, pitch, untiled
        (data_offset & !0xFFF) | (1 << 6) | t.format.code(),          // dword1: base, endian 1, format
        ((t.width - 1) & 0x1FFF) | (((t.height - 1) & 0x1FFF) << 13), // dword2: size
        0xD10,                                                        // dword3: swizzle xyzw
        0,                                                            // dword4
        1 << 9,                                                       // dword5: dimension 2D, no packed mips
    ];
    let mut out = [0u8; TX2D_DESC_SIZE];
    for (k, w) in words.iter().enumerate() {
        out[4 * k..4 * k + 4].copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// Parameters of the noisy gradient a texture shows.
struct Image {
    c0: [f32; 4],
    c1: [f32; 4],
    gx: f32,
    gy: f32,
    amp: f32,
    wave: f32,
    seed: u32,
}

impl Image {
    fn new(gen: &mut Gen, w: u32, h: u32) -> Self {
        let col = |g: &mut Gen| {
            [
                g.f32_in(0.0, 255.0),
                g.f32_in(0.0, 255.0),
                g.f32_in(0.0, 255.0),
                g.f32_in(64.0, 255.0),
            ]
        };
        let (c0, c1) = (col(gen), col(gen));
        let a = gen.f32_in(0.0, std::f32::consts::TAU);
        Image {
            c0,
            c1,
            gx: a.cos() / w as f32,
            gy: a.sin() / h as f32,
            amp: gen.f32_in(6.0, 28.0),
            wave: gen.f32_in(0.02, 0.2),
            seed: gen.u32(),
        }
    }

    fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let t = (x as f32 * self.gx + y as f32 * self.gy).abs().fract();
        let mut h = x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77) ^ self.seed;
        h ^= h >> 15;
        h = h.wrapping_mul(0x2C1B_3C6D);
        h ^= h >> 12;
        let noise = ((h & 0xFF) as f32 / 255.0 - 0.5) * self.amp;
        let wave = ((x as f32 * self.wave).sin() + (y as f32 * self.wave * 0.7).cos()) * self.amp * 0.5;
        std::array::from_fn(|k| {
            let lit = if k < 3 { wave } else { 0.0 };
            let v = self.c0[k] + (self.c1[k] - self.c0[k]) * t + noise + lit;
            v.clamp(0.0, 255.0) as u8
        })
    }
}

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
    let mut lo = [255u8; 3];
    let mut hi = [0u8; 3];
    for p in px {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let (mut c0, mut c1) = (to565([hi[0], hi[1], hi[2], 0]), to565([lo[0], lo[1], lo[2], 0]));
    if c0 < c1 {
        std::mem::swap(&mut c0, &mut c1);
    }
    let mut bits = 0u32;
    if c0 != c1 {
        let (e0, e1) = (from565(c0), from565(c1));
        let pal: [[i32; 3]; 4] = [
            e0,
            e1,
            [0, 1, 2].map(|k| (2 * e0[k] + e1[k]) / 3),
            [0, 1, 2].map(|k| (e0[k] + 2 * e1[k]) / 3),
        ];
        for (i, p) in px.iter().enumerate() {
            let mut best = (i32::MAX, 0u32);
            for (j, q) in pal.iter().enumerate() {
                let d: i32 = (0..3).map(|k| (p[k] as i32 - q[k]).pow(2)).sum();
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

/// Standard BC3 alpha block (8-alpha mode).
fn bc3_alpha(px: &[[u8; 4]; 16]) -> [u8; 8] {
    let a0 = px.iter().map(|p| p[3]).max().unwrap_or(255);
    let a1 = px.iter().map(|p| p[3]).min().unwrap_or(255);
    let mut bits = 0u64;
    if a0 > a1 {
        let (f0, f1) = (a0 as i32, a1 as i32);
        let mut pal = [0i32; 8];
        pal[0] = f0;
        pal[1] = f1;
        for (k, slot) in pal.iter_mut().enumerate().skip(2) {
            let k = k as i32 - 1;
            *slot = ((7 - k) * f0 + k * f1) / 7;
        }
        for (i, p) in px.iter().enumerate() {
            let a = p[3] as i32;
            let (j, _) = pal
                .iter()
                .enumerate()
                .min_by_key(|(_, &q)| (a - q).abs())
                .unwrap_or((0, &0));
            bits |= (j as u64) << (3 * i);
        }
    }
    let mut out = [0u8; 8];
    out[0] = a0;
    out[1] = a1;
    out[2..8].copy_from_slice(&bits.to_le_bytes()[..6]);
    out
}

/// Swap the two bytes of every u16 (GPU endian mode 1, 8-in-16).
pub fn swap16(buf: &mut [u8]) {
    for pair in buf.chunks_exact_mut(2) {
        pair.swap(0, 1);
    }
}

/// The payload bytes of `t` (untiled, endian 1).
pub fn encode_payload(t: &TexPlan, gen: &mut Gen) -> Vec<u8> {
    let img = Image::new(gen, t.width, t.height);
    let mut out = Vec::with_capacity(t.format.payload_size(t.width, t.height));
    match t.format {
        TexFormat::Argb8 => {
            for y in 0..t.height {
                for x in 0..t.width {
                    let [r, g, b, a] = img.pixel(x, y);
                    out.extend_from_slice(&[a, r, g, b]);
                }
            }
        }
        TexFormat::Dxt1 | TexFormat::Dxt5 => {
            let mut px = [[0u8; 4]; 16];
            for by in 0..t.height.div_ceil(4) {
                for bx in 0..t.width.div_ceil(4) {
                    for (i, p) in px.iter_mut().enumerate() {
                        let (x, y) = (bx * 4 + (i as u32 & 3), by * 4 + (i as u32 >> 2));
                        *p = img.pixel(x.min(t.width - 1), y.min(t.height - 1));
                    }
                    if t.format == TexFormat::Dxt5 {
                        out.extend_from_slice(&bc3_alpha(&px));
                    }
                    out.extend_from_slice(&bc1_block(&px));
                }
            }
        }
    }
    swap16(&mut out);
    out
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
        assert_eq!(f0 >> 31, 0);
        let f1 = w(8);
        assert_eq!(f1 & 0x3F, 20);
        assert_eq!((f1 >> 6) & 3, 1);
        assert_eq!(f1 & !0xFFF, 0x23000);
        let f2 = w(9);
        assert_eq!(f2 & 0x1FFF, 255);
        assert_eq!((f2 >> 13) & 0x1FFF, 127);
    }

    #[test]
    fn payloads_have_exact_sizes_and_real_content() {
        let mut g = Gen::new(5);
        for (f, w, h, size) in [
            (TexFormat::Dxt1, 64, 64, 2048),
            (TexFormat::Dxt5, 128, 64, 8192),
            (TexFormat::Argb8, 64, 32, 8192),
        ] {
            let p = encode_payload(&plan(f, w, h), &mut g);
            assert_eq!(p.len(), size);
            assert_eq!(f.payload_size(w, h), size);
            // Not zeros, not one repeated value.
            assert!(p.iter().any(|&b| b != 0));
            let mut distinct = p.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert!(distinct.len() > 16);
        }
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
        // First pixel (darkest red) maps to the low endpoint side (index 1 or 3).
        assert!(matches!(b[4] & 3, 1 | 3));
    }
}
