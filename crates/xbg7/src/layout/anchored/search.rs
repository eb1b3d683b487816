//! One unit's claims: the [`Scanner`] over a data section (bitmaps, runs and gated
//! candidates cached per declaration and counts), pinning an index window before a
//! vertex run, the no-normal search under its work budget, the plausibility checks of a
//! block found without normals, and the evidence of a claim (edge triangles, stray slots).

use super::super::{decode_block, vertices_past_end, Placement};
use super::bitmap::{tolerant_runs_by_offset, with_extra, IndexMaxima, TolerantRun, UnitBitmap, MIN_RUN_UNITS};
use super::by_structure::{places, settled};
use super::claim::{overlaps, Block, Claim, Located, Reading, Unit, MAX_CANDIDATES};
use super::edges::{
    face_against_normals, following_triangles, leading_degenerate, preceding_triangles, strength, window_sense, Edge,
};
use super::vertex_bytes::{element3, has_area, plausible_position};
use crate::decl::{per_common_type, unit_tolerance, DeclType, Declaration, Element};
use crate::gates::{degenerate_by, GateConfig};
use crate::reason::{Code, Reason};
use crate::vertex::vertices_fit;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::rc::Rc;

/// Vertex-buffer starts before a run start whose preceding u16 is read with the run
/// ([`Heads`], in offset order); the search tries every start that keeps the run inside
/// the buffer, and the multi-stream search (`layout::streams`) this many.
pub const MAX_LEADING_NON_UNIT: usize = 2;

/// Cheap index pre-check straight from the bytes (no allocation): every value `< v`,
/// from the end, next to the vertex run already looked at (a window over another
/// block's index tail or over vertex data usually fails within a few values there).
pub(super) fn window_valid(data: &[u8], w: usize, i: usize, v: u32) -> bool {
    i >= 3
        && data[w..w + 2 * i]
            .chunks_exact(2)
            .rev()
            .all(|c| (u16::from_be_bytes([c[0], c[1]]) as u32) < v)
}

/// The u16 values just before one place `p`, as the running maximum read backwards from
/// `p`, as far as any question so far needed: breakpoints `(length, max)` where the
/// maximum of the last `length` values first reaches `max`. "Are the `I` values before
/// `p` all `< V`" is then a binary search, for every unit at once: the windows of all
/// units end at the same few thousand run starts, and most of those are real blocks
/// whose index list every unit with a larger `V` would otherwise read once per unit.
/// Values [`BackMax`] passes over at once where none can be a new maximum.
const CHUNK: usize = 16;

#[derive(Default)]
struct BackMax {
    /// Values read so far (the last `read` values before `p`).
    read: u32,
    steps: Vec<(u32, u16)>,
}

impl BackMax {
    /// Are the `i` u16 values just before `p` all `< v` (`2i ≤ p`)? Reads on only while
    /// every value so far is `< v` and fewer than `i` were read.
    fn all_below(&mut self, data: &[u8], p: usize, i: usize, v: u32) -> bool {
        let k = self.steps.partition_point(|&(_, m)| (m as u32) < v);
        if let Some(&(len, _)) = self.steps.get(k) {
            return len as usize > i;
        }
        while (self.read as usize) < i {
            // Inside an index list the maximum is reached early: a chunk that does not
            // exceed it holds no breakpoint and is passed over whole (vectorised).
            if let (Some(&(_, top)), true) = (self.steps.last(), i - self.read as usize >= CHUNK) {
                let at = p - 2 * (self.read as usize + CHUNK);
                let chunk: &[u8; 2 * CHUNK] = data[at..at + 2 * CHUNK].try_into().expect("2·CHUNK bytes");
                let m = (0..CHUNK)
                    .map(|j| u16::from_be_bytes([chunk[2 * j], chunk[2 * j + 1]]))
                    .fold(0, u16::max);
                if m <= top {
                    self.read += CHUNK as u32;
                    continue;
                }
            }
            self.read += 1;
            let at = p - 2 * self.read as usize;
            let x = u16::from_be_bytes([data[at], data[at + 1]]);
            if self.steps.last().is_none_or(|&(_, m)| x > m) {
                self.steps.push((self.read, x));
                if x as u32 >= v {
                    return false;
                }
            }
        }
        true
    }
}

/// A hasher for byte offsets (one multiply; the keys are not adversarial in a way that
/// matters: a collision costs time on one data section, never a wrong answer).
#[derive(Default)]
struct OffsetHasher(u64);

impl std::hash::Hasher for OffsetHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01B3);
        }
    }
    fn write_usize(&mut self, x: usize) {
        self.0 = (x as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }
}

/// Values [`Windows::valid`] reads straight from the data before it looks a place up.
const PRECHECK: usize = 8;

/// [`BackMax`] per place, read on demand.
#[derive(Default)]
pub(super) struct Windows {
    at: HashMap<usize, BackMax, std::hash::BuildHasherDefault<OffsetHasher>>,
}

