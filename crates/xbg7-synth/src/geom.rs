//! Real geometry for the synthetic disc: parametric surfaces (tori, tubes, plates,
//! ellipsoids, ship-like hulls, capped cylinders, boxes, prisms, skybox planes) with
//! closed-form vertex/index counts, face-derived unit normals whose winding agrees with
//! the faces, coherent triangle shuffling and first-use vertex renumbering.

use super::rng::Gen;
use crate::math::Math as _;

/// Surface families. Grid families share `V = nu·nv` (+ extra), which is how the plan
/// produces resources with the same vertex count and different index counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    /// Closed in both directions: V = nu·nv, I = 6·nu·nv.
    Torus,
    /// Open cylinder, closed around: V = nu·nv, I = 6·nu·(nv−1).
    Tube,
    /// Bent plate: V = nu·nv, I = 6·(nu−1)·(nv−1).
    Plate,
    /// Ellipsoid with pole vertices: V = nu·nv + 2, I = 6·nu·nv.
    Capsule,
    /// Ship-like deformed hull with pole vertices (same counts as `Capsule`).
    Hull,
    /// Cylinder with flat caps (own cap vertices): V = nu·nv + 2·(nu+1), I = 6·nu·nv.
    CappedCylinder,
    /// V = 4, I = 6.
    Quad,
    /// Box with shared corners: V = 8, I = 36.
    Box8,
    /// Flat-shaded box: V = 24, I = 36.
    Box24,
    /// Flat-shaded `nu`-gon prism: V = 6·nu, I = 12·nu − 12.
    Prism,
    /// 300 000-unit plate (same counts as `Plate`).
    SkyPlane,
}

/// One surface to generate: family, grid resolution and overall size in units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartPlan {
    pub kind: ShapeKind,
    pub nu: u32,
    pub nv: u32,
    pub size: f32,
}

impl PartPlan {
    /// Clamp the resolution to the minimum the family needs.
    pub fn normalized(mut self) -> Self {
        let (mu, mv) = match self.kind {
            ShapeKind::Torus => (3, 3),
            ShapeKind::Tube | ShapeKind::CappedCylinder => (3, 2),
            ShapeKind::Plate | ShapeKind::SkyPlane => (2, 2),
            ShapeKind::Capsule | ShapeKind::Hull => (3, 1),
            ShapeKind::Prism => (3, 1),
            _ => (1, 1),
        };
        self.nu = self.nu.max(mu);
        self.nv = self.nv.max(mv);
        self
    }

    pub fn vertex_count(&self) -> u32 {
        let (nu, nv) = (self.nu, self.nv);
        match self.kind {
            ShapeKind::Torus | ShapeKind::Tube | ShapeKind::Plate | ShapeKind::SkyPlane => nu * nv,
            ShapeKind::Capsule | ShapeKind::Hull => nu * nv + 2,
            ShapeKind::CappedCylinder => nu * nv + 2 * (nu + 1),
            ShapeKind::Quad => 4,
            ShapeKind::Box8 => 8,
            ShapeKind::Box24 => 24,
            ShapeKind::Prism => 6 * nu,
        }
    }

    pub fn index_count(&self) -> u32 {
        let (nu, nv) = (self.nu, self.nv);
        match self.kind {
            ShapeKind::Torus => 6 * nu * nv,
            ShapeKind::Tube => 6 * nu * (nv - 1),
            ShapeKind::Plate | ShapeKind::SkyPlane => 6 * (nu - 1) * (nv - 1),
            ShapeKind::Capsule | ShapeKind::Hull | ShapeKind::CappedCylinder => 6 * nu * nv,
            ShapeKind::Quad => 6,
            ShapeKind::Box8 | ShapeKind::Box24 => 36,
            ShapeKind::Prism => 12 * nu - 12,
        }
    }
}

/// Generated geometry of one part or an assembled resource.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Geometry {
    pub positions: Vec<[f32; 3]>,
    /// Unit, derived from the faces (area-weighted).
    pub normals: Vec<[f32; 3]>,
    /// Unit, perpendicular to the normal.
    pub tangents: Vec<[f32; 3]>,
    pub uvs: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
}

