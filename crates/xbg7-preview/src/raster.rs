//! Software rasterizer: orthographic, z-buffered, two-sided Lambert, supersampled; RGBA8
//! images and PNG encoding. No GPU, deterministic to the byte.
//!
//! This module owns the look of every preview: the fixed camera, the shading model, the
//! sample grid and the PNG encoding. It never fails: bad geometry is skipped, never a panic.
//!
//! # Frames and camera
//!
//! A [`Mesh`] is in the file frame (Direct3D, left-handed, +Y up). Previews show the mesh
//! as the glTF export looks after its default axis flip, **Z mirrored**
//! (`(x, y, z) → (x, y, −z)`, [`file_to_gltf`]), so a preview matches what Blender shows.
//! In that right-handed, +Y-up frame the camera sits on the front-right-above side at the
//! fixed three-quarter view [`YAW_DEG`] (around +Y, from +Z towards +X) and [`PITCH_DEG`]
//! (elevation), see [`view_basis`]. The projection is orthographic. The view is
//! auto-fitted: the screen-space bounding box of every drawn vertex is centred and scaled
//! so that its larger side spans `(1 − 2·MARGIN)` of the image ([`Camera::fit`]); aspect
//! is preserved.
//!
//! # Rasterization and shading
//!
//! The image is rendered at `size·supersample` samples per axis, sample centres at
//! half-integers. Triangles are scan-converted over their bounding box with integer edge
//! functions on a 1/256-sample fixed-point grid and the top-left rule (watertight: no
//! holes, no double hits along shared edges), z-tested against a per-sample depth buffer
//! (closer wins, first triangle wins ties), and no face is culled. A second pass shades
//! each triangle a pixel sees once, at the centroid of its samples in that pixel (the
//! pixel centre when one triangle covers the pixel), weighted by their count; with the
//! wireframe overlay, every sample. Lighting is per vertex (Gouraud): each decoded
//! normal, flipped towards the viewer when it faces away (two-sided lighting), gives the
//! intensity `AMBIENT + KEY · max(0, n·L)`, interpolated across the triangle (the face
//! normal's intensity when the mesh has no normals or a vertex normal is unusable), and
//! `colour = ALBEDO · intensity` in linear light, where ALBEDO is
//! [`MATERIAL_SRGB`], or, in [`render_mesh_textured`] for a primitive given a texture,
//! the texture sampled at the interpolated `TEXCOORD_0` (see *Textures*). Samples are
//! box-averaged with premultiplied alpha and converted to 8-bit with a γ = 2 curve
//! (`sqrt`, correctly rounded everywhere, so no `powf` platform drift).
//!
//! # Textures
//!
//! [`render_mesh_textured`] takes one optional RGBA8 [`Texture`] per primitive (its
//! albedo). A triangle of such a primitive whose three `TEXCOORD_0` values are finite is
//! textured: UV (top-left origin, as glTF) is interpolated with the sample's barycentrics
//! (exact under the orthographic projection), wrapped (repeat, glTF's default sampler)
//! and sampled bilinearly in linear light (texels through the same γ = 2 curve) from one
//! level of a box-filtered mip chain chosen per triangle from its texels per pixel (the
//! smallest level with at most 2×2 texels per pixel, so minified textures do not
//! sparkle; a texture larger than [`MAX_TEXTURE_SIDE`] is box-filtered down by a power of
//! two first, bounding the per-render copy). Texture alpha is ignored (glTF's default
//! `OPAQUE`). Other triangles, and every triangle of [`render_mesh`], use the plain
//! material: untextured renders are unchanged by this path.
//!
//! # Robustness and determinism
//!
//! Triangles with an out-of-range index or a non-finite (NaN/inf) vertex are skipped and
//! do not take part in the fit. Empty and zero-extent meshes give the bare background.
//! All arithmetic runs in a fixed order on one thread, the trigonometric constants are
//! literals, so the same input gives identical bytes.

use serde::Serialize;
use xbg7::mesh::Mesh;

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
const COS_YAW: f64 = 0.819_152_044_288_991_8;
const SIN_YAW: f64 = 0.573_576_436_351_046;
const COS_PITCH: f64 = 0.906_307_787_036_649_9;
const SIN_PITCH: f64 = 0.422_618_261_740_699_44;

/// Fixed-point sub-sample resolution of the edge functions (8 bits).
const SUB: i64 = 256;
/// Sample-rectangle width below which [`raster_tri`] tests samples one by one.
const SMALL_SPAN: i64 = 4;
/// Sample id of "no triangle".
const NO_TRI: u32 = u32::MAX;
/// Samples per row that [`fill_narrow`] tests at once (a narrow triangle's whole row).
const LANES: usize = 4;
/// Largest fixed-point extent (both axes) of a triangle [`fill_narrow`] takes: its edge
/// functions then fit in `i32` (|w| < 2·(64·SUB + 4·SUB)² < 2³¹).
const NARROW_EXTENT: i64 = 64 * SUB;

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

/// The file frame → glTF frame conversion previews use: the exporter's default Z mirror.
pub fn file_to_gltf(p: [f32; 3]) -> [f64; 3] {
    [p[0] as f64, p[1] as f64, -(p[2] as f64)]
}

/// Orthonormal camera basis in the glTF frame: `[right, up, towards_viewer]`
/// (right-handed: `right × up = towards_viewer`).
pub fn view_basis() -> [[f64; 3]; 3] {
    let right = [COS_YAW, 0.0, -SIN_YAW];
    let up = [-SIN_YAW * SIN_PITCH, COS_PITCH, -COS_YAW * SIN_PITCH];
    let toward = [SIN_YAW * COS_PITCH, SIN_PITCH, COS_YAW * COS_PITCH];
    [right, up, toward]
}

/// View-space coordinates `(right, up, towards viewer)` of a file-frame vector.
pub fn view_coords(p_file: [f32; 3]) -> [f64; 3] {
    let g = file_to_gltf(p_file);
    let b = view_basis();
    [dot3(g, b[0]), dot3(g, b[1]), dot3(g, b[2])]
}

fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The fitted orthographic camera of one render.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Output image side in pixels.
    pub size: u32,
    /// View-space point mapped to the image centre (depth component: mid depth).
    pub center: [f64; 3],
    /// Output pixels per model unit.
    pub scale: f64,
}

impl Camera {
    /// Fit the fixed view to the drawable triangles of `mesh` (see the module doc).
    /// A mesh with nothing drawable gets the identity fit (scale 1, centred on the origin).
    pub fn fit(mesh: &Mesh, size: u32) -> Camera {
        let views = view_vertices(mesh);
        fit_views(mesh, &views, size.clamp(1, MAX_SIZE), &mut Vec::new())
    }

    /// Output-pixel position of a file-frame point: `[x right, y down, depth]`, depth in
    /// pixels relative to the fitted centre, larger = closer to the viewer.
    pub fn project(&self, p_file: [f32; 3]) -> [f64; 3] {
        self.project_view(view_coords(p_file))
    }

    fn project_view(&self, v: [f64; 3]) -> [f64; 3] {
        let half = self.size as f64 / 2.0;
        [
            half + (v[0] - self.center[0]) * self.scale,
            half - (v[1] - self.center[1]) * self.scale,
            (v[2] - self.center[2]) * self.scale,
        ]
    }
}

/// View coordinates of every vertex into `out`; a non-finite position gets NaN
/// coordinates (see [`is_view`]).
fn view_vertices_into(mesh: &Mesh, out: &mut Vec<[f64; 3]>) {
    out.clear();
    out.extend(mesh.positions.iter().map(|p| {
        if p.iter().all(|c| c.is_finite()) {
            view_coords(*p)
        } else {
            [f64::NAN; 3]
        }
    }));
}

fn view_vertices(mesh: &Mesh) -> Vec<[f64; 3]> {
    let mut v = Vec::new();
    view_vertices_into(mesh, &mut v);
    v
}

/// A usable view-space vertex (its position was finite).
fn is_view(v: &[f64; 3]) -> bool {
    !v[0].is_nan()
}

/// The drawable triangles (indices in range, vertices finite): triangle number (position
/// in the index list / 3) and index triple.
fn drawable<'a>(mesh: &'a Mesh, views: &'a [[f64; 3]]) -> impl Iterator<Item = (usize, [usize; 3])> + 'a {
    mesh.indices.chunks_exact(3).enumerate().filter_map(move |(k, t)| {
        let ix = [t[0] as usize, t[1] as usize, t[2] as usize];
        ix.iter().all(|&i| views.get(i).is_some_and(is_view)).then_some((k, ix))
    })
}

