//! Regression tests for the defects of the hostile review of issue #15, one (or more)
//! per defect, each against the exporter binary as a user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use xbg7_export::manifest::Manifest;
use xbg7_synth::hostile::{self, assemble, RawEntry, Sources};
use xbg7_synth::SynthOptions;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
}

fn sources() -> Sources {
    hostile::sources(&SynthOptions::demo(1))
}

/// A disc with the two clean source files (a textured model and a stage).
fn clean_disc(root: &Path) -> (PathBuf, Sources) {
    let src = sources();
    let disc = root.join("disc");
    hostile::write_sources(&disc, &src).unwrap();
    (disc, src)
}

fn res_dir(disc: &Path) -> PathBuf {
    disc.join("hidden").join("resource3d")
}

fn export(disc: &Path, out: &Path, extra: &[&str]) -> Output {
    bin()
        .arg("--disc")
        .arg(disc)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "1", "--quiet"])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "{:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

fn manifest(out: &Path) -> Manifest {
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
}

/// Every file below `root` (relative, '/'-separated), sorted, the tool's `.xbg7/` left out.
/// `out` holds exactly what its manifest lists, and the manifest.
fn assert_only_listed_outputs(out: &Path) {
    let m = manifest(out);
    let mut want: Vec<String> = m.outputs().iter().map(|s| s.to_string()).collect();
    want.push("manifest.json".into());
    want.sort();
    assert_eq!(files(out), want);
}

/// The outputs below `root`: every file but the tool's own (`.xbg7/`).
fn files(root: &Path) -> Vec<String> {
    common::files(root)
        .into_iter()
        .filter(|p| !p.starts_with(".xbg7/"))
        .collect()
}

fn stem(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap();
    name.rsplit_once('.').unwrap().0.to_string()
}

// 1. A symlink planted at out/<container>/textures must not carry the PNGs elsewhere.
#[cfg(unix)]
#[test]
fn a_planted_textures_symlink_is_not_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, src) = clean_disc(tmp.path());
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--no-previews"]));
    let dir = out.join(stem(&src.model.rel_path));
    let textures = dir.join("textures");
    assert!(
        std::fs::read_dir(&textures).unwrap().count() > 0,
        "the model has textures"
    );
    std::fs::remove_dir_all(&textures).unwrap();
    let victim = tmp.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::os::unix::fs::symlink(&victim, &textures).unwrap();
    // The run completes; the container's outputs could not be written: exit status 3.
    let o = export(&disc, &out, &["--no-previews"]);
    assert_eq!(o.status.code(), Some(3), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_dir(&victim).unwrap().count(),
        0,
        "PNGs written through the link"
    );
    let m = manifest(&out);
    let c = m.containers.iter().find(|c| c.path == src.model.rel_path).unwrap();
    let e = c.error.as_ref().expect("the container reports the link");
    assert!(e.detail.contains("textures"), "{}", e.detail);
}

/// A stage of `n` XBG7 entries with empty descriptors (each one a reject), ≈ 24 bytes each.
/// (Linux only, like its test, which reads peak memory from `/proc`.)
#[cfg(target_os = "linux")]
fn many_entry_stage(n: usize) -> Vec<u8> {
    let entries: Vec<RawEntry> = (0..n)
        .map(|k| RawEntry {
            tag: *b"XBG7",
            desc: Vec::new(),
            name: format!("r{k:06}").into_bytes(),
        })
        .collect();
    assemble(&entries, &[0u8; 64])
}

/// Run the binary; (output, peak RSS in kB from /proc VmHWM, wall time).
#[cfg(target_os = "linux")]
fn run_measured(mut cmd: Command) -> (Output, u64, Duration) {
    let t = Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let status_path = PathBuf::from(format!("/proc/{}/status", child.id()));
    let mut peak = 0u64;
    loop {
        if let Ok(s) = std::fs::read_to_string(&status_path) {
            if let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(300), "run takes too long");
        std::thread::sleep(Duration::from_millis(2));
    }
    let out = child.wait_with_output().unwrap();
    (out, peak, t.elapsed())
}

