//! Multi-stream declarations (FORMAT.md §5): each stream is its own buffer of
//! `vertex_count` vertices at its own stride, one index buffer indexes them all, and
//! where each buffer sits is unknown.
//!
//! Owns what happens after the stream holding POSITION has been located with the index
//! buffer (by [`super::anchored`], as a single-stream block is; see
//! [`crate::decode::Streams`]): the stream holding NORMAL, when it is another one, is
//! placed by its own content and tied to the located block by the geometry; streams that
//! hold neither are left out, never filled with guessed bytes.
//!
//! **Placing the NORMAL stream.** Candidates: every start of a buffer of `V` slots at
//! the stream's stride that covers a run of unit normals of its NORMAL type holding at
//! least half of `V` (start- and end-aligned, and up to [`MAX_LEADING_NON_UNIT`] slots
//! either way: FORMAT.md does not promise every normal unit), kept off every byte range
//! another unit claimed. A candidate is accepted when the whole mesh (the located
//! positions and indices with its normals) passes every hard gate: among them the
//! winding gate, which requires at least `min_winding_consistency` of the oriented
//! triangles to agree in one sense with the normals (face normal by the right-hand rule
//! against the sum of its vertices' normals) — normals of another mesh, or of this one
//! shifted by a vertex, agree about half the time. Of the accepted candidates the one
//! with the most unit normals is taken when it is the only one with that many; a tie is
//! `ambiguous_anchor`, no candidate `no_valid_anchor`.

use super::anchored::{tolerant_runs, UnitBitmap, MAX_CANDIDATES, MAX_LEADING_NON_UNIT, MIN_RUN_UNITS};
use crate::decl::Declaration;
use crate::gates::{self, GateConfig, Measures};
use crate::mesh::Mesh;
use crate::reason::{Code, Reason};
use crate::vertex::{read_attributes, AttributeMap};
use std::ops::Range;

/// Where one stream of a decoded multi-stream resource's buffers is, or why it was left
/// out (the manifest's `streams`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamPlacement {
    pub stream: u16,
    /// The stream located with the index buffer (the one holding POSITION).
    pub located: bool,
    pub stride: usize,
    /// Data-section-relative offset of its buffer (`None`: left out).
    pub offset: Option<usize>,
    /// Why it was left out.
    pub left_out: Option<String>,
}

/// A placed NORMAL stream: where its buffer starts, the mesh with its attributes added,
/// and the whole mesh's measures.
#[derive(Debug)]
pub struct Placed {
    pub offset: usize,
    pub mesh: Mesh,
    pub measures: Measures,
}

