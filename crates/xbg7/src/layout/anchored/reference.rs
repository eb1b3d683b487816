//! The reference solver (test-only): every assignment of a small problem enumerated, the
//! verdicts read off the definition, and a property test that the real solver (its
//! reductions, bounds, splitting and searches) gives the same verdicts on random
//! problems — random claims and conflicts, evidence, twins with byte-identical blocks,
//! units without claims alive.
//!
//! The definition, over the assignments `O` of greatest value (each unit at most one of
//! its alive claims, no two in conflict): a unit is **placed** on bytes `B` when some
//! assignment of `O` places it, every one that does puts it on `B`, and every one holds
//! `B` (it, or a twin on a byte-identical copy); **not found** when none places it;
//! **ambiguous** otherwise.

use super::problem::{BytesId, ClaimId, ClaimSpec, DeclId, PerId, Problem, UnitId, UnitSpec};
use super::score::Score;
use super::solve::{dominated_removed, solve, Verdict};
use proptest::prelude::*;

/// A verdict as the definition gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Expected {
    Placed(BytesId),
    Ambiguous,
    NotFound,
}

/// Every assignment of units `k..` (each an alive claim or none, no conflict with
/// `taken`), with its value, appended to `out`.
fn enumerate(
    p: &Problem,
    alive: &PerId<ClaimId, bool>,
    k: usize,
    taken: &mut Vec<ClaimId>,
    value: Score,
    out: &mut Vec<(Score, Vec<ClaimId>)>,
) {
    if k == p.units.len() {
        out.push((value, taken.clone()));
        return;
    }
    enumerate(p, alive, k + 1, taken, value, out);
    for &c in &p.by_unit[UnitId(k)] {
        if alive[c] && !taken.iter().any(|t| p.conflicts[c].contains(t)) {
            taken.push(c);
            enumerate(p, alive, k + 1, taken, value + p.claims[c].value, out);
            taken.pop();
        }
    }
}

/// The verdict of every unit with a claim, by the definition (module comment).
pub(super) fn reference(p: &Problem, alive: &PerId<ClaimId, bool>) -> Vec<(UnitId, Expected)> {
    let mut all = Vec::new();
    enumerate(p, alive, 0, &mut Vec::new(), Score::default(), &mut all);
    let opt = all.iter().map(|a| a.0).max().unwrap_or_default();
    let best: Vec<&Vec<ClaimId>> = all.iter().filter(|a| a.0 == opt).map(|a| &a.1).collect();
    (0..p.units.len())
        .map(UnitId)
        .filter(|&u| !p.by_unit[u].is_empty())
        .map(|u| {
            let on: Vec<BytesId> = best
                .iter()
                .filter_map(|a| a.iter().find(|&&c| p.owner(c) == u))
                .map(|&c| p.claims[c].bytes)
                .collect();
            let verdict = match on.first() {
                None => Expected::NotFound,
                Some(&b)
                    if on.iter().all(|&x| x == b) && best.iter().all(|a| a.iter().any(|&c| p.claims[c].bytes == b)) =>
                {
                    Expected::Placed(b)
                }
                Some(_) => Expected::Ambiguous,
            };
            (u, verdict)
        })
        .collect()
}