type V3 = [f32; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn len(a: V3) -> f32 {
    dot(a, a).sqrt()
}
fn normalize(a: V3) -> Option<V3> {
    let l = len(a);
    (l > 1e-20 && l.is_finite()).then(|| [a[0] / l, a[1] / l, a[2] / l])
}

/// Triangle normal (not normalised; length = 2 × area).
pub fn face_normal(p: &[V3], a: u32, b: u32, c: u32) -> V3 {
    let pa = p[a as usize];
    cross(sub(p[b as usize], pa), sub(p[c as usize], pa))
}

/// A grid surface: `f(u, v)` with u, v in [0, 1]; wrap means the last row/column
/// connects back to the first (u then runs over [0, 1)).
fn grid(nu: u32, nv: u32, wrap_u: bool, wrap_v: bool, f: impl Fn(f32, f32) -> V3, g: &mut Geometry) {
    let base = g.positions.len() as u32;
    let du = if wrap_u { nu } else { nu - 1 }.max(1) as f32;
    let dv = if wrap_v { nv } else { nv - 1 }.max(1) as f32;
    for j in 0..nv {
        for i in 0..nu {
            let (u, v) = (i as f32 / du, j as f32 / dv);
            g.positions.push(f(u, v));
            g.uvs.push([u, v]);
        }
    }
    let cu = if wrap_u { nu } else { nu - 1 };
    let cv = if wrap_v { nv } else { nv - 1 };
    let id = |i: u32, j: u32| base + (j % nv) * nu + (i % nu);
    for j in 0..cv {
        for i in 0..cu {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            g.indices.extend_from_slice(&[a, b, c, a, c, d]);
        }
    }
}

/// Close a grid (wrap in u) at both ends with pole vertices (bottom = before row 0).
fn poles(nu: u32, nv: u32, base: u32, bottom: V3, top: V3, g: &mut Geometry) {
    let pb = g.positions.len() as u32;
    g.positions.push(bottom);
    g.uvs.push([0.5, 0.0]);
    let pt = pb + 1;
    g.positions.push(top);
    g.uvs.push([0.5, 1.0]);
    let last = base + (nv - 1) * nu;
    for i in 0..nu {
        let i1 = (i + 1) % nu;
        g.indices.extend_from_slice(&[pb, base + i1, base + i]);
        g.indices.extend_from_slice(&[pt, last + i, last + i1]);
    }
}

/// A convex polygon fan cap over `ring` (counter-clockwise about +z seen from above)
/// facing -z (`down`) or +z.
fn fan(ring: &[u32], center: u32, down: bool, g: &mut Geometry) {
    let n = ring.len();
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + 1) % n]);
        if down {
            g.indices.extend_from_slice(&[center, b, a]);
        } else {
            g.indices.extend_from_slice(&[center, a, b]);
        }
    }
}

/// Quad `(a, b, c, d)` counter-clockwise seen from its front.
fn quad(a: u32, b: u32, c: u32, d: u32, g: &mut Geometry) {
    g.indices.extend_from_slice(&[a, b, c, a, c, d]);
}

fn box_geometry(half: V3, shared: bool, g: &mut Geometry) {
    // Corner k: bit 0 → +x, bit 1 → +y, bit 2 → +z.
    let corner = |k: usize| {
        [
            if k & 1 != 0 { half[0] } else { -half[0] },
            if k & 2 != 0 { half[1] } else { -half[1] },
            if k & 4 != 0 { half[2] } else { -half[2] },
        ]
    };
    if shared {
        for k in 0..8 {
            g.positions.push(corner(k));
            g.uvs.push([(k & 1) as f32, ((k >> 1) & 1) as f32]);
        }
    }
    for axis in 0..3 {
        for positive in [false, true] {
            let (t1, t2) = if positive {
                ((axis + 1) % 3, (axis + 2) % 3)
            } else {
                ((axis + 2) % 3, (axis + 1) % 3)
            };
            let bit = |ax: usize| 1usize << ax;
            let fixed = if positive { bit(axis) } else { 0 };
            // Corners (-t1,-t2), (+t1,-t2), (+t1,+t2), (-t1,+t2): CCW around the face normal.
            let ks = [fixed, fixed | bit(t1), fixed | bit(t1) | bit(t2), fixed | bit(t2)];
            if shared {
                quad(ks[0] as u32, ks[1] as u32, ks[2] as u32, ks[3] as u32, g);
            } else {
                let b = g.positions.len() as u32;
                for (q, &k) in ks.iter().enumerate() {
                    g.positions.push(corner(k));
                    g.uvs.push([[0.0, 1.0, 1.0, 0.0][q], [0.0, 0.0, 1.0, 1.0][q]]);
                }
                quad(b, b + 1, b + 2, b + 3, g);
            }
        }
    }
}

