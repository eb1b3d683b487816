//! Per-container decoding and the batch export.
//!
//! Owns the decision of which layout decoder places which block
//! ([`decode_container`], pure over the file bytes) and the writing of one container's
//! outputs and of the whole batch ([`export`]). Files are processed in parallel with
//! rayon; outputs are written atomically (temporary name, then rename) and the
//! manifest last.

use crate::config::{Config, Format};
use crate::container::{self, Container, TAG_TX2D, TAG_XBG7};
use crate::decl::{DeclType, Declaration};
use crate::descriptor::{self, Descriptor, SubmeshRecord};
use crate::gates::{self, Measures};
use crate::gltf_out::{self, GltfOptions, Source};
use crate::layout::anchored::{self, Unit};
use crate::layout::records::{self, Selection, SplitOrder};
use crate::layout::{sequential, split_by_counts, Decoded, Placement};
use crate::manifest::{ContainerEntry, Kind, Layout, Manifest, OtherEntry, ResourceEntry, Status, TextureEntry};
use crate::mesh::Mesh;
use crate::reason::{Code, Reason};
use crate::texture::export::{albedo_for, Albedos};
use crate::vertex::{append, AttributeMap};
use crate::walker::{self, Found};
use crate::{names, preview, raster, scene};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A resource that decoded and passed every gate.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedResource {
    pub mesh: Mesh,
    pub layout: Layout,
    /// Every block, in record order (one for stages and bodies).
    pub placements: Vec<Placement>,
    pub decl: Declaration,
    pub measures: Measures,
    pub skybox: bool,
    pub spiky: bool,
    /// How the primitives were split (None: one primitive).
    pub split: Option<SplitKind>,
    /// Why the split is [`SplitKind::Undecided`] (the manifest entry's `reason`).
    pub note: Option<Reason>,
}

/// How a decoded resource's primitives came about (the manifest's `split`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitKind {
    /// One primitive per sub-mesh record, in record order.
    Records,
    /// One shared index buffer split by the records taken in another order than stored:
    /// the only order whose ranges reference their records' vertex counts.
    InferredOrder,
    /// One block per record, each found by content (bodies), in record order.
    PerRecordBlocks,
    /// One primitive over a shared index buffer whose split by the records is
    /// undecidable (several orders of the records fit it, or none does): the geometry is
    /// exact, the sub-mesh boundaries are not known (FORMAT.md leaves the records' order
    /// undocumented), so none is guessed.
    Undecided,
}

impl SplitKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            SplitKind::Records => "records",
            SplitKind::InferredOrder => "inferred_order",
            SplitKind::PerRecordBlocks => "per_record_blocks",
            SplitKind::Undecided => "undecided",
        }
    }
}

/// The outcome for one XBG7 resource.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceOutcome {
    pub index: u32,
    pub name: Vec<u8>,
    pub result: Result<DecodedResource, Reason>,
}

/// Everything decoded from one container.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ContainerDecode {
    pub resources: Vec<ResourceOutcome>,
    pub textures: Vec<TextureEntry>,
    pub other: Vec<OtherEntry>,
}

/// Container kind from the file name.
pub fn kind_of(file_name: &str) -> Kind {
    if walker::is_stage(file_name) {
        Kind::Stage
    } else {
        Kind::Model
    }
}

/// Reject declarations no layout can decode exactly.
pub fn check_declaration(decl: &Declaration, map: &AttributeMap) -> Result<(), Reason> {
    if let Some(e) = decl.elements.iter().find(|e| e.stream != 0) {
        return Err(Reason::new(
            Code::MultiStreamDeclaration,
            format!("{} element on stream {}", e.usage.name(), e.stream),
        ));
    }
    let pos = map
        .position
        .ok_or_else(|| Reason::new(Code::NoPositionElement, "declaration has no POSITION element"))?;
    if !matches!(pos.ty, DeclType::Float3 | DeclType::Float4 | DeclType::Float16_4) {
        return Err(Reason::new(
            Code::QuantizedPosition,
            format!("POSITION is {} (scale unknown)", pos.ty.name()),
        ));
    }
    Ok(())
}

/// `POSITION0@0:FLOAT3 NORMAL0@12:FLOAT16_4 …` (stride N)
pub fn describe_declaration(decl: &Declaration) -> String {
    let els: Vec<String> = decl
        .elements
        .iter()
        .map(|e| {
            let s = if e.stream != 0 {
                format!("s{}:", e.stream)
            } else {
                String::new()
            };
            format!("{s}{}{}@{}:{}", e.usage.name(), e.usage_index, e.offset, e.ty.name())
        })
        .collect();
    format!("{} (stride {})", els.join(" "), decl.stride)
}

/// One XBG7 resource as its descriptor describes it.
struct Parsed<'a> {
    index: u32,
    name: &'a [u8],
    desc: Result<Described, Reason>,
}

/// What a parsed descriptor says about a resource's block.
struct Described {
    d: Descriptor,
    map: AttributeMap,
    /// Why the vertices cannot be decoded exactly; the block is still located (by its
    /// stream-0 elements) and claimed, so no other resource can take it.
    undecodable: Option<Reason>,
    /// The stream-0 part of a multi-stream declaration, to locate its block by.
    stream0: Option<(Declaration, AttributeMap)>,
    /// The candidate runs of real sub-mesh records ([`records::select`]): one when the
    /// file decides them; several when their sums cannot (the ranges may still).
    records: Vec<Vec<SubmeshRecord>>,
}

impl Described {
    /// The declaration the block is located and read with.
    fn locate(&self) -> (&Declaration, &AttributeMap) {
        match &self.stream0 {
            Some((d, m)) => (d, m),
            None => (&self.d.decl, &self.map),
        }
    }
}

