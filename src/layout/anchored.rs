//! Content anchoring (FORMAT.md §6): placing blocks whose offset is not stored.
//!
//! Owns the engine used for stage resources, later model sub-meshes and bodies:
//! 1. **Unit-normal bitmap** per (normal type, byte parity), one O(file) pass.
//! 2. **Runs** per stride: maximal chains of unit normals `stride` apart; a block's vertex
//!    buffer is a run, or the start or the end of one (junk before or after it may
//!    decode as a unit vector by chance), so each run of length `L ≥ V` gives a
//!    start-aligned and an end-aligned candidate.
//! 3. **Pinning**: the `I` u16 indices just before a candidate must be `< V`, start with
//!    a real triangle, and the decoded block must pass every hard gate.
//! 4. **Without a NORMAL element** (instead of 1–3, [`Scanner`]'s no-normal search): the
//!    windows come from the maximal runs of u16 values `< V` ([`index_runs`]); a window
//!    must start with a real triangle, not extend backwards by one, reference all `V`
//!    vertices and be followed by `V` plausible vertices (finite, bounded, not-tiny
//!    positions; sane texture coordinates), then pass every hard gate. Bounded by a
//!    work budget per data section ([`NO_NORMAL_BUDGET`]).
//! 5. **Global resolution**, both kinds of candidates together: one block, one owner. A
//!    candidate whose run goes on past `V` slots is used only when no exact-end candidate
//!    exists; a unit with a single candidate evicts conflicting candidates of others; a
//!    window that extends backwards by a valid triangle (the suffix of a longer index
//!    buffer) loses to one that does not, and to the longer window of any other
//!    resource's counts, readable or not ([`drop_suffix_windows`]); byte-identical blocks may be shared by
//!    duplicates; anything still open is `ambiguous_anchor`, never a guess.

use super::{decode_block, gate_block, read_block, Decoded, Placement};
use crate::decl::{is_unit_normal, unit_tolerance, DeclType, Declaration};
use crate::gates::{degenerate, GateConfig};
use crate::mesh::Mesh;
use crate::reason::{Code, Reason};
use crate::vertex::AttributeMap;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use std::rc::Rc;

/// Most candidate blocks one unit may keep for global resolution; more is
/// `ambiguous_anchor` (a real disc has a handful; a hostile file could otherwise make
/// every one of thousands of resources hold thousands of candidates).
pub const MAX_CANDIDATES: usize = 512;

/// One thing to place: a resource's block, or one sub-mesh record's block.
#[derive(Clone, Copy, Debug)]
pub struct Unit<'a> {
    pub decl: &'a Declaration,
    pub map: &'a AttributeMap,
    pub vertex_count: u32,
    pub index_count: u32,
}

/// A bitmap of "unit normal decodes here" over offsets `2k + parity`.
pub struct UnitBitmap {
    parity: usize,
    bits: Vec<u64>,
    len: usize,
}

impl UnitBitmap {
    /// One pass over `data`.
    pub fn build(data: &[u8], ty: DeclType, parity: usize) -> UnitBitmap {
        let size = ty.size();
        let tol = unit_tolerance(ty);
        let n = if data.len() >= size + parity {
            (data.len() - size - parity) / 2 + 1
        } else {
            0
        };
        let mut bits = vec![0u64; n.div_ceil(64)];
        if matches!(ty, DeclType::Float16_4) {
            Self::fill_half3(data, parity, n, tol, &mut bits);
        } else {
            Self::fill(&mut bits, n, |k| {
                let q = 2 * k + parity;
                is_unit_normal(ty, &data[q..q + size], tol)
            });
        }
        UnitBitmap { parity, bits, len: n }
    }

    fn fill(bits: &mut [u64], n: usize, mut unit: impl FnMut(usize) -> bool) {
        for (w, word) in bits.iter_mut().enumerate() {
            let lo = w * 64;
            let mut acc = 0u64;
            for k in lo..(lo + 64).min(n) {
                acc |= (unit(k) as u64) << (k - lo);
            }
            *word = acc;
        }
    }

    /// The hot case (FLOAT16_4 normals): one 64-bit word of the bitmap (64 offsets) at a
    /// time, the squares of its 66 halves computed branch-free from the bits
    /// ([`half_square`]) into a small buffer, then three adds and a compare per offset —
    /// all of which the compiler vectorises (a 256 KiB table of squares, the previous
    /// method, spent its time in cache misses). Same answer as `is_unit_normal` (tested),
    /// from the same decoded components.
    fn fill_half3(data: &[u8], parity: usize, n: usize, tol: f32, bits: &mut [u64]) {
        let (lo2, hi2) = ((1.0 - tol).powi(2), (1.0 + tol).powi(2));
        let mut squares = [0f32; 66];
        let mut unit = [0u8; 64];
        for (w, word) in bits.iter_mut().enumerate() {
            let lo = w * 64;
            let cnt = (n - lo).min(64);
            // Halves at byte offsets 2k + parity for k in lo..lo+cnt+2 (x, y, z of each).
            let base = 2 * lo + parity;
            match data.get(base..base + 132).and_then(|b| <&[u8; 132]>::try_from(b).ok()) {
                // The whole file but its last word: fixed-size, branch-free, vectorised.
                Some(b) => {
                    for (j, slot) in squares.iter_mut().enumerate() {
                        *slot = half_square(u16::from_be_bytes([b[2 * j], b[2 * j + 1]]));
                    }
                }
                None => {
                    for (j, slot) in squares.iter_mut().enumerate() {
                        let q = base + 2 * j;
                        *slot = match data.get(q..q + 2) {
                            Some(b) => half_square(u16::from_be_bytes([b[0], b[1]])),
                            None => f32::INFINITY,
                        };
                    }
                }
            }
            for j in 0..64 {
                let v = squares[j] + squares[j + 1] + squares[j + 2];
                unit[j] = (v >= lo2 && v <= hi2) as u8;
            }
            *word = pack_bits(&unit) & (u64::MAX >> (64 - cnt));
        }
    }

    /// Is the normal at byte offset `q` unit? (false outside the data or on the other parity)
    #[inline]
    pub fn get(&self, q: usize) -> bool {
        if q % 2 != self.parity {
            return false;
        }
        let k = q / 2;
        k < self.len && self.bits[k / 64] >> (k % 64) & 1 == 1
    }

    /// Set offsets, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(move |(w, &word)| {
            let mut x = word;
            std::iter::from_fn(move || {
                if x == 0 {
                    return None;
                }
                let b = x.trailing_zeros() as usize;
                x &= x - 1;
                Some(2 * (w * 64 + b) + self.parity)
            })
        })
    }
}

/// 64 flags (0 or 1) → one bitmap word, flag `j` → bit `j`: eight flags at a time as a
/// u64 whose multiplication by `0x0102_0408_1020_4080` gathers their low bits into the
/// top byte (no carries: each product bit comes from exactly one flag).
#[inline(always)]
fn pack_bits(flags: &[u8; 64]) -> u64 {
    let mut out = 0u64;
    for (g, c) in flags.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        out |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * g);
    }
    out
}

/// The square of a Xenos half, branch-free: `xenos_half_to_f32_fast` without the sign
/// (which a square does not need), so the same value `is_unit_normal` squares.
#[inline(always)]
fn half_square(h: u16) -> f32 {
    let em = (h & 0x7FFF) as u32;
    let normal = f32::from_bits((em << 13) + (112 << 23));
    let sub = em as f32 * (1.0 / 16_777_216.0);
    let m = if em >= 0x0400 { normal } else { sub };
    m * m
}

/// Maximal runs `(first normal offset, length)` with stride `s`, length ≥ `min_len`.
pub fn runs(bm: &UnitBitmap, s: usize, min_len: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for q in bm.iter() {
        if q >= s && bm.get(q - s) {
            continue;
        }
        let mut l = 1;
        while bm.get(q + l * s) {
            l += 1;
        }
        if l >= min_len {
            out.push((q, l));
        }
    }
    out
}

/// Most consecutive non-unit slots a tolerant run ([`tolerant_runs`]) bridges: a few
/// zero or off-unit normals inside a vertex buffer do not cut it.
pub const MAX_RUN_GAP: usize = 3;

/// `(start offset, slots spanned, unit slots)` of a tolerant run.
pub type TolerantRun = (usize, usize, usize);

