//! Regression tests of issue #40 ("Nothing a user owns is deleted or overwritten, and no
//! input costs more than its size"): one test (or more) per row, each building its input
//! in a temp folder and running the exporter binary as a user does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::files;
use xbg7_export::manifest::{Manifest, Status, TextureEntry};
use xbg7_synth::hostile::{self, assemble, disassemble, Sources};
use xbg7_synth::SynthOptions;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
}

fn sources() -> Sources {
    hostile::sources(&SynthOptions::demo(1))
}

fn res_dir(disc: &Path) -> PathBuf {
    disc.join("hidden").join("resource3d")
}

/// A disc holding `files` (name, bytes) in `root/disc/hidden/resource3d`.
fn disc_of(root: &Path, files: &[(&str, &[u8])]) -> PathBuf {
    let disc = root.join("disc");
    std::fs::create_dir_all(res_dir(&disc)).unwrap();
    for (name, bytes) in files {
        std::fs::write(res_dir(&disc).join(name), bytes).unwrap();
    }
    disc
}

fn export(disc: &Path, out: &Path, extra: &[&str]) -> Output {
    bin()
        .arg("--disc")
        .arg(disc)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "1", "--quiet", "--no-previews"])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{:?}: {}", o.status, stderr(o));
}

/// Exit status 2 with exactly one line on stderr; that line.
fn usage_error(o: &Output) -> String {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    e
}

fn manifest(out: &Path) -> Manifest {
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
}

/// The sources' model with its NORMAL element moved to stream 1 and renamed TEXCOORD7:
/// a multi-stream declaration with no NORMAL in any stream.
fn multi_stream_without_normal(src: &Sources) -> Vec<u8> {
    let (mut entries, data) = disassemble(&src.model.bytes);
    let e = entries.iter_mut().find(|e| &e.tag == b"XBG7").unwrap();
    let m = xbg7_synth::descriptor::scan_markers(&e.desc, 4)[0];
    let mut at = m + 8;
    let mut moved = false;
    while e.desc[at..at + 2] != [0x00, 0xFF] {
        // D3DVERTEXELEMENT9: stream u16, offset u16, type u32, method, usage, index, pad.
        if e.desc[at + 9] == 3 {
            e.desc[at..at + 4].copy_from_slice(&[0, 1, 0, 0]);
            e.desc[at + 9] = 5;
            e.desc[at + 10] = 7;
            moved = true;
        }
        at += 12;
    }
    assert!(moved, "the model has a NORMAL");
    assemble(&entries, &data)
}

// Row 15: the README listed `multi_stream_declaration` as "no longer emitted"; the binary
// emits it for a multi-stream declaration with no NORMAL in any stream. The docs (the
// reason codes now live in docs/outputs.md) say so.
#[test]
fn multi_stream_declaration_is_emitted_and_the_docs_say_when() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let disc = disc_of(tmp.path(), &[("m.xpr", &multi_stream_without_normal(&src))]);
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &[]));
    let m = manifest(&out);
    let codes: Vec<String> = m.containers[0]
        .resources
        .iter()
        .filter_map(|r| r.reason.as_ref())
        .map(|r| r.code.to_string())
        .collect();
    assert!(codes.iter().any(|c| c == "multi_stream_declaration"), "{codes:?}");

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("docs/outputs.md")).unwrap();
    let list = &readme[readme
        .find("Reason codes:")
        .expect("docs/outputs.md lists the reason codes")..];
    let at = list.find("`multi_stream_declaration`").unwrap();
    let said = &list[at..at + list[at..].find("`,").unwrap_or(200)];
    let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!said.contains("no longer emitted"), "{said}");
    assert!(said.contains("no NORMAL"), "{said}");
}

// Row 13: `[gates]` / `[stage]` values out of their range were accepted (exit 0, nothing
// decoded, or a gate silently off with NaN); now exit 2 naming the key and its range.
#[test]
fn gate_values_out_of_range_are_refused_naming_the_key_and_range() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let disc = disc_of(tmp.path(), &[("m.xpr", &src.model.bytes)]);
    for (k, (text, key, range)) in [
        (
            "max_degenerate_fraction = -1.0",
            "gates.max_degenerate_fraction = -1",
            "(0 to 1)",
        ),
        (
            "max_abs_coordinate = -inf",
            "gates.max_abs_coordinate = -inf",
            "(more than 0, finite)",
        ),
        (
            "min_referenced_fraction = 1.5",
            "gates.min_referenced_fraction = 1.5",
            "(0 to 1)",
        ),
        (
            "min_winding_consistency = nan",
            "gates.min_winding_consistency = NaN",
            "(0 to 1)",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let cfg = tmp.path().join(format!("bad{k}.toml"));
        std::fs::write(&cfg, format!("[gates]\n{text}\n")).unwrap();
        let out = tmp.path().join(format!("out{k}"));
        let e = usage_error(&export(&disc, &out, &["--config", cfg.to_str().unwrap()]));
        assert!(e.contains(key) && e.contains(range), "{e}");
        assert!(!out.join("manifest.json").exists());
    }
    let cfg = tmp.path().join("stage.toml");
    std::fs::write(&cfg, "[stage]\nskybox_extent = nan\n").unwrap();
    let o = bin()
        .arg("info")
        .arg(res_dir(&disc).join("m.xpr"))
        .arg("--config")
        .arg(&cfg)
        .output()
        .unwrap();
    let e = usage_error(&o);
    assert!(
        e.contains("stage.skybox_extent = NaN is out of range (more than 0, finite)"),
        "{e}"
    );
}