fn parse_resource<'a>(r: &container::Resource<'a>, kind: Kind) -> Parsed<'a> {
    let desc = match &r.problem {
        Some(p) => Err(Reason::new(Code::BadRange, p.to_string())),
        None => descriptor::parse(r.descriptor)
            .map_err(|e| {
                let code = match &e {
                    descriptor::DescriptorError::Declaration {
                        err: crate::decl::DeclError::UnknownType { .. },
                        ..
                    } => Code::UnknownDeclType,
                    descriptor::DescriptorError::Declaration { .. } => Code::DeclUnterminated,
                    _ => Code::NoIndexMarker,
                };
                Reason::new(code, e.to_string())
            })
            .map(|d| {
                let map = AttributeMap::of(&d.decl);
                let undecodable = check_declaration(&d.decl, &map).err();
                let stream0 = d.decl.elements.iter().any(|e| e.stream != 0).then(|| {
                    let elements: Vec<_> = d.decl.elements.iter().copied().filter(|e| e.stream == 0).collect();
                    let stride = elements
                        .iter()
                        .map(|e| e.offset as usize + e.ty.size())
                        .max()
                        .unwrap_or(0);
                    let decl = Declaration { elements, stride };
                    let map = AttributeMap::of(&decl);
                    (decl, map)
                });
                let records = match records::select(&d.records, d.index_count, d.vertex_count) {
                    Selection::Unique(rs) => vec![rs],
                    // A model without usable records is one block of the marker's totals.
                    Selection::None if kind == Kind::Model => vec![vec![SubmeshRecord {
                        offset: 0,
                        vtx_count: d.vertex_count,
                        idx_count: d.index_count,
                        tail: 0,
                    }]],
                    Selection::None => vec![Vec::new()],
                    Selection::Ambiguous(runs) => runs,
                };
                Described {
                    d,
                    map,
                    undecodable,
                    stream0,
                    records,
                }
            }),
    };
    Parsed {
        index: r.index,
        name: r.name,
        desc,
    }
}

enum Plan {
    /// The documented layout: the first block at the data start, the later records'
    /// blocks each the next gated block after the previous one (or why not).
    Sequential { blocks: Result<Vec<Decoded>, Reason> },
    /// One anchoring unit for the whole resource.
    Whole { unit: usize },
}

/// Decode every XBG7 resource of one container (pure; no I/O).
pub fn decode_container(file: &[u8], kind: Kind, cfg: &Config) -> Result<ContainerDecode, Reason> {
    let c = container::parse(file).map_err(container_reason)?;
    Ok(decode_parsed(&c, kind, cfg))
}

/// [`decode_container`] on an already parsed container.
fn decode_parsed(c: &Container<'_>, kind: Kind, cfg: &Config) -> ContainerDecode {
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
        if let (Kind::Model, false, None) = (kind, start_taken, &r.undecodable) {
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
            });
            Plan::Whole { unit: units.len() - 1 }
        });
        plans.push(Some(plan));
    }

    let first = anchored::anchor(&mut scanner, &units, &claimed, &cfg.gates);
    let mut placed: Vec<Option<Result<Decoded, Reason>>> = first.results.into_iter().map(Some).collect();
    // Bodies stored as one block per record: where the whole resource's block is not
    // found, each record is a unit of its own, kept off every block another resource
    // (or this one) claimed in the first round.
    claimed.extend(first.claims);
    let per_record = per_record_blocks(&mut scanner, &parsed, &plans, &placed, &claimed, cfg);

    let mut out = ContainerDecode::default();
    for ((k, p), plan) in parsed.iter().enumerate().zip(plans) {
        let result = match (plan, &p.desc) {
            (None, Err(r)) => Err(r.clone()),
            (Some(_), Ok(r)) if r.undecodable.is_some() => Err(r.undecodable.clone().expect("checked")),
            (Some(plan), Ok(r)) => match &per_record[k] {
                Some(blocks) => assemble_blocks(blocks.clone(), r, SplitKind::PerRecordBlocks, cfg),
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
    placed: &[Option<Result<Decoded, Reason>>],
    claimed: &[std::ops::Range<usize>],
    cfg: &Config,
) -> Vec<Option<Vec<Decoded>>> {
    let mut units: Vec<Unit> = Vec::new();
    let mut owner: Vec<(usize, usize)> = Vec::new(); // (resource, number of records)
    for (k, (p, plan)) in parsed.iter().zip(plans).enumerate() {
        let (Ok(r), Some(Plan::Whole { unit })) = (&p.desc, plan) else {
            continue;
        };
        let [records] = r.records.as_slice() else { continue };
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
            });
        }
    }
    let mut out: Vec<Option<Vec<Decoded>>> = vec![None; parsed.len()];
    if units.is_empty() {
        return out;
    }
    let mut results = anchored::anchor(scanner, &units, claimed, &cfg.gates)
        .results
        .into_iter();
    for (k, n) in owner {
        let blocks: Vec<Result<Decoded, Reason>> = results.by_ref().take(n).collect();
        out[k] = blocks.into_iter().collect::<Result<Vec<_>, _>>().ok();
    }
    out
}

fn take(placed: &mut [Option<Result<Decoded, Reason>>], u: usize) -> Result<Decoded, Reason> {
    placed[u]
        .take()
        .unwrap_or_else(|| Err(Reason::new(Code::NoValidAnchor, "internal: unit taken twice")))
}