/// A random small problem: units with a few claims each (ranges in a short section, so
/// many overlap), twins (same counts and declaration) whose claims may be byte-identical
/// copies, random evidence, and which claims are alive.
fn problem() -> impl Strategy<Value = (Problem, PerId<ClaimId, bool>)> {
    let unit = (0u32..3, 0usize..2, any::<bool>());
    let claim = (
        0usize..6,
        0usize..48,
        1usize..14,
        0usize..3,
        (0i64..2, -2i64..1, -1i64..1, -2i64..1, 0i64..4),
        0u8..8,
    );
    (
        proptest::collection::vec(unit, 1..6),
        proptest::collection::vec(claim, 0..12),
    )
        .prop_filter_map("a problem within bounds", |(units, claims)| {
            let specs: Vec<UnitSpec> = units
                .iter()
                .map(|&(shape, decl, decodable)| UnitSpec {
                    vertex_count: 3 + shape,
                    index_count: 3 * (1 + shape),
                    stride: 12,
                    decl: DeclId(decl),
                    decodable,
                })
                .collect();
            let n = specs.len();
            let mut alive = Vec::new();
            let claims: Vec<ClaimSpec> = claims
                .into_iter()
                .map(
                    |(u, start, len, copy, (gated, stray, preceding, normals, strength), flags)| {
                        let u = u % n;
                        let s = &specs[u];
                        // Byte-identical copies: the same shape (counts, declaration), a copy
                        // number, and the same length.
                        let len = if copy > 0 { 6 } else { len };
                        let bytes = if copy > 0 {
                            BytesId(1000 * (1 + copy) + 100 * s.vertex_count as usize + 10 * s.decl.0)
                        } else {
                            BytesId(start * 64 + len + 100_000 * (u + 1))
                        };
                        alive.push(flags & 3 != 0);
                        ClaimSpec {
                            unit: UnitId(u),
                            range: start..start + len,
                            value: Score {
                                placed: 1,
                                gated,
                                stray,
                                preceding,
                                normals,
                                strength,
                            },
                            firmest: flags & 4 != 0,
                            bytes,
                            preceding: 0,
                            own: 0,
                        }
                    },
                )
                .collect();
            // Units sorted by claim order inside `from_parts`: each unit's claims keep
            // their order; every claim id is its position.
            Problem::from_parts(specs, claims).map(|p| (p, PerId::new(alive)))
        })
}

/// A problem in one line per claim (for a failing case).
fn compact(p: &Problem, alive: &PerId<ClaimId, bool>) -> String {
    let mut out = String::new();
    for c in p.claim_ids() {
        let x = &p.claims[c];
        let v = x.value;
        out += &format!(
            "\nclaim {} unit {} {:?} bytes {} alive {} value ({} {} {} {} {} {}) conflicts {:?}",
            c.0,
            x.unit.0,
            x.range,
            x.bytes.0,
            alive[c],
            v.placed,
            v.gated,
            v.stray,
            v.preceding,
            v.normals,
            v.strength,
            p.conflicts[c].iter().map(|y| y.0).collect::<Vec<_>>()
        );
    }
    out
}

proptest! {
    #[test]
    fn the_solver_gives_the_reference_verdicts((p, alive) in problem()) {
        let want = reference(&p, &alive);
        let mut live = alive.clone();
        let mut steps = usize::MAX / 4;
        dominated_removed(&p.by_unit, &p.values(), &p.conflicts, &mut live, &mut steps);
        let mut got: Vec<(UnitId, Expected)> = solve(&p, &live, &mut steps)
            .into_iter()
            .flat_map(|d| {
                d.comp.units.into_iter().zip(d.verdicts).map(|(u, v)| {
                    (u, match v {
                        Verdict::Placed(c) => Expected::Placed(p.claims[c].bytes),
                        Verdict::Ambiguous { .. } => Expected::Ambiguous,
                        Verdict::NotFound { .. } => Expected::NotFound,
                        Verdict::OutOfBudget { .. } => panic!("a small problem ran out of budget"),
                    })
                }).collect::<Vec<_>>()
            })
            .collect();
        got.sort_by_key(|g| g.0);
        prop_assert_eq!(&got, &want, "{}", compact(&p, &alive));
    }
}

/// `p` with unit `u` read by structure (undecodable: its claims' evidence neutral, as
/// [`super::score::score`] gives an undecodable unit's) and given one more claim, its
/// reading apart: bytes no claim shares, valued as the strongest reading by structure
/// can be. Returns that problem, its alive claims and the reading's id.
fn with_reading_apart(
    p: &Problem,
    alive: &PerId<ClaimId, bool>,
    u: UnitId,
) -> Option<(Problem, PerId<ClaimId, bool>, ClaimId)> {
    let mut units = p.units.0.clone();
    units[u.0].decodable = false;
    let mut claims = p.claims.0.clone();
    for c in claims.iter_mut().filter(|c| c.unit == u) {
        (c.value.gated, c.value.stray, c.value.normals) = (1, 0, 0);
    }
    let end = claims.iter().map(|c| c.range.end).max().unwrap_or(0);
    claims.push(ClaimSpec {
        unit: u,
        range: end + 1..end + 7,
        value: Score {
            placed: 1,
            gated: 1,
            stray: 0,
            preceding: 0,
            normals: 0,
            strength: 3,
        },
        firmest: true,
        bytes: BytesId(usize::MAX),
        preceding: 0,
        own: 0,
    });
    let mut live = alive.0.clone();
    live.push(true);
    let apart = ClaimId(claims.len() - 1);
    Problem::from_parts(units, claims).map(|q| (q, PerId::new(live), apart))
}

