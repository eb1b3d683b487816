//! One block, one owner: the global resolution over every unit's claims (counts first,
//! then claim strength, then the unit-normal tie-break; whatever is left is
//! `ambiguous_anchor`).

use super::*;

/// Between two equally strong claims on the same index window (same offset, same
/// count) of units that both have normals, so differing only in the vertex count: the
/// one with fewer vertices whose normal is not unit, if they differ (`Some(true)`: `a`).
/// A block read with too many vertices takes in slots after it that are no vertices
/// (their normals are not unit); the owner's reading does not.
pub(super) fn fewer_non_unit(a: &Cand, ua: &Unit<'_>, b: &Cand, ub: &Unit<'_>) -> Option<bool> {
    if ua.map.normal.is_none()
        || ub.map.normal.is_none()
        || a.range.start != b.range.start
        || ua.index_count != ub.index_count
    {
        return None;
    }
    let na = ua.vertex_count.saturating_sub(a.unit_normals);
    let nb = ub.vertex_count.saturating_sub(b.unit_normals);
    (na != nb).then_some(na < nb)
}

/// Does the window of `v`/`i` counts at `w` look like the start of an index buffer from
/// its bytes alone: a first triangle of three distinct indices?
pub(super) fn real_start_indices(data: &[u8], w: usize) -> bool {
    let x = |k: usize| u16::from_be_bytes([data[w + 2 * k], data[w + 2 * k + 1]]);
    let (a, b, c) = (x(0), x(1), x(2));
    a != b && b != c && a != c
}

/// A claim whose window extends backwards (the suffix of a longer index list) is dropped
/// when the longer list is the window of another resource's counts: `I' > I` u16 values
/// `< V'` ending at the same vertex start, referencing the gates' share of `V'` and
/// starting with a real triangle. That resource owns the block even where it cannot be
/// read itself (a multi-stream or quantized declaration, a stride its declaration does
/// not give): a sibling must not be decoded from its vertices and its index tail
/// (FORMAT.md §6). Returns the longer windows, as claimed ranges.
pub(super) fn drop_suffix_windows(
    data: &[u8],
    units: &[Unit<'_>],
    cands: &mut [Vec<Cand>],
    failures: &mut [Vec<(usize, Reason)>],
    cfg: &GateConfig,
    windows: &mut Windows,
    seen: &mut Vec<u64>,
) -> Vec<Range<usize>> {
    let mut counts: Vec<(u32, u32)> = units.iter().map(|u| (u.index_count, u.vertex_count)).collect();
    counts.sort_unstable();
    counts.dedup();
    let max_v = counts.iter().map(|c| c.1).max().unwrap_or(0);
    let mut owned = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        let i = unit.index_count as usize;
        cands[u].retain(|c| {
            if c.strength >= 2 {
                return true;
            }
            let p = c.range.start + 2 * i;
            // Counts with a longer window, shortest first; once a value no resource's
            // vertex count allows is among them (within a few values of a list's start),
            // no longer window is valid either.
            let longer = &counts[counts.partition_point(|x| x.0 as usize <= i)..];
            for &(i2, v2) in longer {
                let i2 = i2 as usize;
                if 2 * i2 > p || !windows.valid(data, p, i2, max_v) {
                    break;
                }
                let w2 = p - 2 * i2;
                if windows.valid(data, p, i2, v2)
                    && real_start_indices(data, w2)
                    && referenced(data, w2, i2, v2 as usize, seen) as f64 >= cfg.min_referenced_fraction * v2 as f64
                {
                    failures[u].push((
                        c.range.start,
                        Reason::new(
                            Code::AmbiguousAnchor,
                            format!(
                                "the window at {:#x} is the tail of a longer index buffer: {i2} indices \
                                 < {v2} (another resource's counts) from {w2:#x} end at the same \
                                 vertex start {p:#x}",
                                c.range.start
                            ),
                        ),
                    ));
                    owned.push(w2..p);
                    return false;
                }
            }
            true
        });
    }
    owned
}

/// Rounds of the resolution in which only the losses to claims that lose nothing are
/// applied; later rounds apply every loss (a bound for hostile chains of claims).
pub const MAX_FIRM_ROUNDS: usize = 64;

