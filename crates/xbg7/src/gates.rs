//! Gates: the checks that decide whether a decoded block is real geometry.
//!
//! Owns the measurements over a decoded [`Mesh`] ([`measure`]) and the verdict
//! ([`verdict`]) against [`GateConfig`]. Nothing is emitted unless every hard gate
//! passes; the edge-length ratio is a soft signal only, recorded in the manifest.

use crate::mesh::{cross, Mesh};
use crate::reason::{Code, Reason};
use serde::{Deserialize, Serialize};

/// Thresholds (the `[gates]` table of `pipeline.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateConfig {
    /// Largest fraction of degenerate (zero-area or repeated-index) triangles.
    pub max_degenerate_fraction: f64,
    /// Smallest fraction of vertices the index buffer must reference.
    pub min_referenced_fraction: f64,
    /// Accepted range of the mean |normal| (FORMAT.md §6: [0.5, 2.0]).
    pub normal_len_min: f64,
    pub normal_len_max: f64,
    /// Smallest fraction of oriented triangles whose winding agrees with the stored
    /// normals in the dominant sense (either sense is accepted, consistently).
    pub min_winding_consistency: f64,
    /// Turn the winding gate off (for experiments; default on).
    pub winding: bool,
    /// Largest |coordinate| accepted (skybox planes reach 300 000).
    pub max_abs_coordinate: f64,
    /// Soft signal: mean triangle edge above this × bbox diagonal is flagged `spiky`.
    pub spiky_edge_ratio: f64,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            max_degenerate_fraction: 0.05,
            min_referenced_fraction: 0.9,
            normal_len_min: 0.5,
            normal_len_max: 2.0,
            min_winding_consistency: 0.9,
            winding: true,
            max_abs_coordinate: 1.0e7,
            spiky_edge_ratio: 0.28,
        }
    }
}

/// What the gates measured (kept for the manifest).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Measures {
    pub triangles: usize,
    pub degenerate: usize,
    pub referenced: usize,
    pub vertices: usize,
    pub max_index: u32,
    pub non_finite: usize,
    /// Non-finite normal / texcoord / colour components.
    pub non_finite_attributes: usize,
    pub max_abs: f64,
    /// Mean |normal| (None without normals).
    pub mean_normal_len: Option<f64>,
    /// Triangles whose face normal agrees / disagrees with the summed vertex normals.
    pub winding_agree: usize,
    pub winding_disagree: usize,
    /// Mean edge length / bbox diagonal.
    pub edge_ratio: f64,
}

