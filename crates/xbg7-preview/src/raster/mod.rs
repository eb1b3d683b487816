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
//!
//! # Files
//!
//! `types` (the fixed parameters, the options and their clamping), `camera` (view frame
//! and fit), `coverage` (edge functions, depth buffer, spans, SSE2), `sampling` (albedo
//! mip chains and lookups), `srgb` (sRGB ↔ linear), `shading` (the surface, light,
//! wireframe, one sample), `resolve` (samples → pixels), `image` (the RGBA image and
//! PNG); this file is the facade (explicit re-exports) and holds the scratch buffers,
//! the triangle setup and [`render_mesh_with`], which runs the phases in order.

use xbg7::mesh::Mesh;

mod camera;
mod coverage;
mod image;
mod resolve;
mod sampling;
mod shading;
mod srgb;
mod types;

use camera::{fit_views, is_view, view_vertices_into};
use coverage::{fill_triangle, orient, reset, round_to_i32, sample_bounds, DepthBuffer, Plane, Tri, EMPTY_DEPTH};
use resolve::resolve;
use sampling::{Texturing, NO_TEX};
use shading::{normalize3, Shader, Surface};
use types::{LANES, NO_TRI, SUB};

pub use camera::{file_to_gltf, view_basis, view_coords, Camera};
pub use image::{
    compact_color, compresses_poorly, encode_png, try_encode_png, try_encode_png_compact, try_encode_png_with,
    write_png_compact, write_png_compact_as, ColorScan, Image, PngDeflate, PngSettings, RasterError, MAX_SAMPLE_RATIO,
    MIN_SAMPLE_BYTES, PNG_SETTINGS, SAMPLE_BAND_ROWS, STORED,
};
pub use sampling::{Texture, MAX_TEXTURE_SIDE};
pub use shading::shade_color;
pub use types::{
    effective_dims, Background, RenderOptions, AMBIENT, KEY, KEY_DIR_VIEW, MARGIN, MATERIAL_SRGB, MAX_SAMPLES_PER_AXIS,
    MAX_SIZE, MAX_SUPERSAMPLE, PITCH_DEG, WIRE_HALF_WIDTH, WIRE_SRGB, YAW_DEG,
};

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

