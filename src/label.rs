//! Names under a grid's cells (`render`'s stage grid, as the report's grid shows them): a
//! 3 × 5 pixel font of the characters output names keep (`A–Z`, `0–9`, `.`, `_`, `-`,
//! `~`; letters upper-cased, anything else `?`), drawn at a scale that fits the cell, on
//! a light strip below each row of cells. The export's own previews have no labels.

use xbg7_preview::preview::GridLayout;
use xbg7_preview::raster::Image;

/// Width and height of a glyph, in font pixels.
const GLYPH_W: u32 = 3;
const GLYPH_H: u32 = 5;
/// The strip under a row of cells, and the ink of its names.
const STRIP: [u8; 4] = [240, 240, 240, 255];
const INK: [u8; 4] = [32, 32, 32, 255];

/// The 3 × 5 bitmap of `c` (row-major, `#` = ink).
fn glyph(c: char) -> &'static str {
    match c.to_ascii_uppercase() {
        'A' => ".#.#.#####.##.#",
        'B' => "##.#.###.#.###.",
        'C' => ".###..#..#...##",
        'D' => "##.#.##.##.###.",
        'E' => "####..##.#..###",
        'F' => "####..##.#..#..",
        'G' => ".###..#.##.#.##",
        'H' => "#.##.#####.##.#",
        'I' => "###.#..#..#.###",
        'J' => "..#..#..##.#.#.",
        'K' => "#.##.###.#.##.#",
        'L' => "#..#..#..#..###",
        'M' => "#.#####.##.##.#",
        'N' => "##.#.##.##.##.#",
        'O' => ".#.#.##.##.#.#.",
        'P' => "##.#.###.#..#..",
        'Q' => ".#.#.##.###..##",
        'R' => "##.#.###.#.##.#",
        'S' => ".###...#...###.",
        'T' => "###.#..#..#..#.",
        'U' => "#.##.##.##.####",
        'V' => "#.##.##.##.#.#.",
        'W' => "#.##.########.#",
        'X' => "#.##.#.#.#.##.#",
        'Y' => "#.##.#.#..#..#.",
        'Z' => "###..#.#.#..###",
        '0' => "####.##.##.####",
        '1' => ".#.##..#..#.###",
        '2' => "##...#.#.#..###",
        '3' => "##...#.#...###.",
        '4' => "#.##.####..#..#",
        '5' => "####..##...###.",
        '6' => ".###..####.####",
        '7' => "###..#.#..#..#.",
        '8' => "####.#####.####",
        '9' => "####.####..###.",
        '.' => ".............#.",
        '_' => "............###",
        '-' => "......###......",
        '~' => "....####.......",
        ' ' => "...............",
        _ => "##...#.#.....#.",
    }
}

/// Font pixel size for a cell of `cell` pixels: 1 below 64, 2 from 64, 3 from 192, …
pub fn scale(cell: u32) -> u32 {
    1 + (cell + 64) / 128
}

/// Height of the strip under each row of cells.
pub fn strip_height(cell: u32) -> u32 {
    let s = scale(cell);
    (GLYPH_H + 2) * s
}

/// The characters of `name` that fit in a cell `cell` pixels wide, `..` marking a cut.
pub fn fit(name: &str, cell: u32) -> String {
    let s = scale(cell);
    let room = (cell.saturating_sub(s) / ((GLYPH_W + 1) * s)) as usize;
    let n = name.chars().count();
    if n <= room {
        return name.to_string();
    }
    let keep = room.saturating_sub(2);
    let mut out: String = name.chars().take(keep).collect();
    out.push_str(&".."[..room.min(2)]);
    out
}

