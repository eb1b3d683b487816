//! An independent oracle for the texture decoder: a small test-only reference of the
//! Xenos texture rules, written from the formulas of a public Xbox 360 emulator and not
//! calling `src/texture` (nor the synthetic encoder), compared with the decoder on many
//! sizes (1 … 2 048 texels, non-powers of two, every bytes-per-block) and on random
//! blocks.
//!
//! Source: xenia, <https://github.com/xenia-project/xenia> at commit
//! 95a5c3ee250f80c3b9d139658649d9ffb6db3eec, read for its formulas only (no code copied):
//! - `src/xenia/gpu/texture_address.h`: `Tiled2D` and `TiledCombine` (the tiled byte
//!   address of a block: macro tile index × 64 blocks, the 8×(2-row) inner index, shifted
//!   by log2(bytes per block), then the bank / pipe / row-parity bits spliced in);
//! - `src/xenia/gpu/texture_util.cc`: `GetTiledAddressUpperBound2D` (the extent of a
//!   tiled level: the tiled origin of the tile of the last block, plus 0xC00 for 2-byte
//!   blocks, else 0x400 << log2) and `GetGuestTextureLayout` (the base level's row pitch
//!   is the fetch constant's pitch in blocks aligned to 32 blocks, also when linear; a
//!   linear level spans `pitch × (rows − 1) + width` blocks);
//! - `src/xenia/gpu/xenos.h`: the fetch constant (`swizzle : 12` at dword3 bit 1, three
//!   bits per output channel, 0–3 = x y z w, 4 = 0, 5 = 1) and the endian modes;
//! - `src/xenia/gpu/d3d12/d3d12_texture_cache.cc`: the components of each format before
//!   the swizzle (`5_6_5` x in bits 0–4; `8_8_8_8` x = the low byte; DXN and CTX1 `RGGG`,
//!   DXT5A `RRRR`: the last component repeated);
//! - `src/xenia/gpu/shaders/pixel_formats.xesli` and `texture_load_ctx1.cs.xesl`: CTX1
//!   (endpoint x from byte 1, y from byte 0 of each 16-bit half; weights 3:0, 0:3, 2:1,
//!   1:2 over 3, truncated), DXT5A / DXN (8-step mode `(w₀·a + w₁·b) / 7`, 6-step mode
//!   `/ 5` with the constants 0 and 255, truncated) and DXT1/3/5 colour (5:6:5 expanded
//!   by bit replication, `(w₀·c₀ + w₁·c₁) / 3` truncated, 1-bit mode `(c₀ + c₁) / 2` and
//!   transparent black).
//!
//! The project decodes BC1–BC5 with `bcdec` (rounded interpolants): those values may
//! differ by ±1 from the emulator's truncation (docs/textures.md, *Rounding of the interpolants*), so the DXT1/3/5,
//! DXN and DXT5A interpolants are compared within ±1 and everything else exactly:
//! endpoints, index selection, CTX1 (integer thirds, exact), the uncompressed formats,
//! the layout (tiling, pitch, extent) and the swizzle.

use xbg7::texture;

// ---------------------------------------------------------------------------------------
// The reference (from the emulator's formulas)

/// `Tiled2D`: tiled byte address of block (x, y), `pitch` in blocks (a multiple of 32).
fn ref_tiled_2d(x: u32, y: u32, pitch: u32, log2: u32) -> u32 {
    let outer = ((y >> 5) * (pitch >> 5) + (x >> 5)) << 6;
    let inner = (((y >> 1) & 7) << 3) | (x & 7);
    let oi = (outer | inner) << log2;
    let bank = (y >> 4) & 1;
    let pipe = ((x >> 3) & 3) ^ (((y >> 3) & 1) << 1);
    // TiledCombine.
    ((y & 1) << 4)
        | (pipe << 6)
        | (bank << 11)
        | (oi & 0xF)
        | (((oi >> 4) & 1) << 5)
        | (((oi >> 5) & 7) << 8)
        | ((oi >> 8) << 12)
}

/// `GetTiledAddressUpperBound2D` for a level of `wb × hb` blocks.
fn ref_tiled_extent(wb: u32, hb: u32, pitch: u32, log2: u32) -> u64 {
    if wb == 0 || hb == 0 {
        return 0;
    }
    let origin = ref_tiled_2d((wb - 1) & !31, (hb - 1) & !31, pitch, log2) as u64;
    origin
        + match log2 {
            0 => 0xA00,
            1 => 0xC00,
            _ => 0x400 << log2,
        }
}