/// The camera fitted to the vertices of the drawable triangles. `used` is a work buffer
/// (one flag per vertex), so each vertex is measured once however many triangles share it.
fn fit_views(mesh: &Mesh, views: &[[f64; 3]], size: u32, used: &mut Vec<bool>) -> Camera {
    used.clear();
    used.resize(views.len(), false);
    for (_, ix) in drawable(mesh, views) {
        for i in ix {
            used[i] = true;
        }
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut any = false;
    for (v, _) in views.iter().zip(used.iter()).filter(|(_, u)| **u) {
        any = true;
        for k in 0..3 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    if !any {
        return Camera {
            size,
            center: [0.0; 3],
            scale: 1.0,
        };
    }
    let center = [
        lo[0] * 0.5 + hi[0] * 0.5,
        lo[1] * 0.5 + hi[1] * 0.5,
        lo[2] * 0.5 + hi[2] * 0.5,
    ];
    let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    let avail = size as f64 * (1.0 - 2.0 * MARGIN);
    let scale = avail / extent;
    let scale = if extent > 0.0 && scale.is_finite() { scale } else { 1.0 };
    Camera { size, center, scale }
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

fn srgb_to_linear(c: u8) -> f32 {
    let x = c as f32 / 255.0;
    x * x
}

fn linear_to_srgb8(x: f32) -> u8 {
    let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    (x.sqrt() * 255.0 + 0.5) as u8
}

fn normalize3(v: [f32; 3]) -> Option<[f32; 3]> {
    let l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if !l2.is_finite() || l2 <= 1e-12 {
        return None;
    }
    let inv = 1.0 / l2.sqrt();
    Some([v[0] * inv, v[1] * inv, v[2] * inv])
}

/// Fixed shading parameters, prepared once per render.
struct Shader {
    material: [f32; 3],
    wire: [f32; 3],
    light: [f32; 3],
}

impl Shader {
    fn new() -> Shader {
        let m = MATERIAL_SRGB.map(srgb_to_linear);
        let w = WIRE_SRGB.map(srgb_to_linear);
        let light = normalize3(KEY_DIR_VIEW).unwrap_or([0.0, 0.0, 1.0]);
        Shader {
            material: m,
            wire: w,
            light,
        }
    }

    /// Linear colour of a view-space unit normal, two-sided.
    fn lambert(&self, n: [f32; 3]) -> [f32; 3] {
        self.lambert_albedo(n, self.material)
    }

    /// Linear colour of a view-space unit normal with a linear albedo, two-sided.
    fn lambert_albedo(&self, n: [f32; 3], albedo: [f32; 3]) -> [f32; 3] {
        let i = self.intensity(n);
        [albedo[0] * i, albedo[1] * i, albedo[2] * i]
    }

    /// Light intensity `AMBIENT + KEY · max(0, n·L)` of a view-space unit normal, flipped
    /// towards the viewer first (two-sided).
    fn intensity(&self, n: [f32; 3]) -> f32 {
        let n = if n[2] < 0.0 { [-n[0], -n[1], -n[2]] } else { n };
        let ndl = n[0] * self.light[0] + n[1] * self.light[1] + n[2] * self.light[2];
        AMBIENT + KEY * ndl.max(0.0)
    }
}

/// The sRGB colour a fully covered pixel of a flat surface with this file-frame normal gets
/// at the fixed view (two-sided: `n` and `−n` give the same colour). A rendered pixel
/// matches it to within 1 per channel (float averaging of the samples).
pub fn shade_color(normal_file: [f32; 3]) -> [u8; 3] {
    let v = view_coords(normal_file);
    let n = normalize3([v[0] as f32, v[1] as f32, v[2] as f32]).unwrap_or([0.0, 0.0, 1.0]);
    Shader::new().lambert(n).map(linear_to_srgb8)
}

/// Monotonic map of a (non-NaN) f32 to i32: `a < b ⇔ depth_key(a) < depth_key(b)`;
/// every value, even −inf, maps above [`EMPTY_DEPTH`].
fn depth_key(z: f32) -> i32 {
    let b = z.to_bits() as i32;
    // Negative: the magnitude bits flipped, so a larger magnitude is smaller (branch-free).
    b ^ (((b >> 31) as u32) >> 1) as i32
}

/// Depth of a sample no triangle covers (below every [`depth_key`]).
const EMPTY_DEPTH: i32 = i32::MIN;

/// Per-triangle shading setup, in sample space.
struct Tri {
    v: [u32; 3],
    ox: f32,
    oy: f32,
    /// Gradients of barycentrics b1 and b2 (b0 = 1 − b1 − b2).
    g1: [f32; 2],
    g2: [f32; 2],
    /// All three vertices have a usable normal (else the face normal shades it).
    smooth: bool,
    /// Texture (index into [`Texturing::levels`]) and mip level, or `NO_TEX`.
    tex: u32,
    level: u32,
}

/// Texture id of an untextured triangle.
const NO_TEX: u32 = u32::MAX;

/// An albedo for [`render_mesh_textured`], prepared for sampling: its box-filtered mip
/// chain in linear light (see [`MAX_TEXTURE_SIDE`]). Built once per image and shared by
/// every render that uses it (a stage grid samples one texture in many cells).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    levels: Vec<Level>,
}

impl Texture {
    /// Prepare an RGBA8 image (rows top to bottom); `None` unless `rgba` holds exactly
    /// `width × height` pixels (both ≥ 1). Alpha is ignored.
    pub fn new(width: u32, height: u32, rgba: &[u8]) -> Option<Texture> {
        Texture::reduced(width, height, rgba, MAX_TEXTURE_SIDE)
    }

    /// [`Texture::new`] keeping at most `max_side` texels a side (clamped to
    /// `1..=MAX_TEXTURE_SIDE`): a 128-px grid cell never shows more than 256.
    pub fn reduced(width: u32, height: u32, rgba: &[u8], max_side: u32) -> Option<Texture> {
        let n = (width as usize).checked_mul(height as usize)?.checked_mul(4)?;
        let max_side = max_side.clamp(1, MAX_TEXTURE_SIDE);
        (width > 0 && height > 0 && rgba.len() == n).then(|| Texture {
            levels: mip_chain(width, height, rgba, max_side),
        })
    }
}

/// One mip level: linear-light RGB texels, 16-bit fixed point (`value / 65535`): half
/// the memory of `f32`, finer than the 8-bit sRGB they come from.
#[derive(Clone, Debug, PartialEq)]
struct Level {
    width: u32,
    height: u32,
    texels: Vec<[u16; 3]>,
}

/// Per-render texture state: each distinct texture's mip chain, per-primitive texture ids.
struct Texturing<'a> {
    uvs: &'a [[f32; 2]],
    /// Mip chains (level 0 first) of the distinct textures.
    levels: Vec<&'a [Level]>,
    /// Per primitive: index into `levels`, or `NO_TEX`.
    prim_tex: Vec<u32>,
    /// Per primitive: first and one-past-last triangle number.
    prim_tris: Vec<(usize, usize)>,
}

/// Linear light in [0, 1] to a texel channel.
fn to_fixed(c: f32) -> u16 {
    (c.clamp(0.0, 1.0) * 65535.0 + 0.5) as u16
}

/// A texel back to linear light.
fn from_fixed(t: [u16; 3]) -> [f32; 3] {
    t.map(|v| f32::from(v) * (1.0 / 65535.0))
}

/// Largest side of the first mip level kept for sampling: a larger texture is first box
/// filtered down by a power of two. A 512-px model preview never shows more texels, and
/// the linear-light copy stays bounded (at most 512² × 6 bytes per texture).
pub const MAX_TEXTURE_SIDE: u32 = 512;

/// The mip chain in linear light: level 0 is the texture box-filtered by the smallest
/// power of two that brings both sides to at most `max_side` (1 when it already fits:
/// the texture itself), then 2×2 box averages down to 1×1 (an odd side repeats its last
/// row/column).
fn mip_chain(width: u32, height: u32, rgba: &[u8], max_side: u32) -> Vec<Level> {
    let mut shift = 0u32;
    while width.div_ceil(1 << shift) > max_side || height.div_ceil(1 << shift) > max_side {
        shift += 1;
    }
    let f = 1u32 << shift;
    let (w0, h0) = (width.div_ceil(f), height.div_ceil(f));
    let mut texels = Vec::with_capacity(w0 as usize * h0 as usize);
    if f == 1 {
        let lut = fixed_lut();
        texels.extend(
            rgba.chunks_exact(4)
                .map(|p| [lut[p[0] as usize], lut[p[1] as usize], lut[p[2] as usize]]),
        );
    } else {
        // Linear light is (c/255)²: sum the exact integers c² over each box, one source
        // row at a time (sequential reads), and scale once per texel.
        let mut acc = vec![[0u64; 3]; w0 as usize];
        let mut squares = Vec::with_capacity(width as usize * 4);
        for y in 0..h0 {
            acc.fill([0; 3]);
            let y1 = (y * f + f).min(height);
            for sy in y * f..y1 {
                let row = &rgba[sy as usize * width as usize * 4..][..width as usize * 4];
                match shift {
                    1 => add_squares::<2>(row, &mut squares, &mut acc),
                    2 => add_squares::<4>(row, &mut squares, &mut acc),
                    3 => add_squares::<8>(row, &mut squares, &mut acc),
                    _ => {
                        for (sx, p) in row.chunks_exact(4).enumerate() {
                            add_pixel_squares(&mut acc[sx >> shift], p);
                        }
                    }
                }
            }
            for (x, a) in acc.iter().enumerate() {
                let x1 = ((x as u32) * f + f).min(width);
                let inv = 1.0 / (f64::from((x1 - x as u32 * f) * (y1 - y * f)) * 65025.0);
                texels.push(a.map(|c| to_fixed((c as f64 * inv) as f32)));
            }
        }
    }
    let mut levels = vec![Level {
        width: w0,
        height: h0,
        texels,
    }];
    while let Some(prev) = levels.last().filter(|l| l.width > 1 || l.height > 1) {
        let (w, h) = (prev.width.div_ceil(2), prev.height.div_ceil(2));
        let mut texels = Vec::with_capacity(w as usize * h as usize);
        for y in 0..h {
            let (ya, yb) = (2 * y, (2 * y + 1).min(prev.height - 1));
            for x in 0..w {
                let (xa, xb) = (2 * x, (2 * x + 1).min(prev.width - 1));
                let at = |x: u32, y: u32| prev.texels[(y * prev.width + x) as usize];
                let (a, b, c, d) = (at(xa, ya), at(xb, ya), at(xa, yb), at(xb, yb));
                texels.push(std::array::from_fn(|k| {
                    let sum = u32::from(a[k]) + u32::from(b[k]) + u32::from(c[k]) + u32::from(d[k]);
                    ((sum + 2) >> 2) as u16
                }));
            }
        }
        levels.push(Level {
            width: w,
            height: h,
            texels,
        });
    }
    levels
}

/// Add the squared RGB bytes of one RGBA row to `acc`, `F` pixels per entry (the last
/// entry may get fewer). The row is squared into `squares` first, every byte alike (a
/// byte's square fits `u16`): that loop vectorises, and the sums then only add (3.7×
/// faster than squaring inside the sums, measured on a 1024² texture at `F` = 4).
fn add_squares<const F: usize>(row: &[u8], squares: &mut Vec<u16>, acc: &mut [[u64; 3]]) {
    squares.clear();
    squares.extend(row.iter().map(|&c| u16::from(c) * u16::from(c)));
    let whole = squares.chunks_exact(4 * F);
    let rest = row.chunks_exact(4 * F).remainder();
    let mut n = 0;
    for (a, chunk) in acc.iter_mut().zip(whole) {
        let mut sum = [0u32; 4];
        for p in chunk.chunks_exact(4) {
            for k in 0..4 {
                sum[k] += u32::from(p[k]);
            }
        }
        for k in 0..3 {
            a[k] += u64::from(sum[k]);
        }
        n += 1;
    }
    if let Some(a) = acc.get_mut(n) {
        for p in rest.chunks_exact(4) {
            add_pixel_squares(a, p);
        }
    }
}

/// Add the squares of one RGBA pixel's RGB bytes to `a`.
fn add_pixel_squares(a: &mut [u64; 3], p: &[u8]) {
    for k in 0..3 {
        a[k] += u64::from(p[k]) * u64::from(p[k]);
    }
}

/// [`to_fixed`] of the linear light of every sRGB byte.
fn fixed_lut() -> [u16; 256] {
    std::array::from_fn(|c| to_fixed(srgb_to_linear(c as u8)))
}

impl<'a> Texturing<'a> {
    /// `None` when nothing can be textured (no albedo, or no usable `TEXCOORD_0`).
    fn new(mesh: &'a Mesh, albedo: &[Option<&'a Texture>]) -> Option<Texturing<'a>> {
        let uvs = mesh.texcoords.first().filter(|t| t.len() == mesh.positions.len())?;
        if !albedo.iter().any(Option::is_some) {
            return None;
        }
        let mut levels: Vec<&'a [Level]> = Vec::new();
        let mut prim_tex = Vec::with_capacity(mesh.primitives.len());
        let mut prim_tris = Vec::with_capacity(mesh.primitives.len());
        for (k, p) in mesh.primitives.iter().enumerate() {
            let first = p.first_index as usize / 3;
            prim_tris.push((first, first + p.index_count as usize / 3));
            let Some(Some(t)) = albedo.get(k) else {
                prim_tex.push(NO_TEX);
                continue;
            };
            let id = match levels.iter().position(|l| std::ptr::eq(*l, t.levels.as_slice())) {
                Some(i) => i,
                None => {
                    levels.push(&t.levels);
                    levels.len() - 1
                }
            };
            prim_tex.push(id as u32);
        }
        Some(Texturing {
            uvs,
            levels,
            prim_tex,
            prim_tris,
        })
    }

    /// Texture id of triangle number `tri` (primitives are scanned with `cursor`, since
    /// triangles come in increasing order).
    fn tex_of(&self, tri: usize, cursor: &mut usize) -> u32 {
        while *cursor < self.prim_tris.len() && tri >= self.prim_tris[*cursor].1 {
            *cursor += 1;
        }
        match self.prim_tris.get(*cursor) {
            Some(&(a, b)) if (a..b).contains(&tri) => self.prim_tex[*cursor],
            _ => NO_TEX,
        }
    }

    /// Mip level of a triangle of texture `tex` from twice its UV-space area `uv_area2`
    /// and twice its area in output pixels `area2`: the smallest level with at most 2×2
    /// texels per pixel.
    fn level_for(&self, tex: u32, uv_area2: f64, area2: f64) -> u32 {
        let Some(chain) = self.levels.get(tex as usize) else {
            return 0;
        };
        let l0 = &chain[0];
        let mut ratio = uv_area2 * l0.width as f64 * l0.height as f64 / area2;
        let mut level = 0u32;
        while ratio > 4.0 && (level as usize) + 1 < chain.len() {
            ratio /= 4.0;
            level += 1;
        }
        level
    }

    /// Bilinear, wrapped sample (linear light) at `uv`; `None` for a non-finite `uv`.
    fn sample(&self, tex: u32, level: u32, uv: [f32; 2]) -> Option<[f32; 3]> {
        let l = self.levels.get(tex as usize)?.get(level as usize)?;
        let x = uv[0] * l.width as f32 - 0.5;
        let y = uv[1] * l.height as f32 - 0.5;
        if !x.is_finite() || !y.is_finite() {
            return None;
        }
        let (x0, y0) = (floor_f32(x), floor_f32(y));
        let (fx, fy) = (x - x0, y - y0);
        let (xa, xb) = wrap_pair(x0, l.width);
        let (ya, yb) = wrap_pair(y0, l.height);
        let at = |x: usize, y: usize| from_fixed(l.texels[y * l.width as usize + x]);
        let (a, b, c, d) = (at(xa, ya), at(xb, ya), at(xa, yb), at(xb, yb));
        let mut out = [0.0f32; 3];
        for k in 0..3 {
            let top = a[k] + (b[k] - a[k]) * fx;
            let bottom = c[k] + (d[k] - c[k]) * fx;
            out[k] = top + (bottom - top) * fy;
        }
        Some(out)
    }
}