/// `grid` (laid out as `layout`) with `names[i]` written under cell `i`: each row of
/// cells is followed by a [`strip_height`] strip.
pub fn labelled(grid: &Image, layout: &GridLayout, names: &[String]) -> Image {
    let (cell, strip) = (layout.cell, strip_height(layout.cell));
    let rows = layout.rows.min(grid.height / cell.max(1));
    let mut out = Image::filled(grid.width, rows * (cell + strip), STRIP);
    let row_bytes = grid.width as usize * 4;
    for r in 0..rows {
        let from = (r * cell) as usize * row_bytes;
        let to = (r * (cell + strip)) as usize * row_bytes;
        let n = cell as usize * row_bytes;
        if let (Some(src), Some(dst)) = (grid.rgba.get(from..from + n), out.rgba.get_mut(to..to + n)) {
            dst.copy_from_slice(src);
        }
    }
    let s = scale(cell);
    for (i, name) in names.iter().enumerate() {
        let (ox, oy) = layout.origin(i);
        let row = oy / cell.max(1);
        if row >= rows {
            break;
        }
        let y0 = row * (cell + strip) + cell + s;
        for (k, c) in fit(name, cell).chars().enumerate() {
            let x0 = ox + s + k as u32 * (GLYPH_W + 1) * s;
            draw_glyph(&mut out, glyph(c), x0, y0, s);
        }
    }
    out
}

fn draw_glyph(img: &mut Image, bits: &str, x0: u32, y0: u32, s: u32) {
    for (k, b) in bits.bytes().enumerate() {
        if b != b'#' {
            continue;
        }
        let (gx, gy) = (k as u32 % GLYPH_W, k as u32 / GLYPH_W);
        for dy in 0..s {
            for dx in 0..s {
                let (x, y) = (x0 + gx * s + dx, y0 + gy * s + dy);
                if x < img.width && y < img.height {
                    let i = (y as usize * img.width as usize + x as usize) * 4;
                    img.rgba[i..i + 4].copy_from_slice(&INK);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_glyph_is_three_by_five() {
        let chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-~ ?";
        for c in chars.chars() {
            let g = glyph(c);
            assert_eq!(g.len(), 15, "{c}: {g}");
            assert!(g.bytes().all(|b| b == b'#' || b == b'.'), "{c}");
        }
        // No two glyphs alike (so no two characters read the same).
        let mut seen = std::collections::HashMap::new();
        for c in chars.chars() {
            if let Some(d) = seen.insert(glyph(c), c) {
                panic!("{c} and {d} share a glyph");
            }
        }
        assert_eq!(glyph('a'), glyph('A'));
    }

    #[test]
    fn names_are_cut_to_their_cell() {
        assert_eq!(scale(16), 1);
        assert_eq!(scale(128), 2);
        assert_eq!(scale(63), 1);
        assert_eq!(scale(64), 2);
        assert_eq!(scale(1024), 9);
        // 128 px at scale 2: (128 - 2) / 8 = 15 characters.
        assert_eq!(fit("stage_s10_0001", 128), "stage_s10_0001");
        assert_eq!(fit("stage_s10_obj_00012", 128), "stage_s10_obj..");
        assert_eq!(fit("abc", 4), "");
    }

    #[test]
    fn each_row_of_cells_gets_a_strip_with_its_names() {
        let layout = GridLayout::new(3, 64, 128);
        assert_eq!((layout.cols, layout.rows), (2, 2));
        let grid = Image::filled(layout.width(), layout.height(), [9, 9, 9, 255]);
        let names = ["a".to_string(), String::new(), "b".to_string()];
        let img = labelled(&grid, &layout, &names);
        let strip = strip_height(64);
        assert_eq!(strip, 14);
        assert_eq!((img.width, img.height), (128, 2 * (64 + strip)));
        let px = |x: u32, y: u32| {
            let i = ((y * img.width + x) * 4) as usize;
            [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2], img.rgba[i + 3]]
        };
        let inked = |x0: u32, y0: u32| (y0..y0 + strip).any(|y| (x0..x0 + 64).any(|x| px(x, y) == INK));
        // The cells are copied; each strip holds ink under a named cell only.
        assert_eq!(px(0, 0), [9, 9, 9, 255]);
        assert_eq!(px(0, 64 + strip), [9, 9, 9, 255]);
        assert!(inked(0, 64));
        assert!(!inked(64, 64));
        assert!(inked(0, 2 * 64 + strip));
        assert!(!inked(64, 2 * 64 + strip));
    }
}
