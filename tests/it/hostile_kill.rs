//! A run killed half-way (child process, `--jobs 1`, killed as soon as the first outputs
//! of a container whose geometry changed appear) leaves a consistent tree: the manifest on disk, if any, references only
//! complete files (each `.gltf` parses and its `.bin` has the declared byteLength; no
//! temporary is referenced). The run starts into an `--out` of a previous run on a
//! *different* disc, so it replaces files that the previous manifest references; the
//! previous manifest is moved aside meanwhile, and the next complete run restores a
//! consistent tree with the dropped container's outputs removed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use xbg7_export::export::{PREVIOUS_MANIFEST, TMP_SUFFIX};
use xbg7_export::manifest::Manifest;
use xbg7_synth::hostile::{self, assemble, disassemble, hostile_names};
use xbg7_synth::SynthOptions;

fn cmd(disc: &Path, out: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xbg7-export"));
    c.arg("--disc")
        .arg(disc)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "1", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Every output the manifest references is complete and self-consistent.
fn assert_consistent(out: &Path, m: &Manifest) {
    for rel in m.outputs() {
        assert!(!rel.ends_with(TMP_SUFFIX), "{rel}");
        assert!(out.join(rel).is_file(), "{rel} missing");
    }
    for c in &m.containers {
        for r in c.resources.iter().filter(|r| r.gltf.is_some()) {
            let g = out.join(r.gltf.as_ref().unwrap());
            let doc =
                gltf::Gltf::from_slice(&std::fs::read(&g).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", g.display()));
            let buf = doc.buffers().next().expect("one buffer");
            let gltf::buffer::Source::Uri(uri) = buf.source() else {
                panic!("{}: no uri", g.display())
            };
            let bin = g.parent().unwrap().join(uri);
            assert_eq!(
                out.join(r.bin.as_ref().unwrap()),
                bin,
                "{}: manifest and glTF name different .bin files",
                g.display()
            );
            let len = std::fs::metadata(&bin).unwrap().len();
            assert_eq!(
                len,
                buf.length() as u64,
                "{}: .bin is not the declared size",
                g.display()
            );
            let mesh = doc.meshes().next().unwrap();
            let verts: u64 = mesh
                .primitives()
                .next()
                .and_then(|p| p.get(&gltf::Semantic::Positions))
                .map_or(0, |a| a.count() as u64);
            assert_eq!(verts, r.vertices as u64, "{}", g.display());
        }
    }
}

fn read_manifest(p: &Path) -> Option<Manifest> {
    std::fs::read(p).ok().map(|b| serde_json::from_slice(&b).unwrap())
}

/// Files below `dir` modified at or after `t0`.
fn new_outputs(dir: &Path, t0: SystemTime) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            e.metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .is_some_and(|m| m >= t0)
        })
        .map(|e| e.path().to_path_buf())
        .collect()
}