/// Cap `cmd`'s address space at 2 GiB (an unbounded read of `/dev/zero` then fails in
/// seconds instead of filling the machine's memory).
#[cfg(target_os = "linux")]
fn cap(cmd: &mut Command) {
    cap_at(cmd, 2 << 30);
}

/// Cap `cmd`'s address space at `bytes`: an allocation past it fails (the process aborts).
#[cfg(target_os = "linux")]
fn cap_at(cmd: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
    unsafe {
        cmd.pre_exec(move || {
            let cap = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &cap) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
}

/// `cmd` run with its address space capped ([`cap`]).
#[cfg(target_os = "linux")]
fn capped(mut cmd: Command) -> Output {
    cap(&mut cmd);
    cmd.stdin(Stdio::null()).output().unwrap()
}

// Row 12: `/dev/zero` as `--config`, `info FILE`, `render FILE` or `verify --truth` was
// read until memory ran out; now one line "not a regular file", exit 2.
#[cfg(target_os = "linux")]
#[test]
fn dev_zero_as_a_named_input_is_not_a_regular_file() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let disc = disc_of(tmp.path(), &[("m.xpr", &src.model.bytes)]);
    let xpr = res_dir(&disc).join("m.xpr");
    let zero = Path::new("/dev/zero");
    let mut runs: Vec<(&str, Command)> = Vec::new();
    let mut c = bin();
    c.arg("--disc").arg(&disc).arg("--out").arg(tmp.path().join("out"));
    c.arg("--config").arg(zero);
    runs.push(("--config", c));
    let mut c = bin();
    c.arg("info").arg(&xpr).arg("--config").arg(zero);
    runs.push(("info --config", c));
    let mut c = bin();
    c.arg("info").arg(zero);
    runs.push(("info", c));
    let mut c = bin();
    c.arg("render").arg(zero).arg("-o").arg(tmp.path().join("r.png"));
    runs.push(("render", c));
    let mut c = bin();
    c.arg("verify").arg("--disc").arg(&disc).arg("--truth").arg(zero);
    runs.push(("verify --truth", c));
    let mut c = bin();
    c.arg("diff").arg(zero).arg(zero);
    runs.push(("diff", c));
    for (what, cmd) in runs {
        let o = capped(cmd);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{what}: {e}");
        assert_eq!(e.lines().count(), 1, "{what}: one line: {e}");
        assert!(
            e.contains("/dev/zero") && e.contains("not a regular file (a device)"),
            "{what}: {e}"
        );
    }
    assert!(!tmp.path().join("r.png").exists());
}

/// Run `cmd` (its address space capped, [`cap`]); `None` when it has not ended after
/// two minutes (it is then killed: a hang fails the test instead of blocking it).
#[cfg(target_os = "linux")]
fn capped_or_hung(mut cmd: Command) -> Option<Output> {
    cap(&mut cmd);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(120) {
            child.kill().unwrap();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Some(child.wait_with_output().unwrap())
}

#[cfg(target_os = "linux")]
fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

// Row 11: a FIFO at `.xbg7/written.txt` hung the run holding the lock (manifest.json
// moved aside); a symlink to /dev/zero at `.xbg7/pending-removals.json` read 517 MiB.
// The tool's own files are now read without following links, only when regular, and
// bounded: one line naming the file, exit 2, `--out` as it was.
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_or_a_link_among_the_tools_own_files_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let disc = disc_of(tmp.path(), &[("m.xpr", &src.model.bytes)]);
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &[]));
    let before = std::fs::read(out.join("manifest.json")).unwrap();
    let tool = out.join(".xbg7");
    let fifo = |p: &Path| mkfifo(p);
    let zero = |p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap();
    type Plant<'a> = &'a dyn Fn(&Path);
    let plant: [(&str, Plant); 4] = [
        ("written.txt", &fifo),
        ("pending-removals.json", &fifo),
        ("written.txt", &zero),
        ("pending-removals.json", &zero),
    ];
    for (name, plant) in plant {
        let at = tool.join(name);
        plant(&at);
        let mut c = bin();
        c.arg("--disc").arg(&disc).arg("--out").arg(&out);
        c.args(["--jobs", "1", "--quiet", "--no-previews"]);
        let o = capped_or_hung(c).unwrap_or_else(|| panic!("{name}: the run hung"));
        let e = usage_error(&o);
        assert!(e.contains(&format!(".xbg7/{name}")), "{e}");
        assert!(e.contains("a FIFO") || e.contains("a symlink"), "{e}");
        // Nothing moved: the manifest is where it was, unchanged.
        assert_eq!(std::fs::read(out.join("manifest.json")).unwrap(), before, "{name}");
        std::fs::remove_file(&at).unwrap();
    }
    // The same for the previous manifest itself.
    std::fs::rename(out.join("manifest.json"), tool.join("keep.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", out.join("manifest.json")).unwrap();
    let mut c = bin();
    c.arg("--disc").arg(&disc).arg("--out").arg(&out);
    c.args(["--jobs", "1", "--quiet", "--no-previews"]);
    let e = usage_error(&capped_or_hung(c).expect("the run hung"));
    assert!(e.contains("manifest.json: a symlink"), "{e}");
    std::fs::remove_file(out.join("manifest.json")).unwrap();
    std::fs::rename(tool.join("keep.json"), out.join("manifest.json")).unwrap();
    // With the planted files gone, the run completes.
    ok(&export(&disc, &out, &[]));
}