impl Windows {
    /// Are the `i` u16 values just before `p` all `< v` (and `i ≥ 3`)?
    pub(super) fn valid(&mut self, data: &[u8], p: usize, i: usize, v: u32) -> bool {
        if i < 3 || 2 * i > p {
            return false;
        }
        // Most places fail within the few values next to them (inside a vertex buffer, a
        // normal's w may be 0 but its x, y, z and the position are not small): no lookup
        // for those (a hashed place per vertex slot was most of a stage's decode).
        if data[p - 2 * i.min(PRECHECK)..p]
            .chunks_exact(2)
            .any(|c| u16::from_be_bytes([c[0], c[1]]) as u32 >= v)
        {
            return false;
        }
        self.at.entry(p).or_default().all_below(data, p, i, v)
    }
}

/// The vertices an index window references, as [`referenced`] leaves them: `bits`, a
/// bit set over the vertices. Built through `marks`, one byte per vertex set by plain
/// stores, wherever the window holds a value per 64 vertices or more (so the bytes
/// cleared and packed are at most 64 per value): setting bits in place read back the
/// word the index before had just written (neighbouring indices share a word), so each
/// index waited for the last — a sixth of a stage's decode.
#[derive(Default)]
pub(crate) struct Seen {
    marks: Vec<u8>,
    pub(crate) bits: Vec<u64>,
}

/// How many distinct values `< v` the `i` u16 values at `w` reference (`seen`: scratch,
/// their bit set after). The values are u16, so the scratch never holds more than 2¹⁶
/// of them, whatever `v` a descriptor declares (a `vertex_count` of 0xFFFFFFFF once cost
/// 512 MiB, zeroed per call).
pub(crate) fn referenced(data: &[u8], w: usize, i: usize, v: usize, seen: &mut Seen) -> usize {
    let words = v.min(1 << 16).div_ceil(64);
    let values = data[w..w + 2 * i]
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]) as usize);
    seen.bits.clear();
    if i < words {
        // Fewer values than the bit set has words: setting them in place costs no more
        // than clearing the words, where a byte per vertex would cost 64 per word.
        seen.bits.resize(words, 0);
        for x in values {
            seen.bits[x / 64] |= 1 << (x % 64);
        }
    } else {
        seen.marks.clear();
        seen.marks.resize(64 * words, 0);
        for x in values {
            seen.marks[x] = 1;
        }
        seen.bits.extend(
            seen.marks
                .as_chunks::<64>()
                .0
                .iter()
                .map(|m| crate::layout::byte_flags(m, 0)),
        );
    }
    seen.bits.iter().map(|x| x.count_ones() as usize).sum()
}

/// The unit's claim on a vertex buffer starting at `p` (its window: the `I` u16 values
/// just before, which the caller has checked are all `< V`): `None` unless the window references at least the
/// gates' `min_referenced_fraction` of the vertices (a block that fails another gate is
/// still its owner's) and the block lies inside the data. A window whose
/// indices are valid but which is no claim is recorded in `failures`.
pub(super) fn pin(
    data: &[u8],
    p: usize,
    unit: &Unit<'_>,
    cfg: &GateConfig,
    seen: &mut Seen,
    failures: &mut Vec<(usize, Reason)>,
) -> Option<Pinned> {
    let (v, i) = (unit.vertex_count as usize, unit.index_count as usize);
    let w = p.checked_sub(2 * i)?;
    debug_assert!(window_valid(data, w, i, unit.vertex_count));
    let pl = Placement {
        index_offset: w,
        index_count: unit.index_count,
        vertex_offset: p,
        vertex_count: unit.vertex_count,
    };
    if pl.range(unit.decl.stride).end > data.len() {
        return None; // the last vertex's undeclared bytes run past the data
    }
    let n = referenced(data, w, i, v, seen);
    if (n as f64) < cfg.min_referenced_fraction * v as f64 {
        if failures.len() < MAX_CANDIDATES {
            failures.push((
                w,
                Reason::new(Code::VerticesUnreferenced, format!("{n} of {v} vertices referenced")),
            ));
        }
        return None;
    }
    // Whether the block can be read is settled here; it is read only when gated
    // ([`Block`]), which most claims never are.
    let s = unit.decl.stride;
    if !vertices_fit(data.len(), p, v, unit.decl, unit.map) {
        if failures.len() < MAX_CANDIDATES {
            failures.push((w, vertices_past_end(pl, unit.decl)));
        }
        return None;
    }
    let pe = unit.map.position.as_ref().expect("vertices_fit: a POSITION element");
    let pos = |k| element3(data, p, s, pe, k);
    let strength = strength(data, w, i, unit.vertex_count, pos);
    let nrm = |k| {
        unit.map
            .normal
            .as_ref()
            .map_or([0.0; 3], |e| element3(data, p, s, e, k))
    };
    let sense = window_sense(data, w, i, pos, nrm);
    let judge = |t| {
        if degenerate_by(pos, t) {
            Edge::Skip
        } else if sense.is_some_and(|x| x * face_against_normals(pos, nrm, t) < 0.0) {
            Edge::Against
        } else {
            Edge::Real
        }
    };
    let preceding = preceding_triangles(data, w, unit.vertex_count, judge)
        + leading_degenerate(data, w, i, |t| degenerate_by(pos, t))
        + following_triangles(data, p, unit.vertex_count, judge);
    let stray = match unit.map.normal {
        Some(e) => stray_slots(data, p, s, &e, &seen.bits, unit.vertex_count),
        None => 0,
    };
    Some(Pinned {
        pl,
        strength,
        preceding,
        stray,
    })
}