/// Tolerant runs at stride `s`: from every start of a maximal run of unit normals (the
/// slot one stride before is not unit), the chain of unit-normal slots at most
/// `MAX_RUN_GAP` non-unit slots apart, as `(start, slots spanned, unit slots)`, most
/// unit slots first (then by offset). Slots of a buffer at another stride fall apart
/// into single slots here, so a unit of stride `s` looks at real runs only.
///
/// A chain is a function of the slot it has reached, so a chain that reaches a later
/// start goes on as that start's chain: starts are walked from the last, each only up to
/// the next start it meets (linear in the bitmap; chains bridging gaps used to be walked
/// once per start inside them, quadratic on buffers whose normals are often off-unit).
pub fn tolerant_runs(bm: &UnitBitmap, s: usize) -> Vec<TolerantRun> {
    let step = MAX_RUN_GAP + 1;
    let starts: Vec<usize> = bm.iter().filter(|&q| !(q >= s && bm.get(q - s))).collect();
    // Per start (same order as `starts`): the chain's last slot and its unit slots.
    let mut chain: Vec<(usize, usize)> = vec![(0, 0); starts.len()];
    for k in (0..starts.len()).rev() {
        let q = starts[k];
        let (mut cur, mut units) = (q, 1usize);
        while let Some(j) = (1..=step).find(|&j| bm.get(cur + j * s)) {
            cur += j * s;
            if let Ok(x) = starts[k + 1..].binary_search(&cur) {
                let (end, more) = chain[k + 1 + x];
                (cur, units) = (end, units + more);
                break;
            }
            units += 1;
        }
        chain[k] = (cur, units);
    }
    let mut out: Vec<TolerantRun> = starts
        .iter()
        .zip(&chain)
        .map(|(&q, &(cur, units))| (q, (cur - q) / s + 1, units))
        .collect();
    out.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    out
}

/// A claim: a place where the unit's block can be, by structure (an index window of
/// `I` values `< V` that references at least [`CLAIM_MIN_REFERENCED`] of the `V`
/// vertices, before a vertex run), whether or not the block there passes the gates.
/// A claim that fails the gates still owns its bytes: a block belongs to its owner
/// whether or not the owner decodes (FORMAT.md §6).
#[derive(Clone, Debug)]
struct Cand {
    range: Range<usize>,
    /// The gated block, or why the block here fails the gates. Shared: the same block is
    /// a claim of every unit with the same counts.
    result: Result<Rc<Decoded>, Reason>,
    /// How much the window looks like the start of a real index buffer:
    /// 2 × (cannot be extended backwards by a real triangle) + (starts with a real
    /// triangle). A preference, not a proof (FORMAT.md §6).
    strength: u8,
    /// Vertices whose declared normal decodes to a unit vector (0 without a NORMAL).
    unit_normals: u32,
}

impl Cand {
    fn ok(&self) -> Option<&Decoded> {
        self.result.as_ref().ok().map(|d| d.as_ref())
    }
}

/// Vertex-buffer starts tried before a run start, one stride each: the first normals of
/// a real buffer may be zero or off-unit (FORMAT.md does not promise unit normals).
pub const MAX_LEADING_NON_UNIT: usize = 2;

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// Same counts, same declaration, same bytes: a duplicate may share or mirror it.
fn identical(data: &[u8], a: &Range<usize>, b: &Range<usize>, ua: &Unit, ub: &Unit) -> bool {
    ua.vertex_count == ub.vertex_count
        && ua.index_count == ub.index_count
        && ua.decl == ub.decl
        && data[a.clone()] == data[b.clone()]
}

/// Can the window starting at `w` be extended backwards by a valid, real triangle?
fn extendable(data: &[u8], w: usize, m: &Mesh) -> bool {
    if w < 6 {
        return false;
    }
    let t: Vec<u32> = data[w - 6..w]
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
        .collect();
    let v = m.positions.len() as u32;
    t.iter().all(|&i| i < v) && !degenerate(m, [t[0], t[1], t[2]])
}

/// The claim strength of a block read at window `w` (see [`Cand::strength`]).
fn strength(data: &[u8], w: usize, m: &Mesh) -> u8 {
    let real_start = m.indices.len() >= 3 && !degenerate(m, [m.indices[0], m.indices[1], m.indices[2]]);
    2 * u8::from(!extendable(data, w, m)) + u8::from(real_start)
}

/// Cheap index pre-check straight from the bytes (no allocation): every value `< v`,
/// from the end, next to the vertex run already looked at (a window over another
/// block's index tail or over vertex data usually fails within a few values there).
fn window_valid(data: &[u8], w: usize, i: usize, v: u32) -> bool {
    i >= 3
        && data[w..w + 2 * i]
            .chunks_exact(2)
            .rev()
            .all(|c| (u16::from_be_bytes([c[0], c[1]]) as u32) < v)
}

/// The u16 values just before one place `p`, as the running maximum read backwards from
/// `p`: breakpoints `(length, max)` where the maximum of the last `length` values first
/// reaches `max`. "Are the `I` values before `p` all `< V`" is then a binary search, for
/// every unit at once: the windows of all units end at the same few thousand run starts,
/// and most of those are real blocks whose index list a unit with a larger `V` would
/// otherwise read to its end once per unit.
struct BackMax {
    /// The walk stopped at the first maximum `≥ bound` (or at the data start).
    bound: u32,
    /// The walk reached the data start: every value before `p` is covered.
    complete: bool,
    steps: Vec<(u32, u16)>,
}

impl BackMax {
    fn walk(data: &[u8], p: usize, bound: u32) -> BackMax {
        let mut steps: Vec<(u32, u16)> = Vec::new();
        let mut k = 0usize;
        while 2 * (k + 1) <= p {
            k += 1;
            let x = u16::from_be_bytes([data[p - 2 * k], data[p - 2 * k + 1]]);
            if steps.last().is_none_or(|&(_, m)| x > m) {
                steps.push((k as u32, x));
                if x as u32 >= bound {
                    return BackMax {
                        bound,
                        complete: false,
                        steps,
                    };
                }
            }
        }
        BackMax {
            bound,
            complete: true,
            steps,
        }
    }

