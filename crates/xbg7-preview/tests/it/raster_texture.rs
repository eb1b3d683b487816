//! Textured rendering: a quad with a 2×2 checker shows each texel's colour in the expected
//! quarter, minified textures are filtered (mip chain), untextured renders are unchanged,
//! bad UVs fall back to the material, and textured renders and grids are deterministic.

use xbg7::mesh::{Mesh, Primitive};
use xbg7_preview::preview::{stage_grid, Cell};
use xbg7_preview::raster::{
    encode_png, render_mesh, render_mesh_textured, Image, RenderOptions, Texture, MARGIN, PITCH_DEG, YAW_DEG,
};

/// Transparent background, no wireframe (the defaults), at the given size.
fn opts(size: u32, supersample: u32) -> RenderOptions {
    RenderOptions {
        size,
        supersample,
        ..RenderOptions::default()
    }
}

/// The unit quad in the z = 0 plane, UV (0, 0) at its top-left corner (x 0, y 1).
fn quad() -> Mesh {
    Mesh {
        positions: vec![[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]],
        texcoords: vec![vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]],
        indices: vec![0, 1, 2, 2, 1, 3],
        primitives: vec![Primitive {
            first_index: 0,
            index_count: 6,
            material: Some("q_col".into()),
        }],
        ..Default::default()
    }
}

/// Pixel (x right, y down) of a file-frame point, computed independently of the crate
/// (Z mirror, yaw, pitch, orthographic, fitted with MARGIN).
fn pixel_of(points: &[[f32; 3]], size: u32) -> impl Fn([f32; 3]) -> (u32, u32) {
    let view = |p: [f32; 3]| {
        let (y, pi) = (YAW_DEG.to_radians(), PITCH_DEG.to_radians());
        let (x, yy, z) = (p[0] as f64, p[1] as f64, -(p[2] as f64));
        (
            x * y.cos() - z * y.sin(),
            -x * y.sin() * pi.sin() + yy * pi.cos() - z * y.cos() * pi.sin(),
        )
    };
    let v: Vec<(f64, f64)> = points.iter().map(|&p| view(p)).collect();
    let x0 = v.iter().map(|p| p.0).fold(f64::MAX, f64::min);
    let x1 = v.iter().map(|p| p.0).fold(f64::MIN, f64::max);
    let y0 = v.iter().map(|p| p.1).fold(f64::MAX, f64::min);
    let y1 = v.iter().map(|p| p.1).fold(f64::MIN, f64::max);
    let scale = size as f64 * (1.0 - 2.0 * MARGIN) / (x1 - x0).max(y1 - y0);
    let half = size as f64 / 2.0;
    move |p| {
        let (x, y) = view(p);
        (
            (half + (x - (x0 + x1) / 2.0) * scale) as u32,
            (half - (y - (y0 + y1) / 2.0) * scale) as u32,
        )
    }
}

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const WHITE: [u8; 4] = [255, 255, 255, 255];

fn checker() -> Vec<u8> {
    [RED, GREEN, BLUE, WHITE].concat()
}

#[test]
fn a_2x2_checker_shows_each_texel_in_its_quarter() {
    let m = quad();
    let rgba = checker();
    let tex = Texture::new(2, 2, &rgba).unwrap();
    let size = 128;
    let img = render_mesh_textured(&m, &opts(size, 2), &[Some(&tex)]);
    let at = pixel_of(&m.positions, size);
    // Around texel centres (UV 0.25 / 0.75) the texel dominates (the pixel centre is within
    // half a pixel, a bilinear blend of about 1 %, which γ = 2 lifts to ~25 of 255);
    // UV (u, v) is the point (u, 1 − v) of the quad.
    for (uv, want) in [
        ([0.25, 0.25], RED),
        ([0.75, 0.25], GREEN),
        ([0.25, 0.75], BLUE),
        ([0.75, 0.75], WHITE),
    ] {
        let (x, y) = at([uv[0], 1.0 - uv[1], 0.0]);
        let p = img.pixel(x, y).unwrap();
        assert_eq!(p[3], 255, "{uv:?} at ({x}, {y}) covered");
        let on: Vec<usize> = (0..3).filter(|&k| want[k] == 255).collect();
        for k in 0..3 {
            if want[k] == 255 {
                assert!(p[k] > 150, "{uv:?}: channel {k} lit: {p:?}");
            } else {
                assert!(p[k] < 48, "{uv:?}: channel {k} dark: {p:?}");
            }
        }
        // The lit channels share one intensity (the Lambert term).
        assert!(on.iter().all(|&k| p[k].abs_diff(p[on[0]]) <= 3), "{uv:?}: {p:?}");
    }
    // A flat quad: the white quarter (UV 0.75, 0.75) is as bright as the blue one's blue.
    let (x, y) = at([0.75, 0.25, 0.0]);
    let white = img.pixel(x, y).unwrap();
    let (x, y) = at([0.25, 0.25, 0.0]);
    assert!(white[2].abs_diff(img.pixel(x, y).unwrap()[2]) <= 3);
}

