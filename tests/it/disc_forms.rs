//! `--disc` in every form a user has it — the folder as the game spells it
//! (`hidden/Resource3D`), an XISO and an XGD2-offset image written by `synth --iso`, a
//! plain folder of `.xpr` files, one `.xpr` — exports byte-identically (outputs and
//! manifest) to the synthetic disc's folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use xbg7_synth::{self as synth, SynthOptions};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
}

fn run(cmd: &mut Command) {
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&o.stderr));
}

fn export(disc: &Path, out: &Path) {
    run(bin()
        .arg("--disc")
        .arg(disc)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--no-previews"]));
}

/// Every file below `root` but the tool's own folder, with its bytes.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .filter(|(rel, _)| !rel.starts_with(".xbg7"))
        .collect()
}

/// Hard-link (or copy) every file of `from` into the new folder `to`.
fn link_all(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if std::fs::hard_link(e.path(), &dst).is_err() {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

fn differences(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut d = Vec::new();
    for k in a.keys().chain(b.keys()) {
        if a.get(k) != b.get(k) {
            d.push(k.clone());
        }
    }
    d.sort();
    d.dedup();
    d
}

#[test]
fn every_form_of_disc_exports_byte_identically() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let opts = SynthOptions::demo(1);
    let disc = t.join("disc");
    synth::write_disc(&disc, &opts).unwrap();
    let res = disc.join("hidden").join("resource3d");
    export(&disc, &t.join("ref"));
    let want = tree(&t.join("ref"));
    assert!(want.len() > 100, "{} files", want.len());

    let mut forms: Vec<(&str, PathBuf)> = Vec::new();
    // The folder as the game's path table spells it.
    let dump = t.join("dump");
    link_all(&res, &dump.join("hidden").join("Resource3D"));
    forms.push(("hidden/Resource3D dump", dump));
    // A plain folder of .xpr files.
    let copied = t.join("copied");
    link_all(&res, &copied);
    forms.push(("folder of .xpr", copied));
    // Images made by `synth --iso` (the generator is deterministic: the same bytes).
    let xiso = t.join("disc.iso");
    run(bin().args(["synth", "--seed", "1", "--iso"]).arg(&xiso));
    forms.push(("XISO", xiso));
    let xgd2 = t.join("xgd2.iso");
    run(bin().args(["synth", "--seed", "1", "--xgd2", "--iso"]).arg(&xgd2));
    let len = std::fs::metadata(&xgd2).unwrap().len();
    assert!(len > xbg7_export::image::XGD2_OFFSET, "{len}");
    forms.push(("XGD2 image", xgd2));

    for (what, path) in &forms {
        let out = t.join(format!("out-{}", what.replace([' ', '/', '.'], "_")));
        export(path, &out);
        let got = tree(&out);
        assert_eq!(differences(&want, &got), Vec::<String>::new(), "{what}");
        eprintln!("{what}: {} files identical", got.len());
    }

    // One .xpr: its manifest entry and its files are the directory export's.
    let reference: xbg7_export::manifest::Manifest = serde_json::from_slice(&want["manifest.json"]).unwrap();
    let stage = reference
        .containers
        .iter()
        .filter(|c| c.path.contains("Stage_S"))
        .max_by_key(|c| c.resources.len())
        .unwrap();
    let name = stage.path.rsplit('/').next().unwrap();
    let one = t.join("out-one");
    export(&res.join(name), &one);
    let m: xbg7_export::manifest::Manifest =
        serde_json::from_slice(&std::fs::read(one.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m.containers, vec![stage.clone()]);
    let got = tree(&one);
    let dir = format!("{}/", name.rsplit_once('.').unwrap().0);
    let want_one: BTreeMap<String, Vec<u8>> = want
        .iter()
        .filter(|(k, _)| k.starts_with(&dir))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    // The manifest and the report describe what was exported, one container here.
    assert!(got.contains_key("index.html"));
    let got_one: BTreeMap<String, Vec<u8>> = got
        .into_iter()
        .filter(|(k, _)| k != "manifest.json" && k != "index.html")
        .collect();
    assert_eq!(differences(&want_one, &got_one), Vec::<String>::new());
}
