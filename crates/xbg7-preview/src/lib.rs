//! xbg7-preview: a deterministic software rasterizer for decoded XBG7 meshes. `raster`
//! renders one mesh (camera, coverage with SSE2 kernels, albedo sampling, shading,
//! resolve) into an RGBA image and encodes PNGs; `preview` lays a stage's meshes out as
//! a grid of cells. Pure: images in memory, PNG bytes out.

pub mod preview;
pub mod raster;
