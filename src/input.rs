//! Reading a whole file the tool did not write in this run — one the user named
//! (`--config`, `info FILE`, `render FILE`, `verify --truth`, a manifest given to `diff`)
//! or one of the tool's own files in `--out` — with no input costing more than its size:
//! only a regular file is read (a FIFO would block the open or the read, `/dev/zero`
//! never ends), and at most a stated number of bytes.
//!
//! [`read_bounded`] follows symlinks (a user may name a link to their file);
//! [`read_own`] does not (the tool's own files are never links: a planted one is an
//! error, not a way to make the tool read elsewhere). On Unix both open with
//! `O_NONBLOCK` (so opening a FIFO cannot block) and [`read_own`] with `O_NOFOLLOW`;
//! everywhere the opened file's own metadata is checked again before a byte is read.

use std::io::Read;
use std::path::Path;
use thiserror::Error;

/// Largest `pipeline.toml` read (the shipped one is 4 KB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Largest container read whole (`info`, `render`, `verify`): the most an XPR2 header
/// can describe (a 12-byte frame, then a header and a data section of `u32` sizes).
pub const MAX_CONTAINER_BYTES: u64 = 12 + 2 * u32::MAX as u64;
/// Largest ground truth read (`verify`; the full-scale disc's is ≈ 20 MB).
pub const MAX_TRUTH_BYTES: u64 = 1 << 30;

/// Why a file was not read. The texts carry their cause (no `source` chain), so a caller
/// printing the chain says it once.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(std::io::Error),
    /// A folder, FIFO, device or socket: never read.
    #[error("not a regular file ({0})")]
    NotRegular(&'static str),
    /// A symlink where [`read_own`] reads: never followed.
    #[error("a symlink (not followed)")]
    Symlink,
    #[error("{len} bytes, more than {what} can be ({max} bytes)")]
    TooLarge { len: u64, max: u64, what: &'static str },
    #[error("it grew past {max} bytes while it was read")]
    Grew { max: u64 },
}

impl ReadError {
    /// The file does not exist (a caller for which that is the normal case tells it apart).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// What a file that is not a regular file is, in words.
pub fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_symlink() {
        "a symlink"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The bytes of the regular file at `path` (symlinks followed), at most `max` of them;
/// `what` names the file in a size error ("a configuration").
pub fn read_bounded(path: &Path, max: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    read(path, max, what, true)
}

/// The bytes of the tool's own file at `path`, never through a symlink, at most `max`.
pub fn read_own(path: &Path, max: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    read(path, max, what, false)
}

/// At most the first `len` bytes of the file at `path`, read as [`read_own`] reads (no
/// symlink, only a regular file): enough to tell what a file is without reading it all.
pub fn read_own_prefix(path: &Path, len: u64) -> Result<Vec<u8>, ReadError> {
    let (file, _) = open_checked(path, false)?;
    let mut bytes = Vec::new();
    file.take(len).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    Ok(bytes)
}

fn read(path: &Path, max: u64, what: &'static str, follow: bool) -> Result<Vec<u8>, ReadError> {
    let (file, m) = open_checked(path, follow)?;
    if m.len() > max {
        return Err(ReadError::TooLarge {
            len: m.len(),
            max,
            what,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(m.len()).unwrap_or(0));
    file.take(max + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::Grew { max });
    }
    Ok(bytes)
}

/// The file at `path` opened for reading when it is a regular file (checked before the
/// open and on the opened file), with its metadata.
fn open_checked(path: &Path, follow: bool) -> Result<(std::fs::File, std::fs::Metadata), ReadError> {
    // Checked before opening, for the message (and, where no flag can keep the open
    // from blocking or following, for safety) …
    let before = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .map_err(ReadError::Io)?;
    if !follow && before.file_type().is_symlink() {
        return Err(ReadError::Symlink);
    }
    if !before.is_file() {
        return Err(ReadError::NotRegular(kind_of(&before.file_type())));
    }
    let file = open(path, follow)?;
    // … and again on what was opened: the path may have been replaced in between.
    let m = file.metadata().map_err(ReadError::Io)?;
    if !m.is_file() {
        return Err(ReadError::NotRegular(kind_of(&m.file_type())));
    }
    Ok((file, m))
}

fn open(path: &Path, follow: bool) -> Result<std::fs::File, ReadError> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
        o.custom_flags(libc::O_NONBLOCK | nofollow);
    }
    // (Elsewhere the checks of `open_checked` before and after the open stand alone.)
    #[cfg(not(unix))]
    let _ = follow;
    o.open(path).map_err(|e| {
        // O_NOFOLLOW on a symlink: ELOOP.
        #[cfg(unix)]
        if !follow && e.raw_os_error() == Some(libc::ELOOP) {
            return ReadError::Symlink;
        }
        ReadError::Io(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_within_its_bound() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("f");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read_bounded(&p, 5, "x").unwrap(), b"12345");
        assert_eq!(read_own(&p, 5, "x").unwrap(), b"12345");
        let e = read_bounded(&p, 4, "a test file").unwrap_err();
        assert_eq!(e.to_string(), "5 bytes, more than a test file can be (4 bytes)");
        assert!(read_bounded(&tmp.path().join("missing"), 5, "x")
            .unwrap_err()
            .is_not_found());
        let e = read_bounded(tmp.path(), 5, "x").unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a directory)");
    }

    #[cfg(unix)]
    #[test]
    fn devices_fifos_and_own_symlinks_are_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let e = read_bounded(Path::new("/dev/zero"), 1 << 30, "x").unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a device)");
        let fifo = tmp.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(
            read_bounded(&fifo, 10, "x").unwrap_err().to_string(),
            "not a regular file (a FIFO)"
        );
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_bounded(&link, 10, "x").unwrap(), b"x");
        assert!(matches!(read_own(&link, 10, "x"), Err(ReadError::Symlink)));
        let zero = tmp.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(read_own(&zero, 10, "x"), Err(ReadError::Symlink)));
        assert!(matches!(
            read_bounded(&zero, 10, "x"),
            Err(ReadError::NotRegular("a device"))
        ));
    }
}