impl Measures {
    /// `"ccw"` when faces agree with normals by the right-hand rule, `"cw"` otherwise.
    pub fn winding_sense(&self) -> Option<&'static str> {
        match (self.winding_agree, self.winding_disagree) {
            (0, 0) => None,
            (a, d) if a >= d => Some("ccw"),
            _ => Some("cw"),
        }
    }
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f64; 3] {
    [(a[0] - b[0]) as f64, (a[1] - b[1]) as f64, (a[2] - b[2]) as f64]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn len(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// Is triangle `t` degenerate (repeated index or zero area), with vertex positions from
/// `p` (e.g. read from a block's bytes)? The same test as [`measure`]'s.
pub fn degenerate_by(p: impl Fn(u32) -> [f32; 3], t: [u32; 3]) -> bool {
    face_of(t, p).is_none()
}

/// The face of triangle `t`, its vertex positions from `p`, as [`measure`] computes it;
/// `None` when the triangle is degenerate.
fn face_of(t: [u32; 3], p: impl Fn(u32) -> [f32; 3]) -> Option<[f64; 3]> {
    oriented_face(t, sub(p(t[1]), p(t[0])), sub(p(t[0]), p(t[2])))
}

/// The face of triangle `t` from its edges `e0` (vertex 0 to 1) and `e2` (vertex 2 to
/// 0), as [`measure`] computes it; `None` when the triangle is degenerate (a repeated
/// index, or an area that is not a positive number).
fn oriented_face(t: [u32; 3], e0: [f64; 3], e2: [f64; 3]) -> Option<[f64; 3]> {
    let f = cross(e0, [-e2[0], -e2[1], -e2[2]]);
    let area2 = dot(f, f);
    if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] || area2.is_nan() || area2 <= 0.0 {
        None
    } else {
        Some(f)
    }
}

/// The face `f` dotted with the sum of its vertices' normals `n` (in `f64`): the
/// winding measure's sign for one triangle.
fn face_against_normals(f: [f64; 3], n: [[f32; 3]; 3]) -> f64 {
    let s = [0, 1, 2].map(|k| n[0][k] as f64 + n[1][k] as f64 + n[2][k] as f64);
    dot(f, s)
}

/// Where [`Faces::winding_can_pass`] reads a vertex's normal: any `FnMut(u32) -> [f32;
/// 3]`, or a reader of its own whose lookup is inlined into the gate's loop.
pub trait VertexNormals {
    fn normal(&mut self, x: u32) -> [f32; 3];
}

impl<F: FnMut(u32) -> [f32; 3]> VertexNormals for F {
    #[inline(always)]
    fn normal(&mut self, x: u32) -> [f32; 3] {
        self(x)
    }
}

/// The faces of a list of `count` triangles (`tri(k)`, positions `p`) as [`measure`]
/// computes them, each computed once, when first asked for: the winding test of several
/// NORMAL buffers against the same positions reads each face once.
pub struct Faces<T, P> {
    count: usize,
    tri: T,
    p: P,
    /// The faces computed so far, in order: the triangle and its face, `None` degenerate.
    done: Vec<Option<([u32; 3], [f64; 3])>>,
    /// How many faces [`Self::winding_can_pass`] compared with normals, over all its calls
    /// (what a caller's work budget pays for).
    pub compared: usize,
}

impl<T: Fn(usize) -> [u32; 3], P: Fn(u32) -> [f32; 3]> Faces<T, P> {
    pub fn new(count: usize, tri: T, p: P) -> Self {
        Faces {
            count,
            tri,
            p,
            done: Vec::new(),
            compared: 0,
        }
    }

    fn get(&mut self, k: usize) -> Option<([u32; 3], [f64; 3])> {
        while self.done.len() <= k {
            let t = (self.tri)(self.done.len());
            self.done.push(face_of(t, &self.p).map(|f| (t, f)));
        }
        self.done[k]
    }

    /// Can the mesh of these faces, its vertices' normals `n` read from anywhere, pass
    /// the winding gate? The triangles counted as [`measure`] counts them, until even the
    /// rest all agreeing with the majority would leave too few (the share (M + r) / (T +
    /// r) only grows with r while M ≤ T): a test [`verdict`] implies, so a mesh it turns
    /// away fails the gates, at a fraction of reading and measuring the whole mesh.
    pub fn winding_can_pass(&mut self, mut n: impl VertexNormals, cfg: &GateConfig) -> bool {
        if !cfg.winding {
            return true;
        }
        let (mut agree, mut disagree) = (0usize, 0usize);
        for k in 0..self.count {
            self.compared += 1;
            let Some((t, f)) = self.get(k) else {
                continue;
            };
            // Three plain calls (not `t.map`: its erased loop kept `n` out of line).
            let d = face_against_normals(f, [n.normal(t[0]), n.normal(t[1]), n.normal(t[2])]);
            if d > 0.0 {
                agree += 1;
            } else if d < 0.0 {
                disagree += 1;
            } else {
                continue;
            }
            let rest = (self.count - k - 1) as f64;
            let (m, o) = (agree.max(disagree) as f64, (agree + disagree) as f64);
            if (m + rest) / (o + rest) < cfg.min_winding_consistency {
                return false;
            }
        }
        true
    }
}

/// Measure a decoded mesh. Indices must already be `< positions.len()`.
pub fn measure(m: &Mesh) -> Measures {
    let vcount = m.positions.len();
    // Every running figure is a local (kept in registers: as fields of the result they
    // were stored and reloaded per triangle, a fifth of a stage's decode), and the edge
    // lengths are added in the same order as ever, so every figure has the same bits.
    let (mut max_index, mut degenerate) = (0u32, 0usize);
    let (mut agree, mut disagree) = (0usize, 0usize);
    let mut seen = vec![false; vcount];
    let mut edge_sum = 0.0f64;
    let mut edges = 0usize;
    for t in m.indices.chunks_exact(3) {
        let t = [t[0], t[1], t[2]];
        for &i in &t {
            max_index = max_index.max(i);
            if let Some(s) = seen.get_mut(i as usize) {
                *s = true;
            }
        }
        if t.iter().any(|&i| i as usize >= vcount) {
            degenerate += 1;
            continue;
        }
        let p = |i: u32| m.positions[i as usize];
        let (e0, e1, e2) = (sub(p(t[1]), p(t[0])), sub(p(t[2]), p(t[1])), sub(p(t[0]), p(t[2])));
        // The face normal, computed once for the degeneracy test and the winding test.
        let Some(f) = oriented_face(t, e0, e2) else {
            degenerate += 1;
            continue;
        };
        for e in [e0, e1, e2] {
            let l = len(e);
            if l.is_finite() {
                edge_sum += l;
                edges += 1;
            }
        }
        if let Some(ns) = &m.normals {
            let d = face_against_normals(f, t.map(|i| ns[i as usize]));
            if d > 0.0 {
                agree += 1;
            } else if d < 0.0 {
                disagree += 1;
            }
        }
    }
    // The geometry is what the triangles reference: a vertex no index names is drawn by
    // nothing, and FORMAT.md promises nothing about its bytes (§6), so its values are no
    // evidence either way (what cannot be written of it is left out: [`writable`]).
    // The largest |coordinate| as the largest bit pattern of a finite one with its sign
    // cleared (for finite non-negative floats the patterns order as the values do, and
    // widening to f64 is exact): integer maxima without a NaN case, branch-free.
    let (mut max_bits, mut non_finite) = (0u32, 0usize);
    for (p, &s) in m.positions.iter().zip(&seen) {
        for &c in p {
            let a = c.to_bits() & 0x7FFF_FFFF;
            let finite = a < 0x7F80_0000;
            max_bits = max_bits.max(if s && finite { a } else { 0 });
            non_finite += usize::from(s && !finite);
        }
    }
    let max_abs = f32::from_bits(max_bits) as f64;
    let mean_normal_len = m.normals.as_ref().filter(|ns| !ns.is_empty()).map(|ns| {
        let s: f64 = ns.iter().map(|n| len([n[0] as f64, n[1] as f64, n[2] as f64])).sum();
        s / ns.len() as f64
    });
    let diag = m.bbox().map_or(0.0, |(lo, hi)| len(sub(hi, lo)));
    let edge_ratio = if diag > 0.0 && edges > 0 {
        edge_sum / edges as f64 / diag
    } else {
        0.0
    };
    Measures {
        triangles: m.indices.len() / 3,
        degenerate,
        referenced: seen.iter().filter(|&&s| s).count(),
        vertices: vcount,
        max_index,
        non_finite,
        non_finite_attributes: non_finite_attributes(m, &seen),
        max_abs,
        mean_normal_len,
        winding_agree: agree,
        winding_disagree: disagree,
        edge_ratio,
    }
}

/// Non-finite normal, texture coordinate and colour components of the vertices `used`
/// marks, one attribute array at a time.
fn non_finite_attributes(m: &Mesh, used: &[bool]) -> usize {
    fn bad<const N: usize>(values: &[[f32; N]], used: &[bool]) -> usize {
        values
            .iter()
            .zip(used)
            .filter(|(_, &u)| u)
            .map(|(v, _)| v.iter().filter(|c| !c.is_finite()).count())
            .sum()
    }
    m.normals.as_deref().map_or(0, |n| bad(n, used))
        + m.texcoords.iter().map(|t| bad(t, used)).sum::<usize>()
        + m.colors.as_deref().map_or(0, |c| bad(c, used))
}

/// Vertex `i`'s attributes (normal, texture coordinates, colour): whether all are
/// finite, and how many components are not.
fn attributes_finite(m: &Mesh, i: usize) -> (bool, usize) {
    let normal = m.normals.iter().flat_map(|n| n[i].iter());
    let uvs = m.texcoords.iter().flat_map(|t| t[i].iter());
    let colors = m.colors.iter().flat_map(|c| c[i].iter());
    let bad = normal.chain(uvs).chain(colors).filter(|c| !c.is_finite()).count();
    (bad == 0, bad)
}

/// The mesh as it may be written: a vertex that no triangle references and whose values
/// glTF cannot hold or the gates would refuse (a non-finite component, a coordinate past
/// `max_abs_coordinate`) is left out, the indices renumbered; measured again when one
/// was. Every other vertex, referenced or not, is kept as stored.
pub fn writable(mut m: Mesh, measures: Measures, cfg: &GateConfig) -> (Mesh, Measures) {
    // (Every vertex referenced, as in nearly every block: nothing to look at.)
    if measures.referenced == m.positions.len() {
        return (m, measures);
    }
    let mut referenced = vec![false; m.positions.len()];
    for &i in &m.indices {
        if let Some(r) = referenced.get_mut(i as usize) {
            *r = true;
        }
    }
    let fits = |p: &[f32; 3]| {
        p.iter()
            .all(|c| c.is_finite() && (c.abs() as f64) <= cfg.max_abs_coordinate)
    };
    let keep: Vec<bool> = (0..m.positions.len())
        .map(|i| referenced[i] || (fits(&m.positions[i]) && attributes_finite(&m, i).0))
        .collect();
    if keep.iter().all(|&k| k) {
        return (m, measures);
    }
    m.keep_vertices(&keep);
    let measures = measure(&m);
    (m, measures)
}

/// Apply the hard gates. `Ok` means the block may be emitted.
pub fn verdict(m: &Measures, cfg: &GateConfig) -> Result<(), Reason> {
    if m.vertices > 0 && m.max_index as usize >= m.vertices {
        return Err(Reason::new(
            Code::IndexOutOfRange,
            format!("index {} ≥ vertex count {}", m.max_index, m.vertices),
        ));
    }
    if m.non_finite > 0 {
        return Err(Reason::new(
            Code::NonFinitePosition,
            format!("{} non-finite position components", m.non_finite),
        ));
    }
    if m.non_finite_attributes > 0 {
        return Err(Reason::new(
            Code::InvalidAttribute,
            format!(
                "{} non-finite normal/texcoord/colour components",
                m.non_finite_attributes
            ),
        ));
    }
    if m.max_abs > cfg.max_abs_coordinate {
        return Err(Reason::new(
            Code::PositionOutOfBounds,
            format!("|coordinate| {:.3e} > {:.3e}", m.max_abs, cfg.max_abs_coordinate),
        ));
    }
    if m.triangles == 0 || m.degenerate as f64 > cfg.max_degenerate_fraction * m.triangles as f64 {
        return Err(Reason::new(
            Code::DegenerateTriangles,
            format!("{} of {} triangles degenerate", m.degenerate, m.triangles),
        ));
    }
    if (m.referenced as f64) < cfg.min_referenced_fraction * m.vertices as f64 {
        return Err(Reason::new(
            Code::VerticesUnreferenced,
            format!("{} of {} vertices referenced", m.referenced, m.vertices),
        ));
    }
    if let Some(l) = m.mean_normal_len {
        if !(cfg.normal_len_min..=cfg.normal_len_max).contains(&l) {
            return Err(Reason::new(Code::NormalsNotUnit, format!("mean |normal| {l:.3}")));
        }
    }
    let oriented = m.winding_agree + m.winding_disagree;
    if cfg.winding && oriented > 0 {
        let dominant = m.winding_agree.max(m.winding_disagree) as f64 / oriented as f64;
        if dominant < cfg.min_winding_consistency {
            return Err(Reason::new(
                Code::WindingInconsistent,
                format!(
                    "{} of {} triangles agree with the normals, {} disagree",
                    m.winding_agree, oriented, m.winding_disagree
                ),
            ));
        }
    }
    Ok(())
}

/// Soft signal: mean edge long relative to the bbox (the reference decoder's gate).
pub fn spiky(m: &Measures, cfg: &GateConfig) -> bool {
    m.edge_ratio > cfg.spiky_edge_ratio
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::Primitive;

    /// A closed, outward-wound tetrahedron-like fan: a square pyramid (5 vertices, 6 triangles)
    /// with normals pointing away from its centre; winding agrees with them (right-hand rule).
    fn good() -> Mesh {
        let positions = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.5, 0.5, 1.0],
        ];
        let c = [0.5f32, 0.5, 0.4];
        let normals = positions
            .iter()
            .map(|p: &[f32; 3]| {
                let d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
                let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                [d[0] / l, d[1] / l, d[2] / l]
            })
            .collect();
        let indices = vec![0, 2, 1, 0, 3, 2, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4];
        Mesh::single(positions, Some(normals), indices)
    }

    fn check(m: &Mesh) -> Result<(), Reason> {
        verdict(&measure(m), &GateConfig::default())
    }

    fn code(m: &Mesh) -> Code {
        check(m).unwrap_err().code
    }

    #[test]
    fn an_unreferenced_vertex_is_judged_by_nothing_and_left_out_when_unwritable() {
        // Two unreferenced vertices between the referenced ones: one clean, one with a
        // NaN and a huge coordinate (FORMAT.md promises nothing about either).
        let mut m = good();
        let n = m.normals.as_mut().unwrap();
        m.positions.insert(1, [f32::NAN, 3.0e30, 0.0]);
        n.insert(1, [1.0, 0.0, 0.0]);
        m.positions.push([2.0, 2.0, 2.0]);
        n.push([0.0, 1.0, 0.0]);
        for i in &mut m.indices {
            *i += u32::from(*i >= 1);
        }
        // 5 of 7 referenced: below the share the gate asks, so lower it for this test.
        let cfg = GateConfig {
            min_referenced_fraction: 0.7,
            ..GateConfig::default()
        };
        let measures = measure(&m);
        assert_eq!((measures.non_finite, measures.vertices), (0, 7));
        assert_eq!(verdict(&measures, &cfg), Ok(()));
        // Written: the unwritable one left out, the clean one kept, the triangles the same.
        let (w, wm) = writable(m.clone(), measures, &cfg);
        assert_eq!(wm.vertices, 6);
        assert_eq!(w.positions.len(), 6);
        assert!(w.positions.iter().flatten().all(|c| c.is_finite()));
        let tri = |m: &Mesh, k: usize| [0, 1, 2].map(|j| m.positions[m.indices[3 * k + j] as usize]);
        for k in 0..m.indices.len() / 3 {
            assert_eq!(tri(&w, k), tri(&m, k));
        }
        assert_eq!(w.positions[5], [2.0, 2.0, 2.0]);
        // Referenced, the same vertex is the geometry's, and refused.
        m.indices[0] = 1;
        assert_eq!(verdict(&measure(&m), &cfg).unwrap_err().code, Code::NonFinitePosition);
    }

    #[test]
    fn the_good_mesh_passes_every_gate() {
        let m = measure(&good());
        assert_eq!((m.triangles, m.degenerate, m.referenced), (6, 0, 5));
        assert_eq!((m.winding_agree, m.winding_disagree), (6, 0));
        assert_eq!(m.winding_sense(), Some("ccw"));
        assert!(check(&good()).is_ok());
    }

    #[test]
    fn reversed_winding_everywhere_is_consistent_and_passes() {
        let mut g = good();
        for t in g.indices.chunks_exact_mut(3) {
            t.swap(1, 2);
        }
        assert_eq!(measure(&g).winding_sense(), Some("cw"));
        assert!(check(&g).is_ok());
    }

    #[test]
    fn index_gate_catches_an_out_of_range_index() {
        let mut g = good();
        g.indices[17] = 5;
        assert_eq!(code(&g), Code::IndexOutOfRange);
    }

    #[test]
    fn degenerate_gate_catches_zero_padding_read_as_triangles() {
        // The "window runs into zero padding" mis-anchor: (0,0,0) triangles in front.
        let mut g = good();
        let mut idx = vec![0, 0, 0];
        idx.extend(g.indices.iter());
        g.indices = idx;
        assert_eq!(code(&g), Code::DegenerateTriangles);
    }

    #[test]
    fn reference_gate_catches_a_window_that_uses_few_vertices() {
        // A suffix window of another buffer: the indices only touch part of the run.
        let mut g = good();
        g.positions.extend([[5.0, 5.0, 5.0]; 3]);
        g.normals.as_mut().unwrap().extend([[0.0, 0.0, 1.0]; 3]);
        assert_eq!(code(&g), Code::VerticesUnreferenced);
    }

    #[test]
    fn normal_gate_catches_non_unit_normals() {
        let mut g = good();
        for n in g.normals.as_mut().unwrap() {
            *n = [n[0] * 3.0, n[1] * 3.0, n[2] * 3.0];
        }
        assert_eq!(code(&g), Code::NormalsNotUnit);
    }

    #[test]
    fn winding_gate_catches_scrambled_orientation() {
        // Triangles that agree and disagree half-and-half: indices shifted onto a block
        // whose vertex order is not the one the indices were written for.
        let mut g = good();
        for t in g.indices.chunks_exact_mut(3).step_by(2) {
            t.swap(1, 2);
        }
        assert_eq!(code(&g), Code::WindingInconsistent);
        let cfg = GateConfig {
            winding: false,
            ..Default::default()
        };
        assert!(verdict(&measure(&g), &cfg).is_ok());
    }

    #[test]
    fn position_gates_catch_nan_and_absurd_coordinates() {
        let mut g = good();
        g.positions[4][2] = f32::NAN;
        assert_eq!(code(&g), Code::NonFinitePosition);
        let mut h = good();
        h.positions[4][2] = 3.0e9;
        assert_eq!(code(&h), Code::PositionOutOfBounds);
        let mut k = good();
        k.texcoords = vec![vec![[0.0, 0.0]; 5]];
        k.texcoords[0][3][1] = f32::INFINITY;
        assert_eq!(code(&k), Code::InvalidAttribute);
    }

    #[test]
    fn spiky_is_a_soft_signal_only() {
        // A single big quad (skybox-like) has long edges relative to its bbox but passes.
        let q = Mesh {
            positions: vec![[-3e5, 0.0, -3e5], [3e5, 0.0, -3e5], [3e5, 0.0, 3e5], [-3e5, 0.0, 3e5]],
            normals: Some(vec![[0.0, 1.0, 0.0]; 4]),
            indices: vec![0, 2, 1, 0, 3, 2],
            primitives: vec![Primitive {
                first_index: 0,
                index_count: 6,
                material: None,
            }],
            ..Default::default()
        };
        let m = measure(&q);
        assert!(spiky(&m, &GateConfig::default()));
        assert!(verdict(&m, &GateConfig::default()).is_ok());
    }

    #[test]
    fn winding_can_pass_turns_away_a_mesh_half_against_its_normals() {
        // One triangle, its normals up, then wound both ways in turn.
        let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let up = |_: u32| [0.0, 0.0, 1.0];
        let cfg = GateConfig::default();
        let pos = |x: u32| p[x as usize];
        let half = |k: usize| if k.is_multiple_of(2) { [0, 1, 2] } else { [0, 2, 1] };
        assert!(!Faces::new(40, half, pos).winding_can_pass(up, &cfg));
        // All one way: passes.
        assert!(Faces::new(40, |_| [0, 1, 2], pos).winding_can_pass(up, &cfg));
        // Two faces against in forty: the gate's 0.9 holds, so it must not turn it away.
        let few = |k: usize| if k < 2 { [0, 2, 1] } else { [0, 1, 2] };
        let mut faces = Faces::new(40, few, pos);
        assert!(faces.winding_can_pass(up, &cfg));
        // Asked again, with the faces computed once: the same answers.
        assert!(faces.winding_can_pass(up, &cfg));
        assert!(!faces.winding_can_pass(
            |_| [0.0, 0.0, -1.0],
            &GateConfig {
                min_winding_consistency: 0.96,
                ..cfg
            }
        ));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// `winding_can_pass` never turns away a mesh whose measured winding passes:
        /// random positions (some repeated, so some triangles are degenerate), random
        /// normals (some zero), random indices, any threshold.
        #[test]
        fn winding_can_pass_is_implied_by_the_verdict(
            v in 3usize..12,
            seeds in proptest::collection::vec(-3i8..4, 72),
            idx in proptest::collection::vec(0usize..64, 3..60),
            min in 0.5f64..1.0,
        ) {
            let f = |k: usize| seeds[k % seeds.len()] as f32 / 2.0;
            let positions: Vec<[f32; 3]> = (0..v).map(|k| [f(3 * k), f(3 * k + 1), f(3 * k + 2)]).collect();
            let normals: Vec<[f32; 3]> = (0..v).map(|k| [f(5 * k + 7), f(5 * k + 8), f(5 * k + 9)]).collect();
            let indices: Vec<u32> = idx.iter().map(|&x| (x % v) as u32).collect();
            let mesh = Mesh {
                positions: positions.clone(),
                normals: Some(normals.clone()),
                texcoords: Vec::new(),
                colors: None,
                indices: indices.clone(),
                primitives: Vec::new(),
            };
            let cfg = GateConfig { min_winding_consistency: min, ..GateConfig::default() };
            let m = measure(&mesh);
            let oriented = m.winding_agree + m.winding_disagree;
            let passes = oriented == 0
                || m.winding_agree.max(m.winding_disagree) as f64 / oriented as f64 >= min;
            let tri = |k: usize| [indices[3 * k], indices[3 * k + 1], indices[3 * k + 2]];
            let mut faces = Faces::new(indices.len() / 3, tri, |x| positions[x as usize]);
            let can = faces.winding_can_pass(|x| normals[x as usize], &cfg);
            // The faces cached by the first test change nothing in a second.
            proptest::prop_assert_eq!(can, faces.winding_can_pass(|x| normals[x as usize], &cfg));
            proptest::prop_assert!(can || !passes, "turned away a mesh that passes: {m:?}");
        }
    }

    proptest::proptest! {
        /// The figures `measure` keeps per referenced vertex — the largest |coordinate|
        /// and the non-finite components of positions and of the other attributes — are
        /// those of a plain reading: any bits (NaN, ±inf, ±0, subnormals), some vertices
        /// unreferenced, indices past the end among them.
        #[test]
        fn per_vertex_figures_are_the_plain_ones(
            bits in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::any::<u32>(),
                    proptest::sample::select(vec![0x7F80_0000u32, 0xFF80_0000, 0x7FC0_0001, 0x8000_0000, 1, 0x7F7F_FFFF]),
                ],
                3..120,
            ),
            idx in proptest::collection::vec(0u32..50, 0..60),
        ) {
            let f = |k: usize| f32::from_bits(bits[k % bits.len()]);
            let v = bits.len() / 3;
            let mesh = Mesh {
                positions: (0..v).map(|k| [f(3 * k), f(3 * k + 1), f(3 * k + 2)]).collect(),
                normals: Some((0..v).map(|k| [f(k + 1), f(k + 2), f(k + 3)]).collect()),
                texcoords: vec![(0..v).map(|k| [f(2 * k + 5), f(k + 7)]).collect()],
                colors: Some((0..v).map(|k| [f(k), f(k + 4), f(k + 8), f(k + 9)]).collect()),
                indices: idx.iter().map(|&x| x * 2 % (v as u32 + 3)).collect(),
                primitives: Vec::new(),
            };
            let used: Vec<bool> = (0..v).map(|i| mesh.indices.chunks_exact(3).flatten().any(|&x| x as usize == i)).collect();
            let (mut max_abs, mut non_finite, mut attrs) = (0.0f64, 0, 0);
            for i in (0..v).filter(|&i| used[i]) {
                for c in mesh.positions[i] {
                    if c.is_finite() {
                        max_abs = max_abs.max(c.abs() as f64);
                    } else {
                        non_finite += 1;
                    }
                }
                attrs += attributes_finite(&mesh, i).1;
            }
            let m = measure(&mesh);
            proptest::prop_assert_eq!(m.max_abs.to_bits(), max_abs.to_bits());
            proptest::prop_assert_eq!((m.non_finite, m.non_finite_attributes), (non_finite, attrs));
            proptest::prop_assert_eq!(m.referenced, used.iter().filter(|&&u| u).count());
        }
    }
}