// Row 6: `--only` into an `--out` whose manifest.json is cut short ran to exit 0 with a
// manifest listing only the re-exported container, the others' files listed by none.
// Now exit 2, one line: the previous manifest cannot be read, run a full export.
#[test]
fn only_with_a_damaged_previous_manifest_asks_for_a_full_export() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let disc = disc_of(
        tmp.path(),
        &[("m.xpr", &src.model.bytes), ("Stage_S01.xpr", &src.stage.bytes)],
    );
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &[]));
    let whole = std::fs::read(out.join("manifest.json")).unwrap();
    let cut = &whole[..whole.len() / 2];
    std::fs::write(out.join("manifest.json"), cut).unwrap();
    let before = files(&out);
    let e = usage_error(&export(&disc, &out, &["--only", "m.xpr"]));
    assert!(e.contains("manifest.json cannot be read"), "{e}");
    assert!(e.contains("run a full export (without --only)"), "{e}");
    // Nothing changed: the damaged manifest and every file are where they were.
    assert_eq!(std::fs::read(out.join("manifest.json")).unwrap(), cut);
    assert_eq!(files(&out), before);
    // A full export then lists every container again.
    ok(&export(&disc, &out, &[]));
    assert_eq!(manifest(&out).containers.len(), 2);
}

// Row 14: a disc whose `hidden` or `hidden/resource3d` is a symlink was said to hold no
// containers ("looked for a folder hidden/resource3d"); now the message says which is a
// symlink and what to pass as --disc instead — and that works.
#[cfg(unix)]
#[test]
fn a_symlinked_hidden_or_resource3d_is_named_with_what_to_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let real = disc_of(&tmp.path().join("real"), &[("m.xpr", &src.model.bytes)]);
    let real_res = res_dir(&real).canonicalize().unwrap();
    // `hidden` a link to the real `hidden`.
    let a = tmp.path().join("a");
    std::fs::create_dir(&a).unwrap();
    std::os::unix::fs::symlink(real.join("hidden"), a.join("hidden")).unwrap();
    // `hidden/Resource3D` a link to the real `resource3d`.
    let b = tmp.path().join("b");
    std::fs::create_dir_all(b.join("hidden")).unwrap();
    std::os::unix::fs::symlink(&real_res, b.join("hidden").join("Resource3D")).unwrap();
    for (k, (disc, link)) in [(&a, a.join("hidden")), (&b, b.join("hidden").join("Resource3D"))]
        .into_iter()
        .enumerate()
    {
        let out = tmp.path().join(format!("out{k}"));
        let e = usage_error(&export(disc, &out, &[]));
        assert!(e.contains(&format!("{} is a symlink", link.display())), "{e}");
        let instead = format!("--disc {}", real_res.display());
        assert!(e.trim_end().ends_with(&instead), "{e}");
        ok(&export(&real_res, &out, &[]));
        assert_eq!(manifest(&out).containers.len(), 1);
    }
}

// Row 4: `-v` and the exit-3 message printed disc file names raw: a newline, ESC or BEL
// in a name reached the terminal (a forged line, a retitled window). Now they are shown
// escaped, as the manifest names them and as `diff` shows them.
#[cfg(unix)]
#[test]
fn verbose_and_exit_3_lines_escape_control_characters_of_names() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let raw = b"evil\nxbg7-export: forged\x1b]0;title\x07.xpr";
    let disc = disc_of(tmp.path(), &[]);
    let file = res_dir(&disc).join(std::ffi::OsStr::from_bytes(raw));
    std::fs::write(&file, &src.model.bytes).unwrap();
    let shown = "evil\\nxbg7-export: forged\\u{1b}]0;title\\u{7}.xpr";
    let clean = |e: &str| {
        assert!(!e.contains(['\x1b', '\x07']), "{e:?}");
        assert!(!e.lines().any(|l| l.starts_with("xbg7-export: forged")), "{e:?}");
        assert!(e.contains(shown), "{e:?}");
    };
    let out = tmp.path().join("out");
    let o = export(&disc, &out, &["-v"]);
    ok(&o);
    clean(&stderr(&o));
    // A folder where its .gltf goes: the run ends with status 3 naming the container.
    let m = manifest(&out);
    let gltf = m.containers[0].resources.iter().find_map(|r| r.gltf.clone()).unwrap();
    std::fs::remove_file(out.join(&gltf)).unwrap();
    std::fs::create_dir_all(out.join(&gltf).join("blocker")).unwrap();
    let o = export(&disc, &out, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e:?}");
    clean(&e);
}

