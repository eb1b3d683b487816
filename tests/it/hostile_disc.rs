//! End to end on the hostile disc (`synth::hostile`): the exporter binary, run as a child
//! process on a clean disc (the two source files) and on the same disc plus every hostile
//! fixture, must exit 0, export the clean files byte-identically, list every hostile file
//! with the error or rejects its fixture expects, write nothing outside `--out`, and peak
//! at no more than twice the clean run's memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use xbg7::reason::Code;
use xbg7_export::manifest::{ContainerEntry, Manifest, Status};
use xbg7_export::walker::name_text;
use xbg7_synth::hostile::{self, Expect, HostileFile, Sources};
use xbg7_synth::SynthOptions;

const PREFIX: &str = "hidden/resource3d/";

/// Run the exporter; returns (exit code, stderr, peak RSS in kB from /proc VmHWM).
fn run_export(disc: &Path, out: &Path) -> (i32, String, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .arg("--disc")
        .arg(disc)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "1", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status_path = PathBuf::from(format!("/proc/{}/status", child.id()));
    let mut peak = 0u64;
    let status = loop {
        // VmHWM is the process's own high-water mark: the last value read before exit
        // is its peak up to then (polled every 2 ms; the tail after it is the exit).
        if let Ok(s) = std::fs::read_to_string(&status_path) {
            if let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut err = String::new();
    use std::io::Read;
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (status.code().unwrap_or(-1), err, peak)
}

fn manifest(out: &Path) -> Manifest {
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
}

fn by_path(m: &Manifest) -> BTreeMap<&str, &ContainerEntry> {
    m.containers.iter().map(|c| (c.path.as_str(), c)).collect()
}

/// Every file under `root` (relative path → bytes); panics on a symlink.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut t = BTreeMap::new();
    for e in walkdir::WalkDir::new(root).follow_links(false) {
        let e = e.unwrap();
        assert!(!e.path_is_symlink(), "symlink in the output: {}", e.path().display());
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
            // The tool's own folder (its lock) is not an output.
            if !rel.starts_with(".xbg7") {
                t.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    t
}

/// The same resources with the same outcome (status, reason code, geometry digest).
fn assert_same_outcome(got: &ContainerEntry, want: &ContainerEntry, what: &str) {
    let key = |c: &ContainerEntry| {
        c.resources
            .iter()
            .map(|r| {
                (
                    r.index,
                    r.status,
                    r.reason.as_ref().map(|x| x.code),
                    r.digest.clone(),
                    r.vertices,
                    r.triangles,
                )
            })
            .collect::<Vec<_>>()
    };
    assert!(got.error.is_none(), "{what}: {:?}", got.error);
    assert_eq!(key(got), key(want), "{what}");
    // Texture PNGs live under each container's own folder: compare everything else.
    let tex = |c: &ContainerEntry| {
        c.textures
            .iter()
            .map(|t| (t.index, t.name.clone(), t.status, t.format.clone(), t.digest.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(tex(got), tex(want), "{what}");
}

fn check_expectation(h: &HostileFile, c: &ContainerEntry, clean: &BTreeMap<&str, &ContainerEntry>) {
    let what = format!("{} ({})", c.path, h.what);
    match &h.expect {
        Expect::FileError(code) => {
            assert_eq!(c.error.as_ref().map(|e| e.code.as_str()), Some(*code), "{what}");
            assert!(!c.error.as_ref().unwrap().detail.is_empty(), "{what}");
            assert!(c.resources.is_empty(), "{what}");
        }
        Expect::Rejects { source, rejects } => {
            assert!(c.error.is_none(), "{what}");
            let src = clean[source.as_str()];
            for r in &c.resources {
                match rejects.iter().find(|(i, _)| *i == r.index) {
                    Some((_, code)) => {
                        assert_eq!(r.status, Status::Rejected, "{what} [{}]", r.index);
                        assert_eq!(
                            r.reason.as_ref().map(|x| x.code),
                            Some((*code).into()),
                            "{what} [{}]",
                            r.index
                        );
                    }
                    None => {
                        // A later listing of a descriptor has its first listing's outcome.
                        let i = r.same_as.unwrap_or(r.index);
                        let s = src.resources.iter().find(|s| s.index == i).unwrap();
                        assert_eq!((r.status, &r.digest), (s.status, &s.digest), "{what} [{}]", r.index);
                    }
                }
            }
            for (i, _) in rejects {
                assert!(c.resources.iter().any(|r| r.index == *i), "{what}: [{i}] not listed");
            }
        }
        Expect::SameAs(source) => assert_same_outcome(c, clean[source.as_str()], &what),
        Expect::SomeRejected => {
            assert!(c.error.is_none(), "{what}");
            assert!(c.resources.iter().any(|r| r.status == Status::Rejected), "{what}");
        }
    }
    for r in &c.resources {
        assert_eq!(r.status == Status::Rejected, r.reason.is_some(), "{what} [{}]", r.index);
    }
}

/// Output names are built from `[A-Za-z0-9._~-]` only and never start with a dot.
fn assert_safe_rel(rel: &str) {
    for comp in rel.split('/') {
        assert!(!comp.is_empty() && !comp.starts_with('.'), "{rel}");
        assert!(
            comp.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'~')),
            "{rel}"
        );
    }
}

#[test]
fn hostile_disc_exports_like_the_clean_disc_and_lists_every_hostile_file() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = SynthOptions::demo(1);
    let src: Sources = hostile::sources(&opts);
    let clean_disc = tmp.path().join("clean");
    let hostile_disc = tmp.path().join("hostile");
    hostile::write_sources(&clean_disc, &src).unwrap();
    let files = hostile::write_fixtures(&hostile_disc, &src).unwrap();
    let (clean_out, hostile_out) = (tmp.path().join("out_clean"), tmp.path().join("out_hostile"));

    let (code, err, clean_rss) = run_export(&clean_disc, &clean_out);
    assert_eq!(code, 0, "{err}");
    let (code, err, hostile_rss) = run_export(&hostile_disc, &hostile_out);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");

    let (mc, mh) = (manifest(&clean_out), manifest(&hostile_out));
    let (pc, ph) = (by_path(&mc), by_path(&mh));

    // The clean files: same manifest entries, byte-identical outputs.
    let (tc, th) = (tree(&clean_out), tree(&hostile_out));
    for (path, c) in &pc {
        assert_eq!(ph[path], *c, "{path}");
    }
    let mut compared = 0;
    // The report is not compared: it lists the hostile files too.
    for rel in mc.outputs().into_iter().filter(|r| *r != "index.html") {
        assert!(tc[rel] == th[rel], "{rel} differs from the clean run");
        compared += 1;
    }
    assert!(compared >= 10, "only {compared} clean outputs");

    // Every hostile file is listed, as its fixture expects.
    assert_eq!(mh.containers.len(), mc.containers.len() + files.len());
    for h in &files {
        let path = format!("{PREFIX}{}", name_text(&h.name));
        let c = ph
            .get(path.as_str())
            .unwrap_or_else(|| panic!("{path} not in the manifest"));
        check_expectation(h, c, &pc);
    }
    let file_errors = files
        .iter()
        .filter(|h| matches!(h.expect, Expect::FileError(_)))
        .count();
    assert_eq!(mh.summary.total.file_errors, file_errors);
    assert_eq!(mh.summary.reasons["symlink"], 4);
    assert!(files
        .iter()
        .any(|h| h.expect == Expect::FileError(Code::BadDirectory.as_str())));

    // Every referenced output exists; every output path is safe and unique; nothing in the
    // out tree resolves outside it; no temporary is left behind.
    let out_c = hostile_out.canonicalize().unwrap();
    let outputs = mh.outputs();
    let mut seen = std::collections::HashSet::new();
    for rel in &outputs {
        assert_safe_rel(rel);
        assert!(seen.insert(rel.to_ascii_lowercase()), "{rel} twice");
        assert!(th.contains_key(*rel), "{rel} missing");
    }
    for e in walkdir::WalkDir::new(&hostile_out).follow_links(false) {
        let p = e.unwrap().path().canonicalize().unwrap();
        assert!(p.starts_with(&out_c), "{} outside --out", p.display());
    }
    for rel in th.keys() {
        assert!(!rel.ends_with(".xbg7-tmp"), "{rel}");
        assert!(
            rel == "manifest.json" || outputs.contains(&rel.as_str()),
            "{rel} not in the manifest"
        );
    }
    // The names that aim outside landed nowhere else.
    assert!(!tmp.path().join("escape.gltf").exists());
    assert!(!Path::new("/tmp/xbg7-escape.gltf").exists());
    assert!(!hostile_disc.join("outside").exists());

    // Memory: within 2× the clean run (hostile counts never size an allocation).
    eprintln!("peak RSS: clean {clean_rss} kB, hostile {hostile_rss} kB");
    assert!(clean_rss > 0 && hostile_rss > 0);
    assert!(
        hostile_rss <= 2 * clean_rss,
        "peak RSS {hostile_rss} kB vs clean {clean_rss} kB"
    );
}
