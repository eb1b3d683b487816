//! The criterion: the evidence one reading of a block carries ([`Score`], from a claim by
//! [`score`]), compared lexicographically and summed over an assignment. Owns the order
//! every decision of the ownership problem uses; docs/architecture.md, rule 5, states it
//! with its argument.
//!
//! An assignment gives each unit at most one of its claims, no two conflicting. Its value
//! is the sum of its claims' scores, compared component by component in this order:
//! 1. **units placed** — FORMAT.md §6: every resource has a block; a reading that leaves a
//!    unit without one explains less of the file.
//! 2. **blocks that pass the gates** — a misreading of another resource's bytes rarely
//!    passes them; a damaged owner's block fails them whoever reads it (an undecodable
//!    unit's reading is neutral: its declaration may not describe the bytes).
//! 3. **fewest unexplained slots and triangles**, counted together: *stray slots* —
//!    vertex slots before the first referenced vertex or after the last whose normal is
//!    unlike the block's (`search::stray_slots`): a reading that starts before its block or runs past it takes in bytes
//!    that are no vertex of it there (an unreferenced vertex between referenced ones is
//!    the block's own, whatever its normal) — plus *edge triangles* past a block
//!    header's two ([`HEADER_TRIANGLES`]): a window that is the tail of a longer list
//!    (FORMAT.md §6's suffix mis-anchor). Each is a coincidence a reading needs where it
//!    is not the block (bytes of something else read as vertices, or as triangles of
//!    the block's own vertices), and neither is excluded by FORMAT.md (texture tails and
//!    headers may read as triangles, §5–6; nothing promises unit normals), so one
//!    unexplained item weighs as much as another: a header-less block after a texture
//!    whose tail reads as three triangles is not outranked by another resource's block
//!    read with thirty slots past its end. (The split between the two breaks a tie last.)
//! 4. **most unit normals** — "prefer candidates whose
//!    normals are unit" (§6), a preference: nothing promises every normal is unit.
//! 5. **window strength** — the window starts with a real triangle and cannot be extended
//!    backwards by one (header-blind: a header's two triangles count as a start).
//!
//! A unit is placed only when every assignment of the greatest value gives it the same
//! bytes (the solver, `solve`); the value only ranks readings, it never picks between
//! two that tie.

use super::claim::{Claim, Unit};

/// The evidence of a claim or an assignment (a sum of claims), compared lexicographically
/// in the order of the module comment. Every field counts up: a measure to minimise is
/// stored negated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Score {
    pub(super) placed: i64,
    pub(super) gated: i64,
    pub(super) stray: i64,
    pub(super) preceding: i64,
    pub(super) normals: i64,
    pub(super) strength: i64,
}

impl Score {
    /// The integer tuple a score is ordered by (the module comment's order; stray slots
    /// and edge triangles count together, and the split between them breaks a tie last,
    /// so that scores differing in any field are never equal).
    fn key(&self) -> (i64, i64, i64, i64, i64, i64) {
        (
            self.placed,
            self.gated,
            self.stray + self.preceding,
            self.normals,
            self.strength,
            self.stray,
        )
    }

    /// The least score above `self` (scores are ordered as integer tuples, so `x > s`
    /// exactly when `x >= s.succ()`): one stray slot fewer for one edge triangle more.
    pub(super) fn succ(self) -> Score {
        Score {
            stray: self.stray + 1,
            preceding: self.preceding - 1,
            ..self
        }
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, o: &Score) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Score {
    fn cmp(&self, o: &Score) -> std::cmp::Ordering {
        self.key().cmp(&o.key())
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
pub(super) fn score(c: &Claim, unit: &Unit<'_>, passes: bool) -> Score {
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

/// A claim's unexplained items (field 3 of the order): its stray slots plus its edge
/// triangles past a block header's two.
pub(super) fn unexplained(c: &Claim) -> u32 {
    c.stray + c.preceding.saturating_sub(HEADER_TRIANGLES)
}

/// What a misreading cannot fake: a decodable reading that fails the gates, or vertex
/// slots that nothing supports (fields 2 and 3 of the order).
pub(super) fn firm(v: Score) -> (i64, i64) {
    (v.gated, v.stray + v.preceding)
}

/// Does a claim's window start the way FORMAT.md §6 says a real index buffer does: with
/// a real triangle, not extensible backwards, no edge triangles?
pub(super) fn strong_start(v: Score) -> bool {
    v.strength == 3 && v.preceding == 0
}

/// A claim's window evidence: placed, edge triangles, strength (the measures every
/// reading has, whatever its gates; compared lexicographically, summed per world).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Window(i64, i64, i64);

impl Window {
    pub(super) fn add(self, o: Window) -> Window {
        Window(self.0 + o.0, self.1 + o.1, self.2 + o.2)
    }
}

pub(super) fn window(v: Score) -> Window {
    Window(v.placed, v.preceding, v.strength)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(placed: i64, gated: i64, stray: i64, preceding: i64, normals: i64, strength: i64) -> Score {
        Score {
            placed,
            gated,
            stray,
            preceding,
            normals,
            strength,
        }
    }

    #[test]
    fn the_order_is_placed_then_gates_then_unexplained_items_then_normals_then_strength() {
        // Each field outranks every later one, whatever the later ones say; stray slots
        // and edge triangles count as one field.
        let order = [
            s(2, 0, -9, -9, -9, 0),
            s(1, 1, 0, 0, 0, 3),
            s(1, 0, 0, 0, 0, 3),
            s(1, 0, -1, 0, 0, 3),
            s(1, 0, -1, -1, 0, 3),
            s(1, 0, -1, -1, -1, 3),
            s(1, 0, -1, -1, -1, 0),
        ];
        for w in order.windows(2) {
            assert!(w[0] > w[1], "{:?} > {:?}", w[0], w[1]);
        }
        // One edge triangle past the header outranks thirty stray slots; a tie between
        // the two is broken by the split last, after the other evidence.
        assert!(s(1, 1, 0, -1, -9, 0) > s(1, 1, -30, 0, 0, 3));
        assert!(s(1, 1, -1, 0, 0, 3) > s(1, 1, 0, -1, -1, 3));
        assert!(s(1, 1, 0, -1, 0, 3) > s(1, 1, -1, 0, 0, 3));
        // Sums are per field, and `succ` is the least score above.
        assert_eq!(order[1] + order[2] - order[2], order[1]);
        for x in order {
            assert!(x.succ() > x);
        }
        assert!(order[6].succ() <= order[5]);
        let t = s(1, 1, -1, 0, 0, 3);
        assert!(t.succ() <= s(1, 1, 0, -1, 0, 3));
    }
}