    /// How many values just before `p` are all `< v` (only when `v ≤ bound` or the walk
    /// is complete).
    fn valid_len(&self, p: usize) -> impl Fn(u32) -> usize + '_ {
        move |v| {
            let k = self.steps.partition_point(|&(_, m)| (m as u32) < v);
            match self.steps.get(k) {
                Some(&(len, _)) => len as usize - 1,
                None => p / 2,
            }
        }
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

/// [`BackMax`] per place, computed on first use.
#[derive(Default)]
struct Windows {
    at: HashMap<usize, BackMax, std::hash::BuildHasherDefault<OffsetHasher>>,
    /// The largest vertex count asked about so far (walks stop there).
    bound: u32,
}

impl Windows {
    /// Are the `i` u16 values just before `p` all `< v` (and `i ≥ 3`)?
    fn valid(&mut self, data: &[u8], p: usize, i: usize, v: u32) -> bool {
        if i < 3 || 2 * i > p {
            return false;
        }
        // Most places fail at the value next to them: no lookup for those.
        if u16::from_be_bytes([data[p - 2], data[p - 1]]) as u32 >= v {
            return false;
        }
        self.bound = self.bound.max(v);
        let bound = self.bound;
        let b = self.at.entry(p).or_insert_with(|| BackMax::walk(data, p, bound));
        if !b.complete && b.bound < v {
            *b = BackMax::walk(data, p, bound);
        }
        b.valid_len(p)(v) >= i
    }
}

/// How many distinct values `< v` the `i` u16 values at `w` reference (`seen`: scratch).
fn referenced(data: &[u8], w: usize, i: usize, v: usize, seen: &mut Vec<u64>) -> usize {
    seen.clear();
    seen.resize(v.div_ceil(64), 0);
    for c in data[w..w + 2 * i].chunks_exact(2) {
        let x = u16::from_be_bytes([c[0], c[1]]) as usize;
        seen[x / 64] |= 1 << (x % 64);
    }
    seen.iter().map(|x| x.count_ones() as usize).sum()
}

/// The unit's claim on a vertex buffer starting at `p` (its window: the `I` u16 values
/// just before, which the caller has checked are all `< V`): `None` unless the window references at least the
/// gates' `min_referenced_fraction` of the vertices (a block that fails another gate is
/// still its owner's) and the block lies inside the data. A window whose
/// indices are valid but which is no claim is recorded in `failures`.
fn claim(
    data: &[u8],
    p: usize,
    unit: &Unit<'_>,
    cfg: &GateConfig,
    seen: &mut Vec<u64>,
    failures: &mut Vec<(usize, Reason)>,
) -> Option<Cand> {
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
    let mesh = match read_block(data, pl, unit.decl, unit.map) {
        Ok(m) => m,
        Err(why) => {
            if failures.len() < MAX_CANDIDATES {
                failures.push((w, why));
            }
            return None;
        }
    };
    let strength = strength(data, w, &mesh);
    let unit_normals = match (&mesh.normals, unit.map.normal) {
        (Some(ns), Some(e)) => {
            let tol = unit_tolerance(e.ty) as f64;
            ns.iter()
                .filter(|n| {
                    let l = (n[0] as f64).hypot(n[1] as f64).hypot(n[2] as f64);
                    (l - 1.0).abs() <= tol
                })
                .count() as u32
        }
        _ => 0,
    };
    Some(Cand {
        range: pl.range(unit.decl.stride),
        result: gate_block(pl, mesh, cfg).map(Rc::new),
        strength,
        unit_normals,
    })
}

/// Of two overlapping claims of one unit (the same bytes read at two alignments: a
/// stride or a few bytes apart), the one with fewer unit normals is a misreading of the
/// other (at the true alignment the stored normals are unit, FORMAT.md §6) and goes; a
/// tie keeps both. `cands` sorted by start.
fn prune_misaligned(cands: &mut Vec<Cand>) {
    let mut drop = vec![false; cands.len()];
    for a in 0..cands.len() {
        for b in a + 1..cands.len() {
            if cands[b].range.start >= cands[a].range.end {
                break;
            }
            let (na, nb) = (cands[a].unit_normals, cands[b].unit_normals);
            if na > nb {
                drop[b] = true;
            } else if nb > na {
                drop[a] = true;
            }
        }
    }
    let mut k = 0;
    cands.retain(|_| {
        k += 1;
        !drop[k - 1]
    });
}

/// Between two equally strong claims on the same index window (same offset, same
/// count) of units that both have normals, so differing only in the vertex count: the
/// one with fewer vertices whose normal is not unit, if they differ (`Some(true)`: `a`).
/// A block read with too many vertices takes in slots after it that are no vertices
/// (their normals are not unit); the owner's reading does not.
fn fewer_non_unit(a: &Cand, ua: &Unit<'_>, b: &Cand, ub: &Unit<'_>) -> Option<bool> {
    if ua.map.normal.is_none()
        || ub.map.normal.is_none()
        || a.range.start != b.range.start
        || ua.index_count != ub.index_count
    {
        return None;
    }
    let na = ua.vertex_count.saturating_sub(a.unit_normals);
    let nb = ub.vertex_count.saturating_sub(b.unit_normals);
    (na != nb).then_some(na < nb)
}

/// No FLOAT16_4 unit normal has all of x, y, z below this as u16 values: `|n| ≥ 1 − 2e-3`
/// (its tolerance) needs a component of magnitude ≥ 0.998/√3 ≈ 0.576195, and the half
/// 0x389C is 0.576172, too small (tested), so that component's bits are ≥ 0x389D, or
/// ≥ 0x8000 when negative. Hence u16 indices `< V ≤ 0x389C` never cover a whole
/// unit-normal xyz.
const HALF_UNIT_MIN_COMPONENT: u32 = 0x389C;

/// The shared scan state of one data section: unit-normal bitmaps per (type, parity),
/// runs per (type, parity, stride) and gated candidates per (declaration, vertex count,
/// index count), computed on first use and reused by every unit (so thousands of
/// sub-mesh records or identical resources cost one candidate search each, not one per
/// record). A scanner is used with one [`GateConfig`].
pub struct Scanner<'d> {
    data: &'d [u8],
    bitmaps: BTreeMap<(u32, usize), UnitBitmap>,
    runs: BTreeMap<(u32, usize, usize), Vec<TolerantRun>>,
    cands: HashMap<(Declaration, u32, u32), Rc<Found>>,
    /// Work left for the index-window search of resources without a NORMAL element
    /// (bytes scanned or checked; see [`NO_NORMAL_BUDGET`]).
    budget: usize,
    /// Scratch bitset for counting referenced vertices.
    seen: Vec<u64>,
    /// Which index windows end where ([`Windows`]), shared by every unit.
    windows: Windows,
}