fn assemble(
    plan: Plan,
    r: &Described,
    placed: &mut [Option<Result<Decoded, Reason>>],
    cfg: &Config,
) -> Result<DecodedResource, Reason> {
    match plan {
        Plan::Sequential { blocks } => assemble_blocks(blocks?, r, SplitKind::Records, cfg),
        Plan::Whole { unit } => {
            let b = take(placed, unit)?;
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
    }
}

/// A resource of several blocks, in record order (one primitive each).
fn assemble_blocks(
    blocks: Vec<Decoded>,
    r: &Described,
    kind: SplitKind,
    cfg: &Config,
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
    cfg: &Config,
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

/// Name each primitive's material from the descriptor strings that are TX2D names:
/// the `_col` (albedo) names in order when there is one per primitive, else the first.
fn name_materials(mesh: &mut Mesh, strings: &[String], textures: &std::collections::HashSet<&str>) {
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

fn container_reason(e: container::ContainerError) -> Reason {
    use container::ContainerError as E;
    let code = match e {
        E::NotXpr2(_) => Code::NotXpr2,
        E::TooShort { .. } | E::HeaderTruncated { .. } | E::DataTruncated { .. } => Code::Truncated,
        E::BadCount { .. } => Code::BadDirectory,
    };
    Reason::new(code, e.to_string())
}

// ---------------------------------------------------------------------------------------
// Batch export

#[derive(Clone, Debug)]
pub struct ExportOptions {
    pub jobs: Option<usize>,
    /// Only containers whose file name matches.
    pub only: Option<globset::GlobMatcher>,
    pub previews: bool,
    pub progress: bool,
    /// Print one line per container: what was decided (see [`explain`]).
    pub verbose: bool,
}

/// Most worker threads `--jobs` may ask for (`--jobs 0`, like no `--jobs`, means one per
/// core). 99 999 threads exhausted the address space for stack guard pages and hung.
pub const MAX_JOBS: usize = 256;

#[derive(Debug, Error)]
pub enum ExportError {
    #[error(transparent)]
    Walk(#[from] walker::WalkError),
    #[error("--out {out} is inside --disc {disc}; choose an output folder outside the disc")]
    OutInsideDisc { out: String, disc: String },
    #[error("cannot create or write output folder {0}: {1}")]
    Out(String, std::io::Error),
    #[error("cannot build the thread pool: {0}")]
    Pool(String),
    #[error("--jobs {0} is more than {MAX_JOBS} worker threads (--jobs 0 or no --jobs: one per core)")]
    Jobs(usize),
    #[error("another xbg7-export is writing into {0} (it holds {0}/{LOCK_FILE}); wait for it or choose another --out")]
    Locked(String),
    #[error("--only {0:?} matches no container of the disc (nothing exported, {1} left as it was)")]
    NothingMatched(String, String),
}

/// The tool's own folder inside `--out`: lock, previous manifest, pending removals,
/// journal of written outputs, temporaries. No container folder can be named so
/// ([`names::sanitize`] strips leading dots).
pub const TOOL_DIR: &str = ".xbg7";
/// The manifest, at the top of `--out` where users look for it.
pub const MANIFEST: &str = "manifest.json";
/// Held (exclusive `flock`-style lock) for the whole run: one writer per `--out`.
pub const LOCK_FILE: &str = ".xbg7/lock";
/// Where the previous manifest waits while a run is in progress.
pub const PREVIOUS_MANIFEST: &str = ".xbg7/manifest.prev.json";
/// Stale outputs to remove, written before the new manifest (a run killed between the
/// manifest and the removal leaves this list for the next run).
pub const PENDING_REMOVALS: &str = ".xbg7/pending-removals.json";
/// Every output this run has written, one per line, appended per container (a killed
/// run's outputs are found here by the next run).
pub const JOURNAL: &str = ".xbg7/written.txt";
/// Where versions before the `.xbg7` folder kept the previous manifest (still read).
pub const LEGACY_PREVIOUS_MANIFEST: &str = "manifest.json.xbg7-prev";
/// Names at the top of `--out` that belong to the tool's outputs: a container whose
/// folder would be one of them gets `~<index>` (the report is another tool output).
pub const RESERVED_NAMES: &[&str] = &[MANIFEST, "index.html", TOOL_DIR];

/// Suffix of the temporary sibling [`write_atomic`] writes before renaming.
pub const TMP_SUFFIX: &str = ".xbg7-tmp";

/// Write `bytes` to `path` atomically (temporary sibling, then rename). A leftover
/// temporary of a killed run is replaced, never written through: the temporary is always
/// a fresh file (so a planted symlink at that name cannot redirect the write), and the
/// rename replaces `path` itself (a symlink at `path` is replaced, not followed).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(TMP_SUFFIX);
    let tmp = PathBuf::from(tmp);
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let written = f.write_all(bytes).and_then(|()| f.flush());
    drop(f);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path)
}

/// Write one of the tool's files at `out/<rel>` atomically, its temporary inside
/// [`TOOL_DIR`] (a container folder can never take the temporary's name).
pub fn write_tool_file(out: &Path, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp_name = format!("{}.tmp", rel.replace('/', "_"));
    let tmp = out.join(TOOL_DIR).join(tmp_name);
    write_atomic(&tmp, bytes)?;
    std::fs::rename(&tmp, out.join(rel))
}

/// `out/.xbg7`, created when missing; it must be a real folder (not a symlink).
fn tool_dir(out: &Path) -> std::io::Result<PathBuf> {
    let dir = out.join(TOOL_DIR);
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(dir),
        Ok(_) => Err(std::io::Error::other(format!(
            "{} is not a folder (the tool keeps its own files there); remove it",
            dir.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir(&dir).map(|()| dir),
        Err(e) => Err(e),
    }
}

/// Take the exclusive lock on `out` (kept until the returned file is dropped).
fn lock_out(out: &Path) -> Result<std::fs::File, ExportError> {
    let path = out.join(LOCK_FILE);
    let out_err = |e| ExportError::Out(out.display().to_string(), e);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Err(out_err(std::io::Error::other(format!(
            "{} is not a file",
            path.display()
        ))));
    }
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(out_err)?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(ExportError::Locked(out.display().to_string())),
        Err(std::fs::TryLockError::Error(e)) => Err(out_err(e)),
    }
}

/// Test hook: abort the process (as a kill would) at the named point of a run when
/// `XBG7_EXPORT_ABORT_AT` names it (`after-manifest`, `after-first-container`).
fn abort_point(name: &str) {
    if std::env::var_os("XBG7_EXPORT_ABORT_AT").is_some_and(|v| v == name) {
        std::process::abort();
    }
}

/// Folder name of every found container (same order): sanitised stems made unique, a
/// file spelled exactly `.xpr` named before its case-only variants (`X.xpr` keeps `X`,
/// `X.XPR` gets `X~<i>`), and the tool's top-level names ([`RESERVED_NAMES`]) never
/// taken. Computed over the whole disc, so a `--only` run uses the full run's names.
pub fn container_dirs(found: &[Found]) -> Vec<String> {
    let stems: Vec<&[u8]> = found
        .iter()
        .map(|f| {
            let name = f.file_name();
            name.rsplit_once('.').map_or(name, |(s, _)| s).as_bytes()
        })
        .collect();
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|&i| (!found[i].rel.ends_with(".xpr"), i));
    let refs: Vec<(u32, &[u8])> = order.iter().map(|&i| (i as u32, stems[i])).collect();
    let mut dirs = vec![String::new(); found.len()];
    for (k, name) in names::unique_names(&refs).into_iter().enumerate() {
        dirs[order[k]] = name;
    }
    for (i, d) in dirs.iter_mut().enumerate() {
        if RESERVED_NAMES.iter().any(|r| d.eq_ignore_ascii_case(r)) {
            d.push_str(&format!("~{i}"));
        }
    }
    dirs
}

/// `path` made absolute and free of symlinks even when its last components do not exist
/// yet: the longest existing ancestor is canonicalized and the rest appended (`..` pops).
fn resolve_lexically(path: &Path) -> std::io::Result<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    };
    let mut rest = Vec::new();
    let mut cur = abs.as_path();
    loop {
        match cur.canonicalize() {
            Ok(mut c) => {
                for comp in rest.iter().rev() {
                    match comp {
                        std::path::Component::ParentDir => {
                            c.pop();
                        }
                        std::path::Component::CurDir => {}
                        other => c.push(other.as_os_str()),
                    }
                }
                return Ok(c);
            }
            Err(e) => match (cur.parent(), cur.components().next_back()) {
                (Some(parent), Some(last)) => {
                    rest.push(last);
                    cur = parent;
                }
                _ => return Err(e),
            },
        }
    }
}

