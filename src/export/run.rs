//! One export run from start to end: checks and lock, the containers selected, the
//! previous run's manifest and leftovers, every container exported in parallel (largest
//! first, with the progress bar), the HTML report, the manifest written last, stale
//! outputs removed.

use super::entry::{explain, found_size, guarded, unwritten};
use super::error::{ExportError, MAX_JOBS};
use super::fs::{
    abort_point, is_export, lines, lock_out, read_own_file, remove_output, remove_stale_output, resolve_lexically,
    take_buffer, tool_dir, write_tool_file, Journal, KeptFiles, Outputs,
};
use super::layout::{JOURNAL, LEGACY_PREVIOUS_MANIFEST, MANIFEST, PENDING_REMOVALS, PREVIOUS_MANIFEST, RESERVED_NAMES};
use super::options::ExportOptions;
use super::write::export_container;
use crate::atomic::write_atomic;
use crate::config::Config;
use crate::manifest::{ContainerEntry, Kind, Manifest, Status};
use crate::names;
use crate::note;
use crate::report;
use crate::walker::{self, DiscFile};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use xbg7::{ContainerDecode, Xpr};

/// A container's meshes ([`Xpr::meshes`]) under a run's configuration (its `[gates]` and
/// `[stage]`), or why the container does not parse.
pub fn decode_container(file: &[u8], kind: Kind, cfg: &Config) -> Result<ContainerDecode, xbg7::Reason> {
    Ok(Xpr::parse(file)?.meshes(kind, &cfg.decoding()))
}

/// What a completed run did: the manifest it wrote, the containers of this run (not
/// those a `--only` run kept), and those of them some of whose outputs could not be
/// written.
#[derive(Debug)]
pub struct Exported {
    pub manifest: Manifest,
    /// Manifest paths of the containers this run exported (all of them without `--only`).
    pub exported: Vec<String>,
    pub unwritten: Vec<String>,
}

/// Folder name of every found container (same order): sanitised stems made unique, a
/// file spelled exactly `.xpr` named before its case-only variants (`X.xpr` keeps `X`,
/// `X.XPR` gets `X~<i>`; `X..xpr`, a stem with a trailing dot, too), and the tool's top-level names ([`RESERVED_NAMES`]) never
/// taken. Computed over the whole disc, so a `--only` run uses the full run's names.
pub fn container_dirs(found: &[DiscFile]) -> Vec<String> {
    let stems: Vec<&[u8]> = found
        .iter()
        .map(|f| {
            let name = f.file_name();
            name.rsplit_once('.').map_or(name, |(s, _)| s).as_bytes()
        })
        .collect();
    let mut order: Vec<usize> = (0..found.len()).collect();
    // (And `bar.xpr` keeps `bar` before `bar..xpr`, whose trailing dot is dropped.)
    order.sort_by_key(|&i| (!found[i].rel.ends_with(".xpr"), stems[i].ends_with(b"."), i));
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
/// The run holds an exclusive lock on `out` ([`super::layout::LOCK_FILE`]). With `opts.only`, only the
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
    let Prepared {
        found,
        out_c,
        lock: _lock,
    } = prepare(disc, out, opts)?;
    let out_err = |e| ExportError::Out(out.display().to_string(), e);
    let selected = |names: &[&str]| opts.only.as_ref().is_none_or(|o| o.matches(names));
    let (found, dirs) = select(found, out, opts, &selected)?;
    let previous = Previous::take(out, opts.only.is_some())?;
    let journal = std::sync::Mutex::new(Journal::open(&out.join(JOURNAL)).map_err(out_err)?);
    let outputs = Outputs::journalled(out, &journal);
    let mut entries = export_all(&found, &dirs, &outputs, &out_c, cfg, opts)?;
    // `--verbose`: one line per container, in disc order.
    if opts.verbose {
        for e in &entries {
            note!("{}", explain(e));
        }
    }
    let unwritten: Vec<String> = entries
        .iter()
        .filter(|e| unwritten(e))
        .map(|e| e.path.clone())
        .collect();
    let exported: Vec<String> = entries.iter().map(|e| e.path.clone()).collect();
    // A partial run keeps what it did not touch: the previous entries of every
    // container the filter does not select.
    if opts.only.is_some() {
        if let Some(prev) = &previous.manifest {
            // Never an entry whose files a killed run may have rewritten since it was
            // written: such a container is dropped, its files removed as stale (a full
            // export, or `--only` of it, exports it again).
            let described = |c: &ContainerEntry| !c.outputs().iter().any(|o| previous.undescribed.contains(*o));
            entries.extend(kept_entries(prev, &found, &selected).into_iter().filter(described));
        }
    }
    let mut manifest = Manifest::new(entries);
    // The HTML report (listed in the manifest, so re-runs treat it like any output),
    // written before the manifest so the manifest stays the last file of a run.
    if cfg.output.report {
        outputs.note(&out.join(report::FILE));
        write_report(out, &mut manifest).map_err(out_err)?;
    }
    finish(out, &out_c, &manifest, previous, journal).map_err(out_err)?;
    Ok(Exported {
        manifest,
        exported,
        unwritten,
    })
}

