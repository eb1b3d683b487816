//! Rule 4, nested windows: a unit placed on a window that is the tail of another unit's
//! claim at the same vertex start (the other's list is the same list after bytes that
//! read as triangles, FORMAT.md §6's suffix mis-anchor) keeps it only where the bytes
//! settle whose block it is. Owns the check ([`Nested::reject`]) and the trade test that
//! asks whether the other placement explains the bytes as well
//! ([`Nested::trade_explains_as_well`]).

use super::claim::overlaps;
use super::problem::{ClaimId, Facts, PerId, Problem, UnitId};
use super::score::{window, Window};
use super::solve::{Decided, Verdict};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

/// Nested windows at one vertex start (see [`Nested::reject`]).
pub(super) struct Nested<'a> {
    pub(super) p: &'a Problem,
    pub(super) facts: &'a dyn Facts,
    /// Whether each claim may be its unit's block (`rules::usable_claims`).
    pub(super) usable: &'a PerId<ClaimId, bool>,
}

/// Can the trade's moving units add window evidence `need` to `have`, no two of their
/// claims overlapping ([`Nested::trade_explains_as_well`])? Exhaustive from option list
/// `k` on (a unit takes one of its `options` or none; `look` gives a claim's range and
/// evidence); stops once it reaches `need`, or when the steps run out (then the trade
/// counts as possible).
fn reaches(
    k: usize,
    have: Window,
    need: Window,
    options: &[Vec<ClaimId>],
    taken: &mut Vec<ClaimId>,
    look: &dyn Fn(ClaimId) -> (Range<usize>, Window),
    steps: &mut usize,
) -> bool {
    if have >= need || *steps == 0 {
        return true;
    }
    if k == options.len() {
        return false;
    }
    *steps -= 1;
    for &z in &options[k] {
        let (rz, wz) = look(z);
        if taken.iter().all(|&t| !overlaps(&look(t).0, &rz)) {
            taken.push(z);
            let found = reaches(k + 1, have.add(wz), need, options, taken, look, steps);
            taken.pop();
            if found {
                return true;
            }
        }
    }
    reaches(k + 1, have, need, options, taken, look, steps)
}

/// Most units and claims per unit the trade test ([`Nested::trade_explains_as_well`]) tries;
/// past them (or its steps), the trade is taken as possible: the nested unit is rejected.
const TRADE_UNITS: usize = 8;
const TRADE_CLAIMS: usize = 16;
const TRADE_STEPS: usize = 1 << 14;

/// The placed units: per unit, the claim the best assignment found gives it.
type Placed = BTreeMap<UnitId, ClaimId>;

