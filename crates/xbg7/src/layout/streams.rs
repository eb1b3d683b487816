//! Multi-stream declarations (FORMAT.md §5): each stream is its own buffer of
//! `vertex_count` vertices at its own stride, one index buffer indexes them all, and
//! where each buffer sits is unknown.
//!
//! Owns what happens after the stream holding POSITION has been located with the index
//! buffer (by [`super::anchored`], as a single-stream block is; see
//! [`crate::described::Streams`]): the stream holding NORMAL, when it is another one, is
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

use super::anchored::{
    dot3, element3, face_dot, face_normal, has_area, normal_runs, overlaps, preceding_triangles, referenced,
    trailing_degenerate, Edge, NormalBitmaps, NormalRuns, Seen, HEADER_TRIANGLES, MAX_LEADING_NON_UNIT, MIN_RUN_UNITS,
};
use crate::decl::{Declaration, Element};
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

/// The sample test ([`Agreement::agrees`]) for one finite share `min` (the gates' is in
/// 0..=1; a non-finite one ends too, without the floats' NaN verdicts), its comparisons made
/// once: the test's `m < min · k` (its counts are integers) is `m < need[k]`, `need[k]`
/// the least integer not below `min · k` in the same `f64` arithmetic, so each face
/// costs two integer comparisons and no branch on its sign (the searches apart run it
/// per combination, and a dot's sign is a coin flip on a wrong one).
#[derive(Clone, Copy)]
struct Agreement {
    min: f64,
    need: [usize; SAMPLE + LOOKAHEAD + 1],
    /// How many first oriented faces of a sample must all agree in one sense: a sample
    /// with a face of each sense among them fails [`Self::agrees`] (0 when the share lets
    /// a face against pass before [`LOOKAHEAD`] faces). Why: up to the face of the second
    /// sense the test has counted `t` oriented faces, at most this many, and needs
    /// `need[t + rest]` of them (`rest` counted as agreeing before [`LOOKAHEAD`] faces:
    /// `t + rest <= LOOKAHEAD`), which is all of them (`need[t] == t` for every count up
    /// to this one); that face leaves the majority one short — unless the test had
    /// failed before it.
    unanimous: usize,
}

impl Agreement {
    fn new(min: f64) -> Agreement {
        let need: [usize; SAMPLE + LOOKAHEAD + 1] = std::array::from_fn(|k| Self::least(min, k));
        // `need` does not fall with the count, and `need[t] == t` means a share above
        // `1 - 1/t`, which holds for every smaller count too: the first count where it
        // fails ends the prefix.
        let unanimous = (1..need.len()).take_while(|&t| need[t] == t).last().unwrap_or(0);
        Agreement {
            min,
            need,
            unanimous: if unanimous >= LOOKAHEAD { unanimous } else { 0 },
        }
    }

    /// The least integer `x` with `!(x as f64 < min * k as f64)`, as the test computes,
    /// for the counts it compares with it (at most `k`): past `k` (a share above 1),
    /// `k + 1`.
    fn least(min: f64, k: usize) -> usize {
        let bound = min * k as f64;
        if bound.is_nan() || bound <= 0.0 {
            return 0;
        }
        if bound > k as f64 {
            return k + 1;
        }
        // A positive bound of at most `k` (a count): its ceiling, exactly.
        bound.ceil() as usize
    }

    fn need(&self, k: usize) -> usize {
        self.need.get(k).copied().unwrap_or_else(|| Self::least(self.min, k))
    }

    /// Do the faces agree in one sense with the sums of their vertices' normals, for at
    /// least `min` of the oriented ones, with at least half of the faces oriented? `dots`:
    /// each face ([`face_normal`]) dotted with its normal sum, of `n` faces. (The winding
    /// gate's measure, on a sample.) Also returns how many faces it looked at.
    ///
    /// It is a prefix test: it stops as soon as the faces so far, with up to
    /// [`LOOKAHEAD`] more counted as agreeing, fall below `min` — so after the first few
    /// faces one face in ten against the majority so far ends it. (It was meant to count
    /// the whole rest of the sample as agreeing, and has counted three since it landed: a
    /// name shadowed in its loop. The readings the solver, the ranking of the search apart
    /// and [`MAX_PASSING`] were measured on are the ones this test lets through, so it
    /// stays so until a change measures the other.)
    fn agrees(&self, dots: impl Iterator<Item = f32>, n: usize) -> (bool, usize) {
        let (mut agree, mut disagree, mut total) = (0usize, 0usize, 0usize);
        for d in dots.take(n) {
            total += 1;
            agree += usize::from(d > 0.0);
            disagree += usize::from(d < 0.0);
            let rest = LOOKAHEAD.saturating_sub(total);
            let t = agree + disagree;
            if agree.max(disagree) + rest < self.need(t + rest) {
                return (false, total);
            }
            // More faces against no normal (a zero face or sum) than the end allows.
            if Self::too_many_unoriented(total - t, n) {
                return (false, total);
            }
        }
        let oriented = agree + disagree;
        (
            oriented * 2 >= total && agree.max(disagree) >= self.need(oriented),
            total,
        )
    }

    /// Whether `unoriented` faces of a sample of `n` (against no normal: a zero face or
    /// sum) are more than a sample that agrees may have — it wants at least half of them
    /// oriented. So a window with that many zero faces agrees with no NORMAL place.
    fn too_many_unoriented(unoriented: usize, n: usize) -> bool {
        unoriented > n / 2
    }
}

/// How many faces [`Agreement::agrees`] counts ahead of the first ones as agreeing.
const LOOKAHEAD: usize = 3;

/// Whether a triangle has three distinct indices (the ones a sample is made of).
fn distinct(t: [u32; 3]) -> bool {
    t[0] != t[1] && t[1] != t[2] && t[0] != t[2]
}

/// The first [`SAMPLE`] triangles of `indices` with three distinct indices.
fn sample_triangles(indices: impl Iterator<Item = u32>) -> Vec<[u32; 3]> {
    let idx: Vec<u32> = indices.collect();
    idx.chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .filter(|&t| distinct(t))
        .take(SAMPLE)
        .collect()
}

/// Per sample triangle, the sum of its vertices' NORMALs in the buffer at `c`.
fn normal_sums(data: &[u8], c: usize, decl: &Declaration, map: &AttributeMap, tris: &[[u32; 3]]) -> Vec<[f32; 3]> {
    let ne = map.normal.expect("a NORMAL stream");
    let at = |k: u32| element3(data, c, decl.stride, &ne, k);
    tris.iter()
        .map(|t| {
            let n = t.map(at);
            [0, 1, 2].map(|j| n[0][j] + n[1][j] + n[2][j])
        })
        .collect()
}

/// Candidate starts of a `v`-vertex buffer at stride `s` whose NORMAL is `map.normal`:
/// around every run of unit normals holding at least half of `v` (see the module doc).
/// The bitmap and runs come from `read` (built there once per container).
fn candidate_starts(
    data: &[u8],
    decl: &Declaration,
    map: &AttributeMap,
    v: usize,
    read: &mut NormalRunCache,
) -> Vec<usize> {
    let (Some(ne), s) = (map.normal, decl.stride) else {
        return Vec::new();
    };
    if s == 0 || v == 0 {
        return Vec::new();
    }
    let o = ne.offset as usize;
    let runs = normal_runs(&mut read.bitmaps, &mut read.runs_by_offset, data, ne.ty, o % 2, s);
    let need = v.div_ceil(2).max(MIN_RUN_UNITS);
    let lead = MAX_LEADING_NON_UNIT as isize;
    let mut starts = Vec::new();
    for &(q0, span, units) in runs.iter() {
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
                starts.push(c);
            }
        }
    }
    in_offset_order(data.len(), starts)
}

/// The even offsets `starts` (each below `len`) in increasing order, each once: one bit per
/// even offset, so in time linear in their number and `len` (long runs of unit normals
/// give tens of thousands of starts; sorting them was a fifth of a stage's search).
fn in_offset_order(len: usize, starts: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut bits = vec![0u64; len / 128 + 1];
    for c in starts {
        bits[c / 128] |= 1 << (c / 2 % 64);
    }
    let mut out = Vec::new();
    for (k, &word) in bits.iter().enumerate() {
        let mut w = word;
        while w != 0 {
            out.push(128 * k + 2 * w.trailing_zeros() as usize);
            w &= w - 1;
        }
    }
    out
}

/// The unit-normal bitmaps per (normal type, byte parity) and their tolerant runs per
/// stride that the multi-stream searches of one container share: the anchoring's own,
/// handed over ([`crate::layout::anchored::Scanner::into_normal_runs`]), extended as the
/// searches need more.
#[derive(Default)]
pub struct NormalRunCache {
    pub bitmaps: NormalBitmaps,
    pub runs_by_offset: NormalRuns,
}

impl NormalRunCache {
    /// Starting from the anchoring's bitmaps and runs.
    pub fn with_normal_runs((bitmaps, runs_by_offset): (NormalBitmaps, NormalRuns)) -> NormalRunCache {
        NormalRunCache {
            bitmaps,
            runs_by_offset,
        }
    }

