//! Clear messages: an unreadable `--disc`, a `--disc` without `hidden/resource3d`, an
//! `--out` inside `--disc`, and an unwritable `--out` each stop with exit status 2 and
//! one line on stderr that names the problem, and create nothing.

use std::path::Path;
use std::process::Command;

/// (exit code, stderr) of `xbg7-export --disc D --out O --quiet`.
fn export(disc: &Path, out: &Path) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .arg("--disc")
        .arg(disc)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.stdout.is_empty());
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn one_line(err: &str, needle: &str) {
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.starts_with("xbg7-export: error: "), "{err:?}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
}

fn disc_with_resource3d(root: &Path) -> std::path::PathBuf {
    let disc = root.join("disc");
    std::fs::create_dir_all(disc.join("hidden").join("resource3d")).unwrap();
    disc
}

#[test]
fn unreadable_disc_is_one_line_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (code, err) = export(&tmp.path().join("no-such-disc"), &out);
    assert_eq!(code, 2);
    one_line(&err, "cannot read disc");
    assert!(!out.exists());
    // A regular file is not a disc either.
    std::fs::write(tmp.path().join("file"), b"x").unwrap();
    let (code, err) = export(&tmp.path().join("file"), &out);
    assert_eq!(code, 2);
    one_line(&err, "is not a folder, an .xpr file or an Xbox disc image");
    assert!(!out.exists());
}

#[test]
fn disc_without_resource3d_is_one_line_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("disc").join("hidden")).unwrap();
    let out = tmp.path().join("out");
    let (code, err) = export(&tmp.path().join("disc"), &out);
    assert_eq!(code, 2);
    one_line(&err, "looked for a folder hidden/resource3d (any case");
    assert!(!out.exists());
}

#[test]
fn out_inside_disc_is_refused_before_anything_is_created() {
    let tmp = tempfile::tempdir().unwrap();
    let disc = disc_with_resource3d(tmp.path());
    for out in [
        disc.join("out"),
        disc.join("hidden").join("resource3d").join("deep").join("out"),
        disc.clone(),
        // Lexically outside, really inside.
        tmp.path().join("nowhere").join("..").join("disc").join("x"),
    ] {
        let (code, err) = export(&disc, &out);
        assert_eq!(code, 2, "{}", out.display());
        one_line(&err, "is inside --disc");
    }
    assert!(!disc.join("out").exists());
    assert!(!disc.join("hidden").join("resource3d").join("deep").exists());
    assert!(!disc.join("x").exists());
    // Through a symlink to the disc.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&disc, tmp.path().join("alias")).unwrap();
        let (code, err) = export(&disc, &tmp.path().join("alias").join("o"));
        assert_eq!(code, 2);
        one_line(&err, "is inside --disc");
        assert!(!disc.join("o").exists());
    }
}

#[test]
fn unwritable_out_is_one_line_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let disc = disc_with_resource3d(tmp.path());
    // A path below a regular file cannot be created (even by root).
    std::fs::write(tmp.path().join("plain"), b"x").unwrap();
    let (code, err) = export(&disc, &tmp.path().join("plain").join("out"));
    assert_eq!(code, 2);
    one_line(&err, "cannot create or write output folder");
    // --out is itself a regular file.
    let (code, err) = export(&disc, &tmp.path().join("plain"));
    assert_eq!(code, 2);
    one_line(&err, "cannot create or write output folder");
    assert_eq!(std::fs::read(tmp.path().join("plain")).unwrap(), b"x");
}

#[test]
fn a_good_run_on_an_empty_disc_exits_0_with_an_empty_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let disc = disc_with_resource3d(tmp.path());
    let out = tmp.path().join("out");
    let (code, err) = export(&disc, &out);
    assert_eq!((code, err.as_str()), (0, ""));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // The manifest, the report, and the tool's own folder (its lock; the run state is removed).
    assert_eq!(names, [".xbg7", "index.html", "manifest.json"]);
    let mut own: Vec<String> = std::fs::read_dir(out.join(".xbg7"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    own.sort();
    assert_eq!(own, ["lock"]);
}

/// `info F | head` and `diff A B | head -1`: a reader that goes away ends the printing
/// subcommand quietly (SIGPIPE, as for any Unix tool), never with a panic and exit 101.
#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_a_printing_subcommand_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let spec = xbg7_synth::file_plan(&xbg7_synth::SynthOptions::demo(3))
        .into_iter()
        .next()
        .unwrap();
    let file = tmp.path().join("one.xpr");
    std::fs::write(&file, xbg7_synth::build_file(&spec).bytes).unwrap();
    // The read end is closed before the child starts: its first write meets a closed pipe.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .arg("info")
        .arg(&file)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), None, "ended by a signal, not an exit code: {err}");
    assert_eq!(o.status.signal(), Some(libc::SIGPIPE));
}