#[test]
fn killed_run_leaves_a_consistent_tree_and_the_next_run_repairs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let src = hostile::sources(&SynthOptions::demo(1));
    let disc = tmp.path().join("disc");
    let files = hostile::write_fixtures(&disc, &src).unwrap();
    let out = tmp.path().join("out");

    // Run 1, complete.
    assert!(cmd(&disc, &out).status().unwrap().success());
    let m1 = read_manifest(&out.join("manifest.json")).unwrap();
    assert_consistent(&out, &m1);

    // Change the disc so run 2 rewrites paths run 1's manifest references with other
    // geometry: the names stage gets its hostile names rotated by one resource; one
    // container disappears.
    let res = disc.join("hidden").join("resource3d");
    let (mut entries, data) = disassemble(&src.stage.bytes);
    let slots: Vec<usize> = (0..entries.len()).filter(|&k| &entries[k].tag == b"XBG7").collect();
    let names = hostile_names();
    for (k, &slot) in slots.iter().enumerate() {
        entries[slot].name = names[(k + 1) % slots.len().min(names.len())].clone();
    }
    std::fs::write(res.join("Stage_S90_names.xpr"), assemble(&entries, &data)).unwrap();
    let dropped = files.iter().find(|h| h.name == b"model_dotdot_name.xpr").unwrap();
    std::fs::remove_file(res.join(hostile::os_name(&dropped.name))).unwrap();

    // Run 2, killed as soon as it has written something.
    std::thread::sleep(Duration::from_millis(20));
    let t0 = SystemTime::now();
    let mut child = cmd(&disc, &out).spawn().unwrap();
    let start = Instant::now();
    let finished = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break Some(st);
        }
        // The first rewritten output of the rotated stage: its old .gltf/.bin pairs are
        // being replaced by different geometry under the same names.
        if !new_outputs(&out.join("Stage_S90_names"), t0).is_empty() {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "run 2 never wrote anything");
        std::thread::sleep(Duration::from_millis(1));
    };
    eprintln!(
        "run 2 {} after {:?}",
        if finished.is_some() { "finished" } else { "killed" },
        start.elapsed()
    );
    match read_manifest(&out.join("manifest.json")) {
        // Killed before the end: no manifest references the half-replaced tree; the
        // previous one waits aside for the next run.
        None => {
            assert!(finished.is_none());
            assert_eq!(read_manifest(&out.join(PREVIOUS_MANIFEST)), Some(m1.clone()));
        }
        Some(m) => assert_consistent(&out, &m),
    }

    // Run 3, complete: consistent, and what run 1 listed for the dropped container is gone.
    assert!(cmd(&disc, &out).status().unwrap().success());
    let m3 = read_manifest(&out.join("manifest.json")).unwrap();
    assert_consistent(&out, &m3);
    assert!(!out.join(PREVIOUS_MANIFEST).exists());
    let dropped_outputs: Vec<&str> = m1
        .containers
        .iter()
        .filter(|c| c.path.ends_with("model_dotdot_name.xpr"))
        .flat_map(|c| c.resources.iter().flat_map(|r| [r.gltf.as_deref(), r.bin.as_deref()]))
        .flatten()
        .collect();
    assert_eq!(dropped_outputs.len(), 2);
    for rel in dropped_outputs {
        assert!(!out.join(rel).exists(), "{rel} should have been removed");
    }
    // The rotated stage: same output paths as run 1, other geometry, still consistent.
    let stage = |m: &Manifest| {
        m.containers
            .iter()
            .find(|c| c.path.ends_with("Stage_S90_names.xpr"))
            .unwrap()
            .resources
            .iter()
            .map(|r| (r.gltf.clone(), r.digest.clone()))
            .collect::<Vec<_>>()
    };
    assert_ne!(stage(&m1), stage(&m3));
}

/// Every file under `out` (but the tool's own folder) is the manifest or one of its outputs.
fn orphans(out: &Path, m: &Manifest) -> Vec<String> {
    let listed: std::collections::BTreeSet<&str> = m.outputs().into_iter().collect();
    walkdir::WalkDir::new(out)
        .min_depth(1)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
        .map(|e| e.path().strip_prefix(out).unwrap().to_string_lossy().replace('\\', "/"))
        .filter(|rel| !rel.starts_with(".xbg7/") && rel != "manifest.json" && !listed.contains(rel.as_str()))
        .collect()
}

/// A run killed (SIGKILL) in the middle of a container, then a complete run that produces
/// other names (`--format glb`): the killed container's outputs were journalled before
/// they were renamed into place, so the complete run removes every one of them — no file
/// under `--out` is left that its manifest does not list. Killed at the first output of a
/// run into a fresh `--out`, and at the 1st, 7th and 40th output (the test hook), so the
/// kill lands inside a container.
#[test]
fn a_run_killed_inside_a_container_leaves_no_orphan_after_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let disc = tmp.path().join("disc");
    xbg7_synth::write_disc(&disc, &SynthOptions::demo(1)).unwrap();
    for (round, hook) in [None, Some(1), Some(7), Some(40)].into_iter().enumerate() {
        let out = tmp.path().join(format!("out{round}"));
        let t0 = SystemTime::now();
        let mut c = cmd(&disc, &out);
        if let Some(n) = hook {
            c.env("XBG7_EXPORT_ABORT_AT", "after-an-output")
                .env("XBG7_EXPORT_ABORT_AFTER", n.to_string());
        }
        let mut child = c.spawn().unwrap();
        let start = Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            let written = walkdir::WalkDir::new(&out)
                .min_depth(2)
                .into_iter()
                .filter_map(Result::ok)
                .any(|e| e.file_type().is_file() && !e.path().starts_with(out.join(".xbg7")));
            if hook.is_none() && written {
                child.kill().unwrap();
                child.wait().unwrap();
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the run never wrote anything"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(!new_outputs(&out, t0).is_empty());
        assert!(
            !out.join("manifest.json").exists(),
            "round {round}: the run was not cut short"
        );
        // The next run writes .glb files: none of the killed run's names.
        let st = cmd(&disc, &out).args(["--format", "glb"]).status().unwrap();
        assert!(st.success());
        let m = read_manifest(&out.join("manifest.json")).unwrap();
        assert!(m.outputs().iter().all(|rel| out.join(rel).is_file()));
        let left = orphans(&out, &m);
        assert!(
            left.is_empty(),
            "round {round}: {} orphans, e.g. {:?}",
            left.len(),
            &left[..left.len().min(5)]
        );
    }
}
