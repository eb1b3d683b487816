//! Placed blocks made into resources: one block split by the records (in the one order
//! that fits), several blocks appended in record order, a multi-stream resource's other
//! streams placed ([`super::streams`]); each gated as a whole and measured into a
//! [`DecodedResource`]; the materials named from the container's TX2D names.

use super::anchored::{overlaps, owned, trailing_degenerate};
use super::plan::Plan;
use super::records::{self, SplitOrder};
use super::streams::{self, Apart, ApartOutcome, ContainerSearches, StreamPlacement};
use super::{split_by_counts, Decoded, Placement};
use crate::config::DecodeConfig;
use crate::container::{Container, TAG_TX2D};
use crate::described::{stream_declaration, Described, Parsed, Streams};
use crate::descriptor::SubmeshRecord;
use crate::gates::{self, Measures};
use crate::mesh::Mesh;
use crate::outcome::{DecodedResource, ResourceOutcome, SplitKind};
use crate::reason::{Code, Reason};
use crate::vertex::append;
use crate::vocab::Layout;
use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;

/// One resource's outcome from its plan and its placed block(s): `per_record` the blocks
/// of the second round, `placed` the first round's results by unit, `taken` every claim
/// with its unit (for a multi-stream resource's other buffers), `searches` what the
/// container's searches for such buffers share (their budget, the unit-normal runs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn resource(
    data: &[u8],
    plan: Option<Plan>,
    desc: &Result<Described, Reason>,
    per_record: Option<Vec<Rc<Decoded>>>,
    placed: &mut [Option<Result<Rc<Decoded>, Reason>>],
    taken: &[(Option<usize>, Range<usize>)],
    cfg: &DecodeConfig,
    searches: &mut ContainerSearches,
) -> Result<DecodedResource, Reason> {
    match (plan, desc) {
        (None, Err(r)) => Err(r.clone()),
        (Some(_), Ok(r)) if r.undecodable.is_some() => Err(r.undecodable.clone().expect("checked")),
        (Some(plan), Ok(r)) => match per_record {
            Some(blocks) => assemble_blocks(
                blocks.into_iter().map(owned).collect(),
                r,
                SplitKind::PerRecordBlocks,
                cfg,
            ),
            None if r.streams.is_some() => multi_stream(data, plan, r, placed, taken, cfg, searches),
            None => assemble(plan, r, placed, cfg),
        },
        _ => unreachable!("a plan exists exactly when the descriptor parsed"),
    }
}

/// A multi-stream resource: positions right after an index buffer first, where the
/// solver gave the resource such a block no other resource claims any byte of (its claim
/// is no evidence against theirs); apart otherwise, or where the NORMAL stream agrees
/// with nothing there.
fn multi_stream(
    data: &[u8],
    plan: Plan,
    r: &Described,
    placed: &mut [Option<Result<Rc<Decoded>, Reason>>],
    taken: &[(Option<usize>, Range<usize>)],
    cfg: &DecodeConfig,
    searches: &mut ContainerSearches,
) -> Result<DecodedResource, Reason> {
    // Every claimed range but this resource's own.
    let own = match &plan {
        Plan::Whole { unit } => Some(*unit),
        Plan::Sequential { .. } => None,
    };
    let taken: Vec<Range<usize>> = taken
        .iter()
        .filter(|(u, _)| u.is_none() || *u != own)
        .map(|(_, r)| r.clone())
        .collect();
    let uncontested = |d: &DecodedResource| {
        let stride = r.locate().0.stride;
        !d.placements
            .iter()
            .any(|p| streams::overlaps_any(&p.range(stride), &taken))
    };
    // Whether the streams follow the index buffer is unknown (FORMAT.md §5): a window
    // that ends in degenerate triangles may be the index buffer and the padding after it,
    // with the stream further on, so that reading does not pin the window's end.
    let padded = |d: &DecodedResource| {
        d.placements
            .iter()
            .any(|p| trailing_degenerate(data, p.index_offset, p.index_count as usize) > 0)
    };
    let located = assemble(plan, r, placed, cfg).and_then(|d| {
        if !uncontested(&d) {
            Err(Reason::new(
                Code::NoValidAnchor,
                "the block after its index buffer is claimed by another resource too",
            ))
        } else if padded(&d) {
            Err(Reason::new(
                Code::NoValidAnchor,
                "the window before its positions ends in degenerate triangles (padding before a stream apart?)",
            ))
        } else {
            Ok(d)
        }
    });
    match located.and_then(|d| place_streams(data, d, r, &taken, cfg, &mut searches.read)) {
        Ok(d) => confirmed_apart(data, d, r, &taken, cfg, searches),
        Err(why) => streams_apart(data, r, why, &taken, cfg, searches),
    }
}

