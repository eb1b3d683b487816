//! Shared setup of the end-to-end tests: the demo disc (seed 1) written to a temp folder,
//! and reading a manifest back with `diff M M`.

// Each test binary that includes this module uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use xbg7_export::config::Config;
use xbg7_export::verify::{check_container, Report};
use xbg7_synth::{build_file, file_plan, write_disc, Scale, SynthOptions, TruthDisc};

/// Write the seed-1 demo disc under `tmp/disc`; returns its path and ground truth.
pub fn demo_disc(tmp: &tempfile::TempDir) -> (PathBuf, TruthDisc) {
    let disc = tmp.path().join("disc");
    let truth = write_disc(
        &disc,
        &SynthOptions {
            seed: 1,
            scale: Scale::Demo,
            realism: false,
            multistream: false,
        },
    )
    .unwrap();
    (disc, truth)
}

/// `xbg7-export diff M M`: its exit code (0 when the manifest reads back).
pub fn diff_self(m: &Path) -> i32 {
    Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .arg("diff")
        .arg(m)
        .arg(m)
        .output()
        .unwrap()
        .status
        .code()
        .unwrap_or(-1)
}

/// The bytes of one demo model container (the first `rou_` file of the seed-1 plan), for
/// tests that lay the same container out under names of their own.
pub fn model_bytes() -> Vec<u8> {
    let spec = xbg7_synth::file_plan(&SynthOptions::demo(1))
        .into_iter()
        .find(|s| s.rel_path.contains("/rou_"))
        .unwrap();
    xbg7_synth::build_file(&spec).bytes
}

/// `tmp/disc/hidden/resource3d`, created; returns its path.
pub fn resource3d(tmp: &tempfile::TempDir) -> PathBuf {
    let res = tmp.path().join("disc").join("hidden").join("resource3d");
    std::fs::create_dir_all(&res).unwrap();
    res
}

/// Every file below `root` that is not a folder (relative, '/'-separated), sorted.
pub fn files(root: &Path) -> Vec<String> {
    let mut v: Vec<String> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            e.path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    v.sort();
    v
}

/// Every file of the demo disc of `seed` (with the generator's `realism` and
/// `multistream` options) built in memory and checked against its truth.
pub fn verify_demo(seed: u64, realism: bool, multistream: bool) -> Report {
    let cfg = Config::default();
    file_plan(&SynthOptions {
        seed,
        scale: Scale::Demo,
        realism,
        multistream,
    })
    .iter()
    .map(|spec| {
        let f = build_file(spec);
        check_container(&f.bytes, &f.truth, &cfg)
    })
    .fold(Report::default(), Report::merge)
}
