//! Clear messages: an unreadable `--disc`, a `--disc` without `hidden/resource3d`, an
//! `--out` inside `--disc`, and an unwritable `--out` each stop with exit status 2 and
//! one line on stderr that names the problem in words, and create nothing. An export that
//! completes but cannot write some output ends with its own exit status, 3.

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
    // --out is itself a regular file: said in words, not "File exists (os error 17)".
    let (code, err) = export(&disc, &tmp.path().join("plain"));
    assert_eq!(code, 2);
    one_line(&err, "is a file, not a folder");
    assert!(!err.contains("os error"), "{err}");
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

/// A `--disc` that is a FIFO, and a `hidden` folder that cannot be read: the message says
/// what is wrong (a FIFO; permission denied), not "not an Xbox disc image" or "holds no
/// containers".
#[cfg(unix)]
#[test]
fn a_special_or_unreadable_disc_is_named_for_what_it_is() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (code, err) = export(&fifo, &tmp.path().join("out"));
    assert_eq!(code, 2);
    one_line(&err, "is a FIFO, not a folder");
    // Root reads any folder whatever its mode: the rest is for other users only.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return;
    }
    let disc = disc_with_resource3d(tmp.path());
    let hidden = disc.join("hidden");
    std::fs::set_permissions(&hidden, std::fs::Permissions::from_mode(0o000)).unwrap();
    let (code, err) = export(&disc, &tmp.path().join("out2"));
    std::fs::set_permissions(&hidden, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(code, 2);
    one_line(&err, "ermission denied");
}

/// An output that cannot be written (here a folder stands where a `.gltf` goes) is listed
/// on its container, and the run, which completes, ends with exit status 3, not 0.
#[test]
fn a_failed_output_write_ends_the_run_with_status_3() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = xbg7_synth::file_plan(&xbg7_synth::SynthOptions::demo(1))
        .into_iter()
        .find(|s| s.rel_path.contains("/rou_"))
        .unwrap();
    let file = tmp.path().join(spec.rel_path.rsplit('/').next().unwrap());
    std::fs::write(&file, xbg7_synth::build_file(&spec).bytes).unwrap();
    let out = tmp.path().join("out");
    let (code, err) = export(&file, &out);
    assert_eq!((code, err.as_str()), (0, ""));
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let gltf = m["containers"][0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|r| r["gltf"].as_str())
        .unwrap()
        .to_string();
    std::fs::remove_file(out.join(&gltf)).unwrap();
    std::fs::create_dir_all(out.join(&gltf).join("blocker")).unwrap();
    let (code, err) = export(&file, &out);
    assert_eq!(code, 3, "{err}");
    one_line(&err, "could not be written");
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let e = &m["containers"][0]["error"];
    assert_eq!(e["code"], "io", "{m}");
    assert!(e["detail"].as_str().unwrap().starts_with("writing outputs"), "{e}");
}

/// `completions SHELL` prints a script that knows the options and subcommands, and the
/// usage line says --disc and --out are needed.
#[test]
fn completions_and_usage_name_what_is_needed() {
    for shell in ["bash", "zsh", "fish"] {
        let o = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(o.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&o.stdout);
        for word in ["disc", "only", "synth", "diff", "max-chars"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    let o = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("Usage: xbg7-export --disc <DISC> --out <DIR> [OPTIONS]"),
        "{help}"
    );
}

/// Messages on a stderr that cannot be written (a log file on a full disk: `/dev/full`
/// fails every write with "no space left") are dropped, never a panic: a failed export
/// keeps its exit status 2, and a `--verbose` run that succeeds keeps its 0 (`eprintln!`
/// would end both with a panic's 101, the message lost).
#[cfg(target_os = "linux")]
#[test]
fn a_stderr_that_cannot_be_written_keeps_the_runs_own_status() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(full)
            .status()
            .unwrap()
            .code()
    };
    let missing = tmp.path().join("no-such-disc");
    let out = tmp.path().join("out");
    let (d, o) = (std::ffi::OsStr::new("--disc"), std::ffi::OsStr::new("--out"));
    assert_eq!(run(&[d, missing.as_os_str(), o, out.as_os_str()]), Some(2));
    // A container (junk: rejected, a line of its own under --verbose) for a verbose
    // line to be written at all.
    let disc = disc_with_resource3d(tmp.path());
    std::fs::write(
        disc.join("hidden").join("resource3d").join("junk.xpr"),
        b"not an XPR2 container",
    )
    .unwrap();
    let verbose = std::ffi::OsStr::new("--verbose");
    assert_eq!(run(&[d, disc.as_os_str(), o, out.as_os_str(), verbose]), Some(0));
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["containers"].as_array().map(Vec::len), Some(1), "{m}");
    // The same run with a stderr that works says something: the test above dropped it.
    let said = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .args([d, disc.as_os_str(), o, tmp.path().join("out2").as_os_str(), verbose])
        .output()
        .unwrap();
    assert!(said.status.success() && !said.stderr.is_empty(), "{said:?}");
}
