//! One block, one owner, decided for the whole container at once.
//!
//! Every unit (decodable or not) brings its claims ([`Claim`]); only its *firmest* take
//! part (gates passed if any passes, then fewest stray slots: [`firm`]). Two claims of
//! different units **conflict** when their byte ranges overlap (byte-identical duplicates
//! aside). An *assignment* gives each unit at most one of its claims, no two in conflict.
//! The solver takes the assignments that place the most units, then those with the
//! strongest evidence ([`Score`]), and a unit is placed only when it gets the same block
//! (the same bytes) in **every** such assignment; otherwise it is `ambiguous_anchor`,
//! naming the rival. Conflicts form components; each is searched exactly, by a branch
//! and bound that splits into independent parts ([`Search`]), under a work budget: when
//! the budget runs out, the component's units are rejected, never guessed. Claims that
//! are firmer than every claim overlapping them keep their bytes first
//! ([`clear_winners`]); two reductions that keep every best assignment shrink the search
//! ([`dominated_removed`], [`probe`]). Nested windows the bytes cannot tell apart are
//! rejected after the search ([`Nested::reject`]).
//!
//! The index windows of the claims are looked at with every other resource's counts
//! ([`structural_claims`]), so an owner the exporter cannot decode still holds its block
//! against a sibling that would read the same bytes. docs/architecture.md, rule 5, states
//! the criterion and its argument.
//!
//! [`assign_owners`] runs the phases in order: each unit's claims ranked
//! ([`rank_claims`]), the conflicting pairs swept ([`conflicting_pairs`]), the evidence
//! and reductions ([`Owners::new`]), the components formed and ordered, each reduced and
//! searched with its verdicts ([`Owners::search_components`]), nested windows rejected,
//! twins sharing a block, and the results recorded ([`Owners::record`]).

use super::super::{Decoded, Placement};
use super::claim::{identical, no_candidate, overlaps, Block, Claim, Reading, Unit};
use super::search::{
    count_unit_normals, leading_degenerate, preceding_triangles, referenced, stray_slots, window_valid, Windows,
};
use crate::decl::{Declaration, Element};
use crate::gates::GateConfig;
use crate::reason::{Code, Reason};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use std::rc::Rc;

/// The evidence of an assignment, compared lexicographically, each a sum over its claims:
/// units placed; blocks that pass the gates; fewest stray slots ([`stray_slots`]); fewest
/// edge triangles ([`Claim::preceding`]) past a block header's two; fewest declared normals
/// that are not unit; window strength ([`Claim::strength`], header-blind likewise: see
/// [`score`]). For an undecodable unit the reading's measures (gates,
/// stray slots, normals) are neutral; without a NORMAL, stray slots and normals are 0
/// (such units are pinned by stricter window checks instead).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Score {
    placed: i64,
    gated: i64,
    stray: i64,
    preceding: i64,
    normals: i64,
    strength: i64,
}

impl Score {
    /// The least score above `self` (scores are integer tuples in lexicographic order, so
    /// `x > s` exactly when `x >= s.succ()`).
    fn succ(self) -> Score {
        Score {
            strength: self.strength + 1,
            ..self
        }
    }
}

impl std::ops::Sub for Score {
    type Output = Score;
    fn sub(self, o: Score) -> Score {
        Score {
            placed: self.placed - o.placed,
            gated: self.gated - o.gated,
            stray: self.stray - o.stray,
            normals: self.normals - o.normals,
            preceding: self.preceding - o.preceding,
            strength: self.strength - o.strength,
        }
    }
}

impl std::ops::Add for Score {
    type Output = Score;
    fn add(self, o: Score) -> Score {
        Score {
            placed: self.placed + o.placed,
            gated: self.gated + o.gated,
            stray: self.stray + o.stray,
            strength: self.strength + o.strength,
            normals: self.normals + o.normals,
            preceding: self.preceding + o.preceding,
        }
    }
}

/// Triangles a block header can read as: its 12 bytes (FORMAT.md §6, the notes' header
/// before a model's first index buffer; contents unknown) hold two.
pub(crate) const HEADER_TRIANGLES: u32 = 2;

/// The evidence of one claim of `unit` whose block passes the gates or not (`passes`; a
/// claim below its unit's firmest is never gated, and its evidence is never compared).
fn score(c: &Claim, unit: &Unit<'_>, passes: bool) -> Score {
    // An undecodable unit's reading (its declaration may not describe the bytes) is no
    // evidence either way: neutral, like its gates.
    let non_unit = match unit.map.normal {
        Some(_) if unit.decodable => unit.vertex_count.saturating_sub(c.unit_normals) as i64,
        _ => 0,
    };
    // A block header (FORMAT.md §6: unknown contents, 12 bytes in the notes) may read as
    // up to two triangles before a real index buffer: so many are no evidence either way.
    let header = c.preceding <= HEADER_TRIANGLES;
    Score {
        placed: 1,
        gated: i64::from(!unit.decodable || passes),
        strength: i64::from(if header { c.strength | 2 } else { c.strength }),
        preceding: -(c.preceding.saturating_sub(HEADER_TRIANGLES) as i64),
        stray: if unit.decodable { -(c.stray as i64) } else { 0 },
        normals: -non_unit,
    }
}

/// Which of a unit's claims are its firmest ([`firm`]: passes the gates if any does, then
/// fewest stray slots). The claims are gated in order of their stray slots, fewest first,
/// and the gating stops at the first count where one passes: a claim below that is never
/// read (most claims are another resource's block, and reading one is most of the cost).
/// Every claim of an undecodable unit is equally firm and none is read.
fn firmest(data: &[u8], cs: &[Claim], unit: &Unit<'_>) -> Vec<bool> {
    if !unit.decodable {
        return vec![true; cs.len()];
    }
    // A window that reads as the tail of a longer list (more edge triangles than a block
    // header holds: FORMAT.md §6's suffix mis-anchor) is never firmer than a list of its
    // own, whatever its stray slots.
    let level = |c: &Claim| (c.preceding > HEADER_TRIANGLES, c.stray);
    let mut levels: Vec<(bool, u32)> = cs.iter().map(level).collect();
    levels.sort_unstable();
    levels.dedup();
    for &l in &levels {
        let passing: Vec<bool> = cs.iter().map(|c| level(c) == l && c.ok(data).is_some()).collect();
        if passing.contains(&true) {
            return passing;
        }
    }
    // Nothing passes (every claim is now gated): the fewest stray slots.
    let fewest = cs.iter().map(|c| c.stray).min();
    cs.iter().map(|c| Some(c.stray) == fewest).collect()
}

/// Do the `V` normals `e` of a buffer at vertex start `p` lie inside the data?
fn normals_fit(data: &[u8], p: usize, unit: &Unit<'_>, e: &Element) -> bool {
    let s = unit.decl.stride;
    p + unit.vertex_count as usize * s <= data.len() && e.offset as usize + e.ty.size() <= s
}

/// How many of a decodable claim's declared normals are unit (0 without a NORMAL, or for
/// an undecodable unit, whose reading is no evidence).
fn unit_normals(data: &[u8], c: &Claim, unit: &Unit<'_>) -> u32 {
    let p = c.range.start + 2 * unit.index_count as usize;
    match unit.map.normal {
        Some(e) if unit.decodable && normals_fit(data, p, unit, &e) => {
            count_unit_normals(data, p, unit.decl.stride, &e, unit.vertex_count)
        }
        _ => 0,
    }
}

/// Does the window at `w` look like the start of an index buffer from its bytes alone: a
/// first triangle of three distinct indices?
pub(super) fn real_start_indices(data: &[u8], w: usize) -> bool {
    let x = |k: usize| u16::from_be_bytes([data[w + 2 * k], data[w + 2 * k + 1]]);
    let (a, b, c) = (x(0), x(1), x(2));
    a != b && b != c && a != c
}

/// Claims found from the index windows of the others, at the vertex starts their claims
/// found (FORMAT.md §6: a block belongs to its owner whether or not the owner decodes):
/// - where a claim's window extends backwards, the longer list before the same vertex
///   start is a claim of every unit with those counts `(V', I')` (`I' > I` u16 values
///   `< V'`, referencing the gates' share of `V'`, starting with three distinct indices),
///   whether or not that unit can read the vertices there;
/// - a unit that cannot be decoded (a multi-stream or quantized declaration, which may not
///   describe the bytes at all) claims every vertex start of any claim, and every start
///   of a unit-normal run at its stride (`starts`), where a window of its counts ends:
///   its reading cannot find its own block, so the windows are all the evidence it has.
///
/// Returns `(unit, claim)` pairs for places the unit has no claim at yet.
pub(super) fn structural_claims(
    data: &[u8],
    units: &[Unit<'_>],
    claims: &[Vec<Claim>],
    starts: &[(usize, usize, usize)],
    cfg: &GateConfig,
    windows: &mut Windows,
    seen: &mut Vec<u64>,
) -> Vec<(usize, Claim)> {
    let mut finder = WindowClaims {
        data,
        units,
        claims,
        cfg,
        readings: HashMap::new(),
        out: Vec::new(),
        done: BTreeSet::new(),
    };
    finder.at_run_starts(starts, seen);
    finder.at_claims(windows, seen);
    finder.out
}

/// The state [`structural_claims`] shares between its two passes: what it reads, the
/// claims found so far, and the places already tried.
struct WindowClaims<'a, 'u> {
    data: &'a [u8],
    units: &'a [Unit<'u>],
    claims: &'a [Vec<Claim>],
    cfg: &'a GateConfig,
    /// How each unit's claimed blocks are read, made on its first claim here.
    readings: HashMap<usize, Rc<Reading>>,
    out: Vec<(usize, Claim)>,
    /// `(unit, window)` places already claimed here.
    done: BTreeSet<(usize, usize)>,
}