/// Generate one part in its local frame, then rotate / translate it randomly; normals and
/// tangents are derived last from the final faces.
pub fn build_part(plan: &PartPlan, gen: &mut Gen) -> Geometry {
    let p = plan.normalized();
    let (nu, nv, s) = (p.nu, p.nv, p.size.max(0.01));
    let mut g = Geometry::default();
    match p.kind {
        ShapeKind::Torus => torus(nu, nv, s, gen, &mut g),
        ShapeKind::Tube => tube(nu, nv, s, gen, &mut g),
        ShapeKind::Plate | ShapeKind::SkyPlane => plate(nu, nv, s, p.kind == ShapeKind::SkyPlane, gen, &mut g),
        ShapeKind::Capsule | ShapeKind::Hull => capsule(nu, nv, s, p.kind == ShapeKind::Hull, gen, &mut g),
        ShapeKind::CappedCylinder => capped_cylinder(nu, nv, s, gen, &mut g),
        ShapeKind::Quad => quad_part(s, gen, &mut g),
        ShapeKind::Box8 | ShapeKind::Box24 => box_part(s, p.kind == ShapeKind::Box8, gen, &mut g),
        ShapeKind::Prism => prism(nu, s, gen, &mut g),
    }
    place_randomly(&p, &mut g, gen);
    tile_uvs(&mut g, gen);
    finish_normals(&mut g);
    g
}

/// A torus on an `nu × nv` wrapped grid, squashed per axis.
fn torus(nu: u32, nv: u32, s: f32, gen: &mut Gen, g: &mut Geometry) {
    let tau = std::f32::consts::TAU;
    let big = s * 0.5 * gen.f32_in(0.55, 0.8);
    let small = big * gen.f32_in(0.15, 0.45);
    let (sx, sy, sz) = (gen.f32_in(0.7, 1.0), gen.f32_in(0.7, 1.0), gen.f32_in(0.5, 1.3));
    grid(
        nu,
        nv,
        true,
        true,
        |u, v| {
            let (t, ph) = (tau * u, tau * v);
            let r = big + small * ph.m_cos();
            [r * t.m_cos() * sx, r * t.m_sin() * sy, small * ph.m_sin() * sz]
        },
        g,
    );
}

/// A tube along z whose radius ripples along its length.
fn tube(nu: u32, nv: u32, s: f32, gen: &mut Gen, g: &mut Geometry) {
    let tau = std::f32::consts::TAU;
    let r0 = s * gen.f32_in(0.08, 0.3);
    let (amp, k, ph0) = (gen.f32_in(0.0, 0.35), gen.f32_in(0.5, 3.0), gen.f32_in(0.0, tau));
    let ey = gen.f32_in(0.6, 1.0);
    grid(
        nu,
        nv,
        true,
        false,
        |u, v| {
            let t = tau * u;
            let r = r0 * (1.0 + amp * (tau * k * v + ph0).m_sin());
            [r * t.m_cos(), r * t.m_sin() * ey, (v - 0.5) * s]
        },
        g,
    );
}

/// A gently bent plate, or (`sky`) a level sky plane at altitude.
fn plate(nu: u32, nv: u32, s: f32, sky: bool, gen: &mut Gen, g: &mut Geometry) {
    let pi = std::f32::consts::PI;
    let w = if sky { 300_000.0 } else { s };
    let h = if sky { w } else { s * gen.f32_in(0.3, 1.0) };
    let bend = if sky { 0.0 } else { s * gen.f32_in(0.0, 0.15) };
    let alt = if sky { gen.f32_in(5_000.0, 40_000.0) } else { 0.0 };
    let (fx, fy) = (gen.f32_in(0.5, 2.0), gen.f32_in(0.5, 2.0));
    grid(
        nu,
        nv,
        false,
        false,
        |u, v| {
            let z = bend * (pi * u * fx).m_sin() * (pi * v * fy).m_cos() + alt;
            [(u - 0.5) * w, (v - 0.5) * h, z]
        },
        g,
    );
}