// Row 3: `demo` generated its disc at a predictable path of the shared temp folder
// (`xbg7-export-demo-<pid>-<seed>`, made with create_dir_all: a planted symlink there
// was written through). Now a fresh private folder (random name, made exclusively,
// mode 0700), removed afterwards.
#[cfg(unix)]
#[test]
fn demo_generates_its_disc_in_a_fresh_private_folder_and_removes_it() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let temp = tmp.path().join("temp");
    std::fs::create_dir(&temp).unwrap();
    let demo = |out: &str, abort: bool| {
        let mut c = bin();
        c.args(["demo", "--no-previews", "--quiet", "--jobs", "1", "--out"]);
        c.arg(tmp.path().join(out)).env("TMPDIR", &temp);
        if abort {
            // Killed (abort, no cleanup) once a container is done: its folder stays.
            c.env("XBG7_EXPORT_ABORT_AT", "after-first-container");
        }
        let child = c.stdin(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        let pid = child.id();
        (pid, child.wait_with_output().unwrap())
    };
    let (pid, o) = demo("killed", true);
    assert!(!o.status.success());
    let left: Vec<_> = std::fs::read_dir(&temp).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(left.len(), 1, "{left:?}");
    let dir = &left[0];
    let m = std::fs::symlink_metadata(dir).unwrap();
    assert!(m.is_dir());
    assert_eq!(m.permissions().mode() & 0o777, 0o700, "{}", dir.display());
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("xbg7-export-demo-"), "{name}");
    assert_ne!(name, format!("xbg7-export-demo-{pid}-1"), "a predictable name");
    assert!(dir.join("hidden").is_dir(), "the disc was generated there");
    std::fs::remove_dir_all(dir).unwrap();
    // A complete run leaves nothing in the temp folder.
    let (_, o) = demo("out", false);
    ok(&o);
    assert_eq!(std::fs::read_dir(&temp).unwrap().count(), 0);
    assert!(!manifest(&tmp.path().join("out")).containers.is_empty());
}

// Row 2: `--out` an existing folder that is not an export (`--out .`, a website with its
// own index.html and manifest.json) ran to exit 0 and replaced its files. Now refused
// (exit 2, one line naming a few files it would replace), nothing touched; an empty or
// missing folder, an earlier export, or a folder with only a manifest.json of this tool
// (versions before `.xbg7/`) is fine.
#[test]
fn a_non_empty_folder_that_is_not_an_export_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let disc = disc_of(tmp.path(), &[("m.xpr", &src.model.bytes)]);
    let site = tmp.path().join("site");
    std::fs::create_dir(&site).unwrap();
    for (name, text) in [
        ("index.html", "<p>my page</p>"),
        ("manifest.json", "{\"name\": \"my web app\"}"),
        ("style.css", "p {}"),
    ] {
        std::fs::write(site.join(name), text).unwrap();
    }
    std::fs::create_dir(site.join("m")).unwrap();
    std::fs::write(site.join("m").join("photo.jpg"), "jpeg").unwrap();
    let before = files(&site);
    let e = usage_error(&export(&disc, &site, &[]));
    assert!(e.contains("not empty and not an earlier export"), "{e}");
    assert!(e.contains("would replace index.html, m, manifest.json;"), "{e}");
    assert_eq!(files(&site), before, "nothing written or removed");
    assert_eq!(std::fs::read(site.join("index.html")).unwrap(), b"<p>my page</p>");
    // Files it would not replace: refused too, named.
    let notes = tmp.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    for k in 0..5 {
        std::fs::write(notes.join(format!("n{k}.txt")), "x").unwrap();
    }
    let e = usage_error(&export(&disc, &notes, &[]));
    assert!(
        e.contains("would mix its files with n0.txt, n1.txt, n2.txt, and 2 more;"),
        "{e}"
    );
    assert!(!notes.join(".xbg7").exists());

    // Fine: a missing folder, an empty one, an earlier export (twice), and an export
    // of a version before `.xbg7/` (only its manifest.json).
    let out = tmp.path().join("new");
    ok(&export(&disc, &out, &[]));
    ok(&export(&disc, &out, &[]));
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    ok(&export(&disc, &empty, &[]));
    std::fs::remove_dir_all(empty.join(".xbg7")).unwrap();
    ok(&export(&disc, &empty, &[]));
}

// Row 10: a manifest became a `serde_json::Value` before its typed form (≈ 6× the file
// on the demo's, 16× on others), in `diff` and when an export read the previous one;
// now it is read typed, once, and the peak stays within 3× the file: both run under an
// address-space cap of 3× the file (+ 64 MiB for the binary itself) that the old code
// overran (abort).
#[cfg(target_os = "linux")]
#[test]
fn a_big_manifest_is_read_within_three_times_its_size() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let disc = disc_of(
        tmp.path(),
        &[("m.xpr", &src.model.bytes), ("Stage_S01.xpr", &src.stage.bytes)],
    );
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &[]));
    let small = out.join("manifest.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&small).unwrap()).unwrap();
    let base = v["containers"].as_array().unwrap().clone();
    let mut all = Vec::new();
    let mut len = 0;
    for k in 0.. {
        for c in &base {
            let mut c = c.clone();
            let p = c["path"].as_str().unwrap().replace(".xpr", &format!("~{k}.xpr"));
            c["path"] = p.into();
            len += serde_json::to_vec_pretty(&c).unwrap().len();
            all.push(c);
        }
        if len > 30_000_000 {
            break;
        }
    }
    v["containers"] = all.into();
    let bytes = serde_json::to_vec_pretty(&v).unwrap();
    let big = tmp.path().join("big.json");
    std::fs::write(&big, &bytes).unwrap();
    let cap = 3 * bytes.len() as u64 + (64 << 20);
    let limited = |mut c: Command| {
        cap_at(&mut c, cap);
        c.stdin(Stdio::null()).output().unwrap()
    };
    let mut c = bin();
    c.arg("diff")
        .arg(&big)
        .arg(&small)
        .args(["--format", "json", "--allow-regressions"]);
    let o = limited(c);
    ok(&o);
    // An export whose previous manifest is the big one (a full run: its entries go).
    std::fs::copy(&big, out.join("manifest.json")).unwrap();
    let mut c = bin();
    c.arg("--disc").arg(&disc).arg("--out").arg(&out);
    c.args(["--jobs", "1", "--quiet", "--no-previews"]);
    ok(&limited(c));
    assert_eq!(manifest(&out).containers.len(), 2);
}

