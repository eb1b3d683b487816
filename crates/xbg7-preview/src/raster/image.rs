//! The RGBA image every render produces and its PNG encoding (one encoder for the whole
//! tool, fixed settings, deterministic bytes; the settings `bench --png` compares).

use serde::Serialize;

/// An RGBA8 image, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Image {
    /// A `width × height` image filled with one colour.
    pub fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Image {
        let n = width as usize * height as usize;
        let mut data = Vec::with_capacity(n * 4);
        for _ in 0..n {
            data.extend_from_slice(&rgba);
        }
        Image {
            width,
            height,
            rgba: data,
        }
    }

    /// The pixel at `(x, y)`, `None` outside the image (or for an inconsistent buffer).
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        let p = self.rgba.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }
}

/// Errors of [`try_encode_png`].
#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    #[error("image {width}x{height} has {len} bytes, expected {expected}")]
    BadBuffer {
        width: u32,
        height: u32,
        len: usize,
        expected: usize,
    },
    #[error("image has a zero dimension ({width}x{height})")]
    Empty { width: u32, height: u32 },
    #[error("png encoder: {0}")]
    Png(String),
}

/// DEFLATE setting of a PNG encoding (see [`PngSettings`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PngDeflate {
    /// Stored blocks, no compression (the `png` crate then forces no filter).
    Stored,
    /// The `png` crate's fast path (`fdeflate`, "ultra fast").
    Fdeflate,
    /// zlib (`flate2`) level 1–9.
    Level(u8),
}

/// PNG encoder settings: DEFLATE and row filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PngSettings {
    pub deflate: PngDeflate,
    /// `none`, `sub`, `up`, `avg`, `paeth`, `adaptive`.
    pub filter: &'static str,
}

/// The settings every PNG of the tool is written with (measured, size against time, by
/// `xbg7-export bench --png`; docs/performance.md).
pub const PNG_SETTINGS: PngSettings = PngSettings {
    deflate: PngDeflate::Fdeflate,
    filter: "paeth",
};

pub(super) fn png_filter(name: &str) -> png::Filter {
    match name {
        "none" => png::Filter::NoFilter,
        "sub" => png::Filter::Sub,
        "up" => png::Filter::Up,
        "avg" => png::Filter::Avg,
        "adaptive" => png::Filter::Adaptive,
        _ => png::Filter::Paeth,
    }
}

/// Encode as PNG (RGBA8, fixed compression and filter settings: deterministic bytes):
/// the `png` crate's bytes with [`PNG_SETTINGS`], by the one-pass writer
/// ([`write_fdeflate_png`]).
pub fn try_encode_png(img: &Image) -> Result<Vec<u8>, RasterError> {
    let mut out = Vec::new();
    write_fdeflate_png(&mut out, img.width, img.height, &img.rgba, png::ColorType::Rgba)?;
    Ok(out)
}

/// [`try_encode_png`] with explicit encoder settings (for measuring them).
pub fn try_encode_png_with(img: &Image, settings: PngSettings) -> Result<Vec<u8>, RasterError> {
    check_rgba(img.width, img.height, &img.rgba)?;
    encode_raw(img.width, img.height, &img.rgba, png::ColorType::Rgba, settings)
}

/// The narrowest PNG colour type that holds RGBA8 pixels exactly: grey when every pixel
/// has R = G = B, without alpha when every alpha is 255.
pub fn compact_color(rgba: &[u8]) -> png::ColorType {
    let mut scan = ColorScan::new();
    scan.update(rgba);
    scan.color()
}

/// [`compact_color`] of pixels seen in pieces (each whole pixels), e.g. while they are
/// hashed, so the image is read once for both.
#[derive(Clone, Copy, Debug)]
pub struct ColorScan {
    grey: bool,
    opaque: bool,
}

impl Default for ColorScan {
    fn default() -> Self {
        ColorScan::new()
    }
}

impl ColorScan {
    /// No pixel seen: the narrowest type.
    pub fn new() -> ColorScan {
        ColorScan {
            grey: true,
            opaque: true,
        }
    }

    /// See the pixels of `rgba` (whole pixels; AVX2 where the CPU has it, eight pixels
    /// a vector).
    pub fn update(&mut self, rgba: &[u8]) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked above).
            return unsafe { self.update_avx2(rgba) };
        }
        self.update_body(rgba)
    }

    /// [`Self::update`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn update_avx2(&mut self, rgba: &[u8]) {
        self.update_body(rgba)
    }

    #[inline(always)]
    fn update_body(&mut self, rgba: &[u8]) {
        // Per pixel as a little-endian u32 (R in the low byte): the AND of every alpha
        // and the OR of every R^G, G^B, reduced over 1 024 pixels at a time (bitwise
        // only, so the compiler vectorises it); stop once neither type can hold.
        for block in rgba.chunks(4096) {
            if !self.grey && !self.opaque {
                break;
            }
            let (and, or) = block.chunks_exact(4).fold((u32::MAX, 0u32), |(and, or), p| {
                let x = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                (and & x, or | ((x ^ (x >> 8)) & 0xFFFF))
            });
            self.grey &= or == 0;
            self.opaque &= and >> 24 == 0xFF;
        }
    }

    /// The narrowest type of every pixel seen.
    pub fn color(self) -> png::ColorType {
        match (self.grey, self.opaque) {
            (true, true) => png::ColorType::Grayscale,
            (true, false) => png::ColorType::GrayscaleAlpha,
            (false, true) => png::ColorType::Rgb,
            (false, false) => png::ColorType::Rgba,
        }
    }
}

