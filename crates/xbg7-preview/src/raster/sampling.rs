//! Albedo textures: the box-filtered mip chain prepared once per texture, and the
//! per-sample lookup (perspective-free barycentric UVs, repeat wrap, bilinear in linear
//! light, the level chosen per triangle from its texels per pixel).

use xbg7::mesh::Mesh;

use super::srgb::srgb_to_linear;

/// Texture id of an untextured triangle.
pub(super) const NO_TEX: u32 = u32::MAX;

/// An albedo for `render_mesh_textured`, prepared for sampling: its box-filtered mip
/// chain in linear light (see [`MAX_TEXTURE_SIDE`]). Built once per image and shared by
/// every render that uses it (a stage grid samples one texture in many cells).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    pub(super) levels: Vec<Level>,
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
pub(super) struct Level {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) texels: Vec<[u16; 3]>,
}

/// Per-render texture state: each distinct texture's mip chain, per-primitive texture ids.
pub(super) struct Texturing<'a> {
    pub(super) uvs: &'a [[f32; 2]],
    /// Mip chains (level 0 first) of the distinct textures.
    pub(super) levels: Vec<&'a [Level]>,
    /// Per primitive: index into `levels`, or `NO_TEX`.
    pub(super) prim_tex: Vec<u32>,
    /// Per primitive: first and one-past-last triangle number.
    pub(super) prim_tris: Vec<(usize, usize)>,
}

/// Linear light in [0, 1] to a texel channel.
pub(super) fn to_fixed(c: f32) -> u16 {
    (c.clamp(0.0, 1.0) * 65535.0 + 0.5) as u16
}

/// A texel back to linear light.
pub(super) fn from_fixed(t: [u16; 3]) -> [f32; 3] {
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
pub(super) fn mip_chain(width: u32, height: u32, rgba: &[u8], max_side: u32) -> Vec<Level> {
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
pub(super) fn add_squares<const F: usize>(row: &[u8], squares: &mut Vec<u16>, acc: &mut [[u64; 3]]) {
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
pub(super) fn add_pixel_squares(a: &mut [u64; 3], p: &[u8]) {
    for k in 0..3 {
        a[k] += u64::from(p[k]) * u64::from(p[k]);
    }
}

/// [`to_fixed`] of the linear light of every sRGB byte.
pub(super) fn fixed_lut() -> [u16; 256] {
    std::array::from_fn(|c| to_fixed(srgb_to_linear(c as u8)))
}

impl<'a> Texturing<'a> {
    /// `None` when nothing can be textured (no albedo, or no usable `TEXCOORD_0`).
    pub(super) fn new(mesh: &'a Mesh, albedo: &[Option<&'a Texture>]) -> Option<Texturing<'a>> {
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
    pub(super) fn tex_of(&self, tri: usize, cursor: &mut usize) -> u32 {
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
    pub(super) fn level_for(&self, tex: u32, uv_area2: f64, area2: f64) -> u32 {
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
    pub(super) fn sample(&self, tex: u32, level: u32, uv: [f32; 2]) -> Option<[f32; 3]> {
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
pub(super) fn floor_f32(x: f32) -> f32 {
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
pub(super) fn wrap_pair(i: f32, n: u32) -> (usize, usize) {
    let n = i64::from(n.max(1));
    let i = i as i64;
    let a = if (0..n).contains(&i) { i } else { i.rem_euclid(n) };
    let b = if a + 1 == n { 0 } else { a + 1 };
    (a as usize, b as usize)
}