impl Nested<'_> {
    fn range(&self, c: ClaimId) -> &Range<usize> {
        &self.p.claims[c].range
    }

    /// Does claim `x` (of another unit) hold a window of unit `s` ending where its own
    /// ends: as many indices or more before them (other counts), and every triangle of
    /// the extension three distinct indices? (Degenerate triangles, zero padding read as
    /// (0, 0, 0), decide: a list does not start with them.) Both read vertices from the
    /// same start; however many each reads, the window is one list's or the other's.
    fn nests(&self, x: ClaimId, s: UnitId) -> bool {
        let w = self.p.owner(x);
        let (uw, us) = (&self.p.units[w], &self.p.units[s]);
        let (iw, is) = (uw.index_count as usize, us.index_count as usize);
        let q = self.p.end(x);
        w != s
            && iw >= is
            && (iw, uw.vertex_count) != (is, us.vertex_count)
            && q >= 2 * iw
            && (q - 2 * iw..q - 2 * is).step_by(6).all(|t| self.facts.real_triangle(t))
    }

    /// The world with unit `l` held at its claim `x` instead of `y`, where it is placed:
    /// the units whose blocks `x` overlaps are displaced, `y` is freed, and the displaced
    /// units, the unplaced ones claiming bytes of `y`, and (until none is added) the
    /// placed ones whose blocks a usable claim of those overlaps take usable claims of
    /// theirs that overlap no block kept and no other's. Usable: their firmest, or any
    /// whose window starts the way a real index buffer does and that takes in no stray
    /// slots, whether or not its block passes the gates (a damaged block is its owner's;
    /// a misreading shows a weak start or stray slots). Does that world hold as much
    /// window evidence ([`Window`]: units placed, then edge triangles, then strength; the
    /// gates do not count, a damaged block being its owner's) as the best assignment has
    /// there? Then the bytes do not tell the two worlds apart. (Only the units next to `x`
    /// and `y` move: a world found is a real one, a world missed keeps the best
    /// assignment's answer. Past the limits the trade is taken as possible.)
    pub(super) fn trade_explains_as_well(&self, l: UnitId, x: ClaimId, y: ClaimId, placed: &Placed) -> bool {
        let Some(pool) = self.moving_units(l, x, y, placed) else {
            return true;
        };
        let Some(options) = self.trade_options(l, x, &pool, placed) else {
            return true;
        };
        let value = |c: ClaimId| self.p.claims[c].value;
        let before = pool
            .iter()
            .filter_map(|u| placed.get(u))
            .map(|&c| window(value(c)))
            .fold(window(value(y)), Window::add);
        let look = |c: ClaimId| (self.range(c).clone(), window(value(c)));
        let mut steps = TRADE_STEPS;
        reaches(
            0,
            window(value(x)),
            before,
            &options,
            &mut Vec::new(),
            &look,
            &mut steps,
        )
    }

    /// The units that move when unit `l` is held at `x` instead of `y` (see
    /// [`Self::trade_explains_as_well`]): those whose blocks `x` overlaps, the unplaced
    /// ones with a claim on `y`'s bytes, and, until none is added, the placed ones whose
    /// blocks a usable claim of a moving unit overlaps. `None` past [`TRADE_UNITS`].
    fn moving_units(&self, l: UnitId, x: ClaimId, y: ClaimId, placed: &Placed) -> Option<Vec<UnitId>> {
        let by_unit = &self.p.by_unit;
        let mut pool: Vec<UnitId> = placed
            .iter()
            .filter(|&(&u, &c)| u != l && overlaps(self.range(c), self.range(x)))
            .map(|(&u, _)| u)
            .collect();
        pool.extend((0..by_unit.len()).map(UnitId).filter(|&u| {
            u != l && !placed.contains_key(&u) && by_unit[u].iter().any(|&z| overlaps(self.range(z), self.range(y)))
        }));
        let mut next = 0;
        while next < pool.len() {
            if pool.len() > TRADE_UNITS {
                return None;
            }
            let u = pool[next];
            next += 1;
            for z in by_unit[u]
                .iter()
                .copied()
                .filter(|&z| self.usable[z] && !overlaps(self.range(z), self.range(x)))
            {
                for (&w, &c) in placed {
                    if w != l && !pool.contains(&w) && overlaps(self.range(c), self.range(z)) {
                        pool.push(w);
                    }
                }
            }
        }
        (pool.len() <= TRADE_UNITS).then_some(pool)
    }

    /// Per moving unit of `pool`, its usable claims that overlap no block kept (those of
    /// the units that stay, and `x`, where unit `l` is held). `None` past
    /// [`TRADE_CLAIMS`] for one unit.
    fn trade_options(&self, l: UnitId, x: ClaimId, pool: &[UnitId], placed: &Placed) -> Option<Vec<Vec<ClaimId>>> {
        let kept: Vec<ClaimId> = placed
            .iter()
            .filter(|&(u, _)| *u != l && !pool.contains(u))
            .map(|(_, &c)| c)
            .chain([x])
            .collect();
        let options: Vec<Vec<ClaimId>> = pool
            .iter()
            .map(|&u| {
                self.p.by_unit[u]
                    .iter()
                    .copied()
                    .filter(|&z| self.usable[z] && !kept.iter().any(|&k| overlaps(self.range(z), self.range(k))))
                    .collect()
            })
            .collect();
        (!options.iter().any(|o| o.len() > TRADE_CLAIMS)).then_some(options)
    }

    /// A unit given a block whose window is the tail of another unit's claim there (its
    /// list that one's after bytes that read as triangles, the same vertices read) is
    /// placed only where the other unit's own block settles it: the other unit is placed
    /// elsewhere, on a block where this unit cannot read as well. Otherwise whose block
    /// it is, the longer list's or the shorter one's, only the preference of FORMAT.md §6
    /// says ("not a proof"): the other unit unplaced, or the two blocks exchangeable (each
    /// unit's window nested in the other's at the other block), and both are rejected.
    pub(super) fn reject(&self, decided: &mut [Decided]) {
        let p = self.p;
        // The usable claims by the vertex start their window ends at.
        let mut ending_at: HashMap<usize, Vec<ClaimId>> = HashMap::new();
        for x in p.claim_ids().filter(|&x| self.usable[x]) {
            ending_at.entry(p.end(x)).or_default().push(x);
        }
        // Where each unit's verdict is, and the block the best assignment gives it
        // (whether or not that block is its in every best assignment).
        let mut at: BTreeMap<UnitId, (usize, usize)> = BTreeMap::new();
        let mut placed: Placed = BTreeMap::new();
        for (n, d) in decided.iter().enumerate() {
            for (k, pk) in d.pick.iter().enumerate() {
                let u = d.comp.units[k];
                at.insert(u, (n, k));
                // (A unit the best assignment found leaves unplaced while another as good
                // places it is checked where its verdict places it.)
                let verdict = match d.verdicts[k] {
                    Verdict::Placed(c) => Some(c),
                    _ => None,
                };
                if let Some(c) = pk.or(verdict) {
                    placed.insert(u, c);
                }
            }
        }
        let mut rejected: Vec<(UnitId, ClaimId, String)> = Vec::new();
        let decoded = |u: UnitId| {
            at.get(&u)
                .is_some_and(|&(n, k)| matches!(decided[n].verdicts[k], Verdict::Placed(_)))
        };
        // (A unit rejected already, e.g. between two copies of its own block, still holds
        // a block there: the other unit may be on its tail.)
        for (&s, &c) in placed.iter() {
            // Where the unit is: its claim, or, when the search left it between claims on
            // that block, any of its firmest claims there.
            let here: Vec<usize> = if decoded(s) {
                vec![p.end(c)]
            } else {
                p.by_unit[s]
                    .iter()
                    .filter(|&&z| p.claims[z].firmest && overlaps(self.range(z), self.range(c)))
                    .map(|&z| p.end(z))
                    .collect()
            };
            let rival = here
                .iter()
                .flat_map(|q| ending_at.get(q).into_iter().flatten().copied())
                .find_map(|x| {
                    if !self.nests(x, s) {
                        return None;
                    }
                    let l = p.owner(x);
                    match placed.get(&l) {
                        None => Some((x, None)),
                        Some(&y) => {
                            // Exchangeable: the other unit's block holds a window of this one
                            // nested the same way; or the other unit reads more strongly at
                            // the nesting claim than where it is placed (it is never moved to
                            // a weaker reading of its own to make room); or holding it at the
                            // nesting claim explains the bytes as well
                            // ([`Nested::trade_explains_as_well`]).
                            let q = p.end(y);
                            let swap = (self.nests(y, s) && p.by_unit[s].iter().any(|&z| p.end(z) == q))
                                || p.claims[x].value > p.claims[y].value
                                || self.trade_explains_as_well(l, x, y, &placed);
                            swap.then_some((x, Some((l, y))))
                        }
                    }
                });
            match rival {
                None => {}
                Some((x, None)) => rejected.push((
                    s,
                    x,
                    format!(
                        "two readings fit: its window is the tail of another resource's at {} (more \
                         indices before them, reading its vertices), which has no block of its own: its \
                         block or the other's after bytes that read as triangles, the bytes cannot tell",
                        p.describe(x)
                    ),
                )),
                Some((x, Some((l, y)))) => {
                    let why = format!(
                        "two readings fit: its block and another resource's can be exchanged: its window \
                         is the tail of the other's at {}, and the other placed there instead of at {} \
                         explains the bytes as well; only the preference of FORMAT.md §6 tells them apart",
                        p.describe(x),
                        p.describe(y)
                    );
                    rejected.push((s, x, why.clone()));
                    rejected.push((l, c, why));
                }
            }
        }
        let rejected: Vec<(UnitId, ClaimId, String)> = rejected.into_iter().filter(|r| decoded(r.0)).collect();
        for (u, rival, why) in rejected {
            if let Some(&(n, k)) = at.get(&u) {
                decided[n].verdicts[k] = Verdict::Ambiguous {
                    rival: Some(rival),
                    why,
                };
            }
        }
    }
}