// 2. A 7 MB stage of 300 000 rejected entries: the grid is capped (and says so), the
// export's and render's peak memory stay bounded.
#[cfg(target_os = "linux")]
#[test]
fn a_stage_of_300k_entries_has_a_capped_grid_and_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let (clean, _) = clean_disc(tmp.path());
    let hostile = tmp.path().join("hostile");
    std::fs::create_dir_all(res_dir(&hostile)).unwrap();
    let stage = many_entry_stage(300_000);
    assert!(stage.len() > 7_000_000, "{}", stage.len());
    let file = res_dir(&hostile).join("Stage_S99.xpr");
    std::fs::write(&file, &stage).unwrap();

    let mut c = bin();
    c.arg("--disc").arg(&clean).arg("--out").arg(tmp.path().join("o1"));
    c.args(["--jobs", "1", "--quiet"]);
    let (o, clean_rss, _) = run_measured(c);
    ok(&o);
    let mut c = bin();
    c.arg("--disc").arg(&hostile).arg("--out").arg(tmp.path().join("o2"));
    c.args(["--jobs", "1", "--quiet"]);
    let (o, hostile_rss, took) = run_measured(c);
    ok(&o);
    let m = manifest(&tmp.path().join("o2"));
    let entry = &m.containers[0];
    assert_eq!(entry.resources.len(), 300_000);
    let cells = entry.preview_cells.expect("the grid says it is capped");
    assert_eq!(cells.total, 300_000);
    assert!(cells.shown >= 256 && cells.shown < 300_000, "{cells:?}");
    let png = tmp.path().join("o2").join(entry.preview.as_ref().unwrap());
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let info = decoder.read_info().unwrap();
    let (w, h) = (info.info().width as u64, info.info().height as u64);
    assert!(w * h <= xbg7_preview::preview::MAX_GRID_PIXELS, "{w}×{h}");

    let mut c = bin();
    c.arg("render").arg(&file).arg("-o").arg(tmp.path().join("grid.png"));
    let (o, render_rss, _) = run_measured(c);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("shows the first"));
    eprintln!(
        "peak RSS: clean export {clean_rss} kB, 300k-entry export {hostile_rss} kB ({took:?}), render {render_rss} kB"
    );
    // Before: one 19.7 GB allocation (abort). The manifest of 300 000 entries itself
    // takes ≈ 100 MB; the budget for everything is 1 GB.
    assert!(hostile_rss < 1_000_000, "export peak {hostile_rss} kB");
    assert!(render_rss < 1_000_000, "render peak {render_rss} kB");
}

// 3. Disc names equal to the tool's own files.
#[test]
fn containers_named_like_the_tools_files_cannot_take_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, src) = clean_disc(tmp.path());
    let names = [
        "manifest.json.xpr",
        "manifest.json.xbg7-tmp.xpr",
        "manifest.json.xbg7-prev.xpr",
        "MANIFEST.JSON.xpr",
        "index.html.xpr",
        ".xbg7.xpr",
    ];
    for n in names {
        std::fs::write(res_dir(&disc).join(n), &src.model.bytes).unwrap();
    }
    let out = tmp.path().join("out");
    for _ in 0..2 {
        ok(&export(&disc, &out, &["--no-previews"]));
        let m = manifest(&out);
        assert_eq!(m.containers.len(), 2 + names.len());
        for c in &m.containers {
            assert!(c.error.is_none(), "{}: {:?}", c.path, c.error);
        }
        // Every file is listed by the manifest (no orphans), the manifest is a file.
        let listed: std::collections::BTreeSet<&str> = m.outputs().into_iter().collect();
        for f in files(&out) {
            assert!(f == "manifest.json" || listed.contains(f.as_str()), "orphan {f}");
        }
        assert!(out.join("manifest.json").is_file());
        assert!(out.join(".xbg7").is_dir());
    }
}