/// `x.floor()` for a finite `x`, inline (the libm call is not, on baseline x86-64).
fn floor_f32(x: f32) -> f32 {
    if x.abs() >= 8_388_608.0 {
        return x; // 2^23 and beyond: already a whole number
    }
    let t = x as i32 as f32;
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// Texel column (or row) `i` and `i + 1` wrapped into `0..n` (repeat); `i` is a whole
/// number. No division unless `i` lies outside the texture (UVs beyond `[0, 1)`).
fn wrap_pair(i: f32, n: u32) -> (usize, usize) {
    let n = i64::from(n.max(1));
    let i = i as i64;
    let a = if (0..n).contains(&i) { i } else { i.rem_euclid(n) };
    let b = if a + 1 == n { 0 } else { a + 1 };
    (a as usize, b as usize)
}

/// Working buffers of a render, reusable across renders (a grid renders thousands of
/// cells: reusing them saves allocating and faulting in the z-buffer and the per-vertex
/// arrays per cell). Holds no result: every render clears what it uses, so output never
/// depends on reuse.
#[derive(Default)]
pub struct Scratch {
    depth: Vec<i32>,
    ids: Vec<u32>,
    tris: Vec<Tri>,
    views: Vec<[f64; 3]>,
    lit: Vec<f32>,
    proj: Vec<Proj>,
    used: Vec<bool>,
}

/// A vertex in sample space: fixed-point x/y (`SUB` per sample) and depth; `fx ==
/// i32::MIN` marks a vertex that cannot be drawn (non-finite position).
#[derive(Clone, Copy)]
struct Proj {
    fx: i32,
    fy: i32,
    z: f32,
}

/// `x.round()` (half away from zero) without the libm call baseline x86-64 makes for it.
fn round_to_i32(x: f64) -> i32 {
    (x + 0.5f64.copysign(x)) as i32
}

/// Set `v` to `n` copies of `value`, reusing its allocation (`fill` is a memset-speed
/// loop; `clear` + `resize` writes one element at a time).
fn reset<T: Copy>(v: &mut Vec<T>, n: usize, value: T) {
    v.truncate(n);
    v.fill(value);
    v.resize(n, value);
}

/// The per-sample depth test: depth keys and the triangle id that wrote each sample.
struct DepthBuffer<'a> {
    depth: &'a mut [i32],
    ids: &'a mut [u32],
    side: usize,
}

/// A triangle's depth plane in sample space: the depth at sample `(sx, sy)` is
/// `z0 + dzdx·(sx + cx) + dzdy·(sy + cy)` (`cx`, `cy`: ½ minus vertex 0's position).
#[derive(Clone, Copy, Debug)]
struct Plane {
    z0: f32,
    dzdx: f32,
    dzdy: f32,
    cx: f32,
    cy: f32,
}

impl Plane {
    fn row(&self, sy: i64) -> f32 {
        self.z0 + self.dzdy * (sy as f32 + self.cy)
    }

    fn at(&self, row: f32, sx: i64) -> f32 {
        row + self.dzdx * (sx as f32 + self.cx)
    }

    /// No sample of a `side`² grid can get a NaN or infinite depth (every term of
    /// [`Plane::at`] stays far below `f32::MAX`).
    fn is_tame(&self, side: usize) -> bool {
        let reach = side as f32 + 2.0 + self.cx.abs() + self.cy.abs();
        let m = self.z0.abs() + (self.dzdx.abs() + self.dzdy.abs()) * reach;
        m.is_finite() && m < 1e37
    }
}

/// Render a mesh (file frame) at the fixed three-quarter view, auto-fitted.
pub fn render_mesh(mesh: &Mesh, opts: &RenderOptions) -> Image {
    render_mesh_textured(mesh, opts, &[])
}

/// [`render_mesh`] with an albedo texture per primitive (`albedo[k]` for
/// `mesh.primitives[k]`; missing or `None` entries use the plain material), sampled at
/// `TEXCOORD_0` (see the module doc).
pub fn render_mesh_textured(mesh: &Mesh, opts: &RenderOptions, albedo: &[Option<&Texture>]) -> Image {
    render_mesh_with(mesh, opts, albedo, &mut Scratch::default())
}