/// The sources' stage with its first XBG7 entry listed `copies` more times: directory
/// entries pointing at the very same descriptor bytes (tag, offset and size).
fn stage_listing_one_descriptor(src: &Sources, copies: usize) -> (Vec<u8>, u32) {
    let (mut entries, data) = disassemble(&src.stage.bytes);
    let first = entries.iter().position(|e| &e.tag == b"XBG7").unwrap();
    let n = entries.len();
    for _ in 0..copies {
        entries.push(entries[first].clone());
    }
    let mut f = assemble(&entries, &data);
    // Directory entry i: tag, descriptor offset, size, name offset (after the count).
    let off_at = |i: usize| xbg7::container::HEADER_BASE + 4 + 16 * i + 4;
    let off = f[off_at(first)..off_at(first) + 4].to_vec();
    for i in n..n + copies {
        f[off_at(i)..off_at(i) + 4].copy_from_slice(&off);
    }
    (f, first as u32)
}

/// The sources' stage with `copies` more XBG7 entries whose descriptors are copies of its
/// first one's bytes, each at its own offset: the same resource described again, on the
/// same block.
fn stage_copying_one_descriptor(src: &Sources, copies: usize) -> (Vec<u8>, u32) {
    let (mut entries, data) = disassemble(&src.stage.bytes);
    let first = entries.iter().position(|e| &e.tag == b"XBG7").unwrap();
    for _ in 0..copies {
        entries.push(entries[first].clone());
    }
    (assemble(&entries, &data), first as u32)
}

// Row 9: one descriptor listed 2 000 times was decoded 2 000 times (quadratic: every
// round weighs each resource against the others) and written 2 000 times. Now it is
// decoded once; the later listings are manifest entries with `same_as` and the first
// listing's output paths, and no file of their own.
#[test]
fn a_descriptor_listed_many_times_is_decoded_and_written_once() {
    let src = sources();
    let (listed, first) = stage_listing_one_descriptor(&src, 40);
    written_once(&src, &listed, first, 40);
}

// Row 9, the same with the descriptor's bytes copied to 40 offsets (2 000 copies wrote
// 97 MB of the same model for a 1 MB file): each copy decodes to the first's very result
// (the same block), so it is written once and the copies carry `same_as`.
#[test]
fn copies_of_a_descriptor_on_one_block_are_written_once() {
    let src = sources();
    let (copied, first) = stage_copying_one_descriptor(&src, 40);
    written_once(&src, &copied, first, 40);
}

