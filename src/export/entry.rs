//! A container's manifest entry around its export: the blank entry, the panic guard
//! that turns a bug into the container's `internal_error`, the `--verbose` explanation,
//! the size used for scheduling, and whether some output could not be written (the
//! error prefixes that tell it).

use crate::manifest::{Code, ContainerEntry, Kind, Layout, Reason, Status, TextureCode};
use crate::walker::DiscFile;
use std::collections::BTreeSet;
use std::path::Path;

/// The kind of the container at a manifest path (`hidden/resource3d/Stage_S01.xpr`).
pub fn kind_of(path: &str) -> Kind {
    Kind::from_file_name(Path::new(path))
}

/// How a container's error begins when its outputs could not be written (a texture's
/// reject: [`WRITING_PNG`]): [`unwritten`] finds them by it.
pub const WRITING_OUTPUTS: &str = "writing outputs";
/// How a texture's `io` reject begins when its PNG could not be written.
pub const WRITING_PNG: &str = "writing the PNG";

/// Whether some output of this container could not be written (a full or read-only disk,
/// a folder planted where a file goes): the run then ends with its own exit status.
pub fn unwritten(e: &ContainerEntry) -> bool {
    let container = e
        .error
        .as_ref()
        .is_some_and(|r| r.code == Code::IO && r.detail.starts_with(WRITING_OUTPUTS));
    let texture = e.textures.iter().any(|t| {
        t.reason
            .as_ref()
            .is_some_and(|r| r.code == TextureCode::IO && r.detail.starts_with(WRITING_PNG))
    });
    container || texture
}

/// What was decided for one container, for `--verbose`: one line for a terminal, the
/// container's manifest path (and any disc text in it) with control characters escaped
/// as `diff` and the report show them ([`crate::text::clean`]: a newline, ESC or BEL in
/// a file name can neither forge a line nor retitle the terminal).
pub fn explain(e: &ContainerEntry) -> String {
    crate::text::clean(&explain_raw(e))
}

fn explain_raw(e: &ContainerEntry) -> String {
    if let Some(err) = &e.error {
        return format!("{}: not decoded: {err}", e.path);
    }
    let decoded = e.resources.iter().filter(|r| r.status == Status::Decoded).count();
    let mut line = format!(
        "{} ({}, {} bytes): {decoded} of {} resources decoded",
        e.path,
        e.kind.as_str(),
        e.size,
        e.resources.len()
    );
    let mut why: std::collections::BTreeMap<&str, usize> = Default::default();
    for r in &e.resources {
        if let Some(reason) = &r.reason {
            *why.entry(reason.code.as_str()).or_default() += 1;
        }
    }
    if !why.is_empty() {
        let parts: Vec<String> = why.iter().map(|(c, n)| format!("{c} {n}")).collect();
        line.push_str(&format!("; rejected: {}", parts.join(", ")));
    }
    let layouts: BTreeSet<&str> = e
        .resources
        .iter()
        .filter_map(|r| r.layout)
        .map(Layout::as_str)
        .collect();
    if !layouts.is_empty() {
        line.push_str(&format!(
            "; layout {}",
            layouts.into_iter().collect::<Vec<_>>().join("+")
        ));
    }
    if !e.textures.is_empty() {
        let ok = e.textures.iter().filter(|t| t.status == Some(Status::Decoded)).count();
        line.push_str(&format!("; textures {ok}/{}", e.textures.len()));
    }
    if let Some(c) = e.preview_cells {
        line.push_str(&format!("; grid capped at {} of {} cells", c.shown, c.total));
    }
    line
}

/// A found container's size in bytes, as far as it is known before reading it: for
/// scheduling and progress only (0 for a symlink, a non-file or a file that cannot be
/// stat'ed; the manifest's `size` is what was read, and a read error is reported as one).
pub fn found_size(f: &DiscFile) -> u64 {
    match (f.extent, f.symlink || f.not_a_file.is_some()) {
        (_, true) => 0,
        (Some((_, len)), false) => f.cut_off.unwrap_or(len),
        (None, false) => std::fs::symlink_metadata(&f.abs).map_or(0, |m| m.len()),
    }
}

/// A container's manifest entry before anything is known about its contents.
pub(super) fn blank_entry(f: &DiscFile) -> ContainerEntry {
    ContainerEntry {
        path: f.rel.clone(),
        kind: kind_of(f.rel.rsplit('/').next().unwrap_or("")),
        size: 0,
        error: None,
        preview: None,
        scene: None,
        preview_cells: None,
        resources: Vec::new(),
        textures: Vec::new(),
        other: Vec::new(),
    }
}

/// Run one container's export so that a panic inside it (a bug: every input error is a
/// typed reject) becomes that container's `internal_error` instead of aborting the batch.
/// Outputs it wrote before panicking are not listed in the manifest (each was written
/// atomically, so none is half-written); the other containers are unaffected.
pub(super) fn guarded(f: &DiscFile, work: impl FnOnce() -> ContainerEntry) -> ContainerEntry {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-text panic payload".to_string());
        let mut entry = blank_entry(f);
        entry.size = found_size(f);
        entry.error = Some(Reason::new(
            Code::INTERNAL_ERROR,
            format!("the exporter panicked on this container ({msg}); please report it with the file"),
        ));
        entry
    })
}