/// A multi-stream resource read with its positions right after its index buffer, checked
/// against the readings with its buffers apart: where the positions sit is unknown
/// (FORMAT.md §5), so that reading is one of them, not the answer. Kept when the search
/// apart finds it too or finds nothing; `ambiguous_anchor` when the search finds another
/// reading, or several, that pass the gates; `anchor_out_of_budget` when it gave up (the
/// others were not all looked at: its budget ran out, or it found more candidates of a
/// buffer than it looks at).
fn confirmed_apart(
    data: &[u8],
    d: DecodedResource,
    r: &Described,
    taken: &[Range<usize>],
    cfg: &DecodeConfig,
    searches: &mut ContainerSearches,
) -> Result<DecodedResource, Reason> {
    let Some(at) = d.placements.first().filter(|_| d.placements.len() == 1) else {
        return Ok(d);
    };
    // Back to back: the NORMAL stream, placed by its own content, starts where the
    // positions end. A reading whose positions are off by any number of bytes breaks
    // that (the NORMAL stream does not move with them), so the buffers tie each other
    // and no reading apart can rival them.
    let stride = r.locate().0.stride;
    let end = at.vertex_offset + at.vertex_count as usize * stride;
    if d.streams.iter().any(|s| !s.located && s.offset == Some(end)) {
        return Ok(d);
    }
    match search_apart(data, r, taken, cfg, searches) {
        None | Some(ApartOutcome::Nothing(_)) => Ok(d),
        Some(ApartOutcome::Found(e)) => {
            let here = e.index_offset == at.index_offset
                && e.position_offset == at.vertex_offset
                && d.streams
                    .iter()
                    .all(|s| s.located || s.offset.is_none() || s.offset == Some(e.normal_offset));
            if here {
                Ok(DecodedResource {
                    sole_reading: e.sole,
                    ..d
                })
            } else {
                Err(Reason::new(
                    Code::AmbiguousAnchor,
                    format!(
                        "two readings fit: its positions right after its index buffer at {:#x}, and with its buffers \
                         apart (indices at {:#x}, positions at {:#x})",
                        at.vertex_offset, e.index_offset, e.position_offset
                    ),
                ))
            }
        }
        Some(ApartOutcome::Rivals(detail)) => Err(Reason::new(
            Code::AmbiguousAnchor,
            format!(
                "two readings fit: its positions right after its index buffer at {:#x}, and with its buffers \
                     apart: {detail}",
                at.vertex_offset
            ),
        )),
        Some(ApartOutcome::OutOfBudget) => Err(Reason::new(
            Code::AnchorOutOfBudget,
            format!(
                "gave up: its positions right after its index buffer at {:#x} pass, but the search for readings with \
                 its buffers apart ran out of its work budget",
                at.vertex_offset
            ),
        )),
        Some(ApartOutcome::TooMany(detail)) => Err(Reason::new(
            Code::AnchorOutOfBudget,
            format!(
                "gave up: its positions right after its index buffer at {:#x} pass, but the search for readings with \
                 its buffers apart found {detail} and did not look at them",
                at.vertex_offset
            ),
        )),
    }
}

