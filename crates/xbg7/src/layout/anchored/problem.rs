//! The ownership problem as a typed value, built from the bytes once and solved without
//! them: the units ([`UnitSpec`]: counts, stride, declaration, decodable), their claims
//! ([`ClaimSpec`]: the byte range, where its index window ends, its evidence [`Score`],
//! whether it is among its unit's firmest, which bytes it holds), and the conflicts
//! between claims of different units. What a later rule still asks of the bytes (a
//! triangle's indices, a block's gates) goes through [`Facts`], so a test can build a
//! problem by hand.

use super::claim::{Claim, Unit};
use super::score::{score, unexplained, Score};
use super::search::count_unit_normals;
use crate::decl::{Declaration, Element};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut, Range};

/// A unit of the problem (a resource's or a sub-mesh record's block to place), by its
/// position in the container's list of units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct UnitId(pub(super) usize);

/// A claim of the problem, by its position in the problem's flat list of claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct ClaimId(pub(super) usize);

/// A class of byte-identical blocks: same counts, same declaration, same bytes (a
/// duplicate resource may share or mirror such a block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct BytesId(pub(super) usize);

/// A declaration, by its first unit's: units with equal declarations have one id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct DeclId(pub(super) usize);

/// Types that index a [`PerId`].
pub(super) trait Id: Copy {
    fn ix(self) -> usize;
}

impl Id for UnitId {
    fn ix(self) -> usize {
        self.0
    }
}

impl Id for ClaimId {
    fn ix(self) -> usize {
        self.0
    }
}

/// A vector indexed by one kind of id only.
#[derive(Clone, Debug)]
pub(super) struct PerId<I, T>(pub(super) Vec<T>, PhantomData<I>);

impl<I: Id, T> PerId<I, T> {
    pub(super) fn new(v: Vec<T>) -> Self {
        PerId(v, PhantomData)
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }
}

impl<I: Id, T: Clone> PerId<I, T> {
    pub(super) fn filled(n: usize, x: T) -> Self {
        PerId(vec![x; n], PhantomData)
    }
}

impl<I: Id, T> Index<I> for PerId<I, T> {
    type Output = T;
    fn index(&self, i: I) -> &T {
        &self.0[i.ix()]
    }
}

impl<I: Id, T> IndexMut<I> for PerId<I, T> {
    fn index_mut(&mut self, i: I) -> &mut T {
        &mut self.0[i.ix()]
    }
}

/// What the solver knows of a unit.
#[derive(Clone, Debug)]
pub(super) struct UnitSpec {
    pub(super) vertex_count: u32,
    pub(super) index_count: u32,
    pub(super) stride: usize,
    pub(super) decl: DeclId,
    /// Whether its reading is evidence (a unit that cannot be decoded still claims).
    pub(super) decodable: bool,
}

/// What the solver knows of a claim.
#[derive(Clone, Debug)]
pub(super) struct ClaimSpec {
    pub(super) unit: UnitId,
    /// The block's bytes: its index window, then its vertices.
    pub(super) range: Range<usize>,
    /// Its evidence.
    pub(super) value: Score,
    /// Whether it is among its unit's firmest readings (rule 1, `rules::firmest`).
    pub(super) firmest: bool,
    /// Which byte-identical blocks it is one of.
    pub(super) bytes: BytesId,
    /// Triangles at the window's edge (`Claim::preceding`).
    pub(super) preceding: u32,
    /// Where in the unit's own list of claims it is (to read its block afterwards).
    pub(super) own: usize,
}

/// The facts of the bytes a rule after the search still asks for (lazily: most are never
/// needed).
pub(super) trait Facts {
    /// Are the three u16 values at byte `at` three distinct indices (a real triangle)?
    fn real_triangle(&self, at: usize) -> bool;
    /// Does the block of claim `c` pass the gates (read and gated on first use)?
    fn emitted(&self, c: ClaimId) -> bool;
}

/// The container's ownership problem.
#[derive(Debug)]
pub(super) struct Problem {
    pub(super) units: PerId<UnitId, UnitSpec>,
    pub(super) claims: PerId<ClaimId, ClaimSpec>,
    /// Per unit: its claims, strongest first (then by offset).
    pub(super) by_unit: PerId<UnitId, Vec<ClaimId>>,
    /// Per claim: the claims of other units it conflicts with (sorted).
    pub(super) conflicts: PerId<ClaimId, Vec<ClaimId>>,
    /// Per claim: how many claims of other units overlap it without conflict (identical
    /// twins of a large group, [`TWINS_APART`]), the capacity of the placement bound's
    /// points.
    pub(super) shared: PerId<ClaimId, u32>,
    /// Per unit: how many units share its counts and declaration (itself included).
    group: PerId<UnitId, usize>,
}

/// Most pairs of conflicting claims one container may hold; beyond it every unit with a
/// claim is rejected as out of budget (a real disc has a handful; the bound keeps hostile
/// input linear).
pub const MAX_CONFLICTS: usize = 1 << 20;

/// Most twins (units with the same counts and declaration) whose identical claims
/// conflict in the search; a larger group shares its copies there.
pub const TWINS_APART: usize = 8;