    /// The bitmaps and runs, handed back (see [`NormalRunCache::with_normal_runs`]).
    pub fn into_normal_runs(self) -> (NormalBitmaps, NormalRuns) {
        (self.bitmaps, self.runs_by_offset)
    }
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
/// ranges other units claimed (and the located block's own); `read` what the container's
/// multi-stream searches share.
#[allow(clippy::too_many_arguments)]
pub fn place_normal_stream(
    data: &[u8],
    mesh: &Mesh,
    located: &AttributeMap,
    decl: &Declaration,
    map: &AttributeMap,
    taken: &[Range<usize>],
    cfg: &GateConfig,
    read: &mut NormalRunCache,
) -> Result<Placed, Reason> {
    let v = mesh.positions.len();
    let s = decl.stride;
    let free: Vec<usize> = candidate_starts(data, decl, map, v, read)
        .into_iter()
        .filter(|&c| !overlaps_any(&(c..c + v * s), taken))
        .collect();
    let unit_normals = |c: usize| unit_normal_count(data, c, decl, map, v);
    let tris = sample_triangles(mesh.indices.iter().copied());
    let mut budget = NORMAL_STREAM_BUDGET.saturating_mul(data.len()).max(1 << 20);
    let mut passing: Vec<(usize, usize, Placed)> = Vec::new();
    let mut failure: Option<Reason> = None;
    // The located mesh's faces, for the winding test of every place.
    let indices_fit = mesh.indices.iter().all(|&x| (x as usize) < v);
    let tri = |k: usize| [0, 1, 2].map(|j| mesh.indices[3 * k + j]);
    let mut faces = gates::Faces::new(mesh.indices.len() / 3, tri, |x: u32| mesh.positions[x as usize]);
    let agreement = Agreement::new(cfg.min_winding_consistency);
    for c in free {
        budget = budget.checked_sub(tris.len().max(1)).ok_or_else(|| {
            Reason::new(
                Code::AnchorOutOfBudget,
                "gave up: the search for the NORMAL stream's buffer ran out of its work budget",
            )
        })?;
        // A sample of the faces first (most places fail it), then the whole mesh.
        let sums = normal_sums(data, c, decl, map, &tris);
        let dots = tris
            .iter()
            .zip(&sums)
            .map(|(t, n)| face_dot(t.map(|k| mesh.positions[k as usize]), *n));
        if !agreement.agrees(dots, sums.len()).0 {
            continue;
        }
        // A place the winding gate turns away is not read whole, unless its reason is the
        // first failure (the one reported when no place passes).
        if failure.is_some() && located.normal.is_none() && indices_fit && c + v * s <= data.len() {
            let ne = map.normal.expect("a NORMAL stream");
            if !faces.winding_can_pass(|x| element3(data, c, s, &ne, x), cfg) {
                continue;
            }
        }
        let Some(attrs) = read_attributes(data, c, v, decl, map) else {
            continue;
        };
        let merged = merge(mesh.clone(), attrs, located, map);
        let measures = gates::measure(&merged);
        match gates::verdict(&measures, cfg) {
            Ok(()) => {
                if passing.len() == MAX_PASSING {
                    return Err(Reason::new(
                        Code::AmbiguousAnchor,
                        format!("more than {MAX_PASSING} places for the NORMAL stream's buffer pass the gates"),
                    ));
                }
                passing.push((
                    unit_normals(c),
                    c,
                    Placed {
                        offset: c,
                        mesh: merged,
                        measures,
                    },
                ))
            }
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

/// Triangles of a candidate index window whose orientation is compared with the
/// candidate normals before the whole mesh is read and gated.
const SAMPLE: usize = 24;

/// Work budget of [`place_normal_stream`], in sample faces per byte of the data section
/// (at least 1 Mi): each NORMAL place pays its sample.
pub const NORMAL_STREAM_BUDGET: usize = 16;

/// Work budget of [`search_apart`], in sample faces per byte of the data section (at
/// least [`APART_MIN_BUDGET`]). With [`APART_CONTAINER_BUDGET`] and
/// [`APART_CONTAINER_MIN_BUDGET`], a container's searches together do at most 256 faces
/// per byte or 256 Mi, as since the first budget (4 per search and 64 per container).
/// Raised to 16 with [`MAX_APART`] 256 → 1 024 (the own `--multistream` seeds 1–4: 267 →
/// 283 of 345 decoded, 0 wrong), then to 64 when the prefilter ([`Prefilter`]) made the
/// same work five to six times faster (283 → 298, 0 wrong; at 16: 290, at 128: 300).
/// Raised to 128 when the prefilter's senses went into bit sets by lanes and the work a
/// combination whose sample agrees costs (its faces against the winding gate, its whole
/// read) began to be paid: the own 16 `--multistream [--realism]` discs of seeds 1–8,
/// 1 127 → 1 144 of 1 238 decoded, 0 wrong, in less CPU than before (118 → 91 s for their
/// `verify`).
pub const APART_BUDGET: usize = 128;

/// Least work budget of [`search_apart`], in sample faces: a small model's position-only
/// stream has tens of thousands of places, each a few faces (measured on the own discs:
/// with 1 Mi, 5–8 multi-stream resources per demo disc gave up; with 4 Mi, 1–3).
pub const APART_MIN_BUDGET: usize = 1 << 24;

/// How many searches' budgets ([`APART_BUDGET`]) the searches apart of one container
/// share ([`ContainerSearches`]).
pub const APART_CONTAINER_BUDGET: usize = 4;

/// Least work budget the searches apart of one container share, in sample faces: 16
/// searches of [`APART_MIN_BUDGET`], as before the budget per search went to 64 per byte
/// (a small container's searches keep what they had together).
pub const APART_CONTAINER_MIN_BUDGET: usize = 16 * APART_MIN_BUDGET;

// A pair of the prefilter holds a place of a chunk and a window in 16 bits each.
const _: () = assert!(NORMAL_CHUNK <= 1 << 16 && MAX_APART <= 1 << 16);

/// Most index windows [`search_apart`] looks at; more is [`ApartOutcome::TooMany`]
/// ("gave up"). Windows a whole number of triangles apart share their samples
/// ([`Cluster`]), so a run of valid indices a few hundred triangles longer than the
/// index count (a neighbour's index buffer after it) costs one cluster, not one search
/// per window.
pub const MAX_APART: usize = 1024;

/// Most readings expected to agree with their normals by chance as well as the one a
/// search found ([`by_chance`]) for it to be taken.
pub const MAX_BY_CHANCE: f64 = 0.01;

/// How many of `tried` readings would agree with their normals as well as one with
/// `agree` faces in one sense and `against` in the other, by chance: a wrong reading's
/// face agrees with the sum of its vertices' normals about half the time, independently
/// (the argument of the tie, module doc), so the chance of as lopsided a count over
/// `t = agree + against` faces, in either sense, is `2 · P(Bin(t, ½) ≥ max(agree,
/// against))`, and `tried` readings looked at expect `tried` times that. A small mesh
/// among many candidates is where this is not small: twelve faces agree all in one sense
/// one time in two thousand, and a stage holds millions of combinations.
pub fn by_chance(tried: u64, agree: usize, against: usize) -> f64 {
    let (t, m) = (agree + against, agree.max(against));
    if t == 0 {
        return tried as f64;
    }
    // ln C(t, m) − t·ln 2, then the tail's terms by their ratio (t − k) / (k + 1) ≤ 1.
    let ln_first: f64 =
        (0..t - m).map(|i| ((t - i) as f64 / (i + 1) as f64).ln()).sum::<f64>() - t as f64 * std::f64::consts::LN_2;
    let (mut term, mut tail) = (1.0f64, 0.0f64);
    for k in m..=t {
        tail += term;
        term *= (t - k) as f64 / (k + 1) as f64;
        if term < 1e-18 * tail {
            break;
        }
    }
    let p = (2.0 * (ln_first.exp() * tail)).min(1.0);
    tried as f64 * p
}

/// Most NORMAL places [`search_apart`] holds the sample sums of at once (a window's places
/// are taken this many at a time, so what it holds does not grow with their number). A
/// place for the positions reads its faces once per chunk, so the fewer chunks the
/// better (512 → 4 096: the stages of own `--multistream` seed 1, 5.6 → 5.3 CPU-s).
const NORMAL_CHUNK: usize = 4096;

/// Most bytes of sample sums a chunk of NORMAL places holds ([`chunk_places`]).
const CHUNK_SUM_BYTES: usize = 8 << 20;

/// NORMAL places per chunk for a cluster of `faces` sample faces: [`NORMAL_CHUNK`], fewer
/// where their sums would pass [`CHUNK_SUM_BYTES`] (a cluster of many windows apart has
/// many faces), at least 64 (one word of the prefilter's bit sets).
fn chunk_places(faces: usize) -> usize {
    (CHUNK_SUM_BYTES / (12 * faces.max(1))).clamp(64, NORMAL_CHUNK)
}

/// Most combinations [`search_apart`] lets pass the gates before it calls the resource
/// ambiguous without ranking them.
const MAX_PASSING: usize = 32;

/// Buffers found apart from one another ([`search_apart`]).
#[derive(Debug)]
pub struct Apart {
    pub index_offset: usize,
    pub position_offset: usize,
    pub normal_offset: usize,
    pub mesh: Mesh,
    pub measures: Measures,
    /// No other combination the search accepted (a sample that agrees, then every hard
    /// gate, over its candidates): found alone, not ranked first.
    pub sole: bool,
}

fn u16_at(data: &[u8], at: usize) -> u32 {
    u16::from_be_bytes([data[at], data[at + 1]]) as u32
}

/// Whether `r` shares a byte with any of `taken`.
pub(crate) fn overlaps_any(r: &Range<usize>, taken: &[Range<usize>]) -> bool {
    taken.iter().any(|t| overlaps(t, r))
}

/// Index windows of `i` u16 values `< v` (byte offsets, even) that reference all `v`
/// vertices, off `taken`: every such window of every maximal run of values `< v` at least
/// `i` long, however it starts (a true list may open with a degenerate triangle; which
/// window of a run is the list is the ranking's question, [`ApartSearch::ranked`]). Each
/// run is slid over once, counting its values in the window (each value costs one of
/// `budget`); more than [`MAX_APART`] windows is [`ApartOutcome::TooMany`].
fn index_windows(
    data: &[u8],
    v: u32,
    i: usize,
    taken: &[Range<usize>],
    budget: &mut Budget,
) -> Result<Vec<usize>, ApartOutcome> {
    let n = data.len() / 2;
    let mut out = Vec::new();
    if i < v as usize {
        return Ok(out);
    }
    // How many times each vertex is in the window, and how many are at least once.
    let mut counts = vec![0u32; v as usize];
    let mut k = 0;
    while k < n {
        if u16_at(data, 2 * k) >= v {
            k += 1;
            continue;
        }
        let a = k;
        while k < n && u16_at(data, 2 * k) < v {
            k += 1;
        }
        if k - a < i {
            continue;
        }
        budget.pay(k - a)?;
        counts.fill(0);
        let mut present = 0usize;
        for j in a..k {
            let x = u16_at(data, 2 * j) as usize;
            counts[x] += 1;
            present += usize::from(counts[x] == 1);
            if j + 1 < a + i {
                continue;
            }
            // The window of the `i` values ending at `j`.
            let w = j + 1 - i;
            if w > a {
                let y = u16_at(data, 2 * (w - 1)) as usize;
                counts[y] -= 1;
                present -= usize::from(counts[y] == 0);
            }
            if present == v as usize && !overlaps_any(&(2 * w..2 * (w + i)), taken) {
                out.push(2 * w);
            }
        }
    }
    // A window that opens with `D` degenerate triangles while the window `D` triangles
    // later is one too is not searched itself: both have one sample (its first triangles
    // of three distinct indices), so it passes the sample test where that one does, and
    // [`ApartSearch::close`] reads it whole whenever that one ranks first — so a run of
    // padding before a list, or a list opening with a degenerate triangle, costs one
    // window's search, and the two are still ranked against each other.
    let set: std::collections::BTreeSet<usize> = out.iter().copied().collect();
    out.retain(|&w| {
        let d = leading_degenerate(data, w, i) as usize;
        d == 0 || !set.contains(&(w + 6 * d))
    });
    if out.len() > MAX_APART {
        return Err(ApartOutcome::TooMany(format!("more than {MAX_APART} index windows")));
    }
    Ok(out)
}

/// What [`search_apart`] found: one reading, or which of "two readings fit", "nothing
/// fits" and "gave up" it is.
#[derive(Debug)]
pub enum ApartOutcome {
    /// One reading passes the gates and ranks above every other that does.
    Found(Box<Apart>),
    /// Several readings pass the gates and none ranks above the others ("two readings fit").
    Rivals(String),
    /// More candidates of one buffer than the search looks at ("gave up": the others
    /// were not looked at).
    TooMany(String),
    /// No reading passes the gates ("nothing fits").
    Nothing(String),
    /// The work budget ran out ("gave up").
    OutOfBudget,
}

impl ApartOutcome {
    /// The reading found, or the reason none was.
    pub fn into_result(self) -> Result<Apart, Reason> {
        match self {
            ApartOutcome::Found(a) => Ok(*a),
            ApartOutcome::Rivals(detail) => Err(Reason::new(Code::AmbiguousAnchor, detail)),
            ApartOutcome::TooMany(detail) => Err(Reason::new(
                Code::AnchorOutOfBudget,
                format!("gave up: the search for buffers apart from the index buffer found {detail}"),
            )),
            ApartOutcome::Nothing(detail) => Err(Reason::new(Code::NoValidAnchor, detail)),
            ApartOutcome::OutOfBudget => Err(Reason::new(
                Code::AnchorOutOfBudget,
                "gave up: the search for buffers apart from the index buffer ran out of its work budget",
            )),
        }
    }
}

/// The work one search apart may still do, in sample faces: each face compared with a
/// NORMAL place's sums costs one (reading it from the positions is paid by the first
/// comparison), each NORMAL place's sums one per sample face, each index window looked at
/// its index count; a combination whose sample agrees, one per face the winding gate
/// compares ([`gates::Faces::winding_can_pass`]) and, read whole, one per triangle and
/// vertex. (Unpaid, the last two made one search of the full-scale seed-1 disc take 9 s
/// within its budget: 34 102 whole reads.)
struct Budget(usize);

impl Budget {
    /// Pay `work`; a search that cannot has spent all it had.
    fn pay(&mut self, work: usize) -> Result<(), ApartOutcome> {
        match self.0.checked_sub(work) {
            Some(left) => {
                self.0 = left;
                Ok(())
            }
            None => {
                self.0 = 0;
                Err(ApartOutcome::OutOfBudget)
            }
        }
    }
}

/// What the multi-stream searches of one container share: the work the searches apart
/// may do together ([`search_apart`]: a container of many multi-stream resources costs
/// at most this much, however many there are), and what they read once ([`NormalRunCache`]).
pub struct ContainerSearches {
    left: usize,
    data_len: usize,
    pub read: NormalRunCache,
}

impl ContainerSearches {
    /// The searches of a data section of `data_len` bytes: a budget of
    /// [`APART_CONTAINER_BUDGET`] searches' worth, and `read` to start from.
    pub fn new(data_len: usize, read: NormalRunCache) -> ContainerSearches {
        ContainerSearches {
            left: Self::per_search(data_len)
                .saturating_mul(APART_CONTAINER_BUDGET)
                .max(APART_CONTAINER_MIN_BUDGET),
            data_len,
            read,
        }
    }

    /// One search's budget: [`APART_BUDGET`] per data byte, at least [`APART_MIN_BUDGET`].
    fn per_search(data_len: usize) -> usize {
        APART_BUDGET.saturating_mul(data_len).max(APART_MIN_BUDGET)
    }
}

/// Most places for the positions [`search_apart`] looks at; more is
/// [`ApartOutcome::TooMany`] ("gave up").
pub const MAX_POSITION_STARTS: usize = 1 << 16;

/// Starts of `v`-vertex buffers at `decl`'s stride whose every POSITION is plausible
/// (finite, within `bound`, not a tiny non-zero number: bytes of something else read as
/// floats), off `taken`, per residue of the start modulo the stride in offset order;
/// lazily, one residue at a time. With `constant_fails` (the gates turn away a block whose
/// triangles are all degenerate) a buffer whose `v` positions are all one point is no
/// start: every triangle of any window on it has zero area, so no combination on it
/// passes — zero padding and zero-filled texture rows, read as positions, are most of
/// a stage's plausible places.
fn position_starts<'a>(
    data: &'a [u8],
    decl: &Declaration,
    map: &AttributeMap,
    v: usize,
    bound: f64,
    constant_fails: bool,
    taken: &'a [Range<usize>],
) -> impl Iterator<Item = usize> + 'a {
    let (pe, s) = (map.position.expect("a located stream holds POSITION"), decl.stride);
    let o = pe.offset as usize;
    let position = move |x: usize| {
        data.get(x..x + pe.ty.size()).and_then(|b| {
            let c = pe.ty.decode(b);
            let c = [c[0], c[1], c[2]];
            crate::layout::anchored::plausible_position(c, bound).then_some(c)
        })
    };
    // Per residue of the buffer start mod the stride (even starts only), the maximal
    // runs of plausible slots; each start inside a run with `v` slots left is a candidate
    // unless the `v` slots hold one point (the run of equal positions ending there).
    (0..s.max(1))
        .filter(|r| r % 2 == 0)
        .flat_map(move |r| {
            let mut starts = Vec::new();
            let (mut run, mut same) = (0usize, 0usize);
            let mut last = None;
            let mut c = r;
            while s > 0 && c + o + pe.ty.size() <= data.len() {
                match position(c + o) {
                    Some(p) => {
                        run += 1;
                        same = if last == Some(p) { same + 1 } else { 1 };
                        last = Some(p);
                        if run >= v && !(constant_fails && same >= v) {
                            starts.push(c + s - v * s);
                        }
                    }
                    None => (run, last) = (0, None),
                }
                c += s;
            }
            starts
        })
        .filter(move |&q| q % 2 == 0 && !overlaps_any(&(q..q + v * s), taken))
}

/// Search for the index buffer, the POSITION stream and the NORMAL stream of a
/// multi-stream resource each on its own, where the positions do not follow the index
/// buffer (see the module doc). `pdecl` / `pmap` is the stream holding POSITION; `ndecl`
/// / `nmap` the one holding NORMAL (the same stream or another). Pays its work from
/// the container's budget, and reads what the container's searches share from `shared`.
#[allow(clippy::too_many_arguments)]
pub fn search_apart(
    data: &[u8],
    v: u32,
    i: u32,
    positions: (&Declaration, &AttributeMap),
    normals: (&Declaration, &AttributeMap),
    same_stream: bool,
    taken: &[Range<usize>],
    cfg: &GateConfig,
    shared: &mut ContainerSearches,
) -> ApartOutcome {
    let mut own = Budget(ContainerSearches::per_search(shared.data_len).min(shared.left));
    let granted = own.0;
    let outcome = search(
        data,
        v,
        i,
        positions,
        normals,
        same_stream,
        taken,
        cfg,
        &mut own,
        &mut shared.read,
        true,
    )
    .unwrap_or_else(|o| o);
    shared.left -= granted - own.0;
    outcome
}

/// [`search_apart`] with its own budget; `Err` is an outcome reached before the end.
#[allow(clippy::too_many_arguments)]
fn search(
    data: &[u8],
    v: u32,
    i: u32,
    (pdecl, pmap): (&Declaration, &AttributeMap),
    (ndecl, nmap): (&Declaration, &AttributeMap),
    same_stream: bool,
    taken: &[Range<usize>],
    cfg: &GateConfig,
    budget: &mut Budget,
    read: &mut NormalRunCache,
    prefiltering: bool,
) -> Result<ApartOutcome, ApartOutcome> {
    let (vu, iu) = (v as usize, i as usize);
    let no = |detail: String| Err(ApartOutcome::Nothing(detail));
    if vu < 3 || iu < 3 || pdecl.stride == 0 || ndecl.stride == 0 || pmap.position.is_none() || nmap.normal.is_none() {
        return no("nothing to search by".into());
    }
    if vu > 1 << 16 || iu.saturating_mul(2) > data.len() {
        return no(format!(
            "{v} vertices / {i} indices do not fit u16 indices in this data section"
        ));
    }
    let windows = index_windows(data, v, iu, taken, budget)?;
    if windows.is_empty() {
        return no(format!("no window of {i} indices < {v} references all {v} vertices"));
    }
    let normals: Vec<usize> = candidate_starts(data, ndecl, nmap, vu, read)
        .into_iter()
        .filter(|&c| !overlaps_any(&(c..c + vu * ndecl.stride), taken))
        .collect();
    if normals.is_empty() {
        return no("no run of unit normals at the NORMAL stream's stride holds half its vertices".into());
    }
    let pe = pmap.position.expect("checked");
    // Every place for the positions, once (the same list for every window and normals).
    let position_places: Vec<usize> = if same_stream {
        Vec::new()
    } else {
        let all: Vec<usize> = position_starts(
            data,
            pdecl,
            pmap,
            vu,
            cfg.max_abs_coordinate,
            cfg.max_degenerate_fraction < 1.0,
            taken,
        )
        .take(MAX_POSITION_STARTS + 1)
        .collect();
        if all.len() > MAX_POSITION_STARTS {
            return Err(ApartOutcome::TooMany(format!(
                "more than {MAX_POSITION_STARTS} places for the positions"
            )));
        }
        all
    };
    let mut search = ApartSearch {
        data,
        v,
        i,
        positions: (pdecl, pmap, pe),
        normals: (ndecl, nmap),
        same_stream,
        cfg,
        budget,
        agreement: Agreement::new(cfg.min_winding_consistency),
        prefiltering,
        found: Vec::new(),
        passed: 0,
        tried: 0,
        failure: None,
        turned_away: None,
        faces: Vec::new(),
        dots: Vec::new(),
        states: Vec::new(),
        prefilter: Prefilter::default(),
        stamp: 0,
        normals_read: Vec::new(),
        normals_at: None,
    };
    for cl in clusters(data, &windows, iu) {
        search.at_cluster(&cl, &normals, &position_places)?;
    }
    let near = Near {
        normals: in_offset_order(data.len(), normals.iter().copied()),
        positions: in_offset_order(data.len(), position_places.iter().copied()),
        taken,
    };
    search.close(&near)?;
    Ok(search.best())
}

/// The candidate places [`ApartSearch::close`] reads the neighbours of a reading from:
/// every NORMAL place and position place the search had, in offset order, and the byte
/// ranges other units own.
struct Near<'a> {
    normals: Vec<usize>,
    positions: Vec<usize>,
    taken: &'a [Range<usize>],
}

impl Near<'_> {
    /// The places of `list` within `reach` bytes of `at`, `at` itself first.
    fn around(list: &[usize], at: usize, reach: usize) -> impl Iterator<Item = usize> + '_ {
        let from = list.partition_point(|&x| x + reach < at);
        std::iter::once(at).chain(
            list[from..]
                .iter()
                .copied()
                .take_while(move |&x| x <= at + reach)
                .filter(move |&x| x != at),
        )
    }
}