/// Encode RGBA8 pixels losslessly in the narrowest colour type ([`compact_color`]), with
/// the tool's settings: texture maps whose channels repeat (a one-channel gloss map, an
/// opaque colour map) are written in a quarter or three quarters of the bytes, which on
/// a texture-heavy disc is most of what an export writes. A PNG reader gives back the
/// same RGBA.
///
/// An image whose sample rows ([`compresses_poorly`]) do not compress below
/// [`MAX_SAMPLE_RATIO`] of their size is written with stored DEFLATE blocks: on high-entropy texels (detailed art decoded from
/// BCn) the fast compressor saves about 4 % at four times the time of storing.
pub fn try_encode_png_compact(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, RasterError> {
    let mut out = Vec::new();
    write_png_compact(&mut out, width, height, rgba)?;
    Ok(out)
}

/// [`try_encode_png_compact`] into `w` (e.g. straight into a file).
///
/// The stored case costs a copy plus the checksums: [`write_stored_png`] narrows the
/// pixels row by row into one block-sized buffer and writes the same bytes the `png`
/// crate writes with [`STORED`], without its intermediate copies of the whole image.
/// Only a compressible image is narrowed whole, for the fast compressor.
pub fn write_png_compact(w: impl std::io::Write, width: u32, height: u32, rgba: &[u8]) -> Result<(), RasterError> {
    write_png_compact_as(w, width, height, rgba, compact_color(rgba))
}

/// [`write_png_compact`] in the colour type `color`, which must be [`compact_color`]'s
/// of the pixels (taken by a [`ColorScan`] while they were read for something else).
pub fn write_png_compact_as(
    w: impl std::io::Write,
    width: u32,
    height: u32,
    rgba: &[u8],
    color: png::ColorType,
) -> Result<(), RasterError> {
    check_rgba(width, height, rgba)?;
    debug_assert_eq!(compact_color(rgba), color, "the scanned colour type is the pixels'");
    if sample_compresses_poorly(width, height, rgba, color)? {
        return write_stored_png(w, width, height, rgba, color);
    }
    write_fdeflate_png(w, width, height, rgba, color)
}

/// The PNG filter type byte of Paeth, the filter of [`PNG_SETTINGS`].
const PAETH: u8 = 4;

/// The PNG of `rgba` (checked: `width·height·4` bytes) in colour type `color` (one that
/// holds every pixel exactly, [`compact_color`]) as the `png` crate writes it with
/// [`PNG_SETTINGS`], in one pass over the pixels: each row is narrowed into a row buffer,
/// Paeth-filtered against the row above ([`paeth_row`]) and handed to `fdeflate` as the
/// crate hands it (one call per row: its filter byte and residuals — `fdeflate`'s output
/// depends on the calls), then framed as the crate frames it (IDAT chunks of at most
/// 2³¹ − 1 bytes), or, when the compressed stream would be larger than stored blocks,
/// stored as the crate falls back ([`write_stored_png`]). The crate narrows the whole
/// image into a copy first and filters it; the tests compare the bytes.
pub fn write_fdeflate_png(
    mut w: impl std::io::Write,
    width: u32,
    height: u32,
    rgba: &[u8],
    color: png::ColorType,
) -> Result<(), RasterError> {
    check_rgba(width, height, rgba)?;
    let bpp = channels(color);
    let (row_out, raw_total) = raw_rows(width, height, color);
    let stored_size = fdeflate::StoredOnlyCompressor::<()>::compressed_size(raw_total);
    let (mut above, mut here) = (vec![0u8; row_out], vec![0u8; row_out]);
    let mut line = vec![PAETH; row_out + 1];
    // Reserved, not touched: only the pages written are committed.
    let mut z = fdeflate::Compressor::new(Vec::with_capacity(stored_size)).map_err(io)?;
    for row in rgba.chunks_exact(width as usize * 4) {
        narrow_into(row, color, &mut here);
        paeth_row(bpp, &above, &here, &mut line[1..]);
        z.write_data(&line).map_err(io)?;
        std::mem::swap(&mut above, &mut here);
    }
    let zlib = z.finish().map_err(io)?;
    if zlib.len() > stored_size {
        return write_stored_png(w, width, height, rgba, color);
    }
    w.write_all(&png_head(width, height, color)).map_err(io)?;
    for part in zlib.chunks(MAX_IDAT) {
        write_chunk(&mut w, b"IDAT", part).map_err(io)?;
    }
    w.write_all(&IEND).map_err(io)
}

/// Most data bytes of one IDAT chunk the `png` crate writes (2³¹ − 1).
const MAX_IDAT: usize = (u32::MAX >> 1) as usize;

/// The IEND chunk: length 0, its type, and its fixed CRC.
const IEND: [u8; 12] = [0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82];

/// The PNG signature and IHDR chunk of a `width × height` 8-bit image of type `color`.
fn png_head(width: u32, height: u32, color: png::ColorType) -> Vec<u8> {
    let mut head = Vec::with_capacity(8 + 25 + 10);
    head.extend_from_slice(&[137, 80, 78, 71, 13, 10, 26, 10]);
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, color as u8, 0, 0, 0]);
    chunk(&mut head, b"IHDR", &ihdr);
    head
}