/// A capsule, or (`hull`) a ship hull with a keel and ripples, closed by two poles.
fn capsule(nu: u32, nv: u32, s: f32, hull: bool, gen: &mut Gen, g: &mut Geometry) {
    let tau = std::f32::consts::TAU;
    let pi = std::f32::consts::PI;
    let half_len = s * 0.5;
    let (a, b) = if hull {
        (s * gen.f32_in(0.12, 0.3), s * gen.f32_in(0.08, 0.2))
    } else {
        (s * 0.5 * gen.f32_in(0.3, 1.0), s * 0.5 * gen.f32_in(0.3, 1.0))
    };
    let (ripple, keel) = (gen.f32_in(0.0, 0.15), gen.f32_in(0.35, 0.8));
    let profile = move |t: f32| -> f32 {
        if hull {
            (pi * t).m_sin().m_powf(0.6) * (1.0 + ripple * (3.0 * pi * t).m_sin())
        } else {
            (pi * t).m_sin()
        }
    };
    let nrows = nv as f32 + 1.0;
    let shape = move |u: f32, t: f32| -> V3 {
        let th = tau * u;
        let w = profile(t);
        let y = b * w * th.m_sin();
        let y = if hull && y < 0.0 { y * keel } else { y };
        let z = if hull {
            (t - 0.5) * s
        } else {
            -(pi * t).m_cos() * half_len
        };
        let lift = if hull { 0.08 * s * (t - 0.5) * (t - 0.5) } else { 0.0 };
        [a * w * th.m_cos(), y + lift, z]
    };
    // Rows at t = (j+1)/(nv+1), bottom (t = 0) to top (t = 1).
    grid(
        nu,
        nv,
        true,
        false,
        |u, v| {
            let j = (v * (nv.max(2) - 1) as f32).round();
            let j = if nv == 1 { 0.0 } else { j };
            shape(u, (j + 1.0) / nrows)
        },
        g,
    );
    let lift = |t: f32| {
        if hull {
            0.08 * s * (t - 0.5) * (t - 0.5)
        } else {
            0.0
        }
    };
    let (z0, z1) = if hull {
        (-0.5 * s, 0.5 * s)
    } else {
        (-half_len, half_len)
    };
    poles(nu, nv, 0, [0.0, lift(0.0), z0], [0.0, lift(1.0), z1], g);
}

/// A tapered cylinder closed by two fanned caps.
fn capped_cylinder(nu: u32, nv: u32, s: f32, gen: &mut Gen, g: &mut Geometry) {
    let tau = std::f32::consts::TAU;
    let r = s * gen.f32_in(0.1, 0.4);
    let ey = gen.f32_in(0.7, 1.0);
    let taper = gen.f32_in(0.6, 1.0);
    let at = move |u: f32, v: f32| {
        let t = tau * u;
        let rr = r * (1.0 + (taper - 1.0) * v);
        [rr * t.m_cos(), rr * t.m_sin() * ey, (v - 0.5) * s]
    };
    grid(nu, nv, true, false, at, g);
    for (v, down) in [(0.0f32, true), (1.0, false)] {
        let c = g.positions.len() as u32;
        g.positions.push([0.0, 0.0, (v - 0.5) * s]);
        g.uvs.push([0.5, 0.5]);
        let ring: Vec<u32> = (0..nu)
            .map(|i| {
                let u = i as f32 / nu as f32;
                g.positions.push(at(u, v));
                g.uvs
                    .push([0.5 + 0.5 * (tau * u).m_cos(), 0.5 + 0.5 * (tau * u).m_sin()]);
                c + 1 + i
            })
            .collect();
        fan(&ring, c, down, g);
    }
}

/// One quad (two triangles).
fn quad_part(s: f32, gen: &mut Gen, g: &mut Geometry) {
    let (w, h) = (s, s * gen.f32_in(0.2, 1.0));
    for (x, y) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
        g.positions.push([x * w, y * h, 0.0]);
        g.uvs.push([x + 0.5, y + 0.5]);
    }
    quad(0, 1, 2, 3, g);
}

