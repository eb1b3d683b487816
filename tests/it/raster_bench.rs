//! Example images (ignored: run on demand to refresh the docs):
//!
//! ```text
//! cargo test --release --test raster_bench -- --ignored
//! ```
//!
//! Writes `docs/img/raster_example.png` and `docs/img/stage_grid_example.png`. The
//! rasterizer's timings are in `xbg7-export bench --raster`, not in a test.

use crate::shapes;

use shapes::cuboid;
use xbg7::mesh::Mesh;
use xbg7_export::bench::uv_sphere;
use xbg7_preview::preview::{stage_grid, Cell};
use xbg7_preview::raster::{encode_png, render_mesh, Background, RenderOptions};

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

fn finish(positions: Vec<[f32; 3]>, normals: Option<Vec<[f32; 3]>>, indices: Vec<u32>) -> Mesh {
    Mesh::single(positions, normals, indices)
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

fn docs_img(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
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
    let img = render_mesh(&scene, &o);
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
    let grid = stage_grid(&cells, 256, 1024, &go);
    std::fs::write(docs_img("stage_grid_example.png"), encode_png(&grid)).unwrap();
}