/// A format as the reference sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum F {
    R565,
    Argb8,
    Dxt1,
    Dxt3,
    Dxt5,
    Dxn,
    Dxt5a,
    Ctx1,
}

const ALL: [F; 8] = [F::R565, F::Argb8, F::Dxt1, F::Dxt3, F::Dxt5, F::Dxn, F::Dxt5a, F::Ctx1];

impl F {
    /// `xenos.h` `TextureFormat`.
    fn code(self) -> u32 {
        match self {
            F::R565 => 4,
            F::Argb8 => 6,
            F::Dxt1 => 18,
            F::Dxt3 => 19,
            F::Dxt5 => 20,
            F::Dxn => 49,
            F::Dxt5a => 59,
            F::Ctx1 => 60,
        }
    }
    fn dim(self) -> u32 {
        if matches!(self, F::R565 | F::Argb8) {
            1
        } else {
            4
        }
    }
    fn bytes(self) -> u32 {
        match self {
            F::R565 => 2,
            F::Argb8 => 4,
            F::Dxt1 | F::Dxt5a | F::Ctx1 => 8,
            F::Dxt3 | F::Dxt5 | F::Dxn => 16,
        }
    }
    /// Whether interpolated values may differ by ±1 (bcdec rounds, the emulator truncates).
    fn tolerant(self) -> bool {
        matches!(self, F::Dxt1 | F::Dxt3 | F::Dxt5 | F::Dxn | F::Dxt5a)
    }
}

fn le16(b: &[u8]) -> u32 {
    u16::from_le_bytes([b[0], b[1]]) as u32
}

/// DXT colour block (8 bytes): 16 RGBA texels. `opaque` (DXT3/5) never takes the
/// 1-bit-alpha mode.
fn ref_dxt_colour(b: &[u8], opaque: bool) -> [[u8; 4]; 16] {
    let (c0, c1) = (le16(b), le16(&b[2..]));
    let expand = |c: u32| -> [u32; 3] {
        let (r, g, bl) = ((c >> 11) & 31, (c >> 5) & 63, c & 31);
        [(r << 3) | (r >> 2), (g << 2) | (g >> 4), (bl << 3) | (bl >> 2)]
    };
    let (e0, e1) = (expand(c0), expand(c1));
    let mix = |w0: u32, w1: u32, d: u32| -> [u8; 4] {
        let c: [u32; 3] = std::array::from_fn(|k| (w0 * e0[k] + w1 * e1[k]) / d);
        [c[0] as u8, c[1] as u8, c[2] as u8, 255]
    };
    let four = opaque || c0 > c1;
    let pal = if four {
        [mix(3, 0, 3), mix(0, 3, 3), mix(2, 1, 3), mix(1, 2, 3)]
    } else {
        [mix(1, 0, 1), mix(0, 1, 1), mix(1, 1, 2), [0, 0, 0, 0]]
    };
    let bits = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    std::array::from_fn(|i| pal[((bits >> (2 * i)) & 3) as usize])
}

/// DXT5 alpha / DXT5A / one DXN half (8 bytes): 16 values.
fn ref_dxt5_alpha(b: &[u8]) -> [u8; 16] {
    let (a, c) = (b[0] as u32, b[1] as u32);
    let mut codes = 0u64;
    for (i, &v) in b[2..8].iter().enumerate() {
        codes |= (v as u64) << (8 * i);
    }
    std::array::from_fn(|i| {
        let k = ((codes >> (3 * i)) & 7) as u32;
        (match (a > c, k) {
            (_, 0) => a,
            (_, 1) => c,
            (true, k) => ((8 - k) * a + (k - 1) * c) / 7,
            (false, 6) => 0,
            (false, 7) => 255,
            (false, k) => ((6 - k) * a + (k - 1) * c) / 5,
        }) as u8
    })
}

/// CTX1 (8 bytes): 16 (x, y) pairs.
fn ref_ctx1(b: &[u8]) -> [[u8; 2]; 16] {
    // Endpoint n: x from byte 2n + 1, y from byte 2n.
    let e = [[b[1] as u32, b[0] as u32], [b[3] as u32, b[2] as u32]];
    // Codes 00, 01, 10, 11 → weights (of endpoint 0, endpoint 1) 3:0, 0:3, 2:1, 1:2.
    const W: [(u32, u32); 4] = [(3, 0), (0, 3), (2, 1), (1, 2)];
    let bits = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    std::array::from_fn(|i| {
        let (w0, w1) = W[((bits >> (2 * i)) & 3) as usize];
        [0, 1].map(|k| ((w0 * e[0][k] + w1 * e[1][k]) / 3) as u8)
    })
}

