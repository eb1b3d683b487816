//! Why a run could not be done at all ([`ExportError`]), and the `--jobs` bound it checks.

use super::layout::LOCK_FILE;
use crate::walker;
use thiserror::Error;

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
    /// `--out` holds files and is not an export of this tool (no `.xbg7/` folder, no
    /// manifest.json it wrote): nothing a user owns is replaced or mixed with outputs.
    #[error(
        "--out {out} is not empty and not an earlier export (no .xbg7/ folder, no manifest.json \
         of xbg7-export): the export would {what} {names}; choose an empty or new folder"
    )]
    NotAnExport {
        out: String,
        /// "replace" (names the run writes) or "mix its files with".
        what: &'static str,
        /// A few of the names, "and N more" when there are more.
        names: String,
    },
    #[error("cannot build the thread pool: {0}")]
    Pool(String),
    #[error("--jobs {0} is more than {MAX_JOBS} worker threads (--jobs 0 or no --jobs: one per core)")]
    Jobs(usize),
    #[error("another xbg7-export is writing into {0} (it holds {0}/{LOCK_FILE}); wait for it or choose another --out")]
    Locked(String),
    #[error(
        "--only {0} matches no container of the disc (nothing exported, {1} left as it was){hint}",
        hint = nearest_hint(.2)
    )]
    NothingMatched(String, String, Vec<String>),
    /// One of the tool's own files in `--out` (the previous manifest, the journal, the
    /// pending removals) is not a regular file or too large: nothing was changed.
    #[error("{path}: {error}; the tool keeps its own records there: remove it and run again")]
    OwnFile {
        path: String,
        error: crate::input::ReadError,
    },
    /// `--only` keeps the other containers' entries from the previous manifest: without
    /// it, their files would be left listed by no manifest.
    #[error(
        "the previous manifest {path} cannot be read ({error}), and --only keeps the other \
         containers' entries from it: run a full export (without --only)"
    )]
    PreviousUnreadable {
        path: String,
        error: crate::manifest::ManifestError,
    },
}

/// "; nearest: 'a', 'b'" after a filter that matched nothing (the disc's folder names
/// nearest to it, each a glob that would match), or nothing when none is near.
fn nearest_hint(nearest: &[String]) -> String {
    if nearest.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = nearest.iter().map(|n| format!("'{n}'")).collect();
    format!("; nearest: {}", quoted.join(", "))
}