/// One block, one owner, over the claims of every unit (decodable or not):
/// 1. Of two conflicting claims of different units (overlapping, not byte-identical
///    duplicates), the stronger one ([`Cand::strength`]) wins: a window that is the
///    suffix of another index buffer, or that reads zero padding as a first triangle,
///    loses to the real start.
/// 2. Between equal claims, a unit with a single claim keeps it against a unit that has
///    another claim at least as strong elsewhere.
/// 3. Conflicts still left take both claims away, and both units are `ambiguous_anchor`:
///    ownership is undecidable there, so neither is guessed.
/// 4. A unit's last claim gives its result (decoded, or the gate that its block fails);
///    of several, byte-identical blocks are shared out among duplicates, a single
///    strongest one is taken, anything else is `ambiguous_anchor`.
///
/// Returns the claims `(unit, range)` a unit let go of for a single stronger block of its
/// own: they are no evidence that anyone owns those bytes (e.g. a suffix reading of
/// another block's index list), so a later search need not keep off them.
pub(super) fn resolve(
    data: &[u8],
    units: &[Unit<'_>],
    cands: &mut [Vec<Cand>],
    failures: &[Vec<(usize, Reason)>],
    results: &mut [Option<Result<Rc<Decoded>, Reason>>],
) -> Vec<(usize, Range<usize>)> {
    // Claims a unit let go of for a stronger block of its own (see the return value).
    let mut released: Vec<(usize, Range<usize>)> = Vec::new();
    let mut flat: Vec<(usize, usize)> = (0..units.len())
        .filter(|&u| results[u].is_none())
        .flat_map(|u| (0..cands[u].len()).map(move |k| (u, k)))
        .collect();
    flat.sort_by_key(|&(u, k)| (cands[u][k].range.start, u, k));
    let cand = |f: (usize, usize)| &cands[f.0][f.1];
    // Conflicting pairs (indices into `flat`), by a sweep over the sorted starts.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    'sweep: for a in 0..flat.len() {
        let ra = &cand(flat[a]).range;
        for b in a + 1..flat.len() {
            let rb = &cand(flat[b]).range;
            if rb.start >= ra.end {
                break;
            }
            let (ua, ub) = (flat[a].0, flat[b].0);
            if ua != ub && !identical(data, ra, rb, &units[ua], &units[ub]) {
                pairs.push((a, b));
                if pairs.len() > MAX_CONFLICTS {
                    break 'sweep;
                }
            }
        }
    }
    if pairs.len() > MAX_CONFLICTS {
        for &(u, _) in &flat {
            results[u].get_or_insert_with(|| {
                Err(Reason::new(
                    Code::AmbiguousAnchor,
                    format!("more than {MAX_CONFLICTS} conflicting claims in this data section"),
                ))
            });
        }
        return released;
    }
    let mut alive = vec![true; flat.len()];
    let mut count = vec![0usize; units.len()];
    let mut by_unit: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
    for (x, &(u, _)) in flat.iter().enumerate() {
        count[u] += 1;
        by_unit[u].push(x);
    }
    // Does the unit of `flat[x]` keep another live claim at least as strong as `s`?
    let has_other = |alive: &[bool], x: usize, s: u8| {
        by_unit[flat[x].0]
            .iter()
            .any(|&y| y != x && alive[y] && cand(flat[y]).strength >= s)
    };
    // Why a unit lost a claim it might have owned (a tie: rule 3).
    let mut contested: Vec<Option<String>> = vec![None; units.len()];
    let describe = |f: (usize, usize)| {
        let (c, un) = (cand(f), &units[f.0]);
        format!(
            "{:#x} (a block of {} vertices / {} indices)",
            c.range.start, un.vertex_count, un.index_count
        )
    };
    let mut rounds = 0;
    loop {
        // (loser, winner) of every live pair that one of them wins.
        let mut kill: Vec<(usize, usize)> = Vec::new();
        for &(a, b) in &pairs {
            if !alive[a] || !alive[b] {
                continue;
            }
            let (fa, fb) = (flat[a], flat[b]);
            let (sa, sb) = (cand(fa).strength, cand(fb).strength);
            if sa != sb {
                kill.push(if sa > sb { (b, a) } else { (a, b) });
            } else if let Some(a_wins) = fewer_non_unit(cand(fa), &units[fa.0], cand(fb), &units[fb.0]) {
                kill.push(if a_wins { (b, a) } else { (a, b) });
            } else if count[fa.0] == 1 && count[fb.0] >= 2 && has_other(&alive, b, sb) {
                kill.push((b, a));
            } else if count[fb.0] == 1 && count[fa.0] >= 2 && has_other(&alive, a, sa) {
                kill.push((a, b));
            }
        }
        if kill.is_empty() {
            break;
        }
        // A claim that loses this round takes no other claim with it: only the losses to
        // winners that lose nothing themselves are applied (all of them when every
        // winner also loses, so the rounds always end, and after MAX_FIRM_ROUNDS rounds,
        // so a chain of claims each beating the next cannot make them quadratic).
        let losers: BTreeSet<usize> = kill.iter().map(|&(x, _)| x).collect();
        let firm: Vec<usize> = kill
            .iter()
            .filter(|&&(_, w)| !losers.contains(&w))
            .map(|&(x, _)| x)
            .collect();
        rounds += 1;
        let apply = if firm.is_empty() || rounds > MAX_FIRM_ROUNDS {
            losers.into_iter().collect()
        } else {
            firm
        };
        for x in apply {
            if std::mem::replace(&mut alive[x], false) {
                count[flat[x].0] -= 1;
            }
        }
    }
    let mut tie: Vec<usize> = Vec::new();
    for &(a, b) in &pairs {
        if alive[a] && alive[b] {
            tie.extend([a, b]);
            contested[flat[a].0].get_or_insert_with(|| describe(flat[b]));
            contested[flat[b].0].get_or_insert_with(|| describe(flat[a]));
        }
    }
    for x in tie {
        alive[x] = false;
    }
    let mut left: Vec<Vec<Cand>> = vec![Vec::new(); units.len()];
    for (x, &(u, k)) in flat.iter().enumerate() {
        if alive[x] {
            left[u].push(cands[u][k].clone());
        }
    }
    // Duplicates: units whose remaining claims are all byte-identical blocks share them
    // out in order (any choice gives the same geometry).
    let mut next_for_group: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
    for u in 0..units.len() {
        if results[u].is_some() {
            continue;
        }
        let c = std::mem::take(&mut left[u]);
        results[u] = Some(if let Some(other) = &contested[u] {
            Err(Reason::new(
                Code::AmbiguousAnchor,
                format!("its block and another resource's claim overlap at {other}: the owner is undecidable"),
            ))
        } else if c.is_empty() {
            let lost = !cands[u].is_empty();
            if lost {
                let at = cands[u][0].range.start;
                Err(Reason::new(
                    Code::AmbiguousAnchor,
                    format!(
                        "every block that fits ({} from {at:#x}) belongs to another resource",
                        cands[u].len()
                    ),
                ))
            } else {
                Err(no_candidate(&units[u], None, &failures[u]))
            }
        } else if c.iter().all(|x| data[x.range.clone()] == data[c[0].range.clone()]) {
            let key: Vec<usize> = c.iter().map(|x| x.range.start).collect();
            let n = next_for_group.entry(key).or_insert(0);
            let pick = &c[*n % c.len()];
            *n += 1;
            // The claims it lost to other units' (its identical ones stay for duplicates).
            released.extend(
                cands[u]
                    .iter()
                    .filter(|x| !c.iter().any(|y| y.range == x.range))
                    .map(|x| (u, x.range.clone())),
            );
            pick.result(data).as_ref().map(Rc::clone).map_err(Reason::clone)
        } else {
            let top = c.iter().map(|x| x.strength).max().unwrap_or(0);
            let strongest: Vec<&Cand> = c.iter().filter(|x| x.strength == top).collect();
            if let [one] = strongest.as_slice() {
                // Every other claim of the unit, alive or lost to another unit's.
                released.extend(
                    cands[u]
                        .iter()
                        .filter(|x| x.range != one.range)
                        .map(|x| (u, x.range.clone())),
                );
                one.result(data).as_ref().map(Rc::clone).map_err(Reason::clone)
            } else if c.iter().all(|x| x.result(data).is_err()) {
                let fails: Vec<(usize, Reason)> = c
                    .iter()
                    .filter_map(|x| x.result(data).as_ref().err().map(|r| (x.range.start, r.clone())))
                    .collect();
                Err(no_candidate(&units[u], None, &fails))
            } else {
                let offs: Vec<String> = strongest.iter().map(|x| format!("{:#x}", x.range.start)).collect();
                Err(Reason::new(
                    Code::AmbiguousAnchor,
                    format!("{} different blocks validate: {}", strongest.len(), offs.join(", ")),
                ))
            }
        });
    }
    released
}
