//! Colour of a surface sample: what shading reads per vertex ([`Surface`]), the ambient + key light on the face
//! normal, the wireframe overlay, and the shading of one sample of a resolved triangle.

use super::camera::{dot3, view_coords};
use super::coverage::Tri;
use super::sampling::{Texturing, NO_TEX};
use super::srgb::{linear_to_srgb8, srgb_to_linear};
use super::types::{AMBIENT, KEY, KEY_DIR_VIEW, MATERIAL_SRGB, WIRE_SRGB};

pub(super) fn normalize3(v: [f32; 3]) -> Option<[f32; 3]> {
    let l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if !l2.is_finite() || l2 <= 1e-12 {
        return None;
    }
    let inv = 1.0 / l2.sqrt();
    Some([v[0] * inv, v[1] * inv, v[2] * inv])
}

/// Fixed shading parameters, prepared once per render.
pub(super) struct Shader {
    pub(super) material: [f32; 3],
    pub(super) wire: [f32; 3],
    pub(super) light: [f32; 3],
}

impl Shader {
    pub(super) fn new() -> Shader {
        let m = MATERIAL_SRGB.map(srgb_to_linear);
        let w = WIRE_SRGB.map(srgb_to_linear);
        let light = normalize3(KEY_DIR_VIEW).unwrap_or([0.0, 0.0, 1.0]);
        Shader {
            material: m,
            wire: w,
            light,
        }
    }

    /// Linear colour of a view-space unit normal, two-sided.
    pub(super) fn lambert(&self, n: [f32; 3]) -> [f32; 3] {
        self.lambert_albedo(n, self.material)
    }

    /// Linear colour of a view-space unit normal with a linear albedo, two-sided.
    pub(super) fn lambert_albedo(&self, n: [f32; 3], albedo: [f32; 3]) -> [f32; 3] {
        let i = self.intensity(n);
        [albedo[0] * i, albedo[1] * i, albedo[2] * i]
    }

    /// Light intensity `AMBIENT + KEY · max(0, n·L)` of a view-space unit normal, flipped
    /// towards the viewer first (two-sided).
    pub(super) fn intensity(&self, n: [f32; 3]) -> f32 {
        let n = if n[2] < 0.0 { [-n[0], -n[1], -n[2]] } else { n };
        let ndl = n[0] * self.light[0] + n[1] * self.light[1] + n[2] * self.light[2];
        AMBIENT + KEY * ndl.max(0.0)
    }
}

/// The sRGB colour a fully covered pixel of a flat surface with this file-frame normal gets
/// at the fixed view (two-sided: `n` and `−n` give the same colour). A rendered pixel
/// matches it to within 1 per channel (float averaging of the samples).
pub fn shade_color(normal_file: [f32; 3]) -> [u8; 3] {
    let v = view_coords(normal_file);
    let n = normalize3([v[0] as f32, v[1] as f32, v[2] as f32]).unwrap_or([0.0, 0.0, 1.0]);
    Shader::new().lambert(n).map(linear_to_srgb8)
}

/// Unit face normal of a view-space triangle (sign irrelevant: shading is two-sided);
/// `+z` for a degenerate one.
pub(super) fn face_normal(vs: [[f64; 3]; 3]) -> [f32; 3] {
    let u = [vs[1][0] - vs[0][0], vs[1][1] - vs[0][1], vs[1][2] - vs[0][2]];
    let w = [vs[2][0] - vs[0][0], vs[2][1] - vs[0][1], vs[2][2] - vs[0][2]];
    let c = xbg7::mesh::cross(u, w);
    let cl = dot3(c, c).sqrt();
    if cl > 0.0 && cl.is_finite() {
        let icl = 1.0 / cl;
        [(c[0] * icl) as f32, (c[1] * icl) as f32, (c[2] * icl) as f32]
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// 1 / |g|: converts a barycentric with gradient `g` to the distance (in samples) from
/// the opposite edge.
pub(super) fn inv_len(g: [f32; 2]) -> f32 {
    let l = (g[0] * g[0] + g[1] * g[1]).sqrt();
    if l > 0.0 {
        1.0 / l
    } else {
        f32::INFINITY
    }
}

pub(super) fn shade_sample(
    t: &Tri,
    cx: f32,
    cy: f32,
    surf: &Surface<'_>,
    shader: &Shader,
    wire: Option<f32>,
) -> [f32; 3] {
    let dx = cx - t.ox;
    let dy = cy - t.oy;
    let b1 = t.g1[0] * dx + t.g1[1] * dy;
    let b2 = t.g2[0] * dx + t.g2[1] * dy;
    let b0 = 1.0 - b1 - b2;
    if let Some(wd) = wire {
        let g0 = [-(t.g1[0] + t.g2[0]), -(t.g1[1] + t.g2[1])];
        let d = (b0 * inv_len(g0)).min(b1 * inv_len(t.g1)).min(b2 * inv_len(t.g2));
        if d < wd {
            return shader.wire;
        }
    }
    // Gouraud: the vertices' intensities, interpolated (weights clamped to the triangle).
    if t.smooth {
        let l = |k: usize| surf.lit[t.v[k] as usize];
        if b0 >= 0.0 && b1 >= 0.0 && b2 >= 0.0 {
            // Inside the triangle (the usual case): the weights already sum to 1.
            let i = l(0) * b0 + l(1) * b1 + l(2) * b2;
            return surf.shade(t, shader, i, [b0, b1, b2]);
        }
        let (w0, w1, w2) = (b0.max(0.0), b1.max(0.0), b2.max(0.0));
        let w = w0 + w1 + w2;
        if w > 0.0 {
            let i = (l(0) * w0 + l(1) * w1 + l(2) * w2) / w;
            return surf.shade(t, shader, i, [b0, b1, b2]);
        }
    }
    surf.shade(t, shader, shader.intensity(surf.face_normal(t)), [b0, b1, b2])
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