/// A PNG chunk written to `w` without copying its data: length, type, data, CRC-32 of
/// type and data.
fn write_chunk(w: &mut impl std::io::Write, ty: &[u8; 4], data: &[u8]) -> std::io::Result<()> {
    let mut crc = crc32fast::Hasher::new();
    crc.update(ty);
    crc.update(data);
    let mut head = [0u8; 8];
    head[..4].copy_from_slice(&(data.len() as u32).to_be_bytes());
    head[4..].copy_from_slice(ty);
    w.write_all(&head)?;
    w.write_all(data)?;
    w.write_all(&crc.finalize().to_be_bytes())
}

/// The Paeth predictor (PNG specification, 9.4) of `a` (left), `b` (above), `c` (above
/// left) in unsigned bytes only (the formulation of FPNGE, which the `png` crate's
/// encoder uses; equal to the specification's for every input, tested), so that rows of
/// it vectorise.
#[inline(always)]
fn paeth(a: u8, b: u8, c: u8) -> u8 {
    // pa = |b − c|, pb = |a − c|; pc = |(a − c) + (b − c)| is |pa − pb| when c lies
    // between a and b, and larger than both otherwise.
    let pa = b.max(c) - b.min(c);
    let pb = a.max(c) - a.min(c);
    let pc = if (a < c) == (c < b) {
        pa.max(pb) - pa.min(pb)
    } else {
        255
    };
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

/// The Paeth filter of row `cur` (pixels of `bpp` bytes) against the row above `prev`
/// (zeros above the first row) into `out` (as long as `cur`): each byte minus the
/// predictor of its left, upper and upper-left neighbours (zero left of the first pixel).
/// With AVX2 where the machine has it (the same code, 32 bytes a step).
fn paeth_row(bpp: usize, prev: &[u8], cur: &[u8], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked above).
        return unsafe { paeth_row_avx2(bpp, prev, cur, out) };
    }
    paeth_row_body(bpp, prev, cur, out)
}

/// [`paeth_row`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn paeth_row_avx2(bpp: usize, prev: &[u8], cur: &[u8], out: &mut [u8]) {
    paeth_row_body(bpp, prev, cur, out)
}

#[inline(always)]
fn paeth_row_body(bpp: usize, prev: &[u8], cur: &[u8], out: &mut [u8]) {
    let len = cur.len().min(prev.len()).min(out.len());
    let bpp = bpp.min(len);
    for i in 0..bpp {
        out[i] = cur[i].wrapping_sub(paeth(0, prev[i], 0));
    }
    // In fixed steps of 32 bytes, which the compiler vectorises (the neighbours are
    // separate slices, so nothing written is read again).
    const STEP: usize = 32;
    let (cur_r, a_r) = (&cur[bpp..len], &cur[..len - bpp]);
    let (b_r, c_r) = (&prev[bpp..len], &prev[..len - bpp]);
    let out_r = &mut out[bpp..len];
    let mut o = out_r.chunks_exact_mut(STEP);
    let mut x = cur_r.chunks_exact(STEP);
    let mut a = a_r.chunks_exact(STEP);
    let mut b = b_r.chunks_exact(STEP);
    let mut c = c_r.chunks_exact(STEP);
    for ((((o, x), a), b), c) in (&mut o).zip(&mut x).zip(&mut a).zip(&mut b).zip(&mut c) {
        for i in 0..STEP {
            o[i] = x[i].wrapping_sub(paeth(a[i], b[i], c[i]));
        }
    }
    let rest = o.into_remainder().iter_mut().zip(x.remainder()).zip(a.remainder());
    for (((o, &x), &a), (&b, &c)) in rest.zip(b.remainder().iter().zip(c.remainder())) {
        *o = x.wrapping_sub(paeth(a, b, c));
    }
}

/// RGBA8 pixels in `color`'s channels (`None`: RGBA itself).
fn narrowed(rgba: &[u8], color: png::ColorType) -> Option<Vec<u8>> {
    let n = channels(color);
    (n < 4).then(|| {
        let mut out = vec![0u8; rgba.len() / 4 * n];
        narrow_into(rgba, color, &mut out);
        out
    })
}

/// The bytes of one row of `width` pixels of `color`, and of the zlib stream's raw data
/// (each of `height` rows after its filter byte).
fn raw_rows(width: u32, height: u32, color: png::ColorType) -> (usize, usize) {
    let row = width as usize * channels(color);
    (row, (row + 1) * height as usize)
}

/// A writer's error as the encoder's.
fn io(e: std::io::Error) -> RasterError {
    RasterError::Png(e.to_string())
}

/// Bytes per pixel of a [`compact_color`] type.
fn channels(color: png::ColorType) -> usize {
    match color {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        _ => 4,
    }
}

/// `rgba` (whole pixels) narrowed to `color` into `out` (exactly `rgba.len() / 4 ·
/// channels` bytes): each pixel's red (grey), red and alpha (grey + alpha), or red,
/// green and blue. Under AVX2, eight pixels a step by byte shuffles ([`narrow_avx2`]),
/// the last ones as below.
fn narrow_into(rgba: &[u8], color: png::ColorType, out: &mut [u8]) {
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if channels(color) < 4 && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked above).
        done = unsafe { narrow_avx2(rgba, channels(color), out) };
    }
    narrow_plain(&rgba[4 * done..], color, &mut out[channels(color) * done..]);
}

