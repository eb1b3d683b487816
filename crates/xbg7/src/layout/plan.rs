//! The layout decision for one container: which decoder places which block. The
//! documented layout ([`super::sequential`]) takes one model's blocks from the data
//! start on; every other resource is an anchoring unit ([`super::anchored`]), with a
//! second round of one unit per record for bodies; the placed blocks are then
//! assembled into [`DecodedResource`]s (split by records, gated, measured).

use super::anchored::{self, owned, Unit};
use super::records::{self, SplitOrder};
use super::streams::{self, StreamPlacement};
use super::{sequential, split_by_counts, Decoded, Placement};
use crate::container::{Container, TAG_TX2D, TAG_XBG7};
use crate::decode::{
    name_materials, parse_resource, ContainerDecode, DecodeConfig, DecodedResource, Described, Parsed, ResourceOutcome,
    SplitKind,
};
use crate::descriptor::{Descriptor, SubmeshRecord};
use crate::gates::{self, Measures};
use crate::mesh::Mesh;
use crate::reason::{Code, Reason};
use crate::record::{Kind, Layout, OtherEntry, TextureEntry};
use crate::vertex::{append, AttributeMap};
use std::rc::Rc;

enum Plan {
    /// The documented layout: the first block at the data start, the later records'
    /// blocks each the next gated block after the previous one (or why not).
    Sequential { blocks: Result<Vec<Decoded>, Reason> },
    /// One anchoring unit for the whole resource.
    Whole { unit: usize },
}

