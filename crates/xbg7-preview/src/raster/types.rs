//! The rasterizer's fixed parameters (camera angles, limits, colours, light, the
//! fixed-point and lane constants the coverage kernels share) and the render options
//! with their clamping.

/// Camera yaw in degrees: rotation around +Y (glTF frame) from +Z towards +X.
pub const YAW_DEG: f64 = 35.0;
/// Camera pitch in degrees: elevation above the XZ plane (looking down).
pub const PITCH_DEG: f64 = 25.0;
/// Fraction of the image left free on each side by the auto-fit.
pub const MARGIN: f64 = 0.06;
/// Largest accepted output size (larger requests are clamped).
pub const MAX_SIZE: u32 = 4096;
/// Largest accepted supersampling factor per axis.
pub const MAX_SUPERSAMPLE: u32 = 8;
/// Largest sample-grid side; the supersampling factor is lowered to stay within it
/// (bounds the z-buffer to 4096² × 8 bytes = 128 MiB).
pub const MAX_SAMPLES_PER_AXIS: u32 = 4096;
/// Material colour (sRGB bytes): a light grey-blue.
pub const MATERIAL_SRGB: [u8; 3] = [186, 198, 218];
/// Wireframe overlay colour (sRGB bytes).
pub const WIRE_SRGB: [u8; 3] = [38, 46, 62];
/// Ambient light intensity.
pub const AMBIENT: f32 = 0.30;
/// Key light intensity.
pub const KEY: f32 = 0.70;
/// Key light direction in view space (x right, y up, z towards the viewer), unnormalised:
/// from the upper left, in front.
pub const KEY_DIR_VIEW: [f32; 3] = [-0.45, 0.60, 0.66];
/// Half width of the wireframe lines, in output pixels.
pub const WIRE_HALF_WIDTH: f32 = 0.6;

// cos/sin of YAW_DEG and PITCH_DEG as literals: `f64::sin` may differ by an ulp between
// platforms' libm, these never do (a unit test checks them against the trigonometry).
pub(super) const COS_YAW: f64 = 0.819_152_044_288_991_8;
pub(super) const SIN_YAW: f64 = 0.573_576_436_351_046;
pub(super) const COS_PITCH: f64 = 0.906_307_787_036_649_9;
pub(super) const SIN_PITCH: f64 = 0.422_618_261_740_699_44;

/// Fixed-point sub-sample resolution of the edge functions (8 bits).
pub(super) const SUB: i64 = 256;
/// Sample-rectangle width below which [`raster_tri`] tests samples one by one.
pub(super) const SMALL_SPAN: i64 = 4;
/// Sample id of "no triangle".
pub(super) const NO_TRI: u32 = u32::MAX;
/// Samples per row that [`fill_narrow`] tests at once (a narrow triangle's whole row).
pub(super) const LANES: usize = 4;
/// Largest fixed-point extent (both axes) of a triangle [`fill_narrow`] takes: its edge
/// functions then fit in `i32` (|w| < 2·(64·SUB + 4·SUB)² < 2³¹).
pub(super) const NARROW_EXTENT: i64 = 64 * SUB;

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

/// Effective `(size, supersample)` after clamping to the documented limits.
pub fn effective_dims(opts: &RenderOptions) -> (u32, u32) {
    let size = opts.size.clamp(1, MAX_SIZE);
    let ss = opts
        .supersample
        .clamp(1, MAX_SUPERSAMPLE)
        .min((MAX_SAMPLES_PER_AXIS / size).max(1));
    (size, ss)
}