impl WindowClaims<'_, '_> {
    /// The undecodable units' claims at the starts of unit-normal runs at their stride
    /// (`starts`, see [`structural_claims`]).
    fn at_run_starts(&mut self, starts: &[(usize, usize, usize)], seen: &mut Vec<u64>) {
        let data = self.data;
        for &(u2, q, width) in starts {
            let v2 = self.units[u2].vertex_count;
            for p in (q.saturating_sub(width)..=q).rev() {
                // Most starts fail at the index value next to them: no call for those.
                if p >= 2 && u32::from(u16::from_be_bytes([data[p - 2], data[p - 1]])) < v2 {
                    self.try_claim(u2, p, None, seen);
                }
            }
        }
    }

    /// At the vertex start of every claim: the undecodable units' claims, and, where the
    /// claim's window extends backwards, the longer lists' claims.
    fn at_claims(&mut self, windows: &mut Windows, seen: &mut Vec<u64>) {
        let (data, units) = (self.data, self.units);
        let mut counts: Vec<(u32, u32, usize)> = units
            .iter()
            .enumerate()
            .map(|(u, x)| (x.index_count, x.vertex_count, u))
            .collect();
        counts.sort_unstable();
        let undecodable: Vec<usize> = (0..units.len()).filter(|&u| !units[u].decodable).collect();
        let max_v = counts.iter().map(|c| c.1).max().unwrap_or(0);
        for (u, unit) in units.iter().enumerate() {
            let i = unit.index_count as usize;
            for c in &self.claims[u] {
                let p = c.range.start + 2 * i;
                for &u2 in &undecodable {
                    if u2 != u {
                        self.try_claim(u2, p, Some(&mut *windows), seen);
                    }
                }
                if c.strength >= 2 {
                    continue;
                }
                // Longer windows, shortest first; once a value no resource's vertex count
                // allows is among them, no longer window is valid either.
                for &(i2, _, u2) in &counts[counts.partition_point(|x| x.0 as usize <= i)..] {
                    if 2 * i2 as usize > p || !windows.valid(data, p, i2 as usize, max_v) {
                        break;
                    }
                    self.try_claim(u2, p, Some(&mut *windows), seen);
                }
            }
        }
    }

    /// The claim of unit `u2` whose window ends at vertex start `p`, if its counts fit there.
    /// `windows`: the shared cache of backward maxima, for the few thousand vertex starts
    /// every unit asks about; `None` for the millions of undecodable starts, each asked
    /// once (caching them cost more than reading their windows).
    fn try_claim(&mut self, u2: usize, p: usize, windows: Option<&mut Windows>, seen: &mut Vec<u64>) {
        let (data, cfg) = (self.data, self.cfg);
        let other = &self.units[u2];
        let (i2, v2) = (other.index_count, other.vertex_count);
        let iu = i2 as usize;
        // A decodable resource without a NORMAL is pinned by its own, stricter window
        // search (every vertex referenced, plausible vertices): nothing to add.
        if (other.decodable && other.map.normal.is_none())
            || 2 * iu > p
            || !match windows {
                Some(windows) => windows.valid(data, p, iu, v2),
                None => window_valid(data, p - 2 * iu, iu, v2),
            }
        {
            return;
        }
        let w2 = p - 2 * iu;
        if !real_start_indices(data, w2)
            || self.claims[u2].iter().any(|x| x.range.start == w2)
            || (referenced(data, w2, iu, v2 as usize, seen) as f64) < cfg.min_referenced_fraction * v2 as f64
            || !self.done.insert((u2, w2))
        {
            return;
        }
        let s2 = other.decl.stride;
        let end = (p + v2 as usize * s2).min(data.len());
        let pl = Placement {
            index_offset: w2,
            index_count: i2,
            vertex_offset: p,
            vertex_count: v2,
        };
        let preceding = preceding_triangles(data, w2, v2, |_| true)
            + leading_degenerate(data, w2, iu, |t| t[0] == t[1] || t[1] == t[2] || t[0] == t[2]);
        let stray = match other.map.normal {
            Some(e) if other.decodable && normals_fit(data, p, other, &e) => stray_slots(data, p, s2, &e, seen, v2),
            _ => 0,
        };
        let how = self.readings.entry(u2).or_insert_with(|| {
            Rc::new(Reading {
                decl: other.decl.clone(),
                map: other.map.clone(),
                cfg: cfg.clone(),
            })
        });
        self.out.push((
            u2,
            Claim {
                range: w2..end.max(p),
                block: Block::read(pl, how),
                strength: 2 * u8::from(preceding == 0) + 1,
                preceding,
                stray,
                unit_normals: 0,
            },
        ));
    }
}

/// Most pairs of conflicting claims one container may hold; beyond it every unit with a
/// claim is `ambiguous_anchor` (a real disc has a handful; the bound keeps hostile input
/// linear).
pub const MAX_CONFLICTS: usize = 1 << 20;

/// Most twins (units with the same counts and declaration) whose identical claims
/// conflict in the search; a larger group shares its copies there.
pub const TWINS_APART: usize = 8;

/// Most search steps for one conflict component (the first search and the uniqueness
/// checks together); past it the component's units are `ambiguous_anchor`. (2¹⁸ left 5
/// or 6 stages of a realistic independent disc unsolved; 2²⁰ closes most of them for
/// about one second more per disc, and costs nothing where components close early.)
pub const COMPONENT_BUDGET: usize = 1 << 20;

/// Most steps of the polynomial reductions (the incumbent, the probing) of one component.
pub const REDUCE_BUDGET: usize = 1 << 24;

/// Most search steps for one container (a bound for hostile input).
pub const CONTAINER_BUDGET: usize = 1 << 24;

/// One conflict component: its units (global ids) and, per unit, its claims as ids into
/// the container's flat claim list, strongest first.
struct Component {
    units: Vec<usize>,
    claims: Vec<Vec<usize>>,
}

/// The search over one component: branch and bound that splits the remaining units into
/// independent parts wherever the claims still open let them, and solves each part on its
/// own (claims are byte ranges, so a container's conflicts form long chains that fall
/// apart once the few resources claiming far apart are decided).
struct Search<'a> {
    comp: &'a Component,
    value: &'a [Score],
    conflicts: &'a [Vec<usize>],
    /// Per claim of the container: its local unit in this component, or `usize::MAX`.
    unit_of: &'a [usize],
    /// Per claim: identical duplicates overlapping it ([`most_placed`]'s capacities).
    shared: &'a [u32],
    ranges: &'a [Range<usize>],
    steps: usize,
    /// Per claim: how many taken claims (or uniqueness checks) exclude it.
    blocked: Vec<u32>,
    /// Stop at the first assignment reaching the value asked for (uniqueness checks).
    first: bool,
    /// Scratch: per local unit, the call that marked it a member, and its slot there.
    mark: Vec<usize>,
    slot: Vec<usize>,
    calls: usize,
}

struct OutOfBudget;

/// An assignment of some of a component's units: its value and `(local unit, claim)`.
type Assignment = (Score, Vec<(usize, usize)>);

