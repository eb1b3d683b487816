//! Rasterizer behaviour with exact expectations: projection and fit, occlusion, two-sided
//! shading, robustness on bad geometry, determinism of the PNG bytes.

use crate::shapes;

use proptest::prelude::*;
use shapes::cuboid;
use xbg7::mesh::Mesh;
use xbg7_preview::raster::{
    encode_png, render_mesh, shade_color, try_encode_png, Background, Camera, Image, RenderOptions, MARGIN, PITCH_DEG,
    YAW_DEG,
};

fn mesh(positions: Vec<[f32; 3]>, normals: Option<Vec<[f32; 3]>>, indices: Vec<u32>) -> Mesh {
    Mesh::single(positions, normals, indices)
}

/// Transparent background, no wireframe (the defaults), at the given size.
fn opts(size: u32, supersample: u32) -> RenderOptions {
    RenderOptions {
        size,
        supersample,
        ..RenderOptions::default()
    }
}

/// Analytic projection, written independently of the crate: mirror Z (glTF default flip),
/// rotate by yaw around +Y and pitch, orthographic; returns (screen x right, screen y up).
fn view_xy(p: [f32; 3]) -> (f64, f64) {
    let (y, pi) = (YAW_DEG.to_radians(), PITCH_DEG.to_radians());
    let (x, yy, z) = (p[0] as f64, p[1] as f64, -(p[2] as f64));
    let sx = x * y.cos() - z * y.sin();
    let sy = -x * y.sin() * pi.sin() + yy * pi.cos() - z * y.cos() * pi.sin();
    (sx, sy)
}

/// Pixel-space fit of a point set, as documented: bbox of the projection centred, larger
/// side = (1 − 2·MARGIN)·size. Returns a closure mapping a point to pixel (x, y down).
fn analytic_fit(points: &[[f32; 3]], size: u32) -> impl Fn([f32; 3]) -> (f64, f64) {
    let v: Vec<(f64, f64)> = points.iter().map(|&p| view_xy(p)).collect();
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in &v {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let scale = size as f64 * (1.0 - 2.0 * MARGIN) / (x1 - x0).max(y1 - y0);
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let half = size as f64 / 2.0;
    move |p| {
        let (x, y) = view_xy(p);
        (half + (x - cx) * scale, half - (y - cy) * scale)
    }
}

/// Bounds (min_x, min_y, max_x + 1, max_y + 1) of the pixels with alpha > 0.
fn coverage_bounds(img: &Image) -> Option<(u32, u32, u32, u32)> {
    let mut b: Option<(u32, u32, u32, u32)> = None;
    for y in 0..img.height {
        for x in 0..img.width {
            if img.pixel(x, y).unwrap()[3] > 0 {
                b = Some(match b {
                    None => (x, y, x + 1, y + 1),
                    Some((a, c, d, e)) => (a.min(x), c.min(y), d.max(x + 1), e.max(y + 1)),
                });
            }
        }
    }
    b
}

fn close(a: u8, b: u8) -> bool {
    a.abs_diff(b) <= 1
}

fn rgb_close(p: [u8; 4], c: [u8; 3]) -> bool {
    close(p[0], c[0]) && close(p[1], c[1]) && close(p[2], c[2])
}

#[test]
fn unit_cube_silhouette_bounds_match_projection() {
    for (size, ss) in [(200, 2), (256, 4), (97, 1)] {
        let m = cuboid([0.0; 3], [1.0; 3]);
        let img = render_mesh(&m, &opts(size, ss));
        assert_eq!(
            (img.width, img.height, img.rgba.len()),
            (size, size, (size * size * 4) as usize)
        );
        // Analytic silhouette: hexagon spanning W = cos y + sin y, H = cos p + W·sin p.
        let (yw, pt) = (YAW_DEG.to_radians(), PITCH_DEG.to_radians());
        let w = yw.cos() + yw.sin();
        let h = pt.cos() + w * pt.sin();
        assert!(h > w);
        let scale = size as f64 * (1.0 - 2.0 * MARGIN) / h;
        let half = size as f64 / 2.0;
        let (xl, xr) = (half - scale * w / 2.0, half + scale * w / 2.0);
        let (yt, yb) = (half - scale * h / 2.0, half + scale * h / 2.0);
        let (bx0, by0, bx1, by1) = coverage_bounds(&img).unwrap();
        for (got, want) in [(bx0, xl), (bx1, xr), (by0, yt), (by1, yb)] {
            assert!((got as f64 - want).abs() <= 1.0, "size {size}: bound {got} vs {want}");
        }
        // Corners of the bounding box are outside the hexagon, the centre is solid.
        assert_eq!(img.pixel(bx0 + 1, by0 + 1).unwrap()[3], 0);
        assert_eq!(img.pixel(bx1 - 2, by1 - 2).unwrap()[3], 0);
        assert_eq!(img.pixel(size / 2, size / 2).unwrap()[3], 255);
    }
}

#[test]
fn cube_faces_get_their_lambert_colours() {
    // Face centres of the unit cube; each fully covered pixel there shows its face colour.
    let m = cuboid([0.0; 3], [1.0; 3]);
    let size = 256;
    let img = render_mesh(&m, &opts(size, 2));
    let fit = analytic_fit(&m.positions, size);
    // Visible faces from the camera: +Y (top), +X (right), and file −Z (towards viewer
    // after the mirror).
    for (centre, normal) in [
        ([0.5, 1.0, 0.5], [0.0, 1.0, 0.0]),
        ([1.0, 0.5, 0.5], [1.0, 0.0, 0.0]),
        ([0.5, 0.5, 0.0], [0.0, 0.0, -1.0]),
    ] {
        let (x, y) = fit(centre);
        let p = img.pixel(x as u32, y as u32).unwrap();
        assert_eq!(p[3], 255);
        assert!(rgb_close(p, shade_color(normal)), "{p:?} vs {:?}", shade_color(normal));
    }
    // Three visible faces are shaded differently.
    let c = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]].map(shade_color);
    assert!(c[0] != c[1] && c[1] != c[2] && c[0] != c[2]);
}