/// Candidate starts of a `v`-vertex buffer at stride `s` whose NORMAL is `map.normal`:
/// around every run of unit normals holding at least half of `v` (see the module doc).
fn candidate_starts(data: &[u8], decl: &Declaration, map: &AttributeMap, v: usize) -> Vec<usize> {
    let (Some(ne), s) = (map.normal, decl.stride) else {
        return Vec::new();
    };
    if s == 0 || v == 0 {
        return Vec::new();
    }
    let o = ne.offset as usize;
    let bm = UnitBitmap::build(data, ne.ty, o % 2);
    let need = v.div_ceil(2).max(MIN_RUN_UNITS);
    let lead = MAX_LEADING_NON_UNIT as isize;
    let mut out = Vec::new();
    for (q0, span, units) in tolerant_runs(&bm, s) {
        if units < need {
            continue;
        }
        let Some(first) = q0.checked_sub(o) else { continue };
        let d = span as isize - v as isize;
        for j in d.min(0) - lead..=d.max(0) + lead {
            let Some(c) = first.checked_add_signed(j * s as isize) else {
                continue;
            };
            if c % 2 == 0 && c + v * s <= data.len() {
                out.push(c);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `mesh` (the located stream's attributes) with `other`'s added: its normals, its
/// colours where the located stream has none, and its texture coordinate sets, all sets
/// in usage-index order (`located` and `map` give each set's usage index).
fn merge(mut mesh: Mesh, other: Mesh, located: &AttributeMap, map: &AttributeMap) -> Mesh {
    if mesh.normals.is_none() {
        mesh.normals = other.normals;
    }
    if mesh.colors.is_none() {
        mesh.colors = other.colors;
    }
    if !other.texcoords.is_empty() {
        let mut sets: Vec<(u8, Vec<[f32; 2]>)> = located
            .texcoords
            .iter()
            .map(|e| e.usage_index)
            .zip(std::mem::take(&mut mesh.texcoords))
            .collect();
        for (e, t) in map.texcoords.iter().zip(other.texcoords) {
            if !sets.iter().any(|(u, _)| *u == e.usage_index) {
                sets.push((e.usage_index, t));
            }
        }
        sets.sort_by_key(|(u, _)| *u);
        mesh.texcoords = sets.into_iter().map(|(_, t)| t).collect();
    }
    mesh
}

/// Place the stream `decl` / `map` (holding the NORMAL) of a resource whose located
/// stream decoded to `mesh` (`located` its map): see the module doc. `taken` = byte
/// ranges other units claimed (and the located block's own).
pub fn place_normal_stream(
    data: &[u8],
    mesh: &Mesh,
    located: &AttributeMap,
    decl: &Declaration,
    map: &AttributeMap,
    taken: &[Range<usize>],
    cfg: &GateConfig,
) -> Result<Placed, Reason> {
    let v = mesh.positions.len();
    let s = decl.stride;
    let starts = candidate_starts(data, decl, map, v);
    let free: Vec<usize> = starts
        .into_iter()
        .filter(|&c| !taken.iter().any(|t| t.start < c + v * s && c < t.end))
        .collect();
    if free.len() > MAX_CANDIDATES {
        return Err(Reason::new(
            Code::AmbiguousAnchor,
            format!("more than {MAX_CANDIDATES} places for the NORMAL stream's buffer"),
        ));
    }
    let ne = map.normal.expect("a NORMAL stream has a NORMAL element");
    let tol = crate::decl::unit_tolerance(ne.ty);
    let unit_normals = |c: usize| {
        (0..v)
            .filter(|k| {
                let at = c + k * s + ne.offset as usize;
                data.get(at..at + ne.ty.size())
                    .is_some_and(|b| crate::decl::is_unit_normal(ne.ty, b, tol))
            })
            .count()
    };
    let mut passing: Vec<(usize, usize, Placed)> = Vec::new();
    let mut failure: Option<Reason> = None;
    for c in free {
        let Some(attrs) = read_attributes(data, c, v, decl, map) else {
            continue;
        };
        let merged = merge(mesh.clone(), attrs, located, map);
        let measures = gates::measure(&merged);
        match gates::verdict(&measures, cfg) {
            Ok(()) => passing.push((
                unit_normals(c),
                c,
                Placed {
                    offset: c,
                    mesh: merged,
                    measures,
                },
            )),
            Err(why) => failure = failure.or(Some(why)),
        }
    }
    let best = passing.iter().map(|p| p.0).max();
    let mut top: Vec<(usize, usize, Placed)> = passing.into_iter().filter(|p| Some(p.0) == best).collect();
    match top.len() {
        1 => Ok(top.pop().expect("one").2),
        0 => Err(Reason::new(
            Code::NoValidAnchor,
            match failure {
                Some(why) => format!(
                    "no place for the NORMAL stream's buffer passes the gates with the located positions ({}: {})",
                    why.code, why.detail
                ),
                None => "no run of unit normals at the NORMAL stream's stride holds half its vertices".to_string(),
            },
        )),
        n => Err(Reason::new(
            Code::AmbiguousAnchor,
            format!(
                "{n} places for the NORMAL stream's buffer pass the gates equally (at {:#x} and {:#x})",
                top[0].1, top[1].1
            ),
        )),
    }
}

/// Why a stream holding neither POSITION nor NORMAL is left out.
pub fn left_out_reason(decl: &Declaration) -> String {
    let what: Vec<String> = decl
        .elements
        .iter()
        .map(|e| format!("{}{}", e.usage.name(), e.usage_index))
        .collect();
    format!(
        "{} only: nothing in it can be checked against the located geometry, so its buffer cannot be placed \
         uniquely; the mesh is exact without it",
        what.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::{DeclType, Element, Usage};
    use proptest::prelude::*;

    /// A small deterministic stream of numbers (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    /// A latitude/longitude sphere of `rings × sectors` vertices (plus the poles) with
    /// outward normals and outward (right-hand) winding, its vertices in an order drawn
    /// from `rng` (a buffer's order is the exporter's, not the mesh's).
    fn sphere(rings: usize, sectors: usize, rng: &mut Rng) -> (Mesh, Vec<[f32; 3]>) {
        let mut pos = vec![[0.0, 0.0, 1.0]];
        for r in 1..=rings {
            let t = std::f32::consts::PI * r as f32 / (rings + 1) as f32;
            for s in 0..sectors {
                let f = std::f32::consts::TAU * s as f32 / sectors as f32;
                pos.push([t.sin() * f.cos(), t.sin() * f.sin(), t.cos()]);
            }
        }
        pos.push([0.0, 0.0, -1.0]);
        let v = |r: usize, s: usize| (1 + (r - 1) * sectors + s % sectors) as u32;
        let south = pos.len() as u32 - 1;
        let mut idx = Vec::new();
        for s in 0..sectors {
            idx.extend([0, v(1, s), v(1, s + 1)]);
            idx.extend([south, v(rings, s + 1), v(rings, s)]);
            for r in 1..rings {
                idx.extend([v(r, s), v(r + 1, s), v(r + 1, s + 1)]);
                idx.extend([v(r, s), v(r + 1, s + 1), v(r, s + 1)]);
            }
        }
        // Shuffle the vertex order.
        let n = pos.len();
        let mut perm: Vec<usize> = (0..n).collect();
        for k in (1..n).rev() {
            perm.swap(k, rng.below(k + 1));
        }
        let mut inv = vec![0u32; n];
        for (new, &old) in perm.iter().enumerate() {
            inv[old] = new as u32;
        }
        let positions: Vec<[f32; 3]> = perm.iter().map(|&o| pos[o].map(|c| c * 3.0)).collect();
        let normals: Vec<[f32; 3]> = perm.iter().map(|&o| pos[o]).collect();
        let indices = idx.iter().map(|&i| inv[i as usize]).collect();
        (Mesh::single(positions, None, indices), normals)
    }

    /// `NORMAL@0 FLOAT16_4, TEXCOORD@8 FLOAT16_2` on stream 1 (stride 12).
    fn normal_stream() -> (Declaration, AttributeMap) {
        let e = |offset, ty, usage| Element {
            stream: 1,
            offset,
            ty,
            method: 0,
            usage,
            usage_index: 0,
        };
        let d = Declaration {
            elements: vec![
                e(0, DeclType::Float16_4, Usage::Normal),
                e(8, DeclType::Float16_2, Usage::TexCoord),
            ],
            stride: 12,
        };
        let m = AttributeMap::of(&d);
        (d, m)
    }

    /// The stream's bytes for `normals` (texture coordinates from the vertex number).
    fn encode(normals: &[[f32; 3]]) -> Vec<u8> {
        let h = |x: f32| half::f16::from_f32(x).to_bits().to_be_bytes();
        let mut out = Vec::new();
        for (k, n) in normals.iter().enumerate() {
            for c in [n[0], n[1], n[2], 0.0] {
                out.extend(h(c));
            }
            out.extend(h((k % 7) as f32 / 7.0));
            out.extend(h((k % 5) as f32 / 5.0));
        }
        out
    }

    /// Junk that decodes to no unit normal (every half's exponent is too large).
    fn junk(n: usize, rng: &mut Rng) -> Vec<u8> {
        (0..n)
            .map(|k| {
                if k % 2 == 0 {
                    0x70 | (rng.next() as u8 & 0x0F)
                } else {
                    rng.next() as u8
                }
            })
            .collect()
    }

    fn place(data: &[u8], mesh: &Mesh, taken: &[Range<usize>]) -> Result<Placed, Reason> {
        let (d, m) = normal_stream();
        let located = AttributeMap::of(&Declaration {
            elements: Vec::new(),
            stride: 0,
        });
        place_normal_stream(data, mesh, &located, &d, &m, taken, &GateConfig::default())
    }

    #[test]
    fn the_normal_stream_is_found_among_junk_and_its_attributes_merged() {
        let mut rng = Rng(7);
        let (mesh, normals) = sphere(5, 8, &mut rng);
        let mut data = junk(302, &mut rng);
        let at = data.len();
        data.extend(encode(&normals));
        data.extend(junk(90, &mut rng));
        let p = place(&data, &mesh, &[]).unwrap();
        assert_eq!(p.offset, at);
        let got = p.mesh.normals.as_ref().unwrap();
        for (g, w) in got.iter().zip(&normals) {
            assert!((0..3).all(|k| (g[k] - w[k]).abs() < 2e-3), "{g:?} {w:?}");
        }
        assert_eq!(p.mesh.texcoords.len(), 1);
        assert_eq!(p.mesh.positions, mesh.positions);
        // A claimed range over it: nowhere else to go.
        let claimed = vec![std::ops::Range {
            start: at + 24,
            end: at + 36,
        }];
        let e = place(&data, &mesh, &claimed).unwrap_err();
        assert_eq!(e.code, Code::NoValidAnchor);
    }

    #[test]
    fn two_copies_of_the_stream_are_ambiguous() {
        let mut rng = Rng(11);
        let (mesh, normals) = sphere(4, 7, &mut rng);
        let mut data = junk(64, &mut rng);
        data.extend(encode(&normals));
        data.extend(junk(40, &mut rng));
        data.extend(encode(&normals));
        data.extend(junk(40, &mut rng));
        assert_eq!(place(&data, &mesh, &[]).unwrap_err().code, Code::AmbiguousAnchor);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Nothing placed differs from the truth: the true stream among junk and decoys
        /// (the normal streams of other spheres of the same vertex count, and copies of
        /// the true one shifted by a vertex), in any order; alone among junk it is found.
        #[test]
        fn a_placed_normal_stream_is_the_true_one(seed in any::<u64>(), rings in 2usize..6, sectors in 3usize..9,
                                                   decoys in 0usize..3, shifted in any::<bool>()) {
            let mut rng = Rng(seed | 1);
            let (mesh, normals) = sphere(rings, sectors, &mut rng);
            let mut pieces: Vec<(bool, Vec<u8>)> = vec![(true, encode(&normals))];
            for _ in 0..decoys {
                let (_, other) = sphere(rings, sectors, &mut rng);
                pieces.push((false, encode(&other)));
            }
            if shifted {
                let mut rot = normals.clone();
                rot.rotate_left(1);
                pieces.push((false, encode(&rot)));
            }
            for k in (1..pieces.len()).rev() {
                pieces.swap(k, rng.below(k + 1));
            }
            let mut data = junk(2 * (1 + rng.below(40)), &mut rng);
            let mut at = 0;
            for (truth, bytes) in pieces {
                if truth {
                    at = data.len();
                }
                data.extend(bytes);
                let n = 2 * (6 + rng.below(30));
                data.extend(junk(n, &mut rng));
            }
            match place(&data, &mesh, &[]) {
                Ok(p) => prop_assert_eq!(p.offset, at),
                Err(e) => prop_assert!(decoys + usize::from(shifted) > 0, "alone among junk: {}", e),
            }
        }
    }
}