/// How much better aligned ([`alignment`]) than every other passing reading the reading
/// taken must be: more than one face adds to the sum (a cosine is at most 1), so readings
/// that differ by one face, or whose faces agree equally well, are "two readings fit".
const ALIGNMENT_MARGIN: f64 = 1.0;

/// How well a mesh's faces align with its normals: over every triangle of its index
/// buffer, the cosine between the face normal (right-hand rule) and the sum of its
/// vertices' normals (0 for a degenerate face or a zero sum), summed, in the mesh's
/// winding sense (the sum's magnitude). The true buffers' stored normals are the
/// surface's, so every face counts nearly 1; the same bytes read a vertex or a normal
/// apart rotate every face against its normals, and a window a triangle apart trades a
/// real face for padding or another list's indices, each lowering the sum whatever
/// faces the mesh has flipped or normals off (those count the same in every reading of
/// its bytes). The winding gate's sign test cannot tell such readings apart; this can.
fn alignment(mesh: &Mesh) -> f64 {
    let Some(normals) = &mesh.normals else { return 0.0 };
    let sum: f64 = mesh
        .indices
        .chunks_exact(3)
        .map(|t| {
            let f = face_normal([0, 1, 2].map(|j| mesh.positions[t[j] as usize]));
            let n = [0, 1, 2]
                .map(|j| normals[t[j] as usize])
                .into_iter()
                .fold([0.0f32; 3], |a, x| [a[0] + x[0], a[1] + x[1], a[2] + x[2]]);
            let (lf, ln) = (f64::from(dot3(f, f)).sqrt(), f64::from(dot3(n, n)).sqrt());
            if lf > 0.0 && ln > 0.0 && lf.is_finite() && ln.is_finite() {
                f64::from(dot3(f, n)) / (lf * ln)
            } else {
                0.0
            }
        })
        .sum();
    if sum.is_finite() {
        sum.abs()
    } else {
        0.0
    }
}

/// How many slots of its stream (either way) [`ApartSearch::around`] looks for the
/// positions and NORMALs of a reading's neighbours.
const NEAR_SLOTS: usize = 2;

/// How many times [`ApartSearch::close`] looks around the readings ranked first before it
/// gives up: each time the first place moved to a reading the sample had turned away.
const CLOSE_ROUNDS: usize = 8;

/// Index windows that share their triangles (the same offset modulo a triangle's 6
/// bytes, each overlapping the one before), with the sample triangles of them all.
struct Cluster {
    /// (rank in the search's list, offset), in offset order.
    windows: Vec<(usize, usize)>,
    /// The union of the windows' samples, in order.
    tris: Vec<[u32; 3]>,
    /// Per window, its sample ([`sample_triangles`] of its indices) as a range of `tris`.
    samples: Vec<Range<usize>>,
}

/// The index windows at `windows` (offsets of `iu` indices, in order) in clusters: a
/// window's sample is the first [`SAMPLE`] triangles of three distinct indices from its
/// start, so windows a whole number of triangles apart that overlap share them, and a
/// face or a dot computed for one serves all.
fn clusters(data: &[u8], windows: &[usize], iu: usize) -> Vec<Cluster> {
    let mut by_residue: [Vec<Vec<(usize, usize)>>; 3] = Default::default();
    for (wk, &w) in windows.iter().enumerate() {
        let r = &mut by_residue[w % 6 / 2];
        match r.last_mut() {
            Some(c) if c.last().is_some_and(|&(_, p)| w < p + 2 * iu) => c.push((wk, w)),
            _ => r.push(vec![(wk, w)]),
        }
    }
    let nt = iu / 3;
    by_residue
        .into_iter()
        .flatten()
        .map(|windows| {
            let b = windows[0].1;
            let tri = |k: usize| [0, 1, 2].map(|j| u16_at(data, b + 6 * k + 2 * j));
            // Every triangle of three distinct indices from the first window's start,
            // as far as the last window's sample reaches, with its index.
            let kl = (windows[windows.len() - 1].1 - b) / 6;
            let mut ks: Vec<usize> = Vec::new();
            let mut tris = Vec::new();
            let mut after_last = 0;
            let mut k = 0;
            while k < kl + nt && after_last < SAMPLE {
                let t = tri(k);
                if distinct(t) {
                    ks.push(k);
                    tris.push(t);
                    after_last += usize::from(k >= kl);
                }
                k += 1;
            }
            let samples: Vec<Range<usize>> = windows
                .iter()
                .map(|&(_, w)| {
                    let kj = (w - b) / 6;
                    let first = ks.partition_point(|&x| x < kj);
                    let end = ks.partition_point(|&x| x < kj + nt);
                    first..end.min(first + SAMPLE)
                })
                .collect();
            // Only the triangles some sample holds (not those between one window's
            // sample and the next window), each range renumbered.
            let mut used = vec![false; tris.len()];
            for r in &samples {
                used[r.clone()].iter_mut().for_each(|u| *u = true);
            }
            let mut at = Vec::with_capacity(tris.len() + 1);
            let mut n = 0;
            for &u in &used {
                at.push(n);
                n += usize::from(u);
            }
            at.push(n);
            let tris = tris
                .into_iter()
                .zip(&used)
                .filter(|(_, &u)| u)
                .map(|(t, _)| t)
                .collect();
            let samples = samples.into_iter().map(|r| at[r.start]..at[r.end]).collect();
            Cluster { windows, tris, samples }
        })
        .collect()
}

/// Where a combination stands in the order of the search's candidates: its index
/// window's, its NORMAL place's and its position place's ranks in their lists (what is
/// reported first when several pass or fail does not depend on the loops' nesting).
type Rank = (usize, usize, usize);

/// The state [`search_apart`] shares between its loops over index windows, NORMAL
/// places and position places: what it reads, its work budget, the combinations that
/// pass the gates and the first reason one did not.
struct ApartSearch<'a, 'b> {
    data: &'a [u8],
    v: u32,
    i: u32,
    /// The stream holding POSITION, and its POSITION element.
    positions: (&'a Declaration, &'a AttributeMap, Element),
    /// The stream holding NORMAL.
    normals: (&'a Declaration, &'a AttributeMap),
    same_stream: bool,
    cfg: &'a GateConfig,
    budget: &'b mut Budget,
    /// The sample test for the gates' share.
    agreement: Agreement,
    /// Whether [`Self::compare`] refutes pairs by their first faces first ([`Prefilter`];
    /// off only in the test that it changes no outcome).
    prefiltering: bool,
    /// The readings that pass and may still rank first ([`Self::admit`]).
    found: Vec<Passed>,
    /// How many readings passed the gates, kept or not.
    passed: usize,
    /// How many combinations were looked at ([`by_chance`]).
    tried: u64,
    failure: Option<(Rank, Reason)>,
    /// The first combination in the candidates' order the winding gate turned away
    /// before it was read whole, (index window, NORMAL place, position place): its
    /// reason is read only when it is wanted ([`Self::first_failure`]).
    turned_away: Option<(Rank, [usize; 3])>,
    /// Scratch of [`Self::compare`]: faces and dots, each with the stamp of the
    /// positions or the (positions, NORMAL place) it is for.
    faces: Vec<(u64, [f32; 3])>,
    dots: Vec<(u64, f32)>,
    states: Vec<WindowState>,
    /// Scratch of [`Self::compare`]'s prefilter.
    prefilter: Prefilter,
    stamp: u64,
    /// Scratch of [`Self::winding_can_pass`]: each vertex's NORMAL read once per NORMAL
    /// place, with the stamp of the place it was read at (`normals_at`: the place and
    /// its stamp).
    normals_read: Vec<(u64, [f32; 3])>,
    normals_at: Option<(usize, u64)>,
}

/// The NORMALs of the buffer at `at` for the winding gate, each vertex's read from the
/// bytes once and kept in `read` with `stamp` (the lookup inlined into the gate's loop).
struct ReadOnce<'r> {
    read: &'r mut [(u64, [f32; 3])],
    stamp: u64,
    data: &'r [u8],
    at: usize,
    stride: usize,
    element: Element,
}

impl gates::VertexNormals for ReadOnce<'_> {
    #[inline(always)]
    fn normal(&mut self, x: u32) -> [f32; 3] {
        match self.read.get_mut(x as usize) {
            Some(e) if e.0 == self.stamp => e.1,
            Some(e) => {
                *e = (self.stamp, element3(self.data, self.at, self.stride, &self.element, x));
                e.1
            }
            None => element3(self.data, self.at, self.stride, &self.element, x),
        }
    }
}

/// A reading that passed the gates, with what [`ApartSearch::admit`] ranks it by.
struct Passed {
    rank: Rank,
    apart: Apart,
    /// Degenerate triangles at its window's ends: closing, then opening.
    ends: (u32, u32),
    aligned: f64,
}

/// What [`ApartSearch::compare`] knows of a window on one place for the positions.
#[derive(Clone, Copy, Default)]
struct WindowState {
    /// It cannot agree there: the positions overlap it, or more of its sample faces are
    /// zero than a sample that agrees may have.
    dead: bool,
    /// Whether it is a suffix of a longer list there, once looked at.
    suffix: Option<bool>,
    /// The positions' zero faces found when its own were last counted.
    zeros_seen: usize,
}

/// One NORMAL place off an index window: its rank, its bytes, its sample sums, and its
/// slot in its chunk's [`SumsByFace`].
struct NormalPlace {
    rank: usize,
    at: usize,
    range: Range<usize>,
    sums: Vec<[f32; 3]>,
    slot: usize,
}

