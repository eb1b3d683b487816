//! The batch export: every container of a disc decoded (by `xbg7`, in parallel with
//! rayon, largest first, each under `catch_unwind`) and its outputs written, then the
//! manifest last; the progress bar and `--verbose` explanations.
//!
//! `run` is one run from start to end (and the container folder names), `write` writes
//! one container's outputs, `textures` its PNGs, `previews` prepares what its previews
//! sample, `entry` owns a container's entry around its export (blank, panic guard,
//! `--verbose` line, unwritten outputs), `fs` keeps the run safe on disk (lock, journal,
//! stale removal inside `--out`), `layout` names the tool's own files in `--out`,
//! `options` and `error` are what a run is asked and why it cannot be done. This file
//! only declares them and re-exports their public items. Every file is written
//! atomically ([`crate::atomic`]).

mod entry;
mod error;
mod fs;
mod layout;
mod options;
mod previews;
mod run;
pub mod textures;
mod write;

pub use crate::atomic::{write_atomic, TMP_SUFFIX};
pub use entry::{explain, found_size, kind_of, unwritten, WRITING_OUTPUTS, WRITING_PNG};
pub use error::{ExportError, MAX_JOBS};
pub use fs::{remove_stale, write_tool_file, Outputs};
pub use layout::{
    JOURNAL, LEGACY_PREVIOUS_MANIFEST, LOCK_FILE, MANIFEST, PENDING_REMOVALS, PREVIOUS_MANIFEST, RESERVED_NAMES,
    TOOL_DIR,
};
pub use options::{ExportOptions, Only};
pub use previews::{
    grid_cells, grid_members, in_grid, mesh_albedo, prepare_albedos, preview_texture_side, render_options,
    textured_grid_cells, PreviewTextures,
};
pub use run::{container_dirs, decode_container, export, export_run, Exported};
pub use write::{grid_file, scene_stem};
pub use xbg7::describe_declaration;

#[cfg(test)]
mod tests {
    use super::entry::{blank_entry, guarded};
    use super::write::export_container;
    use super::*;
    use crate::config::Config;
    use crate::manifest::Code;
    use crate::manifest::{ContainerEntry, Kind};
    use crate::walker::{self, DiscFile};
    use rayon::prelude::*;
    use std::path::PathBuf;

    fn found(name: &str) -> DiscFile {
        DiscFile {
            abs: PathBuf::from("/nonexistent").join(name),
            rel: format!("hidden/resource3d/{name}"),
            symlink: false,
            not_a_file: None,
            extent: None,
            cut_off: None,
        }
    }

    #[test]
    fn a_panic_in_one_container_becomes_its_internal_error() {
        let f = found("Stage_S01.xpr");
        let e = guarded(&f, || panic!("index 7 out of range"));
        assert_eq!(e.path, f.rel);
        assert_eq!(e.kind, Kind::Stage);
        let r = e.error.expect("the panic is recorded");
        assert_eq!(r.code, Code::INTERNAL_ERROR);
        assert!(r.detail.contains("index 7 out of range"), "{}", r.detail);
        assert!(e.resources.is_empty());
        // A formatted (String) payload keeps its text too.
        let e = guarded(&found("ship.xpr"), || panic!("{} of {}", 3, 4));
        assert!(e.error.unwrap().detail.contains("3 of 4"));
    }

    /// A file deleted after it was found (or in a folder that can be listed but not
    /// entered) is an `io` error with the OS's words, not a `truncated` file of 0 bytes.
    #[test]
    fn a_file_gone_after_discovery_is_an_io_error_with_the_os_words() {
        let tmp = tempfile::tempdir().unwrap();
        let disc = tmp.path().join("Model.xpr");
        std::fs::write(&disc, b"XPR2").unwrap();
        let f = walker::discover(&disc).unwrap().remove(0);
        std::fs::remove_file(&disc).unwrap();
        let out = tmp.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let cfg = Config::default();
        let outputs = Outputs::plain(&out);
        let e = export_container(&f, "Model", &outputs, &out, &cfg, &ExportOptions::quiet(Some(1), false));
        assert!(!unwritten(&e));
        let r = e.error.expect("an error");
        assert_eq!(r.code, Code::IO, "{r}");
        assert!(r.detail.contains("No such file or directory"), "{r}");
    }

    #[test]
    fn guarded_passes_a_normal_entry_through() {
        let f = found("ship.xpr");
        let mut want = blank_entry(&f);
        want.size = 42;
        let got = guarded(&f, || want.clone());
        assert_eq!(got, want);
    }

    #[test]
    fn a_panic_inside_a_parallel_batch_leaves_the_other_containers_alone() {
        let files: Vec<DiscFile> = (0..8).map(|i| found(&format!("m{i}.xpr"))).collect();
        let entries: Vec<ContainerEntry> = files
            .par_iter()
            .map(|f| {
                guarded(f, || {
                    assert!(!f.rel.ends_with("m3.xpr"), "boom");
                    blank_entry(f)
                })
            })
            .collect();
        assert_eq!(entries.len(), 8);
        for (i, e) in entries.iter().enumerate() {
            assert_eq!(e.error.is_some(), i == 3, "{}", e.path);
        }
    }
}
