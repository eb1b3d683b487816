//! The RGBA image every render produces and its PNG encoding (one encoder for the whole
//! tool, fixed settings, deterministic bytes; the settings `bench --png` compares).

use super::*;

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
    if img.width == 0 || img.height == 0 {
        return Err(RasterError::Empty {
            width: img.width,
            height: img.height,
        });
    }
    let expected = (img.width as usize)
        .checked_mul(img.height as usize)
        .and_then(|n| n.checked_mul(4));
    if expected != Some(img.rgba.len()) {
        return Err(RasterError::BadBuffer {
            width: img.width,
            height: img.height,
            len: img.rgba.len(),
            expected: expected.unwrap_or(usize::MAX),
        });
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, img.width, img.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_deflate_compression(match settings.deflate {
            PngDeflate::Stored => png::DeflateCompression::NoCompression,
            PngDeflate::Fdeflate => png::DeflateCompression::FdeflateUltraFast,
            PngDeflate::Level(l) => png::DeflateCompression::Level(l),
        });
        enc.set_filter(png_filter(settings.filter));
        let mut w = enc.write_header().map_err(|e| RasterError::Png(e.to_string()))?;
        w.write_image_data(&img.rgba)
            .map_err(|e| RasterError::Png(e.to_string()))?;
        w.finish().map_err(|e| RasterError::Png(e.to_string()))?;
    }
    Ok(out)
}

/// Encode as PNG (deterministic bytes). An inconsistent image (zero side, or a buffer
/// that is not `width·height·4` bytes, which [`render_mesh`] never produces) is encoded
/// as a single transparent pixel instead; use [`try_encode_png`] to get the error.
pub fn encode_png(img: &Image) -> Vec<u8> {
    try_encode_png(img).unwrap_or_else(|_| try_encode_png(&Image::filled(1, 1, [0; 4])).unwrap_or_default())
}