/// Exporting the stage `many` (the sources' stage with `copies` more entries repeating the
/// entry at directory index `first`) writes the files the plain stage writes, and each
/// later entry repeats the first's with `same_as`.
fn written_once(src: &Sources, many: &[u8], first: u32, copies: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let plain = disc_of(&tmp.path().join("plain"), &[("Stage_S01.xpr", &src.stage.bytes)]);
    let many = disc_of(&tmp.path().join("many"), &[("Stage_S01.xpr", many)]);
    let (out_plain, out_many) = (tmp.path().join("out_plain"), tmp.path().join("out_many"));
    // With previews: a stage's thumbnails and grid are outputs too.
    let with_previews = |disc: &Path, out: &Path| {
        let o = bin()
            .arg("--disc")
            .arg(disc)
            .arg("--out")
            .arg(out)
            .args(["--jobs", "1", "--quiet"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        ok(&o);
    };
    with_previews(&plain, &out_plain);
    with_previews(&many, &out_many);
    let outputs = |out: &Path| -> Vec<String> {
        files(out)
            .into_iter()
            .filter(|f| !f.starts_with(".xbg7/") && f != "manifest.json" && f != "index.html")
            .collect()
    };
    assert_eq!(outputs(&out_many), outputs(&out_plain), "the copies write no file");
    let m = manifest(&out_many);
    let res = &m.containers[0].resources;
    let head = res.iter().find(|r| r.index == first).unwrap();
    assert_eq!(head.same_as, None);
    let later: Vec<_> = res.iter().filter(|r| r.same_as.is_some()).collect();
    assert_eq!(later.len(), copies);
    for r in later {
        assert_eq!(r.same_as, Some(first));
        assert_eq!(
            (r.status, &r.digest, &r.gltf, &r.bin, &r.offset),
            (head.status, &head.digest, &head.gltf, &head.bin, &head.offset)
        );
        assert_eq!(r.preview, head.preview);
    }
    // The other resources are decoded as without the copies.
    let p = manifest(&out_plain);
    let firsts: Vec<_> = res.iter().filter(|r| r.same_as.is_none()).collect();
    assert_eq!(firsts.len(), p.containers[0].resources.len());
    for (a, b) in firsts.iter().zip(&p.containers[0].resources) {
        assert_eq!(*a, b);
    }
}

// Row 8: 100 TX2D descriptors over one block wrote 100 PNGs of the same image (784× the
// input). Identical descriptors (the same bytes, so the same data) are now decoded and
// written once; every later listing's entry has `same_as` and the first's PNG.
#[test]
fn identical_texture_descriptors_are_decoded_and_written_once() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let (mut entries, data) = disassemble(&src.model.bytes);
    let first = entries.iter().position(|e| &e.tag == b"TX2D").unwrap();
    for n in 0..100 {
        let mut e = entries[first].clone();
        e.name = format!("copy{n}_col").into_bytes();
        entries.push(e);
    }
    let listed = assemble(&entries, &data);
    let plain = disc_of(&tmp.path().join("plain"), &[("m.xpr", &src.model.bytes)]);
    let many = disc_of(&tmp.path().join("many"), &[("m.xpr", &listed)]);
    let (out_plain, out_many) = (tmp.path().join("out_plain"), tmp.path().join("out_many"));
    ok(&export(&plain, &out_plain, &[]));
    ok(&export(&many, &out_many, &[]));
    let outputs = |out: &Path| -> Vec<String> {
        files(out)
            .into_iter()
            .filter(|f| !f.starts_with(".xbg7/") && f != "manifest.json" && f != "index.html")
            .collect()
    };
    assert_eq!(outputs(&out_many), outputs(&out_plain), "the copies write no PNG");
    let m = manifest(&out_many);
    let tex = &m.containers[0].textures;
    assert_eq!(tex.len(), 103);
    let head = tex.iter().find(|t| t.index == first as u32).unwrap();
    assert_eq!(head.same_as, None);
    assert!(head.png.is_some());
    let later: Vec<_> = tex.iter().filter(|t| t.name.starts_with("copy")).collect();
    assert_eq!(later.len(), 100);
    for t in later {
        assert_eq!(t.same_as, Some(first as u32));
        assert_eq!((&t.png, &t.digest, t.status), (&head.png, &head.digest, head.status));
    }
}

// Row 1: on a case-insensitive `--out`, a re-export of a disc whose file names now differ
// only by case removed the new outputs under their old spelling (stale removal compared
// the strings). Simulated on a case-sensitive file system: the old folder `Stage_S01` is
// a link to the new `STAGE_S01`, so the old spelling names the very files this run writes,
// as a case-folding file system does. Now nothing this run lists is removed.
#[cfg(unix)]
#[test]
fn stale_removal_never_removes_a_file_of_this_run_under_another_spelling() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let disc = disc_of(tmp.path(), &[("Stage_S01.xpr", &src.stage.bytes)]);
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &[]));
    let before = manifest(&out);
    assert!(before.outputs().iter().any(|p| p.starts_with("Stage_S01/")));
    // Another dumping tool spells the file in capitals; the old folder now *is* the new.
    std::fs::rename(
        res_dir(&disc).join("Stage_S01.xpr"),
        res_dir(&disc).join("STAGE_S01.XPR"),
    )
    .unwrap();
    std::fs::rename(out.join("Stage_S01"), out.join("STAGE_S01")).unwrap();
    std::os::unix::fs::symlink("STAGE_S01", out.join("Stage_S01")).unwrap();
    ok(&export(&disc, &out, &[]));
    let now = manifest(&out);
    let listed = now.outputs();
    assert!(listed.iter().any(|p| p.starts_with("STAGE_S01/")), "{listed:?}");
    let missing: Vec<_> = listed.iter().filter(|p| !out.join(p).is_file()).collect();
    assert!(missing.is_empty(), "listed but removed: {missing:?}");
}

/// The sources' model with one data byte changed so that it still decodes, to other
/// geometry (another digest): the same names, other bytes.
fn model_changed(src: &Sources) -> Vec<u8> {
    use xbg7_export::export::decode_container;
    let cfg = xbg7_export::config::Config::default();
    let digest = |bytes: &[u8]| {
        let d = decode_container(bytes, xbg7::Kind::Model, &cfg).ok()?;
        let r = d.resources.first()?.result.as_ref().ok()?;
        Some(r.mesh.digest())
    };
    let was = digest(&src.model.bytes).unwrap();
    let base = src.model.bytes.len();
    // The lowest byte of a big-endian word, from the end of the data section back.
    (1..base / 4)
        .map(|k| base - 4 * k + 3)
        .find_map(|at| {
            let mut b = src.model.bytes.clone();
            b[at] ^= 1;
            digest(&b).filter(|d| *d != was).map(|_| b)
        })
        .unwrap()
}

// Row 5: a full re-export killed (SIGKILL) after a container's first outputs were renamed
// into place, then `--only` of another container: the kept entry described the old decode
// while its files were partly the killed run's. Now a `--only` run after a run killed
// before its manifest keeps no entry with a file that run journalled: the container is
// dropped and its files removed, and every listed file is the one its entry describes.
#[test]
fn only_after_a_killed_run_keeps_no_entry_whose_files_it_rewrote() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let disc = disc_of(tmp.path(), &[("a.xpr", &src.model.bytes), ("b.xpr", &src.model.bytes)]);
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &[]));
    // `a.xpr` changes; the full re-export is killed after a's first output.
    std::fs::write(res_dir(&disc).join("a.xpr"), model_changed(&src)).unwrap();
    let killed = bin()
        .arg("--disc")
        .arg(&disc)
        .arg("--out")
        .arg(&out)
        .args(["--jobs", "1", "--quiet", "--no-previews"])
        .env("XBG7_EXPORT_ABORT_AT", "after-an-output")
        .env("XBG7_EXPORT_ABORT_AFTER", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!killed.status.success());
    assert!(!out.join("manifest.json").exists(), "killed before its manifest");
    ok(&export(&disc, &out, &["--only", "b.xpr"]));
    let m = manifest(&out);
    let paths: Vec<&str> = m.containers.iter().map(|c| c.path.as_str()).collect();
    assert!(!paths.iter().any(|p| p.ends_with("a.xpr")), "a.xpr dropped: {paths:?}");
    assert!(paths.iter().any(|p| p.ends_with("b.xpr")));
    // Every file is listed, every listed file exists.
    let listed: std::collections::BTreeSet<&str> = m.outputs().into_iter().collect();
    let on_disk: Vec<String> = files(&out)
        .into_iter()
        .filter(|f| !f.starts_with(".xbg7/") && f != "manifest.json")
        .collect();
    for f in &on_disk {
        assert!(listed.contains(f.as_str()), "{f} listed by no entry");
    }
    for f in &listed {
        assert!(out.join(f).is_file(), "{f} listed, missing");
    }
    // A full export then lists a.xpr again, as it now decodes.
    ok(&export(&disc, &out, &[]));
    assert_eq!(manifest(&out).containers.len(), 2);
}

