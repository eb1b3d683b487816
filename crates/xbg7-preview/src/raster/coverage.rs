//! Which triangle covers which sample: fixed-point projected vertices, edge functions,
//! the depth buffer with its plane equations, spans of wide triangles and the narrow
//! triangles' columns (scalar, and SSE2 on x86_64, with identical results).

use super::types::{LANES, NARROW_EXTENT, SMALL_SPAN, SUB};

/// Monotonic map of a (non-NaN) f32 to i32: `a < b ⇔ depth_key(a) < depth_key(b)`;
/// every value, even −inf, maps above [`EMPTY_DEPTH`].
pub(super) fn depth_key(z: f32) -> i32 {
    let b = z.to_bits() as i32;
    // Negative: the magnitude bits flipped, so a larger magnitude is smaller (branch-free).
    b ^ (((b >> 31) as u32) >> 1) as i32
}

/// Depth of a sample no triangle covers (below every [`depth_key`]).
pub(super) const EMPTY_DEPTH: i32 = i32::MIN;

/// Per-triangle shading setup, in sample space.
pub(super) struct Tri {
    pub(super) v: [u32; 3],
    pub(super) ox: f32,
    pub(super) oy: f32,
    /// Gradients of barycentrics b1 and b2 (b0 = 1 − b1 − b2).
    pub(super) g1: [f32; 2],
    pub(super) g2: [f32; 2],
    /// All three vertices have a usable normal (else the face normal shades it).
    pub(super) smooth: bool,
    /// Texture (index into [`Texturing::levels`]) and mip level, or `NO_TEX`.
    pub(super) tex: u32,
    pub(super) level: u32,
}

/// `x.round()` (half away from zero) without the libm call baseline x86-64 makes for it.
pub(super) fn round_to_i32(x: f64) -> i32 {
    (x + 0.5f64.copysign(x)) as i32
}

/// Set `v` to `n` copies of `value`, reusing its allocation (`fill` is a memset-speed
/// loop; `clear` + `resize` writes one element at a time).
pub(super) fn reset<T: Copy>(v: &mut Vec<T>, n: usize, value: T) {
    v.truncate(n);
    v.fill(value);
    v.resize(n, value);
}

/// The per-sample depth test: depth keys and the triangle id that wrote each sample.
pub(super) struct DepthBuffer<'a> {
    pub(super) depth: &'a mut [i32],
    pub(super) ids: &'a mut [u32],
    pub(super) side: usize,
}

/// A triangle's depth plane in sample space: the depth at sample `(sx, sy)` is
/// `z0 + dzdx·(sx + cx) + dzdy·(sy + cy)` (`cx`, `cy`: ½ minus vertex 0's position).
#[derive(Clone, Copy, Debug)]
pub(super) struct Plane {
    pub(super) z0: f32,
    pub(super) dzdx: f32,
    pub(super) dzdy: f32,
    pub(super) cx: f32,
    pub(super) cy: f32,
}

impl Plane {
    pub(super) fn row(&self, sy: i64) -> f32 {
        self.z0 + self.dzdy * (sy as f32 + self.cy)
    }

    pub(super) fn at(&self, row: f32, sx: i64) -> f32 {
        row + self.dzdx * (sx as f32 + self.cx)
    }

    /// No sample of a `side`² grid can get a NaN or infinite depth (every term of
    /// [`Plane::at`] stays far below `f32::MAX`).
    pub(super) fn is_tame(&self, side: usize) -> bool {
        let reach = side as f32 + 2.0 + self.cx.abs() + self.cy.abs();
        let m = self.z0.abs() + (self.dzdx.abs() + self.dzdy.abs()) * reach;
        m.is_finite() && m < 1e37
    }
}

/// Twice the signed area of a fixed-point triangle (positive: the orientation
/// [`raster_tri`] expects).
pub(super) fn signed_area(fx: &[i64; 3], fy: &[i64; 3]) -> i64 {
    (fx[1] - fx[0]) * (fy[2] - fy[0]) - (fy[1] - fy[0]) * (fx[2] - fx[0])
}

/// Orient a fixed-point triangle for [`raster_tri`], swapping vertices 1 and 2 when it
/// is negative: `(twice its area, whether it swapped)`, `None` for a zero-area triangle
/// (nothing to draw).
pub(super) fn orient(fx: &mut [i64; 3], fy: &mut [i64; 3]) -> Option<(i64, bool)> {
    let area = signed_area(fx, fy);
    if area < 0 {
        fx.swap(1, 2);
        fy.swap(1, 2);
    }
    (area != 0).then_some((area.abs(), area < 0))
}