#[test]
fn camera_matches_analytic_projection() {
    let m = cuboid([-3.0, 0.5, 2.0], [4.0, 1.5, 9.0]);
    let cam = Camera::fit(&m, 300);
    let fit = analytic_fit(&m.positions, 300);
    for &p in &m.positions {
        let a = cam.project(p);
        let b = fit(p);
        assert!((a[0] - b.0).abs() < 1e-6 && (a[1] - b.1).abs() < 1e-6);
    }
}

#[test]
fn z_is_mirrored_like_the_gltf_export() {
    // Three small triangles: at the origin, at file +Z and at file +X. With the Z mirror,
    // file +Z lands up-right of the origin; without it, down-left.
    let tri = |c: [f32; 3]| {
        vec![
            [c[0] - 0.3, c[1] - 0.3, c[2]],
            [c[0] + 0.3, c[1] - 0.3, c[2]],
            [c[0], c[1] + 0.3, c[2]],
        ]
    };
    let mut p = tri([0.0, 0.0, 0.0]);
    p.extend(tri([0.0, 0.0, 10.0]));
    p.extend(tri([10.0, 0.0, 0.0]));
    let m = mesh(p.clone(), None, (0..9).collect());
    let size = 256;
    let img = render_mesh(&m, &opts(size, 2));
    let fit = analytic_fit(&p, size);
    let centroid = |k: usize| {
        let s = &p[k * 3..k * 3 + 3];
        [
            (s[0][0] + s[1][0] + s[2][0]) / 3.0,
            (s[0][1] + s[1][1] + s[2][1]) / 3.0,
            s[0][2],
        ]
    };
    let (ax, ay) = fit(centroid(0));
    let (bx, by) = fit(centroid(1));
    assert!(bx > ax + 50.0 && by < ay - 30.0, "file +Z must appear up-right");
    for k in 0..3 {
        let (x, y) = fit(centroid(k));
        assert_eq!(img.pixel(x as u32, y as u32).unwrap()[3], 255, "triangle {k}");
    }
    // Where the unmirrored +Z triangle would be (point reflection through the origin's
    // image) there is nothing.
    let (ux, uy) = (2.0 * ax - bx, 2.0 * ay - by);
    if ux >= 0.0 && uy >= 0.0 && ux < size as f64 && uy < size as f64 {
        assert_eq!(img.pixel(ux as u32, uy as u32).unwrap()[3], 0);
    }
}

