//! The evidence at a window's edges: whether a window can be extended backwards, its
//! strength, and the triangles next to it that read as more of its list — before it (a
//! suffix of a longer list), opening it degenerate (zero padding), and after it, read
//! from what the reading takes as its first vertices (a prefix) — judged against the
//! block the reading makes (area; the faces' sense against its normals). Pure functions
//! of the bytes; `search::pin` and the other searches weigh them.

use super::vertex_bytes::face_dot;
use crate::gates::degenerate_by;

/// Most degenerate triangles the backward extension of a claim's window looks past for a
/// real one.
pub const MAX_SKIPPED_DEGENERATE: usize = 3;

/// Can the window starting at `w` be extended backwards by a valid, real triangle of a
/// block of `v` vertices whose positions `pos` reads — directly, or past up to
/// [`MAX_SKIPPED_DEGENERATE`] valid degenerate ones (real index lists hold some: a
/// window that starts right after one is still inside a longer list)? Triangles of one
/// repeated value (zero padding reads as `(0, 0, 0)`) are not looked past.
pub(super) fn extendable(data: &[u8], w: usize, v: u32, pos: impl Fn(u32) -> [f32; 3] + Copy) -> bool {
    for k in 1..=MAX_SKIPPED_DEGENERATE + 1 {
        let Some(at) = w.checked_sub(6 * k) else { return false };
        let t: [u32; 3] = std::array::from_fn(|j| u16::from_be_bytes([data[at + 2 * j], data[at + 2 * j + 1]]) as u32);
        if t.iter().any(|&i| i >= v) || (t[0] == t[1] && t[1] == t[2]) {
            return false;
        }
        if !degenerate_by(pos, t) {
            return true;
        }
    }
    false
}

/// Most triangles [`preceding_triangles`] walks back over.
pub const MAX_PRECEDING: u32 = 1024;

/// How a triangle next to a window reads against the block a reading makes of it:
/// one of its list (distinct indices, area, and — where the reading has normals that
/// give its faces a sense — a face in that sense), one to look past (degenerate), or one
/// against the block's winding (a triangle of another list over these vertices agrees
/// about half the time; one of the same list, as often as the block's own faces do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Edge {
    Real,
    Skip,
    Against,
}

/// How many real triangles precede the window at `w` as one index list: walking back a
/// triangle at a time over values `< v`, counting those `judge` calls [`Edge::Real`]
/// and faces against the block's winding while they are at most one in eight of those
/// counted (at least one: a list has a few flipped faces; one more ends the walk),
/// looking past up to [`MAX_SKIPPED_DEGENERATE`] degenerate ones in a row, stopping at a triangle of one repeated value (padding) or a
/// value `≥ v`; at most [`MAX_PRECEDING`]. 0 for a window that starts an index buffer;
/// an unknown block header may read as a few; the suffix of a longer buffer is preceded
/// by all of that buffer's earlier triangles (a graded form of "cannot be extended
/// backwards", FORMAT.md §6); another resource's index buffer right before the window
/// (its values `< v` too) stops the walk within a few triangles, its faces being no
/// faces of this block.
pub(crate) fn preceding_triangles(data: &[u8], w: usize, v: u32, judge: impl Fn([u32; 3]) -> Edge) -> u32 {
    list_walk(data, (1..).map_while(|k: usize| w.checked_sub(6 * k)), v, judge)
}

/// How many real triangles the vertex bytes at `p` (right after a window) read as, the
/// list continued past the window's end: as [`preceding_triangles`], walking forwards.
/// 0 where the first vertex starts with a value `≥ v` (a float of any size but zero
/// does); the window of a reading that starts its vertices inside an index buffer (a
/// prefix of the list, its vertices read from the list's tail) is followed by the rest
/// of the list — the mirror of a suffix, and as unexplained.
pub(crate) fn following_triangles(data: &[u8], p: usize, v: u32, judge: impl Fn([u32; 3]) -> Edge) -> u32 {
    list_walk(data, (0..).map(|k: usize| p + 6 * k), v, judge)
}

