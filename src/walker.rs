//! Disc discovery: every `hidden/resource3d/*.xpr` below a disc root (or the
//! `resource3d` folder itself), case-insensitive extension, sorted, symlinks not followed.
//!
//! File names are data: a name that is not valid UTF-8 gets its invalid bytes written as
//! `\xNN` in [`Found::rel`] (so two different names never share a manifest path), and a
//! symlink named `*.xpr` is listed with `symlink: true` instead of being opened (the
//! pipeline reports it as a container error; its target may lie outside the disc).

use std::path::{Path, PathBuf};
use thiserror::Error;

/// A container found on the disc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub abs: PathBuf,
    /// Relative to the disc root, '/'-separated (e.g. `hidden/resource3d/X.xpr`).
    pub rel: String,
    /// A symbolic link: listed, never followed or read.
    pub symlink: bool,
}

#[derive(Debug, Error)]
pub enum WalkError {
    #[error("cannot read disc directory {0}: {1}")]
    Unreadable(String, std::io::Error),
    #[error("{0} has no hidden/resource3d folder (point --disc at the disc root or at resource3d)")]
    NoResource3d(String),
}

/// Where the resource folder is, and the prefix of relative paths.
pub fn resource_dir(disc: &Path) -> Result<(PathBuf, &'static str), WalkError> {
    let meta = std::fs::metadata(disc).map_err(|e| WalkError::Unreadable(disc.display().to_string(), e))?;
    if !meta.is_dir() {
        return Err(WalkError::Unreadable(
            disc.display().to_string(),
            std::io::Error::other("not a directory"),
        ));
    }
    let nested = disc.join("hidden").join("resource3d");
    if nested.is_dir() {
        return Ok((nested, "hidden/resource3d/"));
    }
    if disc.file_name().is_some_and(|n| n.eq_ignore_ascii_case("resource3d")) {
        return Ok((disc.to_path_buf(), "hidden/resource3d/"));
    }
    Err(WalkError::NoResource3d(disc.display().to_string()))
}

/// Whether the file name is a stage container (`Stage_S*.xpr`).
pub fn is_stage(file_name: &str) -> bool {
    // Bytes, not a `str` slice: byte 7 may fall inside a multi-byte character.
    file_name
        .as_bytes()
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"stage_s"))
}

/// A file name as manifest text: UTF-8 as is; every byte of an invalid sequence as
/// `\xNN` (lower-case hex), so distinct raw names stay distinct.
pub fn name_text(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    for chunk in raw.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// All `.xpr` regular files directly in the resource folder, sorted by relative path,
/// plus every `.xpr` symlink (flagged, never followed out of the disc tree).
pub fn discover(disc: &Path) -> Result<Vec<Found>, WalkError> {
    let (dir, prefix) = resource_dir(disc)?;
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(&dir)
        .min_depth(1)
        .max_depth(1)
        .follow_links(false)
    {
        let e = e.map_err(|err| WalkError::Unreadable(dir.display().to_string(), err.into()))?;
        let (file, symlink) = (e.file_type().is_file(), e.path_is_symlink());
        if !file && !symlink {
            continue;
        }
        let name = name_text(e.file_name().as_encoded_bytes());
        let is_xpr = Path::new(e.file_name())
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("xpr"));
        if is_xpr {
            out.push(Found {
                abs: e.path().to_path_buf(),
                rel: format!("{prefix}{name}"),
                symlink,
            });
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_stage_never_slices_inside_a_character() {
        // Regression: "Stage_é.xpr" has 'é' at bytes 6..8; slicing the str at 7 panicked.
        assert!(!is_stage("Stage_\u{e9}.xpr"));
        assert!(!is_stage("\u{e9}\u{e9}\u{e9}\u{e9}"));
        assert!(is_stage("STAGE_S01.xpr"));
        assert!(is_stage("stage_s"));
        assert!(!is_stage("stage_"));
        assert!(!is_stage(""));
    }

    #[test]
    fn name_text_escapes_invalid_bytes_only() {
        assert_eq!(name_text(b"rou_f001.xpr"), "rou_f001.xpr");
        assert_eq!(name_text("caf\u{e9}.xpr".as_bytes()), "caf\u{e9}.xpr");
        assert_eq!(name_text(b"a\xff\xfe.xpr"), "a\\xff\\xfe.xpr");
        assert_eq!(name_text(b"\xc3.xpr"), "\\xc3.xpr");
        assert_ne!(name_text(b"\xff.xpr"), name_text(b"\xfe.xpr"));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_listed_not_followed_and_odd_names_survive() {
        use std::os::unix::ffi::OsStrExt;
        let tmp = tempfile::tempdir().unwrap();
        let res = tmp.path().join("hidden").join("resource3d");
        std::fs::create_dir_all(&res).unwrap();
        let outside = tmp.path().join("outside.xpr");
        std::fs::write(&outside, b"XPR2").unwrap();
        std::os::unix::fs::symlink(&outside, res.join("link.xpr")).unwrap();
        std::os::unix::fs::symlink("/nonexistent/dangling", res.join("dangling.XPR")).unwrap();
        std::fs::write(res.join(std::ffi::OsStr::from_bytes(b"\xff.xpr")), b"").unwrap();
        std::fs::write(res.join("Stage_\u{e9}.xpr"), b"").unwrap();
        std::fs::write(res.join("notes.txt"), b"").unwrap();
        std::fs::create_dir(res.join("dir.xpr")).unwrap();
        let found = discover(tmp.path()).unwrap();
        let got: Vec<(&str, bool)> = found.iter().map(|f| (f.rel.as_str(), f.symlink)).collect();
        assert_eq!(
            got,
            [
                ("hidden/resource3d/Stage_\u{e9}.xpr", false),
                ("hidden/resource3d/\\xff.xpr", false),
                ("hidden/resource3d/dangling.XPR", true),
                ("hidden/resource3d/link.xpr", true),
            ]
        );
    }
}