/// What [`prepare`] leaves for the run: the containers found, the canonical `--out`, and
/// the lock on it (held until dropped, at the end of the run).
struct Prepared {
    found: Vec<DiscFile>,
    out_c: PathBuf,
    lock: std::fs::File,
}

/// The checks before anything is written, then `--out` made ready: `--jobs` within
/// bounds, the disc's containers found, `--out` a folder outside the disc, created, its
/// tool folder made, locked, and writable.
fn prepare(disc: &Path, out: &Path, opts: &ExportOptions) -> Result<Prepared, ExportError> {
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
    refuse_foreign_files(out, &found)?;
    std::fs::create_dir_all(out).map_err(out_err)?;
    let out_c = out.canonicalize().map_err(out_err)?;
    let tool = tool_dir(out).map_err(out_err)?;
    let lock = lock_out(out)?;
    // An unwritable `--out` stops the run now, not after every container failed.
    write_atomic(&tool.join("probe"), b"")
        .and_then(|()| std::fs::remove_file(tool.join("probe")))
        .map_err(out_err)?;
    Ok(Prepared { found, out_c, lock })
}

/// A folder that holds files and is not an earlier export ([`is_export`]) is refused
/// before anything is written in it: its files are the user's (`--out .`, a website
/// with its own `index.html`). The message names a few of those the run would replace —
/// the names it writes at the top of `--out` — or, when none would, a few it holds.
fn refuse_foreign_files(out: &Path, found: &[DiscFile]) -> Result<(), ExportError> {
    let mut held: Vec<String> = match std::fs::read_dir(out) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => return Ok(()),
    };
    if held.is_empty() || is_export(out) {
        return Ok(());
    }
    held.sort();
    let written: BTreeSet<String> = RESERVED_NAMES
        .iter()
        .map(|n| n.to_string())
        .chain(container_dirs(found))
        .map(|n| n.to_ascii_lowercase())
        .collect();
    let replaced: Vec<&String> = held
        .iter()
        .filter(|n| written.contains(&n.to_ascii_lowercase()))
        .collect();
    let (what, names) = match replaced.is_empty() {
        false => ("replace", replaced),
        true => ("mix its files with", held.iter().collect()),
    };
    const SHOWN: usize = 3;
    let mut list: Vec<String> = names.iter().take(SHOWN).map(|n| crate::text::clean(n)).collect();
    if names.len() > SHOWN {
        list.push(format!("and {} more", names.len() - SHOWN));
    }
    Err(ExportError::NotAnExport {
        out: out.display().to_string(),
        what,
        names: list.join(", "),
    })
}

/// The containers `--only` selects, with their folder names (computed over the whole
/// disc); a filter selecting none is an error.
fn select(
    found: Vec<DiscFile>,
    out: &Path,
    opts: &ExportOptions,
    selected: &impl Fn(&[&str]) -> bool,
) -> Result<(Vec<DiscFile>, Vec<String>), ExportError> {
    let all_dirs = container_dirs(&found);
    let picked: Vec<bool> = found
        .iter()
        .zip(&all_dirs)
        .map(|(f, d)| selected(&[f.file_name(), d, &f.rel]))
        .collect();
    if let (Some(o), false) = (&opts.only, picked.contains(&true)) {
        let nearest = o.nearest(&all_dirs);
        return Err(ExportError::NothingMatched(
            o.describe(),
            out.display().to_string(),
            nearest,
        ));
    }
    let (found, dirs): (Vec<DiscFile>, Vec<String>) = found
        .into_iter()
        .zip(all_dirs)
        .zip(picked)
        .filter_map(|(fd, p)| p.then_some(fd))
        .unzip();
    Ok((found, dirs))
}

/// What the previous runs left: their manifest (moved aside for this run) and what
/// killed runs wrote or meant to remove.
struct Previous {
    manifest: Option<Manifest>,
    /// Candidates for removal at the end.
    leftovers: BTreeSet<String>,
    /// What a run killed before writing its manifest wrote (its journal) when `manifest`
    /// is the one that run had moved aside: files that manifest may no longer describe.
    undescribed: BTreeSet<String>,
}

