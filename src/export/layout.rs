//! The tool's own names inside `--out`: its folder and files (lock, manifest, journal,
//! pending removals, the previous manifest) and the top-level names no container folder
//! may take.

/// The tool's own folder inside `--out`: lock, previous manifest, pending removals,
/// journal of written outputs, temporaries. No container folder can be named so
/// ([`crate::names::sanitize`] strips leading dots).
pub const TOOL_DIR: &str = ".xbg7";
/// The manifest, at the top of `--out` where users look for it.
pub const MANIFEST: &str = "manifest.json";
/// Held (exclusive `flock`-style lock) for the whole run: one writer per `--out`.
pub const LOCK_FILE: &str = ".xbg7/lock";
/// Where the previous manifest waits while a run is in progress.
pub const PREVIOUS_MANIFEST: &str = ".xbg7/manifest.prev.json";
/// Stale outputs to remove, written before the new manifest (a run killed between the
/// manifest and the removal leaves this list for the next run).
pub const PENDING_REMOVALS: &str = ".xbg7/pending-removals.json";
/// Every output this run has written or begun to write, one per line, each appended before
/// its temporary is renamed into place (a killed run's outputs are found here by the next
/// run).
pub const JOURNAL: &str = ".xbg7/written.txt";
/// Where versions before the `.xbg7` folder kept the previous manifest (still read).
pub const LEGACY_PREVIOUS_MANIFEST: &str = "manifest.json.xbg7-prev";
/// Names at the top of `--out` that belong to the tool's outputs: a container whose
/// folder would be one of them gets `~<index>` (the report is another tool output).
pub const RESERVED_NAMES: &[&str] = &[MANIFEST, "index.html", TOOL_DIR];