impl Problem {
    /// The vertex start where claim `c`'s index window ends.
    pub(super) fn end(&self, c: ClaimId) -> usize {
        let x = &self.claims[c];
        x.range.start + 2 * self.units[x.unit].index_count as usize
    }

    /// The unit of claim `c`.
    pub(super) fn owner(&self, c: ClaimId) -> UnitId {
        self.claims[c].unit
    }

    /// Every claim id, in order.
    pub(super) fn claim_ids(&self) -> impl Iterator<Item = ClaimId> {
        (0..self.claims.len()).map(ClaimId)
    }

    /// A claim as a rejection names it: its offset and its unit's counts.
    pub(super) fn describe(&self, c: ClaimId) -> String {
        let u = &self.units[self.owner(c)];
        format!(
            "{:#x} (a block of {} vertices / {} indices)",
            self.claims[c].range.start, u.vertex_count, u.index_count
        )
    }

    /// Byte-identical blocks of twin units (see [`BytesId`]).
    pub(super) fn identical(&self, a: ClaimId, b: ClaimId) -> bool {
        self.claims[a].bytes == self.claims[b].bytes
    }

    /// Whether unit `u`'s twins (same counts and declaration, itself included) are at
    /// most [`TWINS_APART`]: their identical copies conflict in the search (a larger
    /// group shares them there).
    pub(super) fn twins_apart(&self, u: UnitId) -> bool {
        self.group[u] <= TWINS_APART
    }

    /// Every claim's evidence, by claim.
    pub(super) fn values(&self) -> PerId<ClaimId, Score> {
        PerId::new(self.claims.0.iter().map(|c| c.value).collect())
    }

    /// The problem of `units`, whose claims (`claims`, sorted here strongest first) were
    /// found in `data`; units with `taking_part` false (a result already) have none.
    /// Gates the claims its firmness rule needs ([`firmest`]).
    pub(super) fn build(
        data: &[u8],
        units: &[Unit<'_>],
        claims: &mut [Vec<Claim>],
        taking_part: &[bool],
    ) -> Option<Problem> {
        let mut decls: Vec<&Declaration> = Vec::new();
        let specs: Vec<UnitSpec> = units
            .iter()
            .map(|u| {
                let d = decls.iter().position(|d| *d == u.decl).unwrap_or_else(|| {
                    decls.push(u.decl);
                    decls.len() - 1
                });
                UnitSpec {
                    vertex_count: u.vertex_count,
                    index_count: u.index_count,
                    stride: u.decl.stride,
                    decl: DeclId(d),
                    decodable: u.decodable,
                }
            })
            .collect();
        let mut flat: Vec<ClaimSpec> = Vec::new();
        for (u, cs) in claims.iter_mut().enumerate() {
            if !taking_part[u] {
                continue;
            }
            let firm = rank(data, cs, &units[u]);
            for (k, (c, f)) in cs.iter().zip(firm).enumerate() {
                flat.push(ClaimSpec {
                    unit: UnitId(u),
                    range: c.range.clone(),
                    value: score(c, &units[u], c.passes() == Some(true)),
                    firmest: f,
                    bytes: BytesId(0),
                    preceding: c.preceding,
                    own: k,
                });
            }
        }
        byte_classes(data, &specs, &mut flat);
        Problem::from_parts(specs, flat)
    }

    /// The problem of these units and claims (each unit's claims in the order given):
    /// the conflicts swept from their ranges; `None` past [`MAX_CONFLICTS`] pairs.
    pub(super) fn from_parts(units: Vec<UnitSpec>, claims: Vec<ClaimSpec>) -> Option<Problem> {
        let mut by_unit: Vec<Vec<ClaimId>> = vec![Vec::new(); units.len()];
        for (x, c) in claims.iter().enumerate() {
            by_unit[c.unit.0].push(ClaimId(x));
        }
        let mut sizes: HashMap<(u32, u32, DeclId), usize> = HashMap::new();
        for u in &units {
            *sizes.entry((u.vertex_count, u.index_count, u.decl)).or_default() += 1;
        }
        let group = PerId::new(
            units
                .iter()
                .map(|u| sizes[&(u.vertex_count, u.index_count, u.decl)])
                .collect(),
        );
        let mut p = Problem {
            group,
            units: PerId::new(units),
            claims: PerId::new(claims),
            by_unit: PerId::new(by_unit),
            conflicts: PerId::new(Vec::new()),
            shared: PerId::new(Vec::new()),
        };
        let (conflicts, shared) = conflicting_pairs(&p)?;
        (p.conflicts, p.shared) = (conflicts, shared);
        Some(p)
    }
}

/// Sorts a unit's claims strongest first (then by offset), so the search meets the best
/// assignment early, and returns which are its firmest ([`firmest`]; their normals are
/// counted here). A claim below its unit's firmest is never gated; it counts as failing,
/// which can only move it among the claims that take no part.
fn rank(data: &[u8], cs: &mut Vec<Claim>, unit: &Unit<'_>) -> Vec<bool> {
    let firm = firmest(data, cs, unit);
    for (c, _) in cs.iter_mut().zip(&firm).filter(|(_, f)| **f) {
        c.unit_normals = unit_normals(data, c, unit);
    }
    let mut keyed: Vec<(Score, bool, Claim)> = std::mem::take(cs)
        .into_iter()
        .zip(firm)
        .map(|(c, f)| (score(&c, unit, c.passes() == Some(true)), f, c))
        .collect();
    keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.range.start.cmp(&b.2.range.start)));
    let firm;
    (firm, *cs) = keyed.into_iter().map(|(_, f, c)| (f, c)).unzip();
    firm
}

