//! Content anchoring (FORMAT.md §6): placing blocks whose offset is not stored.
//!
//! Owns the engine used for stage resources, later model sub-meshes and bodies:
//! 1. **Unit-normal bitmap** per (normal type, byte parity), one O(file) pass.
//! 2. **Tolerant runs** per stride: chains of unit normals `stride` apart that bridge a
//!    few off-unit slots (`bitmap::tolerant_runs_by_offset`); a run is evidence of a vertex buffer,
//!    which may begin before it (its first normals need not be unit) and end before or
//!    after it. Runs holding fewer than half a unit's `V` slots are not looked at.
//! 3. **Claims** (`search::Scanner::search`): a place `p` is a claim of a unit when the
//!    `I` u16 values before it are indices `< V` and `V` vertices fit after it — `p` any
//!    vertex start that keeps the run inside the buffer, walking back from the run's
//!    start until an index list (a slot whose every u16 is `< V`) — and, whatever the
//!    normals, every window end of a maximal run of u16 values `< V` where `V` vertices
//!    fit, vertex 0 and the first and last triangles plausible (`Scanner::by_structure`, for
//!    `V ≤ STRUCTURAL_MAX_V`, under a work budget, unless the runs settled the unit
//!    already): the runs are evidence, the structure is the condition. Claims are gated on first use (`claim::Block`): a
//!    claim that fails the gates still owns its bytes.
//! 4. **Without a NORMAL element** (instead of 1–3, [`Scanner`]'s no-normal search): the
//!    windows come from the maximal runs of u16 values `< V` (`bitmap::IndexMaxima`); a
//!    window must start with a real triangle, not extend backwards by one, reference all
//!    `V` vertices and be followed by `V` plausible vertices (finite, bounded, not-tiny
//!    positions; sane texture coordinates), then pass every hard gate. Bounded by a
//!    work budget per data section (`search::NO_NORMAL_BUDGET`).
//! 5. **Claims from others' windows** (`structural`): the longer lists before a claim's
//!    vertex start, and an undecodable unit's windows wherever a window of its counts
//!    ends at a claim's or run's vertex start (a block is its owner's whether or not the
//!    owner decodes, FORMAT.md §6).
//! 6. **One owner per block, decided for the container at once** (`resolve`): the typed
//!    problem (`problem`), the criterion (`score`), the search and a verdict per unit
//!    (`solve`: placed, two readings fit, nothing fits, gave up), and the ordered rules
//!    beyond the criterion (`rules`, `nested`); a unit is placed only when every best
//!    assignment gives it the same bytes — never a guess.
//!
//! Files: `claim` (the [`Unit`]s and their claims, shared by the steps), `bitmap` (steps
//! 1–2 and the u16 runs and maxima of steps 3–4), `search` (the [`Scanner`]: steps 3–4),
//! `by_structure` (step 3's places by structure), `edges` (a claim's window evidence:
//! extendable, strength, edge triangles), `vertex_bytes` (positions read from vertex
//! bytes, and their plausibility), `structural`
//! (step 5), `problem`, `score`, `solve`, `rules`, `nested`, `resolve` (step 6),
//! `reference` (test-only: the exhaustive solver); this file is the facade: [`anchor`] /
//! [`next_after`], which run them, and the outcome [`Anchored`].

use super::Decoded;
use crate::gates::GateConfig;
use crate::reason::{Code, Reason};
use claim::{no_candidate, Claim};
use resolve::assign_owners;
use std::ops::Range;
use std::rc::Rc;
use structural::structural_claims;

mod bitmap;
mod by_structure;
mod claim;
mod edges;
mod nested;
mod problem;
#[cfg(test)]
mod props;
#[cfg(test)]
pub(crate) mod pyramid;
#[cfg(test)]
mod reference;
mod resolve;
mod rules;
mod score;
mod search;
mod solve;
mod structural;
#[cfg(test)]
mod tests;
mod vertex_bytes;

