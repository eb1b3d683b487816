//! Sub-mesh records that may lie (FORMAT.md §3): which scanned records are real, and
//! which index range of a shared index buffer each one covers.
//!
//! The sliding record scan is a heuristic: descriptor words of unknown meaning may
//! match the record pattern before or after the real records, and the order of the
//! records against the index ranges is not documented. Owns two decisions, each from
//! what the file itself settles:
//! 1. [`select`]: the real records are a contiguous run of the scanned ones whose index
//!    counts add up to the marker's total (the one documented relation between records
//!    and the resource); several runs of different counts are undecidable.
//! 2. [`order_split`]: a split of one index buffer is taken in record order when every
//!    range references exactly as many distinct vertices as its record's `vtx_count`
//!    says; otherwise the one order of the records that does is inferred, and the split
//!    is marked so. Where no order fits exactly, the record order is kept when every
//!    range references at most its record's vertices (nothing contradicts it); anything
//!    else is undecidable and rejected, never guessed.

use crate::descriptor::SubmeshRecord;
use crate::reason::{Code, Reason};

/// The real records of a resource, as far as the file decides them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// No run of scanned records adds up to the marker's total: the records say nothing
    /// about this resource's index buffer.
    None,
    /// The one run (or several runs with the same counts) that adds up.
    Unique(Vec<SubmeshRecord>),
    /// Runs with different counts add up: which records are real is undecided here
    /// (every run, in file order; the ranges of the index buffer may still decide).
    Ambiguous(Vec<Vec<SubmeshRecord>>),
}

/// The records to trust among `scanned` (file order): the contiguous runs whose index
/// counts add up to `index_total` and whose vertex counts are each at most
/// `vertex_total`.
pub fn select(scanned: &[SubmeshRecord], index_total: u32, vertex_total: u32) -> Selection {
    // Index counts are positive: one pass of a sliding window per stretch of records
    // whose vertex counts fit (linear in the records, however many a hostile file has).
    let total = index_total as u64;
    let mut runs: Vec<&[SubmeshRecord]> = Vec::new();
    for stretch in scanned.split(|r| r.vtx_count > vertex_total) {
        let (mut a, mut sum) = (0usize, 0u64);
        for b in 0..stretch.len() {
            sum += stretch[b].idx_count as u64;
            while sum > total {
                sum -= stretch[a].idx_count as u64;
                a += 1;
            }
            if sum == total && a <= b {
                runs.push(&stretch[a..=b]);
            }
        }
    }
    let counts = |r: &[SubmeshRecord]| -> Vec<(u32, u32)> { r.iter().map(|x| (x.vtx_count, x.idx_count)).collect() };
    match runs.as_slice() {
        [] => Selection::None,
        [first, rest @ ..] if rest.iter().all(|r| counts(r) == counts(first)) => Selection::Unique(first.to_vec()),
        _ => Selection::Ambiguous(runs.iter().map(|r| r.to_vec()).collect()),
    }
}

