//! Stage grid (cast sheet) layout: dimensions, cell order, rejected-cell cross, and
//! equality with a sequential composition of single renders.

use xbg7::mesh::{Mesh, Primitive};
use xbg7_preview::preview::{stage_grid, stage_grid_with, Cell, GridLayout, CROSS_RGBA};
use xbg7_preview::raster::{render_mesh, Background, Image, RenderOptions};

fn tetra(scale: f32, offset: [f32; 3]) -> Mesh {
    let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    Mesh {
        positions: p
            .iter()
            .map(|v| {
                [
                    v[0] * scale + offset[0],
                    v[1] * scale + offset[1],
                    v[2] * scale + offset[2],
                ]
            })
            .collect(),
        indices: vec![0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3],
        primitives: vec![Primitive {
            first_index: 0,
            index_count: 12,
            material: None,
        }],
        ..Default::default()
    }
}

fn opts() -> RenderOptions {
    RenderOptions {
        size: 999,
        supersample: 2,
        background: Background::Solid([30, 30, 34, 255]),
        wireframe: false,
    }
}

fn crop(img: &Image, x0: u32, y0: u32, side: u32) -> Image {
    let mut out = Vec::new();
    for y in y0..y0 + side {
        for x in x0..x0 + side {
            out.extend_from_slice(&img.pixel(x, y).unwrap());
        }
    }
    Image {
        width: side,
        height: side,
        rgba: out,
    }
}

#[test]
fn layout_follows_the_documented_formula() {
    let l = GridLayout::new(5, 64, 200);
    assert_eq!((l.cell, l.cols, l.rows, l.width(), l.height()), (64, 3, 2, 192, 128));
    assert_eq!(l.origin(4), (64, 64));
    let l = GridLayout::new(2, 64, 1000);
    assert_eq!((l.cols, l.rows, l.width()), (2, 1, 128));
    // A cell wider than max_width shrinks to it; no cells = one blank cell.
    let l = GridLayout::new(3, 500, 100);
    assert_eq!((l.cell, l.cols, l.rows), (100, 1, 3));
    let l = GridLayout::new(0, 0, 0);
    assert_eq!((l.cell, l.cols, l.rows), (1, 1, 1));
    let l = GridLayout::new(450, 128, 2048);
    assert_eq!((l.cols, l.rows, l.width(), l.height()), (16, 29, 2048, 3712));
}

#[test]
fn grid_has_expected_size_cells_and_a_cross_in_the_rejected_cell() {
    let a = tetra(1.0, [0.0; 3]);
    let b = tetra(300.0, [1e4, 0.0, 0.0]);
    let c = tetra(0.01, [-5.0, 2.0, 1.0]);
    let cells = [Cell::Mesh(&a), Cell::Rejected, Cell::Mesh(&b), Cell::Mesh(&c)];
    let o = opts();
    let grid = stage_grid(&cells, 64, 150, &o);
    // cols = min(4, 150 / 64) = 2, rows = 2.
    assert_eq!((grid.width, grid.height, grid.rgba.len()), (128, 128, 128 * 128 * 4));

    // Mesh cells equal their own single render (own fit, size = cell), in order.
    let cell_opts = RenderOptions { size: 64, ..o.clone() };
    assert_eq!(crop(&grid, 0, 0, 64), render_mesh(&a, &cell_opts));
    assert_eq!(crop(&grid, 0, 64, 64), render_mesh(&b, &cell_opts));
    assert_eq!(crop(&grid, 64, 64, 64), render_mesh(&c, &cell_opts));
    // Each sub-model is normalised: all three fill their cells alike (same shape).
    assert_eq!(crop(&grid, 0, 0, 64), crop(&grid, 0, 64, 64));

    // Rejected cell (row 0, col 1): background with a grey cross at its centre.
    let bg = [30, 30, 34, 255];
    assert_eq!(grid.pixel(64 + 32, 32).unwrap(), CROSS_RGBA);
    assert_eq!(grid.pixel(64 + 32 - 4, 32 - 4).unwrap(), CROSS_RGBA);
    assert_eq!(grid.pixel(64 + 32 + 4, 32 - 4).unwrap(), CROSS_RGBA);
    assert_eq!(grid.pixel(64 + 32 + 4, 32).unwrap(), bg);
    assert_eq!(grid.pixel(64 + 2, 2).unwrap(), bg);
    let crossed = crop(&grid, 64, 0, 64)
        .rgba
        .chunks_exact(4)
        .filter(|p| *p == CROSS_RGBA)
        .count();
    assert_eq!(crossed, 2 * 17 - 1);
}

#[test]
fn every_drawn_mesh_cell_is_handed_out_once_as_its_render() {
    // Thumbnails are the grid's own cell renders: each mesh cell (not a rejected one, not
    // one past the pixel budget) is handed out once, by its index, equal to its cell.
    let meshes: Vec<Mesh> = (0..70).map(|i| tetra(1.0 + i as f32, [i as f32, 0.0, 0.0])).collect();
    let mut cells: Vec<Cell<'_>> = meshes.iter().map(Cell::Mesh).collect();
    cells[5] = Cell::Rejected;
    cells[66] = Cell::Rejected;
    let o = opts();
    let got = std::sync::Mutex::new(Vec::new());
    let grid = stage_grid_with(&cells, 16, 160, &o, &|k, img| {
        got.lock().unwrap().push((k, img.clone()))
    });
    let mut got = got.into_inner().unwrap();
    got.sort_by_key(|(k, _)| *k);
    let want: Vec<usize> = (0..70).filter(|k| ![5, 66].contains(k)).collect();
    assert_eq!(got.iter().map(|(k, _)| *k).collect::<Vec<_>>(), want);
    let layout = GridLayout::new(cells.len(), 16, 160);
    for (k, img) in &got {
        let (x, y) = layout.origin(*k);
        assert_eq!(&crop(&grid, x, y, 16), img, "cell {k}");
    }
    assert_eq!(grid, stage_grid(&cells, 16, 160, &o));
}

#[test]
fn grid_is_deterministic_and_respects_max_width() {
    let meshes: Vec<Mesh> = (0..7).map(|i| tetra(1.0 + i as f32, [i as f32, 0.0, 0.0])).collect();
    let mut cells: Vec<Cell<'_>> = meshes.iter().map(Cell::Mesh).collect();
    cells.insert(3, Cell::Rejected);
    let o = RenderOptions {
        background: Background::Transparent,
        ..opts()
    };
    let g1 = stage_grid(&cells, 48, 200, &o);
    let g2 = stage_grid(&cells, 48, 200, &o);
    assert_eq!(g1, g2);
    // 8 cells, cols = 200 / 48 = 4, rows = 2.
    assert_eq!((g1.width, g1.height), (192, 96));
    assert!(g1.width <= 200);
    // Transparent background: rejected cell is transparent except for the cross.
    assert_eq!(g1.pixel(3 * 48 + 1, 1).unwrap(), [0; 4]);
    assert_eq!(g1.pixel(3 * 48 + 24, 24).unwrap(), CROSS_RGBA);
}

#[test]
fn empty_grid_is_one_blank_cell() {
    let g = stage_grid(&[], 32, 1000, &opts());
    assert_eq!(g, Image::filled(32, 32, [30, 30, 34, 255]));
}