#[test]
fn minified_textures_are_filtered_not_aliased() {
    // A 256×256 one-texel black/white checker on a 32-px render: about 8 texels per
    // pixel; the mip chain gives mid grey, never black or white.
    let mut rgba = Vec::new();
    for y in 0..256u32 {
        for x in 0..256u32 {
            let v = if (x + y) % 2 == 0 { 0 } else { 255 };
            rgba.extend_from_slice(&[v, v, v, 255]);
        }
    }
    let tex = Texture::new(256, 256, &rgba).unwrap();
    let m = quad();
    let img = render_mesh_textured(&m, &opts(32, 2), &[Some(&tex)]);
    let at = pixel_of(&m.positions, 32);
    for uv in [[0.3f32, 0.3], [0.5, 0.5], [0.7, 0.6]] {
        let (x, y) = at([uv[0], 1.0 - uv[1], 0.0]);
        let p = img.pixel(x, y).unwrap();
        assert!((40..=200).contains(&p[0]), "{uv:?}: {p:?}");
        assert_eq!((p[0], p[0]), (p[1], p[2]));
    }
}

#[test]
fn untextured_renders_are_unchanged() {
    let m = quad();
    let o = opts(96, 2);
    let plain = render_mesh(&m, &o);
    assert_eq!(render_mesh_textured(&m, &o, &[]), plain);
    assert_eq!(render_mesh_textured(&m, &o, &[None]), plain);
    // No TEXCOORD_0 (or one of the wrong length): the material colour.
    let rgba = checker();
    let tex = Texture::new(2, 2, &rgba).unwrap();
    let mut bare = m.clone();
    bare.texcoords.clear();
    assert_eq!(render_mesh_textured(&bare, &o, &[Some(&tex)]), plain);
    bare.texcoords = vec![vec![[0.0, 0.0]; 3]];
    assert_eq!(render_mesh_textured(&bare, &o, &[Some(&tex)]), plain);
    // Non-finite UVs on every vertex: the material colour too.
    let mut nan = m.clone();
    nan.texcoords = vec![vec![[f32::NAN, 0.0]; 4]];
    assert_eq!(render_mesh_textured(&nan, &o, &[Some(&tex)]), plain);
    // Huge UVs wrap without panicking.
    let mut huge = m.clone();
    huge.texcoords = vec![vec![[1e30, -1e30], [f32::MAX, 0.0], [0.0, f32::MIN], [3e38, 3e38]]];
    let _ = render_mesh_textured(&huge, &o, &[Some(&tex)]);
    // Inconsistent textures are refused up front.
    assert!(Texture::new(2, 2, &rgba[..12]).is_none());
    assert!(Texture::new(0, 0, &[]).is_none());
}

#[test]
fn textured_renders_and_grids_are_deterministic() {
    let m = quad();
    let rgba = checker();
    let tex = Texture::new(2, 2, &rgba).unwrap();
    let o = opts(80, 2);
    let a = encode_png(&render_mesh_textured(&m, &o, &[Some(&tex)]));
    let b = encode_png(&render_mesh_textured(&m, &o, &[Some(&tex)]));
    assert_eq!(a, b);
    // Grid cells (rendered in parallel) equal the single renders.
    let cells = [
        Cell::Textured(&m, vec![Some(&tex)]),
        Cell::Mesh(&m),
        Cell::Textured(&m, vec![Some(&tex)]),
    ];
    let g1 = stage_grid(&cells, 40, 80, &o);
    let g2 = stage_grid(&cells, 40, 80, &o);
    assert_eq!(g1, g2);
    let crop = |img: &Image, ox: u32, oy: u32| {
        let mut c = Image::filled(40, 40, [0; 4]);
        for y in 0..40 {
            for x in 0..40 {
                let p = img.pixel(ox + x, oy + y).unwrap();
                let i = ((y * 40 + x) * 4) as usize;
                c.rgba[i..i + 4].copy_from_slice(&p);
            }
        }
        c
    };
    let cell = opts(40, 2);
    assert_eq!(crop(&g1, 0, 0), render_mesh_textured(&m, &cell, &[Some(&tex)]));
    assert_eq!(crop(&g1, 40, 0), render_mesh(&m, &cell));
    assert_eq!(crop(&g1, 0, 40), crop(&g1, 0, 0));
}

#[test]
fn oversized_textures_are_reduced_before_sampling() {
    // 2050 × 3 (reduced by 8 to 257 × 1 before the mip chain): one solid colour stays
    // that colour, and the same as a 1×1 texture of it.
    let rgba: Vec<u8> = [RED; 2050 * 3].concat();
    let big = Texture::new(2050, 3, &rgba).unwrap();
    let one = Texture::new(1, 1, &RED).unwrap();
    let m = quad();
    let o = opts(48, 2);
    assert_eq!(
        render_mesh_textured(&m, &o, &[Some(&big)]),
        render_mesh_textured(&m, &o, &[Some(&one)])
    );
}