/// Append a 512 KiB block of noise to `data`, 4096-aligned (where a texture's base level
/// may start); its offset.
fn append_noise_block(data: &mut Vec<u8>) -> u32 {
    let at = data.len().next_multiple_of(4096);
    data.resize(at, 0);
    let mut x: u32 = 0x2545_F491;
    data.extend((0..512 << 10).map(|_| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        (x >> 24) as u8
    }));
    at as u32
}

/// The sources' model with `n` TX2D descriptors over one 512 KiB block of noise appended
/// to its data section: all different (a 4-bit format and a height each), so none is a
/// `same_as` of another, each decoding to a 1024-texel-wide image of up to 4 MiB.
fn many_textures_over_one_block(src: &Sources, n: usize) -> Vec<u8> {
    use xbg7_synth::texture::{tx2d_descriptor, TexFormat, TexPlan};
    let (mut entries, mut data) = disassemble(&src.model.bytes);
    let at = append_noise_block(&mut data);
    let formats = [TexFormat::Dxt1, TexFormat::Dxt5a, TexFormat::Ctx1];
    for k in 0..n {
        let t = TexPlan {
            name: format!("many{k}_col"),
            format: formats[k % 3],
            width: 1024,
            height: 1024 - (k / 3) as u32,
            tiled: false,
        };
        entries.push(hostile::RawEntry {
            tag: *b"TX2D",
            desc: tx2d_descriptor(&t, at).to_vec(),
            name: t.name.into_bytes(),
        });
    }
    assemble(&entries, &data)
}

// Row 7: a `.glb` export of a 0.6 MB container of 1 000 TX2D descriptors over one 512 KiB
// block aborted under a 2 GiB address-space cap, with no manifest: every texture decoded,
// and its PNG held until the container's models were written (up to 4 MiB each). Now a
// container's textures decode to at most 16× its bytes + 16 MiB together (charged in
// directory order, before decoding); the rest are `output_budget`. Both formats complete
// under the cap, and write at most that bound of texture bytes.
#[test]
fn distinct_texture_descriptors_over_one_block_stay_within_the_containers_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let n = 1000;
    let many = many_textures_over_one_block(&src, n);
    let bound = 16 * many.len() as u64 + (16 << 20);
    let plain = disc_of(&tmp.path().join("plain"), &[("m.xpr", &src.model.bytes)]);
    let disc = disc_of(&tmp.path().join("many"), &[("m.xpr", &many)]);
    let run = |disc: &Path, out: &Path, format: &str| {
        let mut c = bin();
        c.arg("--disc").arg(disc).arg("--out").arg(out);
        c.args(["--jobs", "1", "--quiet", "--no-previews", "--format", format]);
        #[cfg(target_os = "linux")]
        cap(&mut c);
        let o = c.stdin(Stdio::null()).output().unwrap();
        ok(&o);
        manifest(out)
    };
    let bytes_of = |out: &Path| -> u64 {
        files(out)
            .iter()
            .filter(|f| !f.starts_with(".xbg7/") && *f != "manifest.json" && *f != "index.html")
            .map(|f| std::fs::metadata(out.join(f)).unwrap().len())
            .sum()
    };
    for format in ["glb", "gltf"] {
        let (out_plain, out) = (tmp.path().join(format!("plain.{format}")), tmp.path().join(format));
        let p = run(&plain, &out_plain, format);
        let m = run(&disc, &out, format);
        let c = &m.containers[0];
        assert_eq!(c.error, None);
        // The models are as without the textures.
        assert_eq!(c.resources, p.containers[0].resources, "{format}");
        assert_eq!(c.textures.len(), p.containers[0].textures.len() + n);
        // Charged in directory order: what is decoded fits the bound; each texture left
        // out would have taken the decoded ones before it past the bound (the file is
        // its header and data section: the bound is on its length). A gloss map's
        // derived roughness map is charged too.
        let size = |t: &TextureEntry| {
            let maps = 1 + u64::from(t.name.ends_with("_gls"));
            4 * u64::from(t.width.unwrap()) * u64::from(t.height.unwrap()) * maps
        };
        let mut decoded = 0;
        let mut refused = 0;
        for t in &c.textures {
            assert_eq!(t.same_as, None);
            match (t.status, &t.reason) {
                (Some(Status::Decoded), None) => decoded += size(t),
                (Some(Status::Rejected), Some(r)) => {
                    assert_eq!(r.code.as_str(), "output_budget", "{}", t.name);
                    assert!(r.detail.contains(" + 16 MiB = "), "{}", r.detail);
                    assert!(decoded + size(t) > bound, "{} refused but fits", t.name);
                    refused += 1;
                }
                other => panic!("{}: {other:?}", t.name),
            }
        }
        assert!(decoded <= bound, "{decoded} > {bound}");
        assert!(refused > n * 9 / 10 && refused < n, "{refused} of {n} refused");
        // The outputs: the plain model's, and at most the bound of texture bytes.
        let written = bytes_of(&out);
        assert!(written <= bytes_of(&out_plain) + bound, "{format}: {written} > {bound}");
    }
}