/// Is `path`, once its existing part is resolved, inside `root` (both canonical)?
fn inside(root: &Path, path: &Path) -> bool {
    resolve_lexically(path).is_ok_and(|p| p.starts_with(root))
}

/// Export a whole disc into `out`; returns the manifest (also written as
/// `out/manifest.json`, last).
///
/// The run holds an exclusive lock on `out` ([`LOCK_FILE`]). With `opts.only`, only the
/// matching containers are exported: the previous manifest's entries of the others are
/// kept (with their files), and a filter matching nothing is an error. Removing the
/// previous run's stale outputs is restartable: the list is written
/// ([`PENDING_REMOVALS`]) before the manifest, and every output is journalled
/// ([`JOURNAL`]) as it is written, so a run killed anywhere leaves nothing that the next
/// complete run does not either list or remove.
pub fn export(disc: &Path, out: &Path, cfg: &Config, opts: &ExportOptions) -> Result<Manifest, ExportError> {
    if let Some(n) = opts.jobs.filter(|&n| n > MAX_JOBS) {
        return Err(ExportError::Jobs(n));
    }
    let found = walker::discover(disc)?;
    let disc_c = disc
        .canonicalize()
        .map_err(|e| walker::WalkError::Unreadable(disc.display().to_string(), e))?;
    // Refuse before creating anything: `--out` must not land inside the disc tree.
    let out_err = |e| ExportError::Out(out.display().to_string(), e);
    if resolve_lexically(out).map_err(out_err)?.starts_with(&disc_c) {
        return Err(ExportError::OutInsideDisc {
            out: out.display().to_string(),
            disc: disc.display().to_string(),
        });
    }
    std::fs::create_dir_all(out).map_err(out_err)?;
    let out_c = out.canonicalize().map_err(out_err)?;
    let tool = tool_dir(out).map_err(out_err)?;
    let _lock = lock_out(out)?;
    // An unwritable `--out` stops the run now, not after every container failed.
    write_atomic(&tool.join("probe"), b"")
        .and_then(|()| std::fs::remove_file(tool.join("probe")))
        .map_err(out_err)?;
    let all_dirs = container_dirs(&found);
    let selected = |name: &str| opts.only.as_ref().is_none_or(|g| g.is_match(name));
    let (found, dirs): (Vec<Found>, Vec<String>) = found
        .into_iter()
        .zip(all_dirs)
        .filter(|(f, _)| selected(f.file_name()))
        .unzip();
    if let (Some(g), true) = (&opts.only, found.is_empty()) {
        return Err(ExportError::NothingMatched(
            g.glob().glob().to_string(),
            out.display().to_string(),
        ));
    }

    // The previous manifest is moved aside for the duration of the run, so a run killed
    // half-way leaves no manifest that references a file this run has begun to replace
    // (e.g. a new `.gltf` next to the old `.bin`). A run after a killed one finds it there.
    let (manifest_path, prev_path) = (out.join(MANIFEST), out.join(PREVIOUS_MANIFEST));
    let legacy_prev = out.join(LEGACY_PREVIOUS_MANIFEST);
    let read_manifest = |p: &Path| {
        std::fs::symlink_metadata(p)
            .is_ok_and(|m| m.is_file())
            .then(|| std::fs::read(p).ok())
            .flatten()
            .and_then(|b| serde_json::from_slice::<Manifest>(&b).ok())
    };
    let previous = match read_manifest(&manifest_path) {
        Some(m) => {
            std::fs::rename(&manifest_path, &prev_path).map_err(out_err)?;
            Some(m)
        }
        None => read_manifest(&prev_path).or_else(|| read_manifest(&legacy_prev)),
    };
    // What killed runs wrote or meant to remove: candidates for removal at the end.
    let mut leftovers: BTreeSet<String> = read_lines(&out.join(JOURNAL)).into_iter().collect();
    if let Some(list) = std::fs::read(out.join(PENDING_REMOVALS))
        .ok()
        .and_then(|b| serde_json::from_slice::<Vec<String>>(&b).ok())
    {
        leftovers.extend(list);
    }
    let journal = std::sync::Mutex::new(Journal::open(&out.join(JOURNAL)).map_err(out_err)?);

    // Largest containers first, one task each: a 70 MB stage started last would leave
    // one thread working alone at the end. Entries go back to directory order.
    let sizes: Vec<u64> = found.iter().map(found_size).collect();
    // Progress counts bytes (a stage is 100× a model's work), with elapsed time and ETA.
    let bar = if opts.progress {
        indicatif::ProgressBar::new(sizes.iter().sum::<u64>().max(1))
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {binary_bytes}/{binary_total_bytes} {elapsed} elapsed, ETA {eta} {msg}",
        )
        .expect("static template"),
    );
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let run = || -> Vec<ContainerEntry> {
        let mut done: Vec<(usize, ContainerEntry)> = order
            .par_iter()
            .with_max_len(1)
            .map(|&i| {
                let (f, dir) = (&found[i], &dirs[i]);
                bar.set_message(f.file_name().to_string());
                let e = guarded(f, || export_container(f, dir, out, &out_c, cfg, opts));
                if let Ok(mut j) = journal.lock() {
                    j.record(&e);
                }
                abort_point("after-first-container");
                if opts.verbose {
                    bar.suspend(|| eprintln!("{}", explain(&e)));
                }
                bar.inc(sizes[i].max(1));
                (i, e)
            })
            .collect();
        done.sort_by_key(|(i, _)| *i);
        done.into_iter().map(|(_, e)| e).collect()
    };
    let mut entries = match opts.jobs.filter(|&n| n > 0) {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| ExportError::Pool(e.to_string()))?
            .install(run),
        None => run(),
    };
    bar.finish_and_clear();
    // A partial run keeps what it did not touch: the previous entries of every
    // container the filter does not select.
    if opts.only.is_some() {
        if let Some(prev) = &previous {
            let now: BTreeSet<&str> = found.iter().map(|f| f.rel.as_str()).collect();
            let kept: Vec<ContainerEntry> = prev
                .containers
                .iter()
                .filter(|c| !now.contains(c.path.as_str()))
                .filter(|c| !selected(c.path.rsplit('/').next().unwrap_or(&c.path)))
                .cloned()
                .collect();
            entries.extend(kept);
        }
    }
    let mut manifest = Manifest::new(entries);
    // The HTML report (listed in the manifest, so re-runs treat it like any output),
    // written before the manifest so the manifest stays the last file of a run.
    if cfg.output.report {
        crate::report::write(out, &mut manifest).map_err(out_err)?;
    }
    let keep: BTreeSet<&str> = manifest.outputs().into_iter().collect();
    let mut stale = leftovers;
    if let Some(prev) = &previous {
        stale.extend(prev.outputs().into_iter().map(str::to_string));
    }
    stale.retain(|p| !keep.contains(p.as_str()));
    let stale: Vec<String> = stale.into_iter().collect();
    let pending = serde_json::to_vec(&stale).expect("a list of strings serialises");
    write_tool_file(out, PENDING_REMOVALS, &pending).map_err(out_err)?;
    write_tool_file(out, MANIFEST, &manifest.to_bytes()).map_err(out_err)?;
    abort_point("after-manifest");
    for rel in &stale {
        remove_output(out, &out_c, rel, true);
    }
    if let Some(prev) = &previous {
        // A killed run's temporaries of outputs this run kept.
        for rel in prev.outputs() {
            remove_output(out, &out_c, rel, false);
        }
    }
    drop(journal);
    for done in [PENDING_REMOVALS, JOURNAL, PREVIOUS_MANIFEST] {
        let _ = std::fs::remove_file(out.join(done));
    }
    if std::fs::symlink_metadata(&legacy_prev).is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(&legacy_prev);
    }
    Ok(manifest)
}