/// The walk of [`preceding_triangles`] and [`following_triangles`] over the triangles at
/// byte offsets `at` (in walking order; the walk ends at the data's end).
fn list_walk(data: &[u8], at: impl Iterator<Item = usize>, v: u32, judge: impl Fn([u32; 3]) -> Edge) -> u32 {
    let (mut n, mut skipped, mut against) = (0u32, 0usize, 0u32);
    for at in at {
        let Some(b) = data.get(at..at + 6) else { break };
        if n >= MAX_PRECEDING {
            break;
        }
        let t: [u32; 3] = std::array::from_fn(|j| u16::from_be_bytes([b[2 * j], b[2 * j + 1]]) as u32);
        if t.iter().any(|&i| i >= v) || (t[0] == t[1] && t[1] == t[2]) {
            break;
        }
        let e = if t[0] != t[1] && t[1] != t[2] && t[0] != t[2] {
            judge(t)
        } else {
            Edge::Skip
        };
        match e {
            Edge::Real => {
                n += 1;
                skipped = 0;
            }
            Edge::Skip => {
                skipped += 1;
                if skipped > MAX_SKIPPED_DEGENERATE {
                    break;
                }
            }
            Edge::Against => {
                against += 1;
                if against > (n / 8).max(1) {
                    break;
                }
                n += 1;
                skipped = 0;
            }
        }
    }
    n
}

/// The sense the faces of the window at `w` (`i` indices) agree with their vertices'
/// normals in, from its first [`SENSE_SAMPLE`] faces with area: `Some(±1.0)` when at
/// least three in four of those oriented agree one way, `None` otherwise (no normals to
/// tell, or no sense).
pub(super) fn window_sense(
    data: &[u8],
    w: usize,
    i: usize,
    pos: impl Fn(u32) -> [f32; 3] + Copy,
    nrm: impl Fn(u32) -> [f32; 3],
) -> Option<f32> {
    let idx = |k: usize| u16::from_be_bytes([data[w + 2 * k], data[w + 2 * k + 1]]) as u32;
    let (mut a, mut d) = (0usize, 0usize);
    for t in (0..i / 3).map(|t| [idx(3 * t), idx(3 * t + 1), idx(3 * t + 2)]) {
        if a + d >= SENSE_SAMPLE {
            break;
        }
        if degenerate_by(pos, t) {
            continue;
        }
        match face_against_normals(pos, &nrm, t) {
            x if x > 0.0 => a += 1,
            x if x < 0.0 => d += 1,
            _ => {}
        }
    }
    match (a, d) {
        (a, d) if a >= 4 && a >= 3 * d => Some(1.0),
        (a, d) if d >= 4 && d >= 3 * a => Some(-1.0),
        _ => None,
    }
}

/// Faces a window's sense is read from ([`window_sense`]).
const SENSE_SAMPLE: usize = 32;

/// The face of `t` (right-hand rule) dotted with the sum of its vertices' normals.
pub(super) fn face_against_normals(pos: impl Fn(u32) -> [f32; 3], nrm: impl Fn(u32) -> [f32; 3], t: [u32; 3]) -> f32 {
    let n = t.map(nrm);
    face_dot(t.map(pos), [0, 1, 2].map(|j| n[0][j] + n[1][j] + n[2][j]))
}

/// How many degenerate triangles open the window at `w` (`i` indices) before its first
/// real one: zero padding read as `(0, 0, 0)` triangles by a window that starts before
/// its buffer (FORMAT.md §6) opens with them; a real buffer starts with a real triangle
/// (a preference: some open with a degenerate one). At most [`MAX_PRECEDING`].
pub(super) fn leading_degenerate(data: &[u8], w: usize, i: usize, degenerate: impl Fn([u32; 3]) -> bool) -> u32 {
    let idx = |k: usize| u16::from_be_bytes([data[w + 2 * k], data[w + 2 * k + 1]]) as u32;
    (0..(i / 3).min(MAX_PRECEDING as usize))
        .take_while(|&t| degenerate([idx(3 * t), idx(3 * t + 1), idx(3 * t + 2)]))
        .count() as u32
}

/// How many triangles with a repeated index close the `i` indices at byte `w` (at most
/// [`MAX_PRECEDING`]): zero padding after an index buffer reads as `(0, 0, 0)`; a window
/// that runs past its buffer's end into padding closes with them (the mirror of
/// FORMAT.md §6's leading degenerate triangles), a real list with a real one (a
/// preference: a list may close with a degenerate triangle).
pub(crate) fn trailing_degenerate(data: &[u8], w: usize, i: usize) -> u32 {
    (1..=(i / 3).min(MAX_PRECEDING as usize))
        .map(|t| w + 2 * (i - 3 * t))
        .take_while(|&at| {
            let t = [0, 1, 2].map(|j| u16::from_be_bytes([data[at + 2 * j], data[at + 2 * j + 1]]) as u32);
            t[0] == t[1] || t[1] == t[2] || t[0] == t[2]
        })
        .count() as u32
}