pub use bitmap::MIN_RUN_UNITS;
#[cfg(test)]
use bitmap::{tolerant_runs, UnitBitmap};
pub(crate) use claim::overlaps;
pub use claim::{Unit, MAX_CANDIDATES};
pub(crate) use edges::{preceding_triangles, trailing_degenerate, Edge};
pub(crate) use score::HEADER_TRIANGLES;
pub use search::{normal_runs, NormalBitmaps, NormalRuns, Scanner, MAX_LEADING_NON_UNIT};
pub(crate) use search::{referenced, Seen};
pub(crate) use vertex_bytes::{dot3, element3, face_dot, face_normal, has_area, plausible_position};

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
    let from = all.claims.partition_point(|c| c.range.start < min_offset);
    let data = scanner.data;
    let free = |c: &&Claim| c.ok(data).is_some() && !claimed.iter().any(|r| overlaps(r, &c.range));
    // The first gated block after the previous one; a window that looks like the start of
    // an index buffer before one that does not (e.g. the block read one stride early).
    let pick = all.claims[from..]
        .iter()
        .filter(free)
        .find(|c| c.strength == 3)
        .or_else(|| all.claims[from..].iter().find(free));
    pick.and_then(|c| c.ok(data)).cloned().ok_or_else(|| {
        let mut failures: Vec<(usize, Reason)> = all.failures.iter().filter(|f| f.0 >= min_offset).cloned().collect();
        failures.extend(
            all.claims[from..]
                .iter()
                .filter_map(|c| c.result(data).as_ref().err().map(|r| (c.range.start, r.clone()))),
        );
        failures.sort_by_key(|f| f.0);
        no_candidate(unit, Some(min_offset), &failures)
    })
}

/// A placed block as a value of its own: moved out when nothing else holds it (the
/// scanner that found it is gone), copied otherwise.
pub fn owned(d: Rc<Decoded>) -> Decoded {
    Rc::try_unwrap(d).unwrap_or_else(|d| Decoded::clone(&d))
}

/// The outcome of [`anchor`]: one result per unit, and every byte range any unit claimed
/// (so a later search can keep off blocks that have an owner, decodable or not) but for
/// the claims a unit let go of for a stronger block of its own. A block is shared with
/// the scanner's cache (and between duplicates that take the same one) until the
/// scanner is dropped; [`owned`] then moves it out without a copy.
pub struct Anchored {
    pub results: Vec<Result<Rc<Decoded>, Reason>>,
    pub claims: Vec<Range<usize>>,
    /// The unit of each claim.
    pub claim_units: Vec<usize>,
    /// Per unit rejected as two readings fitting where the other reading is another
    /// unit's claim: that unit (`None` otherwise).
    pub rivals: Vec<Option<usize>>,
}

/// Vertex starts where a unit that cannot be decoded may have its block: its declaration
/// may not place the normal where its bytes have it (a quantized or multi-stream layout
/// need not describe them), so every run of unit normals of its normal type at its
/// stride holding half its vertices, at any normal offset, gives one. Returned as
/// `(unit, q, width)`: the starts `q − o` for `o` in `0..=width` (a run's first normal
/// at `q`, the normal at any offset `o` of the vertex); listed lazily, since a stage
/// holds millions of them and all but a few fail at the index value next to them.
fn undecodable_starts(scanner: &mut Scanner<'_>, units: &[Unit<'_>]) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for (u, unit) in units.iter().enumerate().filter(|(_, x)| !x.decodable) {
        let (Some(ne), s) = (unit.map.normal, unit.decl.stride) else {
            continue;
        };
        let (size, need) = (
            ne.ty.size(),
            (unit.vertex_count as usize).div_ceil(2).max(MIN_RUN_UNITS),
        );
        for parity in 0..2 {
            let data = scanner.data;
            let runs = normal_runs(
                &mut scanner.bitmaps,
                &mut scanner.runs_by_offset,
                data,
                ne.ty,
                parity,
                s,
            );
            out.extend(
                runs.iter()
                    .filter(|r| r.2 >= need)
                    .map(|&(q0, _, _)| (u, q0, s.saturating_sub(size))),
            );
        }
    }
    out
}

