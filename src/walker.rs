//! Disc discovery: every `.xpr` of the game's resource folder, whichever form `--disc`
//! takes, sorted, symlinks not followed.
//!
//! The game's path table spells the folder `game:\hidden\Resource3D\`; dumps spell it as
//! the tool that made them did (`hidden/Resource3D`, `HIDDEN/resource3d`, …), so every
//! level is matched ASCII case-insensitively. `--disc` may be:
//!
//! - a disc root: the folder `hidden` (any case) holding `resource3d` (any case);
//! - the `resource3d` folder itself (any case);
//! - any folder with `.xpr` files directly in it;
//! - one `.xpr` file;
//! - an Xbox disc image (XISO, or XGD1/2/3 with the partition at its offset; see
//!   [`crate::image`]): its `hidden/resource3d` is read in place, nothing extracted.
//!
//! Whatever the form, a container's manifest path is its place on the disc,
//! `hidden/resource3d/<file name>` (the game loads every `.xpr` from that one folder), so
//! manifests made from a dump, a copied folder or one file compare and diff cleanly.
//!
//! File names are data: a name that is not valid UTF-8 gets its invalid bytes written as
//! `\xNN` in [`DiscFile::rel`] and a backslash as `\\` (so two different names never share a
//! manifest path); an image that lists one name twice gives its later copies `\~2`, `\~3`,
//! … before the extension (`X\~2.xpr`: no escaped name reads so). A
//! symlink named `*.xpr` is listed with `symlink: true` instead of being opened (the
//! pipeline reports it as a container error; its target may lie outside the disc). An
//! entry named `*.xpr` (or `.xpr`) that is neither a file nor a symlink (a folder, a FIFO,
//! a socket, a device) is listed with [`DiscFile::not_a_file`] and never opened (opening a
//! FIFO would block the run).

use std::path::{Path, PathBuf};
use thiserror::Error;
pub use xbg7::vocab::{is_stage, name_text};

/// Manifest path prefix of every container: the game's resource folder.
pub const PREFIX: &str = "hidden/resource3d/";

/// A container file found on the disc (listed, not yet read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiscFile {
    pub abs: PathBuf,
    /// Relative to the disc root, '/'-separated (e.g. `hidden/resource3d/X.xpr`).
    pub rel: String,
    /// A symbolic link: listed, never followed or read.
    pub symlink: bool,
    /// Neither a regular file nor a symlink: what it is (`"a directory"`, `"a FIFO"`, …);
    /// listed as a container error, never opened.
    pub not_a_file: Option<&'static str>,
    /// Inside the disc image `abs`: (byte offset, length) of the file's bytes.
    pub extent: Option<(u64, u64)>,
    /// Inside a disc image that ends before this file does (an image cut off): how many
    /// of its bytes the image holds. Listed `truncated`, never read.
    pub cut_off: Option<u64>,
}

impl DiscFile {
    /// The file name (last component of [`DiscFile::rel`]).
    pub fn file_name(&self) -> &str {
        self.rel.rsplit('/').next().unwrap_or(&self.rel)
    }
}

#[derive(Debug, Error)]
pub enum WalkError {
    #[error("cannot read disc {0}: {1}")]
    Unreadable(String, std::io::Error),
    #[error(
        "{0} holds no Project Sylpheed containers: looked for a folder hidden/resource3d \
         (any case, e.g. hidden/Resource3D), for {0} being a resource3d folder, and for .xpr \
         files directly in it; point --disc at the disc root, its resource3d folder, a folder \
         of .xpr files or one .xpr file"
    )]
    NoResource3d(String),
    /// `hidden` or `hidden/resource3d` is a symlink: folder links are not followed (one
    /// may lead anywhere), so the message names the folder to pass instead.
    #[error(
        "{link} is a symlink, and folder links on the way to the containers are not followed; \
         pass the folder it leads to instead: --disc {instead}"
    )]
    SymlinkedFolder { link: String, instead: String },
    #[error(
        "{0} is not a folder, an .xpr file or an Xbox disc image (expected a disc root, a \
         folder of .xpr files, one .xpr, or an .iso with an XDVDFS volume)"
    )]
    NotXpr(String),
    #[error(
        "{0} is {1}, not a folder, an .xpr file or an Xbox disc image (expected a disc root, \
         a folder of .xpr files, one .xpr, or an .iso with an XDVDFS volume)"
    )]
    Special(String, &'static str),
    #[error("{0} is a block device with no XDVDFS volume at the XISO, XGD2, XGD3 or XGD1 offset")]
    DeviceNotImage(String),
    #[error(transparent)]
    Image(#[from] crate::image::ImageError),
}

/// Where the containers of `--disc` are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// Every `.xpr` directly in this folder.
    Folder(PathBuf),
    /// This one file.
    File(PathBuf),
    /// An XDVDFS disc image.
    Image(PathBuf),
}

