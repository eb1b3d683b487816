//! The rules beyond the criterion, in the order `resolve::assign_owners` applies them.
//! Each says what FORMAT.md leaves to the bytes and why the rule follows from it
//! (docs/architecture.md, rule 5, gives the arguments in full):
//!
//! 1. **Firmness** (`problem::firmest`, before the search): a unit takes part with its
//!    firmest readings only — gated if any is, then fewest stray slots, a list of its own
//!    before the tail of a longer one. A misreading cannot fake a block that passes the
//!    gates, nor vertices that every index supports.
//! 2. **Clear winners** ([`clear_winners`], before the search): a claim that is its unit's
//!    one best and firmer than every other unit's claim overlapping it keeps those bytes;
//!    a weaker reading is never taken only to place one more unit.
//! 3. (The search, `solve`: the assignments of greatest value, a verdict per unit.)
//! 4. **Nested windows** (`nested::Nested::reject`): a unit on the tail of another's
//!    window is placed only where the other's own block settles it.
//! 5. **Twins share** ([`share_twins`]): a unit no best assignment places takes a decoded
//!    twin's block (same counts, declaration and bytes: one resource listed twice).
//! 6. **Copies dealt** ([`deal_copies`]): byte-identical copies go to duplicates in
//!    container order (any choice gives the same geometry).
//! 7. **Exchangeable blocks** ([`reject_exchangeable`], on what is emitted): two units
//!    with one index count that can swap their blocks are both "two readings fit".
//!
//! [`usable_claims`] is what rule 4 lets a unit move to.

use super::claim::overlaps;
use super::problem::{ClaimId, Facts, PerId, Problem, UnitId};
use super::score::{firm, strong_start, HEADER_TRIANGLES};
use super::solve::{Decided, Verdict};
use std::collections::{BTreeSet, HashMap};

/// Which claims may be their unit's block: its firmest, or one whose window starts the
/// way a real index buffer does ([`strong_start`]) and takes in no stray slots, whether
/// or not its block passes the gates (a damaged block is its owner's) — but for a claim
/// that fails them where another unit's claim, decodable, ending at the same vertex start
/// with no more indices at the same stride, passes: a damaged block fails every reading
/// of its damage, so that failure lies in what the failing reading has and the passing
/// one has not (the triangles before the shorter list — bytes before a real list, such
/// as a block header that reads as triangles, FORMAT.md §6 — or vertices past the
/// shorter reading's), and the block is not its.
pub(super) fn usable_claims(p: &Problem) -> PerId<ClaimId, bool> {
    let mut passing_at: HashMap<usize, Vec<ClaimId>> = HashMap::new();
    for x in p
        .claim_ids()
        .filter(|&x| p.claims[x].value.gated == 1 && p.units[p.owner(x)].decodable)
    {
        passing_at.entry(p.end(x)).or_default().push(x);
    }
    PerId::new(
        p.claim_ids()
            .map(|x| {
                let u = &p.units[p.owner(x)];
                let v = p.claims[x].value;
                let localized = || {
                    passing_at.get(&p.end(x)).into_iter().flatten().any(|&c| {
                        let uc = &p.units[p.owner(c)];
                        p.owner(c) != p.owner(x) && uc.index_count <= u.index_count && uc.stride == u.stride
                    })
                };
                p.claims[x].firmest || (strong_start(v) && v.stray == 0 && (v.gated == 1 || !localized()))
            })
            .collect(),
    )
}

/// Rule 2: claims that lose to a clear winner are removed from `alive`: a claim that is
/// its unit's one best and is firmer ([`firm`]) than every claim of another unit
/// overlapping it explains those bytes better than any other reading of them, so no
/// other unit is placed there (a weaker reading is never taken only to place one more
/// unit). Repeated while it removes.
pub(super) fn clear_winners(p: &Problem, alive: &mut PerId<ClaimId, bool>) {
    let value = |x: ClaimId| p.claims[x].value;
    let mut changed = true;
    while changed {
        changed = false;
        for xs in &p.by_unit.0 {
            let live: Vec<ClaimId> = xs.iter().copied().filter(|&x| alive[x]).collect();
            let Some(&top) = live.iter().max_by_key(|&&x| value(x)) else {
                continue;
            };
            if live.iter().filter(|&&x| value(x) == value(top)).count() != 1 {
                continue;
            }
            let rivals: Vec<ClaimId> = p.conflicts[top].iter().copied().filter(|&y| alive[y]).collect();
            if !rivals.is_empty() && rivals.iter().all(|&y| firm(value(top)) > firm(value(y))) {
                for y in rivals {
                    alive[y] = false;
                }
                changed = true;
            }
        }
    }
}