/// [`decode_container`] on an already parsed container.
pub fn decode_parsed(c: &Container<'_>, kind: Kind, cfg: &DecodeConfig) -> ContainerDecode {
    let data = c.data;
    let parsed: Vec<Parsed> = c
        .resources
        .iter()
        .filter(|r| r.is(TAG_XBG7))
        .map(|r| parse_resource(r, kind))
        .collect();
    let mut scanner = anchored::Scanner::new(data);

    // Plan: the documented layout places one model's blocks from the data start on;
    // every other resource with a descriptor, decodable or not, is one anchoring unit
    // (an undecodable one still claims its block).
    let mut units: Vec<Unit> = Vec::new();
    let mut plans: Vec<Option<Plan>> = Vec::with_capacity(parsed.len());
    let mut claimed = Vec::new();
    let mut start_taken = false;
    for p in &parsed {
        let Ok(r) = &p.desc else {
            plans.push(None);
            continue;
        };
        let d = &r.d;
        let mut plan = None;
        // The documented layout is a single-stream block sequence.
        if let (Kind::Model, false, None, None) = (kind, start_taken, &r.undecodable, &r.streams) {
            // Every candidate run of records whose first block decodes at the data start;
            // several that chain differently are undecidable.
            let mut chains: Vec<Result<Vec<Decoded>, Reason>> = Vec::new();
            for records in &r.records {
                if let Ok(first) = sequential::decode_first(data, &records[0], &d.decl, &r.map, &cfg.gates) {
                    chains.push(sequence(&mut scanner, first, records, d, &r.map, &cfg.gates));
                }
            }
            let placements = |c: &Result<Vec<Decoded>, Reason>| -> Option<Vec<Placement>> {
                c.as_ref().ok().map(|bs| bs.iter().map(|b| b.placement).collect())
            };
            let ok: Vec<&Result<Vec<Decoded>, Reason>> = chains.iter().filter(|c| c.is_ok()).collect();
            let blocks = match (chains.len(), ok.as_slice()) {
                (0, _) => None,
                (1, _) => chains.pop(),
                (_, [one, rest @ ..]) if rest.iter().all(|c| placements(c) == placements(one)) => Some((*one).clone()),
                (_, []) => chains.into_iter().next(),
                _ => Some(Err(records::ambiguous(&r.records, d.index_count))),
            };
            if let Some(blocks) = blocks {
                start_taken = true;
                if let Ok(bs) = &blocks {
                    claimed.extend(bs.iter().map(|b| b.placement.range(d.decl.stride)));
                }
                plan = Some(Plan::Sequential { blocks });
            }
        }
        let plan = plan.unwrap_or_else(|| {
            let (decl, map) = r.locate();
            units.push(Unit {
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
            Plan::Whole { unit: units.len() - 1 }
        });
        plans.push(Some(plan));
    }

    let first = anchored::anchor(&mut scanner, &units, &claimed, &cfg.gates);
    let mut placed: Vec<Option<Result<Rc<Decoded>, Reason>>> = first.results.into_iter().map(Some).collect();
    // Bodies stored as one block per record: where the whole resource's block is not
    // found, each record is a unit of its own, kept off every block another resource
    // (or this one) claimed in the first round.
    // What a multi-stream resource's other buffers must keep off: every claimed block
    // (with the unit that claimed it: a resource's own claims do not keep it off) and
    // every block placed per record.
    // (Only built where a resource has several streams: a stage holds many claims.)
    let multi = parsed.iter().any(|p| matches!(&p.desc, Ok(r) if r.streams.is_some()));
    let mut taken: Vec<(Option<usize>, std::ops::Range<usize>)> = Vec::new();
    if multi {
        taken.extend(claimed.iter().map(|r| (None, r.clone())));
        taken.extend(
            first
                .claim_units
                .iter()
                .map(|&u| Some(u))
                .zip(first.claims.iter().cloned()),
        );
    }
    claimed.extend(first.claims);
    let mut per_record = per_record_blocks(&mut scanner, &parsed, &plans, &placed, &claimed, cfg);
    for (blocks, p) in per_record.iter().zip(&parsed).filter(|_| multi) {
        if let (Some(blocks), Ok(r)) = (blocks, &p.desc) {
            taken.extend(blocks.iter().map(|b| (None, b.placement.range(r.d.decl.stride))));
        }
    }
    // The scanner's cache holds every claimed block; without it the placed blocks are
    // the only holders and move into the resources uncopied.
    drop(scanner);

    let mut out = ContainerDecode::default();
    for ((k, p), plan) in parsed.iter().enumerate().zip(plans) {
        let result = match (plan, &p.desc) {
            (None, Err(r)) => Err(r.clone()),
            (Some(_), Ok(r)) if r.undecodable.is_some() => Err(r.undecodable.clone().expect("checked")),
            (Some(plan), Ok(r)) => match per_record[k].take() {
                Some(blocks) => assemble_blocks(
                    blocks.into_iter().map(owned).collect(),
                    r,
                    SplitKind::PerRecordBlocks,
                    cfg,
                ),
                None if r.streams.is_some() => {
                    // Every claimed range but this resource's own.
                    let own = match &plan {
                        Plan::Whole { unit } => Some(*unit),
                        Plan::Sequential { .. } => None,
                    };
                    let taken: Vec<std::ops::Range<usize>> = taken
                        .iter()
                        .filter(|(u, _)| u.is_none() || *u != own)
                        .map(|(_, r)| r.clone())
                        .collect();
                    // Positions right after an index buffer first, where the solver
                    // gave the resource such a block no other resource claims any byte
                    // of (its claim is no evidence against theirs); apart otherwise, or
                    // where the NORMAL stream agrees with nothing there.
                    let uncontested = |d: &DecodedResource| {
                        let stride = r.locate().0.stride;
                        !d.placements.iter().any(|p| {
                            let b = p.range(stride);
                            taken.iter().any(|t| t.start < b.end && b.start < t.end)
                        })
                    };
                    let located = assemble(plan, r, &mut placed, cfg).and_then(|d| {
                        if uncontested(&d) {
                            Ok(d)
                        } else {
                            Err(Reason::new(
                                Code::NoValidAnchor,
                                "the block after its index buffer is claimed by another resource too",
                            ))
                        }
                    });
                    match located.and_then(|d| place_streams(data, d, r, &taken, cfg)) {
                        Ok(d) => Ok(d),
                        Err(why) => streams_apart(data, r, why, &taken, cfg),
                    }
                }
                None => assemble(plan, r, &mut placed, cfg),
            },
            _ => unreachable!("a plan exists exactly when the descriptor parsed"),
        };
        out.resources.push(ResourceOutcome {
            index: p.index,
            name: p.name.to_vec(),
            result,
        });
    }
    reject_shared_streams(&mut out.resources);
    let mut materials: Vec<String> = Vec::new();
    for r in &c.resources {
        if r.is(TAG_TX2D) {
            out.textures.push(TextureEntry::new(r.index, r.name_lossy()));
            materials.push(r.name_lossy());
        } else if !r.is(TAG_XBG7) {
            out.other.push(OtherEntry {
                index: r.index,
                tag: r.tag_str(),
                name: r.name_lossy(),
            });
        }
    }
    let materials: std::collections::HashSet<&str> = materials.iter().map(String::as_str).collect();
    for (o, p) in out.resources.iter_mut().zip(&parsed) {
        if let (Ok(dr), Ok(r)) = (&mut o.result, &p.desc) {
            name_materials(&mut dr.mesh, &r.d.strings, &materials);
        }
    }
    out
}

/// Second round for resources whose one block was not found: with at least two records
/// whose counts add up to the marker's totals, each record's block is placed as a unit
/// of its own (bodies may store one block per record). Every record must decode;
/// returns the blocks in record order per resource.
fn per_record_blocks(
    scanner: &mut anchored::Scanner<'_>,
    parsed: &[Parsed],
    plans: &[Option<Plan>],
    placed: &[Option<Result<Rc<Decoded>, Reason>>],
    claimed: &[std::ops::Range<usize>],
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
            || vsum != r.d.vertex_count as u64
            || isum != r.d.index_count as u64
        {
            continue;
        }
        owner.push((k, records.len()));
        for rec in records {
            units.push(Unit {
                decl: &r.d.decl,
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

/// A multi-stream resource's other streams ([`streams`]): the NORMAL stream placed
/// (the whole mesh gated again), the streams holding neither POSITION nor NORMAL left
/// out; each stream's place or why not recorded. Single-stream resources pass through.
fn place_streams(
    data: &[u8],
    mut d: DecodedResource,
    r: &Described,
    taken: &[std::ops::Range<usize>],
    cfg: &DecodeConfig,
) -> Result<DecodedResource, Reason> {
    let Some((st, located, lmap)) = &r.streams else {
        return Ok(d);
    };
    let mut normal_at = None;
    if let Some((k, nd, nmap)) = &st.normal {
        // Off the resource's own block too.
        let mut taken = taken.to_vec();
        taken.extend(d.placements.iter().map(|p| p.range(located.stride)));
        let placed = streams::place_normal_stream(data, &d.mesh, lmap, nd, nmap, &taken, &cfg.gates)
            .map_err(|why| Reason::new(why.code, format!("stream {k} (holding the NORMAL): {}", why.detail)))?;
        d.spiky = gates::spiky(&placed.measures, &cfg.gates);
        (d.mesh, d.measures) = (placed.mesh, placed.measures);
        normal_at = Some(placed.offset);
    }
    let at = d.placements.first().map(|p| p.vertex_offset);
    d.streams = stream_list(st, r, located.stride, at, normal_at);
    Ok(d)
}

/// Every stream of `st` in stream order: the located one at `located_at`, the NORMAL one
/// at `normal_at`, the others left out (each with why).
fn stream_list(
    st: &crate::decode::Streams,
    r: &Described,
    located_stride: usize,
    located_at: Option<usize>,
    normal_at: Option<usize>,
) -> Vec<StreamPlacement> {
    let mut out = vec![StreamPlacement {
        stream: st.located,
        located: true,
        stride: located_stride,
        offset: located_at,
        left_out: None,
    }];
    if let Some((k, nd, _)) = &st.normal {
        out.push(StreamPlacement {
            stream: *k,
            located: false,
            stride: nd.stride,
            offset: normal_at,
            left_out: None,
        });
    }
    out.extend(left_out(st, r));
    out.sort_by_key(|p| p.stream);
    out
}

/// The streams of `st` that hold neither POSITION nor NORMAL, each with why it is left out.
fn left_out<'a>(st: &'a crate::decode::Streams, r: &'a Described) -> impl Iterator<Item = StreamPlacement> + 'a {
    st.left_out.iter().map(|&(k, stride)| StreamPlacement {
        stream: k,
        located: false,
        stride,
        offset: None,
        left_out: Some(streams::left_out_reason(&crate::decode::stream_declaration(
            &r.d.decl, k,
        ))),
    })
}

/// A multi-stream resource whose positions were not found right after an index buffer
/// (`why`): its index buffer, POSITION stream and NORMAL stream searched for each on its
/// own ([`streams::search_apart`]). Anything else keeps `why`.
fn streams_apart(
    data: &[u8],
    r: &Described,
    why: Reason,
    taken: &[std::ops::Range<usize>],
    cfg: &DecodeConfig,
) -> Result<DecodedResource, Reason> {
    let Some((st, pdecl, pmap)) = &r.streams else {
        return Err(why);
    };
    // Not when another resource may own the block (ambiguity is not absence), nor when
    // the records are undecided.
    if matches!(why.code, Code::AmbiguousAnchor | Code::AmbiguousSubmeshRecords) || r.records.len() > 1 {
        return Err(why);
    }
    let (normal, same) = match &st.normal {
        Some((_, nd, nm)) => ((nd, nm), false),
        None if pmap.normal.is_some() => ((pdecl, pmap), true),
        None => return Err(why),
    };
    let found = streams::search_apart(
        data,
        r.d.vertex_count,
        r.d.index_count,
        (pdecl, pmap),
        normal,
        same,
        taken,
        &cfg.gates,
    )
    .map_err(|e| match e.code {
        Code::NoValidAnchor => Reason::new(
            why.code,
            format!("{}; nor with its buffers apart: {}", why.detail, e.detail),
        ),
        _ => e,
    })?;
    let placement = Placement {
        index_offset: found.index_offset,
        index_count: r.d.index_count,
        vertex_offset: found.position_offset,
        vertex_count: r.d.vertex_count,
    };
    let mut d = assemble_whole(
        Decoded {
            placement,
            mesh: found.mesh,
            measures: found.measures,
        },
        r,
        cfg,
    )?;
    d.streams = stream_list(
        st,
        r,
        pdecl.stride,
        Some(found.position_offset),
        Some(found.normal_offset),
    );
    Ok(d)
}

/// Two resources whose buffers were placed on overlapping bytes (a NORMAL stream, or an
/// index buffer and positions found apart; a block the solver placed is exclusive
/// already): each buffer has one owner, and which one it is cannot be told, so both are
/// `ambiguous_anchor`.
fn reject_shared_streams(resources: &mut [ResourceOutcome]) {
    let mut placed: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    for (k, o) in resources.iter().enumerate() {
        let Ok(d) = &o.result else { continue };
        if d.streams.is_empty() {
            continue;
        }
        let v = d.mesh.positions.len();
        if let Some(p) = d.placements.first() {
            placed.push((k, p.index_offset..p.index_offset + 2 * p.index_count as usize));
        }
        for p in &d.streams {
            if let Some(at) = p.offset {
                placed.push((k, at..at + v * p.stride));
            }
        }
    }
    let mut losers = std::collections::BTreeSet::new();
    for (i, (a, ra)) in placed.iter().enumerate() {
        for (b, rb) in &placed[i + 1..] {
            if a != b && ra.start < rb.end && rb.start < ra.end {
                losers.insert(*a);
                losers.insert(*b);
            }
        }
    }
    for k in losers {
        resources[k].result = Err(Reason::new(
            Code::AmbiguousAnchor,
            "another resource's buffer was placed on the same bytes",
        ));
    }
}

fn take(placed: &mut [Option<Result<Rc<Decoded>, Reason>>], u: usize) -> Result<Decoded, Reason> {
    placed[u]
        .take()
        .unwrap_or_else(|| Err(Reason::new(Code::NoValidAnchor, "internal: unit taken twice")))
        .map(owned)
}

fn assemble(
    plan: Plan,
    r: &Described,
    placed: &mut [Option<Result<Rc<Decoded>, Reason>>],
    cfg: &DecodeConfig,
) -> Result<DecodedResource, Reason> {
    match plan {
        Plan::Sequential { blocks } => assemble_blocks(blocks?, r, SplitKind::Records, cfg),
        Plan::Whole { unit } => assemble_whole(take(placed, unit)?, r, cfg),
    }
}

/// A resource of one block: its index buffer split by the records when their counts add
/// up to it (in the one order that fits, or one primitive when none does).
fn assemble_whole(b: Decoded, r: &Described, cfg: &DecodeConfig) -> Result<DecodedResource, Reason> {
    let mut mesh = b.mesh;
    let mut split = None;
    // The records split the one index buffer when their counts add up to it.
    let total = |rs: &[SubmeshRecord]| rs.iter().map(|x| x.idx_count as u64).sum::<u64>();
    let runs: Vec<Vec<SubmeshRecord>> = r
        .records
        .iter()
        .filter(|rs| !rs.is_empty() && total(rs) == mesh.indices.len() as u64)
        .cloned()
        .collect();
    let mut note = None;
    if runs.len() > 1 || runs.first().is_some_and(|rs| rs.len() >= 2) {
        match records::order_split_any(&mesh.indices, &runs) {
            Ok((counts, order)) if counts.len() >= 2 => {
                split_by_counts(&mut mesh, &counts);
                split = Some(match order {
                    SplitOrder::Records => SplitKind::Records,
                    SplitOrder::Inferred => SplitKind::InferredOrder,
                });
            }
            Ok(_) => {}
            // The block is the marker's and passed the gates; only where its
            // sub-meshes begin is unknown: one primitive, and the reason.
            Err(why) => (split, note) = (Some(SplitKind::Undecided), Some(why)),
        }
    } else if r.records.len() > 1 {
        return Err(records::ambiguous(&r.records, r.d.index_count));
    }
    let mut d = finish(mesh, Layout::Anchored, vec![b.placement], b.measures, split, r, cfg)?;
    d.note = note;
    Ok(d)
}

/// A resource of several blocks, in record order (one primitive each).
fn assemble_blocks(
    blocks: Vec<Decoded>,
    r: &Described,
    kind: SplitKind,
    cfg: &DecodeConfig,
) -> Result<DecodedResource, Reason> {
    let layout = if kind == SplitKind::PerRecordBlocks {
        Layout::Anchored
    } else {
        Layout::Sequential
    };
    let mut blocks = blocks.into_iter();
    let first = blocks.next().expect("a sequence starts with its first block");
    let mut mesh = first.mesh;
    let mut placements = vec![first.placement];
    for b in blocks {
        placements.push(b.placement);
        append(&mut mesh, b.mesh);
    }
    let split = (placements.len() > 1).then_some(kind);
    // A mesh assembled from several blocks must pass the gates as a whole too.
    let measures = if placements.len() > 1 {
        let all = gates::measure(&mesh);
        gates::verdict(&all, &cfg.gates)?;
        all
    } else {
        first.measures
    };
    finish(mesh, layout, placements, measures, split, r, cfg)
}

fn finish(
    mesh: Mesh,
    layout: Layout,
    placements: Vec<Placement>,
    measures: Measures,
    split: Option<SplitKind>,
    r: &Described,
    cfg: &DecodeConfig,
) -> Result<DecodedResource, Reason> {
    let extent = mesh
        .bbox()
        .map(|(lo, hi)| (0..3).map(|k| (hi[k] - lo[k]) as f64).fold(0.0, f64::max))
        .unwrap_or(0.0);
    Ok(DecodedResource {
        skybox: extent > cfg.stage.skybox_extent,
        spiky: gates::spiky(&measures, &cfg.gates),
        mesh,
        layout,
        placements,
        decl: r.d.decl.clone(),
        measures,
        split,
        note: None,
        streams: Vec::new(),
    })
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
