//! File-system safety of a run: the tool's folder inside `--out` and its files, the
//! `--out` lock, the journal of written outputs (each journalled before it is renamed into
//! place, [`Outputs`]: a killed run's restartable cleanup),
//! the removal of stale outputs (never outside `--out`, never through a symlink), and
//! reading an input container (into an owned buffer, from the file or in place from a
//! disc image).

use super::error::ExportError;
use super::layout::{LOCK_FILE, MANIFEST, TOOL_DIR};
use crate::atomic::{write_atomic, TMP_SUFFIX};
use crate::manifest::{Code, Reason};
use crate::manifest::{Manifest, MAX_MANIFEST_BYTES};
use crate::walker::DiscFile;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Write one of the tool's files at `out/<rel>` atomically, its temporary inside
/// [`TOOL_DIR`] (a container folder can never take the temporary's name).
pub fn write_tool_file(out: &Path, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp_name = format!("{}.tmp", rel.replace('/', "_"));
    let tmp = out.join(TOOL_DIR).join(tmp_name);
    write_atomic(&tmp, bytes)?;
    std::fs::rename(&tmp, out.join(rel))
}

/// `out/.xbg7`, created when missing; it must be a real folder (not a symlink). Two runs
/// started together may both find it missing: the one whose `mkdir` loses the race looks
/// again (and then meets the other's lock), rather than failing on "File exists".
pub(super) fn tool_dir(out: &Path) -> std::io::Result<PathBuf> {
    let dir = out.join(TOOL_DIR);
    let check = |m: std::fs::Metadata| {
        if m.is_dir() {
            Ok(dir.clone())
        } else {
            Err(std::io::Error::other(format!(
                "{} is not a folder (the tool keeps its own files there); remove it",
                dir.display()
            )))
        }
    };
    match std::fs::symlink_metadata(&dir) {
        Ok(m) => check(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::create_dir(&dir) {
            Ok(()) => Ok(dir.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => check(std::fs::symlink_metadata(&dir)?),
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// Whether `out` (an existing folder) is an earlier export of this tool: it holds the
/// tool's folder ([`TOOL_DIR`]), or a `manifest.json` this tool wrote (its first bytes
/// name the manifest schema; versions before `.xbg7/` left only that).
pub(super) fn is_export(out: &Path) -> bool {
    if std::fs::symlink_metadata(out.join(TOOL_DIR)).is_ok_and(|m| m.is_dir()) {
        return true;
    }
    let head = crate::input::read_own_prefix(&out.join(MANIFEST), 4096).unwrap_or_default();
    let schema = format!("\"schema\": \"{}", crate::manifest::SCHEMA);
    String::from_utf8_lossy(&head).contains(&schema)
}

/// Take the exclusive lock on `out` (kept until the returned file is dropped).
pub(super) fn lock_out(out: &Path) -> Result<std::fs::File, ExportError> {
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
/// `XBG7_EXPORT_ABORT_AT` names it (`after-manifest`, `after-first-container`,
/// `after-an-output`: once `XBG7_EXPORT_ABORT_AFTER` outputs, default 1, are in place).
pub(super) fn abort_point(name: &str) {
    if std::env::var_os("XBG7_EXPORT_ABORT_AT").is_some_and(|v| v == name) {
        static SEEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let after: usize = std::env::var("XBG7_EXPORT_ABORT_AFTER")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        if SEEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 >= after {
            std::process::abort();
        }
    }
}

/// `path` made absolute and free of symlinks even when its last components do not exist
/// yet: the longest existing ancestor is canonicalized and the rest appended (`..` pops).
pub(super) fn resolve_lexically(path: &Path) -> std::io::Result<PathBuf> {
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
pub(super) fn inside(root: &Path, path: &Path) -> bool {
    resolve_lexically(path).is_ok_and(|p| p.starts_with(root))
}

/// The bytes of the tool's own file `out/<rel>` (`None` when there is none): never
/// through a symlink, only a regular file, at most [`MAX_MANIFEST_BYTES`] — a FIFO or a
/// link to `/dev/zero` planted there is an error naming it, not a hang or a huge read.
pub(super) fn read_own_file(out: &Path, rel: &str) -> Result<Option<Vec<u8>>, ExportError> {
    let path = out.join(rel);
    match crate::input::read_own(&path, MAX_MANIFEST_BYTES, "the tool's own file") {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(error) => Err(ExportError::OwnFile {
            path: path.display().to_string(),
            error,
        }),
    }
}

/// The non-empty lines of a text file's bytes.
pub(super) fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// The append-only list of outputs written so far ([`JOURNAL`](super::layout::JOURNAL)).
pub(super) struct Journal(Option<std::fs::File>);

impl Journal {
    pub(super) fn open(path: &Path) -> std::io::Result<Journal> {
        if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(std::io::Error::other(format!("{} is not a file", path.display())));
        }
        let mut open = std::fs::OpenOptions::new();
        open.create(true).append(true);
        #[cfg(unix)]
        {
            // Not through a link, and not blocked by a FIFO put there since the check.
            use std::os::unix::fs::OpenOptionsExt;
            open.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        }
        let f = open.open(path)?;
        if !f.metadata()?.is_file() {
            return Err(std::io::Error::other(format!("{} is not a file", path.display())));
        }
        Ok(Journal(Some(f)))
    }

    /// Append one output's path (relative to `--out`), best effort: the journal only
    /// widens the cleanup. One `write` per line, so a kill leaves whole lines.
    pub(super) fn note(&mut self, rel: &str) {
        use std::io::Write;
        if let Some(f) = &mut self.0 {
            // No fsync: the journal guards against a killed process, not a power cut.
            if f.write_all(format!("{rel}\n").as_bytes()).is_err() {
                self.0 = None;
            }
        }
    }
}

/// Where every output of a run is written through: its path is journalled ([`JOURNAL`](super::layout::JOURNAL))
/// before its temporary is created and renamed into place, so a run killed at any moment
/// leaves no file under `--out` (nor a temporary) that the next complete run neither
/// lists nor removes. Without a journal (a library caller writing textures alone) it is
/// the plain atomic write.
pub struct Outputs<'a> {
    root: &'a Path,
    journal: Option<&'a std::sync::Mutex<Journal>>,
}

impl<'a> Outputs<'a> {
    pub(super) fn journalled(root: &'a Path, journal: &'a std::sync::Mutex<Journal>) -> Outputs<'a> {
        Outputs {
            root,
            journal: Some(journal),
        }
    }

    /// Atomic writes, not journalled.
    pub fn plain(root: &'a Path) -> Outputs<'a> {
        Outputs { root, journal: None }
    }

    /// The folder the outputs go to (`--out`).
    pub fn root(&self) -> &'a Path {
        self.root
    }

    /// Record `path` (inside the root) in the journal.
    pub(super) fn note(&self, path: &Path) {
        let (Some(j), Ok(rel)) = (self.journal, path.strip_prefix(self.root)) else {
            return;
        };
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if let Ok(mut j) = j.lock() {
            j.note(&rel.join("/"));
        }
    }

    /// [`write_atomic`] of `bytes` to `path`, journalled first.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        self.write_with(path, |w| w.write_all(bytes))
    }

    /// [`crate::atomic::write_atomic_with`], journalled first.
    pub fn write_with(
        &self,
        path: &Path,
        write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.note(path);
        crate::atomic::write_atomic_with(path, write)?;
        abort_point("after-an-output");
        Ok(())
    }
}

/// Remove outputs the previous run listed and this run no longer produces (only those,
/// only plain relative paths, and only files whose folder resolves inside `out_c`: a
/// doctored manifest or a symlinked folder cannot make it delete anything elsewhere).
pub fn remove_stale(out: &Path, out_c: &Path, prev: &Manifest, now: &Manifest) {
    let keep: BTreeSet<&str> = now.outputs().into_iter().collect();
    let stale: Vec<&str> = prev.outputs().into_iter().filter(|rel| !keep.contains(rel)).collect();
    let kept = if stale.is_empty() {
        KeptFiles::default()
    } else {
        KeptFiles::of(out, keep.iter().copied())
    };
    for rel in prev.outputs() {
        if keep.contains(rel) {
            remove_output(out, out_c, rel, false);
        } else {
            remove_stale_output(out, out_c, rel, &kept);
        }
    }
}

/// A file's identity: device and inode on Unix; elsewhere its canonical path (which
/// resolves a case-folded spelling to the file's own name, as `GetFinalPathNameByHandle`
/// does on Windows).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct FileId(#[cfg(unix)] (u64, u64), #[cfg(not(unix))] PathBuf);

/// The identity of the file at `path` (the last component not followed), if it exists.
fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path).ok().map(|m| FileId((m.dev(), m.ino())))
    }
    #[cfg(not(unix))]
    {
        std::fs::canonicalize(path).ok().map(FileId)
    }
}