/// The sample rectangle `(sx0, sx1, sy0, sy1)` (inclusive) whose centres
/// (`s·SUB + SUB/2`) lie inside the triangle's fixed-point bounding box, clipped to the
/// `side × side` sample grid; `None` when it holds no sample.
pub(super) fn sample_bounds(fx: &[i64; 3], fy: &[i64; 3], side: usize) -> Option<(i64, i64, i64, i64)> {
    let half = SUB / 2;
    let last = side as i64 - 1;
    let (min_x, max_x) = (fx[0].min(fx[1]).min(fx[2]), fx[0].max(fx[1]).max(fx[2]));
    let (min_y, max_y) = (fy[0].min(fy[1]).min(fy[2]), fy[0].max(fy[1]).max(fy[2]));
    let sx0 = ((min_x - half + SUB - 1).div_euclid(SUB)).max(0);
    let sx1 = ((max_x - half).div_euclid(SUB)).min(last);
    let sy0 = ((min_y - half + SUB - 1).div_euclid(SUB)).max(0);
    let sy1 = ((max_y - half).div_euclid(SUB)).min(last);
    (sx0 <= sx1 && sy0 <= sy1).then_some((sx0, sx1, sy0, sy1))
}

/// Z-test triangle `id` with depth plane `p` at every sample it covers (the samples
/// [`raster_tri`] reports): a sample keeps the closer depth, the earlier triangle on a
/// tie. A triangle at most [`LANES`] samples wide takes [`fill_narrow`]; the others
/// [`raster_tri`]'s spans, [`LANES`] samples at a time ([`fill_span`]).
pub(super) fn fill_triangle(
    buf: &mut DepthBuffer<'_>,
    fx: &[i64; 3],
    fy: &[i64; 3],
    bounds: (i64, i64, i64, i64),
    p: &Plane,
    id: u32,
) {
    if !p.is_tame(buf.side) {
        // Depths may overflow to inf or NaN (extreme depth ranges): the plain span fill
        // checks each sample.
        raster_tri(fx, fy, bounds, |sy, lo, hi| fill_span_scalar(buf, p, sy, lo, hi, id));
    } else if is_narrow(fx, fy, bounds) {
        fill_narrow(buf, &Narrow::new(fx, fy, bounds, p), p, id);
    } else {
        raster_tri(fx, fy, bounds, |sy, lo, hi| fill_span(buf, p, sy, lo, hi, id));
    }
}

/// A triangle [`fill_narrow`] takes: sample rectangle at most [`LANES`] wide, extent at
/// most [`NARROW_EXTENT`].
pub(super) fn is_narrow(fx: &[i64; 3], fy: &[i64; 3], bounds: (i64, i64, i64, i64)) -> bool {
    let extent = |v: &[i64; 3]| v[0].max(v[1]).max(v[2]) - v[0].min(v[1]).min(v[2]);
    bounds.1 - bounds.0 < LANES as i64 && extent(fx) <= NARROW_EXTENT && extent(fy) <= NARROW_EXTENT
}

/// A narrow triangle (sample rectangle at most [`LANES`] wide, extent at most
/// [`NARROW_EXTENT`]) set up for [`fill_narrow`]: its `i32` edge functions (the same
/// values and top-left rule as [`raster_tri`]) at the [`LANES`] samples of the
/// rectangle's first row, their step per row, and each lane's depth offset.
pub(super) struct Narrow {
    pub(super) sx0: i64,
    pub(super) sy0: i64,
    pub(super) sy1: i64,
    pub(super) w: [[i32; LANES]; 3],
    pub(super) step_y: [i32; 3],
    /// Lane `j` is inside the rectangle (`j ≤ sx1 − sx0`).
    pub(super) valid: [bool; LANES],
    /// `dzdx·(sx0 + j + cx)` per lane (see [`Plane::at`]).
    pub(super) dz: [f32; LANES],
}

impl Narrow {
    pub(super) fn new(fx: &[i64; 3], fy: &[i64; 3], bounds: (i64, i64, i64, i64), p: &Plane) -> Narrow {
        let (sx0, sx1, sy0, sy1) = bounds;
        let (row, step_x, step_y) = edge_functions(fx, fy, sx0, sy0);
        Narrow {
            sx0,
            sy0,
            sy1,
            w: std::array::from_fn(|k| std::array::from_fn(|j| (row[k] + step_x[k] * j as i64) as i32)),
            step_y: step_y.map(|s| s as i32),
            valid: std::array::from_fn(|j| j as i64 <= sx1 - sx0),
            dz: std::array::from_fn(|j| p.dzdx * ((sx0 + j as i64) as f32 + p.cx)),
        }
    }
}