/// A multi-stream resource's other streams ([`streams`]): the NORMAL stream placed
/// (the whole mesh gated again), the streams holding neither POSITION nor NORMAL left
/// out; each stream's place or why not recorded. Single-stream resources pass through.
fn place_streams(
    data: &[u8],
    mut d: DecodedResource,
    r: &Described,
    taken: &[Range<usize>],
    cfg: &DecodeConfig,
    read: &mut streams::NormalRunCache,
) -> Result<DecodedResource, Reason> {
    let Some((st, located, lmap)) = &r.streams else {
        return Ok(d);
    };
    let mut normal_at = None;
    if let Some((k, nd, nmap)) = &st.normal {
        // Off the resource's own block too.
        let mut taken = taken.to_vec();
        taken.extend(d.placements.iter().map(|p| p.range(located.stride)));
        let placed = streams::place_normal_stream(data, &d.mesh, lmap, nd, nmap, &taken, &cfg.gates, read)
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
    st: &Streams,
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
fn left_out<'a>(st: &'a Streams, r: &'a Described) -> impl Iterator<Item = StreamPlacement> + 'a {
    st.left_out.iter().map(|&(k, stride)| StreamPlacement {
        stream: k,
        located: false,
        stride,
        offset: None,
        left_out: Some(streams::left_out_reason(&stream_declaration(&r.descriptor.decl, k))),
    })
}

/// A multi-stream resource whose positions were not found right after an index buffer
/// (`why`): its index buffer, POSITION stream and NORMAL stream searched for each on its
/// own ([`search_apart`]). Anything else keeps `why`.
fn streams_apart(
    data: &[u8],
    r: &Described,
    why: Reason,
    taken: &[Range<usize>],
    cfg: &DecodeConfig,
    searches: &mut ContainerSearches,
) -> Result<DecodedResource, Reason> {
    // Not when another resource may own the block (ambiguity is not absence).
    if matches!(
        why.code,
        Code::AmbiguousAnchor | Code::AnchorOutOfBudget | Code::AmbiguousSubmeshRecords
    ) {
        return Err(why);
    }
    match search_apart(data, r, taken, cfg, searches) {
        None => Err(why),
        Some(ApartOutcome::Nothing(detail)) => Err(Reason::new(
            why.code,
            format!("{}; nor with its buffers apart: {detail}", why.detail),
        )),
        Some(outcome) => decoded_apart(outcome.into_result()?, r, cfg),
    }
}

/// [`streams::search_apart`] for `r`, or `None` where there is nothing to search by: a
/// single-stream resource, undecided records, or no stream holding NORMAL.
pub(super) fn search_apart(
    data: &[u8],
    r: &Described,
    taken: &[Range<usize>],
    cfg: &DecodeConfig,
    searches: &mut ContainerSearches,
) -> Option<ApartOutcome> {
    let (st, pdecl, pmap) = r.streams.as_ref()?;
    if r.records.len() > 1 {
        return None;
    }
    let (normal, same) = match &st.normal {
        Some((_, nd, nm)) => ((nd, nm), false),
        None if pmap.normal.is_some() => ((pdecl, pmap), true),
        None => return None,
    };
    Some(streams::search_apart(
        data,
        r.descriptor.vertex_count,
        r.descriptor.index_count,
        (pdecl, pmap),
        normal,
        same,
        taken,
        &cfg.gates,
        searches,
    ))
}

/// The resource read from its buffers found apart.
pub(super) fn decoded_apart(found: Apart, r: &Described, cfg: &DecodeConfig) -> Result<DecodedResource, Reason> {
    let (st, pdecl, _) = r.streams.as_ref().expect("searched apart: several streams");
    let placement = Placement {
        index_offset: found.index_offset,
        index_count: r.descriptor.index_count,
        vertex_offset: found.position_offset,
        vertex_count: r.descriptor.vertex_count,
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
    d.sole_reading = found.sole;
    Ok(d)
}

/// Resources whose buffers were placed on overlapping bytes (a NORMAL stream, or an
/// index buffer and positions found apart; a block the solver placed is exclusive
/// already), or on bytes `contested` holds (read by such resources before): each buffer
/// has one owner, and which one it is cannot be told, so each is `ambiguous_anchor`, and
/// its buffers join `contested`. Returns their positions in `resources`.
fn reject_shared_streams(resources: &mut [ResourceOutcome], contested: &mut Vec<Range<usize>>) -> Vec<usize> {
    let placed = owned_buffers(resources);
    let mut losers = std::collections::BTreeSet::new();
    for (i, (a, ra)) in placed.iter().enumerate() {
        if streams::overlaps_any(ra, contested) {
            losers.insert(*a);
        }
        for (b, rb) in &placed[i + 1..] {
            if a != b && overlaps(ra, rb) {
                losers.insert(*a);
                losers.insert(*b);
            }
        }
    }
    contested.extend(placed.into_iter().filter(|(k, _)| losers.contains(k)).map(|(_, r)| r));
    for &k in &losers {
        resources[k].result = Err(Reason::new(
            Code::AmbiguousAnchor,
            "another resource's buffer was placed on the same bytes",
        ));
    }
    losers.into_iter().collect()
}

/// Every buffer of every placed multi-stream resource (its index buffer and each placed
/// stream), with the resource's position in `resources`.
fn owned_buffers(resources: &[ResourceOutcome]) -> Vec<(usize, Range<usize>)> {
    let mut placed = Vec::new();
    for (k, o) in resources.iter().enumerate() {
        let Ok(d) = &o.result else { continue };
        placed.extend(stream_buffers(d).into_iter().map(|r| (k, r)));
    }
    placed
}

/// The buffers of a multi-stream resource (its index buffer and each placed stream);
/// none for a single-stream one.
pub(super) fn stream_buffers(d: &DecodedResource) -> Vec<Range<usize>> {
    let mut placed = Vec::new();
    if d.streams.is_empty() {
        return placed;
    }
    let v = d.mesh.positions.len();
    if let Some(p) = d.placements.first() {
        placed.push(p.index_offset..p.index_offset + 2 * p.index_count as usize);
    }
    for p in &d.streams {
        if let Some(at) = p.offset {
            placed.push(at..at + v * p.stride);
        }
    }
    placed
}

/// Whether a multi-stream resource's outcome may change once other resources' buffers
/// are kept off: it found several readings or gave up (a reading on another's buffer
/// may be what it found, or what it did not get to the end of). "Nothing fits" stays.
fn may_place_off_others(o: &ResourceOutcome) -> bool {
    matches!(&o.result, Err(r) if matches!(r.code, Code::AmbiguousAnchor | Code::AnchorOutOfBudget))
}

/// Most rounds of searches in [`one_owner_per_buffer`]. On the own `--multistream`
/// discs (seeds 1–4 and 6–8, and 3 and 9 with `--realism`) none was placed after the
/// second.
const SEARCH_ROUNDS: usize = 3;

/// One owner per buffer among the multi-stream resources of a container, decided
/// together. First, resources placed on shared bytes are all `ambiguous_anchor`
/// ([`reject_shared_streams`]). Then the resources at `again` (positions in `resources`)
/// that found several readings or gave up, and did not lose shared bytes, are searched
/// again by `search(j, others)` — `j` their position in `again`, `others` the buffers
/// of every other resource placed on its *sole* reading (`sole_reading`), kept off — in
/// rounds, each off what the rounds before placed, while a round places one on its sole
/// reading, at most [`SEARCH_ROUNDS`]. A resource keeps its first reason unless a search
/// places it, and one placed on shared or contested bytes is rejected as above.
///
/// *Argument*: `A` placed on its sole reading has no other reading (a combination its
/// search accepts: the definition of a reading for every search apart), so an assignment
/// that gives any of its bytes to `B` leaves `A` without a block; when `B` has a reading
/// off them, the assignments that place the most units all give `A` its reading and `B`
/// one off it, and `B` is placed when its search off them finds one reading that ranks
/// above every other (rule 5's criterion, with the buffers as its units). A resource
/// placed on a reading it ranked first among several keeps nobody off (its rivals could
/// be the answer that places both), and one that lost shared bytes is not searched again
/// (its reading there was as good as the winner's, so nothing the others are kept off
/// decides it). A resource on its sole reading stays placed (every later search keeps off
/// its buffers; one ranked first may still lose shared bytes to a later round, and both
/// are then rejected). At most [`SEARCH_ROUNDS`] rounds, each searching every resource
/// left once, so a container's searches stay linear in its multi-stream resources, all
/// paid from its one budget.
pub(crate) fn one_owner_per_buffer(
    resources: &mut [ResourceOutcome],
    again: &[usize],
    mut search: impl FnMut(usize, &[Range<usize>]) -> Result<DecodedResource, Reason>,
) {
    let mut contested = Vec::new();
    let mut lost: std::collections::BTreeSet<usize> =
        reject_shared_streams(resources, &mut contested).into_iter().collect();
    let sole = |resources: &[ResourceOutcome]| -> Vec<(usize, Range<usize>)> {
        owned_buffers(resources)
            .into_iter()
            .filter(|(k, _)| resources[*k].result.as_ref().is_ok_and(|d| d.sole_reading))
            .collect()
    };
    let mut known = 0;
    for _ in 0..SEARCH_ROUNDS {
        let owned = sole(resources);
        if owned.len() == known {
            return;
        }
        known = owned.len();
        let mut placed = Vec::new();
        for (j, &k) in again.iter().enumerate() {
            if lost.contains(&k) || !may_place_off_others(&resources[k]) {
                continue;
            }
            let others: Vec<Range<usize>> = owned.iter().filter(|(o, _)| *o != k).map(|(_, r)| r.clone()).collect();
            if let Ok(d) = search(j, &others) {
                placed.push((k, d));
            }
        }
        if placed.is_empty() {
            return;
        }
        for (k, d) in placed {
            resources[k].result = Ok(d);
        }
        lost.extend(reject_shared_streams(resources, &mut contested));
    }
}

/// The first round's result for unit `u`, moved out (each unit is assembled once).
fn take_unit(placed: &mut [Option<Result<Rc<Decoded>, Reason>>], u: usize) -> Result<Decoded, Reason> {
    placed[u]
        .take()
        .unwrap_or_else(|| Err(Reason::new(Code::NoValidAnchor, "internal: unit taken twice")))
        .map(owned)
}

/// A resource from its plan: the documented sequence of blocks, or its unit's one block.
fn assemble(
    plan: Plan,
    r: &Described,
    placed: &mut [Option<Result<Rc<Decoded>, Reason>>],
    cfg: &DecodeConfig,
) -> Result<DecodedResource, Reason> {
    match plan {
        Plan::Sequential { blocks } => assemble_blocks(blocks?, r, SplitKind::Records, cfg),
        Plan::Whole { unit } => assemble_whole(take_unit(placed, unit)?, r, cfg),
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
        return Err(records::ambiguous(&r.records, r.descriptor.index_count));
    }
    let mut d = measured(mesh, Layout::Anchored, vec![b.placement], b.measures, split, r, cfg)?;
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
    measured(mesh, layout, placements, measures, split, r, cfg)
}

/// The resource of a gated mesh: skybox and `spiky` measured, the declaration kept.
fn measured(
    mesh: Mesh,
    layout: Layout,
    placements: Vec<Placement>,
    measures: Measures,
    split: Option<SplitKind>,
    r: &Described,
    cfg: &DecodeConfig,
) -> Result<DecodedResource, Reason> {
    let (mesh, measures) = gates::writable(mesh, measures, &cfg.gates);
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
        decl: r.descriptor.decl.clone(),
        measures,
        split,
        note: None,
        streams: Vec::new(),
        sole_reading: false,
    })
}

/// Name each decoded resource's materials from the container's TX2D names
/// ([`name_materials`]).
pub(crate) fn name_all_materials(c: &Container<'_>, resources: &mut [ResourceOutcome], parsed: &[Parsed<'_>]) {
    let names: Vec<String> = c
        .resources
        .iter()
        .filter(|r| r.is(TAG_TX2D))
        .map(|r| r.name_lossy())
        .collect();
    let materials: HashSet<&str> = names.iter().map(String::as_str).collect();
    for (o, p) in resources.iter_mut().zip(parsed) {
        if let (Ok(dr), Ok(r)) = (&mut o.result, &p.desc) {
            name_materials(&mut dr.mesh, &r.descriptor.strings, &materials);
        }
    }
}

