//! `xbg7-export diff OLD.json NEW.json`: what a decoder change gained and broke.
//!
//! Owns loading a manifest for comparison ([`load`], [`parse`]), the comparison itself
//! ([`diff`]), the regression policy ([`Diff::has_regressions`], [`exit_code`]) and the
//! text / Markdown / JSON renderings. Resources are keyed by (container path, directory
//! index); every list is sorted (containers by path, resources by index), every map is a
//! `BTreeMap`, so output is deterministic.
//!
//! Categories, for a resource whose container is in both manifests:
//! - *newly decoded* (gain): decoded now, rejected or absent before;
//! - *newly rejected* (regression): decoded before, rejected now;
//! - *reason changed* (change): rejected both times with a different code;
//! - *geometry changed* (regression): decoded both times, digest differs;
//! - *appeared* (change): absent before, rejected now;
//! - *vanished*: absent now; a regression when it was decoded before.
//!
//! Per container: added (change), removed (regression), error appeared (regression),
//! error disappeared (gain), error code changed (change). Coverage (per kind and per
//! reason code) is recomputed from the container lists with [`crate::manifest::summarize`].
//!
//! Files: `compare` (the comparison and its types), `render` (text, Markdown, JSON, the
//! HTML page's listed items); this file loads manifests and re-exports both.

use crate::manifest::Manifest;
use std::path::Path;

mod compare;
mod render;

pub use crate::manifest::{parse, ManifestError, MAX_MANIFEST_BYTES};
pub use compare::{
    diff, exit_code, Appeared, Change, ContainerDiff, Coverage, Diff, ErrorChange, GeometryChanged, Moved,
    NewlyDecoded, NewlyRejected, Presence, ReasonChanged, Tally, Vanished, Was,
};
pub use render::{
    listed_items, render_json, render_markdown, render_markdown_capped, render_text, ListedItem, MARKDOWN_CAP,
};

/// Why a manifest could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error("{path}: cannot read: {error}")]
    Io {
        path: String,
        error: crate::input::ReadError,
    },
    #[error("{path}: {error}")]
    Manifest { path: String, error: ManifestError },
}

/// Read and [`parse`] a manifest file, or an export folder's `manifest.json`; errors name
/// the path.
pub fn load(path: impl AsRef<Path>) -> Result<Manifest, DiffError> {
    let given = path.as_ref();
    let inside = given.join("manifest.json");
    let path = if given.is_dir() { inside.as_path() } else { given };
    let shown = path.display().to_string();
    // A regular file only (opening a FIFO blocks until a writer comes; `/dev/zero` never
    // ends), and at most MAX_MANIFEST_BYTES.
    let bytes = crate::input::read_bounded(path, MAX_MANIFEST_BYTES, "a manifest").map_err(|error| DiffError::Io {
        path: shown.clone(),
        error,
    })?;
    parse(&bytes).map_err(|error| DiffError::Manifest { path: shown, error })
}
