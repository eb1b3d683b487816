//! The solver: the assignments of greatest value (`score`) over the claims a problem keeps
//! alive, searched exactly per conflict component, and a [`Verdict`] per unit — placed
//! only when every such assignment gives it the same bytes. Owns the search (a branch and
//! bound that splits into independent parts, [`Search`]), the reductions that keep every
//! best assignment (dominated claims, the incumbent's probing), the bound on units placed
//! (a matching of units to stabbing points), and the budgets: a component whose search
//! runs out of its budget is [`Verdict::OutOfBudget`], never guessed. Reads no bytes.

use super::problem::{BytesId, ClaimId, PerId, Problem, UnitId};
use super::score::Score;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

/// Most search steps for one conflict component (the first search and the uniqueness
/// checks together); past it the component's units are out of budget. (2¹⁸ left 5 or 6
/// stages of a realistic independent disc unsolved; 2²⁰ closes most of them for about one
/// second more per disc, and costs nothing where components close early.)
pub const COMPONENT_BUDGET: usize = 1 << 20;

/// Most steps of the polynomial reductions (the incumbent, the probing) of one component.
pub const REDUCE_BUDGET: usize = 1 << 24;

/// Most search steps for one container (a bound for hostile input).
pub const CONTAINER_BUDGET: usize = 1 << 24;

/// What the solver says of one unit. Each rejection has its own manifest code: "two
/// readings fit" (`ambiguous_anchor`), "nothing fits" (`no_valid_anchor`), "gave up"
/// (`anchor_out_of_budget`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Every best assignment gives it this claim's bytes.
    Placed(ClaimId),
    /// Best assignments differ on it: it is placed in one and not, or elsewhere, in another
    /// (`rival`: the claim that takes its place, where one does).
    Ambiguous { rival: Option<ClaimId>, why: String },
    /// No best assignment places it: every block that fits is another unit's.
    NotFound { why: String },
    /// The search ran out of its budget before deciding.
    OutOfBudget { why: String },
}

/// One conflict component: its units and, per unit, its claims alive, strongest first.
pub(super) struct Component {
    pub(super) units: Vec<UnitId>,
    pub(super) claims: Vec<Vec<ClaimId>>,
}

/// The search over one component: branch and bound that splits the remaining units into
/// independent parts wherever the claims still open let them, and solves each part on its
/// own (claims are byte ranges, so a container's conflicts form long chains that fall
/// apart once the few resources claiming far apart are decided).
struct Search<'a> {
    comp: &'a Component,
    value: &'a PerId<ClaimId, Score>,
    conflicts: &'a PerId<ClaimId, Vec<ClaimId>>,
    /// Per claim of the container: its local unit in this component, or `usize::MAX`.
    unit_of: &'a PerId<ClaimId, usize>,
    /// Per claim: identical duplicates overlapping it ([`most_placed`]'s capacities).
    shared: &'a PerId<ClaimId, u32>,
    problem: &'a Problem,
    steps: usize,
    /// Per claim: how many taken claims (or uniqueness checks) exclude it.
    blocked: PerId<ClaimId, u32>,
    /// Stop at the first assignment reaching the value asked for (uniqueness checks).
    first: bool,
    /// A local unit every assignment must place (the check that an unplaced unit is
    /// unplaced in every best assignment).
    force: Option<usize>,
    /// Scratch: per local unit, the call that marked it a member, and its slot there.
    mark: Vec<usize>,
    slot: Vec<usize>,
    calls: usize,
}

/// An assignment of some of a component's units: its value and `(local unit, claim)`.
type Assignment = (Score, Vec<(usize, ClaimId)>);