/// Rule 5: a unit that the best assignment found leaves unplaced, with a twin that is
/// placed (same counts, declaration and bytes: one resource listed twice), shares the
/// twin's block: the search deals each copy to one unit, and when the copies run out
/// FORMAT.md allows two resources one block if their bytes are identical. (Sharing inside
/// the search would let twins leave a copy free for another unit's misreading of it.)
pub(super) fn share_twins(p: &Problem, decided: &mut [Decided]) {
    let placed_at: Vec<(UnitId, ClaimId)> = decided
        .iter()
        .flat_map(|d| {
            d.comp.units.iter().zip(&d.verdicts).filter_map(|(&u, v)| match v {
                Verdict::Placed(c) => Some((u, *c)),
                _ => None,
            })
        })
        .collect();
    for d in decided {
        for (k, v) in d.verdicts.iter_mut().enumerate() {
            if d.pick[k].is_some() || matches!(v, Verdict::OutOfBudget { .. }) {
                continue;
            }
            let u = d.comp.units[k];
            let twin = placed_at
                .iter()
                .find_map(|&(j, c)| p.by_unit[u].iter().copied().find(|&x| j != u && p.identical(x, c)));
            if let Some(x) = twin {
                *v = Verdict::Placed(x);
            }
        }
    }
}

/// Rule 6: byte-identical blocks of duplicates are shared out: in the order the
/// container lists the units, each placed unit takes the first copy left of its bytes
/// that no other placed unit's block overlaps (it keeps its own where none is free).
pub(super) fn deal_copies(p: &Problem, decided: &mut [Decided]) {
    // Blocks already given to a unit: duplicates (which never conflict, so may sit in
    // components of their own) take the identical copies in turn.
    let mut taken: BTreeSet<usize> = BTreeSet::new();
    let start = |x: ClaimId| p.claims[x].range.start;
    for d in decided {
        let chosen: BTreeSet<ClaimId> = d
            .verdicts
            .iter()
            .filter_map(|v| match v {
                Verdict::Placed(c) => Some(*c),
                _ => None,
            })
            .collect();
        // In the order the container lists the units.
        let mut in_order: Vec<usize> = (0..d.verdicts.len()).collect();
        in_order.sort_by_key(|&k| d.comp.units[k]);
        for k in in_order {
            let Verdict::Placed(c) = &mut d.verdicts[k] else {
                continue;
            };
            let free = d.comp.claims[k].iter().copied().filter(|&x| {
                !taken.contains(&start(x))
                    && p.identical(x, *c)
                    && !p.conflicts[x].iter().any(|&y| {
                        // (A twin's copy is dealt here too: in order, one each.)
                        chosen.contains(&y) && y != *c && !p.identical(y, x)
                    })
            });
            if let Some(x) = free.min_by_key(|&x| start(x)) {
                *c = x;
            }
            taken.insert(start(*c));
        }
    }
}