impl Search<'_> {
    fn tick(&mut self, work: usize) -> Result<(), OutOfBudget> {
        self.steps = self.steps.checked_sub(work).ok_or(OutOfBudget)?;
        Ok(())
    }

    fn allowed(&self, c: usize) -> bool {
        self.blocked[c] == 0
    }

    /// The allowed claims of local unit `u`, best first.
    fn open(&self, u: usize) -> impl Iterator<Item = usize> + '_ {
        self.comp.claims[u].iter().copied().filter(|&c| self.allowed(c))
    }

    /// The parts of `units` no open claim joins (in the order of their first unit), each
    /// with the unit whose open claims conflict with the most others of its part.
    fn split(&mut self, units: &[usize]) -> Result<Vec<(Vec<usize>, usize)>, OutOfBudget> {
        self.calls += 1;
        let call = self.calls;
        for (i, &u) in units.iter().enumerate() {
            self.mark[u] = call;
            self.slot[u] = i;
        }
        let mut parent: Vec<usize> = (0..units.len()).collect();
        let mut degree: Vec<usize> = vec![0; units.len()];
        let mut work = 0usize;
        for (i, &u) in units.iter().enumerate() {
            for &c in &self.comp.claims[u] {
                if !self.allowed(c) {
                    continue;
                }
                work += self.conflicts[c].len() + 1;
                for &d in &self.conflicts[c] {
                    let w = self.unit_of[d];
                    if w == usize::MAX || self.mark[w] != call || !self.allowed(d) {
                        continue;
                    }
                    degree[i] += 1;
                    let (a, b) = (root(&mut parent, i), root(&mut parent, self.slot[w]));
                    if a != b {
                        parent[a.max(b)] = a.min(b);
                    }
                }
            }
        }
        self.tick(work / 8)?;
        let mut parts: Vec<(Vec<usize>, usize)> = Vec::new();
        let mut part_of: Vec<usize> = vec![usize::MAX; units.len()];
        for (i, &u) in units.iter().enumerate() {
            let r = root(&mut parent, i);
            if part_of[r] == usize::MAX {
                part_of[r] = parts.len();
                parts.push((Vec::new(), u));
            }
            let p = &mut parts[part_of[r]];
            if degree[i] > degree[self.slot[p.1]] {
                p.1 = u;
            }
            p.0.push(u);
        }
        Ok(parts)
    }

    /// The best value `units` can still add: each unit's best open claim on its own
    /// (lexicographic order on sums is translation-invariant, so the sum of per-unit
    /// maxima bounds every sum of per-unit choices), but no more units than a matching
    /// of units to stabbing points allows ([`most_placed`]): then the largest of them.
    fn bound(&self, units: &[usize]) -> Score {
        let mut best: Vec<Score> = units
            .iter()
            .filter_map(|&u| self.open(u).next().map(|c| self.value[c]))
            .collect();
        if best.len() > 2 {
            let open: Vec<Vec<usize>> = units.iter().map(|&u| self.open(u).collect()).collect();
            let room = most_placed(&open, |x| self.ranges[x].clone(), self.shared) as usize;
            if best.len() > room {
                best.select_nth_unstable_by(room, |a, b| b.cmp(a));
                best.truncate(room);
            }
        }
        best.into_iter().fold(Score::default(), |a, b| a + b)
    }

    /// The best assignment of `units` worth at least `need` (with [`Self::first`], the
    /// first one found), or `None` when there is none.
    fn solve(&mut self, units: &[usize], need: Score) -> Result<Option<Assignment>, OutOfBudget> {
        self.tick(1)?;
        if let [u] = *units {
            // One unit alone: its best open claim (a claim always beats none).
            let c = self.open(u).next();
            let v = c.map_or(Score::default(), |c| self.value[c]);
            return Ok((v >= need).then(|| (v, c.map(|c| (u, c)).into_iter().collect())));
        }
        if units.is_empty() {
            return Ok((Score::default() >= need).then(|| (Score::default(), Vec::new())));
        }
        let parts = self.split(units)?;
        if parts.len() > 1 {
            let bounds: Vec<Score> = parts.iter().map(|p| self.bound(&p.0)).collect();
            let mut rest = bounds.iter().fold(Score::default(), |a, &b| a + b);
            if rest < need {
                return Ok(None);
            }
            let mut got: Assignment = (Score::default(), Vec::new());
            for ((part, _), b) in parts.iter().zip(bounds) {
                rest = rest - b;
                let Some((v, mut picks)) = self.solve(part, need - got.0 - rest)? else {
                    return Ok(None);
                };
                got.0 = got.0 + v;
                got.1.append(&mut picks);
            }
            return Ok(Some(got));
        }
        let (part, u) = &parts[0];
        if self.bound(part) < need {
            return Ok(None);
        }
        let rest: Vec<usize> = part.iter().copied().filter(|x| x != u).collect();
        let choices: Vec<usize> = self.open(*u).collect();
        let mut need = need;
        let mut best: Option<Assignment> = None;
        for c in choices.into_iter().map(Some).chain([None]) {
            let v = c.map_or(Score::default(), |c| self.value[c]);
            if let Some(c) = c {
                for &d in &self.conflicts[c] {
                    self.blocked[d] += 1;
                }
            }
            let r = self.solve(&rest, need - v);
            if let Some(c) = c {
                for &d in &self.conflicts[c] {
                    self.blocked[d] -= 1;
                }
            }
            if let Some((w, mut picks)) = r? {
                picks.extend(c.map(|c| (*u, c)));
                let total = w + v;
                if self.first {
                    return Ok(Some((total, picks)));
                }
                need = total.succ();
                best = Some((total, picks));
            }
        }
        Ok(best)
    }
}

/// The claims that can be in no best assignment: `c` of a unit with another claim `d`
/// of strictly more evidence whose conflicts (with other units' remaining claims) are
/// among `c`'s. Any assignment using `c` gains by taking `d` instead, so removing `c`
/// changes neither the best value nor the set of best assignments; repeated until
/// nothing changes (a removal can make another claim dominated). Returns which claims
/// remain; `steps` bounds the work.
fn dominated_removed(
    by_unit: &[Vec<usize>],
    value: &[Score],
    conflicts: &[Vec<usize>],
    alive: &mut [bool],
    steps: &mut usize,
) {
    // Is every remaining conflict of `d` one of `c`'s (both lists sorted)?
    let subset = |alive: &[bool], d: usize, c: usize, steps: &mut usize| {
        let mut it = conflicts[c].iter().filter(|&&y| alive[y]).peekable();
        for &y in conflicts[d].iter().filter(|&&y| alive[y]) {
            *steps = steps.saturating_sub(1);
            while it.next_if(|&&z| z < y).is_some() {}
            if it.next_if(|&&z| z == y).is_none() {
                return false;
            }
        }
        true
    };
    let mut changed = true;
    while changed && *steps > 0 {
        changed = false;
        for xs in by_unit {
            for &c in xs {
                if !alive[c] {
                    continue;
                }
                let beaten = xs
                    .iter()
                    .any(|&d| d != c && alive[d] && value[d] > value[c] && subset(alive, d, c, steps));
                if beaten {
                    alive[c] = false;
                    changed = true;
                }
            }
        }
    }
}

/// A good assignment of one component, found fast: each unit (in search order) takes its
/// best claim not in conflict with those taken; then, while it improves the whole, a
/// unit takes a better claim and the units it pushes out retake their best free claims.
/// Returns its value and picks (per local unit). `steps` bounds the work.
fn incumbent(
    comp: &Component,
    value: &[Score],
    conflicts: &[Vec<usize>],
    steps: &mut usize,
) -> (Score, Vec<Option<usize>>) {
    let n = comp.units.len();
    // The local unit holding each taken claim.
    let mut owner: HashMap<usize, usize> = HashMap::new();
    let free = |owner: &HashMap<usize, usize>, c: usize, steps: &mut usize| {
        *steps = steps.saturating_sub(conflicts[c].len() + 1);
        !conflicts[c].iter().any(|y| owner.contains_key(y))
    };
    let mut pick: Vec<Option<usize>> = vec![None; n];
    for (k, (p, cs)) in pick.iter_mut().zip(&comp.claims).enumerate() {
        if let Some(&c) = cs.iter().find(|&&c| free(&owner, c, steps)) {
            *p = Some(c);
            owner.insert(c, k);
        }
    }
    let val = |c: Option<usize>| c.map_or(Score::default(), |c| value[c]);
    let mut improved = true;
    while improved && *steps > 0 {
        improved = false;
        for k in 0..n {
            for &c in &comp.claims[k] {
                if *steps == 0 || value[c] <= val(pick[k]) {
                    break;
                }
                // Take `c`, push out the holders of its conflicts, let them retake.
                let pushed: Vec<usize> = conflicts[c].iter().filter_map(|y| owner.get(y).copied()).collect();
                let mut saved: Vec<(usize, Option<usize>)> = vec![(k, pick[k])];
                saved.extend(pushed.iter().map(|&j| (j, pick[j])));
                let before = saved.iter().fold(Score::default(), |a, &(_, p)| a + val(p));
                for &(j, p) in &saved {
                    if let Some(x) = p {
                        owner.remove(&x);
                    }
                    pick[j] = None;
                }
                pick[k] = Some(c);
                owner.insert(c, k);
                let mut after = value[c];
                for &j in &pushed {
                    if let Some(&x) = comp.claims[j].iter().find(|&&x| free(&owner, x, steps)) {
                        pick[j] = Some(x);
                        owner.insert(x, j);
                        after = after + value[x];
                    }
                }
                if after > before {
                    improved = true;
                    break;
                }
                // Undo.
                for &(j, _) in &saved {
                    if let Some(x) = pick[j].take() {
                        owner.remove(&x);
                    }
                }
                for &(j, p) in &saved {
                    pick[j] = p;
                    if let Some(x) = p {
                        owner.insert(x, j);
                    }
                }
            }
        }
    }
    let total = pick.iter().fold(Score::default(), |a, &p| a + val(p));
    (total, pick)
}