impl Search<'_> {
    fn tick(&mut self, work: usize) -> Result<(), OutOfBudget> {
        self.steps = self.steps.checked_sub(work).ok_or(OutOfBudget)?;
        Ok(())
    }

    fn allowed(&self, c: ClaimId) -> bool {
        self.blocked[c] == 0
    }

    /// The allowed claims of local unit `u`, best first.
    fn open(&self, u: usize) -> impl Iterator<Item = ClaimId> + '_ {
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
            let open: Vec<Vec<ClaimId>> = units.iter().map(|&u| self.open(u).collect()).collect();
            let room = most_placed(&open, |x| self.problem.claims[x].range.clone(), self.shared) as usize;
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
            if c.is_none() && self.force == Some(u) {
                return Ok(None);
            }
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
            // Every part but the last gives its best (a first one found that meets its
            // share could leave too little to the parts after it); the last may stop at
            // the first that meets what is left.
            let first = self.first;
            for (n, ((part, _), b)) in parts.iter().zip(bounds).enumerate() {
                rest = rest - b;
                self.first = first && n + 1 == parts.len();
                let found = self.solve(part, need - got.0 - rest);
                self.first = first;
                let Some((v, mut picks)) = found? else {
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
        let choices: Vec<ClaimId> = self.open(*u).collect();
        let mut need = need;
        let mut best: Option<Assignment> = None;
        let none = (self.force != Some(*u)).then_some(None);
        for c in choices.into_iter().map(Some).chain(none) {
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
pub(super) fn dominated_removed(
    by_unit: &PerId<UnitId, Vec<ClaimId>>,
    value: &PerId<ClaimId, Score>,
    conflicts: &PerId<ClaimId, Vec<ClaimId>>,
    alive: &mut PerId<ClaimId, bool>,
    steps: &mut usize,
) {
    // Is every remaining conflict of `d` one of `c`'s (both lists sorted)?
    let subset = |alive: &PerId<ClaimId, bool>, d: ClaimId, c: ClaimId, steps: &mut usize| {
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
        for xs in &by_unit.0 {
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
    value: &PerId<ClaimId, Score>,
    conflicts: &PerId<ClaimId, Vec<ClaimId>>,
    steps: &mut usize,
) -> (Score, Vec<Option<ClaimId>>) {
    let n = comp.units.len();
    // The local unit holding each taken claim.
    let mut owner: HashMap<ClaimId, usize> = HashMap::new();
    let free = |owner: &HashMap<ClaimId, usize>, c: ClaimId, steps: &mut usize| {
        *steps = steps.saturating_sub(conflicts[c].len() + 1);
        !conflicts[c].iter().any(|y| owner.contains_key(y))
    };
    let mut pick: Vec<Option<ClaimId>> = vec![None; n];
    for (k, (p, cs)) in pick.iter_mut().zip(&comp.claims).enumerate() {
        if let Some(&c) = cs.iter().find(|&&c| free(&owner, c, steps)) {
            *p = Some(c);
            owner.insert(c, k);
        }
    }
    let val = |c: Option<ClaimId>| c.map_or(Score::default(), |c| value[c]);
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
                let mut saved: Vec<(usize, Option<ClaimId>)> = vec![(k, pick[k])];
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
fn probe(
    comp: &mut Component,
    value: &PerId<ClaimId, Score>,
    conflicts: &PerId<ClaimId, Vec<ClaimId>>,
    floor: Score,
    steps: &mut usize,
) {
    loop {
        let best: Vec<Score> = comp
            .claims
            .iter()
            .map(|cs| cs.first().map_or(Score::default(), |&c| value[c]))
            .collect();
        let total = best.iter().fold(Score::default(), |a, &b| a + b);
        let unit_of: HashMap<ClaimId, usize> = comp
            .claims
            .iter()
            .enumerate()
            .flat_map(|(k, cs)| cs.iter().map(move |&c| (c, k)))
            .collect();
        let mut removed = false;
        for k in 0..comp.claims.len() {
            let mut keep: Vec<ClaimId> = Vec::with_capacity(comp.claims[k].len());
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
fn most_placed(claims: &[Vec<ClaimId>], range: impl Fn(ClaimId) -> Range<usize>, shared: &PerId<ClaimId, u32>) -> u32 {
    let mut all: Vec<ClaimId> = claims.iter().flatten().copied().collect();
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
    claims: &[Vec<ClaimId>],
    range: &impl Fn(ClaimId) -> Range<usize>,
    shared: &PerId<ClaimId, u32>,
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
/// Another assignment worth `opt` (the best) for the searched component, as picks per
/// local unit: first with the claims `all` (local unit `k`'s bytes, wherever they lie)
/// forbidden; then, when `own` (those of `k`'s own) is fewer, with only `own` forbidden,
/// where only an assignment that places `k` counts. `None` when there is none.
fn other_answer(
    search: &mut Search<'_>,
    everyone: &[usize],
    all: &[ClaimId],
    own: &[ClaimId],
    opt: Score,
    k: usize,
) -> Result<Option<Vec<Option<ClaimId>>>, OutOfBudget> {
    let n = search.comp.units.len();
    let passes: Vec<&[ClaimId]> = if own.len() < all.len() {
        vec![all, own]
    } else {
        vec![all]
    };
    let mut r: Result<Option<Vec<Option<ClaimId>>>, OutOfBudget> = Ok(None);
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
fn picks(n: usize, found: &Assignment) -> Vec<Option<ClaimId>> {
    let mut pick: Vec<Option<ClaimId>> = vec![None; n];
    for &(k, c) in &found.1 {
        pick[k] = Some(c);
    }
    pick
}
/// A searched component: its units and their claims (in search order), each unit's
/// verdict, and the best assignment the search found (`pick`, per unit: the rules after
/// the search read it).
pub(super) struct Decided {
    pub(super) comp: Component,
    pub(super) verdicts: Vec<Verdict>,
    pub(super) pick: Vec<Option<ClaimId>>,
}

/// Solves `p` over its claims `alive`: the components (units joined by a conflict between
/// their alive claims), each reduced, ordered and searched, with a verdict per unit.
/// Units without an alive claim, or without claims, take no part. `container_steps` pays
/// for every search.
pub(super) fn solve(p: &Problem, alive: &PerId<ClaimId, bool>, container_steps: &mut usize) -> Vec<Decided> {
    let conflicts: PerId<ClaimId, Vec<ClaimId>> = PerId::new(
        p.conflicts
            .0
            .iter()
            .map(|cs| cs.iter().copied().filter(|&y| alive[y]).collect())
            .collect(),
    );
    let mut comps = components(p, alive, &conflicts);
    let value = p.values();
    order_for_search(p, alive, &value, &conflicts, &mut comps);
    let mut unit_of: PerId<ClaimId, usize> = PerId::filled(p.claims.len(), usize::MAX);
    let mut blocked: PerId<ClaimId, u32> = PerId::filled(p.claims.len(), 0);
    let mut decided: Vec<Decided> = Vec::new();
    for mut comp in comps.into_values() {
        let (inc_value, inc_pick) = reduce(&mut comp, &value, &conflicts);
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
            comp: &comp,
            value: &value,
            conflicts: &conflicts,
            unit_of: &unit_of,
            shared: &p.shared,
            problem: p,
            steps: COMPONENT_BUDGET.min(*container_steps),
            blocked: std::mem::replace(&mut blocked, PerId::new(Vec::new())),
            first: false,
            force: None,
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
            Ok(Some(found)) => verdicts(p, &mut search, &everyone, &pick, found.0).map(Some),
            Ok(None) => Ok(None),
            Err(OutOfBudget) => Err(OutOfBudget),
        };
        *container_steps -= COMPONENT_BUDGET.min(*container_steps) - search.steps;
        blocked = std::mem::replace(&mut search.blocked, PerId::new(Vec::new()));
        for &x in comp.claims.iter().flatten() {
            unit_of[x] = usize::MAX;
        }
        let verdicts = match verdicts {
            Ok(Some(v)) => v,
            // (No assignment reaches the floor: cannot happen, the incumbent does; the
            // units are left to their reasons for having no claim.)
            Ok(None) => continue,
            Err(OutOfBudget) => {
                let why = format!(
                    "gave up: its claims conflict with {} other resource(s)' and the ownership search \
                     ran out of its budget",
                    n - 1
                );
                vec![Verdict::OutOfBudget { why }; n]
            }
        };
        decided.push(Decided { comp, verdicts, pick });
    }
    decided
}

/// Components: units joined by a conflict between their alive claims, or by alive claims
/// on byte-identical copies, keyed by their root unit; each unit with its alive claims.
fn components(
    p: &Problem,
    alive: &PerId<ClaimId, bool>,
    conflicts: &PerId<ClaimId, Vec<ClaimId>>,
) -> BTreeMap<UnitId, Component> {
    let mut parent: Vec<usize> = (0..p.units.len()).collect();
    for a in p.claim_ids().filter(|&a| alive[a]) {
        for &b in &conflicts[a] {
            let (ra, rb) = (root(&mut parent, p.owner(a).0), root(&mut parent, p.owner(b).0));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    // Twins holding byte-identical copies are decided together: whether a block is held
    // in every best assignment (the uniqueness check) counts a twin's copy. (A group of
    // more than `TWINS_APART` shares copies in the search instead: each unit alone has
    // the same bytes wherever it is placed.)
    let mut copy_of: HashMap<BytesId, usize> = HashMap::new();
    for a in p.claim_ids().filter(|&a| alive[a] && p.twins_apart(p.owner(a))) {
        let first = *copy_of.entry(p.claims[a].bytes).or_insert(p.owner(a).0);
        let (ra, rb) = (root(&mut parent, p.owner(a).0), root(&mut parent, first));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut comps: BTreeMap<UnitId, Component> = BTreeMap::new();
    for u in (0..p.units.len()).map(UnitId) {
        if p.by_unit[u].is_empty() {
            continue;
        }
        let comp = comps
            .entry(UnitId(root(&mut parent, u.0)))
            .or_insert_with(|| Component {
                units: Vec::new(),
                claims: Vec::new(),
            });
        comp.units.push(u);
        comp.claims
            .push(p.by_unit[u].iter().copied().filter(|&x| alive[x]).collect());
    }
    comps
}

/// Units whose best claim carries the most evidence first: the first assignment the
/// search meets then gives every unit its own block wherever the evidence says so, and
/// most alternatives are cut by the bound at once. (Speed only: no verdict depends on it.)
fn order_for_search(
    p: &Problem,
    alive: &PerId<ClaimId, bool>,
    value: &PerId<ClaimId, Score>,
    conflicts: &PerId<ClaimId, Vec<ClaimId>>,
    comps: &mut BTreeMap<UnitId, Component>,
) {
    let unit_best: Vec<Score> = p
        .by_unit
        .0
        .iter()
        .map(|xs| {
            xs.iter()
                .filter(|&&x| alive[x])
                .map(|&x| value[x])
                .max()
                .unwrap_or_default()
        })
        .collect();
    let takes_best = |x: ClaimId| {
        conflicts[x]
            .iter()
            .filter(|&&y| value[y] == unit_best[p.owner(y).0])
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

/// A good assignment of `comp` found fast ([`incumbent`]), and `comp` with the claims no
/// assignment as good holds removed ([`probe`]); each under its own budget.
fn reduce(
    comp: &mut Component,
    value: &PerId<ClaimId, Score>,
    conflicts: &PerId<ClaimId, Vec<ClaimId>>,
) -> (Score, Vec<Option<ClaimId>>) {
    let mut reduce_steps = REDUCE_BUDGET;
    let (inc_value, inc_pick) = incumbent(comp, value, conflicts, &mut reduce_steps);
    let mut reduce_steps = REDUCE_BUDGET;
    if comp.units.len() > 1 {
        probe(comp, value, conflicts, inc_value, &mut reduce_steps);
    }
    (inc_value, inc_pick)
}

/// Every unit's verdict in the component `search` is over, given the best assignment it
/// found (`pick`, worth `opt`); in unit order, up to a search that runs out of its budget.
fn verdicts(
    p: &Problem,
    search: &mut Search<'_>,
    everyone: &[usize],
    pick: &[Option<ClaimId>],
    opt: Score,
) -> Result<Vec<Verdict>, OutOfBudget> {
    (0..search.comp.units.len())
        .map(|k| verdict(p, search, everyone, pick, opt, k))
        .collect()
}

/// The verdict on local unit `k` of the searched component (see [`verdicts`]): placed
/// when every assignment worth `opt` gives it the same bytes; ambiguous when one places
/// it and another does not, or elsewhere; not found when none places it.
fn verdict(
    p: &Problem,
    search: &mut Search<'_>,
    everyone: &[usize],
    pick: &[Option<ClaimId>],
    opt: Score,
    k: usize,
) -> Result<Verdict, OutOfBudget> {
    let comp = search.comp;
    let (n, u) = (comp.units.len(), comp.units[k]);
    // Unplaced in the best assignment found: another, as good, may place it (then its
    // bytes there are the ones to check); otherwise none does.
    let placed = match pick[k] {
        Some(c) => Some(c),
        None => {
            search.force = Some(k);
            search.first = true;
            let found = search.solve(everyone, opt);
            search.force = None;
            search.first = false;
            found?.and_then(|f| picks(n, &f)[k])
        }
    };
    let Some(c) = placed else {
        let rival = comp.claims[k]
            .iter()
            .find_map(|&x| p.conflicts[x].iter().find(|y| pick.contains(&Some(**y))).copied());
        return Ok(Verdict::NotFound {
            why: match rival {
                Some(y) => format!(
                    "nothing fits: every block that fits ({} from {:#x}) belongs to another resource, e.g. {}",
                    p.by_unit[u].len(),
                    p.claims[p.by_unit[u][0]].range.start,
                    p.describe(y)
                ),
                None => format!(
                    "nothing fits: no best assignment of the container's blocks gives it one of its {} block(s)",
                    p.by_unit[u].len()
                ),
            },
        });
    };
    // Unique when no assignment as good gives it other bytes (or none). First its bytes,
    // wherever they lie, are forbidden to it and to its twins (a byte-identical copy, or
    // a twin taking them, is no other answer). Then, where it has twins, to it alone: two
    // units with the same counts whose blocks differ (a body's records) may take each
    // other's, and that exchange is another answer; one with it unplaced and a twin on
    // its bytes is not.
    let all: Vec<ClaimId> = comp
        .claims
        .iter()
        .flatten()
        .copied()
        .filter(|&x| p.identical(x, c))
        .collect();
    if n == 1 && comp.claims[k].iter().all(|&x| p.identical(x, c)) {
        return Ok(Verdict::Placed(c));
    }
    let own: Vec<ClaimId> = all.iter().copied().filter(|&x| p.owner(x) == u).collect();
    Ok(match other_answer(search, everyone, &all, &own, opt, k)? {
        Some(alt) => match alt[k] {
            Some(y) => Verdict::Ambiguous {
                rival: Some(y),
                why: format!(
                    "two readings fit: two assignments of the container's blocks fit equally well: {} or {}",
                    p.describe(c),
                    p.describe(y)
                ),
            },
            None => {
                let rival = search.conflicts[c]
                    .iter()
                    .copied()
                    .find(|y| comp.claims.iter().flatten().any(|z| z == y));
                Verdict::Ambiguous {
                    rival,
                    why: format!(
                        "two readings fit: its block {} is as well explained by another resource's claim{}",
                        p.describe(c),
                        rival.map(|y| format!(" at {}", p.describe(y))).unwrap_or_default()
                    ),
                }
            }
        },
        None => Verdict::Placed(c),
    })
}

/// The root of `x` in a union-find forest (path halving).
fn root(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

pub(super) struct OutOfBudget;