/// [`narrow_into`] one pixel at a time (four at a time for RGB).
fn narrow_plain(rgba: &[u8], color: png::ColorType, out: &mut [u8]) {
    match color {
        png::ColorType::Grayscale => {
            for (o, p) in out.iter_mut().zip(rgba.chunks_exact(4)) {
                *o = p[0];
            }
        }
        png::ColorType::GrayscaleAlpha => {
            for (o, p) in out.chunks_exact_mut(2).zip(rgba.chunks_exact(4)) {
                o[0] = p[0];
                o[1] = p[3];
            }
        }
        png::ColorType::Rgb => {
            // Four pixels (16 bytes) as one u128 whose alpha bytes are squeezed out by
            // shifts and masks (bytes stay in order): 12 bytes out.
            let quads = rgba.len() / 16;
            let (whole, rest) = out.split_at_mut(quads * 12);
            for (src, dst) in rgba.chunks_exact(16).zip(whole.chunks_exact_mut(12)) {
                let x = u128::from_le_bytes(src.try_into().expect("16 bytes"));
                const P: u128 = 0xFF_FFFF;
                let y = (x & P) | ((x >> 8) & (P << 24)) | ((x >> 16) & (P << 48)) | ((x >> 24) & (P << 72));
                dst.copy_from_slice(&y.to_le_bytes()[..12]);
            }
            for (o, p) in rest.chunks_exact_mut(3).zip(rgba[quads * 16..].chunks_exact(4)) {
                o.copy_from_slice(&p[..3]);
            }
        }
        _ => out.copy_from_slice(rgba),
    }
}

/// The first pixels of [`narrow_into`] to `n` (1–3) channels, eight a step: 32 bytes
/// loaded, each 16-byte lane's four pixels shuffled to its first `4n` bytes, the two
/// lanes' dwords packed together, 32 bytes stored (the `8n` written, the rest written
/// again by the next step or the caller). Steps while the 32 bytes read and written lie
/// inside `rgba` and `out`; returns the pixels done.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn narrow_avx2(rgba: &[u8], n: usize, out: &mut [u8]) -> usize {
    use std::arch::x86_64::*;
    // Per lane: output byte k takes the lane's byte 4·(k / n) + [0, 3, or 0, 1, 2][k % n],
    // or zero (−1); then lane 0's first `n` dwords and lane 1's (dwords 4…).
    const LANE: [[i8; 16]; 3] = [
        [0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1],
        [0, 3, 4, 7, 8, 11, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1],
        [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1],
    ];
    const DWORDS: [[i32; 8]; 3] = [
        [0, 4, 5, 6, 7, 7, 7, 7],
        [0, 1, 4, 5, 6, 7, 7, 7],
        [0, 1, 2, 4, 5, 6, 7, 7],
    ];
    let (lane, dwords) = (&LANE[n.clamp(1, 3) - 1], &DWORDS[n.clamp(1, 3) - 1]);
    let shuffle = _mm256_loadu2_m128i(lane.as_ptr().cast(), lane.as_ptr().cast());
    let pack = _mm256_loadu_si256(dwords.as_ptr().cast());
    let mut p = 0;
    while 4 * p + 32 <= rgba.len() && n * p + 32 <= out.len() {
        // SAFETY: both 32-byte ranges are inside their slices (the loop's condition).
        let v = _mm256_loadu_si256(rgba.as_ptr().add(4 * p).cast());
        let s = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, shuffle), pack);
        _mm256_storeu_si256(out.as_mut_ptr().add(n * p).cast(), s);
        p += 8;
    }
    p
}

/// Raw bytes of one stored DEFLATE block at most (RFC 1951, 3.2.4).
const STORED_BLOCK: usize = u16::MAX as usize;

/// The PNG of `rgba` (checked: `width·height·4` bytes) in colour type `color` (one that
/// holds every pixel exactly, [`compact_color`]) with stored DEFLATE blocks, written to
/// `w` in one pass: each row's filter byte (none) and narrowed pixels go straight into
/// a buffer of one stored block, which is checksummed (Adler-32 of the zlib stream's
/// data, CRC-32 of the IDAT chunk) and written. The bytes are those of the `png` crate
/// with [`STORED`] (signature, IHDR, one IDAT holding a zlib stream of 65 535-byte stored
/// blocks, IEND; the tests compare them), which this replaces because it copies the
/// image three times on the way (filtering, the zlib stream, the chunk).
pub fn write_stored_png(
    mut w: impl std::io::Write,
    width: u32,
    height: u32,
    rgba: &[u8],
    color: png::ColorType,
) -> Result<(), RasterError> {
    check_rgba(width, height, rgba)?;
    let row_in = width as usize * 4;
    let (row_out, raw_total) = raw_rows(width, height, color);
    let blocks = raw_total.div_ceil(STORED_BLOCK);
    // zlib header, the blocks' headers and data, Adler-32.
    let idat_len = 2 + 5 * blocks + raw_total + 4;
    if idat_len > (u32::MAX >> 1) as usize {
        // One IDAT cannot hold it: the `png` crate splits it.
        let pixels = narrowed(rgba, color);
        return write_raw(w, width, height, pixels.as_deref().unwrap_or(rgba), color, STORED);
    }
    let mut head = png_head(width, height, color);
    head.extend_from_slice(&(idat_len as u32).to_be_bytes());
    head.extend_from_slice(b"IDAT\x78\x01");
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head[head.len() - 6..]);
    w.write_all(&head).map_err(io)?;

    let mut adler = simd_adler32::Adler32::new();
    // One block's header and data, then (after the last) the trailer; a row that does
    // not fit is finished in the next block (its tail moved to the front).
    let mut buf = vec![0u8; 5 + STORED_BLOCK + row_out + 1 + 20];
    let (mut fill, mut emitted) = (5usize, 0usize);
    let mut rows = rgba.chunks_exact(row_in);
    loop {
        // Rows into the block until it is full or the image ends.
        while fill < 5 + STORED_BLOCK {
            let Some(row) = rows.next() else { break };
            buf[fill] = 0;
            narrow_into(row, color, &mut buf[fill + 1..fill + 1 + row_out]);
            fill += 1 + row_out;
        }
        let n = (fill - 5).min(STORED_BLOCK);
        let last = emitted + n == raw_total;
        let len = n as u16;
        buf[..5].copy_from_slice(&[last as u8, len as u8, (len >> 8) as u8, !len as u8, (!len >> 8) as u8]);
        adler.write(&buf[5..5 + n]);
        let mut end = 5 + n;
        if last {
            buf[end..end + 4].copy_from_slice(&adler.finish().to_be_bytes());
            end += 4;
            crc.update(&buf[..end]);
            let crc = std::mem::take(&mut crc).finalize();
            buf[end..end + 4].copy_from_slice(&crc.to_be_bytes());
            end += 4;
            buf[end..end + 12].copy_from_slice(&IEND);
            end += 12;
            w.write_all(&buf[..end]).map_err(io)?;
            return Ok(());
        }
        crc.update(&buf[..end]);
        w.write_all(&buf[..end]).map_err(io)?;
        emitted += n;
        buf.copy_within(end..fill, 5);
        fill = 5 + (fill - end);
    }
}