/// The lines of a text file (none when it cannot be read).
fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read(path)
        .map(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The append-only list of outputs written so far ([`JOURNAL`]).
struct Journal(Option<std::fs::File>);

impl Journal {
    fn open(path: &Path) -> std::io::Result<Journal> {
        if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(std::io::Error::other(format!("{} is not a file", path.display())));
        }
        let f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Journal(Some(f)))
    }

    /// Append a container's outputs (best effort: the journal only widens the cleanup).
    fn record(&mut self, e: &ContainerEntry) {
        use std::io::Write;
        let one = Manifest {
            containers: vec![e.clone()],
            ..Manifest::new(Vec::new())
        };
        let mut text = String::new();
        for o in one.outputs() {
            text.push_str(o);
            text.push('\n');
        }
        if let Some(f) = &mut self.0 {
            // No fsync: the journal guards against a killed process, not a power cut.
            if f.write_all(text.as_bytes()).is_err() {
                self.0 = None;
            }
        }
    }
}

/// What was decided for one container, for `--verbose`.
pub fn explain(e: &ContainerEntry) -> String {
    if let Some(err) = &e.error {
        return format!("{}: not decoded: {err}", e.path);
    }
    let decoded = e.resources.iter().filter(|r| r.status == Status::Decoded).count();
    let mut line = format!(
        "{} ({}, {} bytes): {decoded} of {} resources decoded",
        e.path,
        e.kind.as_str(),
        e.size,
        e.resources.len()
    );
    let mut why: std::collections::BTreeMap<&str, usize> = Default::default();
    for r in &e.resources {
        if let Some(reason) = &r.reason {
            *why.entry(reason.code.as_str()).or_default() += 1;
        }
    }
    if !why.is_empty() {
        let parts: Vec<String> = why.iter().map(|(c, n)| format!("{c} {n}")).collect();
        line.push_str(&format!("; rejected: {}", parts.join(", ")));
    }
    let layouts: BTreeSet<&str> = e
        .resources
        .iter()
        .filter_map(|r| r.layout)
        .map(|l| match l {
            Layout::Sequential => "sequential",
            Layout::Anchored => "anchored",
        })
        .collect();
    if !layouts.is_empty() {
        line.push_str(&format!(
            "; layout {}",
            layouts.into_iter().collect::<Vec<_>>().join("+")
        ));
    }
    if !e.textures.is_empty() {
        let ok = e.textures.iter().filter(|t| t.status == Some(Status::Decoded)).count();
        line.push_str(&format!("; textures {ok}/{}", e.textures.len()));
    }
    if let Some(c) = e.preview_cells {
        line.push_str(&format!("; grid capped at {} of {} cells", c.shown, c.total));
    }
    line
}

/// Remove outputs the previous run listed and this run no longer produces (only those,
/// only plain relative paths, and only files whose folder resolves inside `out_c`: a
/// doctored manifest or a symlinked folder cannot make it delete anything elsewhere).
pub fn remove_stale(out: &Path, out_c: &Path, prev: &Manifest, now: &Manifest) {
    let keep: BTreeSet<&str> = now.outputs().into_iter().collect();
    for rel in prev.outputs() {
        remove_output(out, out_c, rel, !keep.contains(rel));
    }
}

/// Remove a killed run's temporary sibling of the output `rel` and, with `file`, the
/// output itself — when `rel` is a plain relative path whose folder resolves inside
/// `out_c` (never the tool's own folder).
fn remove_output(out: &Path, out_c: &Path, rel: &str, file: bool) {
    let safe = !rel.is_empty()
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains(['\\', ':', '\0']))
        && rel.split('/').next() != Some(TOOL_DIR)
        && rel != MANIFEST;
    let path = out.join(rel);
    if safe && path.parent().is_some_and(|d| inside(out_c, d)) {
        let mut tmp = path.clone().into_os_string();
        tmp.push(TMP_SUFFIX);
        let _ = std::fs::remove_file(tmp);
        if file {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The bytes of a found container: the file mapped, or its extent of the disc image.
fn read_file(f: &Found) -> std::io::Result<memmap2::Mmap> {
    let file = std::fs::File::open(&f.abs)?;
    // SAFETY: the disc is read-only input; a concurrent truncation by another process is
    // outside what this tool defends against (as for any reader of the file).
    unsafe {
        match f.extent {
            Some((offset, len)) => memmap2::MmapOptions::new()
                .offset(offset)
                .len(usize::try_from(len).map_err(std::io::Error::other)?)
                .map(&file),
            None => memmap2::Mmap::map(&file),
        }
    }
}

/// A found container's size in bytes (0 for a symlink or a non-file).
pub fn found_size(f: &Found) -> u64 {
    match (f.extent, f.symlink || f.not_a_file.is_some()) {
        (_, true) => 0,
        (Some((_, len)), false) => len,
        (None, false) => std::fs::symlink_metadata(&f.abs).map_or(0, |m| m.len()),
    }
}

/// A container's manifest entry before anything is known about its contents.
fn blank_entry(f: &Found) -> ContainerEntry {
    ContainerEntry {
        path: f.rel.clone(),
        kind: kind_of(f.rel.rsplit('/').next().unwrap_or("")),
        size: 0,
        error: None,
        preview: None,
        scene: None,
        preview_cells: None,
        resources: Vec::new(),
        textures: Vec::new(),
        other: Vec::new(),
    }
}

/// Run one container's export so that a panic inside it (a bug: every input error is a
/// typed reject) becomes that container's `internal_error` instead of aborting the batch.
/// Outputs it wrote before panicking are not listed in the manifest (each was written
/// atomically, so none is half-written); the other containers are unaffected.
fn guarded(f: &Found, work: impl FnOnce() -> ContainerEntry) -> ContainerEntry {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-text panic payload".to_string());
        let mut entry = blank_entry(f);
        entry.size = found_size(f);
        entry.error = Some(Reason::new(
            Code::InternalError,
            format!("the exporter panicked on this container ({msg}); please report it with the file"),
        ));
        entry
    })
}