/// The components (x, y, z, w) of one block (or texel, first entry) before the swizzle.
fn ref_components(f: F, b: &[u8]) -> [[u8; 4]; 16] {
    let mut out = [[0u8; 4]; 16];
    match f {
        F::R565 => {
            let v = le16(b);
            let (lo, mid, hi) = (v & 31, (v >> 5) & 63, v >> 11);
            let hi = ((hi << 3) | (hi >> 2)) as u8;
            out[0] = [((lo << 3) | (lo >> 2)) as u8, ((mid << 2) | (mid >> 4)) as u8, hi, hi];
        }
        F::Argb8 => out[0] = [b[0], b[1], b[2], b[3]],
        F::Dxt1 => out = ref_dxt_colour(b, false),
        F::Dxt3 => {
            out = ref_dxt_colour(&b[8..], true);
            for (i, p) in out.iter_mut().enumerate() {
                let a = (b[i / 2] >> (4 * (i % 2))) & 15;
                p[3] = a * 17;
            }
        }
        F::Dxt5 => {
            out = ref_dxt_colour(&b[8..], true);
            for (p, a) in out.iter_mut().zip(ref_dxt5_alpha(&b[..8])) {
                p[3] = a;
            }
        }
        F::Dxn => {
            let (x, y) = (ref_dxt5_alpha(&b[..8]), ref_dxt5_alpha(&b[8..]));
            out = std::array::from_fn(|i| [x[i], y[i], y[i], y[i]]);
        }
        F::Dxt5a => out = ref_dxt5_alpha(b).map(|v| [v; 4]),
        F::Ctx1 => out = ref_ctx1(b).map(|[x, y]| [x, y, y, y]),
    }
    out
}

fn ref_swizzle(c: [u8; 4], swizzle: u32) -> [u8; 4] {
    std::array::from_fn(|k| match (swizzle >> (3 * k)) & 7 {
        s @ 0..=3 => c[s as usize],
        4 => 0,
        5 => 255,
        _ => panic!("the oracle only writes defined selectors"),
    })
}

/// A texture as the tests store it.
#[derive(Clone, Debug)]
struct Tex {
    f: F,
    w: u32,
    h: u32,
    tiled: bool,
    /// The fetch constant's pitch field (texels >> 5).
    pitch_field: u32,
    /// 1 = 8in16, 2 = 8in32.
    endian: u32,
    swizzle: u32,
}

