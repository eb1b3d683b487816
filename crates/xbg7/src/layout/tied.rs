//! A multi-stream resource tied with another resource's block (rule 9 of
//! docs/architecture.md): the anchoring reads a multi-stream resource by structure as
//! "positions right after its index buffer" (a claim: FORMAT.md §5 leaves open where
//! its streams sit), and where a single-stream resource's block lies on the same bytes
//! the two explain them equally well: one unit each, two readings. That tie holds only
//! if the multi-stream resource has no reading apart. Owns the decision: search its
//! buffers apart off every other claim; where that finds a reading, its readings by
//! structure are in no best assignment, and the container is anchored again without
//! them, so the other resource's block is decided by the criterion alone.

use super::anchored::{self, overlaps, Anchored, Scanner, Unit};
use super::assemble::{decoded_apart, search_apart, stream_buffers};
use super::plan::{self, Plan};
use super::streams::{ApartOutcome, ContainerSearches, NormalRunCache};
use crate::config::DecodeConfig;
use crate::described::{Described, Parsed};
use crate::outcome::DecodedResource;
use crate::reason::{Code, Reason};
use std::collections::HashMap;
use std::ops::Range;

/// The anchoring with the ties settled: its outcome, and the resources placed apart by
/// it (their unit and outcome: a reading apart, or "two readings fit").
pub(crate) struct Settled {
    pub(crate) anchored: Anchored,
    pub(crate) apart: HashMap<usize, Result<DecodedResource, Reason>>,
    /// The units of `apart` whose outcome is final: two readings fit, one of them by
    /// structure, which no search apart sees (so none may place them later).
    pub(crate) closed: Vec<usize>,
}

impl Settled {
    /// An anchoring with no ties to settle.
    pub(crate) fn untied(anchored: Anchored) -> Settled {
        Settled {
            anchored,
            apart: HashMap::new(),
            closed: Vec::new(),
        }
    }

    /// The buffers of the resources placed apart (no later block may take them).
    pub(crate) fn buffers(&self) -> Vec<Range<usize>> {
        self.apart
            .values()
            .filter_map(|r| r.as_ref().ok())
            .flat_map(stream_buffers)
            .collect()
    }
}

/// The searched units ([`plan::searched_units`]) in a tie with an owner's block: rejected
/// as two readings fitting where the other reading is a claim of a unit that is not
/// searched (an owner's block, not another reading by structure), or not placed while
/// such a unit is rejected as two readings fitting with their claim. Sorted.
pub(crate) fn tied_units(
    results: &[Result<std::rc::Rc<super::Decoded>, Reason>],
    rivals: &[Option<usize>],
    searched: &[bool],
) -> Vec<usize> {
    let is_searched = |u: usize| searched.get(u).copied().unwrap_or(false);
    let ambiguous = |u: usize| matches!(&results[u], Err(r) if r.code == Code::AmbiguousAnchor);
    let rival = |u: usize| rivals.get(u).copied().flatten();
    let mut tied: Vec<usize> = (0..results.len())
        .filter(|&u| is_searched(u) && ambiguous(u) && rival(u).is_some_and(|w| !is_searched(w)))
        .collect();
    tied.extend((0..results.len()).filter_map(|r| {
        let w = rival(r).filter(|&w| w < results.len())?;
        (!is_searched(r) && ambiguous(r) && is_searched(w) && results[w].is_err()).then_some(w)
    }));
    tied.sort_unstable();
    tied.dedup();
    tied
}

/// The claims of `first`, split: unit `u`'s own, and every other unit's (searched or
/// not) — what its search apart keeps off, with the documented layout's blocks.
fn split_claims(first: &Anchored, u: usize) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let (own, others): (Vec<_>, Vec<_>) = first.claims.iter().zip(&first.claim_units).partition(|(_, &w)| w == u);
    let ranges = |v: Vec<(&Range<usize>, &usize)>| v.into_iter().map(|(r, _)| r.clone()).collect();
    (ranges(own), ranges(others))
}

/// The resource of each searched unit.
fn described_by_unit<'a>(parsed: &'a [Parsed<'_>], plans: &[Option<Plan>]) -> Vec<(usize, &'a Described)> {
    parsed
        .iter()
        .zip(plans)
        .filter_map(|(p, plan)| Some((plan::searched_unit(p, plan)?, p.desc.as_ref().ok()?)))
        .collect()
}

