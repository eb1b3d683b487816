//! Claims by the block's structure alone, whatever its normals (docs/architecture.md,
//! rule 4, "Claims by structure"): the places where `I` u16 values `< V` end and `V`
//! vertices fit ([`Scanner::by_structure`]), looked for unless the run search settled the
//! unit ([`settled`]), under the section's structural work budget. Owns those places and
//! the budget; pinning them is the run search's (`search::pin`).

use super::bitmap::IndexMaxima;
use super::claim::{Claim, Unit};
use super::search::{element3, pin, plausible_position, Pinned, Scanner, HALF_UNIT_MIN_COMPONENT};
use crate::gates::GateConfig;
use crate::reason::{Code, Reason};

/// Has the run search given a unit a reading that no structural one could outrank on
/// its own evidence: a window that cannot be extended backwards at all (not even by a
/// header's triangle: the tail of a list one triangle longer is header-blind in the
/// criterion, so it does not settle a unit), no stray slots, its block passing the gates
/// (read and gated here, as the resolution would first)? Then the structural search is
/// not run for it: what it would add ranks no higher for this unit (docs/architecture.md,
/// rule 4, states what that costs).
pub(super) fn settled(data: &[u8], claims: &[Claim]) -> bool {
    claims
        .iter()
        .any(|c| c.preceding == 0 && c.stray == 0 && c.ok(data).is_some())
}

impl Scanner<'_> {
    /// Candidates by the block's structure alone (FORMAT.md §5: `I` u16 values `< V`
    /// directly followed by `V` vertices), whatever its normals: a window end `p` of
    /// every maximal run of values `< V` (per `(V, I)`, one pass over the section's
    /// maxima of units of about `I / 2` values, [`IndexMaxima`]) where the buffer fits, the window's first and last
    /// triangles have three distinct indices each, and the first vertex and those of
    /// those triangles have plausible positions
    /// (O(1) per place); each place that passes is pinned like a run's ([`pin`]: its
    /// evidence), under the section's structural work budget. Places the run search
    /// pinned already are skipped. Running out of budget rejects the unit (never a
    /// partial set of candidates).
    pub(super) fn by_structure(
        &mut self,
        unit: &Unit<'_>,
        cfg: &GateConfig,
        known: &[usize],
        pinned: &mut Vec<Pinned>,
        failures: &mut Vec<(usize, Reason)>,
    ) -> Result<(), Reason> {
        let data = self.data;
        let Some(pe) = unit.map.position else { return Ok(()) };
        let (v, i, s) = (unit.vertex_count as usize, unit.index_count as usize, unit.decl.stride);
        if v < 3 || i < 3 || s == 0 || pe.offset as usize + pe.ty.size() > s || unit.vertex_count > STRUCTURAL_MAX_V {
            return Ok(());
        }
        let pass = self
            .maxima
            .get_or_insert_with(|| IndexMaxima::build(data))
            .pass_len(data, i);
        self.spend_structural(pass, unit)?;
        let maxima = self.maxima.as_ref().expect("built just above");
        let runs = maxima.runs(data, unit.vertex_count, i);
        let idx = |k: usize| u16::from_be_bytes([data[2 * k], data[2 * k + 1]]) as u32;
        let mut places = Vec::new();
        // Places looked at count as they are looked at: a section whose every place
        // reads as a window runs out here, not after a pass over all of them.
        let allowance = self.structural_budget;
        let mut looked = 0usize;
        'runs: for (a, len) in runs {
            for w in a..=a + len - i {
                looked += 1;
                if looked > allowance {
                    break 'runs;
                }
                let p = 2 * (w + i);
                if p + v * s > data.len() {
                    break;
                }
                let (t0, t1, t2) = (idx(w), idx(w + 1), idx(w + 2));
                let (l0, l1, l2) = (idx(w + i - 3), idx(w + i - 2), idx(w + i - 1));
                let distinct = |a: u32, b: u32, c: u32| a != b && b != c && a != c;
                if !distinct(t0, t1, t2) || !distinct(l0, l1, l2) || known.contains(&(2 * w)) {
                    continue;
                }
                // The first vertex, and those of its first and last triangle (referenced:
                // the gates want them finite), have plausible positions. (The first is
                // what rules out the places inside an index list, where the slot at `p`
                // reads index pairs as tiny floats.)
                let pos = |k: u32| element3(data, p, s, &pe, k);
                let ends = [0, t0, t1, t2, l0, l1, l2];
                if !ends.iter().all(|&k| plausible_position(pos(k), cfg.max_abs_coordinate)) {
                    continue;
                }
                // A window whose largest index is below the gates' share of `V` cannot
                // reference that share ([`pin`]'s test, from the maxima: the tail of
                // a smaller block's list read with a larger count).
                if ((maxima.range_max(data, w, w + i) as f64) + 1.0) < cfg.min_referenced_fraction * v as f64 {
                    continue;
                }
                places.push(p);
            }
        }
        self.spend_structural(looked, unit)?;
        let mut seen = std::mem::take(&mut self.seen);
        let mut out = Ok(());
        for p in places {
            if let Err(e) = self.spend_structural(2 * i + v * s, unit) {
                out = Err(e);
                break;
            }
            pinned.extend(pin(data, p, unit, cfg, &mut seen, failures));
        }
        self.seen = seen;
        out
    }

    /// Take `n` units of work from the structural budget, or reject `unit` as out of
    /// budget.
    fn spend_structural(&mut self, n: usize, unit: &Unit<'_>) -> Result<(), Reason> {
        self.structural_budget = self.structural_budget.checked_sub(n).ok_or_else(|| {
            Reason::new(
                Code::AnchorOutOfBudget,
                format!(
                    "gave up: the structural search budget of this data section \
                     ({STRUCTURAL_BUDGET}× its size) ran out before {} vertices / {} indices were searched",
                    unit.vertex_count, unit.index_count
                ),
            )
        })?;
        Ok(())
    }
}

/// The work budget of the structural search ([`Scanner::by_structure`]), in multiples of
/// the data section's size (plus 16 MiB): passes over the group maxima and bytes of
/// pinned places count.
pub const STRUCTURAL_BUDGET: usize = 8;

/// Largest vertex count the structural search looks for: u16 values below it exclude
/// the high half of every negative f32 and of every f32 of magnitude ≥ 2^-14, and every
/// FLOAT16 component of magnitude ≥ 0.5762 ([`HALF_UNIT_MIN_COMPONENT`]), so a window
/// of them cannot lie over vertex data and its places are few; above it almost every
/// place of a vertex buffer reads as a window.
pub const STRUCTURAL_MAX_V: u32 = HALF_UNIT_MIN_COMPONENT;