fn export_container(
    f: &Found,
    dir: &str,
    out: &Path,
    out_c: &Path,
    cfg: &Config,
    opts: &ExportOptions,
) -> ContainerEntry {
    let mut entry = blank_entry(f);
    let kind = entry.kind;
    if f.symlink {
        let target = std::fs::read_link(&f.abs)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        entry.error = Some(Reason::new(
            Code::Symlink,
            format!("symbolic link to {target:?} not followed"),
        ));
        return entry;
    }
    if let Some(what) = f.not_a_file {
        // Never opened: opening a FIFO would block the run.
        entry.error = Some(Reason::new(Code::Io, format!("{what}, not a regular file: not read")));
        return entry;
    }
    entry.size = found_size(f);
    let map;
    let bytes: &[u8] = if entry.size == 0 {
        &[]
    } else {
        match read_file(f) {
            Ok(m) => {
                map = m;
                &map
            }
            Err(e) => {
                entry.error = Some(Reason::new(Code::Io, format!("cannot read: {e}")));
                return entry;
            }
        }
    };
    let parsed = match container::parse(bytes) {
        Ok(c) => c,
        Err(e) => {
            entry.error = Some(container_reason(e));
            return entry;
        }
    };
    let decoded = decode_parsed(&parsed, kind, cfg);
    entry.textures = decoded.textures.clone();
    entry.other = decoded.other.clone();
    let root = OutRoot {
        path: out,
        canonical: out_c,
    };
    // Textures: PNGs + manifest entries, the links materials use, and (for the previews)
    // each albedo prepared for sampling while its decoded image is at hand.
    let previews = opts.previews && cfg.output.previews;
    let (links, prepared) = if parsed.resources.iter().any(|r| r.is(TAG_TX2D)) {
        match root.container_dir(dir).and_then(|abs| {
            root.no_link_below(&abs, crate::texture::export::TEXTURE_DIR)
                .map(|()| abs)
        }) {
            Ok(abs) => {
                let max_side = preview_texture_side(kind, cfg);
                // Only read by `prepare`, which runs only with previews.
                let needed = if previews {
                    sampled_albedos(&decoded)
                } else {
                    Default::default()
                };
                let prepare = |name: &str, img: &crate::texture::Image| {
                    needed
                        .contains(name)
                        .then(|| raster::Texture::reduced(img.width, img.height, &img.rgba, max_side))
                        .flatten()
                };
                let (textures, links, prepared) = crate::texture::export::export_textures_with_albedos(
                    &parsed,
                    &abs,
                    dir,
                    previews.then_some(&prepare),
                    cfg.output.specular_gloss,
                );
                entry.textures = textures;
                (links, prepared)
            }
            Err(e) => {
                entry.error = Some(Reason::new(Code::Io, format!("writing outputs: {e}")));
                return entry;
            }
        }
    } else {
        Default::default()
    };
    let tex = Textures {
        links: &links,
        prepared: &prepared,
    };
    if let Err(e) = write_container(&decoded, &mut entry, dir, &root, cfg, opts, &tex) {
        entry.error = Some(Reason::new(Code::Io, format!("writing outputs: {e}")));
    }
    entry
}

/// The output root: as given, and canonical (for the inside-`--out` checks).
struct OutRoot<'a> {
    path: &'a Path,
    canonical: &'a Path,
}