/// Name each primitive's material from the descriptor strings that are TX2D names:
/// the `_col` (albedo) names in order when there is one per primitive, else the first.
fn name_materials(mesh: &mut Mesh, strings: &[String], textures: &HashSet<&str>) {
    // A set, not a list: a hostile file may pair a huge descriptor with a huge directory.
    let known: Vec<&String> = strings.iter().filter(|s| textures.contains(s.as_str())).collect();
    let col: Vec<&String> = known.iter().copied().filter(|s| s.ends_with("_col")).collect();
    let pick = if col.is_empty() { &known } else { &col };
    let n = mesh.primitives.len();
    for (k, p) in mesh.primitives.iter_mut().enumerate() {
        p.material = if pick.len() == n {
            Some(pick[k].clone())
        } else {
            pick.first().map(|s| s.to_string())
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::Declaration;
    use crate::gates::Measures;

    /// A multi-stream resource of `v` vertices placed on its sole reading: `i` indices at
    /// `at`, positions at `pos` and normals at `nrm`, both at stride 12.
    fn placed(at: usize, i: u32, pos: usize, nrm: usize, v: usize) -> DecodedResource {
        let stream = |stream, located, offset| StreamPlacement {
            stream,
            located,
            stride: 12,
            offset: Some(offset),
            left_out: None,
        };
        DecodedResource {
            mesh: Mesh {
                positions: vec![[0.0; 3]; v],
                ..Mesh::default()
            },
            layout: Layout::Anchored,
            placements: vec![Placement {
                index_offset: at,
                index_count: i,
                vertex_offset: pos,
                vertex_count: v as u32,
            }],
            decl: Declaration {
                elements: Vec::new(),
                stride: 12,
            },
            measures: Measures::default(),
            skybox: false,
            spiky: false,
            split: None,
            note: None,
            streams: vec![stream(0, true, pos), stream(1, false, nrm)],
            sole_reading: true,
        }
    }

    /// The same, ranked first among several readings.
    fn ranked_first(at: usize, i: u32, pos: usize, nrm: usize, v: usize) -> DecodedResource {
        DecodedResource {
            sole_reading: false,
            ..placed(at, i, pos, nrm, v)
        }
    }

    fn outcome(k: u32, result: Result<DecodedResource, Reason>) -> ResourceOutcome {
        ResourceOutcome {
            index: k,
            name: format!("r{k}").into_bytes(),
            result,
            same_as: None,
        }
    }

    fn rivals() -> Reason {
        Reason::new(Code::AmbiguousAnchor, "two readings fit")
    }

    /// What a search finds with `others` kept off: `off` when `on` overlaps one of them,
    /// else "two readings fit".
    fn finds(
        others: &[Range<usize>],
        on: Range<usize>,
        off: impl Fn() -> DecodedResource,
    ) -> Result<DecodedResource, Reason> {
        if streams::overlaps_any(&on, others) {
            Ok(off())
        } else {
            Err(rivals())
        }
    }

    /// A placed on its sole reading (normals at 1000..1120), then `n` resources that
    /// found two readings.
    fn a_and_rivals(n: u32) -> Vec<ResourceOutcome> {
        let mut rs = vec![outcome(0, Ok(placed(0, 30, 100, 1000, 10)))];
        rs.extend((1..=n).map(|k| outcome(k, Err(rivals()))));
        rs
    }

    /// The searches of `again` in `rs`, each answered by `answer(j, others)`, in call
    /// order.
    fn searched(
        rs: &mut [ResourceOutcome],
        again: &[usize],
        answer: impl Fn(usize, &[Range<usize>]) -> Result<DecodedResource, Reason>,
    ) -> Vec<usize> {
        let mut calls = Vec::new();
        one_owner_per_buffer(rs, again, |j, others| {
            calls.push(j);
            answer(j, others)
        });
        calls
    }

    fn shared(o: &ResourceOutcome) -> bool {
        o.result
            .as_ref()
            .is_err_and(|r| r.code == Code::AmbiguousAnchor && r.detail.contains("same bytes"))
    }

    #[test]
    fn a_resource_whose_rival_lies_on_a_sole_readings_buffers_is_placed_off_them() {
        // A placed (normals at 1000..1120); B's two readings: normals at 1000 (A's) and
        // at 5000; C's: on B's reading at 5000 and at 9000 — placed in the next round.
        let mut rs = a_and_rivals(2);
        let calls = searched(&mut rs, &[1, 2], |j, others| match j {
            0 => finds(others, 1000..1120, || placed(2000, 30, 2100, 5000, 10)),
            _ => finds(others, 5000..5120, || placed(8000, 30, 8100, 9000, 10)),
        });
        assert!(
            rs.iter().all(|o| o.result.is_ok()),
            "{:?}",
            rs.iter().map(|o| &o.result).collect::<Vec<_>>()
        );
        assert_eq!(rs[1].result.as_ref().unwrap().streams[1].offset, Some(5000));
        assert_eq!(rs[2].result.as_ref().unwrap().streams[1].offset, Some(9000));
        // Round 1: B places, C does not; round 2: C; round 3 has nobody left to search.
        assert_eq!(calls, vec![0, 1, 1]);
    }

    #[test]
    fn a_reading_ranked_first_among_several_keeps_nobody_off() {
        // A's reading was ranked first, not alone: its rivals may be the answer that
        // places B too, so B is not searched off it.
        let mut rs = vec![
            outcome(0, Ok(ranked_first(0, 30, 100, 1000, 10))),
            outcome(1, Err(rivals())),
        ];
        one_owner_per_buffer(&mut rs, &[1], |_, _| panic!("searched with nothing sole kept off"));
        assert!(rs[0].result.is_ok());
        assert_eq!(rs[1].result.as_ref().unwrap_err().detail, "two readings fit");
    }

    #[test]
    fn a_chain_is_decided_as_deep_as_the_rounds_go() {
        // Resource k + 1's rival lies on resource k's normals: each is placed only once
        // the one before is, one round each; the rounds stop at their number.
        let n = SEARCH_ROUNDS + 3;
        let nrm = |k: usize| 10_000 * (k + 1);
        let mut rs = vec![outcome(0, Ok(placed(0, 30, 100, nrm(0), 10)))];
        rs.extend((1..n).map(|k| outcome(k as u32, Err(rivals()))));
        let again: Vec<usize> = (1..n).collect();
        let mut calls = 0;
        one_owner_per_buffer(&mut rs, &again, |j, others| {
            calls += 1;
            let k = j + 1;
            finds(others, nrm(k - 1)..nrm(k - 1) + 120, || {
                placed(nrm(k) - 5000, 30, nrm(k) - 4000, nrm(k), 10)
            })
        });
        let placed_now: Vec<bool> = rs.iter().map(|o| o.result.is_ok()).collect();
        let want: Vec<bool> = (0..n).map(|k| k <= SEARCH_ROUNDS).collect();
        assert_eq!(placed_now, want);
        // Each round searches every resource not yet placed once.
        let want_calls: usize = (0..SEARCH_ROUNDS).map(|r| n - 1 - r).sum();
        assert_eq!(calls, want_calls);
    }

    #[test]
    fn resources_that_lose_shared_bytes_in_a_round_are_not_searched_again() {
        // A on its sole reading; round 1 places E on its sole reading, and B and C on
        // the same bytes (both rejected); round 2 (E's buffers are new) searches neither.
        let mut rs = a_and_rivals(3);
        let calls = searched(&mut rs, &[1, 2, 3], |j, others| match j {
            2 => finds(others, 1000..1120, || placed(8000, 30, 8100, 9000, 10)),
            _ => finds(others, 1000..1120, || {
                placed(2000 + 1000 * j, 30, 2100 + 1000 * j, 5000, 10)
            }),
        });
        assert!(rs[0].result.is_ok() && rs[3].result.is_ok());
        assert!(shared(&rs[1]) && shared(&rs[2]));
        assert_eq!(calls, vec![0, 1, 2], "round 2 searches neither loser");
    }

    #[test]
    fn a_round_that_places_only_readings_ranked_first_is_the_last() {
        // B is placed in round 1 on a reading ranked first: it keeps nobody off, so
        // nothing is new for C, and no round 2 runs.
        let mut rs = a_and_rivals(2);
        let calls = searched(&mut rs, &[1, 2], |j, others| match j {
            0 => finds(others, 1000..1120, || ranked_first(2000, 30, 2100, 5000, 10)),
            _ => finds(others, 5000..5120, || placed(8000, 30, 8100, 9000, 10)),
        });
        assert!(rs[1].result.is_ok());
        assert_eq!(rs[2].result.as_ref().unwrap_err().detail, "two readings fit");
        assert_eq!(calls, vec![0, 1]);
    }

    #[test]
    fn nothing_fits_and_searches_that_place_nothing_keep_their_reason() {
        let nothing = Reason::new(Code::NoValidAnchor, "nothing fits");
        let mut rs = vec![
            outcome(0, Ok(placed(0, 30, 100, 1000, 10))),
            outcome(1, Err(nothing.clone())),
            outcome(2, Err(Reason::new(Code::AnchorOutOfBudget, "gave up"))),
        ];
        let mut calls = Vec::new();
        one_owner_per_buffer(&mut rs, &[1, 2], |j, _| {
            calls.push(j);
            Err(nothing.clone())
        });
        assert_eq!(calls, vec![1], "'nothing fits' is not searched again");
        assert_eq!(rs[1].result.as_ref().unwrap_err().code, Code::NoValidAnchor);
        assert_eq!(rs[2].result.as_ref().unwrap_err().code, Code::AnchorOutOfBudget);
        assert!(rs[0].result.is_ok());
    }

    #[test]
    fn shared_bytes_are_nobodys_and_stay_so() {
        // B and C placed on the same normals: both rejected, never searched again, and
        // D, placed in a round on those bytes (off A's), is rejected too.
        let mut rs = vec![
            outcome(0, Ok(placed(0, 30, 100, 1000, 10))),
            outcome(1, Ok(placed(2000, 30, 2100, 5000, 10))),
            outcome(2, Ok(placed(3000, 30, 3100, 5000, 10))),
            outcome(3, Err(rivals())),
        ];
        let mut calls = Vec::new();
        one_owner_per_buffer(&mut rs, &[1, 2, 3], |j, others| {
            calls.push(j);
            finds(others, 1000..1120, || placed(6000, 30, 6100, 5060, 10))
        });
        assert!(rs[0].result.is_ok());
        assert!(
            shared(&rs[1]) && shared(&rs[2]) && shared(&rs[3]),
            "{:?}",
            rs.iter().map(|o| &o.result).collect::<Vec<_>>()
        );
        assert_eq!(calls, vec![2], "only D is searched again");
        // Nothing placed: nothing is searched again.
        let mut rs = vec![outcome(0, Err(rivals())), outcome(1, Err(rivals()))];
        one_owner_per_buffer(&mut rs, &[0, 1], |_, _| panic!("searched with nothing new kept off"));
    }
}