/// [`render_mesh_textured`] with caller-provided working buffers (identical output).
pub fn render_mesh_with(
    mesh: &Mesh,
    opts: &RenderOptions,
    albedo: &[Option<&Texture>],
    scratch: &mut Scratch,
) -> Image {
    let (size, ss) = effective_dims(opts);
    let texturing = Texturing::new(mesh, albedo);
    let mut cursor = 0usize;
    let Scratch {
        depth,
        ids,
        tris,
        views,
        lit,
        proj,
        used,
    } = scratch;
    view_vertices_into(mesh, views);
    let cam = fit_views(mesh, views, size, used);
    let side = (size * ss) as usize;
    let ssf = ss as f64;

    // Per-vertex light intensity from the view-space unit normal (NaN: missing or
    // unusable normal); empty without normals.
    let shader = Shader::new();
    lit.clear();
    if let Some(ns) = mesh.normals.as_ref().filter(|ns| ns.len() == mesh.positions.len()) {
        lit.extend(ns.iter().map(|n| {
            if !n.iter().all(|c| c.is_finite()) {
                return f32::NAN;
            }
            let v = view_coords(*n);
            normalize3([v[0] as f32, v[1] as f32, v[2] as f32]).map_or(f32::NAN, |u| shader.intensity(u))
        }));
    }

    // Per sample: the closest depth so far and the triangle that drew it (the first one
    // drawn on a depth tie). `LANES − 1` samples of padding let a narrow triangle's row
    // write end past the last sample.
    reset(depth, side * side + LANES - 1, EMPTY_DEPTH);
    reset(ids, side * side + LANES - 1, NO_TRI);
    tris.clear();
    let lim = side as f64 + 2.0;
    // Sample rectangle touched by any triangle: pixels outside it are background.
    let mut touched: Option<(i64, i64, i64, i64)> = None;

    // Every vertex projected once (a vertex is shared by about six triangles).
    proj.clear();
    proj.extend(views.iter().map(|v| {
        if !is_view(v) {
            return Proj {
                fx: i32::MIN,
                fy: i32::MIN,
                z: 0.0,
            };
        }
        let o = cam.project_view(*v);
        let sub = SUB as f64;
        Proj {
            fx: round_to_i32((o[0] * ssf).clamp(-2.0, lim) * sub),
            fy: round_to_i32((o[1] * ssf).clamp(-2.0, lim) * sub),
            z: (o[2] * ssf).clamp(-1e30, 1e30) as f32,
        }
    }));
    let has_normals = !lit.is_empty();

    for (tri_no, t) in mesh.indices.chunks_exact(3).enumerate() {
        let mut ix = [t[0] as usize, t[1] as usize, t[2] as usize];
        let (Some(&a), Some(&b), Some(&c)) = (proj.get(ix[0]), proj.get(ix[1]), proj.get(ix[2])) else {
            continue;
        };
        if a.fx == i32::MIN || b.fx == i32::MIN || c.fx == i32::MIN {
            continue;
        }
        let mut fx = [a.fx as i64, b.fx as i64, c.fx as i64];
        let mut fy = [a.fy as i64, b.fy as i64, c.fy as i64];
        let mut z = [a.z as f64, b.z as f64, c.z as f64];
        // Most triangles of a dense mesh in a small grid cell cover no sample centre:
        // skip them before any shading setup (they would not write a sample anyway).
        let Some(bounds) = sample_bounds(&fx, &fy, side) else {
            continue;
        };
        let Some((area, swapped)) = orient(&mut fx, &mut fy) else {
            continue;
        };
        if swapped {
            ix.swap(1, 2);
            z.swap(1, 2);
        }
        // Barycentric gradients per sample, from the same fixed-point vertices the edge
        // functions use (so shading and coverage agree).
        let inv = SUB as f64 / area as f64;
        let (e1x, e1y) = ((fx[1] - fx[0]) as f64, (fy[1] - fy[0]) as f64);
        let (e2x, e2y) = ((fx[2] - fx[0]) as f64, (fy[2] - fy[0]) as f64);
        let g1 = [e2y * inv, -e2x * inv];
        let g2 = [-e1y * inv, e1x * inv];
        let smooth = has_normals && ix.iter().all(|&i| !lit[i].is_nan());
        let mut tri = Tri {
            v: ix.map(|i| i as u32),
            ox: (fx[0] as f64 / SUB as f64) as f32,
            oy: (fy[0] as f64 / SUB as f64) as f32,
            g1: g1.map(|g| g as f32),
            g2: g2.map(|g| g as f32),
            smooth,
            tex: NO_TEX,
            level: 0,
        };
        if let Some(tx) = &texturing {
            let tex = tx.tex_of(tri_no, &mut cursor);
            let uv = ix.map(|i| tx.uvs[i]);
            if tex != NO_TEX && uv.iter().flatten().all(|c| c.is_finite()) {
                let (du1, dv1) = (uv[1][0] as f64 - uv[0][0] as f64, uv[1][1] as f64 - uv[0][1] as f64);
                let (du2, dv2) = (uv[2][0] as f64 - uv[0][0] as f64, uv[2][1] as f64 - uv[0][1] as f64);
                let uv_area2 = (du1 * dv2 - dv1 * du2).abs();
                // Shading runs once per pixel: choose the level per pixel, not per sample.
                let area2 = area as f64 / (SUB * SUB) as f64 / (ssf * ssf);
                tri.tex = tex;
                tri.level = tx.level_for(tex, uv_area2, area2.max(1e-12));
            }
        }
        let id = tris.len() as u32;
        let (dz1, dz2) = (z[1] - z[0], z[2] - z[0]);
        let plane = Plane {
            z0: z[0] as f32,
            dzdx: (g1[0] * dz1 + g2[0] * dz2) as f32,
            dzdy: (g1[1] * dz1 + g2[1] * dz2) as f32,
            cx: 0.5 - tri.ox,
            cy: 0.5 - tri.oy,
        };
        let mut buf = DepthBuffer {
            depth: depth.as_mut_slice(),
            ids: ids.as_mut_slice(),
            side,
        };
        fill_triangle(&mut buf, &fx, &fy, bounds, &plane, id);
        tris.push(tri);
        touched = Some(touched.map_or(bounds, |t| {
            (
                t.0.min(bounds.0),
                t.1.max(bounds.1),
                t.2.min(bounds.2),
                t.3.max(bounds.3),
            )
        }));
    }

    let surf = Surface {
        views,
        lit,
        texturing: texturing.as_ref(),
    };
    resolve(size, ss, ids, tris, &surf, touched, opts)
}

/// Unit face normal of a view-space triangle (sign irrelevant: shading is two-sided);
/// `+z` for a degenerate one.
fn face_normal(vs: [[f64; 3]; 3]) -> [f32; 3] {
    let u = [vs[1][0] - vs[0][0], vs[1][1] - vs[0][1], vs[1][2] - vs[0][2]];
    let w = [vs[2][0] - vs[0][0], vs[2][1] - vs[0][1], vs[2][2] - vs[0][2]];
    let c = [
        u[1] * w[2] - u[2] * w[1],
        u[2] * w[0] - u[0] * w[2],
        u[0] * w[1] - u[1] * w[0],
    ];
    let cl = dot3(c, c).sqrt();
    if cl > 0.0 && cl.is_finite() {
        let icl = 1.0 / cl;
        [(c[0] * icl) as f32, (c[1] * icl) as f32, (c[2] * icl) as f32]
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// Twice the signed area of a fixed-point triangle (positive: the orientation
/// [`raster_tri`] expects).
fn signed_area(fx: &[i64; 3], fy: &[i64; 3]) -> i64 {
    (fx[1] - fx[0]) * (fy[2] - fy[0]) - (fy[1] - fy[0]) * (fx[2] - fx[0])
}

/// Orient a fixed-point triangle for [`raster_tri`], swapping vertices 1 and 2 when it
/// is negative: `(twice its area, whether it swapped)`, `None` for a zero-area triangle
/// (nothing to draw).
fn orient(fx: &mut [i64; 3], fy: &mut [i64; 3]) -> Option<(i64, bool)> {
    let area = signed_area(fx, fy);
    if area < 0 {
        fx.swap(1, 2);
        fy.swap(1, 2);
    }
    (area != 0).then_some((area.abs(), area < 0))
}

/// The sample rectangle `(sx0, sx1, sy0, sy1)` (inclusive) whose centres
/// (`s·SUB + SUB/2`) lie inside the triangle's fixed-point bounding box, clipped to the
/// `side × side` sample grid; `None` when it holds no sample.
fn sample_bounds(fx: &[i64; 3], fy: &[i64; 3], side: usize) -> Option<(i64, i64, i64, i64)> {
    let half = SUB / 2;
    let last = side as i64 - 1;
    let (min_x, max_x) = (fx[0].min(fx[1]).min(fx[2]), fx[0].max(fx[1]).max(fx[2]));
    let (min_y, max_y) = (fy[0].min(fy[1]).min(fy[2]), fy[0].max(fy[1]).max(fy[2]));
    let sx0 = ((min_x - half + SUB - 1).div_euclid(SUB)).max(0);
    let sx1 = ((max_x - half).div_euclid(SUB)).min(last);
    let sy0 = ((min_y - half + SUB - 1).div_euclid(SUB)).max(0);
    let sy1 = ((max_y - half).div_euclid(SUB)).min(last);
    (sx0 <= sx1 && sy0 <= sy1).then_some((sx0, sx1, sy0, sy1))
}

/// Z-test triangle `id` with depth plane `p` at every sample it covers (the samples
/// [`raster_tri`] reports): a sample keeps the closer depth, the earlier triangle on a
/// tie. A triangle at most [`LANES`] samples wide takes [`fill_narrow`]; the others
/// [`raster_tri`]'s spans, [`LANES`] samples at a time ([`fill_span`]).
fn fill_triangle(
    buf: &mut DepthBuffer<'_>,
    fx: &[i64; 3],
    fy: &[i64; 3],
    bounds: (i64, i64, i64, i64),
    p: &Plane,
    id: u32,
) {
    if !p.is_tame(buf.side) {
        // Depths may overflow to inf or NaN (extreme depth ranges): the plain span fill
        // checks each sample.
        raster_tri(fx, fy, bounds, |sy, lo, hi| fill_span_scalar(buf, p, sy, lo, hi, id));
    } else if is_narrow(fx, fy, bounds) {
        fill_narrow(buf, &Narrow::new(fx, fy, bounds, p), p, id);
    } else {
        raster_tri(fx, fy, bounds, |sy, lo, hi| fill_span(buf, p, sy, lo, hi, id));
    }
}

/// A triangle [`fill_narrow`] takes: sample rectangle at most [`LANES`] wide, extent at
/// most [`NARROW_EXTENT`].
fn is_narrow(fx: &[i64; 3], fy: &[i64; 3], bounds: (i64, i64, i64, i64)) -> bool {
    let extent = |v: &[i64; 3]| v[0].max(v[1]).max(v[2]) - v[0].min(v[1]).min(v[2]);
    bounds.1 - bounds.0 < LANES as i64 && extent(fx) <= NARROW_EXTENT && extent(fy) <= NARROW_EXTENT
}

/// A narrow triangle (sample rectangle at most [`LANES`] wide, extent at most
/// [`NARROW_EXTENT`]) set up for [`fill_narrow`]: its `i32` edge functions (the same
/// values and top-left rule as [`raster_tri`]) at the [`LANES`] samples of the
/// rectangle's first row, their step per row, and each lane's depth offset.
struct Narrow {
    sx0: i64,
    sy0: i64,
    sy1: i64,
    w: [[i32; LANES]; 3],
    step_y: [i32; 3],
    /// Lane `j` is inside the rectangle (`j ≤ sx1 − sx0`).
    valid: [bool; LANES],
    /// `dzdx·(sx0 + j + cx)` per lane (see [`Plane::at`]).
    dz: [f32; LANES],
}

impl Narrow {
    fn new(fx: &[i64; 3], fy: &[i64; 3], bounds: (i64, i64, i64, i64), p: &Plane) -> Narrow {
        let (sx0, sx1, sy0, sy1) = bounds;
        let (row, step_x, step_y) = edge_functions(fx, fy, sx0, sy0);
        Narrow {
            sx0,
            sy0,
            sy1,
            w: std::array::from_fn(|k| std::array::from_fn(|j| (row[k] + step_x[k] * j as i64) as i32)),
            step_y: step_y.map(|s| s as i32),
            valid: std::array::from_fn(|j| j as i64 <= sx1 - sx0),
            dz: std::array::from_fn(|j| p.dzdx * ((sx0 + j as i64) as f32 + p.cx)),
        }
    }
}

/// Fill a [`Narrow`] triangle: each row's [`LANES`] samples are tested at once (lanes
/// right of the rectangle write back what they read; the buffers' padding keeps the last
/// row's in bounds). SSE2 on x86-64 (no branch per sample), plain code elsewhere.
fn fill_narrow(buf: &mut DepthBuffer<'_>, n: &Narrow, p: &Plane, id: u32) {
    // SAFETY: SSE2 is part of the x86-64 baseline, enabled on every x86-64 CPU.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        sse2::fill_narrow(buf, n, p, id)
    };
    #[cfg(not(target_arch = "x86_64"))]
    fill_narrow_scalar(buf, n, p, id);
}

/// Z-test the span `lo..=hi` of row `sy` (SSE2 on x86-64, plain code elsewhere).
fn fill_span(buf: &mut DepthBuffer<'_>, p: &Plane, sy: i64, lo: i64, hi: i64, id: u32) {
    // SAFETY: as in `fill_narrow`.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        sse2::fill_span(buf, p, sy, lo, hi, id)
    };
    #[cfg(not(target_arch = "x86_64"))]
    fill_span_scalar(buf, p, sy, lo, hi, id);
}