/// `p` without unit `u` and its claims; the other units' ids shift down past it.
fn without_unit(p: &Problem, alive: &PerId<ClaimId, bool>, u: UnitId) -> Option<(Problem, PerId<ClaimId, bool>)> {
    let mut units = p.units.0.clone();
    units.remove(u.0);
    let (claims, live): (Vec<ClaimSpec>, Vec<bool>) = p
        .claims
        .0
        .iter()
        .zip(&alive.0)
        .filter(|(c, _)| c.unit != u)
        .map(|(c, &a)| {
            let mut c = c.clone();
            c.unit = UnitId(c.unit.0 - usize::from(c.unit.0 > u.0));
            (c, a)
        })
        .unzip();
    Problem::from_parts(units, claims).map(|q| (q, PerId::new(live)))
}

proptest! {
    /// Rule 9, a tie with an owner's block (docs/architecture.md): a unit read by
    /// structure that also has a reading apart (bytes no claim shares, at least as strong as any of its claims) can be taken
    /// out of the ownership problem: every other unit's verdict is the same without it;
    /// and where each of its alive claims shares a byte with a block placed without it
    /// (on bytes no other claim copies: [`super::open_claim`]), it is placed on its
    /// reading apart. Random problems: any claims, conflicts, twins and byte-identical
    /// copies, evidence, alive claims; the unit any of them.
    #[test]
    fn a_unit_with_a_reading_apart_leaves_every_other_verdict_alone(
        (p, alive) in problem(),
        pick in any::<prop::sample::Index>(),
    ) {
        let u = UnitId(pick.index(p.units.len()));
        let Some((full, full_alive, apart)) = with_reading_apart(&p, &alive, u) else { return Ok(()) };
        let Some((reduced, reduced_alive)) = without_unit(&full, &full_alive, u) else { return Ok(()) };
        let whole = reference(&full, &full_alive);
        let without = reference(&reduced, &reduced_alive);
        let others: Vec<(UnitId, Expected)> = whole
            .iter()
            .filter(|(w, _)| *w != u)
            .map(|(w, e)| (UnitId(w.0 - usize::from(w.0 > u.0)), e.clone()))
            .collect();
        prop_assert_eq!(&others, &without, "unit {}{}", u.0, compact(&full, &full_alive));
        // The blocks placed without it, each on bytes no other claim copies.
        let alone: Vec<std::ops::Range<usize>> = without
            .iter()
            .filter_map(|(w, e)| match e {
                Expected::Placed(b) => {
                    let on: Vec<&ClaimSpec> = reduced.claims.0.iter().filter(|c| c.bytes == *b).collect();
                    let first = &on.first()?.range;
                    (reduced.by_unit[*w].iter().any(|&c| reduced.claims[c].bytes == *b)
                        && on.iter().all(|c| c.range == *first))
                    .then(|| first.clone())
                }
                _ => None,
            })
            .collect();
        let own: Vec<std::ops::Range<usize>> = full.by_unit[u]
            .iter()
            .filter(|&&c| c != apart && full_alive[c])
            .map(|&c| full.claims[c].range.clone())
            .collect();
        if super::open_claim(&own, None, &alone).is_none() {
            let got = whole.iter().find(|(w, _)| *w == u).map(|(_, e)| e.clone());
            prop_assert_eq!(got, Some(Expected::Placed(BytesId(usize::MAX))), "unit {}{}", u.0, compact(&full, &full_alive));
        }
    }
}
