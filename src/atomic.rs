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
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] of what `write` writes (through a buffer), for outputs encoded
/// straight into the file instead of into memory first.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(TMP_SUFFIX);
    let tmp = PathBuf::from(tmp);
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let mut f = std::io::BufWriter::with_capacity(64 * 1024, f);
    let written = write(&mut f).and_then(|()| f.flush());
    drop(f);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_neither_the_file_nor_its_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.png");
        std::fs::write(&path, b"old").unwrap();
        let r = write_atomic_with(&path, |w| {
            w.write_all(&[7; 100_000])?;
            Err(std::io::Error::other("encoder failed"))
        });
        assert!(r.is_err());
        // The previous file stays as it was; no temporary is left behind.
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("t.png")]);
        // A write that succeeds replaces it with exactly what was written, through the
        // buffer (small and large pieces).
        write_atomic_with(&path, |w| {
            w.write_all(b"ab")?;
            w.write_all(&[9; 200_000])?;
            w.write_all(b"c")
        })
        .unwrap();
        let got = std::fs::read(&path).unwrap();
        assert_eq!((got.len(), &got[..2], got[200_002]), (200_003, &b"ab"[..], b'c'));
    }
}