impl Tex {
    fn new(f: F, w: u32, h: u32, tiled: bool) -> Tex {
        Tex {
            f,
            w,
            h,
            tiled,
            // What Direct3D writes: the width rounded up to 32 texels.
            pitch_field: w.div_ceil(32),
            endian: if f == F::Argb8 { 2 } else { 1 },
            swizzle: xyzw(),
        }
    }
    fn blocks(&self) -> (u32, u32) {
        (self.w.div_ceil(self.f.dim()), self.h.div_ceil(self.f.dim()))
    }
    /// The row pitch in blocks the GPU uses (GetGuestTextureLayout, base level).
    fn pitch(&self) -> u32 {
        let (wb, _) = self.blocks();
        ((self.pitch_field << 5).div_ceil(self.f.dim()).max(wb)).div_ceil(32) * 32
    }
    fn log2(&self) -> u32 {
        self.f.bytes().trailing_zeros()
    }
    /// Bytes the level spans from its base address.
    fn extent(&self) -> u64 {
        let (wb, hb) = self.blocks();
        if self.tiled {
            ref_tiled_extent(wb, hb, self.pitch(), self.log2())
        } else {
            (self.pitch() as u64 * (hb as u64 - 1) + wb as u64) * self.f.bytes() as u64
        }
    }
    /// Byte address of block (x, y) from the base.
    fn address(&self, x: u32, y: u32) -> u64 {
        if self.tiled {
            ref_tiled_2d(x, y, self.pitch(), self.log2()) as u64
        } else {
            (y as u64 * self.pitch() as u64 + x as u64) * self.f.bytes() as u64
        }
    }
    /// The 52-byte D3DBaseTexture (FORMAT.md §8 field positions) for base address 0.
    fn descriptor(&self) -> Vec<u8> {
        let mut words = [0u32; 13];
        words[0] = 3;
        words[7] = 2 | (self.pitch_field << 22) | ((self.tiled as u32) << 31);
        words[8] = (self.endian << 6) | self.f.code();
        words[9] = (self.w - 1) | ((self.h - 1) << 13);
        words[10] = self.swizzle << 1;
        words[12] = 1 << 9;
        words.iter().flat_map(|w| w.to_be_bytes()).collect()
    }
    /// Undo the endian swap of one block's bytes.
    fn unswap(&self, b: &[u8]) -> Vec<u8> {
        let mut v = b.to_vec();
        match self.endian {
            1 => v.chunks_exact_mut(2).for_each(|c| c.swap(0, 1)),
            2 => v.chunks_exact_mut(4).for_each(|c| c.reverse()),
            _ => {}
        }
        v
    }
    /// The reference decode of `data` (the level at offset 0): RGBA rows.
    fn decode(&self, data: &[u8]) -> Vec<[u8; 4]> {
        let (wb, hb) = self.blocks();
        let d = self.f.dim();
        let n = self.f.bytes() as usize;
        let mut out = vec![[0u8; 4]; (self.w * self.h) as usize];
        for by in 0..hb {
            for bx in 0..wb {
                let a = self.address(bx, by) as usize;
                let comps = ref_components(self.f, &self.unswap(&data[a..a + n]));
                for k in 0..d * d {
                    let (x, y) = (bx * d + k % d, by * d + k / d);
                    if x < self.w && y < self.h {
                        out[(y * self.w + x) as usize] = ref_swizzle(comps[k as usize], self.swizzle);
                    }
                }
            }
        }
        out
    }
}

fn sw(x: u32, y: u32, z: u32, w: u32) -> u32 {
    x | (y << 3) | (z << 6) | (w << 9)
}
fn xyzw() -> u32 {
    sw(0, 1, 2, 3)
}

/// SplitMix64: the tests' own random bytes.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn fill(&mut self, n: usize) -> Vec<u8> {
        (0..n.div_ceil(8))
            .flat_map(|_| self.next().to_le_bytes())
            .take(n)
            .collect()
    }
}

/// Decode `t` over `data` with the project's decoder; compare with the reference.
/// Returns the number of wrong pixels (beyond the ±1 allowance of the tolerant formats).
fn wrong_pixels(t: &Tex, data: &[u8]) -> Result<usize, String> {
    let (_, img) = texture::decode(&t.descriptor(), data).map_err(|r| r.to_string())?;
    let want = t.decode(data);
    let tol = if t.f.tolerant() { 1 } else { 0 };
    Ok(img
        .rgba
        .chunks_exact(4)
        .zip(&want)
        .filter(|(g, w)| (0..4).any(|k| (g[k] as i32 - w[k] as i32).abs() > tol))
        .count())
}

// ---------------------------------------------------------------------------------------
// The comparisons

#[test]
fn tiled_addresses_match_the_reference() {
    // The tiling itself (the review found it right): every block of surfaces up to
    // 2 048 texels wide and 64 block rows, every bytes-per-block.
    let mut n = 0u64;
    for log2 in 1..=4 {
        for pitch in (32..=512).step_by(32) {
            for y in 0..64 {
                for x in 0..pitch {
                    let got = texture::tiling::tiled_offset(x, y, pitch, log2);
                    assert_eq!(
                        got,
                        ref_tiled_2d(x, y, pitch, log2),
                        "({x}, {y}) pitch {pitch} log2 {log2}"
                    );
                    n += 1;
                }
            }
        }
    }
    eprintln!("tiled addresses compared: {n}");
}