/// A square in the plane z = `z` (file frame), side 2 centred on the axis, with one
/// normal for all four corners.
fn square(z: f32, normal: [f32; 3], base: u32) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<u32>) {
    (
        vec![[-1.0, -1.0, z], [1.0, -1.0, z], [1.0, 1.0, z], [-1.0, 1.0, z]],
        vec![normal; 4],
        vec![base, base + 1, base + 2, base, base + 2, base + 3],
    )
}

#[test]
fn near_square_occludes_far_square_in_either_draw_order() {
    // The viewer is on the file −Z side (glTF +Z after the mirror): z = −0.2 is nearer.
    let near_n = [0.0, 0.0, -1.0];
    let far_n = [0.8, 0.6, 0.0];
    assert_ne!(shade_color(near_n), shade_color(far_n));
    for near_first in [true, false] {
        let (a, b) = if near_first { (-0.2, 0.2) } else { (0.2, -0.2) };
        let (na, nb) = if near_first { (near_n, far_n) } else { (far_n, near_n) };
        let (mut p, mut n, mut i) = square(a, na, 0);
        let (p2, n2, i2) = square(b, nb, 4);
        p.extend(p2);
        n.extend(n2);
        i.extend(i2);
        let img = render_mesh(&mesh(p, Some(n), i), &opts(128, 2));
        let c = img.pixel(64, 64).unwrap();
        assert_eq!(c[3], 255);
        assert!(rgb_close(c, shade_color(near_n)), "near_first={near_first}: {c:?}");
        assert!(!rgb_close(c, shade_color(far_n)));
    }
}

#[test]
fn single_triangle_seen_from_behind_is_lit() {
    // Normal +Z in the file frame points away from the viewer (who is on the −Z side).
    let p = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]];
    let centroid = [2.0 / 3.0, 2.0 / 3.0, 0.0];
    let back = mesh(p.clone(), Some(vec![[0.0, 0.0, 1.0]; 3]), vec![0, 1, 2]);
    let front = mesh(p.clone(), Some(vec![[0.0, 0.0, -1.0]; 3]), vec![0, 1, 2]);
    let flat = mesh(p.clone(), None, vec![0, 2, 1]);
    let o = RenderOptions {
        background: Background::Solid([0, 0, 0, 255]),
        ..opts(128, 2)
    };
    let cam = Camera::fit(&back, 128);
    let c = cam.project(centroid);
    let (x, y) = (c[0] as u32, c[1] as u32);
    let pb = render_mesh(&back, &o).pixel(x, y).unwrap();
    let pf = render_mesh(&front, &o).pixel(x, y).unwrap();
    let pn = render_mesh(&flat, &o).pixel(x, y).unwrap();
    let want = shade_color([0.0, 0.0, -1.0]);
    assert_eq!(shade_color([0.0, 0.0, 1.0]), want);
    for p in [pb, pf, pn] {
        assert!(rgb_close(p, want), "{p:?} vs {want:?}");
        assert!(p[0] as u32 + p[1] as u32 + p[2] as u32 > 200, "not dark: {p:?}");
    }
}

#[test]
fn empty_and_degenerate_meshes_give_the_background() {
    let bg = [10, 20, 30, 255];
    let o = RenderOptions {
        background: Background::Solid(bg),
        ..opts(64, 2)
    };
    let want = Image::filled(64, 64, bg);
    let empty = Mesh::default();
    let point = mesh(vec![[5.0, 5.0, 5.0]; 3], None, vec![0, 1, 2, 2, 1, 0]);
    let bad_index = mesh(vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], None, vec![0, 1, 7]);
    for m in [empty, point, bad_index] {
        assert_eq!(render_mesh(&m, &o), want);
    }
    let t = render_mesh(&Mesh::default(), &opts(16, 3));
    assert_eq!(t, Image::filled(16, 16, [0; 4]));
}