impl Previous {
    /// The previous manifest is moved aside for the duration of the run, so a run killed
    /// half-way leaves no manifest that references a file this run has begun to replace
    /// (e.g. a new `.gltf` next to the old `.bin`). A run after a killed one finds it there.
    /// Every file is read ([`read_own_file`]: no symlink, no FIFO, bounded) before
    /// anything is moved, so a bad one stops the run with `--out` as it was. A full run
    /// passes over a manifest that does not parse (it rewrites every entry); a `--only`
    /// run (`only`) keeps entries from it, so there it is an error.
    fn take(out: &Path, only: bool) -> Result<Previous, ExportError> {
        let journal = read_own_file(out, JOURNAL)?;
        let pending = read_own_file(out, PENDING_REMOVALS)?;
        // The first of the manifest's places that holds a file: where it is, where a
        // killed run left it, where versions before `.xbg7/` kept it.
        let mut manifest = None;
        let mut moved_aside = false;
        for rel in [MANIFEST, PREVIOUS_MANIFEST, LEGACY_PREVIOUS_MANIFEST] {
            let Some(bytes) = read_own_file(out, rel)? else {
                continue;
            };
            match crate::manifest::parse(&bytes) {
                Ok(m) => {
                    if rel == MANIFEST {
                        std::fs::rename(out.join(MANIFEST), out.join(PREVIOUS_MANIFEST))
                            .map_err(|e| ExportError::Out(out.display().to_string(), e))?;
                    }
                    moved_aside = rel != MANIFEST;
                    manifest = Some(m);
                    break;
                }
                Err(error) if only => {
                    return Err(ExportError::PreviousUnreadable {
                        path: out.join(rel).display().to_string(),
                        error,
                    })
                }
                Err(_) => {}
            }
        }
        // What killed runs wrote or meant to remove: candidates for removal at the end.
        let mut leftovers: BTreeSet<String> = journal.as_deref().map(lines).into_iter().flatten().collect();
        // A manifest found in place was written after every output its run journalled
        // (the manifest is a run's last write): it describes them. One found moved aside
        // is older than whatever the journal names.
        let undescribed = if moved_aside {
            leftovers.clone()
        } else {
            BTreeSet::new()
        };
        if let Some(list) = pending.and_then(|b| serde_json::from_slice::<Vec<String>>(&b).ok()) {
            leftovers.extend(list);
        }
        Ok(Previous {
            manifest,
            leftovers,
            undescribed,
        })
    }
}

/// The progress bar of a run: bytes done (a stage is 100× a model's work), elapsed time,
/// the time left once a quarter of the bytes is done ([`crate::eta`]), and a tally of
/// files, decoded and rejected resources.
struct Progress {
    bar: indicatif::ProgressBar,
    /// The time-left estimate, fed by [`Progress::done`] and read when the bar is drawn.
    eta: std::sync::Arc<std::sync::Mutex<crate::eta::Eta>>,
    /// Files done, resources decoded and rejected.
    tally: [std::sync::atomic::AtomicUsize; 3],
    total_files: usize,
}

impl Progress {
    fn new(show: bool, total_bytes: u64, total_files: usize) -> Progress {
        let bar = if show {
            indicatif::ProgressBar::new(total_bytes.max(1))
        } else {
            indicatif::ProgressBar::hidden()
        };
        let eta = std::sync::Arc::new(std::sync::Mutex::new(crate::eta::Eta::new(crate::eta::EXPORT)));
        bar.set_style(Self::style(eta.clone()));
        Progress {
            bar,
            eta,
            tally: Default::default(),
            total_files,
        }
    }

    /// The bar, then `, about N s left` ([`crate::eta`]: the rate by bytes since a tenth
    /// was done, shown from a quarter), not indicatif's `{eta}`, which follows the recent
    /// rate and said "ETA 2s" at 5 s of a 9.4 s run.
    fn style(eta: std::sync::Arc<std::sync::Mutex<crate::eta::Eta>>) -> indicatif::ProgressStyle {
        indicatif::ProgressStyle::with_template(
            "{bar:40} {binary_bytes}/{binary_total_bytes} {elapsed} elapsed{left} {msg}",
        )
        .expect("static template")
        .with_key(
            "left",
            move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let left = eta
                    .lock()
                    .ok()
                    .and_then(|mut e| e.update(s.pos(), s.len().unwrap_or(0), s.elapsed()));
                if let Some(left) = left {
                    let _ = write!(w, ", {}", crate::eta::words(left));
                }
            },
        )
    }

    /// One container done: `bytes` of the total, its entry tallied.
    fn done(&self, e: &ContainerEntry, bytes: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        let (bar, tally) = (&self.bar, &self.tally);
        let decoded = e.resources.iter().filter(|r| r.status == Status::Decoded).count();
        tally[0].fetch_add(1, Relaxed);
        tally[1].fetch_add(decoded, Relaxed);
        tally[2].fetch_add(e.resources.len() - decoded, Relaxed);
        bar.inc(bytes);
        if let Ok(mut eta) = self.eta.lock() {
            // The anchor is taken when a container completes, not at the next draw.
            eta.update(bar.position(), bar.length().unwrap_or(0), bar.elapsed());
        }
        bar.set_message(format!(
            "{}/{} files, {} decoded, {} rejected",
            tally[0].load(Relaxed),
            self.total_files,
            tally[1].load(Relaxed),
            tally[2].load(Relaxed)
        ));
    }
}