/// A box: 8 shared corners (`shared`) or 24 vertices, four per face.
fn box_part(s: f32, shared: bool, gen: &mut Gen, g: &mut Geometry) {
    let half = [s * 0.5, s * 0.5 * gen.f32_in(0.2, 1.0), s * 0.5 * gen.f32_in(0.2, 1.0)];
    box_geometry(half, shared, g);
}

/// An `nu`-sided prism: side quads and two flat caps.
fn prism(nu: u32, s: f32, gen: &mut Gen, g: &mut Geometry) {
    let tau = std::f32::consts::TAU;
    let r = s * 0.5 * gen.f32_in(0.3, 1.0);
    let h = s * gen.f32_in(0.2, 1.0);
    let ring = |i: u32, z: f32| {
        let t = tau * (i % nu) as f32 / nu as f32;
        [r * t.m_cos(), r * t.m_sin(), z]
    };
    for i in 0..nu {
        let b = g.positions.len() as u32;
        for (k, z) in [(i, -h / 2.0), (i + 1, -h / 2.0), (i + 1, h / 2.0), (i, h / 2.0)] {
            g.positions.push(ring(k, z));
            g.uvs.push([k as f32 / nu as f32, if z > 0.0 { 1.0 } else { 0.0 }]);
        }
        quad(b, b + 1, b + 2, b + 3, g);
    }
    for (z, down) in [(-h / 2.0, true), (h / 2.0, false)] {
        let b = g.positions.len() as u32;
        for i in 0..nu {
            g.positions.push(ring(i, z));
            let t = tau * i as f32 / nu as f32;
            g.uvs.push([0.5 + 0.5 * t.m_cos(), 0.5 + 0.5 * t.m_sin()]);
        }
        for k in 1..nu - 1 {
            if down {
                g.indices.extend_from_slice(&[b, b + k + 1, b + k]);
            } else {
                g.indices.extend_from_slice(&[b, b + k, b + k + 1]);
            }
        }
    }
}

/// Random rigid placement (rotation keeps the winding); skyboxes stay level.
fn place_randomly(p: &PartPlan, g: &mut Geometry, gen: &mut Gen) {
    if p.kind != ShapeKind::SkyPlane {
        let rot = random_rotation(gen);
        let scale_t = p.size.max(1.0) * 0.2;
        let t = [
            gen.f32_in(-scale_t, scale_t),
            gen.f32_in(-scale_t, scale_t),
            gen.f32_in(-scale_t, scale_t),
        ];
        for q in g.positions.iter_mut() {
            let r = mat_mul(&rot, *q);
            *q = [r[0] + t[0], r[1] + t[1], r[2] + t[2]];
        }
    }
}

/// Repeat the texture 1–3 times along u.
fn tile_uvs(g: &mut Geometry, gen: &mut Gen) {
    let tile = gen.range(1, 3) as f32;
    for uv in g.uvs.iter_mut() {
        *uv = [uv[0] * tile, uv[1]];
    }
}

fn random_rotation(gen: &mut Gen) -> [[f32; 3]; 3] {
    let (a, b, c) = (
        gen.f32_in(0.0, std::f32::consts::TAU),
        gen.f32_in(-0.6, 0.6),
        gen.f32_in(-0.6, 0.6),
    );
    let rz = [
        [a.m_cos(), -a.m_sin(), 0.0],
        [a.m_sin(), a.m_cos(), 0.0],
        [0.0, 0.0, 1.0],
    ];
    let rx = [
        [1.0, 0.0, 0.0],
        [0.0, b.m_cos(), -b.m_sin()],
        [0.0, b.m_sin(), b.m_cos()],
    ];
    let ry = [
        [c.m_cos(), 0.0, c.m_sin()],
        [0.0, 1.0, 0.0],
        [-c.m_sin(), 0.0, c.m_cos()],
    ];
    mat3(&rz, &mat3(&rx, &ry))
}

fn mat3(a: &[[f32; 3]; 3], b: &[[f32; 3]; 3]) -> [[f32; 3]; 3] {
    let mut o = [[0.0; 3]; 3];
    for (i, row) in o.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    o
}