/// A PNG chunk into `out`: length, type, data, CRC-32 of type and data.
fn chunk(out: &mut Vec<u8>, ty: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let at = out.len();
    out.extend_from_slice(ty);
    out.extend_from_slice(data);
    let crc = crc32fast::hash(&out[at..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// [`compresses_poorly`] of `rgba` in colour type `color`, narrowing only the sample
/// bands (the same decision as narrowing the whole image first).
pub fn sample_compresses_poorly(
    width: u32,
    height: u32,
    rgba: &[u8],
    color: png::ColorType,
) -> Result<bool, RasterError> {
    let h = height as usize;
    let row_in = width as usize * 4;
    let row = width as usize * channels(color);
    if h < 3 * SAMPLE_BAND_ROWS || 3 * SAMPLE_BAND_ROWS * row < MIN_SAMPLE_BYTES {
        return Ok(false);
    }
    let (mut raw, mut packed) = (0usize, 0usize);
    let mut png = Vec::new();
    for start in sample_starts(h) {
        // The band encoded as the image would be (narrowed row by row on the way).
        let src = &rgba[start * row_in..(start + SAMPLE_BAND_ROWS) * row_in];
        png.clear();
        write_fdeflate_png(&mut png, width, SAMPLE_BAND_ROWS as u32, src, color)?;
        raw += SAMPLE_BAND_ROWS * row;
        packed += png.len();
    }
    Ok(packed as f64 > MAX_SAMPLE_RATIO * raw as f64)
}

/// The first rows of the three sample bands of an image `h` rows high.
fn sample_starts(h: usize) -> [usize; 3] {
    [0, (h - SAMPLE_BAND_ROWS) / 2, h - SAMPLE_BAND_ROWS]
}

/// The settings of an image that does not compress: stored blocks (no filter).
pub const STORED: PngSettings = PngSettings {
    deflate: PngDeflate::Stored,
    filter: "none",
};

/// Rows per sample band of [`compresses_poorly`] (three bands: top, middle, bottom).
pub const SAMPLE_BAND_ROWS: usize = 8;

/// Fewest raw bytes of the three sample bands for a decision; a smaller image is left
/// to the encoder (which stores what it cannot shrink anyway).
pub const MIN_SAMPLE_BYTES: usize = 16 * 1024;

/// Largest share of their raw bytes the sample bands may compress to for the image to be
/// compressed; above it the image is stored ([`STORED`]).
pub const MAX_SAMPLE_RATIO: f64 = 0.8;

/// Do three bands of [`SAMPLE_BAND_ROWS`] rows (top, middle, bottom), each encoded with
/// [`PNG_SETTINGS`], compress to more than [`MAX_SAMPLE_RATIO`] of their raw bytes?
/// `pixels` are `height` rows of the colour type's bytes. Deterministic (the bands are
/// fixed by the size).
pub fn compresses_poorly(width: u32, height: u32, pixels: &[u8], color: png::ColorType) -> Result<bool, RasterError> {
    let h = height as usize;
    let row = pixels.len() / h.max(1);
    if h < 3 * SAMPLE_BAND_ROWS || 3 * SAMPLE_BAND_ROWS * row < MIN_SAMPLE_BYTES {
        return Ok(false);
    }
    let (mut raw, mut packed) = (0usize, 0usize);
    for start in sample_starts(h) {
        let band = &pixels[start * row..(start + SAMPLE_BAND_ROWS) * row];
        raw += band.len();
        packed += encode_raw(width, SAMPLE_BAND_ROWS as u32, band, color, PNG_SETTINGS)?.len();
    }
    Ok(packed as f64 > MAX_SAMPLE_RATIO * raw as f64)
}

/// `width·height·4` bytes, both sides non-zero.
fn check_rgba(width: u32, height: u32, rgba: &[u8]) -> Result<(), RasterError> {
    if width == 0 || height == 0 {
        return Err(RasterError::Empty { width, height });
    }
    let expected = (width as usize)
        .checked_mul(height as usize)
        .and_then(|n| n.checked_mul(4));
    if expected != Some(rgba.len()) {
        return Err(RasterError::BadBuffer {
            width,
            height,
            len: rgba.len(),
            expected: expected.unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

fn encode_raw(
    width: u32,
    height: u32,
    pixels: &[u8],
    color: png::ColorType,
    settings: PngSettings,
) -> Result<Vec<u8>, RasterError> {
    let mut out = Vec::new();
    write_raw(&mut out, width, height, pixels, color, settings)?;
    Ok(out)
}

fn write_raw(
    out: impl std::io::Write,
    width: u32,
    height: u32,
    pixels: &[u8],
    color: png::ColorType,
    settings: PngSettings,
) -> Result<(), RasterError> {
    {
        let mut enc = png::Encoder::new(out, width, height);
        enc.set_color(color);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_deflate_compression(match settings.deflate {
            PngDeflate::Stored => png::DeflateCompression::NoCompression,
            PngDeflate::Fdeflate => png::DeflateCompression::FdeflateUltraFast,
            PngDeflate::Level(l) => png::DeflateCompression::Level(l),
        });
        enc.set_filter(png_filter(settings.filter));
        let mut w = enc.write_header().map_err(|e| RasterError::Png(e.to_string()))?;
        w.write_image_data(pixels)
            .map_err(|e| RasterError::Png(e.to_string()))?;
        w.finish().map_err(|e| RasterError::Png(e.to_string()))?;
    }
    Ok(())
}

/// Encode as PNG (deterministic bytes). An inconsistent image (zero side, or a buffer
/// that is not `width·height·4` bytes, which `render_mesh` never produces) is encoded
/// as a single transparent pixel instead; use [`try_encode_png`] to get the error.
pub fn encode_png(img: &Image) -> Vec<u8> {
    try_encode_png(img).unwrap_or_else(|_| try_encode_png(&Image::filled(1, 1, [0; 4])).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    proptest! {
        /// Any number of pixels of any bytes, every narrower type: each pixel's kept
        /// channels in order (the vector steps, their bounds and the last pixels).
        #[test]
        fn narrowing_keeps_each_pixels_channels_in_order(rgba in proptest::collection::vec(any::<u8>(), 0..400), slack in 0usize..40) {
            let rgba = &rgba[..rgba.len() / 4 * 4];
            for (color, keep) in [
                (png::ColorType::Grayscale, &[0usize][..]),
                (png::ColorType::GrayscaleAlpha, &[0, 3]),
                (png::ColorType::Rgb, &[0, 1, 2]),
            ] {
                let plain: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| keep.iter().map(|&c| p[c])).collect();
                // Narrowed into a longer buffer's front: nothing written past it.
                let mut out = vec![0xA5u8; plain.len() + slack];
                narrow_into(rgba, color, &mut out[..plain.len()]);
                prop_assert_eq!(&out[..plain.len()], &plain[..], "{:?}", color);
                prop_assert!(out[plain.len()..].iter().all(|&b| b == 0xA5));
                prop_assert_eq!(narrowed(rgba, color).unwrap(), plain);
            }
        }

        /// Grey and opaque images of any length, with one byte changed anywhere or not:
        /// the colour type is the plain definition's (grey when R = G = B everywhere,
        /// opaque when every alpha is 255), whichever pixel breaks it.
        #[test]
        fn the_colour_type_is_the_definitions(pixels in 0usize..3000, seed: u32, at: usize, to: u8, alpha: bool) {
            let mut s = seed | 1;
            let mut rgba: Vec<u8> = (0..pixels)
                .flat_map(|_| {
                    s ^= s << 13;
                    s ^= s >> 17;
                    s ^= s << 5;
                    let g = s as u8;
                    [g, g, g, if alpha { (s >> 8) as u8 | 0xF0 } else { 255 }]
                })
                .collect();
            if let Some(b) = rgba.len().checked_sub(1).map(|n| &mut rgba[at % (n + 1)]) {
                *b = to;
            }
            let grey = rgba.chunks_exact(4).all(|p| p[0] == p[1] && p[1] == p[2]);
            let opaque = rgba.chunks_exact(4).all(|p| p[3] == 255);
            let want = match (grey, opaque) {
                (true, true) => png::ColorType::Grayscale,
                (true, false) => png::ColorType::GrayscaleAlpha,
                (false, true) => png::ColorType::Rgb,
                (false, false) => png::ColorType::Rgba,
            };
            prop_assert_eq!(compact_color(&rgba), want);
            // Seen in two pieces split at any pixel: the same type.
            let cut = 4 * (at % (pixels + 1));
            let mut scan = ColorScan::new();
            scan.update(&rgba[..cut]);
            scan.update(&rgba[cut..]);
            prop_assert_eq!(scan.color(), want);
        }
    }
}

#[cfg(test)]
mod store_tests {
    use super::*;

    /// The colour type and raw sample bytes a PNG decoder reads back.
    fn decode(png_bytes: &[u8]) -> (png::ColorType, Vec<u8>) {
        let mut r = png::Decoder::new(std::io::Cursor::new(png_bytes)).read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info.color_type, buf)
    }

    fn image(w: u32, h: u32, mut px: impl FnMut(u32, u32) -> [u8; 4]) -> Vec<u8> {
        let mut out = Vec::new();
        for y in 0..h {
            for x in 0..w {
                out.extend(px(x, y));
            }
        }
        out
    }

    #[test]
    fn incompressible_texels_are_stored_smooth_ones_compressed_both_exact() {
        let (w, h) = (256u32, 64u32);
        // xorshift noise (opaque: RGB), and a gradient.
        let mut s = 0x9E37_79B9u32;
        let noise: Vec<u8> = image(w, h, |_, _| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let b = s.to_le_bytes();
            [b[0], b[1], b[2], 255]
        });
        let smooth = image(w, h, |x, y| [x as u8, y as u8, 7, 255]);
        let raw = (w * h * 3) as usize;
        for (rgba, stored) in [(&noise, true), (&smooth, false)] {
            let rgb: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
            assert_eq!(compresses_poorly(w, h, &rgb, png::ColorType::Rgb).unwrap(), stored);
            let bytes = try_encode_png_compact(w, h, rgba).unwrap();
            assert_eq!(decode(&bytes), (png::ColorType::Rgb, rgb.clone()));
            if stored {
                // Stored blocks: the raw rows plus framing, and byte for byte what the
                // stored setting writes.
                assert!(bytes.len() > raw && bytes.len() < raw + raw / 50, "{}", bytes.len());
                assert_eq!(bytes, encode_raw(w, h, &rgb, png::ColorType::Rgb, STORED).unwrap());
            } else {
                assert!(bytes.len() < raw / 10, "{}", bytes.len());
                assert_eq!(
                    bytes,
                    encode_raw(w, h, &rgb, png::ColorType::Rgb, PNG_SETTINGS).unwrap()
                );
            }
        }
    }

    #[test]
    fn small_images_are_left_to_the_encoder() {
        // Fewer rows than three bands, or fewer sample bytes than the minimum: no sample.
        let noise: Vec<u8> = (0..40 * 20 * 3).map(|i| (i * 7919 % 251) as u8).collect();
        assert!(!compresses_poorly(40, 20, &noise, png::ColorType::Rgb).unwrap());
        let narrow: Vec<u8> = (0..8 * 200 * 3).map(|i| (i * 7919 % 251) as u8).collect();
        assert!(!compresses_poorly(8, 200, &narrow, png::ColorType::Rgb).unwrap());
    }
}

#[cfg(test)]
mod stored_writer_tests {
    use super::*;
    use proptest::prelude::*;

    /// The RGBA8 pixels a PNG decoder reads back (colour type expanded by the PNG rules).
    fn decode_rgba(png_bytes: &[u8]) -> Vec<u8> {
        let mut r = png::Decoder::new(std::io::Cursor::new(png_bytes)).read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        match info.color_type {
            png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            png::ColorType::GrayscaleAlpha => buf.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
            png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
            _ => buf,
        }
    }

    /// A `w × h` image of colour class `class` (0 grey, 1 grey + alpha, 2 RGB, 3 RGBA)
    /// from a seed: every pixel fits the class, and pixels differ.
    fn image(w: u32, h: u32, class: u8, seed: u32) -> Vec<u8> {
        let mut s = seed | 1;
        (0..w * h)
            .flat_map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                let b = s.to_le_bytes();
                match class {
                    0 => [b[0], b[0], b[0], 255],
                    1 => [b[0], b[0], b[0], b[3]],
                    2 => [b[0], b[1], b[2], 255],
                    _ => b,
                }
            })
            .collect()
    }

    fn stored(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        write_stored_png(&mut out, w, h, rgba, compact_color(rgba)).unwrap();
        out
    }

    /// What the `png` crate writes with [`STORED`] for the same narrowed pixels.
    fn crate_stored(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
        let color = compact_color(rgba);
        let pixels = narrowed(rgba, color);
        encode_raw(w, h, pixels.as_deref().unwrap_or(rgba), color, STORED).unwrap()
    }

    #[test]
    fn stored_bytes_are_the_png_crates_at_every_block_boundary() {
        // Raw stream lengths (rows · (1 + row bytes)) below, at and around one and two
        // 65 535-byte blocks, rows wider than a block, one pixel, every colour type.
        let sizes = [
            (1, 1),
            (3, 2),
            (254, 257), // grey: 255 · 257 = 65 535 raw bytes, one full block
            (254, 514), // two full blocks
            (254, 258),
            (255, 257),
            (17, 3855),  // RGB: 52 · 3 855 = 200 460
            (20_000, 2), // a row of 80 001 bytes (RGBA): wider than a block
            (16_384, 3),
            (512, 64),
        ];
        for (w, h) in sizes {
            for class in 0..4 {
                let rgba = image(w, h, class, w ^ h << 8 ^ u32::from(class));
                let ours = stored(w, h, &rgba);
                assert_eq!(ours, crate_stored(w, h, &rgba), "{w}×{h} class {class}");
                assert_eq!(decode_rgba(&ours), rgba, "{w}×{h} class {class}");
            }
        }
    }

    #[test]
    fn a_stored_png_has_fixed_framing() {
        // Golden bytes: a 1×1 grey pixel of value 7.
        let ours = stored(1, 1, &[7, 7, 7, 255]);
        let mut want = vec![137, 80, 78, 71, 13, 10, 26, 10];
        want.extend([0, 0, 0, 13]);
        want.extend(b"IHDR");
        want.extend([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
        want.extend(crc32fast::hash(&want[12..]).to_be_bytes());
        let at = want.len();
        // zlib 78 01; one final stored block of 2 bytes (filter 0, the pixel); Adler-32.
        want.extend([0, 0, 0, 2 + 5 + 2 + 4]);
        want.extend(b"IDAT");
        want.extend([0x78, 0x01, 1, 2, 0, 0xFD, 0xFF, 0, 7]);
        // Adler-32 of [0, 7]: a = 1 + 0 + 7 = 8, b = (1 + 0) + (1 + 0 + 7) = 9.
        want.extend([0x00, 0x09, 0x00, 0x08]);
        let crc = crc32fast::hash(&want[at + 4..]);
        want.extend(crc.to_be_bytes());
        want.extend([0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82]);
        assert_eq!(ours, want);
    }

    #[test]
    fn compact_png_stores_noise_through_the_one_pass_writer() {
        // Noise large enough to be sampled: stored, byte for byte the crate's stored PNG.
        for class in 0..4 {
            let (w, h) = (1000, 30); // grey too: 24 sample rows of 1 000 bytes ≥ 16 KiB
            let rgba = image(w, h, class, 99 + u32::from(class));
            let png = try_encode_png_compact(w, h, &rgba).unwrap();
            assert!(sample_compresses_poorly(w, h, &rgba, compact_color(&rgba)).unwrap());
            assert_eq!(png, crate_stored(w, h, &rgba), "class {class}");
            assert_eq!(decode_rgba(&png), rgba);
        }
    }

    /// What the `png` crate writes with [`PNG_SETTINGS`] for the same narrowed pixels.
    fn crate_fdeflate(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
        let color = compact_color(rgba);
        let pixels = narrowed(rgba, color);
        encode_raw(w, h, pixels.as_deref().unwrap_or(rgba), color, PNG_SETTINGS).unwrap()
    }

    fn fdeflated(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        write_fdeflate_png(&mut out, w, h, rgba, compact_color(rgba)).unwrap();
        out
    }

    #[test]
    fn the_paeth_predictor_is_the_specifications_for_every_input() {
        // PNG specification 9.4, in wide signed arithmetic.
        let spec = |a: u8, b: u8, c: u8| {
            let p = i32::from(a) + i32::from(b) - i32::from(c);
            let (pa, pb, pc) = (
                (p - i32::from(a)).abs(),
                (p - i32::from(b)).abs(),
                (p - i32::from(c)).abs(),
            );
            if pa <= pb && pa <= pc {
                a
            } else if pb <= pc {
                b
            } else {
                c
            }
        };
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                for c in 0..=255u8 {
                    assert_eq!(paeth(a, b, c), spec(a, b, c), "{a} {b} {c}");
                }
            }
        }
    }

    #[test]
    fn the_fused_writer_writes_the_crates_bytes_compressed_and_fallen_back() {
        // Smooth images compress; noise falls back to stored blocks; rows shorter and
        // longer than a vector step, every colour type, one pixel.
        for (w, h) in [(1, 1), (7, 3), (33, 9), (256, 64), (1000, 30)] {
            for class in 0..4 {
                let noise = image(w, h, class, w ^ h << 8 ^ u32::from(class));
                let smooth: Vec<u8> = noise
                    .chunks_exact(4)
                    .enumerate()
                    .flat_map(|(i, p)| {
                        let q = (i / 5) as u8;
                        [
                            q,
                            if class < 2 { q } else { p[1] / 64 },
                            if class < 2 { q } else { 3 },
                            p[3] | 0xF0,
                        ]
                    })
                    .collect();
                for rgba in [noise, smooth] {
                    let ours = fdeflated(w, h, &rgba);
                    assert_eq!(ours, crate_fdeflate(w, h, &rgba), "{w}×{h} class {class}");
                    assert_eq!(decode_rgba(&ours), rgba, "{w}×{h} class {class}");
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any image, any size and colour type, smooth or noisy: the fused writer's bytes
        /// are the crate's with [`PNG_SETTINGS`].
        #[test]
        fn the_fused_writer_is_the_crates_on_any_image(w in 1u32..300, h in 1u32..40, class in 0u8..4, seed: u32, period in 1usize..9) {
            let mut rgba = image(w, h, class, seed);
            // Pixels repeated `period` times: from noise (1) to runs that compress.
            for i in (0..rgba.len() / 4).rev() {
                let j = i - i % period;
                let p: [u8; 4] = rgba[4 * j..4 * j + 4].try_into().unwrap();
                rgba[4 * i..4 * i + 4].copy_from_slice(&p);
            }
            prop_assert_eq!(fdeflated(w, h, &rgba), crate_fdeflate(w, h, &rgba));
            // RGBA whatever the pixels hold (the previews' encoding).
            let img = Image { width: w, height: h, rgba };
            prop_assert_eq!(try_encode_png(&img).unwrap(), try_encode_png_with(&img, PNG_SETTINGS).unwrap());
        }

        /// Any image, stored by the one-pass writer or compressed: a PNG decoder gives
        /// back its RGBA, and the stored bytes are the crate's.
        #[test]
        fn every_image_round_trips(w in 1u32..200, h in 1u32..120, class in 0u8..4, seed: u32, smooth: bool) {
            let mut rgba = image(w, h, class, seed);
            if smooth {
                // Runs of equal pixels, which compress.
                for (i, p) in rgba.chunks_exact_mut(4).enumerate() {
                    let q = (i / 7) as u8;
                    let (g, b) = if class < 2 { (q, q) } else { (q / 2, 9) };
                    p[..3].copy_from_slice(&[q, g, b]);
                }
            }
            let stored_png = stored(w, h, &rgba);
            prop_assert_eq!(&stored_png, &crate_stored(w, h, &rgba));
            prop_assert_eq!(decode_rgba(&stored_png), rgba.clone());
            prop_assert_eq!(decode_rgba(&try_encode_png_compact(w, h, &rgba).unwrap()), rgba);
        }
    }
}
