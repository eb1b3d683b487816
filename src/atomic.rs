//! The one atomic file write every output goes through (temporary sibling, then rename):
//! a leaf module (std only), so whatever writes a file can use it without importing the
//! exporter.

use std::path::{Path, PathBuf};

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