/// The claim strength of a block of `i` indices at window `w` (all `< v`) whose vertex
/// positions `pos` reads (see [`Claim::strength`](super::claim::Claim::strength)).
pub(super) fn strength(data: &[u8], w: usize, i: usize, v: u32, pos: impl Fn(u32) -> [f32; 3] + Copy) -> u8 {
    let idx = |k: usize| u16::from_be_bytes([data[w + 2 * k], data[w + 2 * k + 1]]) as u32;
    let real_start = i >= 3 && !degenerate_by(pos, [idx(0), idx(1), idx(2)]);
    2 * u8::from(!extendable(data, w, v, pos)) + u8::from(real_start)
}

#[cfg(test)]
mod tests {
    use super::{following_triangles, preceding_triangles, trailing_degenerate, Edge, MAX_PRECEDING};

    fn bytes(values: &[u16]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_be_bytes()).collect()
    }

    #[test]
    fn the_list_walks_count_real_triangles_on_either_side_of_a_window() {
        // [another list of values < 20][window: 6 values][vertex bytes: a float, then more]
        let before = [1u16, 2, 3, 4, 5, 6, 7, 8, 9];
        let window = [10u16, 11, 12, 13, 14, 15];
        let mut v: Vec<u16> = vec![0xFFFF];
        v.extend(before);
        v.extend(window);
        let p = 2 * v.len();
        v.extend([0x3F80, 0, 0, 1, 2, 3]);
        let data = bytes(&v);
        let w = 2 * (1 + before.len());
        assert_eq!(preceding_triangles(&data, w, 20, |_| Edge::Real), 3);
        // The vertex bytes start with a float's high half `≥ v`: nothing follows.
        assert_eq!(following_triangles(&data, p, 20, |_| Edge::Real), 0);
        // A reading that starts its vertices two triangles early is followed by them.
        assert_eq!(following_triangles(&data, p - 12, 20, |_| Edge::Real), 2);
        // What `real` rejects is looked past (up to three in a row), not counted.
        assert_eq!(
            following_triangles(&data, p - 12, 20, |t| if t[0] != 13 { Edge::Real } else { Edge::Skip }),
            1
        );
        // Faces against the block's winding: one in eight of those counted (at least
        // one) is counted too (a list has a few flipped faces); one more ends the walk.
        let against = |bad: u32| move |t: [u32; 3]| if t[0] == bad { Edge::Against } else { Edge::Real };
        assert_eq!(preceding_triangles(&data, w, 20, against(7)), 3);
        let two_against = |t: [u32; 3]| if t[0] >= 4 { Edge::Against } else { Edge::Real };
        assert_eq!(preceding_triangles(&data, w, 20, two_against), 1);
        // One repeated value (padding) ends a walk; so does the data's end.
        let pad = bytes(&[0, 0, 0, 1, 2, 3]);
        assert_eq!(following_triangles(&pad, 0, 20, |_| Edge::Real), 0);
        assert_eq!(following_triangles(&pad, 6, 20, |_| Edge::Real), 1);
        // At most MAX_PRECEDING.
        let long = bytes(&(0..3 * (MAX_PRECEDING as u16 + 5)).map(|k| k % 7).collect::<Vec<_>>());
        assert_eq!(following_triangles(&long, 0, 20, |_| Edge::Real), MAX_PRECEDING);
    }

    #[test]
    fn a_window_that_runs_into_padding_closes_with_degenerate_triangles() {
        let b = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_be_bytes()).collect() };
        // Two real triangles, then the zero padding after the buffer.
        let data = b(&[8, 0, 1, 0, 8, 7, 0, 0, 0, 0, 0, 0]);
        assert_eq!(trailing_degenerate(&data, 0, 6), 0);
        assert_eq!(trailing_degenerate(&data, 0, 9), 1);
        assert_eq!(trailing_degenerate(&data, 0, 12), 2);
        assert_eq!(trailing_degenerate(&data, 6, 6), 1);
        assert_eq!(trailing_degenerate(&data, 0, 0), 0);
    }
}
