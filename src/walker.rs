//! Disc discovery: every `hidden/resource3d/*.xpr` below a disc root (or the
//! `resource3d` folder itself), case-insensitive extension, sorted, symlinks not followed.

use std::path::{Path, PathBuf};
use thiserror::Error;

/// A container found on the disc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub abs: PathBuf,
    /// Relative to the disc root, '/'-separated (e.g. `hidden/resource3d/X.xpr`).
    pub rel: String,
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
    file_name.len() >= 7 && file_name[..7].eq_ignore_ascii_case("stage_s")
}

/// All `.xpr` regular files directly in the resource folder, sorted by relative path.
/// Symlinks are skipped (never followed out of the disc tree).
pub fn discover(disc: &Path) -> Result<Vec<Found>, WalkError> {
    let (dir, prefix) = resource_dir(disc)?;
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(&dir)
        .min_depth(1)
        .max_depth(1)
        .follow_links(false)
    {
        let e = e.map_err(|err| WalkError::Unreadable(dir.display().to_string(), err.into()))?;
        if !e.file_type().is_file() {
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        let is_xpr = Path::new(&name)
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("xpr"));
        if is_xpr {
            out.push(Found {
                abs: e.path().to_path_buf(),
                rel: format!("{prefix}{name}"),
            });
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}