/// Claims that can be in no assignment as good as `floor` (the value of one that exists):
/// taking claim `c` of a unit, every other unit can at best have its best claim not in
/// conflict with `c`; when even that sum is below `floor`, no best assignment holds `c`
/// (they are all worth at least `floor`), so removing it changes neither the best value
/// nor the set of best assignments. Repeated while it removes claims.
fn probe(comp: &mut Component, value: &[Score], conflicts: &[Vec<usize>], floor: Score, steps: &mut usize) {
    loop {
        let best: Vec<Score> = comp
            .claims
            .iter()
            .map(|cs| cs.first().map_or(Score::default(), |&c| value[c]))
            .collect();
        let total = best.iter().fold(Score::default(), |a, &b| a + b);
        let unit_of: HashMap<usize, usize> = comp
            .claims
            .iter()
            .enumerate()
            .flat_map(|(k, cs)| cs.iter().map(move |&c| (c, k)))
            .collect();
        let mut removed = false;
        for k in 0..comp.claims.len() {
            let mut keep: Vec<usize> = Vec::with_capacity(comp.claims[k].len());
            for &c in &comp.claims[k] {
                *steps = steps.saturating_sub(conflicts[c].len() + 1);
                // Units whose best claim `c` takes away, and what they keep at best.
                let mut hit: Vec<usize> = conflicts[c]
                    .iter()
                    .filter_map(|y| unit_of.get(y).copied())
                    .filter(|&j| {
                        j != k
                            && comp.claims[j]
                                .first()
                                .is_some_and(|f| conflicts[c].binary_search(f).is_ok())
                    })
                    .collect();
                hit.sort_unstable();
                hit.dedup();
                // (Sums stay non-negative where they are counts: each is taken from a
                // total that holds it.)
                let mut ub = total - best[k] + value[c];
                for &j in &hit {
                    let left = comp.claims[j]
                        .iter()
                        .find(|x| conflicts[c].binary_search(x).is_err())
                        .map_or(Score::default(), |&x| value[x]);
                    ub = ub - best[j] + left;
                }
                if ub < floor && *steps > 0 {
                    removed = true;
                } else {
                    keep.push(c);
                }
            }
            comp.claims[k] = keep;
        }
        if !removed || *steps == 0 {
            return;
        }
    }
}

/// An upper bound on the units of one component that any assignment places: claims
/// are byte ranges, so a minimum set of points stabbing every claim (greedy by range
/// end) gives each chosen claim a point inside it, and two chosen claims share a point
/// only when they are identical duplicates (which do not conflict; a point takes as
/// many as overlap there). So a maximum matching of units to points, each point taking
/// at most its capacity, bounds the units placed (bipartite matching, augmenting paths).
fn most_placed(claims: &[Vec<usize>], range: impl Fn(usize) -> Range<usize>, shared: &[u32]) -> u32 {
    let mut all: Vec<usize> = claims.iter().flatten().copied().collect();
    all.sort_by_key(|&x| (range(x).end, range(x).start));
    let mut points: Vec<usize> = Vec::new();
    for &x in &all {
        let r = range(x);
        if r.is_empty() {
            continue;
        }
        if points.last().is_none_or(|&p| r.start > p) {
            points.push(r.end - 1);
        }
    }
    // Two mappings of a claim to one point, each injective on disjoint claims: the first
    // point inside it (every point of an earlier disjoint claim lies before its start) and
    // the last (every point of a later one lies after its end). Each gives a bound.
    [false, true]
        .into_iter()
        .map(|last| matched(claims, &range, shared, &points, last))
        .min()
        .unwrap_or(0)
}

/// [`most_placed`]'s matching with one mapping of claims to points.
fn matched(
    claims: &[Vec<usize>],
    range: &impl Fn(usize) -> Range<usize>,
    shared: &[u32],
    points: &[usize],
    last: bool,
) -> u32 {
    // Capacity per point: one, plus the duplicates any claim through it may share with.
    let mut cap: Vec<u32> = vec![1; points.len()];
    let mut edges: Vec<Vec<usize>> = Vec::with_capacity(claims.len());
    for cs in claims {
        let mut e: Vec<usize> = Vec::new();
        for &x in cs {
            let r = range(x);
            let q = if last {
                points.partition_point(|&p| p < r.end).checked_sub(1)
            } else {
                Some(points.partition_point(|&p| p < r.start))
            };
            if let Some(q) = q.filter(|&q| points.get(q).is_some_and(|&p| r.contains(&p))) {
                e.push(q);
                cap[q] = cap[q].max(1 + shared[x]);
            }
        }
        e.sort_unstable();
        e.dedup();
        edges.push(e);
    }
    // Kuhn's augmenting paths; a point holds up to `cap` units.
    let mut held: Vec<Vec<usize>> = vec![Vec::new(); points.len()];
    fn augment(u: usize, edges: &[Vec<usize>], cap: &[u32], held: &mut [Vec<usize>], seen: &mut [bool]) -> bool {
        for &q in &edges[u] {
            if seen[q] {
                continue;
            }
            seen[q] = true;
            if (held[q].len() as u32) < cap[q] {
                held[q].push(u);
                return true;
            }
            for k in 0..held[q].len() {
                let w = held[q][k];
                if augment(w, edges, cap, held, seen) {
                    held[q][k] = u;
                    return true;
                }
            }
        }
        false
    }
    let mut placed = 0u32;
    let mut seen = vec![false; points.len()];
    for u in 0..claims.len() {
        seen.iter_mut().for_each(|x| *x = false);
        if augment(u, &edges, &cap, &mut held, &mut seen) {
            placed += 1;
        }
    }
    placed
}

/// What a misreading cannot fake: a decodable reading that fails the gates, or vertex
/// slots that nothing supports ([`stray_slots`]).
fn firm(v: Score) -> (i64, i64) {
    (v.gated, v.stray)
}

/// Claims that lose to a clear winner are removed: a claim that is its unit's one best and
/// is firmer ([`firm`]) than every claim of another unit overlapping it explains those
/// bytes better than any other reading of them, so no other unit is placed there (a
/// weaker reading is never taken only to place one more unit). Repeated while it removes.
fn clear_winners(by_unit: &[Vec<usize>], value: &[Score], conflicts: &[Vec<usize>], alive: &mut [bool]) {
    let mut changed = true;
    while changed {
        changed = false;
        for xs in by_unit {
            let live: Vec<usize> = xs.iter().copied().filter(|&x| alive[x]).collect();
            let Some(&top) = live.iter().max_by_key(|&&x| value[x]) else {
                continue;
            };
            if live.iter().filter(|&&x| value[x] == value[top]).count() != 1 {
                continue;
            }
            let rivals: Vec<usize> = conflicts[top].iter().copied().filter(|&y| alive[y]).collect();
            if !rivals.is_empty() && rivals.iter().all(|&y| firm(value[top]) > firm(value[y])) {
                for y in rivals {
                    alive[y] = false;
                }
                changed = true;
            }
        }
    }
}

/// The root of `x` in a union-find forest (path halving).
fn root(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// A searched component: its key, each unit's verdict (its claim, or why none) and the
/// best assignment the search found.
type Decided = (usize, Vec<Result<usize, String>>, Vec<Option<usize>>);

/// Which claims may be their unit's block: its firmest, or one whose window starts the
/// way a real index buffer does ([`strong_start`]) and takes in no stray slots, whether
/// or not its block passes the gates (a damaged block is its owner's) — but for a claim
/// that fails them where another unit's claim, decodable, ending at the same vertex start
/// with no more indices at the same stride, passes: a damaged block fails every reading
/// of its damage, so that failure lies in what the failing reading has and the passing
/// one has not (the triangles before the shorter list — bytes before a real list, such
/// as a block header that reads as triangles, FORMAT.md §6 — or vertices past the
/// shorter reading's), and the block is not its.
fn usable_claims(
    units: &[Unit<'_>],
    owner: &dyn Fn(usize) -> usize,
    value: &[Score],
    firmest: &[bool],
    end: &dyn Fn(usize) -> usize,
) -> Vec<bool> {
    let mut passing_at: HashMap<usize, Vec<usize>> = HashMap::new();
    for x in (0..value.len()).filter(|&x| value[x].gated == 1 && units[owner(x)].decodable) {
        passing_at.entry(end(x)).or_default().push(x);
    }
    (0..value.len())
        .map(|x| {
            let u = &units[owner(x)];
            let localized = || {
                passing_at.get(&end(x)).into_iter().flatten().any(|&c| {
                    let uc = &units[owner(c)];
                    owner(c) != owner(x) && uc.index_count <= u.index_count && uc.decl.stride == u.decl.stride
                })
            };
            firmest[x] || (strong_start(value[x]) && value[x].stray == 0 && (value[x].gated == 1 || !localized()))
        })
        .collect()
}

/// Nested windows at one vertex start (see [`Nested::reject`]).
struct Nested<'a> {
    data: &'a [u8],
    units: &'a [Unit<'a>],
    /// The unit of each claim.
    owner: &'a dyn Fn(usize) -> usize,
    ranges: &'a [Range<usize>],
    /// The evidence of each claim.
    value: &'a [Score],
    /// Whether each claim is among its unit's firmest ([`firmest`]).
    firmest: &'a [bool],
    /// Whether each claim may be its unit's block ([`usable_claims`]).
    usable: &'a [bool],
}

/// Does a claim's window start the way FORMAT.md §6 says a real index buffer does: with
/// a real triangle, not extensible backwards, no edge triangles?
fn strong_start(v: Score) -> bool {
    v.strength == 3 && v.preceding == 0
}

/// A claim's window evidence: placed, edge triangles, strength (the measures every
/// reading has, whatever its gates; compared lexicographically, summed per world).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Window(i64, i64, i64);

