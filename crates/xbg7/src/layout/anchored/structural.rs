//! Claims from the index windows of other units (FORMAT.md §6: a block belongs to its
//! owner whether or not the owner decodes): the longer lists before a claim's vertex
//! start, and an undecodable unit's windows at every vertex start of a claim or a
//! unit-normal run ([`structural_claims`]). Owns those claims' making; reads the bytes.

use super::super::Placement;
use super::claim::{Block, Claim, Reading, Unit};
use super::edges::{leading_degenerate, preceding_triangles, Edge};
use super::problem::normals_fit;
use super::search::{referenced, stray_slots, window_valid, Seen, Windows};
use crate::gates::GateConfig;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

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
    seen: &mut Seen,
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
    fn at_run_starts(&mut self, starts: &[(usize, usize, usize)], seen: &mut Seen) {
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
    fn at_claims(&mut self, windows: &mut Windows, seen: &mut Seen) {
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
    fn try_claim(&mut self, u2: usize, p: usize, windows: Option<&mut Windows>, seen: &mut Seen) {
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
        let preceding = preceding_triangles(data, w2, v2, |_| Edge::Real)
            + leading_degenerate(data, w2, iu, |t| t[0] == t[1] || t[1] == t[2] || t[0] == t[2]);
        let stray = match other.map.normal {
            Some(e) if other.decodable && normals_fit(data, p, other, &e) => {
                stray_slots(data, p, s2, &e, &seen.bits, v2)
            }
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