/// The child of `dir` named `name` ASCII case-insensitively that is a directory (not a
/// symlink): the exact spelling first, else the first in byte order. A folder that cannot
/// be read or entered (permission denied) is an error, not "no such folder".
fn child_dir(dir: &Path, name: &str) -> Result<Option<PathBuf>, WalkError> {
    let unreadable = |e| WalkError::Unreadable(dir.display().to_string(), e);
    let exact = dir.join(name);
    match std::fs::symlink_metadata(&exact) {
        Ok(m) if m.is_dir() => return Ok(Some(exact)),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Err(unreadable(e)),
        _ => {}
    }
    let mut hits: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(unreadable)?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().as_encoded_bytes().eq_ignore_ascii_case(name.as_bytes()))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    hits.sort();
    Ok(hits.into_iter().next())
}

/// Whether a file name ends in `.xpr` (any case); `.xpr` itself counts.
pub fn is_xpr_name(name: &[u8]) -> bool {
    name.len() >= 4 && name[name.len() - 4..].eq_ignore_ascii_case(b".xpr")
}

/// Where the containers of `disc` are (see the module documentation for the forms).
pub fn locate(disc: &Path) -> Result<Location, WalkError> {
    let shown = || disc.display().to_string();
    let meta = std::fs::metadata(disc).map_err(|e| WalkError::Unreadable(shown(), e))?;
    if meta.is_file() {
        let name = disc.file_name().map(|n| n.as_encoded_bytes()).unwrap_or_default();
        return if is_xpr_name(name) {
            Ok(Location::File(disc.to_path_buf()))
        } else if crate::image::is_image(disc) {
            Ok(Location::Image(disc.to_path_buf()))
        } else {
            Err(WalkError::NotXpr(shown()))
        };
    }
    if crate::image::is_block_device(&meta) {
        // A disc in a drive, or an image on a partition: read like an image file.
        return match crate::image::is_image(disc) {
            true => Ok(Location::Image(disc.to_path_buf())),
            false => Err(WalkError::DeviceNotImage(shown())),
        };
    }
    if !meta.is_dir() {
        return Err(WalkError::Special(shown(), crate::input::kind_of(&meta.file_type())));
    }
    if let Some(h) = child_dir(disc, "hidden")? {
        if let Some(res) = child_dir(&h, "resource3d")? {
            return Ok(Location::Folder(res));
        }
    }
    if disc.file_name().is_some_and(|n| n.eq_ignore_ascii_case("resource3d")) {
        return Ok(Location::Folder(disc.to_path_buf()));
    }
    let any_xpr = std::fs::read_dir(disc)
        .map_err(|e| WalkError::Unreadable(shown(), e))?
        .filter_map(Result::ok)
        .any(|e| is_xpr_name(e.file_name().as_encoded_bytes()));
    if any_xpr {
        return Ok(Location::Folder(disc.to_path_buf()));
    }
    Err(symlinked_folder(disc)?.unwrap_or_else(|| WalkError::NoResource3d(shown())))
}

/// The child of `dir` named `name` ASCII case-insensitively that is a symlink.
fn child_link(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut hits: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().as_encoded_bytes().eq_ignore_ascii_case(name.as_bytes()))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_symlink()))
        .map(|e| e.path())
        .collect();
    hits.sort();
    hits.into_iter().next()
}

/// Why a disc root holds no containers when its `hidden` or `hidden/resource3d` is a
/// symlink (never followed): that link, and what to pass as `--disc` instead — the
/// resource folder the link leads to (or its target as written, when it leads nowhere).
fn symlinked_folder(disc: &Path) -> Result<Option<WalkError>, WalkError> {
    let (link, below) = match child_dir(disc, "hidden")? {
        Some(h) => match child_link(&h, "resource3d") {
            Some(l) => (l, false),
            None => return Ok(None),
        },
        None => match child_link(disc, "hidden") {
            Some(l) => (l, true),
            None => return Ok(None),
        },
    };
    let instead = match link.canonicalize() {
        Ok(target) if below => child_dir(&target, "resource3d")?.unwrap_or(target),
        Ok(target) => target,
        Err(_) => std::fs::read_link(&link).unwrap_or_default(),
    };
    Ok(Some(WalkError::SymlinkedFolder {
        link: link.display().to_string(),
        instead: instead.display().to_string(),
    }))
}

/// The resource folder of a disc (or `disc` itself when it is one), for callers that
/// need a folder; a single `.xpr` gives its parent.
pub fn resource_dir(disc: &Path) -> Result<(PathBuf, &'static str), WalkError> {
    match locate(disc)? {
        Location::Folder(d) => Ok((d, PREFIX)),
        Location::File(f) | Location::Image(f) => Ok((f.parent().map(Path::to_path_buf).unwrap_or_default(), PREFIX)),
    }
}

/// The manifest name of the `copy`-th later copy (0: the first) of a name an image lists
/// more than once: `\~<copy + 1>` before the `.xpr` extension. The escaped name never holds
/// a backslash followed by `~` (a backslash is written `\\`), so no other name maps there.
pub fn copy_name(raw: &[u8], copy: usize) -> String {
    let text = name_text(raw);
    if copy == 0 {
        return text;
    }
    // `text` ends in `.xpr` (any case): every listed name does.
    let cut = text.len().saturating_sub(4);
    match text.is_char_boundary(cut) {
        true => format!("{}\\~{}{}", &text[..cut], copy + 1, &text[cut..]),
        false => format!("{text}\\~{}", copy + 1),
    }
}

