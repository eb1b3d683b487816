//! The batch export: every container of a disc decoded (by `xbg7`, in parallel with
//! rayon, largest first, each under `catch_unwind`) and its outputs written, then the
//! manifest last; the progress bar and `--verbose` explanations.
//!
//! `write` writes one container's outputs, `textures` its PNGs, `previews` prepares
//! what its previews sample, `fs` keeps the run safe on disk (lock, journal, stale
//! removal inside `--out`). Every file is written atomically ([`crate::atomic`]).

mod fs;
mod previews;
pub mod textures;
mod write;

pub use crate::atomic::{write_atomic, TMP_SUFFIX};
pub use fs::Outputs;
use fs::{
    abort_point, give_back_buffer, lock_out, read_file, read_lines, remove_output, resolve_lexically, take_buffer,
    tool_dir, Journal,
};
pub use fs::{remove_stale, write_tool_file};
use previews::sampled_albedos;
pub use previews::{
    grid_cells, grid_members, in_grid, mesh_albedo, prepare_albedos, preview_texture_side, textured_grid_cells,
    PreviewTextures,
};
use write::export_container;
pub use write::{grid_file, scene_stem};
pub use xbg7::described::describe_declaration;

use crate::config::{Config, Format};
use crate::manifest::{directory, ContainerEntry, Kind, Layout, Manifest, ResourceEntry, Status};
use crate::manifest::{Code, Reason, TextureCode};
use crate::names;
use crate::walker::{self, Found};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use thiserror::Error;
use xbg7::container::TAG_TX2D;
use xbg7::mesh::Mesh;
use xbg7::texture::maps::albedo_for;
use xbg7::texture::resource::Albedos;
use xbg7::{ContainerDecode, ResourceOutcome, Xpr};
use xbg7_gltf::gltf_out::{self, GltfOptions, Source};
use xbg7_gltf::scene;
use xbg7_preview::{preview, raster};

/// A container's meshes ([`Xpr::meshes`]) under a run's configuration (its `[gates]` and
/// `[stage]`), or why the container does not parse.
pub fn decode_container(file: &[u8], kind: Kind, cfg: &Config) -> Result<ContainerDecode, xbg7::Reason> {
    Ok(Xpr::parse(file)?.meshes(kind, &cfg.decoding()))
}

/// The kind of the container at a manifest path (`hidden/resource3d/Stage_S01.xpr`).
pub fn kind_of(path: &str) -> Kind {
    Kind::from_file_name(Path::new(path))
}

/// `--only`: the containers any of its globs matches (case-insensitively), by file name,
/// output folder name or manifest path, so whatever the user sees of a container (in the
/// disc, in `out/`, in the manifest) selects it.
#[derive(Clone, Debug)]
pub struct Only {
    set: globset::GlobSet,
    globs: Vec<String>,
}

impl Only {
    pub fn new<S: AsRef<str>>(globs: &[S]) -> Result<Only, globset::Error> {
        let mut set = globset::GlobSetBuilder::new();
        for g in globs {
            set.add(globset::GlobBuilder::new(g.as_ref()).case_insensitive(true).build()?);
        }
        Ok(Only {
            set: set.build()?,
            globs: globs.iter().map(|g| g.as_ref().to_string()).collect(),
        })
    }

    /// Does any glob match any of a container's names (file name, folder, path)?
    pub fn matches(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.set.is_match(n))
    }

    /// The globs as the user gave them, for messages.
    pub fn describe(&self) -> String {
        self.globs.join(" ")
    }
}

#[derive(Clone, Debug)]
pub struct ExportOptions {
    pub jobs: Option<usize>,
    /// Only the containers it selects (`--only`).
    pub only: Option<Only>,
    pub previews: bool,
    pub progress: bool,
    /// Print one line per container: what was decided (see [`explain`]).
    pub verbose: bool,
}