/// Rule 7: units that can exchange their blocks are left undecided: `u` emitted from the
/// index buffer at `w1`, another unit `x` with the same index count and another vertex
/// count that reads the buffer at `w1` too, and a second buffer `w2` that both read, where `u`'s
/// window is no longer list's tail and its block passes the gates, apart from `x`'s
/// reading at `w1` and from the blocks of third emitted units. Then `u` at `w2` and `x` at
/// `w1` places as many units and FORMAT.md allows it as well (one index list, two vertex
/// counts: what tells them apart lies past the smaller count's vertices, and nothing is
/// promised there, §6), so neither reading is the file's: `u` is "two readings fit",
/// naming the other (whether or not the other was emitted; it is met the same way when it
/// was). `emitted`: per unit, the claim it is emitted from. Returns the units rejected.
pub(super) fn reject_exchangeable(
    p: &Problem,
    facts: &dyn Facts,
    emitted: &PerId<UnitId, Option<ClaimId>>,
) -> Vec<(UnitId, ClaimId, String)> {
    let mut reading: HashMap<usize, Vec<ClaimId>> = HashMap::new();
    for c in p.claim_ids() {
        reading.entry(p.claims[c].range.start).or_default().push(c);
    }
    let placed: Vec<(UnitId, ClaimId)> = emitted
        .0
        .iter()
        .enumerate()
        .filter_map(|(u, c)| c.map(|c| (UnitId(u), c)))
        .collect();
    let range = |c: ClaimId| &p.claims[c].range;
    // Does claim `r` overlap the block of an emitted unit other than `u` and `x`?
    let held = |r: ClaimId, u: UnitId, x: UnitId| {
        placed
            .iter()
            .any(|&(y, c)| y != u && y != x && overlaps(range(c), range(r)))
    };
    let mut rejected = Vec::new();
    for &(u, c1) in &placed {
        let w1 = range(c1).start;
        let spec = &p.units[u];
        let rivals = reading.get(&w1).into_iter().flatten().copied().filter(|&xr| {
            let x = p.owner(xr);
            x != u
                && p.units[x].index_count == spec.index_count
                && p.units[x].vertex_count != spec.vertex_count
                && !held(xr, u, x)
        });
        // `u`'s other reading: a list of its own (not the tail of a longer one, a block
        // header's two triangles aside: FORMAT.md §6's suffix mis-anchor), free of third
        // units, apart from `x`'s reading at `w1`, and one `u` would be emitted from (its
        // block passes the gates there).
        let found = rivals.into_iter().find_map(|xr| {
            let x = p.owner(xr);
            p.by_unit[u]
                .iter()
                .copied()
                .filter(|&c| {
                    range(c).start != w1
                        && p.claims[c].preceding <= HEADER_TRIANGLES
                        && !held(c, u, x)
                        && !overlaps(range(c), range(xr))
                        && facts.emitted(c)
                })
                .map(|c| range(c).start)
                .find(|w2| reading.get(w2).is_some_and(|cs| cs.iter().any(|&y| p.owner(y) == x)))
                .map(|w2| (xr, w2))
        });
        if let Some((xr, w2)) = found {
            let x = &p.units[p.owner(xr)];
            rejected.push((
                u,
                xr,
                format!(
                    "two readings fit: its block at {w1:#x} and the one at {w2:#x} can be exchanged with another \
                     resource's ({} vertices / {} indices), which reads both as well",
                    x.vertex_count, x.index_count
                ),
            ));
        }
    }
    rejected
}

#[cfg(test)]
mod tests {
    //! Each rule on a hand-built problem: what it changes, and what it leaves.
    use super::super::nested::Nested;
    use super::super::problem::{BytesId, ClaimSpec, DeclId, UnitSpec};
    use super::super::score::Score;
    use super::super::solve::Component;
    use super::*;

    /// A unit of `v` vertices, `i` indices, stride 12, one declaration.
    fn unit(v: u32, i: u32) -> UnitSpec {
        UnitSpec {
            vertex_count: v,
            index_count: i,
            stride: 12,
            decl: DeclId(0),
            decodable: true,
        }
    }

    /// Evidence: placed, then the gates, stray slots, edge triangles, strength.
    fn value(gated: i64, stray: i64, preceding: i64, strength: i64) -> Score {
        Score {
            placed: 1,
            gated,
            stray,
            preceding,
            normals: 0,
            strength,
        }
    }

    fn claim(u: usize, range: std::ops::Range<usize>, bytes: usize, value: Score) -> ClaimSpec {
        ClaimSpec {
            unit: UnitId(u),
            range,
            value,
            firmest: true,
            bytes: BytesId(bytes),
            preceding: 0,
            own: 0,
        }
    }

