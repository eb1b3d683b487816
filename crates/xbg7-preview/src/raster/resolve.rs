//! From the depth buffer to pixels: each pixel's samples shaded by their triangle and
//! averaged (premultiplied, then sRGB), over the background.

use super::*;

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
pub(super) struct Surface<'a> {
    pub(super) views: &'a [[f64; 3]],
    pub(super) lit: &'a [f32],
    pub(super) texturing: Option<&'a Texturing<'a>>,
}

impl Surface<'_> {
    /// Colour at light intensity `i` and barycentrics `b`: textured albedo when the
    /// triangle has a texture and a finite interpolated `TEXCOORD_0`, else the material.
    pub(super) fn shade(&self, t: &Tri, shader: &Shader, i: f32, b: [f32; 3]) -> [f32; 3] {
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

    pub(super) fn face_normal(&self, t: &Tri) -> [f32; 3] {
        let v = |k: usize| self.views[t.v[k] as usize];
        face_normal([v(0), v(1), v(2)])
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
