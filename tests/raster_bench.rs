//! Timing and example images (ignored: run on demand, never asserts timings):
//!
//! ```text
//! cargo test --release --test raster_bench -- --ignored --nocapture
//! ```
//!
//! Prints the render time of a 5 000-triangle sphere at 512² with 2×2 supersampling and
//! of a 4-cell stage grid, and writes `docs/img/raster_example.png` and
//! `docs/img/stage_grid_example.png`.

use std::time::{Duration, Instant};

use xbg7_export::mesh::{Mesh, Primitive};
use xbg7_export::preview::{stage_grid, Cell};
use xbg7_export::raster::{encode_png, render_mesh, Background, RenderOptions};

/// UV sphere with smooth normals: `2·segments·(rings − 1)` triangles.
fn uv_sphere(rings: u32, segments: u32, radius: f32, centre: [f32; 3]) -> Mesh {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    for r in 0..=rings {
        let th = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let ph = 2.0 * std::f32::consts::PI * s as f32 / segments as f32;
            let n = [th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin()];
            normals.push(n);
            positions.push([
                centre[0] + radius * n[0],
                centre[1] + radius * n[1],
                centre[2] + radius * n[2],
            ]);
        }
    }
    let row = segments + 1;
    let mut indices = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let (a, b, c, d) = (r * row + s, r * row + s + 1, (r + 1) * row + s, (r + 1) * row + s + 1);
            if r != 0 {
                indices.extend_from_slice(&[a, b, c]);
            }
            if r != rings - 1 {
                indices.extend_from_slice(&[b, d, c]);
            }
        }
    }
    finish(positions, Some(normals), indices)
}

/// Torus around the Y axis, smooth normals.
fn torus(major: f32, minor: f32, nu: u32, nv: u32, centre: [f32; 3]) -> Mesh {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    for i in 0..nu {
        let u = 2.0 * std::f32::consts::PI * i as f32 / nu as f32;
        for j in 0..nv {
            let v = 2.0 * std::f32::consts::PI * j as f32 / nv as f32;
            let n = [v.cos() * u.cos(), v.sin(), v.cos() * u.sin()];
            let r = major + minor * v.cos();
            positions.push([
                centre[0] + r * u.cos(),
                centre[1] + minor * v.sin(),
                centre[2] + r * u.sin(),
            ]);
            normals.push(n);
        }
    }
    let mut indices = Vec::new();
    for i in 0..nu {
        for j in 0..nv {
            let a = i * nv + j;
            let b = ((i + 1) % nu) * nv + j;
            let c = i * nv + (j + 1) % nv;
            let d = ((i + 1) % nu) * nv + (j + 1) % nv;
            indices.extend_from_slice(&[a, b, d, a, d, c]);
        }
    }
    finish(positions, Some(normals), indices)
}

/// Box without normals (face normals are used).
fn cuboid(lo: [f32; 3], hi: [f32; 3]) -> Mesh {
    let mut p = Vec::new();
    for i in 0..8u32 {
        p.push([
            if i & 1 == 0 { lo[0] } else { hi[0] },
            if i & 2 == 0 { lo[1] } else { hi[1] },
            if i & 4 == 0 { lo[2] } else { hi[2] },
        ]);
    }
    let mut idx = Vec::new();
    for q in [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ] {
        idx.extend_from_slice(&[q[0], q[1], q[2], q[0], q[2], q[3]]);
    }
    finish(p, None, idx)
}

fn finish(positions: Vec<[f32; 3]>, normals: Option<Vec<[f32; 3]>>, indices: Vec<u32>) -> Mesh {
    let n = indices.len() as u32;
    Mesh {
        positions,
        normals,
        indices,
        primitives: vec![Primitive {
            first_index: 0,
            index_count: n,
            material: None,
        }],
        ..Default::default()
    }
}

/// Concatenate meshes (normals kept only when all have them).
fn merge(parts: &[Mesh]) -> Mesh {
    let mut positions = Vec::new();
    let mut normals = Some(Vec::new());
    let mut indices = Vec::new();
    for m in parts {
        let base = positions.len() as u32;
        positions.extend_from_slice(&m.positions);
        match (&mut normals, &m.normals) {
            (Some(ns), Some(mn)) => ns.extend_from_slice(mn),
            _ => normals = None,
        }
        indices.extend(m.indices.iter().map(|i| i + base));
    }
    finish(positions, normals, indices)
}

fn time<F: FnMut()>(runs: u32, mut f: F) -> (Duration, Duration) {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    (t[0], t[t.len() / 2])
}

fn docs_img(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
#[ignore]
fn bench_sphere_5000_at_512() {
    let sphere = uv_sphere(51, 50, 10.0, [0.0; 3]);
    assert_eq!(sphere.triangle_count(), 5000);
    let o = RenderOptions::default();
    assert_eq!((o.size, o.supersample), (512, 2));
    let mut img = None;
    let (min, med) = time(30, || img = Some(render_mesh(&sphere, &o)));
    println!("render 5000-tri sphere 512² ss2: min {min:?}, median {med:?}");
    let img = img.unwrap();
    let (pmin, pmed) = time(10, || {
        std::hint::black_box(encode_png(&img));
    });
    println!("encode_png 512²: min {pmin:?}, median {pmed:?}");
    let wired = RenderOptions { wireframe: true, ..o };
    let (wmin, wmed) = time(10, || {
        std::hint::black_box(render_mesh(&sphere, &wired));
    });
    println!("render with wireframe: min {wmin:?}, median {wmed:?}");
}

#[test]
#[ignore]
fn example_images() {
    let scene = merge(&[
        uv_sphere(51, 50, 1.0, [0.0, 1.0, 0.0]),
        torus(1.7, 0.35, 64, 24, [0.0, 1.0, 0.0]),
        cuboid([-2.4, -0.3, -2.4], [2.4, 0.0, 2.4]),
        cuboid([1.2, 0.0, 1.2], [2.2, 1.4, 2.2]),
    ]);
    let o = RenderOptions::default();
    let s = Instant::now();
    let img = render_mesh(&scene, &o);
    println!(
        "example scene ({} tris) 512² ss2: {:?}",
        scene.triangle_count(),
        s.elapsed()
    );
    std::fs::write(docs_img("raster_example.png"), encode_png(&img)).unwrap();

    let a = uv_sphere(51, 50, 10.0, [0.0; 3]);
    let b = torus(30.0, 8.0, 48, 16, [100.0, 0.0, 0.0]);
    let c = cuboid([0.0, 0.0, 0.0], [4.0, 1.0, 9.0]);
    let cells = [Cell::Mesh(&a), Cell::Mesh(&b), Cell::Rejected, Cell::Mesh(&c)];
    let go = RenderOptions {
        background: Background::Solid([40, 42, 48, 255]),
        wireframe: true,
        ..o
    };
    let mut grid = None;
    let (min, med) = time(10, || grid = Some(stage_grid(&cells, 256, 1024, &go)));
    let grid = grid.unwrap();
    println!(
        "stage_grid 4 cells of 256² ss2 ({}x{}): min {min:?}, median {med:?}",
        grid.width, grid.height
    );
    std::fs::write(docs_img("stage_grid_example.png"), encode_png(&grid)).unwrap();
}