/// Settle the ties of `first` (see the module comment; `searched`: the units of
/// [`plan::searched_units`]): each tied unit's buffers are
/// searched apart off every other claim; where a search finds a reading, the units are
/// anchored again without those units (their results are `placed apart`, for a later
/// search), and each such unit's outcome is decided by [`decide`]. A unit whose search
/// finds nothing or gives up stays in the anchoring, its reason told what the search gave.
#[allow(clippy::too_many_arguments)]
pub(crate) fn settle(
    scanner: &mut Scanner<'_>,
    data: &[u8],
    parsed: &[Parsed<'_>],
    plans: &[Option<Plan>],
    units: &[Unit<'_>],
    searched: &[bool],
    documented: &[Range<usize>],
    first: Anchored,
    cfg: &DecodeConfig,
    searches: &mut ContainerSearches,
) -> Settled {
    let tied = tied_units(&first.results, &first.rivals, searched);
    if tied.is_empty() {
        return Settled::untied(first);
    }
    let described = described_by_unit(parsed, plans);
    searches.read = NormalRunCache::with_normal_runs(scanner.take_normal_runs());
    let mut found: Vec<(usize, Result<DecodedResource, Reason>)> = Vec::new();
    let mut missed: Vec<(usize, String)> = Vec::new();
    for &u in &tied {
        let Some(&(_, r)) = described.iter().find(|(w, _)| *w == u) else {
            continue;
        };
        let mut off = documented.to_vec();
        off.extend(split_claims(&first, u).1);
        match search_apart(data, r, &off, cfg, searches) {
            Some(ApartOutcome::Found(a)) => match decoded_apart(*a, r, cfg) {
                Ok(d) => found.push((u, Ok(d))),
                Err(why) => missed.push((u, why.detail)),
            },
            Some(ApartOutcome::Rivals(detail)) => found.push((u, Err(Reason::new(Code::AmbiguousAnchor, detail)))),
            Some(other) => missed.push((u, other.into_result().err().map(|e| e.detail).unwrap_or_default())),
            None => {}
        }
    }
    scanner.restore_normal_runs(std::mem::take(&mut searches.read).into_normal_runs());
    if found.is_empty() {
        let mut anchored = first;
        tell_missed(&mut anchored, missed);
        return Settled::untied(anchored);
    }
    let mut skip = vec![false; units.len()];
    for (u, _) in &found {
        skip[*u] = true;
    }
    let skipped = Reason::new(
        Code::NoValidAnchor,
        "its positions right after its index buffer are another resource's block (it has a reading apart)",
    );
    let mut anchored = anchored::anchor_without(scanner, units, &skip, documented, &cfg.gates, &skipped);
    tell_missed(&mut anchored, missed);
    let placed = placed_blocks(&anchored, units);
    let alone = without_copies(data, &placed, &anchored.claims);
    let mut closed = Vec::new();
    let mut apart = HashMap::new();
    for (u, res) in found {
        // Rivals apart stay open to later searches (off others' buffers); a reading
        // apart against one by structure does not.
        let decided = match res {
            Ok(d) => {
                let decided = decide(d, &split_claims(&first, u).0, units[u].decl.stride, &placed, &alone);
                if decided.is_err() {
                    closed.push(u);
                }
                decided
            }
            rivals => rivals,
        };
        apart.insert(u, decided);
    }
    Settled {
        anchored,
        apart,
        closed,
    }
}

/// The reasons of tied units whose search apart found no reading, still two readings
/// fitting, told what that search gave.
fn tell_missed(anchored: &mut Anchored, missed: Vec<(usize, String)>) {
    for (u, detail) in missed {
        if let Some(Err(why)) = anchored.results.get_mut(u) {
            if why.code == Code::AmbiguousAnchor {
                why.detail = format!("{}; off that block, with its buffers apart: {detail}", why.detail);
            }
        }
    }
}

/// The blocks `anchored` placed.
fn placed_blocks(anchored: &Anchored, units: &[Unit<'_>]) -> Vec<Range<usize>> {
    anchored
        .results
        .iter()
        .zip(units)
        .filter_map(|(r, unit)| r.as_ref().ok().map(|b| b.placement.range(unit.decl.stride)))
        .collect()
}

/// Of `placed`, those with no byte-identical copy among `claims` (a unit placed on bytes
/// that are also elsewhere may hold either copy in a best assignment, so neither copy's
/// place is held in every one).
fn without_copies(data: &[u8], placed: &[Range<usize>], claims: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut by_len: HashMap<usize, Vec<&Range<usize>>> = HashMap::new();
    for c in claims {
        by_len.entry(c.len()).or_default().push(c);
    }
    let bytes = |r: &Range<usize>| data.get(r.clone());
    placed
        .iter()
        .filter(|r| {
            !by_len
                .get(&r.len())
                .is_some_and(|cs| cs.iter().any(|c| c != r && bytes(c) == bytes(r)))
        })
        .cloned()
        .collect()
}

/// A tied unit's reading apart `d`, decided against its own claims by structure (`own`,
/// read with `stride`) and the blocks the anchoring without it placed (`placed`; `alone`
/// those of them with no byte-identical copy: each held in every best assignment).
/// Placed when each claim lies on such a block (no best assignment reads it there) or is
/// `d` itself ([`anchored::open_claim`]); "two readings fit" otherwise, and where `d`'s
/// buffers lie on a placed block.
fn decide(
    d: DecodedResource,
    own: &[Range<usize>],
    stride: usize,
    placed: &[Range<usize>],
    alone: &[Range<usize>],
) -> Result<DecodedResource, Reason> {
    let buffers = stream_buffers(&d);
    if buffers.iter().any(|b| placed.iter().any(|p| overlaps(b, p))) {
        return Err(Reason::new(
            Code::AmbiguousAnchor,
            "two readings fit: its buffers apart lie on another resource's block",
        ));
    }
    let itself = d.placements.first().map(|p| p.range(stride));
    match (anchored::open_claim(own, itself.as_ref(), alone), d.placements.first()) {
        (Some(c), Some(p)) => Err(Reason::new(
            Code::AmbiguousAnchor,
            format!(
                "two readings fit: its buffers apart (index buffer at {:#x}, positions at {:#x}) or its positions right after its index buffer at {:#x}",
                p.index_offset, p.vertex_offset, c.start
            ),
        )),
        _ => Ok(d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ambiguous() -> Result<std::rc::Rc<super::super::Decoded>, Reason> {
        Err(Reason::new(Code::AmbiguousAnchor, "two readings fit"))
    }

    #[test]
    fn only_a_searched_unit_tied_with_an_owners_block_is_settled() {
        // Unit 0 searched, tied with 1 (not searched): settled. Unit 2 searched, tied with
        // 3 (searched): left to the searches. Unit 4 searched, not found. Unit 1 not
        // searched, tied with 0: the other side of the first tie.
        let searched = [true, false, true, true, true];
        let results = vec![
            ambiguous(),
            ambiguous(),
            ambiguous(),
            ambiguous(),
            Err(Reason::new(Code::NoValidAnchor, "nothing fits")),
        ];
        let rivals = [Some(1), Some(0), Some(3), Some(2), Some(1)];
        assert_eq!(tied_units(&results, &rivals, &searched), vec![0]);
        // Unit 1 (not searched) rejected with unit 4's claim, 4 not placed: 4 is settled.
        let rivals = [Some(1), Some(4), Some(3), Some(2), None];
        assert_eq!(tied_units(&results, &rivals, &searched), vec![0, 4]);
        // Not where 1 is not rejected as two readings fitting.
        let mut placed = results.clone();
        placed[1] = Err(Reason::new(Code::NoValidAnchor, "nothing fits"));
        assert_eq!(tied_units(&placed, &rivals, &searched), vec![0]);
    }

    #[test]
    fn a_placed_block_with_a_copy_elsewhere_holds_neither_place() {
        let mut data = vec![0u8; 64];
        data[0..8].copy_from_slice(b"abcdefgh");
        data[32..40].copy_from_slice(b"abcdefgh");
        data[8..16].copy_from_slice(b"ijklmnop");
        // 0..8 is copied at 32..40; 8..16 is nowhere else; a claim of another length does
        // not count.
        let claims = vec![0..8, 32..40, 8..16, 40..41];
        assert_eq!(without_copies(&data, &[0..8, 8..16], &claims), vec![8..16]);
        let alone: Vec<Range<usize>> = std::iter::once(0..8).collect();
        assert_eq!(without_copies(&data, &alone, &alone), alone);
    }

    #[test]
    fn a_claim_is_open_unless_a_block_placed_alone_lies_on_it_or_it_is_the_reading() {
        let own = vec![0..10, 20..30];
        let one = |r: Range<usize>| -> Vec<Range<usize>> { std::iter::once(r).collect() };
        assert_eq!(anchored::open_claim(&own, None, &one(5..8)), Some(&(20..30)));
        assert_eq!(anchored::open_claim(&own, Some(&(20..30)), &one(5..8)), None);
        assert_eq!(anchored::open_claim(&own, None, &one(9..21)), None);
        assert_eq!(anchored::open_claim(&own, None, &one(10..20)), Some(&(0..10)));
    }
}
