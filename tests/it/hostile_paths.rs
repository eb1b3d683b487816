//! Two containers never share a manifest path: the escaping of file names is injective
//! (the escape character `\` itself is escaped), so a file named with byte 0xFF and one
//! literally named `\xff.xpr` stay two containers whose manifest `diff` reads back; the
//! copies of a name an image lists twice get `\~2`, … (tested in `hostile_image.rs`).

use proptest::prelude::*;
use std::process::Command;
use xbg7_export::walker::{copy_name, name_text};

use crate::common;
#[cfg(unix)] // (Its one user builds a file name of invalid UTF-8, a Unix file name.)
use crate::common::diff_self;

/// Pieces of names that make escapes meet: the escape character, escape-shaped text
/// (`\xff`, `\~2`), the bytes those stand for, valid and invalid UTF-8.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop::sample::select(vec![
        b"\\".to_vec(),
        b"\\xff".to_vec(),
        b"\\x".to_vec(),
        b"\\~2".to_vec(),
        b"x".to_vec(),
        b"ff".to_vec(),
        b"~".to_vec(),
        b"2".to_vec(),
        b".".to_vec(),
        vec![0xff],
        vec![0xc3],
        vec![0xc3, 0xa9],
        vec![0x80],
    ])
}

fn name() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..6).prop_map(|v| v.concat())
}

/// The raw name an escaped name stands for (`\\` → `\`, `\xNN` → the byte, the rest as
/// written): a left inverse of `name_text`, which makes it injective.
fn unescape(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
        } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') && i + 4 <= b.len() {
            out.push(u8::from_str_radix(&text[i + 2..i + 4], 16).unwrap());
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn name_text_is_injective(a in name(), b in name()) {
        prop_assert_eq!(unescape(&name_text(&a)), a.clone());
        if a != b {
            prop_assert_ne!(name_text(&a), name_text(&b));
        }
    }

    #[test]
    fn copies_never_meet_another_name(
        a in name(),
        b in name(),
        i in 0usize..4,
        j in 0usize..4,
    ) {
        let (mut a, mut b) = (a, b);
        a.extend_from_slice(b".xpr");
        b.extend_from_slice(b".XPR");
        prop_assume!((&a, i) != (&b, j));
        prop_assert_ne!(copy_name(&a, i), copy_name(&b, j));
        if i != j {
            prop_assert_ne!(copy_name(&a, i), copy_name(&a, j));
        }
    }
}

#[cfg(unix)]
#[test]
fn a_byte_ff_name_and_a_literal_backslash_name_are_two_containers() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let res = common::resource3d(&tmp);
    let bytes = common::model_bytes();
    std::fs::write(res.join(std::ffi::OsStr::from_bytes(b"\xff.xpr")), &bytes).unwrap();
    std::fs::write(res.join(std::ffi::OsStr::from_bytes(b"\\xff.xpr")), &bytes).unwrap();
    let out = tmp.path().join("out");
    let st = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .args(["--quiet", "--no-previews", "--disc"])
        .arg(tmp.path().join("disc"))
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let m = out.join("manifest.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&m).unwrap()).unwrap();
    let mut paths: Vec<&str> = v["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    paths.sort();
    assert_eq!(paths, ["hidden/resource3d/\\\\xff.xpr", "hidden/resource3d/\\xff.xpr"]);
    assert_eq!(diff_self(&m), 0);
}

/// Windows drops a name's trailing dots and spaces: disc files `bar.xpr`, `bar..xpr` and
/// `bar...xpr` once got folders `bar`, `bar.` and `bar..`, one folder there (a silent
/// overwrite, or exit 3). No output name ends in a dot or a space, the three containers
/// keep three folders, and `bar.xpr` keeps `bar` (the others get their index).
#[test]
fn no_output_name_ends_in_a_dot_and_trailing_dots_keep_their_own_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let res = common::resource3d(&tmp);
    let bytes = common::model_bytes();
    for name in ["bar.xpr", "bar..xpr", "bar...xpr", "index.html..xpr"] {
        std::fs::write(res.join(name), &bytes).unwrap();
    }
    let out = tmp.path().join("out");
    let st = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .args(["--quiet", "--disc"])
        .arg(tmp.path().join("disc"))
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(0));
    let mut top: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("bar") || n.starts_with("index.html~"))
        .collect();
    top.sort();
    assert_eq!(top, ["bar", "bar~0", "bar~1", "index.html~3"]);
    for e in walkdir::WalkDir::new(&out).min_depth(1) {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(['.', ' ']), "{name}");
    }
}