/// [`fill_narrow`] in plain code (the reference the SSE2 version is tested against).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn fill_narrow_scalar(buf: &mut DepthBuffer<'_>, n: &Narrow, p: &Plane, id: u32) {
    let side = buf.side;
    let mut w = n.w;
    for sy in n.sy0..=n.sy1 {
        let row = p.row(sy);
        let start = sy as usize * side + n.sx0 as usize;
        let (Some(d), Some(t)) = (
            buf.depth.get_mut(start..start + LANES),
            buf.ids.get_mut(start..start + LANES),
        ) else {
            return;
        };
        for j in 0..LANES {
            let k = depth_key(row + n.dz[j]);
            if n.valid[j] && (w[0][j] | w[1][j] | w[2][j]) >= 0 && k > d[j] {
                d[j] = k;
                t[j] = id;
            }
        }
        for (wk, s) in w.iter_mut().zip(n.step_y) {
            for l in wk.iter_mut() {
                *l += s;
            }
        }
    }
}

/// [`fill_span`] in plain code (the reference the SSE2 version is tested against), also
/// the fill of a plane that is not [`Plane::is_tame`]: a NaN depth writes nothing.
fn fill_span_scalar(buf: &mut DepthBuffer<'_>, p: &Plane, sy: i64, lo: i64, hi: i64, id: u32) {
    let row = p.row(sy);
    let start = sy as usize * buf.side + lo as usize;
    let n = (hi - lo + 1) as usize;
    let (Some(d), Some(t)) = (buf.depth.get_mut(start..start + n), buf.ids.get_mut(start..start + n)) else {
        return;
    };
    for ((d, t), sx) in d.iter_mut().zip(t.iter_mut()).zip(lo..) {
        let z = p.at(row, sx);
        if !z.is_nan() && depth_key(z) > *d {
            *d = depth_key(z);
            *t = id;
        }
    }
}

/// The 4-lane depth tests in SSE2 (baseline on x86-64: no runtime detection needed).
/// Per lane they compute exactly what the scalar versions do, in the same order
/// (bit-identical depths), with masks instead of branches: a z-test is a coin flip for
/// the branch predictor.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::{DepthBuffer, Narrow, Plane, LANES};
    use std::arch::x86_64::*;

    /// A 4-byte lane: depth keys and triangle ids.
    trait Lane: Copy {}
    impl Lane for i32 {}
    impl Lane for u32 {}

    #[target_feature(enable = "sse2")]
    fn load<T: Lane>(s: &[T; LANES]) -> __m128i {
        // SAFETY: `s` is 16 readable bytes (4-byte lanes) and `loadu` needs no alignment.
        unsafe { _mm_loadu_si128(s.as_ptr().cast()) }
    }

    #[target_feature(enable = "sse2")]
    fn store<T: Lane>(s: &mut [T; LANES], v: __m128i) {
        // SAFETY: `s` is 16 writable bytes (4-byte lanes) and `storeu` needs no alignment.
        unsafe { _mm_storeu_si128(s.as_mut_ptr().cast(), v) }
    }

    #[target_feature(enable = "sse2")]
    fn i32x4(v: [i32; LANES]) -> __m128i {
        _mm_setr_epi32(v[0], v[1], v[2], v[3])
    }

    /// Lanes set in `hit` take `new`, the others keep `old`.
    #[target_feature(enable = "sse2")]
    fn select(hit: __m128i, new: __m128i, old: __m128i) -> __m128i {
        _mm_or_si128(_mm_and_si128(hit, new), _mm_andnot_si128(hit, old))
    }

    /// Depth-test the 4 samples from `start`: lanes set in `mask` whose depth key beats
    /// the stored one take it and `id`. `false` when the 4 samples are out of bounds.
    #[target_feature(enable = "sse2")]
    fn test(buf: &mut DepthBuffer<'_>, start: usize, z: __m128, mask: __m128i, id: __m128i) -> bool {
        let (Some(d), Some(t)) = (
            buf.depth
                .get_mut(start..start + LANES)
                .and_then(|d| <&mut [i32; LANES]>::try_from(d).ok()),
            buf.ids
                .get_mut(start..start + LANES)
                .and_then(|t| <&mut [u32; LANES]>::try_from(t).ok()),
        ) else {
            return false;
        };
        // super::depth_key, per lane.
        let bits = _mm_castps_si128(z);
        let key = _mm_xor_si128(bits, _mm_srli_epi32::<1>(_mm_srai_epi32::<31>(bits)));
        let old = load(d);
        let hit = _mm_and_si128(mask, _mm_cmpgt_epi32(key, old));
        store(d, select(hit, key, old));
        store(t, select(hit, id, load(t)));
        true
    }

    #[target_feature(enable = "sse2")]
    pub(super) fn fill_narrow(buf: &mut DepthBuffer<'_>, n: &Narrow, p: &Plane, id: u32) {
        let mut w = [i32x4(n.w[0]), i32x4(n.w[1]), i32x4(n.w[2])];
        let step = [
            _mm_set1_epi32(n.step_y[0]),
            _mm_set1_epi32(n.step_y[1]),
            _mm_set1_epi32(n.step_y[2]),
        ];
        let valid = i32x4([0, 1, 2, 3].map(|j| -i32::from(n.valid[j])));
        let dz = _mm_setr_ps(n.dz[0], n.dz[1], n.dz[2], n.dz[3]);
        let (id, minus1) = (_mm_set1_epi32(id as i32), _mm_set1_epi32(-1));
        for sy in n.sy0..=n.sy1 {
            let edges = _mm_or_si128(_mm_or_si128(w[0], w[1]), w[2]);
            let inside = _mm_and_si128(valid, _mm_cmpgt_epi32(edges, minus1));
            let z = _mm_add_ps(_mm_set1_ps(p.row(sy)), dz);
            if !test(buf, sy as usize * buf.side + n.sx0 as usize, z, inside, id) {
                return;
            }
            for (wk, s) in w.iter_mut().zip(step) {
                *wk = _mm_add_epi32(*wk, s);
            }
        }
    }

    #[target_feature(enable = "sse2")]
    pub(super) fn fill_span(buf: &mut DepthBuffer<'_>, p: &Plane, sy: i64, lo: i64, hi: i64, id: u32) {
        let (row, cx, dzdx) = (_mm_set1_ps(p.row(sy)), _mm_set1_ps(p.cx), _mm_set1_ps(p.dzdx));
        let (id, end) = (_mm_set1_epi32(id as i32), _mm_set1_epi32(hi as i32 + 1));
        let base = sy as usize * buf.side;
        let mut sx = lo;
        while sx <= hi {
            let lanes = _mm_add_epi32(_mm_set1_epi32(sx as i32), _mm_setr_epi32(0, 1, 2, 3));
            // p.at(row, sx) per lane: row + dzdx·(sx + cx).
            let z = _mm_add_ps(row, _mm_mul_ps(dzdx, _mm_add_ps(_mm_cvtepi32_ps(lanes), cx)));
            if !test(buf, base + sx as usize, z, _mm_cmpgt_epi32(end, lanes), id) {
                return;
            }
            sx += LANES as i64;
        }
    }
}