fn mat_mul(m: &[[f32; 3]; 3], v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// Area-weighted vertex normals from the faces (unit), plus tangents ⟂ normals.
pub fn finish_normals(g: &mut Geometry) {
    let mut acc = vec![[0.0f32; 3]; g.positions.len()];
    for t in g.indices.chunks_exact(3) {
        let n = face_normal(&g.positions, t[0], t[1], t[2]);
        for &k in t {
            let a = &mut acc[k as usize];
            a[0] += n[0];
            a[1] += n[1];
            a[2] += n[2];
        }
    }
    g.normals = acc.iter().map(|&n| normalize(n).unwrap_or([0.0, 0.0, 1.0])).collect();
    g.tangents = g
        .normals
        .iter()
        .map(|&n| {
            let axis = if n[0].abs() > 0.9 {
                [0.0, 1.0, 0.0]
            } else {
                [1.0, 0.0, 0.0]
            };
            normalize(cross(n, axis)).unwrap_or([0.0, 1.0, 0.0])
        })
        .collect();
}

/// Shuffle triangles in coherent runs (8..=64 triangles kept together), rotate some
/// triangles' corners (winding kept), then renumber vertices by first use when asked.
/// The first triangle stays non-degenerate (moved to front if needed).
pub fn shuffle_coherent(g: &mut Geometry, renumber: bool, gen: &mut Gen) {
    let tris: Vec<[u32; 3]> = g.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    let mut runs: Vec<Vec<[u32; 3]>> = Vec::new();
    let mut i = 0;
    while i < tris.len() {
        let n = gen.range_usize(8, 64).min(tris.len() - i);
        runs.push(tris[i..i + n].to_vec());
        i += n;
    }
    gen.shuffle(&mut runs);
    let mut out: Vec<[u32; 3]> = Vec::with_capacity(tris.len());
    for run in runs {
        for t in run {
            out.push(match gen.range(0, 5) {
                0 => [t[1], t[2], t[0]],
                1 => [t[2], t[0], t[1]],
                _ => t,
            });
        }
    }
    if let Some(k) = out.iter().position(|t| !is_degenerate(&g.positions, *t)) {
        out.swap(0, k);
    }
    g.indices = out.into_iter().flatten().collect();
    if renumber {
        renumber_first_use(g);
    }
}

/// Degenerate: repeated corner or (numerically) zero area.
pub fn is_degenerate(p: &[V3], t: [u32; 3]) -> bool {
    if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
        return true;
    }
    let area2 = len(face_normal(p, t[0], t[1], t[2]));
    area2.is_nan() || area2 <= 0.0
}

/// Permute vertices into first-reference order (indices rewritten accordingly).
pub fn renumber_first_use(g: &mut Geometry) {
    let n = g.positions.len();
    let mut map = vec![u32::MAX; n];
    let mut order = Vec::with_capacity(n);
    for idx in g.indices.iter_mut() {
        let old = *idx as usize;
        if map[old] == u32::MAX {
            map[old] = order.len() as u32;
            order.push(old);
        }
        *idx = map[old];
    }
    for (old, m) in map.iter().enumerate() {
        if *m == u32::MAX {
            order.push(old);
        }
    }
    let pick = |v: &Vec<[f32; 3]>| order.iter().map(|&o| v[o]).collect::<Vec<_>>();
    g.positions = pick(&g.positions);
    g.normals = pick(&g.normals);
    g.tangents = pick(&g.tangents);
    g.uvs = order.iter().map(|&o| g.uvs[o]).collect();
}

/// Concatenate parts into one vertex/index set (indices rebased). Returns the geometry and
/// per part `(first_index, index_count, vertex_count)`.
pub fn assemble(parts: &[Geometry]) -> (Geometry, Vec<(u32, u32, u32)>) {
    let mut g = Geometry::default();
    let mut ranges = Vec::new();
    for p in parts {
        let base = g.positions.len() as u32;
        ranges.push((g.indices.len() as u32, p.indices.len() as u32, p.positions.len() as u32));
        g.positions.extend_from_slice(&p.positions);
        g.normals.extend_from_slice(&p.normals);
        g.tangents.extend_from_slice(&p.tangents);
        g.uvs.extend_from_slice(&p.uvs);
        g.indices.extend(p.indices.iter().map(|&i| i + base));
    }
    (g, ranges)
}