/// Rule 1, firmness: which of a unit's claims are its firmest — passes the gates if any
/// does, then the fewest unexplained items (stray slots plus edge triangles past a block
/// header's two: field 3 of [`Score`](super::score::Score)).
/// The claims are gated in that order, and the gating stops at the first level where one
/// passes: a claim below that is never read (most claims are another resource's block,
/// and reading one is most of the cost). Every claim of an undecodable unit is equally
/// firm and none is read.
pub(super) fn firmest(data: &[u8], cs: &[Claim], unit: &Unit<'_>) -> Vec<bool> {
    if !unit.decodable {
        return vec![true; cs.len()];
    }
    let level = unexplained;
    let mut levels: Vec<u32> = cs.iter().map(level).collect();
    levels.sort_unstable();
    levels.dedup();
    for &l in &levels {
        let passing: Vec<bool> = cs.iter().map(|c| level(c) == l && c.ok(data).is_some()).collect();
        if passing.contains(&true) {
            return passing;
        }
    }
    // Nothing passes (every claim is now gated): the lowest level.
    let fewest = levels.first().copied();
    cs.iter().map(|c| Some(level(c)) == fewest).collect()
}

/// Do the `V` normals `e` of a buffer at vertex start `p` lie inside the data?
pub(super) fn normals_fit(data: &[u8], p: usize, unit: &Unit<'_>, e: &Element) -> bool {
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

/// Gives each claim its [`BytesId`]: claims of twin units (same counts and declaration)
/// with equal bytes share one. Compared within groups of the same shape and length only
/// (a unit's own claims are most of them), each against one claim per class found.
fn byte_classes(data: &[u8], units: &[UnitSpec], claims: &mut [ClaimSpec]) {
    let mut groups: HashMap<(u32, u32, DeclId, usize), Vec<usize>> = HashMap::new();
    for (x, c) in claims.iter().enumerate() {
        let u = &units[c.unit.0];
        groups
            .entry((u.vertex_count, u.index_count, u.decl, c.range.len()))
            .or_default()
            .push(x);
    }
    let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
    groups.sort_unstable();
    let mut next = 0usize;
    for g in groups {
        // One representative claim per class of this group.
        let mut reps: Vec<(usize, usize)> = Vec::new();
        for x in g {
            let bytes = &data[claims[x].range.clone()];
            let class = match reps.iter().find(|(r, _)| data[claims[*r].range.clone()] == *bytes) {
                Some(&(_, id)) => id,
                None => {
                    reps.push((x, next));
                    next += 1;
                    next - 1
                }
            };
            claims[x].bytes = BytesId(class);
        }
    }
}

/// The conflicting pairs among the problem's claims (overlapping ranges of different
/// units), by a sweep over their sorted starts, and per claim how many claims overlap it
/// without conflict; `None` past [`MAX_CONFLICTS`] pairs.
type Conflicts = (PerId<ClaimId, Vec<ClaimId>>, PerId<ClaimId, u32>);

fn conflicting_pairs(p: &Problem) -> Option<Conflicts> {
    let n = p.claims.len();
    let mut by_start: Vec<ClaimId> = p.claim_ids().collect();
    by_start.sort_by_key(|&x| (p.claims[x].range.start, x));
    let mut conflicts: PerId<ClaimId, Vec<ClaimId>> = PerId::filled(n, Vec::new());
    let mut shared: PerId<ClaimId, u32> = PerId::filled(n, 0);
    let mut pairs = 0usize;
    for (k, &a) in by_start.iter().enumerate() {
        let ra = &p.claims[a].range;
        for &b in &by_start[k + 1..] {
            let rb = &p.claims[b].range;
            if rb.start >= ra.end {
                break;
            }
            // Byte-identical duplicates conflict like any two claims: each copy goes to
            // one unit in the search (a twin shares a copy only when none is left for
            // it, after the search). Twins of a group larger than [`TWINS_APART`] share
            // in the search (a bound: such a group's conflicts grow as the cube of its
            // size); the placement bound's points then hold as many as share there.
            let (ua, ub) = (p.owner(a), p.owner(b));
            if ua == ub {
                continue;
            }
            if !p.twins_apart(ua) && p.identical(a, b) {
                shared[a] += 1;
                shared[b] += 1;
            } else {
                conflicts[a].push(b);
                conflicts[b].push(a);
                pairs += 1;
                if pairs > MAX_CONFLICTS {
                    return None;
                }
            }
        }
    }
    for cs in &mut conflicts.0 {
        cs.sort_unstable();
    }
    Some((conflicts, shared))
}