/// Most first non-zero faces of a window's sample [`ApartSearch::compare`] dots with
/// every NORMAL place of a chunk at once, before it runs the sample test on a pair; it
/// takes [`Agreement::unanimous`] of them when that is fewer (9 at the gate's 0.9): a
/// pair whose first faces hold both senses fails the test, and a pair of buffers that are
/// not one mesh's does so all but about 2 times in 2⁹ (under 1 % measured).
const PREFILTER_FACES: usize = 16;

/// What the prefilter's dots cost in the search's budget: this many for one sample face
/// of the scalar test (each is one lane of a pass over contiguous floats).
const PREFILTER_LANES: usize = 8;

/// The sample sums of one chunk of NORMAL places, by face: the `k`-th place's sum for
/// face `u` at `u * places + k` of each component's row, so the prefilter dots one face
/// with every place in one pass over contiguous floats.
#[derive(Default)]
struct SumsByFace {
    places: usize,
    x: Vec<f32>,
    y: Vec<f32>,
    z: Vec<f32>,
}

/// What [`ApartSearch::compare`]'s prefilter found on one place for the positions: per
/// sample face, the places of the chunk it agrees with and those it is against (bit
/// sets), and per place the windows whose first faces do not hold both senses.
#[derive(Default)]
struct Prefilter {
    /// Words of a bit set over the chunk's places.
    words: usize,
    /// Per sample face of the cluster, its row in `rows` (`u32::MAX`: none yet).
    row_of: Vec<u32>,
    /// Per row, `words` words of the places the face agrees with, then `words` of those
    /// it is against.
    rows: Vec<u64>,
    /// The pairs not refuted as (place, window), in window order.
    pairs: Vec<(u16, u16)>,
    /// Place `k`'s windows are `windows[starts[k]..starts[k + 1]]`, in order.
    starts: Vec<u32>,
    windows: Vec<u32>,
}

impl Prefilter {
    /// Start over on a cluster of `nt` sample faces and a chunk of `slots` places.
    fn clear(&mut self, nt: usize, slots: usize) {
        debug_assert!(slots > 0, "a chunk holds a place");
        self.words = slots.div_ceil(64);
        self.row_of.clear();
        self.row_of.resize(nt, u32::MAX);
        self.rows.clear();
        self.pairs.clear();
    }

    /// The row of sample face `u` (its face `f`), its senses against every place of
    /// `by_face` computed the first time; and whether they were.
    fn row(&mut self, by_face: &SumsByFace, u: usize, f: [f32; 3]) -> (usize, bool) {
        if self.row_of[u] != u32::MAX {
            return (self.row_of[u] as usize, false);
        }
        let wn = self.words;
        let r = self.rows.len() / (2 * wn);
        self.row_of[u] = r as u32;
        let at = self.rows.len();
        self.rows.resize(at + 2 * wn, 0);
        let (agree, against) = self.rows[at..].split_at_mut(wn);
        by_face.mark(u, f, agree, against);
        (r, true)
    }

    /// Add the pairs of window `j` with each of `slots` places on which its faces `rows`
    /// hold one sense at most.
    fn window(&mut self, j: usize, rows: &[usize], slots: usize) {
        let wn = self.words;
        for w in 0..wn {
            let (mut agree, mut against) = (0u64, 0u64);
            for &r in rows {
                agree |= self.rows[2 * wn * r + w];
                against |= self.rows[2 * wn * r + wn + w];
            }
            let valid = if 64 * (w + 1) <= slots {
                u64::MAX
            } else {
                (1u64 << (slots - 64 * w)) - 1
            };
            let mut left = !(agree & against) & valid;
            while left != 0 {
                self.pairs
                    .push(((64 * w) as u16 + left.trailing_zeros() as u16, j as u16));
                left &= left - 1;
            }
        }
    }

    /// The pairs by place, each place's windows in order (a counting sort).
    fn sort(&mut self, slots: usize) {
        self.starts.clear();
        self.starts.resize(slots + 2, 0);
        for &(k, _) in &self.pairs {
            self.starts[k as usize + 2] += 1;
        }
        for k in 2..slots + 2 {
            self.starts[k] += self.starts[k - 1];
        }
        self.windows.clear();
        self.windows.resize(self.pairs.len(), 0);
        for &(k, j) in &self.pairs {
            let at = &mut self.starts[k as usize + 1];
            self.windows[*at as usize] = u32::from(j);
            *at += 1;
        }
    }

    /// The windows not refuted on place `slot`, after [`Self::sort`].
    fn of(&self, slot: usize) -> &[u32] {
        &self.windows[self.starts[slot] as usize..self.starts[slot + 1] as usize]
    }
}

impl SumsByFace {
    /// The sums of `places` (each over the same `faces` sample triangles).
    fn fill(&mut self, places: &[NormalPlace], faces: usize) {
        self.places = places.len();
        for row in [&mut self.x, &mut self.y, &mut self.z] {
            row.clear();
            row.resize(faces * places.len(), 0.0);
        }
        for (k, n) in places.iter().enumerate() {
            for (u, s) in n.sums.iter().enumerate() {
                let at = u * places.len() + k;
                (self.x[at], self.y[at], self.z[at]) = (s[0], s[1], s[2]);
            }
        }
    }

    /// The senses of face `f` (of sample triangle `u`) against every place's sum, as bit
    /// sets (bit `k` of word `k / 64`): `agree` where the dot ([`dot3`]'s sum, in its
    /// order, so each sign is the sample test's) is positive, `against` where it is
    /// negative. Eight places at a time where the CPU has AVX, four otherwise on x86-64
    /// (the same products and sums per lane), a word's 64 at once.
    fn mark(&self, u: usize, f: [f32; 3], agree: &mut [u64], against: &mut [u64]) {
        let row = u * self.places..(u + 1) * self.places;
        let (x, y, z) = (&self.x[row.clone()], &self.y[row.clone()], &self.z[row]);
        #[cfg(target_arch = "x86_64")]
        let done = if std::is_x86_feature_detected!("avx") {
            // SAFETY: the CPU has AVX (checked just above).
            unsafe { mark_avx(x, y, z, f, agree, against) }
        } else {
            // SAFETY: every x86-64 CPU has SSE2.
            unsafe { mark_sse2(x, y, z, f, agree, against) }
        };
        #[cfg(not(target_arch = "x86_64"))]
        let done = 0;
        mark_plain(x, y, z, f, agree, against, done);
    }
}

/// [`SumsByFace::mark`] from place `from` on, one place at a time.
fn mark_plain(x: &[f32], y: &[f32], z: &[f32], f: [f32; 3], agree: &mut [u64], against: &mut [u64], from: usize) {
    for k in from..x.len() {
        let d = f[0] * x[k] + f[1] * y[k] + f[2] * z[k];
        agree[k / 64] |= u64::from(d > 0.0) << (k % 64);
        against[k / 64] |= u64::from(d < 0.0) << (k % 64);
    }
}

/// The loops of [`mark_avx`] and [`mark_sse2`] over `n` places: `lanes(k)` gives the
/// senses of places `k..k + L` (agree, against) as `L` bits each; a word of 64 is built
/// in a register, then the whole groups after the last whole word. Returns how many
/// places were marked.
#[inline(always)]
fn mark_by_lanes<const L: usize>(
    n: usize,
    agree: &mut [u64],
    against: &mut [u64],
    lanes: impl Fn(usize) -> (u64, u64),
) -> usize {
    let words = n / 64;
    for w in 0..words {
        let (mut plus, mut minus) = (0u64, 0u64);
        for g in 0..64 / L {
            let (p, m) = lanes(64 * w + L * g);
            plus |= p << (L * g);
            minus |= m << (L * g);
        }
        agree[w] |= plus;
        against[w] |= minus;
    }
    let groups = n / L;
    for g in 64 / L * words..groups {
        let k = L * g;
        let (p, m) = lanes(k);
        agree[k / 64] |= p << (k % 64);
        against[k / 64] |= m << (k % 64);
    }
    L * groups
}

/// [`SumsByFace::mark`] for the whole groups of eight places (AVX lanes: a multiply per
/// component, two adds in [`dot3`]'s order, a compare per sense and its sign bits);
/// returns how many places it marked.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn mark_avx(x: &[f32], y: &[f32], z: &[f32], f: [f32; 3], agree: &mut [u64], against: &mut [u64]) -> usize {
    use std::arch::x86_64::*;
    let (fx, fy, fz) = (_mm256_set1_ps(f[0]), _mm256_set1_ps(f[1]), _mm256_set1_ps(f[2]));
    let zero = _mm256_setzero_ps();
    mark_by_lanes::<8>(x.len(), agree, against, |k| {
        let at = |v: &[f32]| -> __m256 {
            let c: &[f32; 8] = v[k..k + 8].try_into().expect("eight lanes");
            // SAFETY: `c` is eight readable floats; the load is unaligned.
            unsafe { _mm256_loadu_ps(c.as_ptr()) }
        };
        let d = _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(fx, at(x)), _mm256_mul_ps(fy, at(y))),
            _mm256_mul_ps(fz, at(z)),
        );
        (
            _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(d, zero)) as u64,
            _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(d, zero)) as u64,
        )
    })
}

/// [`mark_avx`] with four SSE2 lanes (x86-64's baseline).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn mark_sse2(x: &[f32], y: &[f32], z: &[f32], f: [f32; 3], agree: &mut [u64], against: &mut [u64]) -> usize {
    use std::arch::x86_64::*;
    let (fx, fy, fz) = (_mm_set1_ps(f[0]), _mm_set1_ps(f[1]), _mm_set1_ps(f[2]));
    let zero = _mm_setzero_ps();
    mark_by_lanes::<4>(x.len(), agree, against, |k| {
        let at = |v: &[f32]| -> __m128 {
            let c: &[f32; 4] = v[k..k + 4].try_into().expect("four lanes");
            // SAFETY: `c` is four readable floats; the load is unaligned.
            unsafe { _mm_loadu_ps(c.as_ptr()) }
        };
        let d = _mm_add_ps(
            _mm_add_ps(_mm_mul_ps(fx, at(x)), _mm_mul_ps(fy, at(y))),
            _mm_mul_ps(fz, at(z)),
        );
        (
            _mm_movemask_ps(_mm_cmpgt_ps(d, zero)) as u64,
            _mm_movemask_ps(_mm_cmplt_ps(d, zero)) as u64,
        )
    })
}

impl ApartSearch<'_, '_> {
    /// Every NORMAL place (`normals`) off some index window of the cluster `cl`, with
    /// every position place (`position_places`, or the NORMAL place itself when one
    /// stream holds both) off it: each NORMAL place pays its sums over the cluster's
    /// sample triangles once, each pair the faces it compares (each face is read from the
    /// positions once, each dot computed once for all the cluster's windows).
    fn at_cluster(&mut self, cl: &Cluster, normals: &[usize], position_places: &[usize]) -> Result<(), ApartOutcome> {
        let (data, vu, iu) = (self.data, self.v as usize, self.i as usize);
        let (pdecl, _, _) = self.positions;
        let (ndecl, nmap) = self.normals;
        let wrs: Vec<Range<usize>> = cl.windows.iter().map(|&(_, w)| w..w + 2 * iu).collect();
        let off_all = |r: &Range<usize>| wrs.iter().all(|wr| overlaps(r, wr));
        let per_chunk = chunk_places(cl.tris.len());
        let mut places = Vec::with_capacity(per_chunk.min(normals.len()));
        let mut by_face = SumsByFace::default();
        for (chunk, cs) in normals.chunks(per_chunk).enumerate() {
            places.clear();
            for (k, &c) in cs.iter().enumerate() {
                let range = c..c + vu * ndecl.stride;
                if off_all(&range) {
                    continue;
                }
                self.budget.pay(cl.tris.len().max(1))?;
                let sums = normal_sums(data, c, ndecl, nmap, &cl.tris);
                places.push(NormalPlace {
                    rank: chunk * per_chunk + k,
                    at: c,
                    range,
                    sums,
                    slot: places.len(),
                });
            }
            if places.is_empty() {
                continue;
            }
            // Every combination looked at, whether or not its sample is read.
            let per_place = (cl.windows.len() * places.len()) as u64;
            self.tried = self.tried.saturating_add(if self.same_stream {
                per_place
            } else {
                per_place.saturating_mul(position_places.len() as u64)
            });
            if self.same_stream {
                for n in &places {
                    self.compare(cl, &wrs, (n.rank, n.at), n.range.clone(), std::iter::once(n), None)?;
                }
                continue;
            }
            by_face.fill(&places, cl.tris.len());
            for (qk, &q) in position_places.iter().enumerate() {
                let pr = q..q + vu * pdecl.stride;
                if off_all(&pr) {
                    continue;
                }
                let with = places.iter().filter(|n| !overlaps(&pr, &n.range));
                self.compare(cl, &wrs, (qk, q), pr.clone(), with, Some(&by_face))?;
            }
        }
        Ok(())
    }

