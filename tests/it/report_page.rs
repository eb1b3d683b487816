//! `OUT/index.html` as the pipeline writes it: listed in the manifest, the same bytes on
//! every run, removed by a `--no-report` re-run like any output it no longer produces;
//! and the `diff --format html -o FILE` page. (The page in a browser: tools/report-test.mjs.)

use std::process::Command;
use xbg7_export::config::Config;
use xbg7_export::export::{export, ExportOptions};
use xbg7_synth::{hostile, SynthOptions};

fn opts(jobs: usize) -> ExportOptions {
    ExportOptions::quiet(Some(jobs), true)
}

#[test]
fn the_page_is_an_output_deterministic_and_switchable() {
    let tmp = tempfile::tempdir().unwrap();
    let src = hostile::sources(&SynthOptions::demo(1));
    let disc = tmp.path().join("disc");
    hostile::write_sources(&disc, &src).unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let cfg = Config::default();
    let m = export(&disc, &a, &cfg, &opts(1)).unwrap();
    export(&disc, &b, &cfg, &opts(2)).unwrap();
    assert_eq!(m.report.as_deref(), Some("index.html"));
    assert!(m.outputs().contains(&"index.html"));
    let page = std::fs::read_to_string(a.join("index.html")).unwrap();
    assert_eq!(page.as_bytes(), std::fs::read(b.join("index.html")).unwrap());
    assert!(page.starts_with("<!DOCTYPE html>"));
    // Every resource of the manifest is in the data blob, by name.
    for c in &m.containers {
        for r in &c.resources {
            let name = serde_json::to_string(&r.name).unwrap();
            let quoted = name
                .replace('<', "\\u003c")
                .replace('>', "\\u003e")
                .replace('&', "\\u0026");
            assert!(page.contains(&quoted) || r.name.chars().any(char::is_control), "{name}");
        }
    }
    // The same run again keeps it; a --no-report run removes it as stale.
    export(&disc, &a, &cfg, &opts(1)).unwrap();
    assert_eq!(std::fs::read_to_string(a.join("index.html")).unwrap(), page);
    let mut off = Config::default();
    off.output.report = false;
    let m2 = export(&disc, &a, &off, &opts(1)).unwrap();
    assert_eq!(m2.report, None);
    assert!(!a.join("index.html").exists());
    assert!(!std::fs::read_to_string(a.join("manifest.json"))
        .unwrap()
        .contains("\"report\""));

    // The diff page, written next to neither export: links lead into both folders.
    let page_dir = tmp.path().join("pages");
    std::fs::create_dir_all(&page_dir).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .arg("diff")
        .arg(a.join("manifest.json"))
        .arg(b.join("manifest.json"))
        .args(["--format", "html", "-o"])
        .arg(page_dir.join("diff.html"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty());
    let diff = std::fs::read_to_string(page_dir.join("diff.html")).unwrap();
    assert!(diff.starts_with("<!DOCTYPE html>") && diff.contains("\"mode\":\"diff\""));
}