/// `(agreeing, total)` triangles: dot(cross(pb−pa, pc−pa), na+nb+nc) > 0.
pub fn winding_agreement(p: &[V3], n: &[V3], indices: &[u32]) -> (usize, usize) {
    let mut ok = 0;
    let mut total = 0;
    for t in indices.chunks_exact(3) {
        total += 1;
        let (Some(&na), Some(&nb), Some(&nc)) = (n.get(t[0] as usize), n.get(t[1] as usize), n.get(t[2] as usize))
        else {
            continue;
        };
        if t.iter().any(|&k| k as usize >= p.len()) {
            continue;
        }
        let f = face_normal(p, t[0], t[1], t[2]);
        let s = [na[0] + nb[0] + nc[0], na[1] + nb[1] + nc[1], na[2] + nb[2] + nc[2]];
        if dot(f, s) > 0.0 {
            ok += 1;
        }
    }
    (ok, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [ShapeKind; 11] = [
        ShapeKind::Torus,
        ShapeKind::Tube,
        ShapeKind::Plate,
        ShapeKind::Capsule,
        ShapeKind::Hull,
        ShapeKind::CappedCylinder,
        ShapeKind::Quad,
        ShapeKind::Box8,
        ShapeKind::Box24,
        ShapeKind::Prism,
        ShapeKind::SkyPlane,
    ];

    #[test]
    fn counts_match_closed_forms_and_geometry_is_clean() {
        let mut gen = Gen::new(11);
        for kind in ALL {
            for (nu, nv) in [(3, 1), (3, 2), (7, 5), (16, 9), (40, 30)] {
                let plan = PartPlan {
                    kind,
                    nu,
                    nv,
                    size: 12.0,
                }
                .normalized();
                let mut g = build_part(&plan, &mut gen);
                assert_eq!(g.positions.len() as u32, plan.vertex_count(), "{kind:?} {nu}x{nv}");
                assert_eq!(g.indices.len() as u32, plan.index_count(), "{kind:?} {nu}x{nv}");
                shuffle_coherent(&mut g, true, &mut gen);
                let mut used = vec![false; g.positions.len()];
                for &i in &g.indices {
                    used[i as usize] = true;
                }
                assert!(used.iter().all(|&u| u), "{kind:?}: unreferenced vertex");
                let tris: Vec<[u32; 3]> = g.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
                assert!(!is_degenerate(&g.positions, tris[0]));
                let degenerate = tris.iter().filter(|t| is_degenerate(&g.positions, **t)).count();
                assert_eq!(degenerate, 0, "{kind:?} {nu}x{nv}");
                let (ok, total) = winding_agreement(&g.positions, &g.normals, &g.indices);
                assert_eq!(ok, total, "{kind:?} {nu}x{nv}: winding");
                for n in &g.normals {
                    assert!((len(*n) - 1.0).abs() < 1e-5);
                }
                for t in &g.tangents {
                    assert!((len(*t) - 1.0).abs() < 1e-5);
                }
            }
        }
    }

    #[test]
    fn grid_families_share_vertex_counts_with_distinct_index_counts() {
        let p = |kind| PartPlan {
            kind,
            nu: 10,
            nv: 6,
            size: 5.0,
        };
        let (t, u, pl) = (p(ShapeKind::Torus), p(ShapeKind::Tube), p(ShapeKind::Plate));
        assert_eq!(t.vertex_count(), 60);
        assert_eq!(u.vertex_count(), 60);
        assert_eq!(pl.vertex_count(), 60);
        assert_eq!((t.index_count(), u.index_count(), pl.index_count()), (360, 300, 270));
    }

    #[test]
    fn skybox_is_huge_and_boxes_are_small() {
        let mut gen = Gen::new(2);
        let sky = build_part(
            &PartPlan {
                kind: ShapeKind::SkyPlane,
                nu: 2,
                nv: 2,
                size: 1.0,
            },
            &mut gen,
        );
        let (lo, hi) = xbg7::mesh::bbox_of(&sky.positions).unwrap();
        assert_eq!(hi[0] - lo[0], 300_000.0);
        let b = build_part(
            &PartPlan {
                kind: ShapeKind::Box8,
                nu: 1,
                nv: 1,
                size: 2.0,
            },
            &mut gen,
        );
        let (lo, hi) = xbg7::mesh::bbox_of(&b.positions).unwrap();
        assert!((hi[0] - lo[0]).max(hi[1] - lo[1]).max(hi[2] - lo[2]) < 4.0);
    }
}
