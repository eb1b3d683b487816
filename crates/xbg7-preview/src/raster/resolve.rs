//! From the depth buffer to pixels: each pixel's samples shaded by their triangle and
//! averaged (premultiplied, then sRGB), over the background.

use super::coverage::Tri;
use super::image::Image;
use super::shading::{shade_sample, Shader, Surface};
use super::srgb::{linear_to_srgb8, srgb_to_linear};
use super::types::{Background, RenderOptions, MAX_SUPERSAMPLE, NO_TRI, WIRE_HALF_WIDTH};

/// Shade every sample inside `touched` (the sample rectangle any triangle covered) and
/// box-downsample with premultiplied alpha; pixels outside it are background.
pub(super) fn resolve(
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
    let pixels = Pixels {
        ids,
        tris,
        surf,
        shader,
        side,
        ss_u,
        n_samples,
        bg_premul,
        // Sample j's centre relative to its pixel's first sample (keys are row-major).
        centres: (0..n_keys)
            .map(|j| ((j % ss_u) as f32 + 0.5, (j / ss_u) as f32 + 0.5))
            .collect(),
        // 1/n for a group of n samples (a multiplication, not a division, per group).
        recip: (0..=n_keys).map(|n| 1.0 / n.max(1) as f32).collect(),
    };
    // Per pixel: (triangle id, samples, Σx, Σy) of each triangle it sees.
    let mut groups: Vec<(u32, u32, f32, f32)> = Vec::with_capacity(n_keys);
    for py in py0..=py1 {
        for px in px0..=px1 {
            let o = (py * size_u + px) * 4;
            pixels.gather_keys(px, py, &mut keys);
            let ks = &keys[..n_keys];
            let (bx, by) = ((px * ss_u) as f32, (py * ss_u) as f32);
            let rgba = match wire {
                Some(wd) => pixels.shade_wire(ks, bx, by, wd),
                None => pixels.shade_pixel(ks, bx, by, &mut groups),
            };
            if let Some(rgba) = rgba {
                out[o..o + 4].copy_from_slice(&rgba);
            }
        }
    }
    Image {
        width: size,
        height: size,
        rgba: out,
    }
}

/// What resolving a pixel reads: the sample ids and triangles, the surface and shader,
/// the sample grid, the background and the per-render tables.
struct Pixels<'a> {
    ids: &'a [u32],
    tris: &'a [Tri],
    surf: &'a Surface<'a>,
    shader: &'a Shader,
    side: usize,
    ss_u: usize,
    n_samples: f32,
    bg_premul: [f32; 4],
    /// Sample j's centre relative to its pixel's first sample.
    centres: Vec<(f32, f32)>,
    /// `recip[n]` = 1/n (n ≥ 1).
    recip: Vec<f32>,
}

impl Pixels<'_> {
    /// Pixel `(px, py)`'s sample keys into `keys`, row-major.
    fn gather_keys(&self, px: usize, py: usize, keys: &mut [u32]) {
        let (ids, side, ss_u) = (self.ids, self.side, self.ss_u);
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
    }

    /// Sample `j`'s centre in a pixel whose first sample is at `(bx, by)`.
    fn sample_centre(&self, j: usize, bx: f32, by: f32) -> (f32, f32) {
        (bx + self.centres[j].0, by + self.centres[j].1)
    }

    /// With the wireframe overlay, which varies within a pixel: every sample shaded;
    /// `None` (background kept) when no triangle covers the pixel.
    fn shade_wire(&self, ks: &[u32], bx: f32, by: f32, wd: f32) -> Option<[u8; 4]> {
        let mut acc = [0.0f32; 4];
        let mut hits = 0u32;
        for (j, &id) in ks.iter().enumerate() {
            if id == NO_TRI {
                for (a, b) in acc.iter_mut().zip(self.bg_premul) {
                    *a += b;
                }
                continue;
            }
            hits += 1;
            let (cx, cy) = self.sample_centre(j, bx, by);
            let c = shade_sample(&self.tris[id as usize], cx, cy, self.surf, self.shader, Some(wd));
            acc[0] += c[0];
            acc[1] += c[1];
            acc[2] += c[2];
            acc[3] += 1.0;
        }
        (hits > 0).then(|| premultiplied_to_srgba(acc, self.n_samples))
    }

    /// Without the wireframe, each triangle seen by a pixel is shaded once, at the
    /// centroid of its samples in that pixel, weighted by their count (the shading
    /// varies linearly across a pixel anyway): a pixel inside one triangle costs one
    /// shade, an edge pixel one per triangle instead of one per sample. `None`
    /// (background kept) when no triangle covers the pixel.
    fn shade_pixel(&self, ks: &[u32], bx: f32, by: f32, groups: &mut Vec<(u32, u32, f32, f32)>) -> Option<[u8; 4]> {
        let first = ks[0];
        if ks.iter().all(|&k| k == first) {
            // All samples empty (background), or all on one triangle: shaded once at
            // the pixel centre, the centroid of its samples.
            if first == NO_TRI {
                return None;
            }
            let half = self.ss_u as f32 * 0.5;
            let (cx, cy) = (bx + half, by + half);
            let c = shade_sample(&self.tris[first as usize], cx, cy, self.surf, self.shader, None);
            return Some([linear_to_srgb8(c[0]), linear_to_srgb8(c[1]), linear_to_srgb8(c[2]), 255]);
        }
        groups.clear();
        let mut n_bg = 0u32;
        for (j, &id) in ks.iter().enumerate() {
            if id == NO_TRI {
                n_bg += 1;
                continue;
            }
            let (cx, cy) = self.sample_centre(j, bx, by);
            match groups.iter_mut().find(|g| g.0 == id) {
                Some(g) => {
                    g.1 += 1;
                    g.2 += cx;
                    g.3 += cy;
                }
                None => groups.push((id, 1, cx, cy)),
            }
        }
        let mut acc = self.bg_premul.map(|c| c * n_bg as f32);
        for &(id, n, sx, sy) in groups.iter() {
            let (nf, inv) = (n as f32, self.recip[n as usize]);
            let c = shade_sample(
                &self.tris[id as usize],
                sx * inv,
                sy * inv,
                self.surf,
                self.shader,
                None,
            );
            acc[0] += c[0] * nf;
            acc[1] += c[1] * nf;
            acc[2] += c[2] * nf;
            acc[3] += nf;
        }
        Some(premultiplied_to_srgba(acc, self.n_samples))
    }
}

/// One pixel from its premultiplied linear sum `acc` (RGB, coverage) over `n_samples`
/// samples: un-premultiplied sRGB, alpha = coverage.
pub(super) fn premultiplied_to_srgba(acc: [f32; 4], n_samples: f32) -> [u8; 4] {
    let a = acc[3];
    let inv = 1.0 / a;
    [
        linear_to_srgb8(acc[0] * inv),
        linear_to_srgb8(acc[1] * inv),
        linear_to_srgb8(acc[2] * inv),
        ((a / n_samples).clamp(0.0, 1.0) * 255.0 + 0.5) as u8,
    ]
}