/// The vertices from the first a window references to the last (`seen`: its referenced
/// bitset over `v` vertices), as `first..last + 1`; empty when none is.
pub(super) fn referenced_span(seen: &[u64], v: u32) -> std::ops::Range<u32> {
    let words = seen.len().min((v as usize).div_ceil(64));
    let first = (0..words)
        .find(|&k| seen[k] != 0)
        .map(|k| 64 * k as u32 + seen[k].trailing_zeros());
    let last = (0..words)
        .rev()
        .find(|&k| seen[k] != 0)
        .map(|k| 64 * k as u32 + 63 - seen[k].leading_zeros());
    match (first, last) {
        (Some(f), Some(l)) => f.min(v)..(l + 1).min(v),
        _ => 0..0,
    }
}

/// Vertex slots of a reading that nothing supports as vertices: before the first vertex
/// the window references or after the last (`seen`: its referenced bitset), holding a
/// normal unlike the block's (outside the gates' band [0.5, 2] where most of the block's
/// normals are not unit but inside it; not unit otherwise): what bytes of something else
/// read as. A
/// reading that runs past its block (or starts before it) takes in such slots; the
/// owner's reading of its own block has none.
pub(super) fn stray_slots(data: &[u8], p: usize, s: usize, e: &Element, seen: &[u64], v: u32) -> u32 {
    let unit = unit_squares(e.ty);
    // The gates' band of normal lengths, [0.5, 2.0], as squares.
    let band = 0.25..=4.0;
    let size = e.ty.size();
    let square = |k: usize| {
        let at = p + k * s + e.offset as usize;
        square_len(e.ty.decode(&data[at..at + size]))
    };
    // Only the slots before the first referenced vertex and after the last: a reading
    // that starts before its block or runs past it takes them in there; an unreferenced
    // slot between referenced ones is the block's own vertex, whatever its normal. (No
    // vertex referenced: the span is empty at 0, and every slot is an end.)
    let span = referenced_span(seen, v);
    let ends = || (0..span.start as usize).chain(span.end as usize..v as usize);
    let off = ends().filter(|&k| !unit.contains(&square(k))).count() as u32;
    if off == 0 {
        return 0;
    }
    // Unlike the block's: where most of its normals are not unit but inside the gates'
    // band (FORMAT.md promises no unit normal), a slot whose normal is outside the band;
    // otherwise (most unit, or a reading whose normals are mostly garbage) one that is
    // not unit. "Most" is read from up to `STRAY_SAMPLES` slots spread over the span.
    let n = span.len().min(STRAY_SAMPLES);
    let (mut units, mut banded) = (0, 0);
    for j in 0..n {
        let q = square(span.start as usize + j * span.len() / n);
        units += usize::from(unit.contains(&q));
        banded += usize::from(band.contains(&q));
    }
    if 2 * units < n && 2 * banded >= n {
        ends().filter(|&k| !band.contains(&square(k))).count() as u32
    } else {
        off
    }
}

/// The squared lengths a unit normal of type `ty` may have (|n| within the type's
/// tolerance of 1).
fn unit_squares(ty: DeclType) -> std::ops::RangeInclusive<f64> {
    let tol = unit_tolerance(ty) as f64;
    ((1.0 - tol) * (1.0 - tol))..=((1.0 + tol) * (1.0 + tol))
}

/// The squared length of a decoded normal's xyz, in f64 (f32 components squared are
/// exact there, so only the sum rounds).
#[inline]
fn square_len(n: [f32; 4]) -> f64 {
    (n[0] as f64).powi(2) + (n[1] as f64).powi(2) + (n[2] as f64).powi(2)
}

/// How many slots of a block [`stray_slots`] reads to tell whether most of its normals
/// are unit.
pub const STRAY_SAMPLES: usize = 16;

/// How many of the `v` normals `e` of a buffer at `p` (stride `s`, in range) are unit: |n| within the type's tolerance of 1, as squares (f32
/// components squared are exact in f64, so only the sum rounds; a hypot per vertex was
/// 5 % of a decode). The common normal types get a loop of their own
/// ([`per_common_type`]).
pub(super) fn count_unit_normals(data: &[u8], p: usize, s: usize, e: &Element, v: u32) -> u32 {
    let bounds = unit_squares(e.ty);
    let (first, size) = (p + e.offset as usize, e.ty.size());
    per_common_type!(e.ty, |ty| (0..v as usize)
        .filter(|&k| {
            let at = first + k * s;
            let n = ty.decode(&data[at..at + size]);
            bounds.contains(&square_len(n))
        })
        .count() as u32)
}