    /// Every triangle real, every block passing the gates (or none).
    struct AllTrue(bool);

    impl Facts for AllTrue {
        fn real_triangle(&self, _: usize) -> bool {
            self.0
        }
        fn emitted(&self, _: ClaimId) -> bool {
            self.0
        }
    }

    /// One decided component per unit, each with its verdict and pick.
    fn decided(units: &[(usize, Verdict, Option<usize>)], p: &Problem) -> Vec<Decided> {
        units
            .iter()
            .map(|(u, v, pick)| Decided {
                comp: Component {
                    units: vec![UnitId(*u)],
                    claims: vec![p.by_unit[UnitId(*u)].clone()],
                },
                verdicts: vec![v.clone()],
                pick: vec![pick.map(ClaimId)],
            })
            .collect()
    }

    #[test]
    fn rule_2_a_clear_winner_keeps_its_bytes() {
        // Unit 0's one best claim passes the gates; unit 1's claim on the same bytes does
        // not: it is removed, unit 1's other claim stays.
        let units = vec![unit(5, 6), unit(4, 6)];
        let claims = vec![
            claim(0, 0..40, 1, value(1, 0, 0, 3)),
            claim(1, 10..50, 2, value(0, 0, 0, 3)),
            claim(1, 60..90, 3, value(0, -1, 0, 3)),
        ];
        let p = Problem::from_parts(units.clone(), claims).unwrap();
        let mut alive = PerId::filled(3, true);
        clear_winners(&p, &mut alive);
        assert_eq!(alive.0, vec![true, false, true]);
        // Two equal best claims: no clear winner, nothing removed.
        let claims = vec![
            claim(0, 0..40, 1, value(1, 0, 0, 3)),
            claim(0, 100..140, 4, value(1, 0, 0, 3)),
            claim(1, 10..50, 2, value(0, 0, 0, 3)),
        ];
        let p = Problem::from_parts(units, claims).unwrap();
        let mut alive = PerId::filled(3, true);
        clear_winners(&p, &mut alive);
        assert_eq!(alive.0, vec![true, true, true]);
    }

    #[test]
    fn usable_claims_are_firm_or_start_like_a_list_without_stray_slots() {
        // Claim 0: not firmest, strong start, no stray slots, fails the gates — usable,
        // unless a decodable reading of no more indices at the same vertex start passes.
        let mut c0 = claim(0, 0..40, 1, value(0, 0, 0, 3));
        c0.firmest = false;
        let mut c1 = claim(1, 100..140, 2, value(0, -1, 0, 3));
        c1.firmest = false;
        let p = Problem::from_parts(vec![unit(5, 6), unit(5, 6)], vec![c0.clone(), c1]).unwrap();
        assert_eq!(usable_claims(&p).0, vec![true, false]);
        // Unit 1 (4 indices) passes at claim 0's vertex start (12): the failure is claim 0's.
        let c2 = claim(1, 4..40, 2, value(1, 0, 0, 3));
        let p = Problem::from_parts(vec![unit(5, 6), unit(5, 4)], vec![c0, c2]).unwrap();
        assert_eq!(usable_claims(&p).0, vec![false, true]);
    }

    #[test]
    fn rule_4_a_window_on_an_unplaced_units_tail_is_rejected() {
        // Unit 0 (6 indices) placed at 6..40, its window ending at 18; unit 1 (9 indices,
        // other counts) reads the same vertices from 0, unplaced: whose list is it?
        let claims = vec![
            claim(0, 6..40, 1, value(1, 0, 0, 3)),
            claim(1, 0..40, 2, value(1, 0, -1, 1)),
        ];
        let p = Problem::from_parts(vec![unit(5, 6), unit(5, 9)], claims).unwrap();
        let usable = PerId::filled(2, true);
        let run = |real: bool| {
            let mut d = decided(
                &[
                    (0, Verdict::Placed(ClaimId(0)), Some(0)),
                    (1, Verdict::NotFound { why: String::new() }, None),
                ],
                &p,
            );
            Nested {
                p: &p,
                facts: &AllTrue(real),
                usable: &usable,
            }
            .reject(&mut d);
            d[0].verdicts[0].clone()
        };
        assert!(matches!(
            run(true),
            Verdict::Ambiguous {
                rival: Some(ClaimId(1)),
                ..
            }
        ));
        // The extension does not read as real triangles (zero padding): unit 0 keeps it.
        assert_eq!(run(false), Verdict::Placed(ClaimId(0)));
    }

