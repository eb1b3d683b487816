//! One block, one owner, decided for the whole container at once. Owns the order of the
//! phases and the translation of verdicts into results; each phase lives in its own
//! file:
//! 1. the typed problem built from the bytes (`problem`: units, claims, evidence
//!    [`Score`](super::score::Score), conflicts; firmness, rule 1, gates what it needs);
//! 2. the rules before the search (`rules`: clear winners) and the exact reduction of
//!    dominated claims (`solve`);
//! 3. the search and a [`Verdict`] per unit (`solve`);
//! 4. the rules after it (`nested`, then `rules`: twins share, copies dealt);
//! 5. each unit's result: a placed unit's block read and gated (a block that fails the
//!    gates is its owner's all the same: the owner is rejected with the gate's reason,
//!    and no other unit had it), a rejected one with its verdict's code; then rule 7
//!    (`rules::reject_exchangeable`) on what would be emitted.
//!
//! docs/architecture.md, rule 5, states the criterion, the rules and their arguments.

use super::super::Decoded;
use super::claim::{no_candidate, Claim, Unit};
use super::nested::Nested;
use super::problem::{ClaimId, Facts, PerId, Problem, UnitId, MAX_CONFLICTS};
use super::rules::{clear_winners, deal_copies, reject_exchangeable, share_twins, usable_claims};
use super::solve::{dominated_removed, solve, Verdict, CONTAINER_BUDGET};
use super::structural::real_start_indices;
use crate::reason::{Code, Reason};
use std::ops::Range;
use std::rc::Rc;

/// The bytes behind a problem, for the facts the rules after the search ask.
struct Bytes<'a> {
    data: &'a [u8],
    p: &'a Problem,
    claims: &'a [Vec<Claim>],
}

impl Bytes<'_> {
    fn claim(&self, c: ClaimId) -> &Claim {
        let x = &self.p.claims[c];
        &self.claims[x.unit.0][x.own]
    }
}

impl Facts for Bytes<'_> {
    fn real_triangle(&self, at: usize) -> bool {
        real_start_indices(self.data, at)
    }

    fn emitted(&self, c: ClaimId) -> bool {
        self.claim(c).ok(self.data).is_some()
    }
}

/// The manifest's reason for a verdict that places nothing (a placed one has its
/// block's).
fn rejection(v: &Verdict) -> Reason {
    match v {
        Verdict::Placed(c) => Reason::new(Code::NoValidAnchor, format!("internal: placed at claim {}", c.0)),
        Verdict::Ambiguous { why, .. } => Reason::new(Code::AmbiguousAnchor, why.clone()),
        Verdict::NotFound { why } => Reason::new(Code::NoValidAnchor, why.clone()),
        Verdict::OutOfBudget { why } => Reason::new(Code::AnchorOutOfBudget, why.clone()),
    }
}

/// One block, one owner, over the claims of every unit (see the module comment). A
/// unit's result is its one block: decoded when it passes the gates, else rejected with
/// that gate's code. Units with a result already take no part. Returns the claims
/// `(unit, range)` a unit let go of for the block it was given: they are no evidence
/// that anyone owns those bytes. `rivals[u]`: for a unit rejected as two readings
/// fitting where the other reading is another unit's claim, that unit.
pub(super) fn assign_owners(
    data: &[u8],
    units: &[Unit<'_>],
    claims: &mut [Vec<Claim>],
    failures: &[Vec<(usize, Reason)>],
    results: &mut [Option<Result<Rc<Decoded>, Reason>>],
    rivals: &mut [Option<usize>],
) -> Vec<(usize, Range<usize>)> {
    let taking_part: Vec<bool> = results.iter().map(Option::is_none).collect();
    let Some(p) = Problem::build(data, units, claims, &taking_part) else {
        for (u, r) in results.iter_mut().enumerate() {
            if taking_part[u] && !claims[u].is_empty() {
                *r = Some(Err(Reason::new(
                    Code::AnchorOutOfBudget,
                    format!("gave up: more than {MAX_CONFLICTS} conflicting claims in this data section"),
                )));
            }
        }
        fill_unplaced(units, failures, results);
        return Vec::new();
    };
    let claims: &[Vec<Claim>] = claims;
    let facts = Bytes { data, p: &p, claims };
    let mut alive: PerId<ClaimId, bool> = PerId::new(p.claims.0.iter().map(|c| c.firmest).collect());
    let value = p.values();
    let mut container_steps = CONTAINER_BUDGET;
    dominated_removed(&p.by_unit, &value, &p.conflicts, &mut alive, &mut container_steps);
    clear_winners(&p, &mut alive);
    let mut decided = solve(&p, &alive, &mut container_steps);
    let usable = usable_claims(&p);
    Nested {
        p: &p,
        facts: &facts,
        usable: &usable,
    }
    .reject(&mut decided);
    share_twins(&p, &mut decided);
    deal_copies(&p, &mut decided);
    let mut released: Vec<(usize, Range<usize>)> = Vec::new();
    let mut emitted: PerId<UnitId, Option<ClaimId>> = PerId::filled(units.len(), None);
    for d in &decided {
        for (&u, v) in d.comp.units.iter().zip(&d.verdicts) {
            results[u.0] = Some(match v {
                Verdict::Placed(c) => {
                    let range = &p.claims[*c].range;
                    released.extend(
                        claims[u.0]
                            .iter()
                            .filter(|x| x.range != *range)
                            .map(|x| (u.0, x.range.clone())),
                    );
                    let r = facts
                        .claim(*c)
                        .result(data)
                        .as_ref()
                        .map(Rc::clone)
                        .map_err(Reason::clone);
                    if r.is_ok() {
                        emitted[u] = Some(*c);
                    }
                    r
                }
                rejected => {
                    if let Verdict::Ambiguous { rival: Some(y), .. } = rejected {
                        rivals[u.0] = Some(p.owner(*y).0);
                    }
                    Err(rejection(rejected))
                }
            });
        }
    }
    fill_unplaced(units, failures, results);
    for (u, _, why) in reject_exchangeable(&p, &facts, &emitted) {
        rivals[u.0] = None;
        results[u.0] = Some(Err(Reason::new(Code::AmbiguousAnchor, why)));
    }
    released
}

/// Units left without a result had no claim: why nothing was found.
fn fill_unplaced(
    units: &[Unit<'_>],
    failures: &[Vec<(usize, Reason)>],
    results: &mut [Option<Result<Rc<Decoded>, Reason>>],
) {
    for (u, r) in results.iter_mut().enumerate() {
        if r.is_none() {
            *r = Some(Err(no_candidate(&units[u], None, &failures[u])));
        }
    }
}