/// A claim not yet read nor gated ([`Block`] reads and gates on first use, for the
/// claims that survive the resolution).
pub(super) struct Pinned {
    pl: Placement,
    strength: u8,
    preceding: u32,
    stray: u32,
}

impl Pinned {
    pub(super) fn into_claim(self, stride: usize, how: &Rc<Reading>) -> Claim {
        Claim {
            range: self.pl.range(stride),
            block: Block::read(self.pl, how),
            strength: self.strength,
            preceding: self.preceding,
            stray: self.stray,
            unit_normals: 0,
        }
    }
}

/// Per start-aligned place of a run (the run's start and the places whole strides before
/// it, grown on demand as far as any unit walks), the largest of the [`PRECHECK`] u16
/// values just before it (`u16::MAX` where the data does not reach): the first thing every
/// unit's window test reads there, read once per place for all units, in a flat array
/// ([`Scanner::search`] walks up to `V − L` places per run: a lookup per place and unit
/// was most of a stage's decode).
/// Paired with the largest u16 of the vertex slot that starts at the place (see
/// [`Scanner::search`]: a slot whose every value is an index `< V` is no vertex to walk over).
pub(super) type Heads = Vec<(u16, u16)>;

/// Grows `heads` (of the run whose first normal is at `q0`, normal offset `no`, stride
/// `s`) to cover the places `0..=last` strides before the run's start.
fn grow_heads(heads: &mut Heads, data: &[u8], q0: usize, no: usize, s: usize, last: usize) {
    let most = |b: &[u8]| {
        b.chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .fold(0, u16::max)
    };
    for k in heads.len()..=last {
        let p = q0.checked_sub(no + k * s);
        let before = p.and_then(|p| p.checked_sub(2 * PRECHECK).map(|w| most(&data[w..p])));
        let slot = p.and_then(|p| data.get(p..p + s)).map(most);
        heads.push((before.unwrap_or(u16::MAX), slot.unwrap_or(u16::MAX)));
    }
}

/// Runs are kept per (normal type, byte parity, stride, normal offset).
pub(super) type RunsKey = (u32, usize, usize, usize);

/// No FLOAT16_4 unit normal has all of x, y, z below this as u16 values: `|n| ≥ 1 − 2e-3`
/// (its tolerance) needs a component of magnitude ≥ 0.998/√3 ≈ 0.576195, and the half
/// 0x389C is 0.576172, too small (tested), so that component's bits are ≥ 0x389D, or
/// ≥ 0x8000 when negative. Hence u16 indices `< V ≤ 0x389C` never cover a whole
/// unit-normal xyz.
pub(super) const HALF_UNIT_MIN_COMPONENT: u32 = 0x389C;

/// Unit-normal bitmaps per (normal type's code, byte parity).
pub type NormalBitmaps = BTreeMap<(u32, usize), UnitBitmap>;
/// Tolerant runs per (normal type's code, byte parity, stride), in descending order of
/// their starts ([`tolerant_runs_by_offset`]).
pub type NormalRuns = BTreeMap<(u32, usize, usize), Vec<TolerantRun>>;

/// The tolerant runs of `ty`'s unit normals at byte parity `parity` and stride `s`
/// ([`tolerant_runs_by_offset`]), their bitmap and they built once into `bitmaps` and
/// `runs` (a data section's scans share them).
pub fn normal_runs<'a>(
    bitmaps: &mut NormalBitmaps,
    runs: &'a mut NormalRuns,
    data: &[u8],
    ty: DeclType,
    parity: usize,
    s: usize,
) -> &'a [TolerantRun] {
    runs.entry((ty.code(), parity, s)).or_insert_with(|| {
        let bm = bitmaps
            .entry((ty.code(), parity))
            .or_insert_with(|| UnitBitmap::build(data, ty, parity));
        tolerant_runs_by_offset(bm, s)
    })
}

/// The shared scan state of one data section: unit-normal bitmaps per (type, parity),
/// runs per (type, parity, stride) and gated candidates per (declaration, vertex count,
/// index count), computed on first use and reused by every unit (so thousands of
/// sub-mesh records or identical resources cost one candidate search each, not one per
/// record). A scanner is used with one [`GateConfig`].
pub struct Scanner<'d> {
    pub(super) data: &'d [u8],
    pub(super) bitmaps: NormalBitmaps,
    pub(super) runs: BTreeMap<RunsKey, Vec<(TolerantRun, Heads)>>,
    /// Tolerant runs per (normal type, byte parity, stride), whatever the normal offset.
    pub(super) runs_by_offset: NormalRuns,
    pub(super) located: HashMap<(Declaration, u32, u32), Rc<Located>>,
    /// Work left for the index-window search of resources without a NORMAL element
    /// (bytes scanned or checked; see [`NO_NORMAL_BUDGET`]).
    pub(super) budget: usize,
    /// Work left for the structural search of units with a NORMAL (`by_structure`),
    /// kept apart so it never spends the no-normal search's.
    pub(super) structural_budget: usize,
    /// Scratch bitset for counting referenced vertices.
    pub(super) seen: Seen,
    /// Which index windows end where ([`Windows`]), shared by every unit.
    pub(super) windows: Windows,
    /// Group maxima of the u16 values, for the no-normal search's index runs; built on
    /// first use.
    pub(super) maxima: Option<IndexMaxima>,
}