    #[test]
    fn rule_5_an_unplaced_twin_shares_a_copy() {
        // Units 0 and 1 are twins; unit 0 was given its block (bytes 7), unit 1 none.
        let share = |bytes_of_1: usize| {
            let claims = vec![
                claim(0, 0..40, 7, value(1, 0, 0, 3)),
                claim(1, 0..40, bytes_of_1, value(1, 0, 0, 3)),
            ];
            let p = Problem::from_parts(vec![unit(5, 6), unit(5, 6)], claims).unwrap();
            let mut d = decided(
                &[
                    (0, Verdict::Placed(ClaimId(0)), Some(0)),
                    (1, Verdict::NotFound { why: String::new() }, None),
                ],
                &p,
            );
            share_twins(&p, &mut d);
            d[1].verdicts[0].clone()
        };
        // A copy of the twin's bytes is shared; another block is not.
        assert_eq!(share(7), Verdict::Placed(ClaimId(1)));
        assert!(matches!(share(8), Verdict::NotFound { .. }));
    }

    #[test]
    fn rule_6_copies_are_dealt_in_container_order() {
        // Twins 0 and 1, both placed on the copy at 0; a second copy at 100.
        let claims = vec![
            claim(0, 0..40, 7, value(1, 0, 0, 3)),
            claim(0, 100..140, 7, value(1, 0, 0, 3)),
            claim(1, 0..40, 7, value(1, 0, 0, 3)),
            claim(1, 100..140, 7, value(1, 0, 0, 3)),
        ];
        let p = Problem::from_parts(vec![unit(5, 6), unit(5, 6)], claims).unwrap();
        let mut d = vec![Decided {
            comp: Component {
                units: vec![UnitId(1), UnitId(0)],
                claims: vec![vec![ClaimId(2), ClaimId(3)], vec![ClaimId(0), ClaimId(1)]],
            },
            verdicts: vec![Verdict::Placed(ClaimId(2)), Verdict::Placed(ClaimId(0))],
            pick: vec![Some(ClaimId(2)), Some(ClaimId(0))],
        }];
        deal_copies(&p, &mut d);
        // Unit 0 (first in the container) takes the first copy, unit 1 the next.
        assert_eq!(
            d[0].verdicts,
            vec![Verdict::Placed(ClaimId(3)), Verdict::Placed(ClaimId(0))]
        );
    }

    #[test]
    fn rule_7_blocks_two_units_can_exchange_are_rejected() {
        // Unit 0 (5 vertices, 6 indices) emitted at 0; unit 1 (4 vertices, 6 indices)
        // reads both that buffer and the one at 100, as does unit 0.
        let claims = vec![
            claim(0, 0..72, 1, value(1, 0, 0, 3)),
            claim(0, 100..172, 2, value(1, -1, 0, 3)),
            claim(1, 0..60, 3, value(1, 0, 0, 3)),
            claim(1, 100..160, 4, value(1, 0, 0, 3)),
        ];
        let p = Problem::from_parts(vec![unit(5, 6), unit(4, 6)], claims).unwrap();
        let mut emitted: PerId<UnitId, Option<ClaimId>> = PerId::filled(2, None);
        emitted[UnitId(0)] = Some(ClaimId(0));
        let r = reject_exchangeable(&p, &AllTrue(true), &emitted);
        assert_eq!(
            r.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>(),
            vec![(UnitId(0), ClaimId(2))]
        );
        // Its other block fails the gates: it could not be emitted there, no exchange.
        assert!(reject_exchangeable(&p, &AllTrue(false), &emitted).is_empty());
    }
}