/// Fill a [`Narrow`] triangle: each row's [`LANES`] samples are tested at once (lanes
/// right of the rectangle write back what they read; the buffers' padding keeps the last
/// row's in bounds). SSE2 on x86-64 (no branch per sample), plain code elsewhere.
pub(super) fn fill_narrow(buf: &mut DepthBuffer<'_>, n: &Narrow, p: &Plane, id: u32) {
    // SAFETY: SSE2 is part of the x86-64 baseline, enabled on every x86-64 CPU.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        sse2::fill_narrow(buf, n, p, id)
    };
    #[cfg(not(target_arch = "x86_64"))]
    fill_narrow_scalar(buf, n, p, id);
}

/// Z-test the span `lo..=hi` of row `sy` (SSE2 on x86-64, plain code elsewhere).
pub(super) fn fill_span(buf: &mut DepthBuffer<'_>, p: &Plane, sy: i64, lo: i64, hi: i64, id: u32) {
    // SAFETY: as in `fill_narrow`.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        sse2::fill_span(buf, p, sy, lo, hi, id)
    };
    #[cfg(not(target_arch = "x86_64"))]
    fill_span_scalar(buf, p, sy, lo, hi, id);
}

/// [`fill_narrow`] in plain code (the reference the SSE2 version is tested against).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn fill_narrow_scalar(buf: &mut DepthBuffer<'_>, n: &Narrow, p: &Plane, id: u32) {
    let side = buf.side;
    let mut w = n.w;
    for sy in n.sy0..=n.sy1 {
        let row = p.row(sy);
        let start = sy as usize * side + n.sx0 as usize;
        let (Some(d), Some(t)) = (
            buf.depth.get_mut(start..start + LANES),
            buf.ids.get_mut(start..start + LANES),
        ) else {
            return;
        };
        for j in 0..LANES {
            let k = depth_key(row + n.dz[j]);
            if n.valid[j] && (w[0][j] | w[1][j] | w[2][j]) >= 0 && k > d[j] {
                d[j] = k;
                t[j] = id;
            }
        }
        for (wk, s) in w.iter_mut().zip(n.step_y) {
            for l in wk.iter_mut() {
                *l += s;
            }
        }
    }
}

/// [`fill_span`] in plain code (the reference the SSE2 version is tested against), also
/// the fill of a plane that is not [`Plane::is_tame`]: a NaN depth writes nothing.
pub(super) fn fill_span_scalar(buf: &mut DepthBuffer<'_>, p: &Plane, sy: i64, lo: i64, hi: i64, id: u32) {
    let row = p.row(sy);
    let start = sy as usize * buf.side + lo as usize;
    let n = (hi - lo + 1) as usize;
    let (Some(d), Some(t)) = (buf.depth.get_mut(start..start + n), buf.ids.get_mut(start..start + n)) else {
        return;
    };
    for ((d, t), sx) in d.iter_mut().zip(t.iter_mut()).zip(lo..) {
        let z = p.at(row, sx);
        if !z.is_nan() && depth_key(z) > *d {
            *d = depth_key(z);
            *t = id;
        }
    }
}

/// The 4-lane depth tests in SSE2 (baseline on x86-64: no runtime detection needed).
/// Per lane they compute exactly what the scalar versions do, in the same order
/// (bit-identical depths), with masks instead of branches: a z-test is a coin flip for
/// the branch predictor.
#[cfg(target_arch = "x86_64")]
pub(super) mod sse2 {
    use crate::raster::coverage::{DepthBuffer, Narrow, Plane};
    use crate::raster::types::LANES;
    use std::arch::x86_64::*;

    /// A 4-byte lane: depth keys and triangle ids.
    trait Lane: Copy {}
    impl Lane for i32 {}
    impl Lane for u32 {}

    #[target_feature(enable = "sse2")]
    fn load<T: Lane>(s: &[T; LANES]) -> __m128i {
        // SAFETY: `s` is 16 readable bytes (4-byte lanes) and `loadu` needs no alignment.
        unsafe { _mm_loadu_si128(s.as_ptr().cast()) }
    }

