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

/// Encode as PNG (RGBA8, fixed compression and filter settings: deterministic bytes).
pub fn try_encode_png(img: &Image) -> Result<Vec<u8>, RasterError> {
    try_encode_png_with(img, PNG_SETTINGS)
}

/// [`try_encode_png`] with explicit encoder settings (for measuring them).
pub fn try_encode_png_with(img: &Image, settings: PngSettings) -> Result<Vec<u8>, RasterError> {
    check_rgba(img.width, img.height, &img.rgba)?;
    encode_raw(img.width, img.height, &img.rgba, png::ColorType::Rgba, settings)
}

/// The narrowest PNG colour type that holds RGBA8 pixels exactly: grey when every pixel
/// has R = G = B, without alpha when every alpha is 255.
pub fn compact_color(rgba: &[u8]) -> png::ColorType {
    let (mut grey, mut opaque) = (true, true);
    // Per pixel as a little-endian u32 (R in the low byte): the AND of every alpha and the
    // OR of every R^G, G^B, reduced over 1 024 pixels at a time (bitwise only, so the
    // compiler vectorises it); stop once neither type can hold.
    for block in rgba.chunks(4096) {
        let (and, or) = block.chunks_exact(4).fold((u32::MAX, 0u32), |(and, or), p| {
            let x = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
            (and & x, or | ((x ^ (x >> 8)) & 0xFFFF))
        });
        (grey, opaque) = (grey & (or == 0), opaque & (and >> 24 == 0xFF));
        if !grey && !opaque {
            break;
        }
    }
    match (grey, opaque) {
        (true, true) => png::ColorType::Grayscale,
        (true, false) => png::ColorType::GrayscaleAlpha,
        (false, true) => png::ColorType::Rgb,
        (false, false) => png::ColorType::Rgba,
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
pub fn write_png_compact(w: impl std::io::Write, width: u32, height: u32, rgba: &[u8]) -> Result<(), RasterError> {
    check_rgba(width, height, rgba)?;
    let color = compact_color(rgba);
    let narrowed = match color {
        png::ColorType::Grayscale => Some(narrow::<1>(rgba, [0, 0, 0])),
        png::ColorType::GrayscaleAlpha => Some(narrow::<2>(rgba, [0, 3, 0])),
        png::ColorType::Rgb => Some(narrow::<3>(rgba, [0, 1, 2])),
        _ => None,
    };
    let pixels = narrowed.as_deref().unwrap_or(rgba);
    let settings = if compresses_poorly(width, height, pixels, color)? {
        STORED
    } else {
        PNG_SETTINGS
    };
    write_raw(w, width, height, pixels, color, settings)
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
    for start in [0, (h - SAMPLE_BAND_ROWS) / 2, h - SAMPLE_BAND_ROWS] {
        let band = &pixels[start * row..(start + SAMPLE_BAND_ROWS) * row];
        raw += band.len();
        packed += encode_raw(width, SAMPLE_BAND_ROWS as u32, band, color, PNG_SETTINGS)?.len();
    }
    Ok(packed as f64 > MAX_SAMPLE_RATIO * raw as f64)
}

/// The channels `keep[..N]` of every RGBA pixel, in fixed-size steps the compiler unrolls
/// (RGB, the common case, four pixels at a time in [`rgb`]).
fn narrow<const N: usize>(rgba: &[u8], keep: [usize; 3]) -> Vec<u8> {
    if N == 3 && keep == [0, 1, 2] {
        return rgb(rgba);
    }
    let mut out = Vec::with_capacity(rgba.len() / 4 * N);
    out.extend(
        rgba.chunks_exact(4)
            .flat_map(|p| std::array::from_fn::<u8, N, _>(|c| p[keep[c]])),
    );
    out
}

/// RGBA → RGB: four pixels (16 bytes) as one u128 whose alpha bytes are squeezed out by
/// shifts and masks (bytes stay in order), 12 bytes written; then the last pixels.
fn rgb(rgba: &[u8]) -> Vec<u8> {
    // Appended, not written into a zeroed buffer: zeroing it first cost as much again.
    let mut out = Vec::with_capacity(rgba.len() / 4 * 3);
    let mut quads = rgba.chunks_exact(16);
    for src in &mut quads {
        let x = u128::from_le_bytes(src.try_into().expect("16 bytes"));
        const P: u128 = 0xFF_FFFF;
        let y = (x & P) | ((x >> 8) & (P << 24)) | ((x >> 16) & (P << 48)) | ((x >> 24) & (P << 72));
        out.extend_from_slice(&y.to_le_bytes()[..12]);
    }
    for p in quads.remainder().chunks_exact(4) {
        out.extend_from_slice(&p[..3]);
    }
    out
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

    #[test]
    fn rgb_drops_every_alpha_byte_and_keeps_the_order() {
        // Every pixel count up to 41 (whole quads, and 1–3 pixels after them).
        for n in 0..42usize {
            let rgba: Vec<u8> = (0..4 * n).map(|i| (i * 37 + n) as u8).collect();
            let plain: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
            assert_eq!(rgb(&rgba), plain, "{n} pixels");
            assert_eq!(narrow::<3>(&rgba, [0, 1, 2]), plain);
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