/// The three edge functions of a positively oriented fixed-point triangle at the centre of
/// sample `(sx0, sy0)`, and their steps per sample to the right and per row down: `(row,
/// step_x, step_y)`. A sample is inside when all three are `≥ 0` (the top-left rule is
/// folded in as a bias of −1 on the edges that are not top or left).
fn edge_functions(fx: &[i64; 3], fy: &[i64; 3], sx0: i64, sy0: i64) -> ([i64; 3], [i64; 3], [i64; 3]) {
    let (px0, py0) = (sx0 * SUB + SUB / 2, sy0 * SUB + SUB / 2);
    let (mut row, mut step_x, mut step_y) = ([0i64; 3], [0i64; 3], [0i64; 3]);
    // Edge k runs from vertex a to vertex b and is opposite vertex k.
    for (k, (a, b)) in [(1usize, 2usize), (2, 0), (0, 1)].into_iter().enumerate() {
        let (dx, dy) = (fx[b] - fx[a], fy[b] - fy[a]);
        // Top edge (horizontal, interior below) or left edge (going up): inclusive.
        let top_left = (dy == 0 && dx > 0) || dy < 0;
        row[k] = dx * (py0 - fy[a]) - dy * (px0 - fx[a]) - i64::from(!top_left);
        step_x[k] = -dy * SUB;
        step_y[k] = dx * SUB;
    }
    (row, step_x, step_y)
}

/// Scan-convert a positively oriented fixed-point triangle over its sample rectangle
/// `bounds` (from [`sample_bounds`]), calling `span(sy, lo, hi)` for every row `sy` with
/// covered samples `lo..=hi` (top-left rule; a row's covered samples are contiguous, the
/// triangle being convex).
fn raster_tri(fx: &[i64; 3], fy: &[i64; 3], bounds: (i64, i64, i64, i64), mut span: impl FnMut(i64, i64, i64)) {
    let (sx0, sx1, sy0, sy1) = bounds;
    let (mut row, step_x, step_y) = edge_functions(fx, fy, sx0, sy0);
    if sx1 - sx0 < SMALL_SPAN {
        // A narrow box (most triangles of a dense mesh): test each sample's edge
        // functions directly.
        for sy in sy0..=sy1 {
            let mut w = row;
            let (mut lo, mut hi) = (i64::MAX, i64::MIN);
            for sx in sx0..=sx1 {
                if (w[0] | w[1] | w[2]) >= 0 {
                    lo = lo.min(sx);
                    hi = sx;
                }
                w[0] += step_x[0];
                w[1] += step_x[1];
                w[2] += step_x[2];
            }
            if lo <= hi {
                span(sy, lo, hi);
            }
            row[0] += step_y[0];
            row[1] += step_y[1];
            row[2] += step_y[2];
        }
        return;
    }
    // Edge k's function on row sy is w_k(sx) = row_k + step_x_k·(sx − sx0). With
    // a = |step_x_k| and F = ⌊row_k / a⌋, w_k ≥ 0 exactly for sx ≥ sx0 − F (step_x_k > 0)
    // or sx ≤ sx0 + F (step_x_k < 0). F and the remainder row_k − F·a are carried from row
    // to row (a DDA), so a row costs no division.
    let mut a = [1i64; 3];
    let (mut f, mut m, mut dq, mut dm) = ([0i64; 3], [0i64; 3], [0i64; 3], [0i64; 3]);
    for k in 0..3 {
        if step_x[k] != 0 {
            a[k] = step_x[k].abs();
        }
        f[k] = row[k].div_euclid(a[k]);
        m[k] = row[k].rem_euclid(a[k]);
        dq[k] = step_y[k].div_euclid(a[k]);
        dm[k] = step_y[k].rem_euclid(a[k]);
    }
    for sy in sy0..=sy1 {
        let (mut lo, mut hi) = (sx0, sx1);
        for k in 0..3 {
            let st = step_x[k];
            if st > 0 {
                lo = lo.max(sx0 - f[k]);
            } else if st < 0 {
                hi = hi.min(sx0 + f[k]);
            } else if row[k] < 0 {
                hi = sx0 - 1;
            }
            row[k] += step_y[k];
            f[k] += dq[k];
            m[k] += dm[k];
            if m[k] >= a[k] {
                m[k] -= a[k];
                f[k] += 1;
            }
        }
        if lo <= hi {
            span(sy, lo, hi);
        }
    }
}

/// Shade every sample inside `touched` (the sample rectangle any triangle covered) and
/// box-downsample with premultiplied alpha; pixels outside it are background.
fn resolve(
    size: u32,
    ss: u32,
    ids: &[u32],
    tris: &[Tri],
    surf: &Surface<'_>,
    touched: Option<(i64, i64, i64, i64)>,
    opts: &RenderOptions,
) -> Image {
    let shader = &Shader::new();
    let side = (size * ss) as usize;
    let (bg_bytes, bg_lin, bg_a) = match opts.background {
        Background::Transparent => ([0u8; 4], [0.0f32; 3], 0.0f32),
        Background::Solid(c) => {
            let a = c[3] as f32 / 255.0;
            (c, [c[0], c[1], c[2]].map(srgb_to_linear), a)
        }
    };
    let bg_premul = [bg_lin[0] * bg_a, bg_lin[1] * bg_a, bg_lin[2] * bg_a, bg_a];
    let n_samples = (ss * ss) as f32;
    let size_u = size as usize;
    let ss_u = ss as usize;
    let mut out: Vec<u8> = bg_bytes.repeat(size_u * size_u);
    // Pixels whose samples no triangle touched keep the background.
    let Some((sx0, sx1, sy0, sy1)) = touched else {
        return Image {
            width: size,
            height: size,
            rgba: out,
        };
    };
    let (px0, px1) = (sx0 as usize / ss_u, (sx1 as usize / ss_u).min(size_u - 1));
    let (py0, py1) = (sy0 as usize / ss_u, (sy1 as usize / ss_u).min(size_u - 1));

    let wire = opts.wireframe.then_some(WIRE_HALF_WIDTH * ss as f32);
    let n_keys = ss_u * ss_u;
    let mut keys = [NO_TRI; (MAX_SUPERSAMPLE * MAX_SUPERSAMPLE) as usize];
    // Sample j's centre relative to its pixel's first sample (keys are row-major).
    let centres: Vec<(f32, f32)> = (0..n_keys)
        .map(|j| ((j % ss_u) as f32 + 0.5, (j / ss_u) as f32 + 0.5))
        .collect();
    // 1/n for a group of n samples (a multiplication, not a division, per group).
    let recip: Vec<f32> = (0..=n_keys).map(|n| 1.0 / n.max(1) as f32).collect();
    // Per pixel: (triangle id, samples, Σx, Σy) of each triangle it sees.
    let mut groups: Vec<(u32, u32, f32, f32)> = Vec::with_capacity(n_keys);
    for py in py0..=py1 {
        for px in px0..=px1 {
            let o = (py * size_u + px) * 4;
            // This pixel's sample keys, row-major.
            let r0 = py * ss_u * side + px * ss_u;
            if ss_u == 2 {
                keys[..2].copy_from_slice(&ids[r0..r0 + 2]);
                keys[2..4].copy_from_slice(&ids[r0 + side..r0 + side + 2]);
            } else {
                for sy in 0..ss_u {
                    let r = r0 + sy * side;
                    keys[sy * ss_u..(sy + 1) * ss_u].copy_from_slice(&ids[r..r + ss_u]);
                }
            }
            let ks = &keys[..n_keys];
            let (bx, by) = ((px * ss_u) as f32, (py * ss_u) as f32);
            let sample_centre = |j: usize| (bx + centres[j].0, by + centres[j].1);
            if let Some(wd) = wire {
                // The overlay varies within a pixel: shade every sample.
                let mut acc = [0.0f32; 4];
                let mut hits = 0u32;
                for (j, &id) in ks.iter().enumerate() {
                    if id == NO_TRI {
                        for (a, b) in acc.iter_mut().zip(bg_premul) {
                            *a += b;
                        }
                        continue;
                    }
                    hits += 1;
                    let (cx, cy) = sample_centre(j);
                    let c = shade_sample(&tris[id as usize], cx, cy, surf, shader, Some(wd));
                    acc[0] += c[0];
                    acc[1] += c[1];
                    acc[2] += c[2];
                    acc[3] += 1.0;
                }
                if hits > 0 {
                    out[o..o + 4].copy_from_slice(&premultiplied_to_srgba(acc, n_samples));
                }
                continue;
            }
            // Without the wireframe, each triangle seen by a pixel is shaded once, at the
            // centroid of its samples in that pixel, weighted by their count (the shading
            // varies linearly across a pixel anyway): a pixel inside one triangle costs one
            // shade, an edge pixel one per triangle instead of one per sample.
            let first = ks[0];
            if ks.iter().all(|&k| k == first) {
                // All samples empty (background), or all on one triangle: shaded once at
                // the pixel centre, the centroid of its samples.
                if first != NO_TRI {
                    let half = ss_u as f32 * 0.5;
                    let (cx, cy) = (bx + half, by + half);
                    let c = shade_sample(&tris[first as usize], cx, cy, surf, shader, None);
                    out[o..o + 4].copy_from_slice(&[
                        linear_to_srgb8(c[0]),
                        linear_to_srgb8(c[1]),
                        linear_to_srgb8(c[2]),
                        255,
                    ]);
                }
                continue;
            }
            groups.clear();
            let mut n_bg = 0u32;
            for (j, &id) in ks.iter().enumerate() {
                if id == NO_TRI {
                    n_bg += 1;
                    continue;
                }
                let (cx, cy) = sample_centre(j);
                match groups.iter_mut().find(|g| g.0 == id) {
                    Some(g) => {
                        g.1 += 1;
                        g.2 += cx;
                        g.3 += cy;
                    }
                    None => groups.push((id, 1, cx, cy)),
                }
            }
            let mut acc = bg_premul.map(|c| c * n_bg as f32);
            for &(id, n, sx, sy) in &groups {
                let (nf, inv) = (n as f32, recip[n as usize]);
                let c = shade_sample(&tris[id as usize], sx * inv, sy * inv, surf, shader, None);
                acc[0] += c[0] * nf;
                acc[1] += c[1] * nf;
                acc[2] += c[2] * nf;
                acc[3] += nf;
            }
            out[o..o + 4].copy_from_slice(&premultiplied_to_srgba(acc, n_samples));
        }
    }
    Image {
        width: size,
        height: size,
        rgba: out,
    }
}