impl OutRoot<'_> {
    /// Create a container's folder; it must resolve inside `--out` (a symlink planted in
    /// the output tree must not carry writes elsewhere).
    fn container_dir(&self, dir: &str) -> std::io::Result<PathBuf> {
        let abs = self.path.join(dir);
        match std::fs::symlink_metadata(&abs) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(std::io::Error::other(format!(
                    "{dir} is a symlink or a file, not a folder; not written through"
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir(&abs)?,
            Err(e) => return Err(e),
        }
        if !abs.canonicalize()?.starts_with(self.canonical) {
            return Err(std::io::Error::other(format!(
                "{dir} resolves outside the output folder"
            )));
        }
        Ok(abs)
    }

    /// `dir/name`, when it exists, must be a real folder (not a symlink): the texture
    /// export writes into `textures/` below a checked container folder, and a planted
    /// `textures` symlink sent the PNGs to its target.
    fn no_link_below(&self, dir: &Path, name: &str) -> std::io::Result<()> {
        match std::fs::symlink_metadata(dir.join(name)) {
            Ok(m) if !m.is_dir() => Err(std::io::Error::other(format!(
                "{}/{name} is a symlink or a file, not a folder; not written through",
                dir.strip_prefix(self.path).unwrap_or(dir).display()
            ))),
            _ => Ok(()),
        }
    }
}

fn write_container(
    d: &ContainerDecode,
    entry: &mut ContainerEntry,
    dir: &str,
    root: &OutRoot<'_>,
    cfg: &Config,
    opts: &ExportOptions,
    tex: &Textures<'_>,
) -> std::io::Result<()> {
    let out = root.path;
    let links = tex.links;
    let make_dir = || root.container_dir(dir).map(|_| ());
    let raw: Vec<(u32, &[u8])> = d.resources.iter().map(|r| (r.index, r.name.as_slice())).collect();
    let files = names::unique_names(&raw);
    let textures: Vec<String> = d.textures.iter().map(|t| t.name.clone()).collect();
    let gopts = GltfOptions {
        axis: cfg.output.axis,
        vertex_color: cfg.output.vertex_color,
        specular_gloss: cfg.output.specular_gloss,
    };
    let writer = ModelWriter {
        out,
        dir,
        format: cfg.output.format,
        gopts: &gopts,
        links,
    };
    let previews = opts.previews && cfg.output.previews;
    let ropts = raster::RenderOptions {
        size: cfg.output.preview_size,
        ..Default::default()
    };
    let mut made_dir = false;
    // One set of render buffers for this container's model previews; its albedos were
    // prepared once, for all of its previews.
    let mut scratch = raster::Scratch::default();
    let prepared = tex.prepared;
    let mut scene_parts: Vec<Vec<u8>> = Vec::new();
    for (r, file) in d.resources.iter().zip(&files) {
        let name = String::from_utf8_lossy(&r.name).into_owned();
        let mut e = ResourceEntry::rejected(r.index, name.clone(), None);
        match &r.result {
            Err(reason) => e.reason = Some(reason.clone()),
            Ok(dr) => {
                if !made_dir {
                    make_dir()?;
                    made_dir = true;
                }
                let m = &dr.mesh;
                e.status = Status::Decoded;
                e.layout = Some(dr.layout);
                e.offset = dr.placements.first().map(|p| p.index_offset as u64);
                e.stride = Some(dr.decl.stride as u32);
                e.declaration = Some(describe_declaration(&dr.decl));
                e.vertices = m.vertex_count() as u32;
                e.triangles = m.triangle_count() as u32;
                e.submeshes = m.primitives.len() as u32;
                e.bbox = m.bbox().map(|(a, b)| [a, b]);
                e.digest = Some(m.digest());
                e.skybox = dr.skybox;
                e.spiky = dr.spiky;
                e.winding = dr.measures.winding_sense().map(str::to_string);
                e.split = dr.split.map(|k| k.as_str().to_string());
                e.reason = dr.note.clone();
                let src = Source {
                    container: &entry.path,
                    directory_index: r.index,
                    name: &name,
                    textures: &textures,
                };
                let written = match writer.write(m, file, &src)? {
                    Ok(w) => w,
                    Err(err) => {
                        let why = Reason::new(Code::InvalidAttribute, err.to_string());
                        entry.resources.push(ResourceEntry::rejected(r.index, name, Some(why)));
                        continue;
                    }
                };
                e.gltf = Some(written.gltf);
                e.bin = written.bin;
                if !dr.skybox {
                    scene_parts.push(written.document);
                }
                if previews && entry.kind == Kind::Model {
                    let albedo = mesh_albedo(m, prepared);
                    let png = raster::encode_png(&raster::render_mesh_with(m, &ropts, &albedo, &mut scratch));
                    write_atomic(&out.join(dir).join(format!("{file}.png")), &png)?;
                    e.preview = Some(format!("{dir}/{file}.png"));
                }
            }
        }
        entry.resources.push(e);
    }
    if entry.kind == Kind::Stage && !scene_parts.is_empty() {
        entry.scene = write_stage_scene(&scene_parts, &files, dir, out, cfg.output.format, &entry.path)?;
    }
    if previews && entry.kind == Kind::Stage && !d.resources.is_empty() {
        let mut cells = textured_grid_cells(d.resources.iter(), prepared);
        let shown = preview::grid_capacity(cells.len(), cfg.output.stage_cell, cfg.output.stage_max_width);
        if shown < cells.len() {
            entry.preview_cells = Some(crate::manifest::GridCells {
                shown: shown as u32,
                total: u32::try_from(cells.len()).unwrap_or(u32::MAX),
            });
            cells.truncate(shown);
        }
        let img = preview::stage_grid(&cells, cfg.output.stage_cell, cfg.output.stage_max_width, &ropts);
        make_dir()?;
        write_atomic(&out.join(dir).join("preview.png"), &raster::encode_png(&img))?;
        entry.preview = Some(format!("{dir}/preview.png"));
    }
    Ok(())
}

/// A container's exported textures: the material links, and the `_col` albedos prepared
/// for its previews (empty without previews).
struct Textures<'a> {
    links: &'a crate::texture::export::TextureLinks,
    prepared: &'a PreviewTextures,
}

/// What [`ModelWriter::write`] wrote (paths relative to OUT) and the document it wrote (the
/// `.gltf` JSON or the `.glb` bytes), kept for the stage scene.
struct WrittenModel {
    gltf: String,
    bin: Option<String>,
    document: Vec<u8>,
}

/// Where and how one container's models are written.
struct ModelWriter<'a> {
    out: &'a Path,
    dir: &'a str,
    format: Format,
    gopts: &'a GltfOptions,
    links: &'a crate::texture::export::TextureLinks,
}

impl ModelWriter<'_> {
    /// Write one decoded resource as `.gltf` + `.bin` (materials with their textures) or as
    /// one `.glb`; the inner error is the writer refusing the mesh (it becomes a reject).
    fn write(
        &self,
        m: &Mesh,
        file: &str,
        src: &Source<'_>,
    ) -> std::io::Result<Result<WrittenModel, gltf_out::GltfError>> {
        let (out, dir) = (self.out, self.dir);
        match self.format {
            Format::Gltf => {
                let bin_name = format!("{file}.bin");
                let g = match gltf_out::try_build_textured(m, &bin_name, self.gopts, src, self.links) {
                    Ok(g) => g,
                    Err(e) => return Ok(Err(e)),
                };
                write_atomic(&out.join(dir).join(format!("{file}.gltf")), &g.gltf)?;
                write_atomic(&out.join(dir).join(&bin_name), &g.bin)?;
                Ok(Ok(WrittenModel {
                    gltf: format!("{dir}/{file}.gltf"),
                    bin: Some(format!("{dir}/{bin_name}")),
                    document: g.gltf,
                }))
            }
            Format::Glb => {
                // The linked PNGs were written into this folder before the models.
                let png = |uri: &str| std::fs::read(out.join(dir).join(uri)).ok();
                let glb = match gltf_out::try_build_glb_textured(m, self.gopts, src, self.links, &png) {
                    Ok(g) => g,
                    Err(e) => return Ok(Err(e)),
                };
                write_atomic(&out.join(dir).join(format!("{file}.glb")), &glb)?;
                Ok(Ok(WrittenModel {
                    gltf: format!("{dir}/{file}.glb"),
                    bin: None,
                    document: glb,
                }))
            }
        }
    }
}