impl<'d> Scanner<'d> {
    pub fn new(data: &'d [u8]) -> Scanner<'d> {
        Scanner {
            data,
            bitmaps: BTreeMap::new(),
            runs: BTreeMap::new(),
            cands: HashMap::new(),
            budget: NO_NORMAL_BUDGET.saturating_mul(data.len()).saturating_add(1 << 24),
            seen: Vec::new(),
            windows: Windows::default(),
        }
    }

    /// Every gated candidate block of `unit` not overlapping `claimed`, by offset, and
    /// the gate failures of windows whose indices were plausible (offset, why), so a
    /// reject can name the real cause.
    fn candidates(&mut self, unit: &Unit<'_>, claimed: &[Range<usize>], cfg: &GateConfig) -> Result<Found, Reason> {
        let all = self.cached(unit, cfg)?;
        Ok(Found {
            cands: all
                .cands
                .iter()
                .filter(|c| !claimed.iter().any(|r| overlaps(r, &c.range)))
                .cloned()
                .collect(),
            failures: all.failures.clone(),
        })
    }

    /// Every gated candidate block of `unit` (sorted by offset) and the failures, searched
    /// once per (declaration, counts).
    fn cached(&mut self, unit: &Unit<'_>, cfg: &GateConfig) -> Result<Rc<Found>, Reason> {
        let key = (unit.decl.clone(), unit.vertex_count, unit.index_count);
        if let Some(c) = self.cands.get(&key) {
            return Ok(c.clone());
        }
        let c = Rc::new(self.search(unit, cfg)?);
        self.cands.insert(key, c.clone());
        Ok(c)
    }

    /// Every gated candidate block of `unit`, by offset, and the gate failures.
    fn search(&mut self, unit: &Unit<'_>, cfg: &GateConfig) -> Result<Found, Reason> {
        let data = self.data;
        let Some(ne) = unit.map.normal else {
            return self.search_no_normal(unit, cfg);
        };
        let (no, s) = (ne.offset as usize, unit.decl.stride);
        let bm_key = (ne.ty.code(), no % 2);
        let bm = self
            .bitmaps
            .entry(bm_key)
            .or_insert_with(|| UnitBitmap::build(data, ne.ty, no % 2));
        let rs = self.runs.entry((bm_key.0, bm_key.1, s)).or_insert_with(|| {
            // Tolerant runs: a vertex buffer's run may be cut by a zero or off-unit
            // normal anywhere.
            tolerant_runs(bm, s)
        });
        let (v, i) = (unit.vertex_count as usize, unit.index_count as usize);
        let mut found = Found::default();
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
        let need = v.div_ceil(2).max(2);
        for &(q0, l, _) in rs.iter().take_while(|r| r.2 >= need) {
            let Some(p0) = q0.checked_sub(no) else { continue };
            // Start-aligned: the run's first unit normal is vertex 0, or one of the first
            // few vertices when the ones before it are not unit. A place one stride
            // earlier is tried only when the bytes before this one are no index window
            // of the unit (then they may be a vertex whose normal is not unit); where
            // they are indices, the buffer starts here, and an earlier place would read
            // a window shifted into them. (The same place found twice is deduplicated
            // below; only valid windows, which are rare, cost more than a few reads.)
            let mut p = p0;
            for k in 0..=MAX_LEADING_NON_UNIT {
                if k > 0 {
                    let Some(q) = p.checked_sub(s) else { break };
                    p = q;
                }
                if p < 2 * i {
                    break;
                }
                if !windows.valid(data, p, i, unit.vertex_count) {
                    continue;
                }
                if let Some(c) = claim(data, p, unit, cfg, &mut seen, &mut found.failures) {
                    found.cands.push(c);
                }
                break;
            }
            // End-aligned: junk before the buffer may decode as unit normals too.
            if l > v && !end_aligned_hopeless {
                let p = q0 + (l - v) * s - no;
                if windows.valid(data, p, i, unit.vertex_count) {
                    if let Some(c) = claim(data, p, unit, cfg, &mut seen, &mut found.failures) {
                        found.cands.push(c);
                    }
                }
            }
        }
        self.seen = seen;
        found.cands.sort_by_key(|c| c.range.start);
        found.cands.dedup_by_key(|c| c.range.clone());
        prune_misaligned(&mut found.cands);
        found.failures.sort_by_key(|f| f.0);
        Ok(found)
    }

    /// Pinning without a NORMAL element (§6 anchors on normals; these resources have
    /// none): every index window of `I` u16 indices `< V` that starts with a real triangle
    /// and cannot be extended backwards by one, immediately followed by `V` vertices whose
    /// every declared element is plausible ([`plausible_vertices`]) and which the window
    /// references *all* of; then the hard gates. The windows come from the maximal runs of
    /// u16 values `< V` (one O(file) pass per distinct (V, I)); each window costs O(1)
    /// until it passes the cheap checks, and the whole search of a data section is bounded
    /// by a work budget — running out rejects the unit (never a partial answer).
    fn search_no_normal(&mut self, unit: &Unit<'_>, cfg: &GateConfig) -> Result<Found, Reason> {
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
        let runs = index_runs(data, unit.vertex_count, i);
        let mut found = Found::default();
        let mut seen = vec![0u64; v.div_ceil(64)];
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
                let pos = |k: u32| -> [f32; 3] {
                    let at = p + k as usize * s + pe.offset as usize;
                    let c = pe.ty.decode(&data[at..at + pe.ty.size()]);
                    [c[0], c[1], c[2]]
                };
                let real = |t: [u32; 3]| {
                    let ps = t.map(pos);
                    ps.iter().all(|c| plausible_position(*c, cfg.max_abs_coordinate)) && has_area(ps)
                };
                // The suffix of a longer index buffer (or a window inside one).
                if w >= a + 3 {
                    let b = [idx(w - 3), idx(w - 2), idx(w - 1)];
                    if b[0] != b[1] && b[1] != b[2] && b[0] != b[2] && has_area(b.map(pos)) {
                        continue;
                    }
                }
                if !real([t0, t1, t2])
                    || !plausible_position(pos(0), cfg.max_abs_coordinate)
                    || !plausible_position(pos(unit.vertex_count - 1), cfg.max_abs_coordinate)
                {
                    continue;
                }
                self.spend(2 * i + v * s, unit)?;
                seen.iter_mut().for_each(|x| *x = 0);
                for k in w..w + i {
                    let x = idx(k) as usize;
                    seen[x / 64] |= 1 << (x % 64);
                }
                let referenced: usize = seen.iter().map(|x| x.count_ones() as usize).sum();
                let verdict = if referenced < v {
                    Err(Reason::new(
                        Code::VerticesUnreferenced,
                        format!("{referenced} of {v} vertices referenced (all required without a NORMAL)"),
                    ))
                } else {
                    plausible_vertices(data, p, unit, cfg)
                };
                let pl = Placement {
                    index_offset: 2 * w,
                    index_count: unit.index_count,
                    vertex_offset: p,
                    vertex_count: unit.vertex_count,
                };
                match verdict.and_then(|()| decode_block(data, pl, unit.decl, unit.map, cfg)) {
                    Ok(d) => {
                        if found.cands.len() >= MAX_CANDIDATES {
                            return Err(Reason::new(
                                Code::AmbiguousAnchor,
                                format!("more than {MAX_CANDIDATES} blocks validate"),
                            ));
                        }
                        // Its window starts with a real triangle and cannot be extended
                        // backwards (both checked above): the strongest kind of claim.
                        found.cands.push(Cand {
                            range: pl.range(s),
                            result: Ok(Rc::new(d)),
                            strength: 3,
                            unit_normals: 0,
                        })
                    }
                    Err(why) if found.failures.len() < MAX_CANDIDATES => found.failures.push((2 * w, why)),
                    Err(_) => {}
                }
            }
        }
        found.cands.sort_by_key(|c| c.range.start);
        found.cands.dedup_by_key(|c| c.range.clone());
        found.failures.sort_by_key(|f| f.0);
        Ok(found)
    }

    /// Take `n` units of work from the no-normal budget, or reject `unit`.
    fn spend(&mut self, n: usize, unit: &Unit<'_>) -> Result<(), Reason> {
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

/// The work budget of the no-normal search, in multiples of the data section's size
/// (plus 16 MiB): passes over the data and bytes of fully checked windows count.
pub const NO_NORMAL_BUDGET: usize = 24;

/// Smallest |coordinate| that is geometry rather than bytes of something else read as
/// a float (index pairs of small meshes read as FLOAT3 land far below it), 0 excepted.
const MIN_NONZERO_COORDINATE: f32 = 1.0e-30;

/// Largest |texture coordinate| accepted for a block found without a NORMAL element
/// (UVs are in [0, 1], tiled a few times at most; misaligned halves are mostly far out).
const MAX_ABS_TEXCOORD: f32 = 1024.0;

fn plausible_position(c: [f32; 3], bound: f64) -> bool {
    c.iter()
        .all(|&x| x.is_finite() && (x.abs() as f64) <= bound && (x == 0.0 || x.abs() >= MIN_NONZERO_COORDINATE))
}

/// A triangle with real extent (finite, non-zero area), by the same measure as the gates.
fn has_area(p: [[f32; 3]; 3]) -> bool {
    let d = |a: [f32; 3], b: [f32; 3]| [0, 1, 2].map(|k| (a[k] - b[k]) as f64);
    let (e, f) = (d(p[1], p[0]), d(p[2], p[0]));
    let n = [
        e[1] * f[2] - e[2] * f[1],
        e[2] * f[0] - e[0] * f[2],
        e[0] * f[1] - e[1] * f[0],
    ];
    let a2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    a2.is_finite() && a2 > 0.0
}

/// Every vertex's position plausible ([`plausible_position`]) and every texture
/// coordinate finite and within [`MAX_ABS_TEXCOORD`]. (Colours, blend weights and other
/// elements decode to something for any bytes: nothing to check.)
fn plausible_vertices(data: &[u8], p: usize, unit: &Unit<'_>, cfg: &GateConfig) -> Result<(), Reason> {
    let s = unit.decl.stride;
    let elem = |e: &crate::decl::Element, k: usize| {
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

/// Maximal runs `(first u16 index, length)` of big-endian u16 values `< v` at even
/// offsets, length ≥ `min_len`, in one pass. A run of at least `2B − 1` values contains
/// a whole aligned block of `B`, so for the usual lengths only blocks whose `B` values
/// are all valid are looked at closely (counted with a compare-and-add the compiler
/// vectorises); the run is then grown both ways value by value.
pub fn index_runs(data: &[u8], v: u32, min_len: usize) -> Vec<(usize, usize)> {
    match min_len {
        127.. => blocked_runs::<64>(data, v, min_len),
        31.. => blocked_runs::<16>(data, v, min_len),
        7.. => blocked_runs::<4>(data, v, min_len),
        _ => blocked_runs::<1>(data, v, min_len),
    }
}

fn blocked_runs<const B: usize>(data: &[u8], v: u32, min_len: usize) -> Vec<(usize, usize)> {
    let valid = |k: usize| (u16::from_be_bytes([data[2 * k], data[2 * k + 1]]) as u32) < v;
    let n = data.len() / 2;
    let full = |b: usize| {
        let c = &data[2 * B * b..2 * B * (b + 1)];
        c.chunks_exact(2)
            .map(|x| ((u16::from_be_bytes([x[0], x[1]]) as u32) < v) as u32)
            .sum::<u32>()
            == B as u32
    };
    let mut out = Vec::new();
    let mut b = 0;
    while b < n / B {
        if !full(b) {
            b += 1;
            continue;
        }
        // The block before is not whole (or this run was found already), so going back
        // takes fewer than B steps; going forward is the run's own length.
        let mut start = B * b;
        while start > 0 && valid(start - 1) {
            start -= 1;
        }
        let mut end = B * (b + 1);
        while end < n && valid(end) {
            end += 1;
        }
        if end - start >= min_len.max(1) {
            out.push((start, end - start));
        }
        // The block holding `end` has an invalid value: it is not whole.
        b = end / B + 1;
    }
    out
}

/// What the pinning of one unit found.
#[derive(Default)]
struct Found {
    cands: Vec<Cand>,
    /// Windows with plausible indices whose block failed a gate.
    failures: Vec<(usize, Reason)>,
}

/// Why nothing was placed. When every window with plausible indices failed the same
/// gate, that gate's code is the reason (e.g. `position_out_of_bounds`); otherwise
/// `no_valid_anchor` with a summary.
fn no_candidate(unit: &Unit<'_>, after: Option<usize>, failures: &[(usize, Reason)]) -> Reason {
    let place = after.map(|a| format!(" after {a:#x}")).unwrap_or_default();
    let what = format!(
        "{} vertices (stride {}) preceded by {} valid indices{place}",
        unit.vertex_count, unit.decl.stride, unit.index_count
    );
    match failures {
        [] if unit.map.normal.is_none() => Reason::new(
            Code::NoAnchorElement,
            format!("no NORMAL element, and no index window fits a block of {what}"),
        ),
        [] => Reason::new(Code::NoValidAnchor, format!("no vertex run of {what}")),
        [(at, first), rest @ ..] if rest.iter().all(|(_, r)| r.code == first.code) => Reason::new(
            first.code,
            format!(
                "{} block(s) of {what} fail this gate; at {at:#x}: {}",
                failures.len(),
                first.detail
            ),
        ),
        _ => {
            let codes: BTreeSet<&str> = failures.iter().map(|(_, r)| r.code.as_str()).collect();
            let codes: Vec<&str> = codes.into_iter().collect();
            Reason::new(
                Code::NoValidAnchor,
                format!(
                    "{} block(s) of {what} fail the gates ({})",
                    failures.len(),
                    codes.join(", ")
                ),
            )
        }
    }
}

/// The next block of a straight sequence: the first gated candidate starting at or after
/// `min_offset` (exact-end candidates first). Used for later sub-meshes of the
/// documented model layout, whose blocks follow each other in record order.
pub fn next_after(
    scanner: &mut Scanner<'_>,
    unit: &Unit<'_>,
    min_offset: usize,
    claimed: &[Range<usize>],
    cfg: &GateConfig,
) -> Result<Decoded, Reason> {
    let all = scanner.cached(unit, cfg)?;
    // Sorted by start: skip to `min_offset` (a model may chain thousands of records).
    let from = all.cands.partition_point(|c| c.range.start < min_offset);
    let free = |c: &&Cand| c.ok().is_some() && !claimed.iter().any(|r| overlaps(r, &c.range));
    // The first gated block after the previous one; a window that looks like the start of
    // an index buffer before one that does not (e.g. the block read one stride early).
    let pick = all.cands[from..]
        .iter()
        .filter(free)
        .find(|c| c.strength == 3)
        .or_else(|| all.cands[from..].iter().find(free));
    pick.and_then(Cand::ok).cloned().ok_or_else(|| {
        let mut failures: Vec<(usize, Reason)> = all.failures.iter().filter(|f| f.0 >= min_offset).cloned().collect();
        failures.extend(
            all.cands[from..]
                .iter()
                .filter_map(|c| c.result.as_ref().err().map(|r| (c.range.start, r.clone()))),
        );
        failures.sort_by_key(|f| f.0);
        no_candidate(unit, Some(min_offset), &failures)
    })
}

/// Most pairs of conflicting claims one container may hold; beyond it every unit with a
/// claim is `ambiguous_anchor` (a real disc has a handful; the bound keeps hostile input
/// linear).
pub const MAX_CONFLICTS: usize = 1 << 20;

/// The outcome of [`anchor`]: one result per unit, and every byte range any unit claimed
/// (so a later search can keep off blocks that have an owner, decodable or not).
pub struct Anchored {
    pub results: Vec<Result<Decoded, Reason>>,
    pub claims: Vec<Range<usize>>,
}

/// Place every unit. `claimed` = byte ranges already owned (e.g. sequential blocks).
pub fn anchor(scanner: &mut Scanner<'_>, units: &[Unit<'_>], claimed: &[Range<usize>], cfg: &GateConfig) -> Anchored {
    let mut results: Vec<Option<Result<Decoded, Reason>>> = vec![None; units.len()];
    let mut cands: Vec<Vec<Cand>> = vec![Vec::new(); units.len()];
    let mut failures: Vec<Vec<(usize, Reason)>> = vec![Vec::new(); units.len()];
    for (u, unit) in units.iter().enumerate() {
        match scanner.candidates(unit, claimed, cfg) {
            Ok(f) if f.cands.len() > MAX_CANDIDATES => {
                results[u] = Some(Err(Reason::new(
                    Code::AmbiguousAnchor,
                    format!("more than {MAX_CANDIDATES} blocks validate"),
                )))
            }
            Ok(f) => (cands[u], failures[u]) = (f.cands, f.failures),
            Err(r) => results[u] = Some(Err(r)),
        }
    }
    let mut claims: Vec<Range<usize>> = cands.iter().flatten().map(|c| c.range.clone()).collect();
    let seen = &mut scanner.seen;
    claims.extend(drop_suffix_windows(
        scanner.data,
        units,
        &mut cands,
        &mut failures,
        cfg,
        seen,
    ));
    resolve(scanner.data, units, &mut cands, &failures, &mut results);
    Anchored {
        results: results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Reason::new(Code::NoValidAnchor, "internal: unit left unresolved"))))
            .collect(),
        claims,
    }
}