/// What shading reads per vertex: view-space positions (for face normals, computed only
/// where needed) and light intensities from the normals (NaN where unusable; empty when
/// the mesh has none).
struct Surface<'a> {
    views: &'a [[f64; 3]],
    lit: &'a [f32],
    texturing: Option<&'a Texturing<'a>>,
}

impl Surface<'_> {
    /// Colour at light intensity `i` and barycentrics `b`: textured albedo when the
    /// triangle has a texture and a finite interpolated `TEXCOORD_0`, else the material.
    fn shade(&self, t: &Tri, shader: &Shader, i: f32, b: [f32; 3]) -> [f32; 3] {
        if let (Some(tx), true) = (self.texturing, t.tex != NO_TEX) {
            let uv0 = tx.uvs[t.v[0] as usize];
            let uv1 = tx.uvs[t.v[1] as usize];
            let uv2 = tx.uvs[t.v[2] as usize];
            let uv = [
                uv0[0] * b[0] + uv1[0] * b[1] + uv2[0] * b[2],
                uv0[1] * b[0] + uv1[1] * b[1] + uv2[1] * b[2],
            ];
            if let Some(albedo) = tx.sample(t.tex, t.level, uv) {
                return albedo.map(|c| c * i);
            }
        }
        shader.material.map(|c| c * i)
    }

    fn face_normal(&self, t: &Tri) -> [f32; 3] {
        let v = |k: usize| self.views[t.v[k] as usize];
        face_normal([v(0), v(1), v(2)])
    }
}

/// One pixel from its premultiplied linear sum `acc` (RGB, coverage) over `n_samples`
/// samples: un-premultiplied sRGB, alpha = coverage.
fn premultiplied_to_srgba(acc: [f32; 4], n_samples: f32) -> [u8; 4] {
    let a = acc[3];
    let inv = 1.0 / a;
    [
        linear_to_srgb8(acc[0] * inv),
        linear_to_srgb8(acc[1] * inv),
        linear_to_srgb8(acc[2] * inv),
        ((a / n_samples).clamp(0.0, 1.0) * 255.0 + 0.5) as u8,
    ]
}

/// 1 / |g|: converts a barycentric with gradient `g` to the distance (in samples) from
/// the opposite edge.
fn inv_len(g: [f32; 2]) -> f32 {
    let l = (g[0] * g[0] + g[1] * g[1]).sqrt();
    if l > 0.0 {
        1.0 / l
    } else {
        f32::INFINITY
    }
}

