//! The layout decision for one container: which decoder places which block. The
//! documented layout ([`super::sequential`]) takes one model's blocks from the data
//! start on; every other resource with a descriptor is an anchoring unit
//! ([`super::anchored`]); bodies whose one block is not found get a second round of one
//! unit per record ([`per_record_blocks`]). [`crate::decode`] runs the rounds in order;
//! [`super::assemble`] makes resources of the placed blocks.

use super::anchored::{self, Unit};
use super::records;
use super::{sequential, Decoded, Placement};
use crate::config::DecodeConfig;
use crate::described::Parsed;
use crate::descriptor::{Descriptor, SubmeshRecord};
use crate::gates;
use crate::reason::{Code, Reason};
use crate::vertex::AttributeMap;
use crate::vocab::Kind;
use std::ops::Range;
use std::rc::Rc;

/// How a resource's block(s) are placed.
pub(crate) enum Plan {
    /// The documented layout: the first block at the data start, the later records'
    /// blocks each the next gated block after the previous one (or why not).
    Sequential { blocks: Result<Vec<Decoded>, Reason> },
    /// One anchoring unit for the whole resource.
    Whole { unit: usize },
}

/// The first round's plan of a container.
pub(crate) struct Planned<'p> {
    /// One per resource, in order (`None` where the descriptor did not parse).
    pub(crate) plans: Vec<Option<Plan>>,
    /// The anchoring units, [`Plan::Whole`]'s `unit` indexing them.
    pub(crate) units: Vec<Unit<'p>>,
    /// The blocks the documented layout placed (no unit may take them).
    pub(crate) claimed: Vec<Range<usize>>,
}

/// Plan every resource: the documented layout places one model's blocks from the data
/// start on; every other resource with a descriptor, decodable or not, is one anchoring
/// unit (an undecodable one still claims its block).
pub(crate) fn plan<'p>(
    scanner: &mut anchored::Scanner<'_>,
    data: &[u8],
    parsed: &'p [Parsed<'_>],
    kind: Kind,
    cfg: &DecodeConfig,
) -> Planned<'p> {
    let mut out = Planned {
        plans: Vec::with_capacity(parsed.len()),
        units: Vec::new(),
        claimed: Vec::new(),
    };
    let mut start_taken = false;
    for p in parsed {
        let Ok(r) = &p.desc else {
            out.plans.push(None);
            continue;
        };
        let d = &r.descriptor;
        let mut plan = None;
        // The documented layout is a single-stream block sequence.
        if let (Kind::Model, false, None, None) = (kind, start_taken, &r.undecodable, &r.streams) {
            if let Some(blocks) = documented(scanner, data, &r.records, d, &r.map, cfg) {
                start_taken = true;
                if let Ok(bs) = &blocks {
                    out.claimed.extend(bs.iter().map(|b| b.placement.range(d.decl.stride)));
                }
                plan = Some(Plan::Sequential { blocks });
            }
        }
        let plan = plan.unwrap_or_else(|| {
            let (decl, map) = r.locate();
            out.units.push(Unit {
                decl,
                map,
                vertex_count: d.vertex_count,
                index_count: d.index_count,
                // A multi-stream unit claims like an undecodable one: nothing promises
                // its positions follow its index buffer, so its reading is no evidence
                // against another resource's (its block, if the solver gives it one, is
                // checked by its NORMAL stream afterwards; see `streams`).
                decodable: r.undecodable.is_none() && r.streams.is_none(),
            });
            Plan::Whole {
                unit: out.units.len() - 1,
            }
        });
        out.plans.push(Some(plan));
    }
    out
}

/// The documented layout for a model's candidate runs of records: every run whose first
/// block decodes at the data start, chained by [`sequence`]; `None` when no run starts
/// there; several that chain differently are undecidable.
fn documented(
    scanner: &mut anchored::Scanner<'_>,
    data: &[u8],
    runs: &[Vec<SubmeshRecord>],
    d: &Descriptor,
    map: &AttributeMap,
    cfg: &DecodeConfig,
) -> Option<Result<Vec<Decoded>, Reason>> {
    let mut chains: Vec<Result<Vec<Decoded>, Reason>> = Vec::new();
    for records in runs {
        if let Ok(first) = sequential::decode_first(data, &records[0], &d.decl, map, &cfg.gates) {
            chains.push(sequence(scanner, first, records, d, map, &cfg.gates));
        }
    }
    let placements = |c: &Result<Vec<Decoded>, Reason>| -> Option<Vec<Placement>> {
        c.as_ref().ok().map(|bs| bs.iter().map(|b| b.placement).collect())
    };
    let ok: Vec<&Result<Vec<Decoded>, Reason>> = chains.iter().filter(|c| c.is_ok()).collect();
    match (chains.len(), ok.as_slice()) {
        (0, _) => None,
        (1, _) => chains.pop(),
        (_, [one, rest @ ..]) if rest.iter().all(|c| placements(c) == placements(one)) => Some((*one).clone()),
        (_, []) => chains.into_iter().next(),
        _ => Some(Err(records::ambiguous(runs, d.index_count))),
    }
}