// 4. One writer per --out.
#[test]
fn a_second_run_into_a_locked_out_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, _) = clean_disc(tmp.path());
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--no-previews"]));
    let before = std::fs::read(out.join("manifest.json")).unwrap();
    // Another run holds the lock (a flock-style lock: another process sees it the same).
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(out.join(".xbg7").join("lock"))
        .unwrap();
    f.lock().unwrap();
    let o = export(&disc, &out, &["--no-previews"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("another xbg7-export is writing into"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(std::fs::read(out.join("manifest.json")).unwrap(), before);
    drop(f);
    ok(&export(&disc, &out, &["--no-previews"]));
}

#[test]
fn two_concurrent_runs_one_is_refused_or_they_ran_one_after_the_other() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, _) = clean_disc(tmp.path());
    let out = tmp.path().join("out");
    let spawn = || {
        bin()
            .arg("--disc")
            .arg(&disc)
            .arg("--out")
            .arg(&out)
            .args(["--jobs", "1", "--quiet"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Three pairs, the first two into a fresh folder: both runs may find `--out` (and its
    // `.xbg7`) missing, and the one losing the race to create it must still be refused
    // by the lock, not fail on "File exists" (seen once in a test run).
    for round in 0..3 {
        if round < 2 {
            let _ = std::fs::remove_dir_all(&out);
        }
        let (a, b) = (spawn(), spawn());
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let codes = [a.status.code(), b.status.code()];
        assert!(codes.iter().all(|c| matches!(c, Some(0) | Some(2))), "{codes:?}");
        for o in [&a, &b] {
            if o.status.code() == Some(2) {
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(err.contains("another xbg7-export"), "round {round}: {err}");
            }
        }
        assert!(codes.contains(&Some(0)));
        eprintln!("concurrent runs exited {codes:?}");
    }
}

/// Run with the test hook that aborts the process at `point`.
fn export_killed_at(disc: &Path, out: &Path, point: &str) {
    let o = bin()
        .arg("--disc")
        .arg(disc)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "1", "--quiet", "--no-previews"])
        .env("XBG7_EXPORT_ABORT_AT", point)
        .output()
        .unwrap();
    assert!(!o.status.success(), "the hook did not fire");
}

// 5. A kill after the new manifest and before the stale removal.
#[test]
fn a_kill_in_the_last_window_is_cleaned_up_by_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, src) = clean_disc(tmp.path());
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--no-previews"]));
    let model_dir = stem(&src.model.rel_path);
    assert!(files(&out).iter().any(|f| f.starts_with(&format!("{model_dir}/"))));
    std::fs::remove_file(disc.join(&src.model.rel_path)).unwrap();
    export_killed_at(&disc, &out, "after-manifest");
    // The new manifest is in place, the stale files not yet removed.
    assert_eq!(manifest(&out).containers.len(), 1);
    assert!(files(&out).iter().any(|f| f.starts_with(&format!("{model_dir}/"))));
    // The next run (same disc) finishes the removal.
    ok(&export(&disc, &out, &["--no-previews"]));
    assert_only_listed_outputs(&out);
}

#[test]
fn outputs_of_a_killed_run_are_removed_when_no_run_produces_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, src) = clean_disc(tmp.path());
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--no-previews"]));
    // A new (largest, so first) container appears; the run dies after writing it.
    let extra = res_dir(&disc).join("Stage_S77.xpr");
    // Trailing bytes make it the largest file (equal sizes keep directory order).
    let mut bytes = src.stage.bytes.clone();
    bytes.extend(std::iter::repeat_n(0u8, 4096));
    std::fs::write(&extra, bytes).unwrap();
    export_killed_at(&disc, &out, "after-first-container");
    assert!(
        files(&out).iter().any(|f| f.starts_with("Stage_S77/")),
        "nothing written"
    );
    // The container leaves the disc again: its files are in no manifest, yet removed.
    std::fs::remove_file(&extra).unwrap();
    ok(&export(&disc, &out, &["--no-previews"]));
    assert!(
        !files(&out).iter().any(|f| f.starts_with("Stage_S77/")),
        "{:?}",
        files(&out)
    );
    assert_only_listed_outputs(&out);
}