fn shade_sample(t: &Tri, cx: f32, cy: f32, surf: &Surface<'_>, shader: &Shader, wire: Option<f32>) -> [f32; 3] {
    let dx = cx - t.ox;
    let dy = cy - t.oy;
    let b1 = t.g1[0] * dx + t.g1[1] * dy;
    let b2 = t.g2[0] * dx + t.g2[1] * dy;
    let b0 = 1.0 - b1 - b2;
    if let Some(wd) = wire {
        let g0 = [-(t.g1[0] + t.g2[0]), -(t.g1[1] + t.g2[1])];
        let d = (b0 * inv_len(g0)).min(b1 * inv_len(t.g1)).min(b2 * inv_len(t.g2));
        if d < wd {
            return shader.wire;
        }
    }
    // Gouraud: the vertices' intensities, interpolated (weights clamped to the triangle).
    if t.smooth {
        let l = |k: usize| surf.lit[t.v[k] as usize];
        if b0 >= 0.0 && b1 >= 0.0 && b2 >= 0.0 {
            // Inside the triangle (the usual case): the weights already sum to 1.
            let i = l(0) * b0 + l(1) * b1 + l(2) * b2;
            return surf.shade(t, shader, i, [b0, b1, b2]);
        }
        let (w0, w1, w2) = (b0.max(0.0), b1.max(0.0), b2.max(0.0));
        let w = w0 + w1 + w2;
        if w > 0.0 {
            let i = (l(0) * w0 + l(1) * w1 + l(2) * w2) / w;
            return surf.shade(t, shader, i, [b0, b1, b2]);
        }
    }
    surf.shade(t, shader, shader.intensity(surf.face_normal(t)), [b0, b1, b2])
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

fn png_filter(name: &str) -> png::Filter {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trig_literals_match() {
        assert!((COS_YAW - YAW_DEG.to_radians().cos()).abs() < 1e-15);
        assert!((SIN_YAW - YAW_DEG.to_radians().sin()).abs() < 1e-15);
        assert!((COS_PITCH - PITCH_DEG.to_radians().cos()).abs() < 1e-15);
        assert!((SIN_PITCH - PITCH_DEG.to_radians().sin()).abs() < 1e-15);
    }

    #[test]
    fn basis_is_right_handed_orthonormal() {
        let [r, u, t] = view_basis();
        let cross = [
            r[1] * u[2] - r[2] * u[1],
            r[2] * u[0] - r[0] * u[2],
            r[0] * u[1] - r[1] * u[0],
        ];
        for k in 0..3 {
            assert!((cross[k] - t[k]).abs() < 1e-15);
        }
        for v in [r, u, t] {
            assert!((dot3(v, v) - 1.0).abs() < 1e-15);
        }
        assert!(dot3(r, u).abs() < 1e-15);
    }

    #[test]
    fn srgb_roundtrip_is_exact_for_every_byte() {
        for c in 0..=255u8 {
            assert_eq!(linear_to_srgb8(srgb_to_linear(c)), c);
        }
    }

    #[test]
    fn floor_matches_std() {
        for x in [
            0.0f32,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999,
            -2.001,
            1e7,
            -1e7,
            8_388_607.5,
            -8_388_607.5,
            3e9,
            -3e9,
            1e30,
        ] {
            assert_eq!(floor_f32(x), x.floor(), "{x}");
        }
    }

    #[test]
    fn dims_are_clamped() {
        let o = |size, supersample| RenderOptions {
            size,
            supersample,
            ..Default::default()
        };
        assert_eq!(effective_dims(&o(0, 0)), (1, 1));
        assert_eq!(effective_dims(&o(512, 2)), (512, 2));
        assert_eq!(effective_dims(&o(100_000, 4)), (4096, 1));
        assert_eq!(effective_dims(&o(2048, 8)), (2048, 2));
        assert_eq!(effective_dims(&o(1000, 3)), (1000, 3));
        assert_eq!(effective_dims(&o(16, 100)), (16, 8));
    }

    #[test]
    fn fill_rule_covers_a_split_square_exactly_once() {
        // A 4×4-sample square split along its diagonal: every sample hit exactly once.
        let s = SUB;
        let mut count = [0u32; 36];
        let quads = [([0, 4 * s, 4 * s], [0, 0, 4 * s]), ([0, 4 * s, 0], [0, 4 * s, 4 * s])];
        for (fx, fy) in quads {
            let (mut fx, mut fy) = (fx, fy);
            orient(&mut fx, &mut fy).expect("non-degenerate");
            let bounds = sample_bounds(&fx, &fy, 6).expect("covers samples");
            raster_tri(&fx, &fy, bounds, |sy, lo, hi| {
                for sx in lo..=hi {
                    count[(sy * 6 + sx) as usize] += 1;
                }
            });
        }
        for y in 0..6 {
            for x in 0..6 {
                let want = u32::from(x < 4 && y < 4);
                assert_eq!(count[y * 6 + x], want, "sample {x},{y}");
            }
        }
    }

    /// Every sample whose centre passes the three edge functions (top-left rule), by
    /// brute force: what [`raster_tri`] must report.
    fn brute_force(fx: &[i64; 3], fy: &[i64; 3], side: usize) -> Vec<usize> {
        let mut hits = Vec::new();
        let edges = [(1usize, 2usize), (2, 0), (0, 1)];
        for sy in 0..side as i64 {
            for sx in 0..side as i64 {
                let (px, py) = (sx * SUB + SUB / 2, sy * SUB + SUB / 2);
                let inside = edges.iter().all(|&(a, b)| {
                    let (dx, dy) = (fx[b] - fx[a], fy[b] - fy[a]);
                    let top_left = (dy == 0 && dx > 0) || dy < 0;
                    let w = dx * (py - fy[a]) - dy * (px - fx[a]);
                    if top_left {
                        w >= 0
                    } else {
                        w > 0
                    }
                });
                if inside {
                    hits.push(sy as usize * side + sx as usize);
                }
            }
        }
        hits
    }

    #[test]
    fn spans_match_a_brute_force_edge_test() {
        let side = 24usize;
        let mut checked = 0;
        for (fx, fy) in random_triangles(side, 4000) {
            let mut got = Vec::new();
            if let Some(bounds) = sample_bounds(&fx, &fy, side) {
                raster_tri(&fx, &fy, bounds, |sy, lo, hi| {
                    got.extend((lo..=hi).map(|sx| sy as usize * side + sx as usize));
                });
            }
            assert_eq!(got, brute_force(&fx, &fy, side), "triangle {fx:?} {fy:?}");
            checked += 1;
        }
        assert!(checked > 3900);
    }

    /// Random triangles (small, wide, slivers, partly off the grid), fixed seed, oriented.
    fn random_triangles(side: usize, n: usize) -> Vec<([i64; 3], [i64; 3])> {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |range: i64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % range as u64) as i64
        };
        (0..n)
            .filter_map(|n| {
                let spread = [2, 3, 8, 30][n % 4] * SUB;
                let (cx, cy) = (next(side as i64 * SUB), next(side as i64 * SUB));
                let mut fx = [0i64; 3].map(|_| cx + next(2 * spread) - spread);
                let mut fy = [0i64; 3].map(|_| cy + next(2 * spread) - spread);
                orient(&mut fx, &mut fy).map(|_| (fx, fy))
            })
            .collect()
    }

    #[test]
    fn fill_writes_exactly_the_covered_samples_on_every_path() {
        let side = 24usize;
        let n = side * side;
        let plane = Plane {
            z0: 1.0,
            dzdx: 0.01,
            dzdy: -0.02,
            cx: 0.0,
            cy: 0.0,
        };
        let (mut narrow, mut wide) = (0, 0);
        for (fx, fy) in random_triangles(side, 6000) {
            let (mut depth, mut ids) = (vec![EMPTY_DEPTH; n + LANES - 1], vec![NO_TRI; n + LANES - 1]);
            if let Some(bounds) = sample_bounds(&fx, &fy, side) {
                if bounds.1 - bounds.0 < LANES as i64 {
                    narrow += 1;
                } else {
                    wide += 1;
                }
                let mut buf = DepthBuffer {
                    depth: &mut depth,
                    ids: &mut ids,
                    side,
                };
                fill_triangle(&mut buf, &fx, &fy, bounds, &plane, 7);
            }
            let got: Vec<usize> = (0..n).filter(|&i| ids[i] == 7).collect();
            assert_eq!(got, brute_force(&fx, &fy, side), "triangle {fx:?} {fy:?}");
            // Untouched samples (and the padding) keep the empty depth and id.
            for i in (0..n + LANES - 1).filter(|&i| ids[i] != 7) {
                assert_eq!((depth[i], ids[i]), (EMPTY_DEPTH, NO_TRI), "sample {i}");
            }
            // Written depths are the plane's.
            for &i in &got {
                let (sx, sy) = ((i % side) as i64, (i / side) as i64);
                assert_eq!(depth[i], depth_key(plane.at(plane.row(sy), sx)));
            }
        }
        assert!(narrow > 1000 && wide > 1000, "{narrow} narrow, {wide} wide");
    }

    #[test]
    fn the_vector_fill_matches_the_plain_one() {
        // Random triangles and depth planes over a buffer already holding random depths
        // and ids: the dispatched fill (SSE2 on x86-64) and the plain versions must leave
        // identical buffers, bit for bit.
        let side = 24usize;
        let n = side * side + LANES - 1;
        let mut seed = 0x9E37_79B9u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut filled = 0;
        for (i, (fx, fy)) in random_triangles(side, 3000).into_iter().enumerate() {
            let Some(bounds) = sample_bounds(&fx, &fy, side) else {
                continue;
            };
            let unit = |v: u32| (v % 2001) as f32 / 1000.0 - 1.0;
            let plane = Plane {
                z0: unit(next()),
                dzdx: unit(next()) * 0.1,
                dzdy: unit(next()) * 0.1,
                cx: 0.5 - fx[0] as f32 / SUB as f32,
                cy: 0.5 - fy[0] as f32 / SUB as f32,
            };
            assert!(plane.is_tame(side));
            let depth: Vec<i32> = (0..n).map(|_| depth_key(unit(next()))).collect();
            let ids: Vec<u32> = (0..n).map(|_| next() % 50).collect();
            let (mut d1, mut t1, mut d2, mut t2) = (depth.clone(), ids.clone(), depth, ids);
            let id = 100 + i as u32;
            fill_triangle(
                &mut DepthBuffer {
                    depth: &mut d1,
                    ids: &mut t1,
                    side,
                },
                &fx,
                &fy,
                bounds,
                &plane,
                id,
            );
            let mut buf = DepthBuffer {
                depth: &mut d2,
                ids: &mut t2,
                side,
            };
            if is_narrow(&fx, &fy, bounds) {
                fill_narrow_scalar(&mut buf, &Narrow::new(&fx, &fy, bounds, &plane), &plane, id);
            } else {
                raster_tri(&fx, &fy, bounds, |sy, lo, hi| {
                    fill_span_scalar(&mut buf, &plane, sy, lo, hi, id)
                });
            }
            assert_eq!((&d1, &t1), (&d2, &t2), "triangle {fx:?} {fy:?}");
            filled += usize::from(t1.contains(&id));
        }
        assert!(filled > 1500, "{filled}");
    }

    #[test]
    fn the_closer_triangle_wins_and_the_first_one_on_a_tie() {
        let side = 8usize;
        let (fx, fy) = ([0, 6 * SUB, 0], [0, 0, 6 * SUB]);
        let flat = |z0: f32| Plane {
            z0,
            dzdx: 0.0,
            dzdy: 0.0,
            cx: 0.0,
            cy: 0.0,
        };
        for (fx, fy) in [(fx, fy), ([0, 2 * SUB, 0], [0, 0, 2 * SUB])] {
            let (mut fx, mut fy) = (fx, fy);
            orient(&mut fx, &mut fy).expect("non-degenerate");
            let bounds = sample_bounds(&fx, &fy, side).expect("covers samples");
            let (mut depth, mut ids) = (vec![EMPTY_DEPTH; 64 + LANES - 1], vec![NO_TRI; 64 + LANES - 1]);
            let mut buf = DepthBuffer {
                depth: &mut depth,
                ids: &mut ids,
                side,
            };
            fill_triangle(&mut buf, &fx, &fy, bounds, &flat(-5.0), 1);
            fill_triangle(&mut buf, &fx, &fy, bounds, &flat(-5.0), 2); // tie: stays 1
            fill_triangle(&mut buf, &fx, &fy, bounds, &flat(-6.0), 3); // farther: stays 1
            assert!(buf.ids[0] == 1 && buf.ids.iter().all(|&i| i == 1 || i == NO_TRI));
            fill_triangle(&mut buf, &fx, &fy, bounds, &flat(-4.5), 4); // closer: wins
            assert!(buf.ids[0] == 4 && buf.ids.iter().all(|&i| i == 4 || i == NO_TRI));
        }
    }

    #[test]
    fn depth_keys_keep_the_order_of_the_floats() {
        let zs = [
            f32::NEG_INFINITY,
            -1e30,
            -2.5,
            -1e-30,
            -0.0,
            0.0,
            1e-30,
            3.0,
            1e30,
            f32::INFINITY,
        ];
        for w in zs.windows(2) {
            assert!(depth_key(w[0]) <= depth_key(w[1]), "{w:?}");
            assert!(depth_key(w[0]) > EMPTY_DEPTH);
        }
        assert!(depth_key(-3.0) < depth_key(-2.0) && depth_key(2.0) < depth_key(3.0));
    }

    #[test]
    fn box_filtered_level_0_matches_a_reference() {
        // Level 0 of a reduced texture: each texel is the mean of c² over its box (a
        // clipped box at odd edges), for every reduction the fast paths take and beyond.
        let mut seed = 7u32;
        for (w, h, max_side) in [(9u32, 5u32, 5u32), (17, 12, 5), (35, 33, 5), (70, 9, 4), (64, 64, 64)] {
            let rgba: Vec<u8> = (0..w * h * 4)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    (seed >> 16) as u8
                })
                .collect();
            let level = &mip_chain(w, h, &rgba, max_side)[0];
            let f = (0..)
                .map(|s| 1u32 << s)
                .find(|f| w.div_ceil(*f) <= max_side && h.div_ceil(*f) <= max_side);
            let f = f.expect("a power of two fits");
            assert_eq!((level.width, level.height), (w.div_ceil(f), h.div_ceil(f)));
            for ty in 0..level.height {
                for tx in 0..level.width {
                    let mut sum = [0u64; 3];
                    let mut n = 0u64;
                    for y in ty * f..(ty * f + f).min(h) {
                        for x in tx * f..(tx * f + f).min(w) {
                            let p = &rgba[((y * w + x) * 4) as usize..][..3];
                            for k in 0..3 {
                                sum[k] += u64::from(p[k]) * u64::from(p[k]);
                            }
                            n += 1;
                        }
                    }
                    let want = if f == 1 {
                        let p = &rgba[((ty * w + tx) * 4) as usize..][..3];
                        [0, 1, 2].map(|k| to_fixed(srgb_to_linear(p[k])))
                    } else {
                        sum.map(|c| to_fixed((c as f64 / (n as f64 * 65025.0)) as f32))
                    };
                    assert_eq!(
                        level.texels[(ty * level.width + tx) as usize],
                        want,
                        "{w}×{h} → texel {tx},{ty}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_triangle_between_sample_centres_has_no_bounds() {
        // Inside the square between four sample centres (0.5, 0.5)…(1.5, 1.5).
        let s = SUB;
        let fx = [s * 6 / 10, s * 14 / 10, s * 6 / 10];
        let fy = [s * 6 / 10, s * 6 / 10, s * 14 / 10];
        assert_eq!(sample_bounds(&fx, &fy, 4), None);
        // Touching a centre makes it a candidate; off the grid it is clipped away.
        assert_eq!(
            sample_bounds(&fx.map(|x| x - s / 10), &fy.map(|y| y - s / 10), 4),
            Some((0, 0, 0, 0))
        );
        assert_eq!(sample_bounds(&fx.map(|x| x + 8 * s), &fy, 4), None);
    }
}
