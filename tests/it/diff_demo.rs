//! `diff` on real exports: the demo disc exported with two decoder configurations (the
//! default, and a coordinate bound that rejects the 300 000-unit skybox planes) gives
//! exactly the skybox resources as regressions, and the CLI's exit codes follow.

use crate::common;

use std::collections::BTreeSet;
use std::process::Command;
use xbg7_export::config::Config;
use xbg7_export::diff;
use xbg7_export::export::{export, ExportOptions};

#[test]
fn tightening_a_gate_shows_exactly_the_skyboxes_as_regressions() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, truth) = common::demo_disc(&tmp);
    let opts = ExportOptions::quiet(None, false);
    let old = export(&disc, &tmp.path().join("old"), &Config::default(), &opts).unwrap();
    let mut strict = Config::default();
    strict.gates.max_abs_coordinate = 1000.0;
    let new = export(&disc, &tmp.path().join("new"), &strict, &opts).unwrap();

    // Both real manifests validate against the published JSON Schema.
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("docs/manifest.schema.json").unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for dir in ["old", "new"] {
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(tmp.path().join(dir).join("manifest.json")).unwrap()).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&m)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{dir} manifest: {errors:?}");
    }

    let d = diff::diff(&old, &new);
    let skyboxes: BTreeSet<(String, u32)> = truth
        .containers
        .iter()
        .flat_map(|c| {
            c.resources
                .iter()
                .filter(|r| r.skybox)
                .map(move |r| (c.path.clone(), r.index))
        })
        .collect();
    assert!(!skyboxes.is_empty());
    let listed: BTreeSet<(String, u32)> = d
        .containers
        .iter()
        .flat_map(|c| c.newly_rejected.iter().map(move |r| (c.path.clone(), r.index)))
        .collect();
    assert_eq!(listed, skyboxes);
    for c in &d.containers {
        for r in &c.newly_rejected {
            assert_eq!(
                r.reason.as_ref().unwrap().code.as_str(),
                "position_out_of_bounds",
                "{}",
                r.name
            );
        }
        assert!(c.newly_decoded.is_empty() && c.geometry_changed.is_empty() && c.reason_changed.is_empty());
    }
    assert_eq!(d.total.newly_rejected, skyboxes.len());
    assert_eq!(d.total.regressions, skyboxes.len());
    assert_eq!(d.total.gains, 0);
    assert_eq!(d.coverage.after.decoded, d.coverage.before.decoded - skyboxes.len());
    assert_eq!(diff::exit_code(&d, false), 1);
    assert_eq!(diff::exit_code(&d, true), 0);

    // The other way round: only gains, no regression.
    let back = diff::diff(&new, &old);
    assert_eq!(back.total.newly_decoded, skyboxes.len());
    assert_eq!(back.total.regressions, 0);
    assert_eq!(diff::exit_code(&back, false), 0);

    // The CLI: 1 on regression, 0 when allowed, 2 when a file is not a manifest.
    let bin = env!("CARGO_BIN_EXE_xbg7-export");
    let (o, n) = (
        tmp.path().join("old/manifest.json"),
        tmp.path().join("new/manifest.json"),
    );
    let status = |args: &[&std::ffi::OsStr]| Command::new(bin).args(args).output().unwrap();
    let r = status(&["diff".as_ref(), o.as_os_str(), n.as_os_str()]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stdout).contains("position_out_of_bounds"));
    let r = status(&[
        "diff".as_ref(),
        o.as_os_str(),
        n.as_os_str(),
        "--allow-regressions".as_ref(),
    ]);
    assert_eq!(r.status.code(), Some(0));
    let r = status(&[
        "diff".as_ref(),
        n.as_os_str(),
        o.as_os_str(),
        "--format".as_ref(),
        "markdown".as_ref(),
    ]);
    assert_eq!(r.status.code(), Some(0));
    let truth_json = disc.join("truth.json");
    let r = status(&["diff".as_ref(), truth_json.as_os_str(), n.as_os_str()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("schema"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
}
