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