/// Every claimed block with the unit that claimed it (`None`: the documented layout's):
/// what a multi-stream resource's other buffers must keep off (a resource's own claims do
/// not keep it off) — but for the claims of the units of [`searched_units`]. Such a
/// unit claims "the block after its index buffer" by structure only: whether its
/// positions follow its index buffer is unknown (FORMAT.md §5), so its claim is one
/// reading of its own, decided by its own searches, not an owner's block; what it is
/// placed on is owned from then on, one owner per buffer (`assemble::one_owner_per_buffer`).
pub(crate) fn claims_by_unit(
    documented: &[Range<usize>],
    claim_units: &[usize],
    claims: &[Range<usize>],
    searched: &[bool],
) -> Vec<(Option<usize>, Range<usize>)> {
    let mut taken: Vec<(Option<usize>, Range<usize>)> = Vec::new();
    taken.extend(documented.iter().map(|r| (None, r.clone())));
    taken.extend(
        claim_units
            .iter()
            .zip(claims)
            .filter(|(&u, _)| !searched.get(u).copied().unwrap_or(false))
            .map(|(&u, r)| (Some(u), r.clone())),
    );
    taken
}

/// Per anchoring unit, whether its resource is a multi-stream one placed by its own
/// searches ([`super::streams`]: a parsed descriptor with several streams that is not
/// undecodable, one unit for the whole resource). An undecodable one (no NORMAL in any
/// stream, …) is never placed, so its claim stays an owner's block.
pub(crate) fn searched_units(parsed: &[Parsed<'_>], plans: &[Option<Plan>], units: usize) -> Vec<bool> {
    let mut searched = vec![false; units];
    for unit in parsed.iter().zip(plans).filter_map(|(p, plan)| searched_unit(p, plan)) {
        searched[unit] = true;
    }
    searched
}

/// The unit of a resource placed by its own multi-stream searches (see
/// [`searched_units`]), or `None`.
pub(crate) fn searched_unit(p: &Parsed<'_>, plan: &Option<Plan>) -> Option<usize> {
    match (&p.desc, plan) {
        (Ok(r), Some(Plan::Whole { unit })) if r.streams.is_some() && r.undecodable.is_none() => Some(*unit),
        _ => None,
    }
}

/// A searched multi-stream unit ([`searched_units`]) that the anchoring found ambiguous
/// only with another searched unit's claim: both claims are readings by structure, no
/// owner's block (see [`claims_by_unit`]), so it is no competition — the unit is left
/// to its searches apart (which rank that reading among the others), as "nothing found
/// after its index buffer" (`no_valid_anchor`), not "two readings fit". Ambiguity with
/// any other unit's claim stays as it is: that block may be the other's.
pub(crate) fn open_to_searches(
    placed: &mut [Option<Result<Rc<Decoded>, Reason>>],
    rivals: &[Option<usize>],
    searched: &[bool],
) {
    let is_searched = |u: usize| searched.get(u).copied().unwrap_or(false);
    for (u, slot) in placed.iter_mut().enumerate() {
        let Some(Err(why)) = slot else { continue };
        if why.code != Code::AmbiguousAnchor
            || !is_searched(u)
            || !rivals.get(u).copied().flatten().is_some_and(is_searched)
        {
            continue;
        }
        let rest = why.detail.strip_prefix("two readings fit: ").unwrap_or(&why.detail);
        *why = Reason::new(
            Code::NoValidAnchor,
            format!("the block after its index buffer is another multi-stream resource's reading too ({rest})"),
        );
    }
}

/// The blocks placed per record, added to [`claims_by_unit`]'s list.
pub(crate) fn add_per_record_blocks(
    taken: &mut Vec<(Option<usize>, Range<usize>)>,
    per_record: &[Option<Vec<Rc<Decoded>>>],
    parsed: &[Parsed<'_>],
) {
    for (blocks, p) in per_record.iter().zip(parsed) {
        if let (Some(blocks), Ok(r)) = (blocks, &p.desc) {
            taken.extend(
                blocks
                    .iter()
                    .map(|b| (None, b.placement.range(r.descriptor.decl.stride))),
            );
        }
    }
}

/// Second round for resources whose one block was not found: with at least two records
/// whose counts add up to the marker's totals, each record's block is placed as a unit
/// of its own (bodies may store one block per record). Every record must decode;
/// returns the blocks in record order per resource.
pub(crate) fn per_record_blocks(
    scanner: &mut anchored::Scanner<'_>,
    parsed: &[Parsed],
    plans: &[Option<Plan>],
    placed: &[Option<Result<Rc<Decoded>, Reason>>],
    claimed: &[Range<usize>],
    cfg: &DecodeConfig,
) -> Vec<Option<Vec<Rc<Decoded>>>> {
    let mut units: Vec<Unit> = Vec::new();
    let mut owner: Vec<(usize, usize)> = Vec::new(); // (resource, number of records)
    for (k, (p, plan)) in parsed.iter().zip(plans).enumerate() {
        let (Ok(r), Some(Plan::Whole { unit })) = (&p.desc, plan) else {
            continue;
        };
        let [records] = r.records.as_slice() else { continue };
        if r.streams.is_some() {
            continue; // its buffers are not one block per record
        }
        let not_found =
            matches!(&placed[*unit], Some(Err(e)) if matches!(e.code, Code::NoValidAnchor | Code::NoAnchorElement));
        let vsum: u64 = records.iter().map(|x| x.vtx_count as u64).sum();
        let isum: u64 = records.iter().map(|x| x.idx_count as u64).sum();
        if r.undecodable.is_some()
            || !not_found
            || records.len() < 2
            || vsum != r.descriptor.vertex_count as u64
            || isum != r.descriptor.index_count as u64
        {
            continue;
        }
        owner.push((k, records.len()));
        for rec in records {
            units.push(Unit {
                decl: &r.descriptor.decl,
                map: &r.map,
                vertex_count: rec.vtx_count,
                index_count: rec.idx_count,
                decodable: true,
            });
        }
    }
    let mut out: Vec<Option<Vec<Rc<Decoded>>>> = vec![None; parsed.len()];
    if units.is_empty() {
        return out;
    }
    let mut results = anchored::anchor(scanner, &units, claimed, &cfg.gates)
        .results
        .into_iter();
    for (k, n) in owner {
        let blocks: Vec<Result<Rc<Decoded>, Reason>> = results.by_ref().take(n).collect();
        out[k] = blocks.into_iter().collect::<Result<Vec<_>, _>>().ok();
    }
    out
}

/// The later sub-meshes of the documented layout: each the next gated block after the
/// previous one, in record order (the gaps between them are unknown).
fn sequence(
    scanner: &mut anchored::Scanner<'_>,
    first: Decoded,
    records: &[SubmeshRecord],
    d: &Descriptor,
    map: &AttributeMap,
    cfg: &gates::GateConfig,
) -> Result<Vec<Decoded>, Reason> {
    let mut blocks = vec![first];
    for (k, r) in records.iter().enumerate().skip(1) {
        let unit = Unit {
            decl: &d.decl,
            map,
            vertex_count: r.vtx_count,
            index_count: r.idx_count,
            decodable: true,
        };
        let prev_end = blocks.last().map_or(0, |b| b.placement.range(d.decl.stride).end);
        let b = anchored::next_after(scanner, &unit, prev_end, &[], cfg).map_err(|r| {
            Reason::new(
                Code::LaterSubmeshUnplaced,
                format!("sub-mesh {} of {}: {}: {}", k + 1, records.len(), r.code, r.detail),
            )
        })?;
        blocks.push(b);
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_searched_units_claims_keep_nobody_off() {
        // Unit 0 single-stream, unit 1 a searched multi-stream one, unit 2 an undecodable one.
        let searched = [false, true, false];
        let documented = vec![0..4, 90..94];
        let taken = claims_by_unit(&documented, &[0, 1, 2, 1], &[10..20, 30..40, 50..60, 70..80], &searched);
        assert_eq!(
            taken,
            vec![(None, 0..4), (None, 90..94), (Some(0), 10..20), (Some(2), 50..60)]
        );
    }

    #[test]
    fn ambiguity_between_searched_units_is_left_to_their_searches() {
        let ambiguous = || {
            Some(Err(Reason::new(
                Code::AmbiguousAnchor,
                "two readings fit: its block 0x10",
            )))
        };
        let mut placed: Vec<Option<Result<Rc<Decoded>, Reason>>> =
            vec![ambiguous(), ambiguous(), ambiguous(), ambiguous()];
        // Units 0 and 1 searched: 0's rival is 1 (searched), 1's rival is 2 (not), 2 is not
        // searched, 3 is searched with no rival named.
        let searched = [true, true, false, true];
        open_to_searches(&mut placed, &[Some(1), Some(2), Some(0), None], &searched);
        let codes: Vec<Code> = placed
            .iter()
            .map(|p| p.as_ref().unwrap().as_ref().unwrap_err().code)
            .collect();
        assert_eq!(
            codes,
            [
                Code::NoValidAnchor,
                Code::AmbiguousAnchor,
                Code::AmbiguousAnchor,
                Code::AmbiguousAnchor
            ]
        );
        let detail = &placed[0].as_ref().unwrap().as_ref().unwrap_err().detail;
        assert_eq!(
            detail,
            "the block after its index buffer is another multi-stream resource's reading too (its block 0x10)"
        );
    }
}