/// The sources' stage with its `e356_col` texture a 1024² DXT1 image of noise (a 4 MiB
/// PNG) and its model `e356`, which that texture colours, listed `n` more times (its
/// descriptor at other offsets, each with its node name `Light` spelled differently:
/// resources of their own, sharing its block — exact copies would be written once).
fn stage_of_models_linking_one_big_texture(src: &Sources, n: usize) -> Vec<u8> {
    use xbg7_synth::texture::{tx2d_descriptor, TexFormat, TexPlan};
    let (mut entries, mut data) = disassemble(&src.stage.bytes);
    let at = append_noise_block(&mut data);
    let col = entries.iter().position(|e| e.name == b"e356_col").unwrap();
    let t = TexPlan {
        name: "e356_col".into(),
        format: TexFormat::Dxt1,
        width: 1024,
        height: 1024,
        tiled: false,
    };
    entries[col].desc = tx2d_descriptor(&t, at).to_vec();
    let model = entries.iter().position(|e| e.name == b"e356").unwrap();
    for k in 0..n {
        let mut e = entries[model].clone();
        e.name = format!("e356~{k}").into_bytes();
        let p = e
            .desc
            .windows(6)
            .position(|w| w == b"Light\0")
            .expect("a node named Light");
        e.desc[p + 3..p + 5].copy_from_slice(format!("{k:02}").as_bytes());
        entries.push(e);
    }
    assemble(&entries, &data)
}

/// The image bytes a `.glb` embeds (its images' buffer views), and the URIs of the images
/// it references instead.
fn glb_images(glb: &[u8]) -> (u64, Vec<String>) {
    let (json, _) = xbg7_gltf::scene::split_glb(glb).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(json).unwrap();
    let mut embedded = 0;
    let mut uris = Vec::new();
    for im in doc["images"].as_array().into_iter().flatten() {
        match (im["bufferView"].as_u64(), im["uri"].as_str()) {
            (Some(v), _) => embedded += doc["bufferViews"][v as usize]["byteLength"].as_u64().unwrap(),
            (None, Some(uri)) => uris.push(uri.to_string()),
            other => panic!("an image neither embedded nor referenced: {other:?}"),
        }
    }
    (embedded, uris)
}

// Row 8 (output bytes per input byte), `.glb`: each model embeds a copy of every image
// its materials link, and a stage's scene repeats its models' bytes, so `k` models
// linking one 4 MiB texture wrote it 2k times (and a stage held every copy until its
// scene was written). Now a container's `.glb` models embed at most its texture bound
// (16× its bytes + 16 MiB) of image bytes in all, in the order they are written; past it
// a model references the image by its URI, the PNG written once under `textures/` and
// listed as the texture entry's `png`.
#[test]
fn glb_models_embed_at_most_the_containers_bound_then_reference_the_png() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sources();
    let n = 16;
    let stage = stage_of_models_linking_one_big_texture(&src, n);
    let bound = 16 * stage.len() as u64 + (16 << 20);
    let disc = disc_of(tmp.path(), &[("Stage_S01.xpr", &stage)]);
    let out = tmp.path().join("out");
    ok(&export(&disc, &out, &["--format", "glb"]));
    let m = manifest(&out);
    let c = &m.containers[0];
    assert_eq!(c.error, None);
    let copies: Vec<_> = c.resources.iter().filter(|r| r.name.starts_with("e356")).collect();
    assert_eq!(copies.len(), n + 1);
    let col = c.textures.iter().find(|t| t.name == "e356_col").unwrap();
    assert_eq!(col.status, Some(Status::Decoded));
    // Past the bound: the PNG is a file, listed, and every URI a model keeps resolves.
    let png = col.png.as_deref().expect("written as a file past the bound");
    assert_eq!(png, "Stage_S01/textures/e356_col.png");
    let png_len = std::fs::metadata(out.join(png)).unwrap().len();
    assert!(png_len > 4 << 20, "{png_len}");
    let (mut embedded, mut referenced) = (0, 0);
    for r in &copies {
        assert_eq!(r.status, xbg7_export::manifest::Status::Decoded, "{}", r.name);
        let glb = std::fs::read(out.join(r.gltf.as_ref().unwrap())).unwrap();
        let (bytes, uris) = glb_images(&glb);
        embedded += bytes;
        for uri in &uris {
            assert_eq!(uri, "textures/e356_col.png");
            referenced += 1;
        }
    }
    assert!(embedded <= bound, "{embedded} > {bound}");
    assert!(embedded >= png_len, "the first models embed it");
    assert!(referenced > 0 && referenced < copies.len(), "{referenced}");
    // The scene repeats what its parts embed, no more.
    let scene = std::fs::read(out.join(c.scene.as_ref().unwrap())).unwrap();
    let (in_scene, _) = glb_images(&scene);
    assert!(in_scene <= bound, "{in_scene} > {bound}");
    // Every listed file exists (the PNG among them).
    for f in m.outputs() {
        assert!(out.join(f).is_file(), "{f} listed, missing");
    }
}