/// Place every unit. `claimed` = byte ranges already owned (e.g. sequential blocks).
pub fn anchor(scanner: &mut Scanner<'_>, units: &[Unit<'_>], claimed: &[Range<usize>], cfg: &GateConfig) -> Anchored {
    let mut results: Vec<Option<Result<Rc<Decoded>, Reason>>> = vec![None; units.len()];
    let mut claims: Vec<Vec<Claim>> = vec![Vec::new(); units.len()];
    let mut failures: Vec<Vec<(usize, Reason)>> = vec![Vec::new(); units.len()];
    let mut rivals: Vec<Option<usize>> = vec![None; units.len()];
    for (u, unit) in units.iter().enumerate() {
        match scanner.candidates(unit, claimed, cfg) {
            Ok(f) if f.claims.len() > MAX_CANDIDATES => {
                results[u] = Some(Err(Reason::new(
                    Code::AnchorOutOfBudget,
                    format!("gave up: more than {MAX_CANDIDATES} blocks validate"),
                )))
            }
            Ok(f) => (claims[u], failures[u]) = (f.claims, f.failures),
            Err(r) => results[u] = Some(Err(r)),
        }
    }
    let starts = undecodable_starts(scanner, units);
    for (u, c) in structural_claims(
        scanner.data,
        units,
        &claims,
        &starts,
        cfg,
        &mut scanner.windows,
        &mut scanner.seen,
    ) {
        claims[u].push(c);
    }
    let mut held: Vec<(usize, Range<usize>)> = claims
        .iter()
        .enumerate()
        .flat_map(|(u, cs)| cs.iter().map(move |c| (u, c.range.clone())))
        .collect();
    let released: std::collections::HashSet<(usize, Range<usize>)> =
        assign_owners(scanner.data, units, &mut claims, &failures, &mut results, &mut rivals)
            .into_iter()
            .collect();
    held.retain(|c| !released.contains(c));
    let claim_units: Vec<usize> = held.iter().map(|(u, _)| *u).collect();
    let claims: Vec<Range<usize>> = held.into_iter().map(|(_, r)| r).collect();
    Anchored {
        claim_units,
        rivals,
        results: results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Reason::new(Code::NoValidAnchor, "internal: unit left unresolved"))))
            .collect(),
        claims,
    }
}

/// [`anchor`] for the units not in `skip` (the others are placed by other means): their
/// results, claims and rivals by the indices of `units`; each skipped unit's result is
/// `skipped`, and it claims nothing.
pub fn anchor_without(
    scanner: &mut Scanner<'_>,
    units: &[Unit<'_>],
    skip: &[bool],
    claimed: &[Range<usize>],
    cfg: &GateConfig,
    skipped: &Reason,
) -> Anchored {
    let kept: Vec<usize> = (0..units.len())
        .filter(|&u| !skip.get(u).copied().unwrap_or(false))
        .collect();
    let sub: Vec<Unit<'_>> = kept.iter().map(|&u| units[u]).collect();
    let a = anchor(scanner, &sub, claimed, cfg);
    let mut results: Vec<Result<Rc<Decoded>, Reason>> = vec![Err(skipped.clone()); units.len()];
    let mut rivals: Vec<Option<usize>> = vec![None; units.len()];
    for ((&u, r), rival) in kept.iter().zip(a.results).zip(a.rivals) {
        results[u] = r;
        rivals[u] = rival.map(|w| kept[w]);
    }
    Anchored {
        results,
        claims: a.claims,
        claim_units: a.claim_units.into_iter().map(|w| kept[w]).collect(),
        rivals,
    }
}

/// A claim of a unit placed apart (by a reading of its own that shares no byte with any
/// claim, `itself` its reading apart where that is a claim too) that a best assignment of
/// the container may still give it: one that is not `itself` and shares no byte with a
/// block placed without the unit (`placed`: blocks placed in every best assignment, none
/// with a byte-identical copy elsewhere, so no best assignment holds a claim on their
/// bytes). `None`: every best assignment places the unit apart (rule 9,
/// docs/architecture.md).
pub(crate) fn open_claim<'c>(
    own: &'c [Range<usize>],
    itself: Option<&Range<usize>>,
    placed: &[Range<usize>],
) -> Option<&'c Range<usize>> {
    own.iter()
        .find(|c| Some(*c) != itself && !placed.iter().any(|p| overlaps(c, p)))
}