/// Does the window of `v`/`i` counts at `w` look like the start of an index buffer from
/// its bytes alone: a first triangle of three distinct indices?
fn real_start_indices(data: &[u8], w: usize) -> bool {
    let x = |k: usize| u16::from_be_bytes([data[w + 2 * k], data[w + 2 * k + 1]]);
    let (a, b, c) = (x(0), x(1), x(2));
    a != b && b != c && a != c
}

/// A claim whose window extends backwards (the suffix of a longer index list) is dropped
/// when the longer list is the window of another resource's counts: `I' > I` u16 values
/// `< V'` ending at the same vertex start, referencing the gates' share of `V'` and
/// starting with a real triangle. That resource owns the block even where it cannot be
/// read itself (a multi-stream or quantized declaration, a stride its declaration does
/// not give): a sibling must not be decoded from its vertices and its index tail
/// (FORMAT.md §6). Returns the longer windows, as claimed ranges.
fn drop_suffix_windows(
    data: &[u8],
    units: &[Unit<'_>],
    cands: &mut [Vec<Cand>],
    failures: &mut [Vec<(usize, Reason)>],
    cfg: &GateConfig,
    seen: &mut Vec<u64>,
) -> Vec<Range<usize>> {
    let mut counts: Vec<(u32, u32)> = units.iter().map(|u| (u.index_count, u.vertex_count)).collect();
    counts.sort_unstable();
    counts.dedup();
    let max_v = counts.iter().map(|c| c.1).max().unwrap_or(0);
    let mut owned = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        let i = unit.index_count as usize;
        cands[u].retain(|c| {
            if c.strength >= 2 {
                return true;
            }
            let p = c.range.start + 2 * i;
            // Counts with a longer window, shortest first; the running maximum of the
            // values before `p` says which of them are valid (stops at the first value
            // no resource's vertex count allows, within a few values of a list's start).
            let longer = &counts[counts.partition_point(|x| x.0 as usize <= i)..];
            let (mut k, mut run_max) = (0usize, 0u32);
            for &(i2, v2) in longer {
                let i2 = i2 as usize;
                if 2 * i2 > p {
                    break;
                }
                while k < i2 && run_max < max_v {
                    let at = p - 2 * (k + 1);
                    run_max = run_max.max(u16::from_be_bytes([data[at], data[at + 1]]) as u32);
                    k += 1;
                }
                if run_max >= max_v {
                    break;
                }
                let w2 = p - 2 * i2;
                if run_max < v2
                    && real_start_indices(data, w2)
                    && referenced(data, w2, i2, v2 as usize, seen) as f64 >= cfg.min_referenced_fraction * v2 as f64
                {
                    failures[u].push((
                        c.range.start,
                        Reason::new(
                            Code::AmbiguousAnchor,
                            format!(
                                "the window at {:#x} is the tail of a longer index buffer: {i2} indices \
                                 < {v2} (another resource's counts) from {w2:#x} end at the same \
                                 vertex start {p:#x}",
                                c.range.start
                            ),
                        ),
                    ));
                    owned.push(w2..p);
                    return false;
                }
            }
            true
        });
    }
    owned
}