#[test]
fn non_finite_triangles_are_skipped_exactly() {
    let clean = cuboid([0.0; 3], [1.0; 3]);
    let mut dirty = clean.clone();
    for (k, bad) in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY].into_iter().enumerate() {
        let base = dirty.positions.len() as u32;
        dirty.positions.push([bad, 0.0, 0.0]);
        dirty.positions.push([0.0, 1e6, 0.0]);
        dirty.positions.push([0.0, 0.0, 1e6 * k as f32]);
        dirty.indices.extend_from_slice(&[base, base + 1, base + 2]);
    }
    dirty.primitives[0].index_count = dirty.indices.len() as u32;
    let o = opts(96, 2);
    assert_eq!(render_mesh(&dirty, &o), render_mesh(&clean, &o));
    // All-NaN mesh: nothing drawn, no panic.
    let nan = mesh(vec![[f32::NAN; 3]; 3], Some(vec![[f32::NAN; 3]; 3]), vec![0, 1, 2]);
    assert_eq!(render_mesh(&nan, &o), Image::filled(96, 96, [0; 4]));
}

#[test]
fn bad_normals_fall_back_to_face_normals() {
    let p = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]];
    let o = opts(64, 2);
    let flat = render_mesh(&mesh(p.clone(), None, vec![0, 1, 2]), &o);
    for ns in [
        vec![[0.0; 3]; 3],
        vec![[f32::NAN, 0.0, 1.0]; 3],
        vec![[0.0, 0.0, 1.0]; 2], // wrong length
    ] {
        assert_eq!(render_mesh(&mesh(p.clone(), Some(ns), vec![0, 1, 2]), &o), flat);
    }
}

#[test]
fn huge_skybox_coordinates_render() {
    // A 600 000-unit quad (stage skybox plane) plus a tiny triangle far inside.
    let s = 300_000.0;
    let m = mesh(
        vec![[-s, -s, 0.0], [s, -s, 0.0], [s, s, 0.0], [-s, s, 0.0]],
        Some(vec![[0.0, 0.0, -1.0]; 4]),
        vec![0, 1, 2, 0, 2, 3],
    );
    let img = render_mesh(&m, &opts(128, 2));
    let p = img.pixel(64, 64).unwrap();
    assert_eq!(p[3], 255);
    assert!(rgb_close(p, shade_color([0.0, 0.0, -1.0])));
    let (bx0, by0, bx1, by1) = coverage_bounds(&img).unwrap();
    // Fitted: the larger side spans (1 − 2·MARGIN)·128 ≈ 112.6 pixels.
    let span = (bx1 - bx0).max(by1 - by0) as f64;
    assert!((span - 128.0 * (1.0 - 2.0 * MARGIN)).abs() <= 2.0, "{span}");
}

#[test]
fn edges_are_antialiased() {
    let img = render_mesh(&cuboid([0.0; 3], [1.0; 3]), &opts(128, 4));
    let partial = img.rgba.chunks_exact(4).filter(|p| p[3] > 0 && p[3] < 255).count();
    assert!(partial > 50, "only {partial} partially covered pixels");
    // No supersampling: alpha is 0 or 255 only.
    let hard = render_mesh(&cuboid([0.0; 3], [1.0; 3]), &opts(128, 1));
    assert!(hard.rgba.chunks_exact(4).all(|p| p[3] == 0 || p[3] == 255));
}

#[test]
fn wireframe_overlay_darkens_edges_only() {
    let m = cuboid([0.0; 3], [1.0; 3]);
    let plain = render_mesh(&m, &opts(128, 2));
    let wired = render_mesh(
        &m,
        &RenderOptions {
            wireframe: true,
            ..opts(128, 2)
        },
    );
    assert_ne!(plain, wired);
    // The alpha channel (coverage) does not change, and face interiors stay the same.
    let a = |i: &Image| i.rgba.chunks_exact(4).map(|p| p[3]).collect::<Vec<_>>();
    assert_eq!(a(&plain), a(&wired));
    let fit = analytic_fit(&m.positions, 128);
    // Inside the top face, away from its edges and its diagonal (x = z).
    let (x, y) = fit([0.3, 1.0, 0.6]);
    assert_eq!(plain.pixel(x as u32, y as u32).unwrap()[3], 255);
    assert_eq!(plain.pixel(x as u32, y as u32), wired.pixel(x as u32, y as u32));
    // Default is off.
    assert!(!RenderOptions::default().wireframe);
}

