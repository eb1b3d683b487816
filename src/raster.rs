//! Software rasterizer: orthographic, z-buffered, two-sided Lambert, supersampled; RGBA8
//! images and PNG encoding. No GPU, deterministic to the byte.

use crate::mesh::Mesh;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Background {
    Transparent,
    Solid([u8; 4]),
}

#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Output width and height in pixels.
    pub size: u32,
    /// Supersampling factor per axis (2 = 2×2).
    pub supersample: u32,
    pub background: Background,
    pub wireframe: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            size: 512,
            supersample: 2,
            background: Background::Transparent,
            wireframe: false,
        }
    }
}

/// An RGBA8 image, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Render a mesh (file frame) at the fixed three-quarter view, auto-fitted.
pub fn render_mesh(mesh: &Mesh, opts: &RenderOptions) -> Image {
    let _ = (mesh, opts);
    todo!("raster helper")
}

/// Encode as PNG (deterministic bytes).
pub fn encode_png(img: &Image) -> Vec<u8> {
    let _ = img;
    todo!("raster helper")
}