/// The stage scene's file stem: the container's folder name, or `<dir>~scene` when a
/// resource file already uses that name (`~scene` never comes out of [`names`]).
pub fn scene_stem(dir: &str, files: &[String]) -> String {
    if files.iter().any(|f| f.eq_ignore_ascii_case(dir)) {
        format!("{dir}~scene")
    } else {
        dir.to_string()
    }
}

/// Write the stage scene (every non-skybox decoded sub-model, see [`crate::scene`]) into
/// the stage's folder; its path relative to OUT, or `None` when it cannot be built (the
/// per-resource files are still valid, so this is not a container error).
fn write_stage_scene(
    parts: &[Vec<u8>],
    files: &[String],
    dir: &str,
    out: &Path,
    format: Format,
    container: &str,
) -> std::io::Result<Option<String>> {
    let stem = scene_stem(dir, files);
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    let (built, ext) = match format {
        Format::Gltf => (scene::merge_gltf(&refs, dir, container), "gltf"),
        Format::Glb => (scene::merge_glb(&refs, dir, container), "glb"),
    };
    let Ok(bytes) = built else {
        return Ok(None);
    };
    write_atomic(&out.join(dir).join(format!("{stem}.{ext}")), &bytes)?;
    Ok(Some(format!("{dir}/{stem}.{ext}")))
}

/// Stage-grid cells in the given order: decoded meshes, a crossed cell per reject,
/// skybox planes skipped (they would dwarf every thumbnail's scale).
pub fn grid_cells<'a>(resources: impl Iterator<Item = &'a ResourceOutcome>) -> Vec<preview::Cell<'a>> {
    resources
        .filter_map(|r| match &r.result {
            Ok(dr) if dr.skybox => None,
            Ok(dr) => Some(preview::Cell::Mesh(&dr.mesh)),
            Err(_) => Some(preview::Cell::Rejected),
        })
        .collect()
}

/// The `_col` textures a preview of `d` can sample: those of the materials of decoded
/// meshes with a `TEXCOORD_0` for every vertex (the others render untextured, so
/// preparing their albedos, half the stage textures' pixels on the synthetic disc, would
/// be wasted).
fn sampled_albedos(d: &ContainerDecode) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
    for r in &d.resources {
        let Ok(dr) = &r.result else { continue };
        let m = &dr.mesh;
        if m.texcoords.first().is_none_or(|t| t.len() != m.positions.len()) {
            continue;
        }
        for p in &m.primitives {
            if let Some(material) = p.material.as_deref() {
                names.insert(crate::texture::export::albedo_name(material));
            }
        }
    }
    names
}

/// A container's albedos prepared for the previews (mip chains), by TX2D name.
pub type PreviewTextures = std::collections::BTreeMap<String, raster::Texture>;

/// Largest texture side a container's previews sample: about two texels per pixel of
/// the image a texture can cover (a stage's grid cell, a model's preview).
pub fn preview_texture_side(kind: Kind, cfg: &Config) -> u32 {
    let side = match kind {
        Kind::Stage => cfg.output.stage_cell,
        _ => cfg.output.preview_size,
    };
    side.saturating_mul(2).next_power_of_two()
}

/// Prepare every decoded albedo once (a stage grid samples one texture in many cells),
/// at most `max_side` texels a side (see [`preview_texture_side`]).
pub fn prepare_albedos(albedos: &Albedos, max_side: u32) -> PreviewTextures {
    albedos
        .iter()
        .filter_map(|(name, img)| {
            let t = raster::Texture::reduced(img.width, img.height, &img.rgba, max_side)?;
            Some((name.clone(), t))
        })
        .collect()
}

/// Per primitive of `m`, the albedo its material gets (`<base>_col`, as in the glTF).
pub fn mesh_albedo<'a>(m: &Mesh, textures: &'a PreviewTextures) -> Vec<Option<&'a raster::Texture>> {
    m.primitives
        .iter()
        .map(|p| albedo_for(p.material.as_deref()?, textures))
        .collect()
}

/// [`grid_cells`], each mesh textured with its albedos when it has any.
pub fn textured_grid_cells<'a>(
    resources: impl Iterator<Item = &'a ResourceOutcome>,
    textures: &'a PreviewTextures,
) -> Vec<preview::Cell<'a>> {
    grid_cells(resources)
        .into_iter()
        .map(|c| match c {
            preview::Cell::Mesh(m) => {
                let albedo = mesh_albedo(m, textures);
                if albedo.iter().any(Option::is_some) {
                    preview::Cell::Textured(m, albedo)
                } else {
                    preview::Cell::Mesh(m)
                }
            }
            other => other,
        })
        .collect()
}

/// Parse a container for `info` (re-export for the CLI).
pub fn parse_container(file: &[u8]) -> Result<Container<'_>, Reason> {
    container::parse(file).map_err(container_reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(name: &str) -> Found {
        Found {
            abs: PathBuf::from("/nonexistent").join(name),
            rel: format!("hidden/resource3d/{name}"),
            symlink: false,
            not_a_file: None,
            extent: None,
        }
    }

    #[test]
    fn a_panic_in_one_container_becomes_its_internal_error() {
        let f = found("Stage_S01.xpr");
        let e = guarded(&f, || panic!("index 7 out of range"));
        assert_eq!(e.path, f.rel);
        assert_eq!(e.kind, Kind::Stage);
        let r = e.error.expect("the panic is recorded");
        assert_eq!(r.code, Code::InternalError);
        assert!(r.detail.contains("index 7 out of range"), "{}", r.detail);
        assert!(e.resources.is_empty());
        // A formatted (String) payload keeps its text too.
        let e = guarded(&found("ship.xpr"), || panic!("{} of {}", 3, 4));
        assert!(e.error.unwrap().detail.contains("3 of 4"));
    }

    #[test]
    fn guarded_passes_a_normal_entry_through() {
        let f = found("ship.xpr");
        let mut want = blank_entry(&f);
        want.size = 42;
        let got = guarded(&f, || want.clone());
        assert_eq!(got, want);
    }

    #[test]
    fn a_panic_inside_a_parallel_batch_leaves_the_other_containers_alone() {
        let files: Vec<Found> = (0..8).map(|i| found(&format!("m{i}.xpr"))).collect();
        let entries: Vec<ContainerEntry> = files
            .par_iter()
            .map(|f| {
                guarded(f, || {
                    assert!(!f.rel.ends_with("m3.xpr"), "boom");
                    blank_entry(f)
                })
            })
            .collect();
        assert_eq!(entries.len(), 8);
        for (i, e) in entries.iter().enumerate() {
            assert_eq!(e.error.is_some(), i == 3, "{}", e.path);
        }
    }
}