/// Why several runs of records cannot be told apart.
pub fn ambiguous(runs: &[Vec<SubmeshRecord>], index_total: u32) -> Reason {
    let counts = |r: &[SubmeshRecord]| -> Vec<(u32, u32)> { r.iter().map(|x| (x.vtx_count, x.idx_count)).collect() };
    Reason::new(
        Code::AmbiguousSubmeshRecords,
        format!(
            "{} different runs of sub-mesh records add up to the {index_total} indices: {}",
            runs.len(),
            runs.iter()
                .map(|r| format!("{:?}", counts(r)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

/// [`order_split`] for each candidate run of records: the split when every run that
/// splits the buffer at all gives the same ranges.
pub fn order_split_any(indices: &[u32], runs: &[Vec<SubmeshRecord>]) -> Result<(Vec<u32>, SplitOrder), Reason> {
    let mut found: Option<(Vec<u32>, SplitOrder)> = None;
    let mut first_err = None;
    for r in runs {
        match order_split(indices, r) {
            Ok((counts, order)) => match &mut found {
                None => found = Some((counts, order)),
                Some((c, o)) if *c == counts => {
                    if order == SplitOrder::Records {
                        *o = SplitOrder::Records;
                    }
                }
                Some(_) => {
                    return Err(Reason::new(
                        Code::AmbiguousSubmeshSplit,
                        format!(
                            "{} runs of sub-mesh records split the index buffer differently",
                            runs.len()
                        ),
                    ))
                }
            },
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    found.ok_or_else(|| first_err.unwrap_or_else(|| Reason::new(Code::AmbiguousSubmeshSplit, "no records")))
}

/// How a shared index buffer was split into primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitOrder {
    /// In record order: every range fits its record.
    Records,
    /// In another order of the records, the only one in which every range fits its
    /// record exactly (the records are stored in another order than their ranges).
    Inferred,
}

/// Most records whose orders are searched (`n!` orders, pruned by range).
pub const MAX_ORDER_SEARCH: usize = 7;

/// The index counts of the ranges, in index-buffer order, for splitting `indices` by
/// `records` (whose index counts add up to `indices.len()`), and how they were ordered.
pub fn order_split(indices: &[u32], records: &[SubmeshRecord]) -> Result<(Vec<u32>, SplitOrder), Reason> {
    let mut distinct = Distinct::new(indices);
    let fits = |d: &mut Distinct, order: &[usize], exact: bool| {
        let mut start = 0usize;
        order.iter().all(|&k| {
            let r = &records[k];
            let n = d.count(start, r.idx_count as usize);
            start += r.idx_count as usize;
            if exact {
                n == r.vtx_count as usize
            } else {
                n <= r.vtx_count as usize
            }
        })
    };
    let file: Vec<usize> = (0..records.len()).collect();
    let counts_of = |order: &[usize]| -> Vec<u32> { order.iter().map(|&k| records[k].idx_count).collect() };
    let undecided = |why: String| Reason::new(Code::AmbiguousSubmeshSplit, why);
    if records.len() > MAX_ORDER_SEARCH {
        if fits(&mut distinct, &file, false) {
            return Ok((counts_of(&file), SplitOrder::Records));
        }
        return Err(undecided(format!(
            "{} sub-mesh records do not fit their index ranges in record order (and more than \
             {MAX_ORDER_SEARCH} are not reordered)",
            records.len()
        )));
    }
    let mut exact: Vec<Vec<u32>> = Vec::new();
    search_orders(records, &mut distinct, &mut Vec::new(), 0, true, &mut exact);
    exact.sort();
    exact.dedup();
    match exact.len() {
        1 if exact[0] == counts_of(&file) => return Ok((exact.remove(0), SplitOrder::Records)),
        1 => return Ok((exact.remove(0), SplitOrder::Inferred)),
        0 => {}
        n => {
            return Err(undecided(format!(
                "{n} different orders of the {} sub-mesh records fit their index ranges",
                records.len()
            )))
        }
    }
    // No order fits exactly: record order stands when it is the only order in which no
    // range references more vertices than its record has.
    let mut loose: Vec<Vec<u32>> = Vec::new();
    search_orders(records, &mut distinct, &mut Vec::new(), 0, false, &mut loose);
    loose.sort();
    loose.dedup();
    match loose.as_slice() {
        [only] if *only == counts_of(&file) => Ok((counts_of(&file), SplitOrder::Records)),
        [] => Err(undecided(format!(
            "no order of the {} sub-mesh records fits their index ranges",
            records.len()
        ))),
        _ => Err(undecided(format!(
            "no order of the {} sub-mesh records fits their index ranges exactly, and {} fit loosely",
            records.len(),
            loose.len()
        ))),
    }
}

/// Every order of the unused records that continues `prefix` (ending at index `start`)
/// with ranges referencing exactly (`exact`) or at most their record's vertex count; the
/// count sequences.
fn search_orders(
    records: &[SubmeshRecord],
    distinct: &mut Distinct,
    prefix: &mut Vec<usize>,
    start: usize,
    exact: bool,
    out: &mut Vec<Vec<u32>>,
) {
    if prefix.len() == records.len() {
        out.push(prefix.iter().map(|&k| records[k].idx_count).collect());
        return;
    }
    for k in 0..records.len() {
        if prefix.contains(&k) {
            continue;
        }
        let r = &records[k];
        // Records with the same counts give the same split: try the first of them only.
        if (0..k)
            .any(|j| !prefix.contains(&j) && (records[j].idx_count, records[j].vtx_count) == (r.idx_count, r.vtx_count))
        {
            continue;
        }
        let n = distinct.count(start, r.idx_count as usize);
        if (exact && n != r.vtx_count as usize) || (!exact && (n == 0 || n > r.vtx_count as usize)) {
            continue;
        }
        prefix.push(k);
        search_orders(records, distinct, prefix, start + r.idx_count as usize, exact, out);
        prefix.pop();
    }
}

/// Distinct values of index ranges, memoised per range, with one reusable mark buffer.
struct Distinct<'a> {
    indices: &'a [u32],
    marks: Vec<u32>,
    epoch: u32,
    memo: std::collections::HashMap<(usize, usize), usize>,
}

impl<'a> Distinct<'a> {
    fn new(indices: &'a [u32]) -> Self {
        let n = indices.iter().max().map_or(0, |&m| m as usize + 1);
        Distinct {
            indices,
            marks: vec![0; n],
            epoch: 0,
            memo: Default::default(),
        }
    }

    /// Distinct values of `indices[start..start + len]` (0 when the range runs past).
    fn count(&mut self, start: usize, len: usize) -> usize {
        if let Some(&n) = self.memo.get(&(start, len)) {
            return n;
        }
        let Some(range) = self.indices.get(start..start + len) else {
            return 0;
        };
        self.epoch += 1;
        let mut n = 0;
        for &i in range {
            let m = &mut self.marks[i as usize];
            if *m != self.epoch {
                *m = self.epoch;
                n += 1;
            }
        }
        self.memo.insert((start, len), n);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(v: u32, i: u32) -> SubmeshRecord {
        SubmeshRecord {
            offset: 0,
            vtx_count: v,
            idx_count: i,
            tail: 1,
        }
    }

    #[test]
    fn filler_before_or_after_the_real_records_is_left_out() {
        let real = [rec(100, 300), rec(50, 90)];
        let filler = rec(4, 6);
        for scanned in [
            vec![real[0], real[1], filler],
            vec![filler, real[0], real[1]],
            vec![filler, real[0], real[1], filler],
        ] {
            assert_eq!(select(&scanned, 390, 150), Selection::Unique(real.to_vec()));
        }
        // A quad whose filler looks exactly like its record: same counts, no ambiguity.
        assert_eq!(
            select(&[rec(4, 6), rec(4, 6)], 6, 4),
            Selection::Unique(vec![rec(4, 6)])
        );
        assert_eq!(select(&[rec(4, 6)], 9, 4), Selection::None);
        assert_eq!(
            select(&[rec(200, 6)], 6, 100),
            Selection::None,
            "more vertices than the resource"
        );
        assert_eq!(
            select(&[rec(10, 6), rec(20, 6)], 6, 20),
            Selection::Ambiguous(vec![vec![rec(10, 6)], vec![rec(20, 6)]])
        );
    }

    /// Two ranges: 0..6 uses vertices {0,1,2,3} (4), 6..9 uses {4,5,6} (3).
    const IDX: [u32; 9] = [0, 1, 2, 1, 2, 3, 4, 5, 6];

    #[test]
    fn records_in_index_order_are_kept() {
        assert_eq!(
            order_split(&IDX, &[rec(4, 6), rec(3, 3)]),
            Ok((vec![6, 3], SplitOrder::Records))
        );
    }

    #[test]
    fn records_in_another_order_are_reordered_and_say_so() {
        assert_eq!(
            order_split(&IDX, &[rec(3, 3), rec(4, 6)]),
            Ok((vec![6, 3], SplitOrder::Inferred))
        );
    }

    #[test]
    fn undecidable_orders_are_rejected() {
        // Neither order fits exactly, and record order has a range with more vertices
        // than its record.
        let r = order_split(&IDX, &[rec(2, 3), rec(2, 6)]).unwrap_err();
        assert_eq!(r.code, Code::AmbiguousSubmeshSplit);
        // Equal records: every order is the same split.
        let idx = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5];
        assert_eq!(
            order_split(&idx, &[rec(6, 6), rec(6, 6)]),
            Ok((vec![6, 6], SplitOrder::Records))
        );
        // Both orders fit exactly, with different ranges: record order is no proof.
        let idx = [0, 1, 2, 0, 1, 2, 0, 1, 2];
        let r = order_split(&idx, &[rec(3, 3), rec(3, 6)]).unwrap_err();
        assert_eq!(r.code, Code::AmbiguousSubmeshSplit);
    }

    #[test]
    fn no_exact_order_keeps_record_order_only_when_no_other_order_fits() {
        // Record vertex counts above the referenced ones (unreferenced vertices): the
        // other order would put 6 indices (4 vertices) under a 3-vertex record.
        assert_eq!(
            order_split(&IDX, &[rec(5, 6), rec(3, 3)]),
            Ok((vec![6, 3], SplitOrder::Records))
        );
        // Both orders fit loosely: undecidable.
        let r = order_split(&IDX, &[rec(6, 6), rec(6, 3)]).unwrap_err();
        assert_eq!(r.code, Code::AmbiguousSubmeshSplit);
    }

    #[test]
    fn runs_that_split_alike_agree() {
        let a = vec![rec(4, 6), rec(3, 3)];
        let b = vec![rec(3, 3), rec(4, 6)];
        assert_eq!(
            order_split_any(&IDX, &[a.clone(), b]),
            Ok((vec![6, 3], SplitOrder::Records))
        );
        assert_eq!(order_split_any(&IDX, &[a]), Ok((vec![6, 3], SplitOrder::Records)));
    }
}