/// Every entry named `*.xpr` (any case) of the resource folder, sorted by relative path:
/// regular files, symlinks (flagged, never followed out of the disc tree) and anything
/// else (flagged with what it is, never opened). A single `.xpr` `--disc` gives itself.
pub fn discover(disc: &Path) -> Result<Vec<DiscFile>, WalkError> {
    let dir = match locate(disc)? {
        Location::File(f) => {
            let name = name_text(f.file_name().map(|n| n.as_encoded_bytes()).unwrap_or_default());
            return Ok(vec![DiscFile {
                abs: f,
                rel: format!("{PREFIX}{name}"),
                symlink: false,
                not_a_file: None,
                extent: None,
                cut_off: None,
            }]);
        }
        Location::Image(img) => {
            let files = crate::image::list_xpr(&img, is_xpr_name)?;
            let mut out: Vec<DiscFile> = Vec::with_capacity(files.len());
            let mut copy = 0;
            for (i, f) in files.iter().enumerate() {
                // Sorted by name: the copies of a name listed twice are neighbours.
                copy = match i > 0 && files[i - 1].name == f.name {
                    true => copy + 1,
                    false => 0,
                };
                out.push(DiscFile {
                    abs: img.clone(),
                    rel: format!("{PREFIX}{}", copy_name(&f.name, copy)),
                    symlink: false,
                    not_a_file: f.directory.then_some("a directory"),
                    extent: Some((f.offset, f.len)),
                    cut_off: (!f.directory && f.present < f.len).then_some(f.present),
                });
            }
            return Ok(out);
        }
        Location::Folder(d) => d,
    };
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(&dir)
        .min_depth(1)
        .max_depth(1)
        .follow_links(false)
    {
        let e = e.map_err(|err| WalkError::Unreadable(dir.display().to_string(), err.into()))?;
        if !is_xpr_name(e.file_name().as_encoded_bytes()) {
            continue;
        }
        let t = e.file_type();
        let symlink = e.path_is_symlink();
        let not_a_file = (!t.is_file() && !symlink).then(|| crate::input::kind_of(&t));
        let name = name_text(e.file_name().as_encoded_bytes());
        out.push(DiscFile {
            abs: e.path().to_path_buf(),
            rel: format!("{PREFIX}{name}"),
            symlink,
            not_a_file,
            extent: None,
            cut_off: None,
        });
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
        std::fs::write(res.join(".xpr"), b"").unwrap();
        nix_mkfifo(&res.join("pipe.xpr"));
        let found = discover(tmp.path()).unwrap();
        let got: Vec<(&str, bool, Option<&str>)> = found
            .iter()
            .map(|f| (f.rel.as_str(), f.symlink, f.not_a_file))
            .collect();
        assert_eq!(
            got,
            [
                ("hidden/resource3d/.xpr", false, None),
                ("hidden/resource3d/Stage_\u{e9}.xpr", false, None),
                ("hidden/resource3d/\\xff.xpr", false, None),
                ("hidden/resource3d/dangling.XPR", true, None),
                ("hidden/resource3d/dir.xpr", false, Some("a directory")),
                ("hidden/resource3d/link.xpr", true, None),
                ("hidden/resource3d/pipe.xpr", false, Some("a FIFO")),
            ]
        );
    }

    #[cfg(unix)]
    fn nix_mkfifo(p: &Path) {
        let st = std::process::Command::new("mkfifo").arg(p).status().unwrap();
        assert!(st.success());
    }

    #[test]
    fn every_level_is_found_case_insensitively_and_other_forms_work() {
        let tmp = tempfile::tempdir().unwrap();
        let res = tmp.path().join("HIDDEN").join("Resource3D");
        std::fs::create_dir_all(&res).unwrap();
        std::fs::write(res.join("Common.xpr"), b"").unwrap();
        assert_eq!(locate(tmp.path()).unwrap(), Location::Folder(res.clone()));
        assert_eq!(locate(&res).unwrap(), Location::Folder(res.clone()));
        let one = res.join("Common.xpr");
        assert_eq!(locate(&one).unwrap(), Location::File(one.clone()));
        let f = discover(&one).unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rel, "hidden/resource3d/Common.xpr");
        // A plain folder of .xpr files.
        let plain = tmp.path().join("copied");
        std::fs::create_dir(&plain).unwrap();
        std::fs::write(plain.join("Base.XPR"), b"").unwrap();
        assert_eq!(discover(&plain).unwrap()[0].rel, "hidden/resource3d/Base.XPR");
        // Nothing to find: the error says what was looked for.
        let empty = tmp.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let e = discover(&empty).unwrap_err().to_string();
        assert!(
            e.contains("hidden/resource3d") && e.contains("any case") && e.contains(".xpr"),
            "{e}"
        );
        std::fs::write(tmp.path().join("notes.txt"), b"").unwrap();
        let e = discover(&tmp.path().join("notes.txt")).unwrap_err().to_string();
        assert!(e.contains("is not a folder, an .xpr file or an Xbox disc image"), "{e}");
    }
}