/// Export every selected container, in parallel on `opts.jobs` threads (or the global
/// pool), largest first; the entries in directory order.
fn export_all(
    found: &[DiscFile],
    dirs: &[String],
    outputs: &Outputs<'_>,
    out_c: &Path,
    cfg: &Config,
    opts: &ExportOptions,
) -> Result<Vec<ContainerEntry>, ExportError> {
    // Largest containers first, one task each: a 70 MB stage started last would leave
    // one thread working alone at the end. Entries go back to directory order.
    let sizes: Vec<u64> = found.iter().map(found_size).collect();
    // Progress counts bytes (a stage is 100× a model's work), with elapsed time and ETA.
    let progress = Progress::new(opts.progress, sizes.iter().sum::<u64>(), found.len());
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let run = || -> Vec<ContainerEntry> {
        let mut done: Vec<(usize, ContainerEntry)> = order
            .par_iter()
            .with_max_len(1)
            .map(|&i| {
                let (f, dir) = (&found[i], &dirs[i]);
                let e = guarded(f, || export_container(f, dir, outputs, out_c, cfg, opts));
                abort_point("after-first-container");
                progress.done(&e, sizes[i].max(1));
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
    let entries = match opts.jobs.filter(|&n| n > 0) {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| ExportError::Pool(e.to_string()))?
            .install(run_and_free),
        None => run_and_free(),
    };
    progress.bar.finish_and_clear();
    Ok(entries)
}

/// The previous entries a `--only` run keeps: those of containers it neither exported
/// nor selects.
fn kept_entries(prev: &Manifest, found: &[DiscFile], selected: &impl Fn(&[&str]) -> bool) -> Vec<ContainerEntry> {
    let now: BTreeSet<&str> = found.iter().map(|f| f.rel.as_str()).collect();
    prev.containers
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
        .collect()
}

/// Write `out/index.html` for `m` (atomically) and record it in the manifest's
/// `report`, so the manifest lists it among its outputs (a later `--no-report` run
/// removes it as stale).
fn write_report(out: &Path, m: &mut Manifest) -> std::io::Result<()> {
    m.report = Some(report::FILE.to_string());
    // Its temporary lives in the tool's folder, like the manifest's.
    write_tool_file(out, report::FILE, report::render(m).as_bytes())
}

/// The end of a run: the stale list written ([`PENDING_REMOVALS`]), then the manifest,
/// then the stale outputs and a killed run's temporaries removed, and the tool's run
/// files (journal, pending removals, previous manifest) deleted.
fn finish(
    out: &Path,
    out_c: &Path,
    manifest: &Manifest,
    previous: Previous,
    journal: std::sync::Mutex<Journal>,
) -> std::io::Result<()> {
    let legacy_prev = out.join(LEGACY_PREVIOUS_MANIFEST);
    let keep: BTreeSet<&str> = manifest.outputs().into_iter().collect();
    let mut stale = previous.leftovers;
    if let Some(prev) = &previous.manifest {
        stale.extend(prev.outputs().into_iter().map(str::to_string));
    }
    stale.retain(|p| !keep.contains(p.as_str()));
    let stale: Vec<String> = stale.into_iter().collect();
    let pending = serde_json::to_vec(&stale).expect("a list of strings serialises");
    write_tool_file(out, PENDING_REMOVALS, &pending)?;
    write_tool_file(out, MANIFEST, &manifest.to_bytes())?;
    abort_point("after-manifest");
    // Never a file this run wrote or lists, whatever its old spelling (identity, not
    // the strings: a case-insensitive `--out`).
    let kept = if stale.is_empty() {
        KeptFiles::default()
    } else {
        KeptFiles::of(out, keep.iter().copied())
    };
    for rel in &stale {
        remove_stale_output(out, out_c, rel, &kept);
    }
    if let Some(prev) = &previous.manifest {
        // A killed run's temporaries of outputs this run kept.
        for rel in prev.outputs() {
            remove_output(out, out_c, rel, false);
        }
    }
    drop(journal);
    for done in [PENDING_REMOVALS, JOURNAL, PREVIOUS_MANIFEST] {
        let _ = std::fs::remove_file(out.join(done));
    }
    if std::fs::symlink_metadata(&legacy_prev).is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(&legacy_prev);
    }
    Ok(())
}