    /// The faces of the cluster's sample triangles on the positions at `q` (rank,
    /// offset; `pr` their bytes), read as far as some window's sample needs them and
    /// once, each dotted with a NORMAL place's sums once; each window off `pr` and the
    /// place compared ([`Agreement::agrees`] on its own sample), a sample that agrees then
    /// the whole mesh ([`Self::try_combination`]).
    fn compare<'p>(
        &mut self,
        cl: &Cluster,
        wrs: &[Range<usize>],
        (qk, q): (usize, usize),
        pr: Range<usize>,
        places: impl Iterator<Item = &'p NormalPlace>,
        by_face: Option<&SumsByFace>,
    ) -> Result<(), ApartOutcome> {
        let (data, iu) = (self.data, self.i as usize);
        let (pdecl, _, pe) = self.positions;
        let agreement = self.agreement;
        let nt = cl.tris.len();
        // The faces and dots computed, each marked with the (positions, NORMAL place) it
        // was computed for, so no buffer is cleared or allocated per place.
        let (mut faces, mut dots) = (std::mem::take(&mut self.faces), std::mem::take(&mut self.dots));
        let mut states = std::mem::take(&mut self.states);
        faces.resize(nt.max(faces.len()), (0, [0.0; 3]));
        dots.resize(nt.max(dots.len()), (0, 0.0));
        self.stamp += 1;
        let fstamp = self.stamp;
        let mut zeros = 0usize;
        let nw = cl.windows.len();
        // Per window, what is known of it on these positions ([`WindowState`]: those the
        // positions overlap cannot agree; once none can, no NORMAL place is left to try),
        // and its whole faces (for the winding test of a combination), made when needed.
        states.clear();
        states.extend(wrs.iter().map(|wr| WindowState {
            dead: overlaps(&pr, wr),
            suffix: None,
            zeros_seen: 0,
        }));
        let mut live = states.iter().filter(|s| !s.dead).count();
        let whole = |w: usize| {
            let tri = move |k: usize| [0, 1, 2].map(|j| u16_at(data, w + 2 * (3 * k + j)));
            gates::Faces::new(iu / 3, tri, move |x: u32| element3(data, q, pdecl.stride, &pe, x))
        };
        let mut wholes: Option<Vec<Option<_>>> = None;
        let face = |u: usize, faces: &mut [(u64, [f32; 3])], zeros: &mut usize| {
            if faces[u].0 != fstamp {
                let f = face_normal(cl.tris[u].map(|k| element3(data, q, pdecl.stride, &pe, k)));
                *zeros += usize::from(f == [0.0; 3]);
                faces[u] = (fstamp, f);
            }
            faces[u].1
        };
        let mut pre = std::mem::take(&mut self.prefilter);
        let first = match by_face {
            Some(_) if self.prefiltering => PREFILTER_FACES.min(agreement.unanimous),
            _ => 0,
        };
        let slots = by_face.map_or(0, |b| b.places);
        // Without the prefilter, every window for every place.
        let all: Vec<u32> = if first == 0 {
            (0..nw as u32).collect()
        } else {
            Vec::new()
        };
        // The scratch buffers go back to `self` however the loop ends.
        let run = || -> Result<(), ApartOutcome> {
            // Per live window and place of the chunk, the senses of its first faces
            // ([`PREFILTER_FACES`]): a pair with both is refuted before its test.
            if first > 0 {
                let by_face = by_face.expect("first > 0");
                // Each sample face's senses once, for every window whose first faces hold it.
                pre.clear(nt, slots);
                // What it costs: one for each face a window reads (cached or not: the
                // work grows with the windows), one for [`PREFILTER_LANES`] dots.
                let (mut dotted, mut work) = (0usize, 0usize);
                let mut rows = Vec::with_capacity(first);
                for (j, state) in states.iter_mut().enumerate() {
                    if state.dead {
                        continue;
                    }
                    // Its first `first` faces that are not zero (a zero face is against no
                    // normal, so it counts for no place: the test's oriented faces are
                    // among the others), read as far as the sample goes.
                    let sample = cl.samples[j].clone();
                    let mut zero = 0;
                    rows.clear();
                    for u in sample.clone() {
                        if rows.len() == first {
                            break;
                        }
                        work += 1;
                        let f = face(u, &mut faces, &mut zeros);
                        if f == [0.0; 3] {
                            zero += 1;
                            continue;
                        }
                        let (r, new) = pre.row(by_face, u, f);
                        dotted += if new { slots } else { 0 };
                        rows.push(r);
                    }
                    // More zero faces than a sample that agrees may have: no place agrees.
                    if Agreement::too_many_unoriented(zero, sample.len()) {
                        state.dead = true;
                        live -= 1;
                        continue;
                    }
                    pre.window(j, &rows, slots);
                }
                self.budget.pay(work + dotted.div_ceil(PREFILTER_LANES))?;
                // No pair left (most places for the positions): nothing to test.
                if pre.pairs.is_empty() {
                    return Ok(());
                }
                pre.sort(slots);
            }
            for n in places {
                if live == 0 {
                    break;
                }
                if first > 0 && pre.of(n.slot).is_empty() {
                    continue;
                }
                self.stamp += 1;
                let dstamp = self.stamp;
                for &j in if first > 0 { pre.of(n.slot) } else { &all } {
                    let j = j as usize;
                    let (wk, w) = cl.windows[j];
                    if states[j].dead || overlaps(&n.range, &wrs[j]) {
                        continue;
                    }
                    let sample = cl.samples[j].clone();
                    let mut fresh = 0usize;
                    let (agrees, _) = {
                        let (faces, dots, zeros, fresh) = (&mut faces, &mut dots, &mut zeros, &mut fresh);
                        let it = sample.clone().map(|u| {
                            if dots[u].0 != dstamp {
                                *fresh += 1;
                                dots[u] = (dstamp, dot3(face(u, faces, zeros), n.sums[u]));
                            }
                            dots[u].1
                        });
                        agreement.agrees(it, sample.len())
                    };
                    self.budget.pay(fresh.max(1))?;
                    if !agrees {
                        // Zero faces of this window's sample: more than a sample that
                        // agrees may have ([`Agreement::agrees`] wants at least half of them
                        // oriented) and no NORMAL place agrees with it on these positions.
                        // (Counted again only when a zero face was found since.)
                        let n = sample.len();
                        if Agreement::too_many_unoriented(zeros, n) && zeros != states[j].zeros_seen {
                            states[j].zeros_seen = zeros;
                            let z = sample.clone().filter(|&u| faces[u] == (fstamp, [0.0; 3])).count();
                            if Agreement::too_many_unoriented(z, n) {
                                states[j].dead = true;
                                live -= 1;
                            }
                        }
                        continue;
                    }
                    // A window inside a longer list (more real triangles before it than a
                    // block header can fake) is a suffix, not an index buffer (FORMAT.md §6).
                    if *states[j].suffix.get_or_insert_with(|| self.is_suffix(w, q)) {
                        continue;
                    }
                    let wholes = wholes.get_or_insert_with(|| (0..nw).map(|_| None).collect());
                    let window = wholes[j].get_or_insert_with(|| whole(w));
                    self.try_combination((wk, n.rank, qk), w, n.at, q, window)?;
                }
            }
            Ok(())
        };
        let result = run();
        (self.faces, self.dots, self.states, self.prefilter) = (faces, dots, states, pre);
        result
    }

    /// Close the sample's blind spot around the readings ranked first: every reading a
    /// triangle (the index window), a position or a NORMAL (their places) or less apart
    /// from one of them, read whole and gated without the sample test, joins the ranked
    /// readings when it passes; again around the new first ones, until they are all
    /// looked around ([`CLOSE_ROUNDS`] at most, then "gave up"). The sample test (a prefix
    /// of the faces unanimous) is no condition of the gates: a true reading with a flipped
    /// face or a reversed normal among its first faces fails it, and the same bytes read
    /// a vertex apart may pass it; such a pair is now ranked as any two readings that
    /// pass, never one taken for lack of the other.
    fn close(&mut self, near: &Near<'_>) -> Result<(), ApartOutcome> {
        let mut looked: std::collections::BTreeSet<[usize; 3]> = std::collections::BTreeSet::new();
        let mut tried: std::collections::BTreeSet<[usize; 3]> = self
            .found
            .iter()
            .map(|f| [f.apart.index_offset, f.apart.position_offset, f.apart.normal_offset])
            .collect();
        for _ in 0..CLOSE_ROUNDS {
            let first: Vec<[usize; 3]> = self
                .first()
                .into_iter()
                .map(|a| [a.index_offset, a.position_offset, a.normal_offset])
                .filter(|k| !looked.contains(k))
                .collect();
            if first.is_empty() {
                return Ok(());
            }
            for k in first {
                looked.insert(k);
                self.around(k, near, &mut tried)?;
            }
        }
        Err(ApartOutcome::TooMany(format!(
            "readings that pass next to the first one after {CLOSE_ROUNDS} looks around it"
        )))
    }

    /// The readings a triangle, a position or a NORMAL or less apart from `[w, q, c]`
    /// (window, positions, normals) not `tried` yet: each read whole and gated; those that
    /// pass join the ranked readings.
    fn around(
        &mut self,
        [w, q, c]: [usize; 3],
        near: &Near<'_>,
        tried: &mut std::collections::BTreeSet<[usize; 3]>,
    ) -> Result<(), ApartOutcome> {
        let (data, vu, iu) = (self.data, self.v as usize, self.i as usize);
        let (pdecl, _, _) = self.positions;
        let (ndecl, _) = self.normals;
        let windows: Vec<usize> = (w.saturating_sub(6)..=w + 6)
            .step_by(2)
            .filter(|&x| x + 2 * iu <= data.len() && !overlaps_any(&(x..x + 2 * iu), near.taken))
            .filter(|&x| (0..iu).all(|k| u16_at(data, x + 2 * k) < self.v))
            .collect();
        let normals: Vec<usize> = Near::around(&near.normals, c, NEAR_SLOTS * ndecl.stride).collect();
        let positions: Vec<usize> = Near::around(&near.positions, q, NEAR_SLOTS * pdecl.stride).collect();
        for x in windows {
            let xr = x..x + 2 * iu;
            if x != w {
                self.budget.pay(iu)?;
                if referenced(data, x, iu, vu, &mut Seen::default()) != vu {
                    continue;
                }
            }
            for &n in &normals {
                let nr = n..n + vu * ndecl.stride;
                if overlaps(&nr, &xr) {
                    continue;
                }
                let own = [n];
                for &p in if self.same_stream { &own[..] } else { &positions[..] } {
                    let pr = p..p + vu * pdecl.stride;
                    if !tried.insert([x, p, n]) || overlaps(&pr, &xr) || (!self.same_stream && overlaps(&pr, &nr)) {
                        continue;
                    }
                    if x != w && self.is_suffix(x, p) {
                        continue;
                    }
                    // The winding gate's test on the faces as far as it needs them first
                    // (most neighbours fail it within a few faces).
                    self.budget.pay(SAMPLE)?;
                    self.tried = self.tried.saturating_add(1);
                    let (pdecl, _, pe) = self.positions;
                    let tri = move |k: usize| [0, 1, 2].map(|j| u16_at(data, x + 2 * (3 * k + j)));
                    let mut faces =
                        gates::Faces::new(iu / 3, tri, move |k: u32| element3(data, p, pdecl.stride, &pe, k));
                    if !self.winding_can_pass(n, p, &mut faces) {
                        continue;
                    }
                    self.budget.pay(iu / 3 + vu)?;
                    if let Some((mesh, measures)) = self.read_whole(x, p, n) {
                        let rank = (usize::MAX, self.passed, 0);
                        self.admit(
                            rank,
                            Apart {
                                index_offset: x,
                                position_offset: p,
                                normal_offset: n,
                                mesh,
                                measures,
                                sole: false,
                            },
                        )?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The mesh of the index window at `w`, the positions at `q` and the NORMALs at `c`,
    /// and its measures, if it passes every hard gate.
    fn read_whole(&self, w: usize, q: usize, c: usize) -> Option<(Mesh, Measures)> {
        self.gated(w, q, c).ok().flatten()
    }

    /// The mesh at (`w`, `q`, `c`) ([`Self::read_mesh`]) and its measures when it passes
    /// every hard gate; why not where it cannot be read or fails one, `None` where the
    /// NORMALs cannot be read.
    fn gated(&self, w: usize, q: usize, c: usize) -> Result<Option<(Mesh, Measures)>, Reason> {
        let Some(mesh) = self.read_mesh(w, q, c)? else {
            return Ok(None);
        };
        let measures = gates::measure(&mesh);
        gates::verdict(&measures, self.cfg)?;
        Ok(Some((mesh, measures)))
    }

    /// The mesh of the index window at `w`, the positions at `q` and the NORMALs at `c`:
    /// why not where the block cannot be read, `None` where the NORMALs cannot.
    fn read_mesh(&self, w: usize, q: usize, c: usize) -> Result<Option<Mesh>, Reason> {
        let (data, v) = (self.data, self.v);
        let (pdecl, pmap, _) = self.positions;
        let (ndecl, nmap) = self.normals;
        let p = super::Placement {
            index_offset: w,
            index_count: self.i,
            vertex_offset: q,
            vertex_count: v,
        };
        let mesh = super::read_block(data, p, pdecl, pmap)?;
        if self.same_stream {
            return Ok(Some(mesh));
        }
        Ok(read_attributes(data, c, v as usize, ndecl, nmap).map(|attrs| merge(mesh, attrs, pmap, nmap)))
    }

    /// Whether the index window at `w`, on the positions at `q`, has more real
    /// triangles before it than a block header can fake.
    fn is_suffix(&self, w: usize, q: usize) -> bool {
        let (pdecl, _, pe) = self.positions;
        let data = self.data;
        let real = |t: [u32; 3]| {
            if has_area(t.map(|k| element3(data, q, pdecl.stride, &pe, k))) {
                Edge::Real
            } else {
                Edge::Skip
            }
        };
        preceding_triangles(data, w, self.v, real) > HEADER_TRIANGLES
    }

    /// The index window at `w` with the NORMALs at `c` and the positions at `q`, whose
    /// sample of faces agrees with the normals: the whole mesh read and gated; a passing
    /// one is kept, more than [`MAX_PASSING`] is [`ApartOutcome::Rivals`].
    fn try_combination<T: Fn(usize) -> [u32; 3], P: Fn(u32) -> [f32; 3]>(
        &mut self,
        rank: Rank,
        w: usize,
        c: usize,
        q: usize,
        window: &mut gates::Faces<T, P>,
    ) -> Result<(), ApartOutcome> {
        // A combination the winding gate turns away is not read whole. If its reason may
        // be the first failure (the one reported when nothing passes), the combination is
        // kept, and read whole only if that reason is wanted.
        let before = window.compared;
        let can = self.winding_can_pass(c, q, window);
        self.budget.pay((window.compared - before).max(1))?;
        if !can {
            let first = |r: Option<&Rank>| r.is_none_or(|r| rank < *r);
            if first(self.failure.as_ref().map(|f| &f.0)) && first(self.turned_away.as_ref().map(|t| &t.0)) {
                self.turned_away = Some((rank, [w, c, q]));
            }
            return Ok(());
        }
        // Read whole: its faces and its vertices.
        self.budget.pay(self.i as usize / 3 + self.v as usize)?;
        match self.gated(w, q, c) {
            Ok(Some((mesh, measures))) => self.admit(
                rank,
                Apart {
                    index_offset: w,
                    position_offset: q,
                    normal_offset: c,
                    mesh,
                    measures,
                    sole: false,
                },
            )?,
            Ok(None) => {}
            Err(why) => self.failed(rank, why),
        }
        Ok(())
    }

    /// Can the window whose faces on the positions at `q` are `window`, with the NORMALs
    /// at `c`, pass the winding gate ([`gates::Faces::winding_can_pass`], the normals
    /// read from the bytes)? Most combinations whose sample agrees do not.
    fn winding_can_pass<T: Fn(usize) -> [u32; 3], P: Fn(u32) -> [f32; 3]>(
        &mut self,
        c: usize,
        q: usize,
        window: &mut gates::Faces<T, P>,
    ) -> bool {
        let (data, vu, cfg) = (self.data, self.v as usize, self.cfg);
        let (pdecl, pmap, _) = self.positions;
        let (ndecl, nmap) = self.normals;
        let Some(ne) = nmap.normal else { return true };
        // Only where the mesh's normals are the ones at `c` (a located stream with its own
        // NORMAL keeps them in [`merge`]), and both buffers lie in the data.
        let normals_at_c = self.same_stream || pmap.normal.is_none();
        let inside = q + vu * pdecl.stride <= data.len() && c + vu * ndecl.stride <= data.len();
        if !normals_at_c || !inside {
            return true;
        }
        // Each vertex's NORMAL is read once for the place (a vertex is in about six
        // faces), however many windows and positions meet it.
        // (A stamp never wraps, like the other scratch's: entries start at 0, places at 1.)
        let stamp = match self.normals_at {
            Some((at, stamp)) if at == c => stamp,
            Some((_, stamp)) => stamp + 1,
            None => 1,
        };
        if self.normals_read.len() < vu {
            self.normals_read.resize(vu, (0, [0.0; 3]));
        }
        self.normals_at = Some((c, stamp));
        let read = ReadOnce {
            read: &mut self.normals_read,
            stamp,
            data,
            at: c,
            stride: ndecl.stride,
            element: ne,
        };
        window.winding_can_pass(read, cfg)
    }

    /// The reason of the first combination in the candidates' order that failed: read
    /// whole and gated where it is the one the winding gate turned away unread.
    fn first_failure(&mut self) -> Option<(Rank, Reason)> {
        if let Some((rank, [w, c, q])) = self.turned_away.take() {
            if self.failure.as_ref().is_none_or(|(r, _)| rank < *r) {
                if let Err(why) = self.gated(w, q, c) {
                    return Some((rank, why));
                }
            }
        }
        self.failure.take()
    }

    /// Keep `why` if it is the first failure in the candidates' order.
    fn failed(&mut self, rank: Rank, why: Reason) {
        if self.failure.as_ref().is_none_or(|(r, _)| rank < *r) {
            self.failure = Some((rank, why));
        }
    }

    /// Keep a reading that passes the gates unless it ranks below the first ones: its
    /// window's ends hold more degenerate triangles ([`trailing_degenerate`], then
    /// [`leading_points`]: padding read as indices), or its [`alignment`] is more than
    /// [`ALIGNMENT_MARGIN`] below the best of those with the fewest; those it ranks above
    /// go. What is dropped decides nothing (the bar only rises), so a run of padding
    /// windows before a list, each passing, costs no more than one. More than
    /// [`MAX_PASSING`] kept at once is [`ApartOutcome::Rivals`].
    fn admit(&mut self, rank: Rank, apart: Apart) -> Result<(), ApartOutcome> {
        self.passed += 1;
        let (data, iu) = (self.data, self.i as usize);
        let ends = (
            trailing_degenerate(data, apart.index_offset, iu),
            leading_points(data, apart.index_offset, iu),
        );
        let aligned = alignment(&apart.mesh);
        if let Some((best, most)) = self.bar() {
            if ends > best || (ends == best && aligned < most - ALIGNMENT_MARGIN) {
                return Ok(());
            }
        }
        self.found.push(Passed {
            rank,
            apart,
            ends,
            aligned,
        });
        if let Some((best, most)) = self.bar() {
            self.found
                .retain(|f| f.ends == best && f.aligned >= most - ALIGNMENT_MARGIN);
        }
        if self.found.len() > MAX_PASSING {
            return Err(ApartOutcome::Rivals(format!(
                "more than {MAX_PASSING} index, position and NORMAL buffers pass the gates together"
            )));
        }
        Ok(())
    }

    /// The fewest degenerate triangles at the ends of the readings kept, and the best
    /// alignment of those with them.
    fn bar(&self) -> Option<((u32, u32), f64)> {
        let best = self.found.iter().map(|f| f.ends).min()?;
        let most = self
            .found
            .iter()
            .filter(|f| f.ends == best)
            .map(|f| f.aligned)
            .fold(f64::NEG_INFINITY, f64::max);
        Some((best, most))
    }

    /// The readings kept that rank first, as indices of `found`: `near`, those whose
    /// window's ends hold the fewest degenerate triangles and whose [`alignment`] is
    /// within [`ALIGNMENT_MARGIN`] of the best of them ([`Self::admit`] keeps no other);
    /// `top`, those of `near` with the most unit normals.
    fn ranked(&self) -> (Vec<usize>, Vec<usize>) {
        let (data, vu) = (self.data, self.v as usize);
        let (ndecl, nmap) = self.normals;
        let Some((best, most)) = self.bar() else {
            return (Vec::new(), Vec::new());
        };
        let near: Vec<usize> = (0..self.found.len())
            .filter(|&k| self.found[k].ends == best && self.found[k].aligned >= most - ALIGNMENT_MARGIN)
            .collect();
        let units: Vec<usize> = near
            .iter()
            .map(|&k| unit_normal_count(data, self.found[k].apart.normal_offset, ndecl, nmap, vu))
            .collect();
        let max_units = units.iter().copied().max().unwrap_or(0);
        let top = near
            .iter()
            .zip(&units)
            .filter(|(_, &u)| u == max_units)
            .map(|(&k, _)| k)
            .collect();
        (near, top)
    }

    /// The readings that pass and rank first ([`Self::ranked`]'s `near`).
    fn first(&self) -> Vec<&Apart> {
        self.ranked().0.into_iter().map(|k| &self.found[k].apart).collect()
    }

    /// Of the combinations that pass, the one whose window's ends hold the fewest
    /// degenerate triangles (padding read as indices: closing, then opening), then whose
    /// faces agree best with its normals ([`alignment`]) by more than one face can add
    /// ([`ALIGNMENT_MARGIN`]), else of those the one with the most unit normals, if no
    /// other has as many.
    fn best(mut self) -> ApartOutcome {
        self.found.sort_by_key(|f| f.rank);
        let sole = self.passed == 1;
        let (_, top) = self.ranked();
        let mut found: Vec<Option<Apart>> = std::mem::take(&mut self.found)
            .into_iter()
            .map(|f| Some(f.apart))
            .collect();
        let mut top: Vec<Apart> = top.into_iter().map(|k| found[k].take().expect("each once")).collect();
        match top.len() {
            1 => {
                let a = top.pop().expect("one");
                let (agree, against) = (a.measures.winding_agree, a.measures.winding_disagree);
                let expected = by_chance(self.tried, agree, against);
                if self.cfg.winding && expected > MAX_BY_CHANCE {
                    return ApartOutcome::Rivals(format!(
                        "two readings fit: {} combinations of its buffers were looked at for a mesh of {} oriented \
                         faces, and {expected:.2} of them would agree with their normals as well as its best ({agree} \
                         to {against}) by chance",
                        self.tried,
                        agree + against
                    ));
                }
                ApartOutcome::Found(Box::new(Apart { sole, ..a }))
            }
            0 => ApartOutcome::Nothing(match self.first_failure() {
                Some((_, why)) => format!(
                    "no index window, position and NORMAL buffers pass the gates together ({}: {})",
                    why.code, why.detail
                ),
                None => "no index window, position and NORMAL buffers agree (faces against normals)".to_string(),
            }),
            n => ApartOutcome::Rivals(format!(
                "{n} index, position and NORMAL buffers pass the gates equally (indices at {:#x} and {:#x}, \
                 positions at {:#x} and {:#x}, normals at {:#x} and {:#x})",
                top[0].index_offset,
                top[1].index_offset,
                top[0].position_offset,
                top[1].position_offset,
                top[0].normal_offset,
                top[1].normal_offset
            )),
        }
    }
}

/// How many degenerate triangles (two indices or more equal) the window of `i` indices
/// at `w` opens with.
fn leading_degenerate(data: &[u8], w: usize, i: usize) -> u32 {
    leading(data, w, i, |t| !distinct(t))
}

/// How many triangles the window of `i` indices at `w` opens with whose three indices
/// are one vertex: what constant bytes (zero padding, FORMAT.md §6) read as. A triangle
/// with two equal indices is no such evidence (a true list may open with one).
fn leading_points(data: &[u8], w: usize, i: usize) -> u32 {
    leading(data, w, i, |t| t[0] == t[1] && t[1] == t[2])
}

/// How many triangles the window of `i` indices at `w` opens with that are `kind`.
fn leading(data: &[u8], w: usize, i: usize, kind: impl Fn([u32; 3]) -> bool) -> u32 {
    (0..i / 3)
        .map(|t| [0, 1, 2].map(|j| u16_at(data, w + 2 * (3 * t + j))))
        .take_while(|&t| kind(t))
        .count() as u32
}

/// How many of the `v` NORMALs of the buffer at `c` are unit vectors.
fn unit_normal_count(data: &[u8], c: usize, decl: &Declaration, map: &AttributeMap, v: usize) -> usize {
    let Some(ne) = map.normal else { return 0 };
    let tol = crate::decl::unit_tolerance(ne.ty);
    (0..v)
        .filter(|k| {
            let at = c + k * decl.stride + ne.offset as usize;
            data.get(at..at + ne.ty.size())
                .is_some_and(|b| crate::decl::is_unit_normal(ne.ty, b, tol))
        })
        .count()
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
        sphere_ordered(rings, sectors, Some(rng))
    }

    /// [`sphere`], its vertices in ring order when `shuffle` is `None`: neighbouring
    /// vertices are neighbours in the buffer, so readings a vertex apart make nearly the
    /// same faces.
    fn sphere_ordered(rings: usize, sectors: usize, shuffle: Option<&mut Rng>) -> (Mesh, Vec<[f32; 3]>) {
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
        if let Some(rng) = shuffle {
            for k in (1..n).rev() {
                perm.swap(k, rng.below(k + 1));
            }
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

    /// `pieces` (tagged with what they are) in a random order among junk: the data and
    /// where each tagged piece starts.
    fn lay_out<T: Copy + Eq>(mut pieces: Vec<(Option<T>, Vec<u8>)>, rng: &mut Rng) -> (Vec<u8>, Vec<(T, usize)>) {
        for k in (1..pieces.len()).rev() {
            pieces.swap(k, rng.below(k + 1));
        }
        let mut data = junk(2 * (1 + rng.below(40)), rng);
        let mut at = Vec::new();
        for (tag, bytes) in pieces {
            if let Some(t) = tag {
                at.push((t, data.len()));
            }
            data.extend(bytes);
            let n = 2 * (6 + rng.below(30));
            data.extend(junk(n, rng));
        }
        (data, at)
    }

    fn place(data: &[u8], mesh: &Mesh, taken: &[Range<usize>]) -> Result<Placed, Reason> {
        let (d, m) = normal_stream();
        let located = AttributeMap::of(&Declaration {
            elements: Vec::new(),
            stride: 0,
        });
        place_normal_stream(
            data,
            mesh,
            &located,
            &d,
            &m,
            taken,
            &GateConfig::default(),
            &mut NormalRunCache::default(),
        )
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

    /// `POSITION@0 FLOAT3` on stream 0 (stride 12).
    fn position_stream() -> (Declaration, AttributeMap) {
        let d = Declaration {
            elements: vec![Element {
                stream: 0,
                offset: 0,
                ty: DeclType::Float3,
                method: 0,
                usage: Usage::Position,
                usage_index: 0,
            }],
            stride: 12,
        };
        let m = AttributeMap::of(&d);
        (d, m)
    }

    fn positions_bytes(p: &[[f32; 3]]) -> Vec<u8> {
        p.iter().flat_map(|c| c.iter().flat_map(|x| x.to_be_bytes())).collect()
    }

    fn index_bytes(idx: &[u32]) -> Vec<u8> {
        idx.iter().flat_map(|&i| (i as u16).to_be_bytes()).collect()
    }

    fn apart(data: &[u8], mesh: &Mesh) -> Result<Apart, Reason> {
        let (pd, pm) = position_stream();
        let (nd, nm) = normal_stream();
        let v = mesh.positions.len() as u32;
        let i = mesh.indices.len() as u32;
        let mut budget = ContainerSearches::new(data.len(), NormalRunCache::default());
        search_apart(
            data,
            v,
            i,
            (&pd, &pm),
            (&nd, &nm),
            false,
            &[],
            &GateConfig::default(),
            &mut budget,
        )
        .into_result()
    }

    /// Whether the buffers at `at` (indices, positions, normals) read as `mesh`'s counts
    /// pass every hard gate.
    fn truth_passes(data: &[u8], mesh: &Mesh, [w, q, c]: [usize; 3]) -> bool {
        let ((pd, pm), (nd, nm)) = (position_stream(), normal_stream());
        let (v, i) = (mesh.positions.len() as u32, mesh.indices.len() as u32);
        let p = super::super::Placement {
            index_offset: w,
            index_count: i,
            vertex_offset: q,
            vertex_count: v,
        };
        let m = super::super::read_block(data, p, &pd, &pm).unwrap();
        let m = merge(m, read_attributes(data, c, v as usize, &nd, &nm).unwrap(), &pm, &nm);
        gates::verdict(&gates::measure(&m), &GateConfig::default()).is_ok()
    }

    /// The mesh's index, position and normal buffers laid out in any order among junk,
    /// with `decoys` another sphere's three buffers of the same shape (`rings`,
    /// `sectors`) and with `shifted` its normals shifted by a vertex: the bytes and the
    /// true buffers' offsets (indices, positions, normals).
    fn among_decoys(
        mesh: &Mesh,
        normals: &[[f32; 3]],
        (rings, sectors): (usize, usize),
        decoys: bool,
        shifted: bool,
        rng: &mut Rng,
    ) -> (Vec<u8>, [usize; 3]) {
        // 0 indices, 1 positions, 2 normals: the truth's pieces.
        let mut pieces: Vec<(Option<usize>, Vec<u8>)> = vec![
            (Some(0), index_bytes(&mesh.indices)),
            (Some(1), positions_bytes(&mesh.positions)),
            (Some(2), encode(normals)),
        ];
        if decoys {
            let (other, on) = sphere(rings, sectors, rng);
            pieces.push((None, index_bytes(&other.indices)));
            pieces.push((None, positions_bytes(&other.positions)));
            pieces.push((None, encode(&on)));
        }
        if shifted {
            let mut rot = normals.to_vec();
            rot.rotate_left(1);
            pieces.push((None, encode(&rot)));
        }
        let (data, placed) = lay_out(pieces, rng);
        let mut at = [0usize; 3];
        for (t, o) in placed {
            at[t] = o;
        }
        (data, at)
    }

    /// A mesh, its normals, bytes holding its three buffers, and their offsets (indices,
    /// positions, normals).
    type ThreeApart = (Mesh, Vec<[f32; 3]>, Vec<u8>, (usize, usize, usize));

    /// A sphere's normals, positions and index buffer apart among junk, in that order:
    /// the mesh, its normals, the bytes and the three buffers' offsets (indices,
    /// positions, normals).
    fn three_apart(rng: &mut Rng) -> ThreeApart {
        let (mesh, normals) = sphere(4, 6, rng);
        let mut data = junk(100, rng);
        let n_at = data.len();
        data.extend(encode(&normals));
        data.extend(junk(30, rng));
        let p_at = data.len();
        data.extend(positions_bytes(&mesh.positions));
        data.extend(junk(50, rng));
        let i_at = data.len();
        data.extend(index_bytes(&mesh.indices));
        data.extend(junk(20, rng));
        (mesh, normals, data, (i_at, p_at, n_at))
    }

    #[test]
    fn buffers_apart_are_found_in_any_order() {
        let (mesh, _, data, (i_at, p_at, n_at)) = three_apart(&mut Rng(5));
        let a = apart(&data, &mesh).unwrap();
        assert_eq!((a.index_offset, a.position_offset, a.normal_offset), (i_at, p_at, n_at));
        assert_eq!(a.mesh.positions, mesh.positions);
        assert_eq!(a.mesh.indices, mesh.indices);
    }

    #[test]
    fn a_reading_found_alone_is_sole_and_one_ranked_first_is_not() {
        let mut rng = Rng(5);
        let (mesh, normals, mut data, (_, _, n_at)) = three_apart(&mut rng);
        let alone = apart(&data, &mesh).unwrap();
        assert!(alone.sole && alone.normal_offset == n_at);
        // A second NORMAL buffer, the same normals but four of them a fifth longer:
        // it passes the gates too, with fewer unit normals, so the true one ranks first
        // and is not the only reading.
        let mut longer = normals.clone();
        for n in longer.iter_mut().step_by(5).take(4) {
            *n = n.map(|c| 1.2 * c);
        }
        data.extend(encode(&longer));
        data.extend(junk(20, &mut rng));
        let ranked = apart(&data, &mesh).unwrap();
        assert!(!ranked.sole && ranked.normal_offset == n_at);
    }

    #[test]
    fn the_apart_search_is_bounded_on_hostile_input() {
        let (pd, pm) = position_stream();
        let (nd, nm) = normal_stream();
        let cfg = GateConfig::default();
        // More vertices than u16 indices reach: refused at once, nothing allocated.
        let mut budget = ContainerSearches::new(64, NormalRunCache::default());
        let e = search_apart(
            &[0; 64],
            4_000_000_000,
            6,
            (&pd, &pm),
            (&nd, &nm),
            false,
            &[],
            &cfg,
            &mut budget,
        );
        assert!(matches!(e, ApartOutcome::Nothing(_)), "{e:?}");
        // 2 MB of one triangle repeated: every window is one; the search stops at its cap.
        let data: Vec<u8> = (0..1 << 20).flat_map(|k: u32| ((k % 3) as u16).to_be_bytes()).collect();
        let mut budget = ContainerSearches::new(data.len(), NormalRunCache::default());
        let e = search_apart(&data, 3, 3000, (&pd, &pm), (&nd, &nm), false, &[], &cfg, &mut budget);
        assert!(matches!(e, ApartOutcome::TooMany(_)), "{e:?}");
    }

    #[test]
    fn the_searches_of_one_container_share_one_budget() {
        let mut rng = Rng(7);
        let (mesh, normals) = sphere(4, 6, &mut rng);
        let mut data = junk(100, &mut rng);
        data.extend(encode(&normals));
        data.extend(positions_bytes(&mesh.positions));
        data.extend(index_bytes(&mesh.indices));
        let (pd, pm) = position_stream();
        let (nd, nm) = normal_stream();
        let (v, i) = (mesh.positions.len() as u32, mesh.indices.len() as u32);
        let cfg = GateConfig::default();
        let mut budget = ContainerSearches::new(data.len(), NormalRunCache::default());
        let whole = budget.left;
        assert_eq!(whole, APART_CONTAINER_MIN_BUDGET);
        assert!(whole >= APART_MIN_BUDGET * APART_CONTAINER_BUDGET);
        let search = |budget: &mut ContainerSearches| {
            search_apart(&data, v, i, (&pd, &pm), (&nd, &nm), false, &[], &cfg, budget)
        };
        // A search pays what it did from the container's budget, and finds the buffers.
        assert!(matches!(search(&mut budget), ApartOutcome::Found(_)));
        let one = whole - budget.left;
        assert!(one > 0 && one <= APART_MIN_BUDGET, "{one}");
        // With less left than one search needs, the next one gives up, and pays only
        // what is left: the container's searches never do more than its budget.
        budget.left = one - 1;
        assert!(matches!(search(&mut budget), ApartOutcome::OutOfBudget));
        assert_eq!(budget.left, 0);
        assert!(matches!(search(&mut budget), ApartOutcome::OutOfBudget));
    }

    /// [`Agreement::agrees`] in `f64` comparisons, as it was before its table; without
    /// `stop_unoriented`, as it was before it stopped at too many unoriented faces.
    fn sample_agrees_in_floats(dots: &[f32], min: f64, stop_unoriented: bool) -> (bool, usize) {
        let n = dots.len();
        let (mut agree, mut disagree, mut total) = (0usize, 0usize, 0usize);
        for &d in dots {
            total += 1;
            if d > 0.0 {
                agree += 1;
            } else if d < 0.0 {
                disagree += 1;
            }
            let rest = LOOKAHEAD.saturating_sub(total) as f64;
            let (m, t) = (agree.max(disagree) as f64, (agree + disagree) as f64);
            if m + rest < min * (t + rest) || (stop_unoriented && total - (agree + disagree) > n / 2) {
                return (false, total);
            }
        }
        let oriented = agree + disagree;
        (
            oriented * 2 >= total && agree.max(disagree) as f64 >= min * oriented as f64,
            total,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// Stopping at more unoriented faces than the end allows changes no verdict, and
        /// looks at no more faces.
        #[test]
        fn the_sample_test_stops_early_with_the_same_verdict(
            dots in proptest::collection::vec(prop_oneof![Just(0.0f32), Just(1.0f32), Just(-1.0f32), any::<f32>()], 0..40),
            min in 0.5f64..1.0,
        ) {
            let (agrees, looked) = Agreement::new(min).agrees(dots.iter().copied(), dots.len());
            prop_assert_eq!(agrees, sample_agrees_in_floats(&dots, min, false).0);
            prop_assert!(looked <= dots.len());
        }

        /// The table's integer comparisons decide as the `f64` ones, face for face, for
        /// any finite share (the configured one is any value in 0..=1).
        #[test]
        fn the_sample_tests_table_decides_as_its_floats(
            dots in proptest::collection::vec(prop_oneof![Just(0.0f32), Just(1.0f32), Just(-1.0f32), any::<f32>()], 0..40),
            min in prop_oneof![0.0f64..=1.0, Just(0.9), Just(0.0), Just(1.0), Just(2.0 / 3.0), Just(0.1),
                               Just(1.5), Just(-1.0)],
        ) {
            prop_assert_eq!(Agreement::new(min).agrees(dots.iter().copied(), dots.len()), sample_agrees_in_floats(&dots, min, true));
        }

        /// The senses by lanes (AVX where the CPU has it, SSE2) are the ones computed one
        /// place at a time, bit for bit, whatever the floats (zeros of either sign, not
        /// finite ones) and however many places are left over after the last whole group.
        #[test]
        fn the_senses_by_lanes_are_the_senses_one_at_a_time(
            sums in proptest::collection::vec(
                [0, 1, 2].map(|_| prop_oneof![Just(0.0f32), Just(-0.0f32), Just(1.0f32), Just(f32::NAN),
                                              Just(f32::INFINITY), any::<f32>(), -4.0f32..4.0]), 0..200),
            f in [0, 1, 2].map(|_| prop_oneof![Just(0.0f32), Just(-1.0f32), any::<f32>(), -4.0f32..4.0]),
        ) {
            let (x, y, z): (Vec<f32>, Vec<f32>, Vec<f32>) =
                (sums.iter().map(|s| s[0]).collect(), sums.iter().map(|s| s[1]).collect(), sums.iter().map(|s| s[2]).collect());
            let wn = sums.len().div_ceil(64);
            let one_at_a_time = {
                let (mut agree, mut against) = (vec![0u64; wn], vec![0u64; wn]);
                mark_plain(&x, &y, &z, f, &mut agree, &mut against, 0);
                (agree, against)
            };
            for (k, &sum) in sums.iter().enumerate() {
                let d = dot3(f, sum);
                prop_assert_eq!(one_at_a_time.0[k / 64] >> (k % 64) & 1 == 1, d > 0.0);
                prop_assert_eq!(one_at_a_time.1[k / 64] >> (k % 64) & 1 == 1, d < 0.0);
            }
            #[cfg(target_arch = "x86_64")]
            {
                let (mut agree, mut against) = (vec![0u64; wn], vec![0u64; wn]);
                // SAFETY: every x86-64 CPU has SSE2.
                let done = unsafe { mark_sse2(&x, &y, &z, f, &mut agree, &mut against) };
                mark_plain(&x, &y, &z, f, &mut agree, &mut against, done);
                prop_assert_eq!((&agree, &against), (&one_at_a_time.0, &one_at_a_time.1));
                if std::is_x86_feature_detected!("avx") {
                    let (mut agree, mut against) = (vec![0u64; wn], vec![0u64; wn]);
                    // SAFETY: the CPU has AVX (checked just above).
                    let done = unsafe { mark_avx(&x, &y, &z, f, &mut agree, &mut against) };
                    mark_plain(&x, &y, &z, f, &mut agree, &mut against, done);
                    prop_assert_eq!((&agree, &against), (&one_at_a_time.0, &one_at_a_time.1));
                }
            }
        }

        /// The prefilter refutes a pair exactly when the first faces of its window that
        /// are not zero (up to [`Agreement::unanimous`], at most [`PREFILTER_FACES`]) hold
        /// both senses against the place's sums, each sense the sample test's own
        /// ([`dot3`]); and a pair it refutes fails the sample test. Faces and sums draw
        /// zeros, units and any floats (not finite ones too), the places cross a word of
        /// the bit sets, the share is any.
        #[test]
        fn a_pair_the_prefilter_refutes_fails_the_sample_test(
            nt in 1usize..30,
            slots in 1usize..150,
            shift in 0usize..4,
            seed in any::<u64>(),
            min in prop_oneof![0.0f64..=1.0, Just(0.9), Just(0.95), Just(1.0)],
        ) {
            let mut rng = Rng(seed | 1);
            let value = |rng: &mut Rng| match rng.below(5) {
                0 => 0.0,
                1 => 1.0,
                2 => -1.0,
                3 => f32::from_bits(rng.next() as u32),
                _ => rng.below(2001) as f32 / 100.0 - 10.0,
            };
            let faces: Vec<[f32; 3]> = (0..nt)
                .map(|_| if rng.below(4) == 0 { [0.0; 3] } else { [0, 1, 2].map(|_| value(&mut rng)) })
                .collect();
            let places: Vec<NormalPlace> = (0..slots)
                .map(|k| NormalPlace {
                    rank: k,
                    at: 0,
                    range: 0..0,
                    sums: (0..nt).map(|_| [0, 1, 2].map(|_| value(&mut rng))).collect(),
                    slot: k,
                })
                .collect();
            let agreement = Agreement::new(min);
            let first = PREFILTER_FACES.min(agreement.unanimous);
            prop_assume!(first > 0);
            let mut by_face = SumsByFace::default();
            by_face.fill(&places, nt);
            let mut pre = Prefilter::default();
            pre.clear(nt, slots);
            // Two windows: the sample from the first face, and from face `shift`.
            let firsts: Vec<Vec<usize>> = [0, shift.min(nt - 1)]
                .iter()
                .map(|&a| (a..nt).filter(|&u| faces[u] != [0.0; 3]).take(first).collect())
                .collect();
            for (j, us) in firsts.iter().enumerate() {
                let rows: Vec<usize> = us.iter().map(|&u| pre.row(&by_face, u, faces[u]).0).collect();
                pre.window(j, &rows, slots);
            }
            pre.sort(slots);
            for (k, place) in places.iter().enumerate() {
                let mut want = Vec::new();
                for (j, us) in firsts.iter().enumerate() {
                    let a = shift.min(nt - 1) * j;
                    let dots: Vec<f32> = (a..nt).map(|u| dot3(faces[u], place.sums[u])).collect();
                    let senses: Vec<f32> = us.iter().map(|&u| dot3(faces[u], place.sums[u])).collect();
                    let refuted = senses.iter().any(|&d| d > 0.0) && senses.iter().any(|&d| d < 0.0);
                    if refuted {
                        prop_assert!(!agreement.agrees(dots.iter().copied(), dots.len()).0);
                    } else {
                        want.push(j as u32);
                    }
                }
                prop_assert_eq!(pre.of(k), &want[..]);
            }
        }

        /// Each window's sample, read from its cluster, is the one read from its own
        /// indices; every window is in one cluster, with its rank.
        #[test]
        fn a_cluster_holds_each_windows_own_sample(
            values in proptest::collection::vec(0u16..6, 64..400),
            raw in proptest::collection::btree_set(0usize..200, 1..30),
            iu in 3usize..120,
        ) {
            let data: Vec<u8> = values.iter().flat_map(|v| v.to_be_bytes()).collect();
            let windows: Vec<usize> = raw.into_iter().map(|w| 2 * w).filter(|&w| w + 2 * iu <= data.len()).collect();
            let cs = clusters(&data, &windows, iu);
            let mut seen: Vec<(usize, usize)> = cs.iter().flat_map(|c| c.windows.iter().copied()).collect();
            seen.sort_unstable();
            prop_assert_eq!(seen, windows.iter().copied().enumerate().collect::<Vec<_>>());
            for c in &cs {
                for (&(_, w), r) in c.windows.iter().zip(&c.samples) {
                    let own = sample_triangles((0..iu).map(|k| u16_at(&data, w + 2 * k)));
                    prop_assert_eq!(&c.tris[r.clone()], &own[..]);
                }
                // It holds nothing else (a NORMAL place pays a sum for each).
                let mut held = vec![false; c.tris.len()];
                c.samples.iter().for_each(|r| held[r.clone()].iter_mut().for_each(|h| *h = true));
                prop_assert!(held.iter().all(|&h| h));
            }
        }

        /// The starts come out as sorting and deduplicating them would give.
        #[test]
        fn starts_come_out_in_offset_order_each_once(len in 1usize..5000, raw in proptest::collection::vec(any::<usize>(), 0..300)) {
            let starts: Vec<usize> = raw.iter().map(|&c| (c % len) & !1).collect();
            let mut want = starts.clone();
            want.sort_unstable();
            want.dedup();
            prop_assert_eq!(in_offset_order(len, starts), want);
        }
    }

    proptest! {
        /// [`by_chance`] is `tried · min(1, 2 · P(Bin(t, ½) ≥ max))`, computed exactly in
        /// integers for every count up to 120 faces.
        #[test]
        fn by_chance_is_the_binomial_tail(agree in 0usize..70, against in 0usize..50, tried in 1u64..1_000_000) {
            let (t, m) = (agree + against, agree.max(against));
            prop_assume!(t > 0);
            let mut row = vec![1u128];
            for _ in 0..t {
                let mut next = vec![1u128; row.len() + 1];
                for k in 1..row.len() {
                    next[k] = row[k - 1] + row[k];
                }
                row = next;
            }
            let tail: u128 = row[m..].iter().sum();
            let p = (2.0 * tail as f64 / 2f64.powi(t as i32)).min(1.0);
            let want = tried as f64 * p;
            let got = by_chance(tried, agree, against);
            prop_assert!((got - want).abs() <= 1e-9 * want.max(1e-300), "{got} {want}");
        }
    }

    #[test]
    fn by_chance_weighs_small_meshes_among_many_candidates() {
        // Twelve faces all in one sense: one reading in 2 048 by chance.
        assert!((by_chance(1, 12, 0) - 2.0 / 4096.0).abs() < 1e-12);
        // Among a million combinations a twelve-face mesh is no evidence; a hundred faces are.
        assert!(by_chance(1_000_000, 12, 0) > MAX_BY_CHANCE);
        assert!(by_chance(1_000_000, 95, 5) < 1e-12);
        assert_eq!(by_chance(7, 0, 0), 7.0);
    }

    #[test]
    fn positions_on_zero_bytes_are_no_places_or_cost_at_most_half_a_sample_each() {
        let mut rng = Rng(11);
        let (mesh, normals) = sphere(4, 6, &mut rng);
        let mut data = junk(100, &mut rng);
        data.extend(encode(&normals));
        data.extend(junk(30, &mut rng));
        data.extend(positions_bytes(&mesh.positions));
        data.extend(junk(30, &mut rng));
        data.extend(index_bytes(&mesh.indices));
        data.extend(junk(30, &mut rng));
        let mut zeros = data.clone();
        zeros.extend(vec![0u8; 12 * 400]);
        let (pd, pm) = position_stream();
        let (nd, nm) = normal_stream();
        let (v, i) = (mesh.positions.len() as u32, mesh.indices.len() as u32);
        let cfg = GateConfig::default();
        let taken = [];
        let spent = |data: &[u8]| {
            let mut budget = ContainerSearches::new(data.len(), NormalRunCache::default());
            let whole = budget.left;
            let e = search_apart(data, v, i, (&pd, &pm), (&nd, &nm), false, &taken, &cfg, &mut budget);
            assert!(matches!(e, ApartOutcome::Found(_)), "{e:?}");
            let places = |constant_fails| {
                position_starts(
                    data,
                    &pd,
                    &pm,
                    v as usize,
                    cfg.max_abs_coordinate,
                    constant_fails,
                    &taken,
                )
                .count()
            };
            (whole - budget.left, places(false), places(true))
        };
        let ((base, p0, q0), (with_zeros, p1, q1)) = (spent(&data), spent(&zeros));
        assert!(sample_triangles(mesh.indices.iter().copied()).len() == SAMPLE);
        // Read as positions, the zeros are hundreds of places; all one point, they are
        // none once the gates turn away all-degenerate blocks, but for those that hold
        // some of the junk before them (at most `v` per residue of the stride).
        assert!(p1 > p0 + 1000, "{p0} {p1}");
        assert!(q0 <= p0 && q1 - q0 <= 6 * v as usize, "{q0} {q1}");
        // Every place left on the zeros is turned away after at most half the sample
        // and one face, whatever the number of NORMAL places (once per place, not per
        // pair); read as index values, the zeros are one run slid over once, a value each.
        assert!(
            with_zeros - base <= (q1 - q0) * (SAMPLE / 2 + 1) + 12 * 400 / 2,
            "{base} {with_zeros} {q0} {q1}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Nothing found apart differs from the truth: the true index buffer, positions
        /// and normals among junk and decoys (another sphere's three buffers of the same
        /// counts, the true normals shifted by a vertex), in any order.
        #[test]
        fn buffers_found_apart_are_the_true_ones(seed in any::<u64>(), rings in 2usize..5, sectors in 3usize..8,
                                                 decoys in any::<bool>(), shifted in any::<bool>()) {
            let mut rng = Rng(seed | 1);
            let (mesh, normals) = sphere(rings, sectors, &mut rng);
            let (data, at) = among_decoys(&mesh, &normals, (rings, sectors), decoys, shifted, &mut rng);
            match apart(&data, &mesh) {
                Ok(a) => prop_assert_eq!([a.index_offset, a.position_offset, a.normal_offset], at),
                Err(e) => prop_assert!(decoys || shifted, "alone among junk: {}", e),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 2048,
            rng_seed: proptest::test_runner::RngSeed::Fixed(39),
            ..ProptestConfig::default()
        })]
        /// Nothing found apart differs from the truth where the true buffers pass the
        /// gates, on imperfect meshes whose readings a vertex or a triangle apart make
        /// nearly the same faces: a sphere in ring order or not, with faces flipped and
        /// normals reversed or short anywhere (among the first faces, the sample's, too),
        /// a degenerate first triangle (the index buffer cannot be told from the one a
        /// triangle later by its start), plausible positions right before the true ones
        /// (zeros or another sphere's), among junk. On a fixed sample of cases: over
        /// random ones the property fails about twice in 30 000 (readings a ring of
        /// vertices apart, beyond [`NEAR_SLOTS`], where the true buffers fail the sample
        /// test; 37 times before the search looked around its first readings), the case
        /// that stays open (docs/architecture.md, rule 9).
        #[test]
        fn buffers_found_apart_on_imperfect_meshes_are_the_true_ones(seed in any::<u64>(), rings in 2usize..6,
                sectors in 3usize..10, ordered in any::<bool>(), before in 0usize..3, flipped in 0usize..3,
                off in 0usize..4, degenerate_first in any::<bool>()) {
            let mut rng = Rng(seed | 1);
            let (mut mesh, mut normals) = if ordered {
                sphere_ordered(rings, sectors, None)
            } else {
                sphere(rings, sectors, &mut rng)
            };
            for _ in 0..flipped {
                let t = rng.below(mesh.indices.len() / 3);
                mesh.indices.swap(3 * t + 1, 3 * t + 2);
            }
            for _ in 0..off {
                let k = rng.below(normals.len());
                let f = if rng.below(2) == 0 { -1.0 } else { 0.7 };
                normals[k] = normals[k].map(|c| f * c);
            }
            if degenerate_first {
                let (a, b) = (mesh.indices[0], mesh.indices[1]);
                mesh.indices.splice(0..0, [a, a, b]);
            }
            let (mut data, mut at) = among_decoys(&mesh, &normals, (rings, sectors), false, false, &mut rng);
            let lead: Vec<u8> = match before {
                0 => Vec::new(),
                1 => vec![0u8; 12 * (1 + rng.below(3 * sectors))],
                _ => positions_bytes(&sphere(rings, sectors, &mut rng).0.positions),
            };
            let (n, p) = (lead.len(), at[1]);
            data.splice(p..p, lead);
            for a in at.iter_mut().filter(|a| **a >= p) {
                *a += n;
            }
            let r = apart(&data, &mesh);
            // Where the true buffers fail the gates (more flipped faces than they allow on
            // a small mesh), another reading may pass by chance: the case that stays
            // open (docs/architecture.md, rule 9).
            if let (Ok(a), true) = (r, truth_passes(&data, &mesh, at)) {
                prop_assert_eq!([a.index_offset, a.position_offset, a.normal_offset], at);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        /// The prefilter changes no outcome: the search with it and without it, on a
        /// sphere's buffers among junk, decoys (another sphere's buffers, the normals
        /// shifted by a vertex), zero faces among the first (triangles on a copy of a
        /// vertex, let through by the gates: a window is left only for more than half of
        /// its sample) and a third or two of the vertices on one point, for several shares
        /// of the gate, ends with the same reading, the same reason or the same rivals.
        #[test]
        fn the_prefilter_changes_no_outcome(seed in any::<u64>(), rings in 2usize..5, sectors in 3usize..8,
                                            decoys in any::<bool>(), shifted in any::<bool>(), zero in 0usize..5,
                                            flat in 0usize..3, min in prop_oneof![Just(0.9), Just(0.8), Just(0.95), Just(0.6)]) {
            let mut rng = Rng(seed | 1);
            let (mut mesh, mut normals) = sphere(rings, sectors, &mut rng);
            // `zero` zero faces among the first triangles: each on a copy of a vertex.
            for d in 0..zero {
                let t = [0, 1, 2].map(|j| mesh.indices[6 * d + j]);
                let copy = mesh.positions.len() as u32;
                mesh.positions.push(mesh.positions[t[0] as usize]);
                normals.push(normals[t[0] as usize]);
                let at = 6 * d + 3;
                mesh.indices.splice(at..at, [copy, t[0], t[1]]);
            }
            // `flat` thirds of the vertices on one point.
            let v = mesh.positions.len();
            for k in 0..v * flat / 3 {
                mesh.positions[k] = [1.0, 2.0, 3.0];
            }
            let (data, _) = among_decoys(&mesh, &normals, (rings, sectors), decoys, shifted, &mut rng);
            let cfg = GateConfig { min_winding_consistency: min, max_degenerate_fraction: 0.5, ..GateConfig::default() };
            let (pd, pm) = position_stream();
            let (nd, nm) = normal_stream();
            let outcome = |prefilter: bool| {
                let o = search(&data, v as u32, mesh.indices.len() as u32, (&pd, &pm), (&nd, &nm), false, &[], &cfg,
                               &mut Budget(usize::MAX), &mut NormalRunCache::default(), prefilter)
                    .unwrap_or_else(|o| o);
                match o {
                    ApartOutcome::Found(a) => format!("found {} {} {} sole {}", a.index_offset, a.position_offset, a.normal_offset, a.sole),
                    other => format!("{other:?}"),
                }
            };
            prop_assert_eq!(outcome(true), outcome(false));
        }
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
            let mut pieces: Vec<(Option<()>, Vec<u8>)> = vec![(Some(()), encode(&normals))];
            for _ in 0..decoys {
                let (_, other) = sphere(rings, sectors, &mut rng);
                pieces.push((None, encode(&other)));
            }
            if shifted {
                let mut rot = normals.clone();
                rot.rotate_left(1);
                pieces.push((None, encode(&rot)));
            }
            let (data, placed) = lay_out(pieces, &mut rng);
            let at = placed[0].1;
            match place(&data, &mesh, &[]) {
                Ok(p) => prop_assert_eq!(p.offset, at),
                Err(e) => prop_assert!(decoys + usize::from(shifted) > 0, "alone among junk: {}", e),
            }
        }
    }
}