/// [`render_mesh_textured`] with caller-provided working buffers (identical output):
/// fit the camera, light and project the vertices, fill the depth buffer triangle by
/// triangle, resolve the samples into pixels.
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

    light_vertices(mesh, lit);

    // Per sample: the closest depth so far and the triangle that drew it (the first one
    // drawn on a depth tie). `LANES − 1` samples of padding let a narrow triangle's row
    // write end past the last sample.
    reset(depth, side * side + LANES - 1, EMPTY_DEPTH);
    reset(ids, side * side + LANES - 1, NO_TRI);
    tris.clear();
    // Sample rectangle touched by any triangle: pixels outside it are background.
    let mut touched: Option<(i64, i64, i64, i64)> = None;

    project_vertices(views, &cam, ssf, side, proj);

    let setup = TriSetup {
        proj,
        lit,
        texturing: texturing.as_ref(),
        side,
        ssf,
    };
    for (tri_no, t) in mesh.indices.chunks_exact(3).enumerate() {
        let Some(p) = setup.prepare(t, tri_no, &mut cursor) else {
            continue;
        };
        let id = tris.len() as u32;
        let mut buf = DepthBuffer {
            depth: depth.as_mut_slice(),
            ids: ids.as_mut_slice(),
            side,
        };
        fill_triangle(&mut buf, &p.fx, &p.fy, p.bounds, &p.plane, id);
        tris.push(p.tri);
        let bounds = p.bounds;
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

/// Per-vertex light intensity from the view-space unit normal (NaN: missing or
/// unusable normal) into `lit`; empty without normals.
fn light_vertices(mesh: &Mesh, lit: &mut Vec<f32>) {
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
}

/// Every vertex projected once into `proj` (a vertex is shared by about six triangles):
/// fixed-point sample coordinates, clamped just outside the `side`-sample grid.
fn project_vertices(views: &[[f64; 3]], cam: &Camera, ssf: f64, side: usize, proj: &mut Vec<Proj>) {
    let lim = side as f64 + 2.0;
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
}

/// A triangle ready to fill: its shading record, its depth plane, its fixed-point
/// vertices (counter-clockwise) and its sample bounds.
struct Prepared {
    tri: Tri,
    plane: Plane,
    fx: [i64; 3],
    fy: [i64; 3],
    bounds: (i64, i64, i64, i64),
}

/// What setting up a triangle reads: the projected and lit vertices, the texturing and
/// the sample grid (`side` samples per axis, `ssf` per pixel).
struct TriSetup<'a, 't> {
    proj: &'a [Proj],
    lit: &'a [f32],
    texturing: Option<&'a Texturing<'t>>,
    side: usize,
    ssf: f64,
}

impl TriSetup<'_, '_> {
    /// Set up triangle `tri_no` (indices `t`), or `None` when it cannot be drawn or covers
    /// no sample centre: orientation, barycentric gradients, smooth or flat shading, its
    /// texture and mip level (advancing `cursor`), the depth plane.
    fn prepare(&self, t: &[u32], tri_no: usize, cursor: &mut usize) -> Option<Prepared> {
        let (proj, lit, side, ssf) = (self.proj, self.lit, self.side, self.ssf);
        let has_normals = !lit.is_empty();
        let mut ix = [t[0] as usize, t[1] as usize, t[2] as usize];
        let (Some(&a), Some(&b), Some(&c)) = (proj.get(ix[0]), proj.get(ix[1]), proj.get(ix[2])) else {
            return None;
        };
        if a.fx == i32::MIN || b.fx == i32::MIN || c.fx == i32::MIN {
            return None;
        }
        let mut fx = [a.fx as i64, b.fx as i64, c.fx as i64];
        let mut fy = [a.fy as i64, b.fy as i64, c.fy as i64];
        let mut z = [a.z as f64, b.z as f64, c.z as f64];
        // Most triangles of a dense mesh in a small grid cell cover no sample centre:
        // skip them before any shading setup (they would not write a sample anyway).
        let bounds = sample_bounds(&fx, &fy, side)?;
        let (area, swapped) = orient(&mut fx, &mut fy)?;
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
        if let Some(tx) = self.texturing {
            assign_texture(&mut tri, tx, tri_no, cursor, area, ssf);
        }
        let (dz1, dz2) = (z[1] - z[0], z[2] - z[0]);
        let plane = Plane {
            z0: z[0] as f32,
            dzdx: (g1[0] * dz1 + g2[0] * dz2) as f32,
            dzdy: (g1[1] * dz1 + g2[1] * dz2) as f32,
            cx: 0.5 - tri.ox,
            cy: 0.5 - tri.oy,
        };
        Some(Prepared {
            tri,
            plane,
            fx,
            fy,
            bounds,
        })
    }
}

/// Give `tri` its primitive's texture and the mip level for its texels per pixel, when
/// it has one and finite `TEXCOORD_0` at all three vertices (`area`: its doubled
/// fixed-point area).
fn assign_texture(tri: &mut Tri, tx: &Texturing<'_>, tri_no: usize, cursor: &mut usize, area: i64, ssf: f64) {
    let tex = tx.tex_of(tri_no, cursor);
    let uv = tri.v.map(|i| tx.uvs[i as usize]);
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

#[cfg(test)]
mod tests {
    use super::camera::dot3;
    use super::coverage::{depth_key, fill_narrow_scalar, fill_span_scalar, is_narrow, raster_tri, Narrow};
    use super::sampling::{floor_f32, mip_chain, to_fixed};
    use super::srgb::{linear_to_srgb8, srgb_to_linear};
    use super::types::{COS_PITCH, COS_YAW, SIN_PITCH, SIN_YAW};
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