#[test]
fn tiled_extent_matches_the_upper_bound() {
    // Every width 1 … 2 048 against 32 heights, every format: the bytes the decoder
    // takes for the level equal the emulator's upper bound, and every block's address
    // lies inside it.
    let heights = [
        1, 2, 3, 4, 5, 8, 15, 16, 17, 20, 31, 32, 33, 48, 63, 64, 65, 96, 100, 127, 128, 129, 160, 255, 256, 300, 511,
        512, 640, 1000, 1024, 2048,
    ];
    let mut sizes = 0u64;
    let mut beyond = 0u64;
    for f in ALL {
        for w in 1..=2048u32 {
            for &h in &heights {
                let t = Tex::new(f, w, h, true);
                let hdr = texture::header::parse(&t.descriptor()).unwrap();
                let fmt = hdr.format.unwrap();
                assert_eq!(hdr.base_size(fmt), t.extent(), "{f:?} {w}×{h} tiled extent");
                let (wb, hb) = t.blocks();
                beyond += u64::from(t.extent() > t.pitch() as u64 * hb.div_ceil(32) as u64 * 32 * f.bytes() as u64);
                if w % 61 == 0 && h <= 128 {
                    // Spot-check the bound on every block of every 61st width.
                    let top = (0..hb)
                        .flat_map(|y| (0..wb).map(move |x| (x, y)))
                        .map(|(x, y)| t.address(x, y) + f.bytes() as u64)
                        .max()
                        .unwrap_or(0);
                    assert!(top <= t.extent(), "{f:?} {w}×{h}: a block ends at {top}");
                }
                sizes += 1;
            }
        }
    }
    eprintln!("tiled extents compared: {sizes} sizes, {beyond} of them beyond pitch × rows × bytes");
    assert!(beyond > 0);
}

/// The sizes the whole-texture comparisons decode: powers of two, the shapes of the
/// review, odd and prime sizes, long thin ones, up to 2 048.
const SIZES: [(u32, u32); 40] = [
    (1, 1),
    (2, 3),
    (4, 4),
    (5, 7),
    (16, 16),
    (17, 17),
    (31, 33),
    (32, 20),
    (32, 32),
    (32, 96),
    (64, 16),
    (64, 64),
    (96, 32),
    (96, 96),
    (100, 60),
    (127, 129),
    (128, 64),
    (160, 17),
    (192, 40),
    (200, 200),
    (255, 3),
    (256, 256),
    (320, 24),
    (333, 77),
    (448, 36),
    (511, 9),
    (512, 128),
    (640, 48),
    (720, 13),
    (1000, 8),
    (1024, 40),
    (1280, 12),
    (1408, 4),
    (2048, 4),
    (2048, 33),
    (4, 2048),
    (9, 1111),
    (37, 600),
    (1, 2048),
    (2048, 1),
];

fn compare_whole_textures(tiled: bool) {
    let mut rng = Rng(if tiled { 7 } else { 11 });
    let (mut textures, mut pixels, mut blocks) = (0u64, 0u64, 0u64);
    let mut failures = Vec::new();
    for f in ALL {
        for (w, h) in SIZES {
            let t = Tex::new(f, w, h, tiled);
            // Random bytes over exactly the level's extent: a decoder that reads past
            // it, or at the wrong address, fails.
            let data = rng.fill(t.extent() as usize);
            match wrong_pixels(&t, &data) {
                Ok(0) => {}
                Ok(n) => failures.push(format!("{f:?} {w}×{h}: {n} of {} pixels wrong", w * h)),
                Err(e) => failures.push(format!("{f:?} {w}×{h}: {e}")),
            }
            let (wb, hb) = t.blocks();
            textures += 1;
            pixels += (w * h) as u64;
            blocks += (wb * hb) as u64;
        }
    }
    let how = if tiled { "tiled" } else { "linear" };
    eprintln!("{how}: {textures} textures, {blocks} blocks, {pixels} pixels compared");
    assert!(
        failures.is_empty(),
        "{how}: {} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn tiled_textures_decode_like_the_reference() {
    compare_whole_textures(true);
}

#[test]
fn linear_textures_decode_like_the_reference() {
    compare_whole_textures(false);
}

#[test]
fn the_review_cases() {
    let mut rng = Rng(3);
    // 1. 32×32 5_6_5 tiled spans 3 072 bytes and decodes from exactly those.
    let t = Tex::new(F::R565, 32, 32, true);
    assert_eq!(t.extent(), 3072);
    assert_eq!(wrong_pixels(&t, &rng.fill(3072)), Ok(0));
    // 2. DXN 64×16 linear: rows are 32 blocks apart (the review found 768 of 1 024 wrong).
    let t = Tex::new(F::Dxn, 64, 16, false);
    assert_eq!(t.pitch(), 32);
    assert_eq!(wrong_pixels(&t, &rng.fill(t.extent() as usize)), Ok(0));
    // 4. 8_8_8_8 as A8B8G8R8 (XYZW) and X8R8G8B8 (ZYX1): red and blue in place, alpha 1.
    for swizzle in [xyzw(), sw(2, 1, 0, 5), sw(2, 1, 0, 3), sw(4, 5, 3, 3)] {
        let t = Tex {
            swizzle,
            ..Tex::new(F::Argb8, 40, 24, true)
        };
        assert_eq!(
            wrong_pixels(&t, &rng.fill(t.extent() as usize)),
            Ok(0),
            "swizzle {swizzle:#x}"
        );
    }
    let t = Tex {
        swizzle: sw(2, 1, 0, 5),
        ..Tex::new(F::Argb8, 1, 1, false)
    };
    // File bytes (8in32) X R G B = 0x11 0x80 0x40 0x20.
    let (_, img) = texture::decode(&t.descriptor(), &[0x11, 0x80, 0x40, 0x20]).unwrap();
    assert_eq!(img.rgba, [0x80, 0x40, 0x20, 0xFF]);
}

#[test]
fn ctx1_blocks_decode_like_the_reference() {
    // 3. Every endpoint pair (a, b) of one component, at all four indices, then random
    // blocks.
    let mut out = [[0u8; 4]; 16];
    let idx: u32 = (0..16).map(|i| (i % 4) << (2 * i)).sum();
    let mut pairs_wrong = 0;
    let mut blocks = 0u64;
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            let mut blk = [a, b, b, a, 0, 0, 0, 0];
            blk[4..].copy_from_slice(&idx.to_le_bytes());
            texture::bcn::decode_block(texture::Format::Ctx1, &blk, &mut out);
            if out != ref_components(F::Ctx1, &blk) {
                pairs_wrong += 1;
            }
            blocks += 1;
        }
    }
    let mut rng = Rng(5);
    let mut random_wrong = 0;
    for _ in 0..200_000 {
        let blk = rng.next().to_le_bytes();
        texture::bcn::decode_block(texture::Format::Ctx1, &blk, &mut out);
        random_wrong += usize::from(out != ref_components(F::Ctx1, &blk));
        blocks += 1;
    }
    eprintln!("CTX1: {blocks} blocks compared (65 536 endpoint pairs × 4 indices, 200 000 random)");
    assert_eq!((pairs_wrong, random_wrong), (0, 0), "CTX1 blocks differ");
}