// 6. --jobs is bounded; 0 means one per core.
#[test]
fn jobs_beyond_the_bound_is_a_usage_error_and_zero_means_all_cores() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, _) = clean_disc(tmp.path());
    let t = Instant::now();
    let o = bin()
        .arg("--disc")
        .arg(&disc)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .args(["--jobs", "99999", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(t.elapsed() < Duration::from_secs(30));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--jobs 99999") && err.contains("256"), "{err}");
    assert!(!tmp.path().join("out").exists(), "refused before creating anything");
    let o = bin()
        .arg("--disc")
        .arg(&disc)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .args(["--jobs", "0", "--quiet", "--no-previews"])
        .output()
        .unwrap();
    ok(&o);
}

// 7. A partial run updates only what it exported.
#[test]
fn only_into_a_used_out_keeps_the_other_containers() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, src) = clean_disc(tmp.path());
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--no-previews"]));
    let full = manifest(&out);
    let all = files(&out);
    let stage_name = src.stage.rel_path.rsplit('/').next().unwrap().to_string();
    ok(&export(&disc, &out, &["--no-previews", "--only", &stage_name]));
    assert_eq!(manifest(&out), full, "same entries, the model's kept");
    assert_eq!(files(&out), all);
    // A glob matching nothing: usage error, nothing touched.
    let o = export(&disc, &out, &["--no-previews", "--only", "Nothing*"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("matches no container"));
    assert_eq!(manifest(&out), full);
    assert_eq!(files(&out), all);
    // The model changes on disc; a model-only run updates it and keeps the stage.
    std::fs::remove_file(disc.join(&src.stage.rel_path)).unwrap();
    let model_name = src.model.rel_path.rsplit('/').next().unwrap().to_string();
    ok(&export(&disc, &out, &["--no-previews", "--only", &model_name]));
    assert_eq!(
        manifest(&out),
        full,
        "the stage's entry stays although it left the disc"
    );
}

// 7b. `--only` selects by what the user sees of a container: its folder in `out/`, its
// manifest path, its file name; case-insensitively; repeated globs add up.
#[test]
fn only_matches_the_folder_the_path_and_several_globs() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, src) = clean_disc(tmp.path());
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--no-previews"]));
    let full = manifest(&out);
    let stage_dir = full.containers.iter().find(|c| c.path == src.stage.rel_path).map(|c| {
        c.resources
            .iter()
            .find_map(|r| r.gltf.clone())
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_string()
    });
    let stage_dir = stage_dir.expect("the stage has a decoded resource");
    let exported = |args: &[&str]| {
        let o = tmp.path().join(format!("o{}", args.len()));
        let _ = std::fs::remove_dir_all(&o);
        let mut all = vec!["--no-previews"];
        all.extend(args);
        ok(&export(&disc, &o, &all));
        let mut paths: Vec<String> = manifest(&o).containers.iter().map(|c| c.path.clone()).collect();
        paths.sort();
        paths
    };
    // The output folder, upper-cased.
    assert_eq!(
        exported(&["--only", &stage_dir.to_uppercase()]),
        vec![src.stage.rel_path.clone()]
    );
    // The manifest path.
    assert_eq!(
        exported(&["--only", "x", "--only", &src.model.rel_path.to_lowercase()]),
        vec![src.model.rel_path.clone()]
    );
    // Two file names, repeated.
    let names: Vec<String> = [&src.stage.rel_path, &src.model.rel_path]
        .iter()
        .map(|p| p.rsplit('/').next().unwrap().to_string())
        .collect();
    let mut both = vec![src.model.rel_path.clone(), src.stage.rel_path.clone()];
    both.sort();
    assert_eq!(
        exported(&["--only", &names[0], "--only", &names[1], "--only", "y"]),
        both
    );
}