#[test]
fn png_bytes_are_identical_across_runs_and_decode_back() {
    let m = cuboid([-1.0, 0.0, 2.0], [3.0, 1.0, 2.5]);
    let o = RenderOptions::default();
    let a = encode_png(&render_mesh(&m, &o));
    let b = encode_png(&render_mesh(&m, &o));
    assert_eq!(a, b);
    assert_eq!(&a[..8], b"\x89PNG\r\n\x1a\n");
    let img = render_mesh(&m, &o);
    let dec = png::Decoder::new(std::io::Cursor::new(a));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (512, 512));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!(&buf[..info.buffer_size()], &img.rgba[..]);
}

#[test]
fn invalid_images_do_not_panic_the_encoder() {
    let bad = Image {
        width: 3,
        height: 2,
        rgba: vec![0; 5],
    };
    assert!(try_encode_png(&bad).is_err());
    assert!(try_encode_png(&Image {
        width: 0,
        height: 0,
        rgba: vec![]
    })
    .is_err());
    assert_eq!(encode_png(&bad), encode_png(&Image::filled(1, 1, [0; 4])));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_meshes_never_panic_and_are_deterministic(
        pos in prop::collection::vec(
            prop::array::uniform3(prop_oneof![
                8 => -1e3f32..1e3f32,
                1 => Just(f32::NAN),
                1 => Just(f32::INFINITY),
                1 => -4e5f32..4e5f32,
                1 => Just(0.0f32),
            ]),
            0..24,
        ),
        idx in prop::collection::vec(0u32..30, 0..60),
        with_normals in any::<bool>(),
        wire in any::<bool>(),
        ss in 1u32..4,
    ) {
        let n = idx.len() / 3 * 3;
        let normals = with_normals.then(|| pos.iter().map(|p| [p[1], p[2], p[0]]).collect());
        let m = mesh(pos, normals, idx[..n].to_vec());
        let o = RenderOptions { size: 40, supersample: ss, background: Background::Solid([1, 2, 3, 4]), wireframe: wire };
        let a = render_mesh(&m, &o);
        let b = render_mesh(&m, &o);
        prop_assert_eq!(a.rgba.len(), 40 * 40 * 4);
        prop_assert_eq!(&a, &b);
    }
}

#[test]
fn closed_sphere_has_no_holes() {
    // UV sphere, radius 1 at the origin: every pixel well inside its disc is fully covered.
    let (rings, segs) = (40u32, 64u32);
    let mut p = Vec::new();
    for r in 0..=rings {
        let th = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segs {
            let ph = 2.0 * std::f32::consts::PI * s as f32 / segs as f32;
            p.push([th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin()]);
        }
    }
    let row = segs + 1;
    let mut idx = Vec::new();
    for r in 0..rings {
        for s in 0..segs {
            let (a, b, c, d) = (r * row + s, r * row + s + 1, (r + 1) * row + s, (r + 1) * row + s + 1);
            idx.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    let m = mesh(p.clone(), Some(p), idx);
    for ss in [1, 2, 3] {
        let img = render_mesh(&m, &opts(200, ss));
        let cam = Camera::fit(&m, 200);
        let c = cam.project([0.0; 3]);
        let radius = cam.scale * 0.99 - 2.0; // inscribed polygon, minus a 2 px border
        let mut inside = 0;
        for y in 0..200u32 {
            for x in 0..200u32 {
                let (dx, dy) = (x as f64 + 0.5 - c[0], y as f64 + 0.5 - c[1]);
                if dx * dx + dy * dy < radius * radius {
                    inside += 1;
                    assert_eq!(img.pixel(x, y).unwrap()[3], 255, "hole at {x},{y} (ss {ss})");
                }
            }
        }
        assert!(inside > 20_000);
    }
}