    #[target_feature(enable = "sse2")]
    fn store<T: Lane>(s: &mut [T; LANES], v: __m128i) {
        // SAFETY: `s` is 16 writable bytes (4-byte lanes) and `storeu` needs no alignment.
        unsafe { _mm_storeu_si128(s.as_mut_ptr().cast(), v) }
    }

    #[target_feature(enable = "sse2")]
    fn i32x4(v: [i32; LANES]) -> __m128i {
        _mm_setr_epi32(v[0], v[1], v[2], v[3])
    }

    /// Lanes set in `hit` take `new`, the others keep `old`.
    #[target_feature(enable = "sse2")]
    fn select(hit: __m128i, new: __m128i, old: __m128i) -> __m128i {
        _mm_or_si128(_mm_and_si128(hit, new), _mm_andnot_si128(hit, old))
    }

    /// Depth-test the 4 samples from `start`: lanes set in `mask` whose depth key beats
    /// the stored one take it and `id`. `false` when the 4 samples are out of bounds.
    #[target_feature(enable = "sse2")]
    fn test(buf: &mut DepthBuffer<'_>, start: usize, z: __m128, mask: __m128i, id: __m128i) -> bool {
        let (Some(d), Some(t)) = (
            buf.depth
                .get_mut(start..start + LANES)
                .and_then(|d| <&mut [i32; LANES]>::try_from(d).ok()),
            buf.ids
                .get_mut(start..start + LANES)
                .and_then(|t| <&mut [u32; LANES]>::try_from(t).ok()),
        ) else {
            return false;
        };
        // `depth_key` (above), per lane.
        let bits = _mm_castps_si128(z);
        let key = _mm_xor_si128(bits, _mm_srli_epi32::<1>(_mm_srai_epi32::<31>(bits)));
        let old = load(d);
        let hit = _mm_and_si128(mask, _mm_cmpgt_epi32(key, old));
        store(d, select(hit, key, old));
        store(t, select(hit, id, load(t)));
        true
    }

    #[target_feature(enable = "sse2")]
    pub(super) fn fill_narrow(buf: &mut DepthBuffer<'_>, n: &Narrow, p: &Plane, id: u32) {
        let mut w = [i32x4(n.w[0]), i32x4(n.w[1]), i32x4(n.w[2])];
        let step = [
            _mm_set1_epi32(n.step_y[0]),
            _mm_set1_epi32(n.step_y[1]),
            _mm_set1_epi32(n.step_y[2]),
        ];
        let valid = i32x4([0, 1, 2, 3].map(|j| -i32::from(n.valid[j])));
        let dz = _mm_setr_ps(n.dz[0], n.dz[1], n.dz[2], n.dz[3]);
        let (id, minus1) = (_mm_set1_epi32(id as i32), _mm_set1_epi32(-1));
        for sy in n.sy0..=n.sy1 {
            let edges = _mm_or_si128(_mm_or_si128(w[0], w[1]), w[2]);
            let inside = _mm_and_si128(valid, _mm_cmpgt_epi32(edges, minus1));
            let z = _mm_add_ps(_mm_set1_ps(p.row(sy)), dz);
            if !test(buf, sy as usize * buf.side + n.sx0 as usize, z, inside, id) {
                return;
            }
            for (wk, s) in w.iter_mut().zip(step) {
                *wk = _mm_add_epi32(*wk, s);
            }
        }
    }

    #[target_feature(enable = "sse2")]
    pub(super) fn fill_span(buf: &mut DepthBuffer<'_>, p: &Plane, sy: i64, lo: i64, hi: i64, id: u32) {
        let (row, cx, dzdx) = (_mm_set1_ps(p.row(sy)), _mm_set1_ps(p.cx), _mm_set1_ps(p.dzdx));
        let (id, end) = (_mm_set1_epi32(id as i32), _mm_set1_epi32(hi as i32 + 1));
        let base = sy as usize * buf.side;
        let mut sx = lo;
        while sx <= hi {
            let lanes = _mm_add_epi32(_mm_set1_epi32(sx as i32), _mm_setr_epi32(0, 1, 2, 3));
            // p.at(row, sx) per lane: row + dzdx·(sx + cx).
            let z = _mm_add_ps(row, _mm_mul_ps(dzdx, _mm_add_ps(_mm_cvtepi32_ps(lanes), cx)));
            if !test(buf, base + sx as usize, z, _mm_cmpgt_epi32(end, lanes), id) {
                return;
            }
            sx += LANES as i64;
        }
    }
}