impl Window {
    fn add(self, o: Window) -> Window {
        Window(self.0 + o.0, self.1 + o.1, self.2 + o.2)
    }
}

fn window(v: Score) -> Window {
    Window(v.placed, v.preceding, v.strength)
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
    options: &[Vec<usize>],
    taken: &mut Vec<usize>,
    look: &dyn Fn(usize) -> (Range<usize>, Window),
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

impl Nested<'_> {
    /// The vertex start where claim `x`'s index window ends.
    fn end(&self, x: usize) -> usize {
        window_end(&self.ranges[x], &self.units[(self.owner)(x)])
    }

    /// Does claim `x` (of another unit) hold a window of unit `s` ending where its own
    /// ends: as many indices or more before them (other counts), and every triangle of
    /// the extension three distinct indices? (Degenerate triangles, zero padding read as
    /// (0, 0, 0), decide: a list does not start with them.) Both read vertices from the
    /// same start; however many each reads, the window is one list's or the other's.
    fn nests(&self, x: usize, s: usize) -> bool {
        let w = (self.owner)(x);
        let (uw, us) = (&self.units[w], &self.units[s]);
        let (iw, is) = (uw.index_count as usize, us.index_count as usize);
        let p = self.end(x);
        w != s
            && iw >= is
            && (iw, uw.vertex_count) != (is, us.vertex_count)
            && p >= 2 * iw
            && (p - 2 * iw..p - 2 * is)
                .step_by(6)
                .all(|t| real_start_indices(self.data, t))
    }

    /// The world with unit `l` held at its claim `x` instead of `y`, where it is placed:
    /// the units whose blocks `x` overlaps are displaced, `y` is freed, and the displaced
    /// units, the unplaced ones claiming bytes of `y`, and (until none is added) the
    /// placed ones whose blocks a usable claim of those overlaps take usable claims of
    /// theirs that overlap no block kept and no other's. Usable: their firmest, or any
    /// whose window starts the way a real index buffer does ([`strong_start`]) and that
    /// takes in no stray slots, whether or not its block passes the gates (a damaged
    /// block is its owner's; a misreading shows a weak start or stray slots). Does that world hold as much window
    /// evidence ([`Window`]: units placed, then edge triangles, then strength; the gates
    /// do not count, a damaged block being its owner's) as the best assignment has there?
    /// Then the bytes do not tell the two worlds apart. (Only the units next to `x` and
    /// `y` move: a world found is a real one, a world missed keeps the best assignment's
    /// answer. Past the limits the trade is taken as possible.)
    fn trade_explains_as_well(
        &self,
        l: usize,
        x: usize,
        y: usize,
        placed: &BTreeMap<usize, usize>,
        by_unit: &[Vec<usize>],
    ) -> bool {
        let Some(pool) = self.moving_units(l, x, y, placed, by_unit) else {
            return true;
        };
        let Some(options) = self.trade_options(l, x, &pool, placed, by_unit) else {
            return true;
        };
        let before = pool
            .iter()
            .filter_map(|u| placed.get(u))
            .map(|&c| window(self.value[c]))
            .fold(window(self.value[y]), Window::add);
        let look = |c: usize| (self.ranges[c].clone(), window(self.value[c]));
        let mut steps = TRADE_STEPS;
        reaches(
            0,
            window(self.value[x]),
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
    fn moving_units(
        &self,
        l: usize,
        x: usize,
        y: usize,
        placed: &BTreeMap<usize, usize>,
        by_unit: &[Vec<usize>],
    ) -> Option<Vec<usize>> {
        let r = |c: usize| &self.ranges[c];
        let usable = |z: usize| self.usable[z];
        let mut pool: Vec<usize> = placed
            .iter()
            .filter(|&(&u, &c)| u != l && overlaps(r(c), r(x)))
            .map(|(&u, _)| u)
            .collect();
        pool.extend(
            (0..by_unit.len())
                .filter(|&u| u != l && !placed.contains_key(&u) && by_unit[u].iter().any(|&z| overlaps(r(z), r(y)))),
        );
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
                .filter(|&z| usable(z) && !overlaps(r(z), r(x)))
            {
                for (&w, &c) in placed {
                    if w != l && !pool.contains(&w) && overlaps(r(c), r(z)) {
                        pool.push(w);
                    }
                }
            }
        }
        if pool.len() > TRADE_UNITS {
            return None;
        }
        Some(pool)
    }

    /// Per moving unit of `pool`, its usable claims that overlap no block kept (those of
    /// the units that stay, and `x`, where unit `l` is held). `None` past
    /// [`TRADE_CLAIMS`] for one unit.
    fn trade_options(
        &self,
        l: usize,
        x: usize,
        pool: &[usize],
        placed: &BTreeMap<usize, usize>,
        by_unit: &[Vec<usize>],
    ) -> Option<Vec<Vec<usize>>> {
        let r = |c: usize| &self.ranges[c];
        let kept: Vec<usize> = placed
            .iter()
            .filter(|&(u, _)| *u != l && !pool.contains(u))
            .map(|(_, &c)| c)
            .chain([x])
            .collect();
        let options: Vec<Vec<usize>> = pool
            .iter()
            .map(|&u| {
                by_unit[u]
                    .iter()
                    .copied()
                    .filter(|&z| self.usable[z] && !kept.iter().any(|&k| overlaps(r(z), r(k))))
                    .collect::<Vec<usize>>()
            })
            .collect();
        if options.iter().any(|o| o.len() > TRADE_CLAIMS) {
            return None;
        }
        Some(options)
    }

    /// A unit given a block whose window is the tail of another unit's claim there (its
    /// list that one's after bytes that read as triangles, the same vertices read) is
    /// placed only where the other unit's own block settles it: the other unit is placed
    /// elsewhere, on a block where this unit cannot read as well. Otherwise whose block
    /// it is, the longer list's or the shorter one's, only the preference of FORMAT.md §6
    /// says ("not a proof"): the other unit unplaced, or the two blocks exchangeable (each
    /// unit's window nested in the other's at the other block), and both are rejected.
    fn reject(
        &self,
        by_unit: &[Vec<usize>],
        ending_at: &HashMap<usize, Vec<usize>>,
        comps: &BTreeMap<usize, Component>,
        decided: &mut [Decided],
        describe: &dyn Fn(usize) -> String,
    ) {
        // Where each unit's verdict is, and the block the best assignment gives it
        // (whether or not that block is its in every best assignment).
        let mut at: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
        let mut placed: BTreeMap<usize, usize> = BTreeMap::new();
        for (n, (key, _, pick)) in decided.iter().enumerate() {
            for (k, p) in pick.iter().enumerate() {
                let u = comps[key].units[k];
                at.insert(u, (n, k));
                if let Some(c) = p {
                    placed.insert(u, *c);
                }
            }
        }
        let mut rejected: Vec<(usize, String)> = Vec::new();
        let decoded = |u: usize| at.get(&u).is_some_and(|&(n, k)| decided[n].1[k].is_ok());
        // (A unit rejected already, e.g. between two copies of its own block, still holds
        // a block there: the other unit may be on its tail.)
        for (&s, &c) in placed.iter() {
            // Where the unit is: its claim, or, when the search left it between claims on
            // that block, any of its firmest claims there.
            let here: Vec<usize> = if decoded(s) {
                vec![self.end(c)]
            } else {
                by_unit[s]
                    .iter()
                    .filter(|&&z| self.firmest[z] && overlaps(&self.ranges[z], &self.ranges[c]))
                    .map(|&z| self.end(z))
                    .collect()
            };
            let rival = here
                .iter()
                .flat_map(|p| ending_at.get(p).into_iter().flatten().copied())
                .find_map(|x| {
                    if !self.nests(x, s) {
                        return None;
                    }
                    let l = (self.owner)(x);
                    match placed.get(&l) {
                        None => Some((x, None)),
                        Some(&y) => {
                            // Exchangeable: the other unit's block holds a window of this one
                            // nested the same way; or the other unit reads more strongly at
                            // the nesting claim than where it is placed (it is never moved to
                            // a weaker reading of its own to make room); or holding it at the
                            // nesting claim explains the bytes as well
                            // ([`Nested::trade_explains_as_well`]).
                            let q = self.end(y);
                            let swap = (self.nests(y, s) && by_unit[s].iter().any(|&z| self.end(z) == q))
                                || self.value[x] > self.value[y]
                                || self.trade_explains_as_well(l, x, y, &placed, by_unit);
                            swap.then_some((x, Some((l, y))))
                        }
                    }
                });
            match rival {
                None => {}
                Some((x, None)) => rejected.push((
                    s,
                    format!(
                        "its window is the tail of another resource's at {} (more indices \
                         before them, reading its vertices), which has no block of its own: its \
                         block or the other's after bytes that read as triangles, the bytes \
                         cannot tell",
                        describe(x)
                    ),
                )),
                Some((x, Some((l, y)))) => {
                    let why = format!(
                        "its block and another resource's can be exchanged: its window is the \
                         tail of the other's at {}, and the other placed there instead of at {} \
                         explains the bytes as well; only the preference of FORMAT.md §6 tells \
                         them apart",
                        describe(x),
                        describe(y)
                    );
                    rejected.push((s, why.clone()));
                    rejected.push((l, why));
                }
            }
        }
        let rejected: Vec<(usize, String)> = rejected.into_iter().filter(|&(u, _)| decoded(u)).collect();
        for (u, why) in rejected {
            if let Some(&(n, k)) = at.get(&u) {
                decided[n].1[k] = Err(why);
            }
        }
    }
}

/// One block, one owner, over the claims of every unit (see the module comment). A
/// unit's result is its one block: decoded when it passes the gates, else rejected with
/// that gate's code. Returns the claims `(unit, range)` a unit let go of for the block it
/// was given: they are no evidence that anyone owns those bytes.
pub(super) fn assign_owners(
    data: &[u8],
    units: &[Unit<'_>],
    claims: &mut [Vec<Claim>],
    failures: &[Vec<(usize, Reason)>],
    results: &mut [Option<Result<Rc<Decoded>, Reason>>],
) -> Vec<(usize, Range<usize>)> {
    let firm_claims = rank_claims(data, units, claims, results);
    let claims: &[Vec<Claim>] = claims;
    let flat: Vec<(usize, usize)> = (0..units.len())
        .filter(|&u| results[u].is_none())
        .flat_map(|u| (0..claims[u].len()).map(move |k| (u, k)))
        .collect();
    let Some(sweep) = conflicting_pairs(data, units, claims, &flat) else {
        for &(u, _) in &flat {
            results[u].get_or_insert_with(|| {
                Err(Reason::new(
                    Code::AmbiguousAnchor,
                    format!("more than {MAX_CONFLICTS} conflicting claims in this data section"),
                ))
            });
        }
        return Vec::new();
    };
    let mut container_steps = CONTAINER_BUDGET;
    let owners = Owners::new(data, units, claims, flat, sweep, &firm_claims, &mut container_steps);
    let mut comps = owners.components(results);
    owners.order_for_search(&mut comps);
    let mut decided = owners.search_components(&mut comps, results, &mut container_steps);
    owners.reject_nested(&comps, &mut decided);
    owners.share_twins(&comps, &mut decided);
    let released = owners.record(&comps, decided, results);
    for u in 0..units.len() {
        if results[u].is_none() {
            results[u] = Some(Err(no_candidate(&units[u], None, &failures[u])));
        }
    }
    released
}

/// Each unit's claims strongest first (then by offset), so the search meets the best
/// assignment early and its first optimum is the canonical one; returns, per unit and in
/// that order, which claims are its firmest ([`firmest`]; their normals are counted
/// here). A claim below its unit's firmest is never gated; it counts as failing, which
/// can only move it among the claims that take no part. Units with a result already are
/// left as they are.
fn rank_claims(
    data: &[u8],
    units: &[Unit<'_>],
    claims: &mut [Vec<Claim>],
    results: &[Option<Result<Rc<Decoded>, Reason>>],
) -> Vec<Vec<bool>> {
    let mut firm_claims: Vec<Vec<bool>> = vec![Vec::new(); units.len()];
    for (u, cs) in claims.iter_mut().enumerate() {
        if results[u].is_some() {
            continue;
        }
        let firm = firmest(data, cs, &units[u]);
        for (c, _) in cs.iter_mut().zip(&firm).filter(|(_, f)| **f) {
            c.unit_normals = unit_normals(data, c, &units[u]);
        }
        let mut keyed: Vec<(Score, bool, Claim)> = std::mem::take(cs)
            .into_iter()
            .zip(firm)
            .map(|(c, f)| (score(&c, &units[u], c.passes() == Some(true)), f, c))
            .collect();
        keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.range.start.cmp(&b.2.range.start)));
        (firm_claims[u], *cs) = keyed.into_iter().map(|(_, f, c)| (f, c)).unzip();
    }
    firm_claims
}

/// What the conflict sweep finds, per claim of the flat list.
struct Sweep {
    /// The claims of other units it conflicts with (sorted).
    conflicts: Vec<Vec<usize>>,
    /// How many claims of other units overlap it without conflict (identical
    /// duplicates), for the capacity of the placement bound's points.
    shared: Vec<u32>,
}

/// The conflicting pairs among the claims `flat` lists (`(unit, claim)`), by a sweep over
/// their sorted starts ([`Sweep`]); `None` past [`MAX_CONFLICTS`] pairs.
fn conflicting_pairs(data: &[u8], units: &[Unit<'_>], claims: &[Vec<Claim>], flat: &[(usize, usize)]) -> Option<Sweep> {
    let claim = |f: (usize, usize)| &claims[f.0][f.1];
    let mut by_start: Vec<usize> = (0..flat.len()).collect();
    by_start.sort_by_key(|&x| (claim(flat[x]).range.start, x));
    let mut conflicts: Vec<Vec<usize>> = vec![Vec::new(); flat.len()];
    let mut shared: Vec<u32> = vec![0; flat.len()];
    // Per unit: how many units share its counts and declaration (itself included).
    let mut groups: HashMap<(u32, u32, &Declaration), usize> = HashMap::new();
    for u in units {
        *groups.entry((u.vertex_count, u.index_count, u.decl)).or_default() += 1;
    }
    let twins_of: Vec<usize> = units
        .iter()
        .map(|u| groups[&(u.vertex_count, u.index_count, u.decl)])
        .collect();
    let mut pairs = 0usize;
    'sweep: for (n, &a) in by_start.iter().enumerate() {
        let ra = &claim(flat[a]).range;
        for &b in &by_start[n + 1..] {
            let rb = &claim(flat[b]).range;
            if rb.start >= ra.end {
                break;
            }
            // Byte-identical duplicates conflict like any two claims: each copy goes to
            // one unit in the search (a twin shares a copy only when none is left for
            // it, after the search). Twins of a group larger than [`TWINS_APART`] share
            // in the search (a bound: such a group's conflicts grow as the cube of its
            // size); the placement bound's points then hold as many as share there.
            let (ua, ub) = (flat[a].0, flat[b].0);
            if ua != ub && twins_of[ua] > TWINS_APART && identical(data, ra, rb, &units[ua], &units[ub]) {
                shared[a] += 1;
                shared[b] += 1;
            } else if ua != ub {
                conflicts[a].push(b);
                conflicts[b].push(a);
                pairs += 1;
                if pairs > MAX_CONFLICTS {
                    break 'sweep;
                }
            }
        }
    }
    for cs in &mut conflicts {
        cs.sort_unstable();
    }
    (pairs <= MAX_CONFLICTS).then_some(Sweep { conflicts, shared })
}

/// The vertex start where the index window of a claim at `range` of `unit` ends.
fn window_end(range: &Range<usize>, unit: &Unit<'_>) -> usize {
    range.start + 2 * unit.index_count as usize
}

/// The container's claims that take part in the resolution, as flat ids (`x`), and what
/// every phase after the conflict sweep reads: the evidence, the conflicts left after
/// the reductions, and which claims are firmest, usable and alive.
struct Owners<'a, 'u> {
    data: &'a [u8],
    units: &'a [Unit<'u>],
    claims: &'a [Vec<Claim>],
    /// Per claim: `(unit, index into the unit's claims)`.
    flat: Vec<(usize, usize)>,
    ranges: Vec<Range<usize>>,
    /// Per claim: the claims of other units it conflicts with and that are still alive
    /// (sorted).
    conflicts: Vec<Vec<usize>>,
    /// Per claim: identical duplicates overlapping it ([`most_placed`]'s capacities).
    shared: Vec<u32>,
    /// The evidence of each claim.
    value: Vec<Score>,
    /// Per unit: its claims, in its order.
    by_unit: Vec<Vec<usize>>,
    /// Whether each claim is among its unit's firmest ([`firmest`]).
    firmest: Vec<bool>,
    /// Whether each claim may be its unit's block ([`usable_claims`]).
    usable: Vec<bool>,
    /// The usable claims by the vertex start their window ends at (for the nested-window
    /// checks after the search).
    ending_at: HashMap<usize, Vec<usize>>,
    /// Whether each claim survived the reductions ([`dominated_removed`],
    /// [`clear_winners`]).
    alive: Vec<bool>,
}

