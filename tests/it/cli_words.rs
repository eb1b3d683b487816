//! What the CLI says, word for word (issue 41): counted words in the singular for exactly
//! one ("1 sub-mesh", never "1 sub-meshes"); `render`'s defaults, shown and used; what an
//! `--only` run says it did, and the names it suggests when it matches nothing.

use crate::common;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
}

/// `info` over the demo disc's first containers: every counted word agrees with its
/// number, and a one-primitive mesh says "1 sub-mesh".
#[test]
fn info_counts_in_the_singular_for_one() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for spec in xbg7_synth::file_plan(&xbg7_synth::SynthOptions::demo(1))
        .iter()
        .take(12)
    {
        let file = tmp.path().join(format!("{}.xpr", spec.index));
        std::fs::write(&file, xbg7_synth::build_file(spec).bytes).unwrap();
        let o = bin().arg("info").arg(&file).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        text.push_str(&String::from_utf8(o.stdout).unwrap());
    }
    for bad in ["1 sub-meshes", "1 vertices", "1 triangles,", "1 resources"] {
        let hit = text.lines().find(|l| l.contains(&format!(" {bad}")));
        assert!(hit.is_none(), "{hit:?}");
    }
    assert!(
        text.contains(", 1 sub-mesh\n"),
        "no one-primitive mesh in the sample:\n{text}"
    );
    assert!(
        text.contains(" sub-meshes\n"),
        "no many-primitive mesh in the sample:\n{text}"
    );
}

/// A disc of one model: the summary counts "1 file" and "0 file errors", in words that
/// agree with their numbers.
#[test]
fn the_summary_of_one_file_says_one_file() {
    let tmp = tempfile::tempdir().unwrap();
    let res = tmp.path().join("disc").join("hidden").join("resource3d");
    std::fs::create_dir_all(&res).unwrap();
    let spec = xbg7_synth::file_plan(&xbg7_synth::SynthOptions::demo(1))
        .into_iter()
        .find(|s| s.rel_path.contains("/rou_"))
        .unwrap();
    std::fs::write(res.join("one.xpr"), xbg7_synth::build_file(&spec).bytes).unwrap();
    let o = bin()
        .args(["--no-previews", "--no-report", "--disc"])
        .arg(tmp.path().join("disc"))
        .arg("--out")
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    let line = out.lines().next().unwrap();
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("out/manifest.json")).unwrap()).unwrap();
    let t = &m["summary"];
    let n = |k: &str| t[k].as_u64().unwrap();
    let resources = match n("resources") {
        1 => "1 resource".to_string(),
        r => format!("{r} resources"),
    };
    let want = format!(
        "1 file, {resources}: {} decoded, {} rejected (",
        n("decoded"),
        n("rejected")
    );
    assert!(line.starts_with(&want), "{line:?} does not start with {want:?}");
    assert!(line.contains("); 0 file errors; "), "{line:?}");
}

/// `render --help` shows the defaults of `--size` (512 for a model, the configuration's
/// cell for a grid) and of `-o`.
#[test]
fn render_help_shows_the_defaults() {
    let o = bin().args(["render", "--help"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8(o.stdout).unwrap();
    let cfg = xbg7_export::config::Config::default();
    for want in [
        format!("default {}", xbg7_export::inspect::RENDER_SIZE),
        format!("default {}", cfg.output.stage_cell),
        "default: FILE's name with .png".to_string(),
    ] {
        assert!(help.contains(&want), "{want:?} not in:\n{help}");
    }
}

/// Without `-o`, `render` writes `<stem>.png` in the current folder, and never over a
/// file that is already there (it says to give `-o`).
#[test]
fn render_without_o_writes_the_stem_png_and_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = xbg7_synth::file_plan(&xbg7_synth::SynthOptions::demo(1))
        .into_iter()
        .find(|s| s.rel_path.contains("/rou_"))
        .unwrap();
    let file = tmp.path().join("ship.v2.xpr");
    std::fs::write(&file, xbg7_synth::build_file(&spec).bytes).unwrap();
    let run = || bin().arg("render").arg(&file).current_dir(tmp.path()).output().unwrap();
    let o = run();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let png = tmp.path().join("ship.v2.png");
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("ship.v2.png"), "{err}");
    // Again: refused, the file untouched.
    std::fs::write(&png, b"mine").unwrap();
    let o = run();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("ship.v2.png already exists") && err.contains("-o"),
        "{err}"
    );
    assert_eq!(std::fs::read(&png).unwrap(), b"mine");
}

/// `--only` into a used `--out`: the summary says what this run exported, then what was
/// kept and what the manifest lists; a glob that matches nothing names the nearest
/// folders.
#[test]
fn only_says_what_this_run_exported_and_suggests_near_names() {
    let tmp = tempfile::tempdir().unwrap();
    let res = common::resource3d(&tmp);
    let bytes = common::model_bytes();
    for name in ["Stage_S1.xpr", "Stage_S10.xpr", "Stage_S100.xpr", "ship.xpr"] {
        std::fs::write(res.join(name), &bytes).unwrap();
    }
    let out = tmp.path().join("out");
    let run = |extra: &[&str]| {
        bin()
            .args(["--no-previews", "--no-report", "--disc"])
            .arg(tmp.path().join("disc"))
            .arg("--out")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let resources = |n: u64| {
        if n == 1 {
            "1 resource".to_string()
        } else {
            format!("{n} resources")
        }
    };
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(0));
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let per_file = m["summary"]["resources"].as_u64().unwrap() / 4;
    let full = String::from_utf8(o.stdout).unwrap();
    assert!(
        full.starts_with(&format!("4 files, {}: ", resources(4 * per_file))),
        "{full}"
    );

    let o = run(&["--only", "stage_s10"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with(&format!("this run: 1 file, {}: ", resources(per_file))),
        "{text}"
    );
    assert_eq!(
        lines[1],
        format!(
            "3 other files kept as the earlier run left them; the manifest lists 4 files, {}",
            resources(4 * per_file)
        )
    );
    assert!(lines[2].ends_with("manifest.json"), "{text}");

    let o = run(&["--only", "S10"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.ends_with("; nearest: 'Stage_S10', 'Stage_S100'\n"), "{err}");
    let o = run(&["--only", "zzz*"]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.ends_with("left as it was)\n"), "no name is near zzz: {err}");
}

/// `render` of a stage: every row of cells has a strip below it with the cells' names
/// (ink pixels under the first cell), the strip [`xbg7_export::label::strip_height`] tall.
#[test]
fn render_names_each_cell_of_a_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = xbg7_synth::file_plan(&xbg7_synth::SynthOptions::demo(1))
        .into_iter()
        .find(|s| s.rel_path.ends_with("/Stage_S10.xpr"))
        .unwrap();
    let file = tmp.path().join("Stage_S10.xpr");
    std::fs::write(&file, xbg7_synth::build_file(&spec).bytes).unwrap();
    let png = tmp.path().join("grid.png");
    let o = bin().arg("render").arg(&file).arg("-o").arg(&png).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let cell = xbg7_export::config::Config::default().output.stage_cell;
    let strip = xbg7_export::label::strip_height(cell);
    assert_eq!(info.height % (cell + strip), 0, "{}×{}", info.width, info.height);
    let px = |x: u32, y: u32| {
        let i = ((y * info.width + x) * 4) as usize;
        [buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]
    };
    let ink = (cell..cell + strip).flat_map(|y| (0..cell).map(move |x| (x, y)));
    assert!(
        ink.into_iter().any(|(x, y)| px(x, y) == [32, 32, 32, 255]),
        "no name under the first cell"
    );
}