impl ExportOptions {
    /// Every container, `jobs` worker threads (`None`: one per core), no progress bar, no
    /// per-container lines: what a script or a test runs.
    pub fn quiet(jobs: Option<usize>, previews: bool) -> ExportOptions {
        ExportOptions {
            jobs,
            only: None,
            previews,
            progress: false,
            verbose: false,
        }
    }
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
    #[error("--out {0} is {1}, not a folder; choose a folder (it is created when missing)")]
    OutNotFolder(String, &'static str),
    #[error("cannot build the thread pool: {0}")]
    Pool(String),
    #[error("--jobs {0} is more than {MAX_JOBS} worker threads (--jobs 0 or no --jobs: one per core)")]
    Jobs(usize),
    #[error("another xbg7-export is writing into {0} (it holds {0}/{LOCK_FILE}); wait for it or choose another --out")]
    Locked(String),
    #[error("--only {0} matches no container of the disc (nothing exported, {1} left as it was)")]
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
/// Every output this run has written or begun to write, one per line, each appended before
/// its temporary is renamed into place (a killed run's outputs are found here by the next
/// run).
pub const JOURNAL: &str = ".xbg7/written.txt";
/// Where versions before the `.xbg7` folder kept the previous manifest (still read).
pub const LEGACY_PREVIOUS_MANIFEST: &str = "manifest.json.xbg7-prev";
/// Names at the top of `--out` that belong to the tool's outputs: a container whose
/// folder would be one of them gets `~<index>` (the report is another tool output).
pub const RESERVED_NAMES: &[&str] = &[MANIFEST, "index.html", TOOL_DIR];

/// How a container's error begins when its outputs could not be written (a texture's
/// reject: [`WRITING_PNG`]): [`unwritten`] finds them by it.
pub const WRITING_OUTPUTS: &str = "writing outputs";
/// How a texture's `io` reject begins when its PNG could not be written.
pub const WRITING_PNG: &str = "writing the PNG";

/// Whether some output of this container could not be written (a full or read-only disk,
/// a folder planted where a file goes): the run then ends with its own exit status.
pub fn unwritten(e: &ContainerEntry) -> bool {
    let container = e
        .error
        .as_ref()
        .is_some_and(|r| r.code == Code::IO && r.detail.starts_with(WRITING_OUTPUTS));
    let texture = e.textures.iter().any(|t| {
        t.reason
            .as_ref()
            .is_some_and(|r| r.code == TextureCode::IO && r.detail.starts_with(WRITING_PNG))
    });
    container || texture
}

/// What a completed run did: the manifest it wrote, and the containers of this run (not
/// those a `--only` run kept) some of whose outputs could not be written.
#[derive(Debug)]
pub struct Exported {
    pub manifest: Manifest,
    pub unwritten: Vec<String>,
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

/// Export a whole disc into `out`; returns the manifest (also written as
/// `out/manifest.json`, last).
///
/// The run holds an exclusive lock on `out` ([`LOCK_FILE`]). With `opts.only`, only the
/// matching containers are exported: the previous manifest's entries of the others are
/// kept (with their files), and a filter matching nothing is an error. Removing the
/// previous run's stale outputs is restartable: the list is written
/// ([`PENDING_REMOVALS`]) before the manifest, and every output is journalled
/// ([`JOURNAL`]) before it is renamed into place, so a run killed anywhere leaves nothing that the next
/// complete run does not either list or remove.
pub fn export(disc: &Path, out: &Path, cfg: &Config, opts: &ExportOptions) -> Result<Manifest, ExportError> {
    export_run(disc, out, cfg, opts).map(|r| r.manifest)
}

/// [`export`], telling also which containers' outputs could not be written.
pub fn export_run(disc: &Path, out: &Path, cfg: &Config, opts: &ExportOptions) -> Result<Exported, ExportError> {
    if let Some(n) = opts.jobs.filter(|&n| n > MAX_JOBS) {
        return Err(ExportError::Jobs(n));
    }
    let found = walker::discover(disc)?;
    let disc_c = disc
        .canonicalize()
        .map_err(|e| walker::WalkError::Unreadable(disc.display().to_string(), e))?;
    // Refuse before creating anything: `--out` must not land inside the disc tree.
    let out_err = |e| ExportError::Out(out.display().to_string(), e);
    if let Ok(m) = std::fs::metadata(out) {
        if !m.is_dir() {
            let what = if m.is_file() { "a file" } else { "not a folder" };
            return Err(ExportError::OutNotFolder(out.display().to_string(), what));
        }
    }
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
    let selected = |names: &[&str]| opts.only.as_ref().is_none_or(|o| o.matches(names));
    let (found, dirs): (Vec<Found>, Vec<String>) = found
        .into_iter()
        .zip(all_dirs)
        .filter(|(f, d)| selected(&[f.file_name(), d, &f.rel]))
        .unzip();
    if let (Some(o), true) = (&opts.only, found.is_empty()) {
        return Err(ExportError::NothingMatched(o.describe(), out.display().to_string()));
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
            .and_then(|b| crate::manifest::parse(&b).ok())
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
    let outputs = Outputs::journalled(out, &journal);

    // Largest containers first, one task each: a 70 MB stage started last would leave
    // one thread working alone at the end. Entries go back to directory order.
    let sizes: Vec<u64> = found.iter().map(found_size).collect();
    // Progress counts bytes (a stage is 100× a model's work), with elapsed time and ETA.
    let bar = if opts.progress {
        indicatif::ProgressBar::new(sizes.iter().sum::<u64>().max(1))
    } else {
        indicatif::ProgressBar::hidden()
    };
    // The ETA is shown once a quarter of the bytes is done: before that it extrapolates
    // from the first, atypical containers and overshoots several times.
    let style = |eta: &str| {
        indicatif::ProgressStyle::with_template(&format!(
            "{{bar:40}} {{binary_bytes}}/{{binary_total_bytes}} {{elapsed}} elapsed{eta} {{msg}}"
        ))
        .expect("static template")
    };
    bar.set_style(style(""));
    let eta_shown = std::sync::atomic::AtomicBool::new(false);
    // A running tally for the bar: files done, resources decoded and rejected.
    let tally: [std::sync::atomic::AtomicUsize; 3] = Default::default();
    let total_files = found.len();
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let run = || -> Vec<ContainerEntry> {
        let mut done: Vec<(usize, ContainerEntry)> = order
            .par_iter()
            .with_max_len(1)
            .map(|&i| {
                let (f, dir) = (&found[i], &dirs[i]);
                let e = guarded(f, || export_container(f, dir, &outputs, &out_c, cfg, opts));
                abort_point("after-first-container");
                use std::sync::atomic::Ordering::Relaxed;
                let decoded = e.resources.iter().filter(|r| r.status == Status::Decoded).count();
                tally[0].fetch_add(1, Relaxed);
                tally[1].fetch_add(decoded, Relaxed);
                tally[2].fetch_add(e.resources.len() - decoded, Relaxed);
                bar.inc(sizes[i].max(1));
                if bar.position() * 4 >= bar.length().unwrap_or(0) && !eta_shown.swap(true, Relaxed) {
                    bar.set_style(style(", ETA {eta}"));
                }
                bar.set_message(format!(
                    "{}/{total_files} files, {} decoded, {} rejected",
                    tally[0].load(Relaxed),
                    tally[1].load(Relaxed),
                    tally[2].load(Relaxed)
                ));
                (i, e)
            })
            .collect();
        done.sort_by_key(|(i, _)| *i);
        done.into_iter().map(|(_, e)| e).collect()
    };
    // Each worker's read buffer goes when the batch is done (the threads outlive it).
    let run_and_free = || {
        let done = run();
        rayon::broadcast(|_| drop(take_buffer()));
        done
    };
    let mut entries = match opts.jobs.filter(|&n| n > 0) {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| ExportError::Pool(e.to_string()))?
            .install(run_and_free),
        None => run_and_free(),
    };
    bar.finish_and_clear();
    // `--verbose`: one line per container, in disc order.
    if opts.verbose {
        for e in &entries {
            eprintln!("{}", explain(e));
        }
    }
    let unwritten: Vec<String> = entries
        .iter()
        .filter(|e| unwritten(e))
        .map(|e| e.path.clone())
        .collect();
    // A partial run keeps what it did not touch: the previous entries of every
    // container the filter does not select.
    if opts.only.is_some() {
        if let Some(prev) = &previous {
            let now: BTreeSet<&str> = found.iter().map(|f| f.rel.as_str()).collect();
            let kept: Vec<ContainerEntry> = prev
                .containers
                .iter()
                .filter(|c| !now.contains(c.path.as_str()))
                .filter(|c| {
                    // Its folder: the first part of any output path it lists.
                    let folder = c
                        .resources
                        .iter()
                        .find_map(|r| r.gltf.as_deref())
                        .and_then(|g| g.split('/').next())
                        .unwrap_or_default();
                    !selected(&[c.path.rsplit('/').next().unwrap_or(&c.path), folder, &c.path])
                })
                .cloned()
                .collect();
            entries.extend(kept);
        }
    }
    let mut manifest = Manifest::new(entries);
    // The HTML report (listed in the manifest, so re-runs treat it like any output),
    // written before the manifest so the manifest stays the last file of a run.
    if cfg.output.report {
        outputs.note(&out.join(crate::report::FILE));
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
    Ok(Exported { manifest, unwritten })
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
        .map(Layout::as_str)
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

/// A found container's size in bytes, as far as it is known before reading it: for
/// scheduling and progress only (0 for a symlink, a non-file or a file that cannot be
/// stat'ed; the manifest's `size` is what was read, and a read error is reported as one).
pub fn found_size(f: &Found) -> u64 {
    match (f.extent, f.symlink || f.not_a_file.is_some()) {
        (_, true) => 0,
        (Some((_, len)), false) => f.cut_off.unwrap_or(len),
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
            Code::INTERNAL_ERROR,
            format!("the exporter panicked on this container ({msg}); please report it with the file"),
        ));
        entry
    })
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
            cut_off: None,
        }
    }