impl<'a, 'u> Owners<'a, 'u> {
    /// The evidence and the reductions over the swept claims: a unit is placed only
    /// where it reads as firmly as anywhere ([`firm`]); dominated claims and those that
    /// lose to a clear winner drop out (`container_steps` pays for the first).
    fn new(
        data: &'a [u8],
        units: &'a [Unit<'u>],
        claims: &'a [Vec<Claim>],
        flat: Vec<(usize, usize)>,
        Sweep { conflicts, shared }: Sweep,
        firm_claims: &[Vec<bool>],
        container_steps: &mut usize,
    ) -> Self {
        let value: Vec<Score> = flat
            .iter()
            .map(|&(u, k)| score(&claims[u][k], &units[u], claims[u][k].passes() == Some(true)))
            .collect();
        let mut by_unit: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
        for (x, &(u, _)) in flat.iter().enumerate() {
            by_unit[u].push(x);
        }
        let firmest: Vec<bool> = flat.iter().map(|&(u, k)| firm_claims[u][k]).collect();
        let mut alive = firmest.clone();
        let ranges: Vec<Range<usize>> = flat.iter().map(|&(u, k)| claims[u][k].range.clone()).collect();
        let end_of = |x: usize| window_end(&ranges[x], &units[flat[x].0]);
        let usable = usable_claims(units, &|x| flat[x].0, &value, &firmest, &end_of);
        let mut ending_at: HashMap<usize, Vec<usize>> = HashMap::new();
        for x in (0..flat.len()).filter(|&x| usable[x]) {
            ending_at.entry(end_of(x)).or_default().push(x);
        }
        dominated_removed(&by_unit, &value, &conflicts, &mut alive, container_steps);
        clear_winners(&by_unit, &value, &conflicts, &mut alive);
        let conflicts: Vec<Vec<usize>> = conflicts
            .iter()
            .map(|cs| cs.iter().copied().filter(|&y| alive[y]).collect())
            .collect();
        Owners {
            data,
            units,
            claims,
            flat,
            ranges,
            conflicts,
            shared,
            value,
            by_unit,
            firmest,
            usable,
            ending_at,
            alive,
        }
    }

    /// The claim a flat id stands for.
    fn claim(&self, x: usize) -> &'a Claim {
        let (u, k) = self.flat[x];
        &self.claims[u][k]
    }

    /// Components: units joined by a conflict between their remaining claims, keyed by
    /// their root unit; each unit with its alive claims (units with a result already,
    /// or without claims, take no part).
    fn components(&self, results: &[Option<Result<Rc<Decoded>, Reason>>]) -> BTreeMap<usize, Component> {
        let (flat, alive) = (&self.flat, &self.alive);
        let mut parent: Vec<usize> = (0..self.units.len()).collect();
        for (a, cs) in self.conflicts.iter().enumerate() {
            for &b in cs.iter().filter(|_| alive[a]) {
                let (ra, rb) = (root(&mut parent, flat[a].0), root(&mut parent, flat[b].0));
                if ra != rb {
                    parent[ra.max(rb)] = ra.min(rb);
                }
            }
        }
        let mut comps: BTreeMap<usize, Component> = BTreeMap::new();
        for (u, result) in results.iter().enumerate().take(self.units.len()) {
            if result.is_some() || self.by_unit[u].is_empty() {
                continue;
            }
            let r = root(&mut parent, u);
            let comp = comps.entry(r).or_insert_with(|| Component {
                units: Vec::new(),
                claims: Vec::new(),
            });
            comp.units.push(u);
            comp.claims
                .push(self.by_unit[u].iter().copied().filter(|&x| alive[x]).collect());
        }
        comps
    }

    /// Units whose best claim carries the most evidence first: the first assignment the
    /// search meets then gives every unit its own block wherever the evidence says so,
    /// and most alternatives are cut by the bound at once.
    fn order_for_search(&self, comps: &mut BTreeMap<usize, Component>) {
        let (value, conflicts) = (&self.value, &self.conflicts);
        let unit_best: Vec<Score> = self
            .by_unit
            .iter()
            .map(|xs| {
                xs.iter()
                    .filter(|&&x| self.alive[x])
                    .map(|&x| value[x])
                    .max()
                    .unwrap_or_default()
            })
            .collect();
        let takes_best = |x: usize| {
            conflicts[x]
                .iter()
                .filter(|&&y| value[y] == unit_best[self.flat[y].0])
                .count()
        };
        for comp in comps.values_mut() {
            // Within a unit, of equally good claims the one that takes the fewest other units'
            // best claims first, then the fewest claims at all (it leaves the most room to
            // the rest, so the first assignment the search meets is usually the best).
            for cs in &mut comp.claims {
                cs.sort_by(|&a, &b| {
                    value[b]
                        .cmp(&value[a])
                        .then(takes_best(a).cmp(&takes_best(b)))
                        .then(conflicts[a].len().cmp(&conflicts[b].len()))
                        .then(a.cmp(&b))
                });
            }
            let mut order: Vec<usize> = (0..comp.units.len()).collect();
            let best = |k: usize| comp.claims[k].first().map(|&x| value[x]).unwrap_or_default();
            order.sort_by(|&a, &b| best(b).cmp(&best(a)).then(a.cmp(&b)));
            comp.units = order.iter().map(|&k| comp.units[k]).collect();
            comp.claims = order.iter().map(|&k| std::mem::take(&mut comp.claims[k])).collect();
        }
    }

    /// A claim as a rejection names it: its offset and its unit's counts.
    fn describe(&self, x: usize) -> String {
        let (u, c) = (self.flat[x].0, self.claim(x));
        format!(
            "{:#x} (a block of {} vertices / {} indices)",
            c.range.start, self.units[u].vertex_count, self.units[u].index_count
        )
    }

    /// Searches every component (reduced first: [`incumbent`], [`probe`]) and returns,
    /// per component searched to the end, its verdicts and best assignment; a
    /// component whose search runs out of its budget has its units rejected in
    /// `results` instead. `container_steps` pays for every search.
    fn search_components(
        &self,
        comps: &mut BTreeMap<usize, Component>,
        results: &mut [Option<Result<Rc<Decoded>, Reason>>],
        container_steps: &mut usize,
    ) -> Vec<Decided> {
        let mut blocked = vec![0u32; self.flat.len()];
        let mut unit_of = vec![usize::MAX; self.flat.len()];
        // Per searched component: its verdict per unit (a claim, or why none) and the best
        // assignment the search found.
        let mut decided: Vec<Decided> = Vec::new();
        for (&key, comp) in comps.iter_mut() {
            let (inc_value, inc_pick) = self.reduce(comp);
            let comp = &*comp;
            let n = comp.units.len();
            for (k, cs) in comp.claims.iter().enumerate() {
                for &x in cs {
                    unit_of[x] = k;
                }
            }
            // The incumbent's value is a floor the search must reach (probing removed no
            // claim of an assignment that good, so the incumbent is still one of them).
            let floor = if inc_pick.iter().all(|p| p.is_none_or(|c| unit_of[c] != usize::MAX)) {
                inc_value
            } else {
                Score::default()
            };
            let mut search = Search {
                comp,
                value: &self.value,
                conflicts: &self.conflicts,
                unit_of: &unit_of,
                shared: &self.shared,
                ranges: &self.ranges,
                steps: COMPONENT_BUDGET.min(*container_steps),
                blocked: std::mem::take(&mut blocked),
                first: false,
                mark: vec![0; n],
                slot: vec![0; n],
                calls: 0,
            };
            let everyone: Vec<usize> = (0..n).collect();
            let first = search.solve(&everyone, floor);
            let pick = match &first {
                Ok(Some(found)) => picks(n, found),
                _ => vec![None; n],
            };
            let verdicts = match &first {
                Ok(Some(found)) => self.verdicts(&mut search, &everyone, &pick, found.0),
                Ok(None) => Ok(Vec::new()),
                Err(OutOfBudget) => Err(OutOfBudget),
            };
            *container_steps -= COMPONENT_BUDGET.min(*container_steps) - search.steps;
            blocked = std::mem::take(&mut search.blocked);
            for &x in comp.claims.iter().flatten() {
                unit_of[x] = usize::MAX;
            }
            let Ok(verdicts) = verdicts else {
                for &u in &comp.units {
                    results[u] = Some(Err(Reason::new(
                        Code::AmbiguousAnchor,
                        format!(
                            "its claims conflict with {} other resource(s)' and the ownership search \
                             ran out of its budget",
                            n - 1
                        ),
                    )));
                }
                continue;
            };
            decided.push((key, verdicts, pick));
        }
        decided
    }

    /// A good assignment of `comp` found fast ([`incumbent`]), and `comp` with the claims
    /// no assignment as good holds removed ([`probe`]); each under its own budget.
    fn reduce(&self, comp: &mut Component) -> (Score, Vec<Option<usize>>) {
        let mut reduce_steps = REDUCE_BUDGET;
        let (inc_value, inc_pick) = incumbent(comp, &self.value, &self.conflicts, &mut reduce_steps);
        let mut reduce_steps = REDUCE_BUDGET;
        if comp.units.len() > 1 {
            probe(comp, &self.value, &self.conflicts, inc_value, &mut reduce_steps);
        }
        (inc_value, inc_pick)
    }

    /// Every unit's verdict in the component `search` is over, given the best assignment
    /// it found (`pick`, worth `opt`): its claim where every assignment as good gives it
    /// the same bytes, else why not; in unit order, up to a search that runs out of its
    /// budget.
    fn verdicts(
        &self,
        search: &mut Search<'_>,
        everyone: &[usize],
        pick: &[Option<usize>],
        opt: Score,
    ) -> Result<Vec<Result<usize, String>>, OutOfBudget> {
        let mut verdicts: Vec<Result<usize, String>> = Vec::with_capacity(pick.len());
        for k in 0..search.comp.units.len() {
            verdicts.push(self.verdict(search, everyone, pick, opt, k)?);
        }
        Ok(verdicts)
    }

    /// The verdict on local unit `k` of the searched component (see [`Self::verdicts`]).
    fn verdict(
        &self,
        search: &mut Search<'_>,
        everyone: &[usize],
        pick: &[Option<usize>],
        opt: Score,
        k: usize,
    ) -> Result<Result<usize, String>, OutOfBudget> {
        let (comp, conflicts, flat) = (search.comp, &self.conflicts, &self.flat);
        let (n, u) = (comp.units.len(), comp.units[k]);
        let Some(c) = pick[k] else {
            // Unplaced in the best assignment: every fit is another unit's.
            let rival = comp.claims[k]
                .iter()
                .find_map(|&x| conflicts[x].iter().find(|y| pick.contains(&Some(**y))).copied());
            return Ok(Err(match rival {
                Some(y) => format!(
                    "every block that fits ({} from {:#x}) belongs to another resource, e.g. {}",
                    self.claims[u].len(),
                    self.claim(comp.claims[k][0]).range.start,
                    self.describe(y)
                ),
                None => "no assignment of the container's blocks gives it one".to_string(),
            }));
        };
        // Unique when no assignment as good gives it other bytes (or none). First
        // its bytes, wherever they lie, are forbidden to it and to its twins (a
        // byte-identical copy, or a twin taking them, is no other answer). Then,
        // where it has twins, to it alone: two units with the same counts whose
        // blocks differ (a body's records) may take each other's, and that exchange
        // is another answer; one with it unplaced and a twin on its bytes is not.
        let same_bytes = |x: usize| {
            let (j, _) = flat[x];
            identical(
                self.data,
                &self.claim(x).range,
                &self.claim(c).range,
                &self.units[j],
                &self.units[u],
            )
        };
        let all: Vec<usize> = comp
            .claims
            .iter()
            .flatten()
            .copied()
            .filter(|&x| same_bytes(x))
            .collect();
        if n == 1 && comp.claims[k].iter().all(|&x| same_bytes(x)) {
            return Ok(Ok(c));
        }
        let own: Vec<usize> = all.iter().copied().filter(|&x| flat[x].0 == u).collect();
        Ok(match other_answer(search, everyone, &all, &own, opt, k)? {
            Some(alt) => Err(match alt[k] {
                Some(y) => format!(
                    "two assignments of the container's blocks fit equally well: {} or {}",
                    self.describe(c),
                    self.describe(y)
                ),
                None => {
                    let rival = conflicts[c]
                        .iter()
                        .find(|y| comp.claims.iter().flatten().any(|z| z == *y));
                    format!(
                        "its block {} is as well explained by another resource's claim{}",
                        self.describe(c),
                        rival.map(|y| format!(" at {}", self.describe(*y))).unwrap_or_default()
                    )
                }
            }),
            None => Ok(c),
        })
    }

    /// Rejects the units placed on nested windows the bytes cannot tell apart
    /// ([`Nested::reject`]).
    fn reject_nested(&self, comps: &BTreeMap<usize, Component>, decided: &mut [Decided]) {
        let owner = |x: usize| self.flat[x].0;
        let nested = Nested {
            data: self.data,
            units: self.units,
            owner: &owner,
            ranges: &self.ranges,
            value: &self.value,
            firmest: &self.firmest,
            usable: &self.usable,
        };
        nested.reject(&self.by_unit, &self.ending_at, comps, decided, &|x| self.describe(x));
    }

    /// A unit that no best assignment places, with a twin that is decoded (same counts,
    /// declaration and bytes: one resource listed twice), shares the twin's block: the
    /// search deals each copy to one unit, and when the copies run out FORMAT.md allows
    /// two resources one block if their bytes are identical. (Sharing inside the search
    /// would let twins leave a copy free for another unit's misreading of it.)
    fn share_twins(&self, comps: &BTreeMap<usize, Component>, decided: &mut [Decided]) {
        let (data, units, ranges) = (self.data, self.units, &self.ranges);
        let decoded_at: Vec<(usize, usize)> = decided
            .iter()
            .flat_map(|(key, verdicts, _)| {
                comps[key]
                    .units
                    .iter()
                    .zip(verdicts)
                    .filter_map(|(&u, v)| v.as_ref().ok().map(|&c| (u, c)))
            })
            .collect();
        for (key, verdicts, pick) in decided {
            for (k, v) in verdicts.iter_mut().enumerate().filter(|(k, _)| pick[*k].is_none()) {
                let u = comps[key].units[k];
                let twin = decoded_at.iter().find_map(|&(j, c)| {
                    self.by_unit[u]
                        .iter()
                        .copied()
                        .find(|&x| j != u && identical(data, &ranges[x], &ranges[c], &units[u], &units[j]))
                });
                if let Some(x) = twin {
                    *v = Ok(x);
                }
            }
        }
    }

    /// Writes each decided unit's result: byte-identical blocks of duplicates are shared
    /// out first (any choice gives the same geometry: in the order the container lists
    /// the units, each the first copy left; a unit keeps its pick where no other is
    /// free), then a placed unit gets its block's reading and lets go of its other
    /// claims, which are returned as `(unit, range)`.
    fn record(
        &self,
        comps: &BTreeMap<usize, Component>,
        decided: Vec<Decided>,
        results: &mut [Option<Result<Rc<Decoded>, Reason>>],
    ) -> Vec<(usize, Range<usize>)> {
        let (data, units, ranges, conflicts, flat) = (self.data, self.units, &self.ranges, &self.conflicts, &self.flat);
        let mut released: Vec<(usize, Range<usize>)> = Vec::new();
        // Blocks already given to a unit: duplicates (which never conflict, so may sit in
        // components of their own) take the identical copies in turn.
        let mut taken: BTreeSet<usize> = BTreeSet::new();
        for (key, mut verdicts, _) in decided {
            let comp = &comps[&key];
            let chosen: BTreeSet<usize> = verdicts.iter().filter_map(|v| v.as_ref().ok().copied()).collect();
            // In the order the container lists the units.
            let mut in_order: Vec<usize> = (0..verdicts.len()).collect();
            in_order.sort_by_key(|&k| comp.units[k]);
            for k in in_order {
                let Ok(c) = &mut verdicts[k] else { continue };
                let start = |x: usize| self.claim(x).range.start;
                let free = comp.claims[k].iter().copied().filter(|&x| {
                    !taken.contains(&start(x))
                        && data[self.claim(x).range.clone()] == data[self.claim(*c).range.clone()]
                        && !conflicts[x].iter().any(|&y| {
                            // (A twin's copy is dealt here too: in order, one each.)
                            let twin = identical(data, &ranges[y], &ranges[x], &units[flat[y].0], &units[flat[x].0]);
                            chosen.contains(&y) && y != *c && !twin
                        })
                });
                let free = free.min_by_key(|&x| start(x));
                if let Some(x) = free {
                    *c = x;
                }
                taken.insert(start(*c));
            }
            for (k, v) in verdicts.into_iter().enumerate() {
                let u = comp.units[k];
                results[u] = Some(match v {
                    Ok(c) => {
                        let range = &self.claim(c).range;
                        released.extend(
                            self.claims[u]
                                .iter()
                                .filter(|x| x.range != *range)
                                .map(|x| (u, x.range.clone())),
                        );
                        self.claim(c)
                            .result(data)
                            .as_ref()
                            .map(Rc::clone)
                            .map_err(Reason::clone)
                    }
                    Err(why) => Err(Reason::new(Code::AmbiguousAnchor, why)),
                });
            }
        }
        released
    }
}