#[test]
fn dxn_and_dxt5a_blocks_decode_like_the_reference() {
    // Random blocks and every endpoint pair: endpoints, constants and index selection
    // exact; interpolants within ±1 (bcdec rounds, the emulator truncates).
    let mut rng = Rng(9);
    let mut out = [[0u8; 4]; 16];
    let (mut blocks, mut off_by_one) = (0u64, 0u64);
    let mut check = |f: F, blk: &[u8], out: &mut [[u8; 4]; 16]| {
        let fmt = texture::Format::from_code(f.code()).unwrap();
        texture::bcn::decode_block(fmt, blk, out);
        let want = ref_components(f, blk);
        // Endpoints and the 6-step constants are exact, interpolants within ±1.
        let code = |i: usize| (u64::from_le_bytes(blk[..8].try_into().unwrap()) >> (16 + 3 * i)) & 7;
        for (i, (g, w)) in out.iter().zip(&want).enumerate() {
            for (k, (a, b)) in g.iter().zip(w).enumerate() {
                let d = (*a as i32 - *b as i32).abs();
                assert!(d <= 1, "{f:?} {blk:02x?} texel {i} component {k}: {g:?} vs {w:?}");
                off_by_one += u64::from(d == 1);
            }
            let k = code(i);
            if k < 2 || (blk[0] <= blk[1] && k >= 6) {
                assert_eq!(g[0], w[0], "{f:?} {blk:02x?} texel {i}");
            }
        }
        blocks += 1;
    };
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            // Indices 0..7 twice over.
            let codes: u64 = (0..16).map(|i| (i as u64 % 8) << (3 * i)).sum();
            let mut blk = [0u8; 8];
            blk[0] = a;
            blk[1] = b;
            blk[2..].copy_from_slice(&codes.to_le_bytes()[..6]);
            check(F::Dxt5a, &blk, &mut out);
        }
    }
    for _ in 0..100_000 {
        let blk = rng.fill(8);
        check(F::Dxt5a, &blk, &mut out);
        let blk = rng.fill(16);
        check(F::Dxn, &blk, &mut out);
    }
    eprintln!("DXT5A / DXN: {blocks} blocks compared, {off_by_one} components off by one (rounding)");
}