/// The three edge functions of a positively oriented fixed-point triangle at the centre of
/// sample `(sx0, sy0)`, and their steps per sample to the right and per row down: `(row,
/// step_x, step_y)`. A sample is inside when all three are `≥ 0` (the top-left rule is
/// folded in as a bias of −1 on the edges that are not top or left).
pub(super) fn edge_functions(fx: &[i64; 3], fy: &[i64; 3], sx0: i64, sy0: i64) -> ([i64; 3], [i64; 3], [i64; 3]) {
    let (px0, py0) = (sx0 * SUB + SUB / 2, sy0 * SUB + SUB / 2);
    let (mut row, mut step_x, mut step_y) = ([0i64; 3], [0i64; 3], [0i64; 3]);
    // Edge k runs from vertex a to vertex b and is opposite vertex k.
    for (k, (a, b)) in [(1usize, 2usize), (2, 0), (0, 1)].into_iter().enumerate() {
        let (dx, dy) = (fx[b] - fx[a], fy[b] - fy[a]);
        // Top edge (horizontal, interior below) or left edge (going up): inclusive.
        let top_left = (dy == 0 && dx > 0) || dy < 0;
        row[k] = dx * (py0 - fy[a]) - dy * (px0 - fx[a]) - i64::from(!top_left);
        step_x[k] = -dy * SUB;
        step_y[k] = dx * SUB;
    }
    (row, step_x, step_y)
}

/// Scan-convert a positively oriented fixed-point triangle over its sample rectangle
/// `bounds` (from [`sample_bounds`]), calling `span(sy, lo, hi)` for every row `sy` with
/// covered samples `lo..=hi` (top-left rule; a row's covered samples are contiguous, the
/// triangle being convex).
pub(super) fn raster_tri(
    fx: &[i64; 3],
    fy: &[i64; 3],
    bounds: (i64, i64, i64, i64),
    mut span: impl FnMut(i64, i64, i64),
) {
    let (sx0, sx1, sy0, sy1) = bounds;
    let (mut row, step_x, step_y) = edge_functions(fx, fy, sx0, sy0);
    if sx1 - sx0 < SMALL_SPAN {
        // A narrow box (most triangles of a dense mesh): test each sample's edge
        // functions directly.
        for sy in sy0..=sy1 {
            let mut w = row;
            let (mut lo, mut hi) = (i64::MAX, i64::MIN);
            for sx in sx0..=sx1 {
                if (w[0] | w[1] | w[2]) >= 0 {
                    lo = lo.min(sx);
                    hi = sx;
                }
                w[0] += step_x[0];
                w[1] += step_x[1];
                w[2] += step_x[2];
            }
            if lo <= hi {
                span(sy, lo, hi);
            }
            row[0] += step_y[0];
            row[1] += step_y[1];
            row[2] += step_y[2];
        }
        return;
    }
    // Edge k's function on row sy is w_k(sx) = row_k + step_x_k·(sx − sx0). With
    // a = |step_x_k| and F = ⌊row_k / a⌋, w_k ≥ 0 exactly for sx ≥ sx0 − F (step_x_k > 0)
    // or sx ≤ sx0 + F (step_x_k < 0). F and the remainder row_k − F·a are carried from row
    // to row (a DDA), so a row costs no division.
    let mut a = [1i64; 3];
    let (mut f, mut m, mut dq, mut dm) = ([0i64; 3], [0i64; 3], [0i64; 3], [0i64; 3]);
    for k in 0..3 {
        if step_x[k] != 0 {
            a[k] = step_x[k].abs();
        }
        f[k] = row[k].div_euclid(a[k]);
        m[k] = row[k].rem_euclid(a[k]);
        dq[k] = step_y[k].div_euclid(a[k]);
        dm[k] = step_y[k].rem_euclid(a[k]);
    }
    for sy in sy0..=sy1 {
        let (mut lo, mut hi) = (sx0, sx1);
        for k in 0..3 {
            let st = step_x[k];
            if st > 0 {
                lo = lo.max(sx0 - f[k]);
            } else if st < 0 {
                hi = hi.min(sx0 + f[k]);
            } else if row[k] < 0 {
                hi = sx0 - 1;
            }
            row[k] += step_y[k];
            f[k] += dq[k];
            m[k] += dm[k];
            if m[k] >= a[k] {
                m[k] -= a[k];
                f[k] += 1;
            }
        }
        if lo <= hi {
            span(sy, lo, hi);
        }
    }
}