// 8. The small ones.
#[test]
fn a_config_read_error_is_said_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, _) = clean_disc(tmp.path());
    let o = export(&disc, &tmp.path().join("out"), &["--config", "nonexist.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn preview_size_zero_is_a_config_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, _) = clean_disc(tmp.path());
    let cfg = tmp.path().join("c.toml");
    std::fs::write(&cfg, "[output]\npreview_size = 0\n").unwrap();
    let o = export(&disc, &tmp.path().join("out"), &["--config", cfg.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("output.preview_size = 0 is out of range"));
}

/// `diff A B` with a time limit: (exit code, stderr, wall time). (Its test uses a FIFO and
/// `/dev/zero`: Unix only.)
#[cfg(unix)]
fn diff(a: &Path, b: &Path) -> (Option<i32>, String, Duration) {
    let t = Instant::now();
    let mut child = bin()
        .arg("diff")
        .arg(a)
        .arg(b)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if t.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("diff {} blocked", b.display());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        t.elapsed(),
    )
}

#[cfg(unix)]
#[test]
fn diff_refuses_devices_fifos_and_duplicates() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, _) = clean_disc(tmp.path());
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--no-previews"]));
    let good = out.join("manifest.json");
    // An export folder stands for its manifest.
    let (code, err, _) = diff(&out, &out);
    assert_eq!(code, Some(0), "{err}");
    let (code, err, _) = diff(&good, Path::new("/dev/zero"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    let fifo = tmp.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (code, err, _) = diff(&good, &fifo);
    assert_eq!(code, Some(2), "{err}");
    // Duplicated container, duplicated resource.
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&good).unwrap()).unwrap();
    let first = v["containers"][0].clone();
    v["containers"].as_array_mut().unwrap().push(first);
    let dup = tmp.path().join("dup.json");
    std::fs::write(&dup, serde_json::to_vec(&v).unwrap()).unwrap();
    let (code, err, _) = diff(&good, &dup);
    assert_eq!(code, Some(2));
    assert!(err.contains("listed twice"), "{err}");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&good).unwrap()).unwrap();
    let r = v["containers"][0]["resources"][0].clone();
    v["containers"][0]["resources"].as_array_mut().unwrap().push(r);
    std::fs::write(&dup, serde_json::to_vec(&v).unwrap()).unwrap();
    let (code, err, _) = diff(&good, &dup);
    assert_eq!(code, Some(2));
    assert!(err.contains("resource index"), "{err}");
}

#[test]
fn a_resource_name_over_4096_bytes_keeps_its_first_4096() {
    let tmp = tempfile::tempdir().unwrap();
    let disc = tmp.path().join("disc");
    std::fs::create_dir_all(res_dir(&disc)).unwrap();
    let long = vec![b'n'; 5000];
    let file = assemble(
        &[RawEntry {
            tag: *b"XBG7",
            desc: Vec::new(),
            name: long,
        }],
        &[0u8; 16],
    );
    std::fs::write(res_dir(&disc).join("long.xpr"), file).unwrap();
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--no-previews"]));
    let m = manifest(&out);
    assert_eq!(m.containers[0].resources[0].name, "n".repeat(4096));
}

#[test]
fn a_case_only_duplicate_does_not_take_the_genuine_files_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, src) = clean_disc(tmp.path());
    let name = src.model.rel_path.rsplit('/').next().unwrap();
    let upper = format!("{}.XPR", stem(name));
    // Sorted by name, `X.XPR` comes before `X.xpr`.
    std::fs::write(res_dir(&disc).join(&upper), &src.stage.bytes).unwrap();
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--no-previews"]));
    let m = manifest(&out);
    let genuine = m.containers.iter().find(|c| c.path == src.model.rel_path).unwrap();
    let g = genuine.resources[0].gltf.as_deref().unwrap();
    assert!(g.starts_with(&format!("{}/", stem(name))), "{g}");
    let dup = m.containers.iter().find(|c| c.path.ends_with(&upper)).unwrap();
    let d = dup.resources.iter().find_map(|r| r.gltf.as_deref()).unwrap();
    assert!(d.starts_with(&format!("{}~", stem(name))), "{d}");
}

#[cfg(unix)]
#[test]
fn a_fifo_a_folder_and_a_bare_dot_xpr_are_listed_not_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, src) = clean_disc(tmp.path());
    let res = res_dir(&disc);
    assert!(Command::new("mkfifo")
        .arg(res.join("pipe.xpr"))
        .status()
        .unwrap()
        .success());
    std::fs::create_dir(res.join("folder.xpr")).unwrap();
    std::fs::write(res.join(".xpr"), &src.model.bytes).unwrap();
    let out = tmp.path().join("out");
    let t = Instant::now();
    ok(&export(&disc, &out, &["--no-previews"]));
    assert!(t.elapsed() < Duration::from_secs(60));
    let m = manifest(&out);
    let by = |n: &str| {
        m.containers
            .iter()
            .find(|c| c.path == format!("hidden/resource3d/{n}"))
            .unwrap()
    };
    assert!(by("pipe.xpr").error.as_ref().unwrap().detail.contains("FIFO"));
    assert!(by("folder.xpr").error.as_ref().unwrap().detail.contains("directory"));
    let bare = by(".xpr");
    assert!(bare.error.is_none());
    assert!(!bare.resources.is_empty());
}