    #[test]
    fn a_panic_in_one_container_becomes_its_internal_error() {
        let f = found("Stage_S01.xpr");
        let e = guarded(&f, || panic!("index 7 out of range"));
        assert_eq!(e.path, f.rel);
        assert_eq!(e.kind, Kind::Stage);
        let r = e.error.expect("the panic is recorded");
        assert_eq!(r.code, Code::INTERNAL_ERROR);
        assert!(r.detail.contains("index 7 out of range"), "{}", r.detail);
        assert!(e.resources.is_empty());
        // A formatted (String) payload keeps its text too.
        let e = guarded(&found("ship.xpr"), || panic!("{} of {}", 3, 4));
        assert!(e.error.unwrap().detail.contains("3 of 4"));
    }

    /// A file deleted after it was found (or in a folder that can be listed but not
    /// entered) is an `io` error with the OS's words, not a `truncated` file of 0 bytes.
    #[test]
    fn a_file_gone_after_discovery_is_an_io_error_with_the_os_words() {
        let tmp = tempfile::tempdir().unwrap();
        let disc = tmp.path().join("Model.xpr");
        std::fs::write(&disc, b"XPR2").unwrap();
        let f = walker::discover(&disc).unwrap().remove(0);
        std::fs::remove_file(&disc).unwrap();
        let out = tmp.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let cfg = Config::default();
        let outputs = Outputs::plain(&out);
        let e = export_container(&f, "Model", &outputs, &out, &cfg, &ExportOptions::quiet(Some(1), false));
        assert!(!unwritten(&e));
        let r = e.error.expect("an error");
        assert_eq!(r.code, Code::IO, "{r}");
        assert!(r.detail.contains("No such file or directory"), "{r}");
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
