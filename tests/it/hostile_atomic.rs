//! Atomic, consistent output: `export::write_atomic` and `export::remove_stale`
//! checked directly, and re-runs into a used `--out` (stale outputs of the previous
//! manifest removed, nothing else; the previous manifest moved aside during a run).

use std::path::Path;

use xbg7_export::config::Config;
use xbg7_export::export::{export, remove_stale, write_atomic, ExportOptions, PREVIOUS_MANIFEST, TMP_SUFFIX};
use xbg7_export::manifest::{ContainerEntry, Kind, Manifest, ResourceEntry, Status};
use xbg7_synth::hostile;
use xbg7_synth::SynthOptions;

fn resource(index: u32, gltf: &str) -> ResourceEntry {
    ResourceEntry {
        status: Status::Decoded,
        gltf: Some(gltf.to_string()),
        ..ResourceEntry::rejected(index, format!("r{index}"), None)
    }
}

fn manifest_listing(outputs: &[&str]) -> Manifest {
    Manifest::new(vec![ContainerEntry {
        path: "hidden/resource3d/a.xpr".into(),
        kind: Kind::Model,
        size: 0,
        error: None,
        preview: None,
        scene: None,
        preview_cells: None,
        resources: outputs.iter().enumerate().map(|(i, o)| resource(i as u32, o)).collect(),
        textures: Vec::new(),
        other: Vec::new(),
    }])
}

#[test]
fn write_atomic_replaces_and_never_writes_through_links() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("x.gltf");
    write_atomic(&p, b"one").unwrap();
    write_atomic(&p, b"two").unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"two");
    // A killed run's leftover temporary is replaced.
    let t = tmp.path().join(format!("x.gltf{TMP_SUFFIX}"));
    std::fs::write(&t, b"half-writ").unwrap();
    write_atomic(&p, b"three").unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"three");
    assert!(!t.exists());
    #[cfg(unix)]
    {
        // A symlink planted at the temporary name or at the target is not followed.
        let victim = tmp.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        std::os::unix::fs::symlink(&victim, &t).unwrap();
        write_atomic(&p, b"four").unwrap();
        std::fs::remove_file(&p).unwrap();
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        write_atomic(&p, b"five").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert!(!std::fs::symlink_metadata(&p).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&p).unwrap(), b"five");
    }
    // Failure leaves no temporary: the folder does not exist.
    assert!(write_atomic(&tmp.path().join("missing").join("y"), b"z").is_err());
}

#[test]
fn remove_stale_removes_exactly_the_dropped_outputs_inside_out() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(out.join("a")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    for f in ["a/keep.gltf", "a/drop.gltf", "a/unlisted.gltf"] {
        std::fs::write(out.join(f), b"x").unwrap();
    }
    std::fs::write(out.join(format!("a/keep.gltf{TMP_SUFFIX}")), b"half").unwrap();
    std::fs::write(outside.join("victim.gltf"), b"x").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, out.join("link")).unwrap();
    let victim = outside.join("victim.gltf");
    let abs = victim.to_string_lossy().into_owned();
    let prev = manifest_listing(&[
        "a/keep.gltf",
        "a/drop.gltf",
        "../outside/victim.gltf",
        "link/victim.gltf",
        &abs,
        "a/./drop.gltf",
    ]);
    let now = manifest_listing(&["a/keep.gltf"]);
    let out_c = out.canonicalize().unwrap();
    remove_stale(&out, &out_c, &prev, &now);
    assert!(out.join("a/keep.gltf").exists());
    assert!(!out.join("a/drop.gltf").exists());
    assert!(!out.join(format!("a/keep.gltf{TMP_SUFFIX}")).exists());
    assert!(out.join("a/unlisted.gltf").exists(), "not listed: never removed");
    assert!(victim.exists(), "nothing outside --out is removed");
}

fn files(root: &Path) -> Vec<String> {
    let mut v: Vec<String> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned())
        // The tool's own folder (lock, run state) is not an output.
        .filter(|p| !p.starts_with(".xbg7"))
        .collect();
    v.sort();
    v
}

#[test]
fn rerun_removes_what_the_previous_manifest_listed_and_is_gone_now() {
    let tmp = tempfile::tempdir().unwrap();
    let src = hostile::sources(&SynthOptions::demo(1));
    let disc = tmp.path().join("disc");
    hostile::write_sources(&disc, &src).unwrap();
    let out = tmp.path().join("out");
    let opts = ExportOptions::quiet(Some(1), false);
    let cfg = Config::default();
    let m1 = export(&disc, &out, &cfg, &opts).unwrap();
    let stage_outputs: Vec<String> = m1
        .containers
        .iter()
        .filter(|c| c.path == src.stage.rel_path)
        .flat_map(|c| c.resources.iter().filter_map(|r| r.gltf.clone()))
        .collect();
    assert!(!stage_outputs.is_empty());
    std::fs::write(out.join("mine.txt"), b"user file").unwrap();
    // The stage leaves the disc: its outputs go, the model's and the user's file stay.
    std::fs::remove_file(disc.join(&src.stage.rel_path)).unwrap();
    let m2 = export(&disc, &out, &cfg, &opts).unwrap();
    let mut want: Vec<String> = m2.outputs().iter().map(|s| s.to_string()).collect();
    want.push("manifest.json".into());
    want.push("mine.txt".into());
    want.sort();
    assert_eq!(files(&out), want);
    assert!(!out.join(PREVIOUS_MANIFEST).exists());
    for o in &stage_outputs {
        assert!(!out.join(o).exists(), "{o}");
    }
    // A run that finds only the moved-aside manifest (its predecessor was killed) uses it.
    std::fs::rename(out.join("manifest.json"), out.join(PREVIOUS_MANIFEST)).unwrap();
    std::fs::remove_file(disc.join(&src.model.rel_path)).unwrap();
    let m3 = export(&disc, &out, &cfg, &opts).unwrap();
    assert!(m3.containers.is_empty());
    // The report of an empty export is still written (it says that nothing was found).
    assert!(m3.report.is_some());
    assert_eq!(files(&out), ["index.html", "manifest.json", "mine.txt"]);
}