/// The files a run wrote or lists, by identity: on a case-insensitive `--out` (macOS,
/// Windows, exFAT, a case-folding mount) an old output spelled `Stage_S01/…` *is* the new
/// `STAGE_S01/…`, which a comparison of the strings cannot see.
#[derive(Debug, Default)]
pub(super) struct KeptFiles(std::collections::HashSet<FileId>);

impl KeptFiles {
    /// The identities of `out/<rel>` for every `rel` (those that exist).
    pub(super) fn of<'a>(out: &Path, rels: impl Iterator<Item = &'a str>) -> KeptFiles {
        KeptFiles(rels.filter_map(|rel| file_id(&out.join(rel))).collect())
    }
}

/// [`remove_output`] of a stale output: its temporary, and the file itself unless it is
/// (by identity) one of the files this run keeps.
pub(super) fn remove_stale_output(out: &Path, out_c: &Path, rel: &str, kept: &KeptFiles) {
    let same = file_id(&out.join(rel)).is_some_and(|id| kept.0.contains(&id));
    remove_output(out, out_c, rel, !same);
}

/// Remove a killed run's temporary sibling of the output `rel` and, with `file`, the
/// output itself — when `rel` is a plain relative path whose folder resolves inside
/// `out_c` (never the tool's own folder).
pub(super) fn remove_output(out: &Path, out_c: &Path, rel: &str, file: bool) {
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

/// The bytes of a found container, read (positioned reads into an owned buffer, never
/// mapped: a file that gets shorter while the run reads it is an error of that container,
/// not a SIGBUS of the run) from the file or from its extent of the disc image, into
/// `buf` (its length becomes the container's). The size is the opened file's (or the
/// extent's), so a file deleted or made unreadable after it was found is an `io` error
/// with the OS's words, never an empty file.
pub(super) fn read_file(f: &DiscFile, buf: &mut Vec<u8>) -> Result<(), Reason> {
    let cannot = |e: std::io::Error| Reason::new(Code::IO, format!("cannot read: {e}"));
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        // A file replaced by a FIFO since it was found must not block the run.
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NONBLOCK);
    }
    let file = open.open(&f.abs).map_err(cannot)?;
    let (offset, len) = match f.extent {
        Some(extent) => extent,
        None => {
            let m = file.metadata().map_err(cannot)?;
            if !m.is_file() {
                return Err(Reason::new(Code::IO, "not a regular file any more: not read"));
            }
            (0, m.len())
        }
    };
    // The allocation is bounded by the file: `len` is its size, or an extent the image
    // listing found inside the image. Every byte of `buf` is overwritten by the read, so
    // a reused buffer is not zeroed again.
    let len_usize = usize::try_from(len).map_err(|e| cannot(std::io::Error::other(e)))?;
    if buf.len() < len_usize {
        buf.resize(len_usize, 0);
    }
    buf.truncate(len_usize);
    crate::image::read_exact_at(&file, buf, offset).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Reason::new(
            Code::IO,
            format!("the file got shorter while it was read (it had {len} bytes)"),
        ),
        _ => cannot(e),
    })
}

thread_local! {
    /// Each worker thread's read buffer, reused from container to container.
    static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// This thread's read buffer (empty when a container this thread is already working on
/// holds it: rayon may run another container inside one's parallel work).
pub(super) fn take_buffer() -> Vec<u8> {
    BUFFER.with(|b| b.take())
}

/// Hand the buffer back for the thread's next container (the larger one is kept).
pub(super) fn give_back_buffer(buf: Vec<u8>) {
    BUFFER.with(|b| {
        let held = b.take();
        b.set(if held.capacity() >= buf.capacity() { held } else { buf });
    });
}