impl<'d> Scanner<'d> {
    pub fn new(data: &'d [u8]) -> Scanner<'d> {
        Scanner {
            data,
            bitmaps: BTreeMap::new(),
            runs: BTreeMap::new(),
            runs_by_offset: BTreeMap::new(),
            located: HashMap::new(),
            budget: NO_NORMAL_BUDGET.saturating_mul(data.len()).saturating_add(1 << 24),
            structural_budget: STRUCTURAL_BUDGET.saturating_mul(data.len()).saturating_add(1 << 24),
            seen: Seen::default(),
            windows: Windows::default(),
            maxima: None,
        }
    }

    /// Every gated candidate block of `unit` not overlapping `claimed`, by offset, and
    /// the gate failures of windows whose indices were plausible (offset, why), so a
    /// reject can name the real cause.
    pub(super) fn candidates(
        &mut self,
        unit: &Unit<'_>,
        claimed: &[Range<usize>],
        cfg: &GateConfig,
    ) -> Result<Located, Reason> {
        let all = self.cached(unit, cfg)?;
        Ok(Located {
            claims: all
                .claims
                .iter()
                .filter(|c| !claimed.iter().any(|r| overlaps(r, &c.range)))
                .cloned()
                .collect(),
            failures: all.failures.clone(),
        })
    }

    /// Every gated candidate block of `unit` (sorted by offset) and the failures, searched
    /// once per (declaration, counts).
    pub(super) fn cached(&mut self, unit: &Unit<'_>, cfg: &GateConfig) -> Result<Rc<Located>, Reason> {
        let key = (unit.decl.clone(), unit.vertex_count, unit.index_count);
        if let Some(c) = self.located.get(&key) {
            return Ok(c.clone());
        }
        let c = Rc::new(self.search(unit, cfg)?);
        self.located.insert(key, c.clone());
        Ok(c)
    }

    /// The unit-normal bitmaps and tolerant runs built so far (per normal type and byte
    /// parity, and per stride), for the multi-stream searches after the solver; the rest
    /// (the claimed blocks it caches) is dropped.
    pub fn into_normal_runs(self) -> (NormalBitmaps, NormalRuns) {
        (self.bitmaps, self.runs_by_offset)
    }

    /// The unit-normal bitmaps and runs lent out (to searches that run while the scanner
    /// is still needed), to be given back by [`Scanner::restore_normal_runs`].
    pub fn take_normal_runs(&mut self) -> (NormalBitmaps, NormalRuns) {
        (
            std::mem::take(&mut self.bitmaps),
            std::mem::take(&mut self.runs_by_offset),
        )
    }

    /// The bitmaps and runs of [`Scanner::take_normal_runs`] given back, with whatever
    /// the borrower added.
    pub fn restore_normal_runs(&mut self, (bitmaps, runs): (NormalBitmaps, NormalRuns)) {
        self.bitmaps = bitmaps;
        self.runs_by_offset = runs;
    }

    /// Every gated candidate block of `unit`, by offset, and the gate failures.
    pub(super) fn search(&mut self, unit: &Unit<'_>, cfg: &GateConfig) -> Result<Located, Reason> {
        let data = self.data;
        let Some(ne) = unit.map.normal else {
            return self.search_no_normal(unit, cfg);
        };
        let (no, s) = (ne.offset as usize, unit.decl.stride);
        let bm_key = (ne.ty.code(), no % 2);
        // Tolerant runs: a vertex buffer's run may be cut by a zero or off-unit normal
        // anywhere.
        let by_offset = normal_runs(&mut self.bitmaps, &mut self.runs_by_offset, data, ne.ty, no % 2, s);
        let rs = self
            .runs
            .entry((bm_key.0, bm_key.1, s, no))
            .or_insert_with(|| with_extra(by_offset, |_| Heads::new()));
        let (v, i) = (unit.vertex_count as usize, unit.index_count as usize);
        let mut found = Located::default();
        let mut pinned: Vec<Pinned> = Vec::new();
        // An end-aligned window covers the xyz of the run's slot before it whenever
        // `s − no ≤ 2I`; with FLOAT16_4 normals and `V ≤ HALF_UNIT_MIN_COMPONENT` that
        // slot holds an index `≥ V`, so the window cannot pass: skip it unread.
        // (An even normal offset keeps those halves on the window's u16 boundaries.)
        let end_aligned_hopeless = ne.ty == DeclType::Float16_4
            && unit.vertex_count <= HALF_UNIT_MIN_COMPONENT
            && no % 2 == 0
            && s.saturating_sub(no) <= 2 * i;
        let mut seen = std::mem::take(&mut self.seen);
        let windows = &mut self.windows;
        // A block's vertex run holds at least half of its V slots as unit normals (the
        // mean-|normal| gate asks for as much), so shorter runs are not looked at.
        let need = v.div_ceil(2).max(MIN_RUN_UNITS);
        for ((q0, l, _), heads) in rs.iter_mut().take_while(|r| r.0 .2 >= need) {
            let (q0, l) = (*q0, *l);
            let Some(p0) = q0.checked_sub(no) else { continue };
            // Start-aligned: the buffer holds the run, so it starts at one of the places
            // that keep the run inside its `V` slots: the run's first slot is vertex `k`
            // for some `k ≤ V − L` (the vertices before it are whatever they are: their
            // normals need not be unit, FORMAT.md §6), and at least the first
            // [`MAX_LEADING_NON_UNIT`] (a run may go on past the buffer's end into bytes
            // that read as unit normals). Each place is a claim where the `I` values
            // before it are indices `< V` (most fail at the value next to them).
            // An undecodable unit's declaration need not describe its bytes, so its run
            // says little about where its buffer starts: it keeps the run's start and up
            // to [`MAX_LEADING_NON_UNIT`] strides before it, up to the first valid window
            // (its claims at every run and window start come from `structural_claims`).
            let last = if unit.decodable {
                v.saturating_sub(l).max(MAX_LEADING_NON_UNIT)
            } else {
                MAX_LEADING_NON_UNIT
            };
            grow_heads(heads, data, q0, no, s, last);
            for (k, &(before, slot)) in heads[..=last].iter().enumerate() {
                let Some(p) = p0.checked_sub(k * s) else { break };
                if p < 2 * i {
                    break;
                }
                // A slot whose every u16 is an index `< V` is no vertex to walk over: the
                // walk has reached an index list (another block's, when the run is a smaller
                // block's), where every place reads as a window and none starts a buffer
                // holding the run. (A buffer opening with a vertex of zero position and
                // zero normal is not found past it.)
                if k > MAX_LEADING_NON_UNIT && (slot as u32) < unit.vertex_count {
                    break;
                }
                // (`valid`'s own first test, from the run's heads instead of the data.)
                if i >= PRECHECK && before as u32 >= unit.vertex_count {
                    continue;
                }
                if !windows.valid(data, p, i, unit.vertex_count) {
                    continue;
                }
                pinned.extend(pin(data, p, unit, cfg, &mut seen, &mut found.failures));
                if !unit.decodable {
                    break;
                }
            }
            // End-aligned: junk before the buffer may decode as unit normals too.
            if l > v && !end_aligned_hopeless {
                let p = q0 + (l - v) * s - no;
                if windows.valid(data, p, i, unit.vertex_count) {
                    pinned.extend(pin(data, p, unit, cfg, &mut seen, &mut found.failures));
                }
            }
        }
        self.seen = seen;
        let how = Rc::new(Reading {
            decl: unit.decl.clone(),
            map: unit.map.clone(),
            cfg: cfg.clone(),
        });
        pinned.sort_by_key(|c| c.pl.index_offset);
        pinned.dedup_by_key(|c| c.pl.index_offset);
        let mut claims: Vec<Claim> = pinned.into_iter().map(|c| c.into_claim(s, &how)).collect();
        // The structural search, unless the runs gave the unit a reading it could not
        // outrank (`settled`).
        if unit.decodable && !settled(data, &claims) {
            let mut more = Vec::new();
            let known: Vec<usize> = claims.iter().map(|c| c.range.start).collect();
            self.by_structure(unit, cfg, &known, &mut more, &mut found.failures)?;
            let more: Vec<Claim> = more.into_iter().map(|c| c.into_claim(s, &how)).collect();
            claims.extend(more);
            claims.sort_by_key(|c| c.range.start);
        }
        found.claims = claims;
        found.failures.sort_by_key(|f| f.0);
        Ok(found)
    }

    /// The structural search of `unit` (`by_structure::places`, for
    /// `V ≤ STRUCTURAL_MAX_V`), each place pinned like a run's ([`pin`]: its evidence),
    /// under the section's structural work budget: the maxima read, the places looked
    /// at (counted as they are looked at) and the bytes of pinned places. Running out
    /// rejects the unit (never a partial set of candidates).
    fn by_structure(
        &mut self,
        unit: &Unit<'_>,
        cfg: &GateConfig,
        known: &[usize],
        pinned: &mut Vec<Pinned>,
        failures: &mut Vec<(usize, Reason)>,
    ) -> Result<(), Reason> {
        let data = self.data;
        let Some(pe) = unit.map.position else { return Ok(()) };
        let (v, i, s) = (unit.vertex_count as usize, unit.index_count as usize, unit.decl.stride);
        if v < 3 || i < 3 || s == 0 || pe.offset as usize + pe.ty.size() > s || unit.vertex_count > STRUCTURAL_MAX_V {
            return Ok(());
        }
        let pass = self
            .maxima
            .get_or_insert_with(|| IndexMaxima::build(data))
            .pass_len(data, i);
        self.spend_structural(pass, unit)?;
        let maxima = self.maxima.as_ref().expect("built just above");
        let runs = maxima.runs(data, unit.vertex_count, i);
        let (found, looked) = places(data, maxima, &runs, unit, cfg, known, self.structural_budget);
        self.spend_structural(looked, unit)?;
        let mut seen = std::mem::take(&mut self.seen);
        let mut out = Ok(());
        for p in found {
            if let Err(e) = self.spend_structural(2 * i + v * s, unit) {
                out = Err(e);
                break;
            }
            pinned.extend(pin(data, p, unit, cfg, &mut seen, failures));
        }
        self.seen = seen;
        out
    }

    /// Take `n` units of work from the structural budget, or reject `unit` as out of
    /// budget.
    fn spend_structural(&mut self, n: usize, unit: &Unit<'_>) -> Result<(), Reason> {
        self.structural_budget = self.structural_budget.checked_sub(n).ok_or_else(|| {
            Reason::new(
                Code::AnchorOutOfBudget,
                format!(
                    "gave up: the structural search budget of this data section \
                     ({STRUCTURAL_BUDGET}× its size) ran out before {} vertices / {} indices were searched",
                    unit.vertex_count, unit.index_count
                ),
            )
        })?;
        Ok(())
    }

    /// Pinning without a NORMAL element (§6 anchors on normals; these resources have
    /// none): every index window of `I` u16 indices `< V` that starts with a real triangle
    /// and cannot be extended backwards by one, immediately followed by `V` vertices whose
    /// every declared element is plausible ([`plausible_vertices`]) and which the window
    /// references *all* of; then the hard gates. The windows come from the maximal runs of
    /// u16 values `< V` (one O(file) pass per distinct (V, I)); each window costs O(1)
    /// until it passes the cheap checks, and the whole search of a data section is bounded
    /// by a work budget — running out rejects the unit (never a partial answer).
    pub(super) fn search_no_normal(&mut self, unit: &Unit<'_>, cfg: &GateConfig) -> Result<Located, Reason> {
        let data = self.data;
        let no_element = |why: &str| {
            Reason::new(
                Code::NoAnchorElement,
                format!("no NORMAL element to anchor on and no stored offset; {why}"),
            )
        };
        let pe = unit
            .map
            .position
            .ok_or_else(|| no_element("no POSITION element either"))?;
        let (v, i, s) = (unit.vertex_count as usize, unit.index_count as usize, unit.decl.stride);
        if !(3..=1 << 16).contains(&v) || i < v || s == 0 || pe.offset as usize + pe.ty.size() > s {
            return Err(no_element(&format!(
                "{i} u16 indices cannot reference all {v} vertices (stride {s})"
            )));
        }
        self.spend(data.len(), unit)?;
        let runs = self
            .maxima
            .get_or_insert_with(|| IndexMaxima::build(data))
            .runs(data, unit.vertex_count, i);
        let mut found = Located::default();
        let mut seen = Seen::default();
        let idx = |k: usize| u16::from_be_bytes([data[2 * k], data[2 * k + 1]]) as u32;
        for (a, len) in runs {
            for w in a..=a + len - i {
                let (t0, t1, t2) = (idx(w), idx(w + 1), idx(w + 2));
                if t0 == t1 || t1 == t2 || t0 == t2 {
                    continue;
                }
                let p = 2 * (w + i);
                if p + v * s > data.len() {
                    break; // every later window of this run ends past the data too
                }
                if !opens_block(data, a, w, p, &pe, unit, cfg) {
                    continue;
                }
                self.spend(2 * i + v * s, unit)?;
                let verdict =
                    references_all(data, w, i, v, &mut seen).and_then(|()| plausible_vertices(data, p, unit, cfg));
                let pl = Placement {
                    index_offset: 2 * w,
                    index_count: unit.index_count,
                    vertex_offset: p,
                    vertex_count: unit.vertex_count,
                };
                match verdict.and_then(|()| decode_block(data, pl, unit.decl, unit.map, cfg)) {
                    Ok(d) => {
                        if found.claims.len() >= MAX_CANDIDATES {
                            return Err(Reason::new(
                                Code::AnchorOutOfBudget,
                                format!("gave up: more than {MAX_CANDIDATES} blocks validate"),
                            ));
                        }
                        // Its window starts with a real triangle and cannot be extended
                        // backwards (both checked above): the strongest kind of claim.
                        found.claims.push(Claim {
                            range: pl.range(s),
                            block: Block::gated(d),
                            strength: 3,
                            preceding: 0,
                            stray: 0,
                            unit_normals: 0,
                        })
                    }
                    Err(why) if found.failures.len() < MAX_CANDIDATES => found.failures.push((2 * w, why)),
                    Err(_) => {}
                }
            }
        }
        found.claims.sort_by_key(|c| c.range.start);
        found.claims.dedup_by_key(|c| c.range.clone());
        found.failures.sort_by_key(|f| f.0);
        Ok(found)
    }

    /// Take `n` units of work from the no-normal budget, or reject `unit`.
    pub(super) fn spend(&mut self, n: usize, unit: &Unit<'_>) -> Result<(), Reason> {
        self.budget = self.budget.checked_sub(n).ok_or_else(|| {
            Reason::new(
                Code::NoAnchorElement,
                format!(
                    "no NORMAL element; the index-window search budget of this data section \
                     ({NO_NORMAL_BUDGET}× its size) ran out before {} vertices / {} indices were searched",
                    unit.vertex_count, unit.index_count
                ),
            )
        })?;
        Ok(())
    }
}

/// The no-normal search's cheap checks of the window at u16 `w` of the index run that
/// starts at u16 `a` (its first triangle already three distinct indices), before the
/// vertices at `p`: the window is no suffix of a longer list (the triangle before it, in
/// the run, is distinct or has no area), its first triangle is real (plausible positions
/// with area) and the first and last vertices' positions are plausible.
fn opens_block(data: &[u8], a: usize, w: usize, p: usize, pe: &Element, unit: &Unit<'_>, cfg: &GateConfig) -> bool {
    let s = unit.decl.stride;
    let idx = |k: usize| u16::from_be_bytes([data[2 * k], data[2 * k + 1]]) as u32;
    let pos = |k: u32| element3(data, p, s, pe, k);
    let real = |t: [u32; 3]| {
        let ps = t.map(pos);
        ps.iter().all(|c| plausible_position(*c, cfg.max_abs_coordinate)) && has_area(ps)
    };
    // The suffix of a longer index buffer (or a window inside one).
    if w >= a + 3 {
        let b = [idx(w - 3), idx(w - 2), idx(w - 1)];
        if b[0] != b[1] && b[1] != b[2] && b[0] != b[2] && has_area(b.map(pos)) {
            return false;
        }
    }
    real([idx(w), idx(w + 1), idx(w + 2)])
        && plausible_position(pos(0), cfg.max_abs_coordinate)
        && plausible_position(pos(unit.vertex_count - 1), cfg.max_abs_coordinate)
}

/// Does the window of `i` u16 values at u16 `w` reference all `v` vertices (`seen`:
/// scratch)? A NORMAL-less block must.
fn references_all(data: &[u8], w: usize, i: usize, v: usize, seen: &mut Seen) -> Result<(), Reason> {
    let referenced = referenced(data, 2 * w, i, v, seen);
    if referenced < v {
        Err(Reason::new(
            Code::VerticesUnreferenced,
            format!("{referenced} of {v} vertices referenced (all required without a NORMAL)"),
        ))
    } else {
        Ok(())
    }
}

/// The work budget of the no-normal search, in multiples of the data section's size
/// (plus 16 MiB): passes over the data and bytes of fully checked windows count.
pub const NO_NORMAL_BUDGET: usize = 24;

/// The work budget of the structural search ([`Scanner::by_structure`]), in multiples of
/// the data section's size (plus 16 MiB): passes over the group maxima and bytes of
/// pinned places count.
pub const STRUCTURAL_BUDGET: usize = 8;

/// Largest vertex count the structural search looks for: u16 values below it exclude
/// the high half of every negative f32 and of every f32 of magnitude ≥ 2^-14, and every
/// FLOAT16 component of magnitude ≥ 0.5762 ([`HALF_UNIT_MIN_COMPONENT`]), so a window
/// of them cannot lie over vertex data and its places are few; above it almost every
/// place of a vertex buffer reads as a window.
pub const STRUCTURAL_MAX_V: u32 = HALF_UNIT_MIN_COMPONENT;

/// Largest |texture coordinate| accepted for a block found without a NORMAL element
/// (UVs are in [0, 1], tiled a few times at most; misaligned halves are mostly far out).
pub(super) const MAX_ABS_TEXCOORD: f32 = 1024.0;

/// Every vertex's position plausible ([`plausible_position`]) and every texture
/// coordinate finite and within [`MAX_ABS_TEXCOORD`]. (Colours, blend weights and other
/// elements decode to something for any bytes: nothing to check.)
pub(super) fn plausible_vertices(data: &[u8], p: usize, unit: &Unit<'_>, cfg: &GateConfig) -> Result<(), Reason> {
    let s = unit.decl.stride;
    let elem = |e: &Element, k: usize| {
        let at = p + k * s + e.offset as usize;
        data.get(at..at + e.ty.size()).map(|b| e.ty.decode(b))
    };
    for k in 0..unit.vertex_count as usize {
        if let Some(pe) = &unit.map.position {
            match elem(pe, k) {
                Some(c) if plausible_position([c[0], c[1], c[2]], cfg.max_abs_coordinate) => {}
                _ => {
                    return Err(Reason::new(
                        Code::PositionOutOfBounds,
                        format!("vertex {k}: position is not plausible geometry"),
                    ))
                }
            }
        }
        for te in &unit.map.texcoords {
            let n = te.ty.components().min(2);
            match elem(te, k) {
                Some(c) if c[..n].iter().all(|x| x.is_finite() && x.abs() <= MAX_ABS_TEXCOORD) => {}
                _ => {
                    return Err(Reason::new(
                        Code::InvalidAttribute,
                        format!("vertex {k}: texture coordinate beyond ±{MAX_ABS_TEXCOORD}"),
                    ))
                }
            }
        }
    }
    Ok(())
}
