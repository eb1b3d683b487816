//! Integration tests of the rasterizer `xbg7-preview`: renders, previews, stage grids.
//!
//! One test binary per crate (each module below was a binary of its own: linking one
//! instead of many is most of the test build's time).

mod shapes;

mod raster_preview;
mod raster_render;
mod raster_texture;