/// One block, one owner, over the claims of every unit (decodable or not):
/// 1. Of two conflicting claims of different units (overlapping, not byte-identical
///    duplicates), the stronger one ([`Cand::strength`]) wins: a window that is the
///    suffix of another index buffer, or that reads zero padding as a first triangle,
///    loses to the real start.
/// 2. Between equal claims, a unit with a single claim keeps it against a unit that has
///    another claim at least as strong elsewhere.
/// 3. Conflicts still left take both claims away, and both units are `ambiguous_anchor`:
///    ownership is undecidable there, so neither is guessed.
/// 4. A unit's last claim gives its result (decoded, or the gate that its block fails);
///    of several, byte-identical blocks are shared out among duplicates, a single
///    strongest one is taken, anything else is `ambiguous_anchor`.
fn resolve(
    data: &[u8],
    units: &[Unit<'_>],
    cands: &mut [Vec<Cand>],
    failures: &[Vec<(usize, Reason)>],
    results: &mut [Option<Result<Decoded, Reason>>],
) {
    let mut flat: Vec<(usize, usize)> = (0..units.len())
        .filter(|&u| results[u].is_none())
        .flat_map(|u| (0..cands[u].len()).map(move |k| (u, k)))
        .collect();
    flat.sort_by_key(|&(u, k)| (cands[u][k].range.start, u, k));
    let cand = |f: (usize, usize)| &cands[f.0][f.1];
    // Conflicting pairs (indices into `flat`), by a sweep over the sorted starts.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    'sweep: for a in 0..flat.len() {
        let ra = &cand(flat[a]).range;
        for b in a + 1..flat.len() {
            let rb = &cand(flat[b]).range;
            if rb.start >= ra.end {
                break;
            }
            let (ua, ub) = (flat[a].0, flat[b].0);
            if ua != ub && !identical(data, ra, rb, &units[ua], &units[ub]) {
                pairs.push((a, b));
                if pairs.len() > MAX_CONFLICTS {
                    break 'sweep;
                }
            }
        }
    }
    if pairs.len() > MAX_CONFLICTS {
        for &(u, _) in &flat {
            results[u].get_or_insert_with(|| {
                Err(Reason::new(
                    Code::AmbiguousAnchor,
                    format!("more than {MAX_CONFLICTS} conflicting claims in this data section"),
                ))
            });
        }
        return;
    }
    let mut alive = vec![true; flat.len()];
    let mut count = vec![0usize; units.len()];
    let mut by_unit: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
    for (x, &(u, _)) in flat.iter().enumerate() {
        count[u] += 1;
        by_unit[u].push(x);
    }
    // Does the unit of `flat[x]` keep another live claim at least as strong as `s`?
    let has_other = |alive: &[bool], x: usize, s: u8| {
        by_unit[flat[x].0]
            .iter()
            .any(|&y| y != x && alive[y] && cand(flat[y]).strength >= s)
    };
    // Why a unit lost a claim it might have owned (a tie: rule 3).
    let mut contested: Vec<Option<String>> = vec![None; units.len()];
    let describe = |f: (usize, usize)| {
        let (c, un) = (cand(f), &units[f.0]);
        format!(
            "{:#x} (a block of {} vertices / {} indices)",
            c.range.start, un.vertex_count, un.index_count
        )
    };
    loop {
        let mut kill: Vec<usize> = Vec::new();
        for &(a, b) in &pairs {
            if !alive[a] || !alive[b] {
                continue;
            }
            let (fa, fb) = (flat[a], flat[b]);
            let (sa, sb) = (cand(fa).strength, cand(fb).strength);
            if sa != sb {
                kill.push(if sa > sb { b } else { a });
            } else if let Some(a_wins) = fewer_non_unit(cand(fa), &units[fa.0], cand(fb), &units[fb.0]) {
                kill.push(if a_wins { b } else { a });
            } else if count[fa.0] == 1 && count[fb.0] >= 2 && has_other(&alive, b, sb) {
                kill.push(b);
            } else if count[fb.0] == 1 && count[fa.0] >= 2 && has_other(&alive, a, sa) {
                kill.push(a);
            }
        }
        if kill.is_empty() {
            break;
        }
        for x in kill {
            if std::mem::replace(&mut alive[x], false) {
                count[flat[x].0] -= 1;
            }
        }
    }
    let mut tie: Vec<usize> = Vec::new();
    for &(a, b) in &pairs {
        if alive[a] && alive[b] {
            tie.extend([a, b]);
            contested[flat[a].0].get_or_insert_with(|| describe(flat[b]));
            contested[flat[b].0].get_or_insert_with(|| describe(flat[a]));
        }
    }
    for x in tie {
        alive[x] = false;
    }
    let mut left: Vec<Vec<Cand>> = vec![Vec::new(); units.len()];
    for (x, &(u, k)) in flat.iter().enumerate() {
        if alive[x] {
            left[u].push(cands[u][k].clone());
        }
    }
    // Duplicates: units whose remaining claims are all byte-identical blocks share them
    // out in order (any choice gives the same geometry).
    let mut next_for_group: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
    for u in 0..units.len() {
        if results[u].is_some() {
            continue;
        }
        let c = std::mem::take(&mut left[u]);
        results[u] = Some(if let Some(other) = &contested[u] {
            Err(Reason::new(
                Code::AmbiguousAnchor,
                format!("its block and another resource's claim overlap at {other}: the owner is undecidable"),
            ))
        } else if c.is_empty() {
            let lost = !cands[u].is_empty();
            if lost {
                let at = cands[u][0].range.start;
                Err(Reason::new(
                    Code::AmbiguousAnchor,
                    format!(
                        "every block that fits ({} from {at:#x}) belongs to another resource",
                        cands[u].len()
                    ),
                ))
            } else {
                Err(no_candidate(&units[u], None, &failures[u]))
            }
        } else if c.iter().all(|x| data[x.range.clone()] == data[c[0].range.clone()]) {
            let key: Vec<usize> = c.iter().map(|x| x.range.start).collect();
            let n = next_for_group.entry(key).or_insert(0);
            let pick = &c[*n % c.len()];
            *n += 1;
            pick.result.as_ref().map(|d| Decoded::clone(d)).map_err(Reason::clone)
        } else {
            let top = c.iter().map(|x| x.strength).max().unwrap_or(0);
            let strongest: Vec<&Cand> = c.iter().filter(|x| x.strength == top).collect();
            if let [one] = strongest.as_slice() {
                one.result.as_ref().map(|d| Decoded::clone(d)).map_err(Reason::clone)
            } else if c.iter().all(|x| x.result.is_err()) {
                let fails: Vec<(usize, Reason)> = c
                    .iter()
                    .filter_map(|x| x.result.as_ref().err().map(|r| (x.range.start, r.clone())))
                    .collect();
                Err(no_candidate(&units[u], None, &fails))
            } else {
                let offs: Vec<String> = strongest.iter().map(|x| format!("{:#x}", x.range.start)).collect();
                Err(Reason::new(
                    Code::AmbiguousAnchor,
                    format!("{} different blocks validate: {}", strongest.len(), offs.join(", ")),
                ))
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::parse_declaration;

    /// `POSITION@0 FLOAT3, NORMAL@12 FLOAT16_4` (stride 20).
    fn decl() -> Declaration {
        let mut b = Vec::new();
        for w in [
            0u32,
            0x002A_23B9,
            0,
            0x0000_000C,
            0x001A_2360,
            0x0003_0000,
            0x00FF_0000,
            0xFFFF_FFFF,
            0,
        ] {
            b.extend(w.to_be_bytes());
        }
        parse_declaration(&b).unwrap().0
    }

    /// A square pyramid: 5 vertices, outward normals, 6 triangles (base first).
    const PYR_IDX: [u16; 18] = [0, 2, 1, 0, 3, 2, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4];
    const PYR_POS: [[f32; 3]; 5] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.5, 0.5, 1.0],
    ];

    fn vertices(scale: f32) -> Vec<u8> {
        let mut out = Vec::new();
        for p in PYR_POS {
            let d = [p[0] - 0.5, p[1] - 0.5, p[2] - 0.4];
            let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            for c in p {
                out.extend((c * scale).to_be_bytes());
            }
            for c in [d[0] / l, d[1] / l, d[2] / l, 0.0] {
                out.extend(half::f16::from_f32(c).to_bits().to_be_bytes());
            }
        }
        out
    }

    fn indices(idx: &[u16]) -> Vec<u8> {
        idx.iter().flat_map(|i| i.to_be_bytes()).collect()
    }

    /// Junk that is not unit normals and not small indices.
    fn junk(n: usize) -> Vec<u8> {
        (0..n).map(|k| (0x9D ^ (k * 37) as u8) | 0x80).collect()
    }

    fn place(data: &[u8], units: &[(u32, u32)], d: &Declaration) -> Vec<Result<usize, Code>> {
        let map = AttributeMap::of(d);
        let us: Vec<Unit> = units
            .iter()
            .map(|&(v, i)| Unit {
                decl: d,
                map: &map,
                vertex_count: v,
                index_count: i,
            })
            .collect();
        anchor(&mut Scanner::new(data), &us, &[], &GateConfig::default())
            .results
            .into_iter()
            .map(|r| r.map(|x| x.placement.index_offset).map_err(|e| e.code))
            .collect()
    }

    #[test]
    fn suffix_window_loses_to_the_true_block() {
        // A = 18 indices; B = the same 5 vertices with only the 4 side triangles, which
        // are exactly the last 12 indices of A: B validates on A's block too.
        let d = decl();
        let mut data = vec![0u8; 16];
        let a_at = data.len();
        data.extend(indices(&PYR_IDX));
        data.extend(vertices(1.0));
        data.extend(junk(64));
        data.extend([0u8; 12]);
        let b_at = data.len();
        data.extend(indices(&PYR_IDX[6..]));
        data.extend(vertices(2.0));
        data.extend(junk(40));
        assert_eq!(place(&data, &[(5, 18), (5, 12)], &d), vec![Ok(a_at), Ok(b_at)]);
        // Order of units does not matter (no first-come first-served).
        assert_eq!(place(&data, &[(5, 12), (5, 18)], &d), vec![Ok(b_at), Ok(a_at)]);
    }

    #[test]
    fn a_suffix_with_no_block_of_its_own_is_rejected_not_emitted() {
        let d = decl();
        let mut data = vec![0u8; 16];
        data.extend(indices(&PYR_IDX));
        data.extend(vertices(1.0));
        data.extend(junk(64));
        let r = place(&data, &[(5, 18), (5, 12)], &d);
        assert_eq!(r, vec![Ok(16), Err(Code::AmbiguousAnchor)]);
    }

    #[test]
    fn an_unreadable_owner_keeps_its_index_tail_from_a_sibling() {
        // A's declaration gives a stride its bytes do not have (as a multi-stream or
        // quantized owner's may), so A claims nothing by reading; B's only fit is the
        // last 12 of A's 18 indices before A's vertices. A's counts still own that.
        let d = decl();
        let wide = Declaration {
            elements: d.elements.clone(),
            stride: 24,
        };
        let mut data = vec![0u8; 16];
        data.extend(indices(&PYR_IDX));
        data.extend(vertices(1.0));
        data.extend(junk(64));
        let (map, wide_map) = (AttributeMap::of(&d), AttributeMap::of(&wide));
        let a = Unit {
            decl: &wide,
            map: &wide_map,
            vertex_count: 5,
            index_count: 18,
        };
        let b = Unit {
            decl: &d,
            map: &map,
            vertex_count: 5,
            index_count: 12,
        };
        let mut scanner = Scanner::new(&data);
        let r = anchor(&mut scanner, &[a, b], &[], &GateConfig::default());
        let b_result = r.results[1].as_ref().map(|x| x.placement.index_offset);
        assert_eq!(b_result.map_err(|e| e.code), Err(Code::AmbiguousAnchor), "{b_result:?}");
        assert!(r.claims.iter().any(|c| c.start == 16), "{:?}", r.claims);
        // Without A's counts in the section, B's tail window is all there is, and taken.
        let alone = anchor(&mut Scanner::new(&data), &[b], &[], &GateConfig::default());
        assert_eq!(
            alone.results[0].as_ref().map(|x| x.placement.index_offset).ok(),
            Some(28)
        );
    }

    #[test]
    fn a_window_reaching_into_zero_padding_is_not_a_block() {
        // C would read 6 zero indices of padding + A's 18: "(0,0,0) leading triangles".
        let d = decl();
        let mut data = vec![0u8; 32];
        data.extend(indices(&PYR_IDX));
        data.extend(vertices(1.0));
        data.extend(junk(64));
        // C's only fit is A's block, which A's own window claims more strongly.
        assert_eq!(
            place(&data, &[(5, 24), (5, 18)], &d),
            vec![Err(Code::AmbiguousAnchor), Ok(32)]
        );
    }

    #[test]
    fn run_longer_than_the_vertex_count_is_not_a_smaller_resource() {
        // A 4-vertex resource must not take the first 4 slots of a 5-vertex run.
        let d = decl();
        let mut data = vec![0u8; 16];
        data.extend(indices(&PYR_IDX));
        data.extend(vertices(1.0));
        data.extend(junk(64));
        // (Its reading of the pyramid's bytes is a claim that fails the gates.)
        assert!(place(&data, &[(4, 6)], &d)[0].is_err());
    }

    #[test]
    fn identical_duplicates_may_share_or_split_blocks() {
        let d = decl();
        let mut data = vec![0u8; 16];
        data.extend(indices(&PYR_IDX));
        data.extend(vertices(1.0));
        data.extend(junk(64));
        // One block, two resources with identical counts: both decode from it.
        assert_eq!(place(&data, &[(5, 18), (5, 18)], &d), vec![Ok(16), Ok(16)]);
        // Two identical copies: each takes one.
        let second = data.len() + 8;
        data.extend([0u8; 8]);
        data.extend(indices(&PYR_IDX));
        data.extend(vertices(1.0));
        data.extend(junk(16));
        assert_eq!(place(&data, &[(5, 18), (5, 18)], &d), vec![Ok(16), Ok(second)]);
    }

    /// `lead`, then two pyramid blocks (same indices, the given vertex bytes) between junk.
    fn two_blocks(lead: Vec<u8>, first: Vec<u8>, second: Vec<u8>) -> Vec<u8> {
        let mut data = lead;
        data.extend(indices(&PYR_IDX));
        data.extend(first);
        data.extend(junk(64));
        data.extend(indices(&PYR_IDX));
        data.extend(second);
        data.extend(junk(16));
        data
    }

    #[test]
    fn two_different_blocks_for_one_resource_are_ambiguous() {
        let data = two_blocks(vec![0u8; 16], vertices(1.0), vertices(3.0));
        assert_eq!(place(&data, &[(5, 18)], &decl()), vec![Err(Code::AmbiguousAnchor)]);
    }

    #[test]
    fn no_normal_and_nothing_to_anchor_on_is_no_anchor_element() {
        let d = decl_of(&[0, 0x002A_23B9, 0]);
        assert_eq!(place(&[0u8; 64], &[(5, 18)], &d), vec![Err(Code::NoAnchorElement)]);
        // Fewer indices than vertices can never reference them all.
        let mut data = vec![0u8; 16];
        data.extend(indices(&PYR_IDX[..3]));
        data.extend(nn_vertices(1.0));
        assert_eq!(place(&data, &[(5, 3)], &nn_decl()), vec![Err(Code::NoAnchorElement)]);
    }

    /// A declaration from its element words (3 u32 each), END appended.
    fn decl_of(words: &[u32]) -> Declaration {
        let mut b: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        for w in [0x00FF_0000u32, 0xFFFF_FFFF, 0] {
            b.extend(w.to_be_bytes());
        }
        parse_declaration(&b).unwrap().0
    }

    /// `POSITION@0 FLOAT3, TEXCOORD@12 FLOAT16_2` (stride 16): no NORMAL.
    fn nn_decl() -> Declaration {
        decl_of(&[0, 0x002A_23B9, 0, 0x0000_000C, 0x002C_235F, 0x0005_0000])
    }

    /// The pyramid's vertices in `nn_decl` form (positions × `scale`, UVs in [0, 1]).
    fn nn_vertices(scale: f32) -> Vec<u8> {
        let mut out = Vec::new();
        for p in PYR_POS {
            for c in p {
                out.extend((c * scale).to_be_bytes());
            }
            for c in [p[0] * 0.75 + 0.125, p[1] * 0.5 + 0.25] {
                out.extend(half::f16::from_f32(c).to_bits().to_be_bytes());
            }
        }
        out
    }

    #[test]
    fn a_block_without_normals_anchors_exactly() {
        let d = nn_decl();
        let mut data = junk(30);
        data.extend([0u8; 2]);
        let at = data.len();
        data.extend(indices(&PYR_IDX));
        data.extend(nn_vertices(2.5));
        data.extend(junk(64));
        assert_eq!(place(&data, &[(5, 18)], &d), vec![Ok(at)]);
        // The decoded geometry is the stored one, bit for bit.
        let map = AttributeMap::of(&d);
        let unit = Unit {
            decl: &d,
            map: &map,
            vertex_count: 5,
            index_count: 18,
        };
        let got = anchor(&mut Scanner::new(&data), &[unit], &[], &GateConfig::default()).results;
        let m = &got[0].as_ref().unwrap().mesh;
        assert_eq!(m.indices, PYR_IDX.map(u32::from).to_vec());
        assert_eq!(m.positions[4], [1.25, 1.25, 2.5]);
        assert_eq!(m.texcoords[0][1], [0.875, 0.25]);
    }

    #[test]
    fn two_different_blocks_without_normals_are_ambiguous() {
        let data = two_blocks(junk(32), nn_vertices(1.0), nn_vertices(3.0));
        assert_eq!(place(&data, &[(5, 18)], &nn_decl()), vec![Err(Code::AmbiguousAnchor)]);
    }

    #[test]
    fn a_window_without_normals_reaching_into_zero_padding_is_refused() {
        // (5, 24) would read 6 zero indices of padding + the real 18: its first triangle
        // is (0, 0, 0); every later start is the suffix case or misreads the vertices.
        let d = nn_decl();
        let mut data = junk(16);
        data.extend([0u8; 32]);
        let at = data.len();
        data.extend(indices(&PYR_IDX));
        data.extend(nn_vertices(1.0));
        data.extend(junk(64));
        let r = place(&data, &[(5, 24), (5, 18)], &d);
        assert_eq!(r[1], Ok(at));
        assert!(r[0].is_err(), "{r:?}");
    }

    #[test]
    fn a_no_normal_unit_does_not_take_a_block_a_normal_unit_owns() {
        // `POSITION@0 FLOAT3, TEXCOORD@12 FLOAT16_4` (stride 20) reads the pyramid's
        // normals as texture coordinates, so the no-normal unit validates on the normal
        // block A too; A's only claimant with a NORMAL keeps it, the other gets B.
        let nd = decl();
        let td = decl_of(&[0, 0x002A_23B9, 0, 0x0000_000C, 0x001A_2360, 0x0005_0000]);
        let mut data = junk(32);
        let a_at = data.len();
        data.extend(indices(&PYR_IDX));
        data.extend(vertices(1.0));
        data.extend(junk(64));
        let b_at = data.len();
        data.extend(indices(&PYR_IDX));
        for c in nn_vertices(4.0).chunks_exact(16) {
            data.extend(&c[..12]);
            for h in [0.25f32, 0.5, 0.0, 0.0] {
                data.extend(half::f16::from_f32(h).to_bits().to_be_bytes());
            }
        }
        data.extend(junk(16));
        let (nm, tm) = (AttributeMap::of(&nd), AttributeMap::of(&td));
        let un = Unit {
            decl: &nd,
            map: &nm,
            vertex_count: 5,
            index_count: 18,
        };
        let ut = Unit {
            decl: &td,
            map: &tm,
            vertex_count: 5,
            index_count: 18,
        };
        let at = |us: &[Unit]| -> Vec<Result<usize, Code>> {
            anchor(&mut Scanner::new(&data), us, &[], &GateConfig::default())
                .results
                .into_iter()
                .map(|r| r.map(|x| x.placement.index_offset).map_err(|e| e.code))
                .collect()
        };
        assert_eq!(at(&[un, ut]), vec![Ok(a_at), Ok(b_at)]);
        assert_eq!(at(&[ut, un]), vec![Ok(b_at), Ok(a_at)]);
    }

    #[test]
    fn index_runs_match_a_plain_scan() {
        let mut data: Vec<u8> = (0..5000u32)
            .map(|k| (k.wrapping_mul(2_654_435_761) >> 17) as u8 & 0x07)
            .collect();
        data.extend([0u8; 300]);
        data.extend((0..777u32).map(|k| (k * 13) as u8));
        let cases = [
            (1u32, 1usize),
            (5, 3),
            (600, 3),
            (600, 7),
            (1500, 40),
            (2048, 10),
            (2048, 31),
            (2048, 127),
            (70_000, 1),
            (70_000, 200),
            (9, 40),
        ];
        for (v, min) in cases {
            let mut want = Vec::new();
            let (mut st, mut l) = (0, 0);
            for (k, c) in data.chunks_exact(2).enumerate() {
                if (u16::from_be_bytes([c[0], c[1]]) as u32) < v {
                    if l == 0 {
                        st = k;
                    }
                    l += 1;
                } else {
                    if l >= min {
                        want.push((st, l));
                    }
                    l = 0;
                }
            }
            if l >= min {
                want.push((st, l));
            }
            assert_eq!(index_runs(&data, v, min), want, "v {v} min {min}");
        }
    }

    #[test]
    fn no_unit_normal_fits_below_the_index_bound() {
        let tol = unit_tolerance(DeclType::Float16_4);
        let xyz = |h: u16| -> Vec<u8> { [h, h, h, 0].iter().flat_map(|x| x.to_be_bytes()).collect() };
        // The largest all-equal xyz below the bound is short of unit; one step up is not.
        assert!(!is_unit_normal(
            DeclType::Float16_4,
            &xyz(HALF_UNIT_MIN_COMPONENT as u16),
            tol
        ));
        assert!(is_unit_normal(
            DeclType::Float16_4,
            &xyz(HALF_UNIT_MIN_COMPONENT as u16 + 1),
            tol
        ));
        // And no xyz of halves all ≤ the bound is unit (components are monotone in bits).
        let mut v = Vec::new();
        for h in (0..=HALF_UNIT_MIN_COMPONENT as u16)
            .step_by(7)
            .chain([HALF_UNIT_MIN_COMPONENT as u16])
        {
            v.extend(h.to_be_bytes());
        }
        let bm = UnitBitmap::build(&v, DeclType::Float16_4, 0);
        assert_eq!(bm.iter().count(), 0);
    }

    #[test]
    fn pack_bits_puts_flag_j_at_bit_j() {
        for j in 0..64 {
            let mut f = [0u8; 64];
            f[j] = 1;
            assert_eq!(pack_bits(&f), 1 << j);
        }
        let f: [u8; 64] = std::array::from_fn(|j| (j % 3 == 0) as u8);
        let want = (0..64).filter(|j| j % 3 == 0).fold(0u64, |a, j| a | 1 << j);
        assert_eq!(pack_bits(&f), want);
    }

    #[test]
    fn half_square_is_the_square_of_the_reader() {
        for h in 0..=u16::MAX {
            let x = crate::decl::xenos_half_to_f32(h);
            assert_eq!(half_square(h).to_bits(), (x * x).to_bits(), "{h:#06x}");
        }
    }

    /// The chain walk of every start on its own (the definition of a tolerant run).
    fn tolerant_runs_naive(bm: &UnitBitmap, s: usize) -> Vec<TolerantRun> {
        let mut out = Vec::new();
        for q in bm.iter().filter(|&q| !(q >= s && bm.get(q - s))) {
            let (mut cur, mut units) = (q, 1usize);
            while let Some(j) = (1..=MAX_RUN_GAP + 1).find(|&j| bm.get(cur + j * s)) {
                cur += j * s;
                units += 1;
            }
            out.push((q, (cur - q) / s + 1, units));
        }
        out.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        out
    }

    #[test]
    fn tolerant_runs_equal_the_walk_of_every_start() {
        // Unit normals (x = 1.0 as a half) at pseudo-random slots of strides 4..40:
        // dense, sparse and gap-bridging chains, many starts inside one chain.
        let mut bridged = 0;
        for seed in 0..40u32 {
            let len = 6_000;
            let mut data = vec![0u8; len];
            let density = 1 + seed % 7;
            for q in (0..len - 8).step_by(2) {
                let h = (q as u32 ^ seed.wrapping_mul(0x9E37_79B9)).wrapping_mul(2_654_435_761) >> 24;
                if h % 8 < density {
                    data[q..q + 2].copy_from_slice(&0x3C00u16.to_be_bytes());
                }
            }
            let bm = UnitBitmap::build(&data, DeclType::Float16_4, 0);
            for s in [4, 8, 12, 20, 24, 40] {
                let runs = tolerant_runs(&bm, s);
                assert_eq!(runs, tolerant_runs_naive(&bm, s), "seed {seed} stride {s}");
                bridged += runs.iter().filter(|r| r.1 > r.2 && r.2 > 5).count();
            }
        }
        assert!(bridged > 100, "{bridged} runs bridge a gap");
    }

    #[test]
    fn cached_windows_equal_the_plain_check() {
        // Index lists of several vertex counts between junk and zero runs; every place,
        // counts asked small to large and back (the walks' bound grows on the way).
        let mut data = Vec::new();
        for (k, v) in [5u16, 300, 40, 9, 1000].into_iter().enumerate() {
            data.extend(junk(7 + k));
            data.extend([0u8; 6]);
            data.extend((0..60u16).flat_map(|j| ((j * 7 + k as u16) % v).to_be_bytes()));
        }
        let mut w = Windows::default();
        for v in [6u32, 41, 301, 1001, 40, 5, 65535] {
            for p in (0..=data.len()).step_by(2) {
                for i in [3usize, 4, 20, 59, 60, 61, 200] {
                    let want = i >= 3 && 2 * i <= p && window_valid(&data, p - 2 * i, i, v);
                    assert_eq!(w.valid(&data, p, i, v), want, "p {p} i {i} v {v}");
                }
            }
        }
    }

    #[test]
    fn bitmap_scan_agrees_with_the_reader() {
        let data: Vec<u8> = (0..20_000u32)
            .map(|k| (k.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let mut v = vertices(1.0);
        v.extend(data);
        let bm = UnitBitmap::build(&v, DeclType::Float16_4, 0);
        let tol = unit_tolerance(DeclType::Float16_4);
        for q in (0..v.len() - 8).step_by(2) {
            assert_eq!(
                bm.get(q),
                is_unit_normal(DeclType::Float16_4, &v[q..q + 8], tol),
                "offset {q}"
            );
        }
        assert!(bm.get(12) && bm.get(32));
    }
}