/// Another assignment worth `opt` (the best) for the searched component, as picks per
/// local unit: first with the claims `all` (local unit `k`'s bytes, wherever they lie)
/// forbidden; then, when `own` (those of `k`'s own) is fewer, with only `own` forbidden,
/// where only an assignment that places `k` counts. `None` when there is none.
fn other_answer(
    search: &mut Search<'_>,
    everyone: &[usize],
    all: &[usize],
    own: &[usize],
    opt: Score,
    k: usize,
) -> Result<Option<Vec<Option<usize>>>, OutOfBudget> {
    let n = search.comp.units.len();
    let passes: Vec<&[usize]> = if own.len() < all.len() {
        vec![all, own]
    } else {
        vec![all]
    };
    let mut r: Result<Option<Vec<Option<usize>>>, OutOfBudget> = Ok(None);
    for (pass, forbidden) in passes.into_iter().enumerate() {
        for &x in forbidden {
            search.blocked[x] += 1;
        }
        search.first = true;
        let found = search.solve(everyone, opt);
        search.first = false;
        for &x in forbidden {
            search.blocked[x] -= 1;
        }
        match found.map(|f| f.map(|f| picks(n, &f))) {
            Err(e) => {
                r = Err(e);
                break;
            }
            Ok(Some(alt)) if pass == 0 || alt[k].is_some() => {
                r = Ok(Some(alt));
                break;
            }
            Ok(_) => {}
        }
    }
    r
}

/// The picks of an assignment of a component's `n` units, per local unit.
fn picks(n: usize, found: &Assignment) -> Vec<Option<usize>> {
    let mut pick: Vec<Option<usize>> = vec![None; n];
    for &(k, c) in &found.1 {
        pick[k] = Some(c);
    }
    pick
}
