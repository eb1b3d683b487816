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
use crate::layout::{sequential, split_by_records, Decoded, Placement};
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

struct Parsed<'a> {
    index: u32,
    name: &'a [u8],
    desc: Result<(Descriptor, AttributeMap), Reason>,
}

fn parse_resource<'a>(r: &container::Resource<'a>) -> Parsed<'a> {
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
            .and_then(|d| {
                let map = AttributeMap::of(&d.decl);
                check_declaration(&d.decl, &map)?;
                Ok((d, map))
            }),
    };
    Parsed {
        index: r.index,
        name: r.name,
        desc,
    }
}

/// The records to use for a model resource: the documented records, or the marker's
/// totals as one record when the scan found none.
fn model_records(d: &Descriptor) -> Vec<SubmeshRecord> {
    if d.records.is_empty() {
        vec![SubmeshRecord {
            offset: 0,
            vtx_count: d.vertex_count,
            idx_count: d.index_count,
            tail: 0,
        }]
    } else {
        d.records.clone()
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
        .map(parse_resource)
        .collect();
    let mut scanner = anchored::Scanner::new(data);

    // Plan: the documented layout places one model's blocks from the data start on.
    let mut units: Vec<Unit> = Vec::new();
    let mut plans: Vec<Option<Plan>> = Vec::with_capacity(parsed.len());
    let mut claimed = Vec::new();
    let mut start_taken = false;
    let mut records_of: Vec<Vec<SubmeshRecord>> = Vec::with_capacity(parsed.len());
    for p in &parsed {
        let Ok((d, map)) = &p.desc else {
            plans.push(None);
            records_of.push(Vec::new());
            continue;
        };
        let records = if kind == Kind::Model {
            model_records(d)
        } else {
            d.records.clone()
        };
        let mut plan = None;
        if kind == Kind::Model && !start_taken {
            if let Ok(first) = sequential::decode_first(data, &records[0], &d.decl, map, &cfg.gates) {
                start_taken = true;
                let blocks = sequence(&mut scanner, first, &records, d, map, &cfg.gates);
                if let Ok(bs) = &blocks {
                    claimed.extend(bs.iter().map(|b| b.placement.range(d.decl.stride)));
                }
                plan = Some(Plan::Sequential { blocks });
            }
        }
        let plan = plan.unwrap_or_else(|| {
            units.push(Unit {
                decl: &d.decl,
                map,
                vertex_count: d.vertex_count,
                index_count: d.index_count,
            });
            Plan::Whole { unit: units.len() - 1 }
        });
        plans.push(Some(plan));
        records_of.push(records);
    }

    let mut placed: Vec<Option<Result<Decoded, Reason>>> = anchored::anchor(&mut scanner, &units, &claimed, &cfg.gates)
        .into_iter()
        .map(Some)
        .collect();

    let mut out = ContainerDecode::default();
    for ((p, plan), records) in parsed.iter().zip(plans).zip(records_of) {
        let result = match (plan, &p.desc) {
            (None, Err(r)) => Err(r.clone()),
            (Some(plan), Ok((d, _))) => assemble(plan, &records, d, &mut placed, cfg),
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
        if let (Ok(dr), Ok((d, _))) = (&mut o.result, &p.desc) {
            name_materials(&mut dr.mesh, &d.strings, &materials);
        }
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
    records: &[SubmeshRecord],
    d: &Descriptor,
    placed: &mut [Option<Result<Decoded, Reason>>],
    cfg: &Config,
) -> Result<DecodedResource, Reason> {
    let (mesh, layout, placements, measures) = match plan {
        Plan::Sequential { blocks } => {
            let mut blocks = blocks?.into_iter();
            let first = blocks.next().expect("a sequence starts with its first block");
            let mut mesh = first.mesh;
            let mut placements = vec![first.placement];
            for b in blocks {
                placements.push(b.placement);
                append(&mut mesh, b.mesh);
            }
            (mesh, Layout::Sequential, placements, first.measures)
        }
        Plan::Whole { unit } => {
            let b = take(placed, unit)?;
            let mut mesh = b.mesh;
            let counts: Vec<u32> = records.iter().map(|r| r.idx_count).collect();
            split_by_records(&mut mesh, &counts);
            (mesh, Layout::Anchored, vec![b.placement], b.measures)
        }
    };
    // A mesh assembled from several blocks must pass the gates as a whole too; a single
    // block (only split into primitives) keeps the measures it passed with.
    let all = if placements.len() > 1 {
        let all = gates::measure(&mesh);
        gates::verdict(&all, &cfg.gates)?;
        all
    } else {
        measures
    };
    let extent = mesh
        .bbox()
        .map(|(lo, hi)| (0..3).map(|k| (hi[k] - lo[k]) as f64).fold(0.0, f64::max))
        .unwrap_or(0.0);
    Ok(DecodedResource {
        skybox: extent > cfg.stage.skybox_extent,
        spiky: gates::spiky(&all, &cfg.gates),
        mesh,
        layout,
        placements,
        decl: d.decl.clone(),
        measures: all,
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
}

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
}

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

/// Name the previous manifest is moved to while a run is in progress.
pub const PREVIOUS_MANIFEST: &str = "manifest.json.xbg7-prev";

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
pub fn export(disc: &Path, out: &Path, cfg: &Config, opts: &ExportOptions) -> Result<Manifest, ExportError> {
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
    // An unwritable `--out` stops the run now, not after every container failed.
    write_atomic(&out.join(".xbg7-probe"), b"")
        .and_then(|()| std::fs::remove_file(out.join(".xbg7-probe")))
        .map_err(out_err)?;
    let found: Vec<Found> = found
        .into_iter()
        .filter(|f| {
            opts.only
                .as_ref()
                .is_none_or(|g| g.is_match(f.rel.rsplit('/').next().unwrap_or(&f.rel)))
        })
        .collect();
    let stems: Vec<Vec<u8>> = found
        .iter()
        .map(|f| {
            let name = f.rel.rsplit('/').next().unwrap_or("");
            name.rsplit_once('.').map_or(name, |(s, _)| s).as_bytes().to_vec()
        })
        .collect();
    let stem_refs: Vec<(u32, &[u8])> = stems
        .iter()
        .enumerate()
        .map(|(i, s)| (i as u32, s.as_slice()))
        .collect();
    let dirs = names::unique_names(&stem_refs);

    // The previous manifest is moved aside for the duration of the run, so a run killed
    // half-way leaves no manifest that references a file this run has begun to replace
    // (e.g. a new `.gltf` next to the old `.bin`). A run after a killed one finds it there.
    let (manifest_path, prev_path) = (out.join("manifest.json"), out.join(PREVIOUS_MANIFEST));
    let read_manifest = |p: &Path| {
        std::fs::read(p)
            .ok()
            .and_then(|b| serde_json::from_slice::<Manifest>(&b).ok())
    };
    let previous = match read_manifest(&manifest_path) {
        Some(m) => {
            std::fs::rename(&manifest_path, &prev_path).map_err(out_err)?;
            Some(m)
        }
        None => read_manifest(&prev_path),
    };

    let bar = if opts.progress {
        indicatif::ProgressBar::new(found.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").expect("static template"));
    // Largest containers first, one task each: a 70 MB stage started last would leave
    // one thread working alone at the end. Entries go back to directory order.
    let sizes: Vec<u64> = found
        .iter()
        .map(|f| match f.symlink {
            true => 0,
            false => std::fs::symlink_metadata(&f.abs).map_or(0, |m| m.len()),
        })
        .collect();
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let run = || -> Vec<ContainerEntry> {
        let mut done: Vec<(usize, ContainerEntry)> = order
            .par_iter()
            .with_max_len(1)
            .map(|&i| {
                let (f, dir) = (&found[i], &dirs[i]);
                bar.set_message(f.rel.rsplit('/').next().unwrap_or("").to_string());
                let e = guarded(f, || export_container(f, dir, out, &out_c, cfg, opts));
                bar.inc(1);
                (i, e)
            })
            .collect();
        done.sort_by_key(|(i, _)| *i);
        done.into_iter().map(|(_, e)| e).collect()
    };
    let entries = match opts.jobs {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map_err(|e| ExportError::Pool(e.to_string()))?
            .install(run),
        None => run(),
    };
    bar.finish_and_clear();
    let mut manifest = Manifest::new(entries);
    // The HTML report (listed in the manifest, so re-runs treat it like any output),
    // written before the manifest so the manifest stays the last file of a run.
    if cfg.output.report {
        crate::report::write(out, &mut manifest).map_err(out_err)?;
    }
    write_atomic(&manifest_path, &manifest.to_bytes()).map_err(out_err)?;
    if let Some(prev) = previous {
        remove_stale(out, &out_c, &prev, &manifest);
    }
    let _ = std::fs::remove_file(&prev_path);
    Ok(manifest)
}

/// Remove outputs the previous run listed and this run no longer produces (only those,
/// only plain relative paths, and only files whose folder resolves inside `out_c`: a
/// doctored manifest or a symlinked folder cannot make it delete anything elsewhere).
pub fn remove_stale(out: &Path, out_c: &Path, prev: &Manifest, now: &Manifest) {
    let keep: BTreeSet<&str> = now.outputs().into_iter().collect();
    for rel in prev.outputs() {
        let safe = !rel.is_empty()
            && rel
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains(['\\', ':', '\0']));
        let path = out.join(rel);
        if safe && path.parent().is_some_and(|d| inside(out_c, d)) {
            // A killed run's temporary sibling of an output we own goes too.
            let mut tmp = path.clone().into_os_string();
            tmp.push(TMP_SUFFIX);
            let _ = std::fs::remove_file(tmp);
            if !keep.contains(rel) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

fn read_file(path: &Path) -> std::io::Result<memmap2::Mmap> {
    let f = std::fs::File::open(path)?;
    // SAFETY: the disc is read-only input; a concurrent truncation by another process is
    // outside what this tool defends against (as for any reader of the file).
    unsafe { memmap2::Mmap::map(&f) }
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
        entry.size = std::fs::symlink_metadata(&f.abs).map(|m| m.len()).unwrap_or(0);
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
    entry.size = std::fs::symlink_metadata(&f.abs).map(|m| m.len()).unwrap_or(0);
    let map;
    let bytes: &[u8] = if entry.size == 0 {
        &[]
    } else {
        match read_file(&f.abs) {
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
        match root.container_dir(dir) {
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
        std::fs::create_dir_all(&abs)?;
        if !abs.canonicalize()?.starts_with(self.canonical) {
            return Err(std::io::Error::other(format!(
                "{dir} resolves outside the output folder"
            )));
        }
        Ok(abs)
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
        let cells = textured_grid_cells(d.resources.iter(), prepared);
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
                let glb = match gltf_out::try_build_glb(m, self.gopts, src) {
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
