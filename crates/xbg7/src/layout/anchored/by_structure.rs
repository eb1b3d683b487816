//! Claims by the block's structure alone, whatever its normals (docs/architecture.md,
//! rule 4, "Claims by structure"): the places where `I` u16 values `< V` end and `V`
//! vertices fit ([`places`]), looked for unless the run search settled the unit
//! ([`settled`]). Owns which places those are; pinning them, and the budget, are the
//! scanner's (`search::Scanner::by_structure`).

use super::bitmap::IndexMaxima;
use super::claim::{Claim, Unit};
use super::vertex_bytes::{element3, plausible_position};
use crate::gates::GateConfig;

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

/// Candidates by the block's structure alone (FORMAT.md §5: `I` u16 values `< V`
/// directly followed by `V` vertices), whatever its normals: the vertex starts `p` that
/// end a window of every maximal run of values `< V` (`runs`, from the section's
/// [`IndexMaxima`]) where the buffer fits, the window's first and last triangles have
/// three distinct indices each, the first vertex and those of those triangles have
/// plausible positions, and the window's largest index reaches the gates' share of `V`
/// (O(1) per place); windows starting at `known` are skipped. At most `allowance` places
/// are looked at; returns the places and how many were looked at (more than
/// `allowance`: gave up).
pub(super) fn places(
    data: &[u8],
    maxima: &IndexMaxima,
    runs: &[(usize, usize)],
    unit: &Unit<'_>,
    cfg: &GateConfig,
    known: &[usize],
    allowance: usize,
) -> (Vec<usize>, usize) {
    let (v, i, s) = (unit.vertex_count as usize, unit.index_count as usize, unit.decl.stride);
    let Some(pe) = unit.map.position else {
        return (Vec::new(), 0);
    };
    let idx = |k: usize| u16::from_be_bytes([data[2 * k], data[2 * k + 1]]) as u32;
    let mut places = Vec::new();
    let mut looked = 0usize;
    for &(a, len) in runs {
        for w in a..=a + len - i {
            looked += 1;
            if looked > allowance {
                return (places, looked);
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
            // The first vertex, and those of its first and last triangle (referenced: the
            // gates want them finite), have plausible positions. (The first is what rules
            // out the places inside an index list, where the slot at `p` reads index
            // pairs as tiny floats.)
            let pos = |k: u32| element3(data, p, s, &pe, k);
            let ends = [0, t0, t1, t2, l0, l1, l2];
            if !ends.iter().all(|&k| plausible_position(pos(k), cfg.max_abs_coordinate)) {
                continue;
            }
            // A window whose largest index is below the gates' share of `V` cannot
            // reference that share (`search::pin`'s test, from the maxima: the tail of a
            // smaller block's list read with a larger count).
            if ((maxima.range_max(data, w, w + i) as f64) + 1.0) < cfg.min_referenced_fraction * v as f64 {
                continue;
            }
            places.push(p);
        }
    }
    (places, looked)
}
