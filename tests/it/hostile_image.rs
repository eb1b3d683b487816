//! Hostile disc images, built here from bytes (XDVDFS: the volume descriptor
//! `MICROSOFT*XBOX*MEDIA` at sector 32, each directory a table of entries forming a binary
//! tree, left/right subtree offsets in dwords): a table that loops or shares subtrees, a
//! name listed twice, a file running past a cut-off image's end, a table past it. Each run
//! ends within seconds under a 2 GB address-space limit, exits as it should, and leaves a
//! manifest `diff M M` reads.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::diff_self;

const SECTOR: usize = 2048;
const ROOT_SECTOR: u32 = 33;
const DATA_SECTOR: usize = 48;

/// One directory entry: name, data (sector, size), directory or file, and its subtrees
/// as entry indices of the same table (or raw dword offsets, for damaged trees).
#[derive(Clone)]
struct Dirent {
    name: Vec<u8>,
    sector: u32,
    size: u32,
    dir: bool,
    left: Link,
    right: Link,
}

#[derive(Clone, Copy)]
enum Link {
    None,
    Entry(usize),
}

fn file(name: &[u8], sector: usize, size: usize) -> Dirent {
    Dirent {
        name: name.to_vec(),
        sector: sector as u32,
        size: size as u32,
        dir: false,
        left: Link::None,
        right: Link::None,
    }
}

/// A table's bytes: entries in order, each padded to 4 bytes, the rest of the sector 0xff.
fn table(entries: &[Dirent]) -> Vec<u8> {
    let mut at = Vec::new();
    let mut off = 0usize;
    for e in entries {
        at.push(off);
        off = (off + 14 + e.name.len()).div_ceil(4) * 4;
    }
    let mut t = Vec::new();
    for (e, &o) in entries.iter().zip(&at) {
        t.resize(o, 0xff);
        let link = |l: Link| match l {
            Link::None => 0u16,
            Link::Entry(i) => (at[i] / 4) as u16,
        };
        t.extend_from_slice(&link(e.left).to_le_bytes());
        t.extend_from_slice(&link(e.right).to_le_bytes());
        t.extend_from_slice(&e.sector.to_le_bytes());
        t.extend_from_slice(&e.size.to_le_bytes());
        t.push(if e.dir { 0x10 } else { 0x80 });
        t.push(e.name.len() as u8);
        t.extend_from_slice(&e.name);
    }
    t.resize(t.len().div_ceil(SECTOR) * SECTOR, 0xff);
    t
}

/// An image: the volume descriptor, the root table (`hidden` → `resource3d` → `files`)
/// and every file's bytes, each file at its own sectors from [`DATA_SECTOR`].
struct Img {
    bytes: Vec<u8>,
}

impl Img {
    fn put(&mut self, sector: usize, data: &[u8]) {
        let at = sector * SECTOR;
        if self.bytes.len() < at + data.len() {
            self.bytes.resize(at + data.len(), 0);
        }
        self.bytes[at..at + data.len()].copy_from_slice(data);
    }
}

/// Lay `files` out from [`DATA_SECTOR`]; returns their entries (no subtrees yet) and the
/// image with everything but the tables.
fn with_files(files: &[(&[u8], Vec<u8>)]) -> (Vec<Dirent>, Img) {
    let mut img = Img { bytes: Vec::new() };
    let mut vd = vec![0u8; SECTOR];
    vd[..20].copy_from_slice(b"MICROSOFT*XBOX*MEDIA");
    vd[20..24].copy_from_slice(&ROOT_SECTOR.to_le_bytes());
    vd[24..28].copy_from_slice(&(SECTOR as u32).to_le_bytes());
    vd[0x7ec..].copy_from_slice(b"MICROSOFT*XBOX*MEDIA");
    img.put(32, &vd);
    let mut sector = DATA_SECTOR;
    let mut entries = Vec::new();
    for (name, data) in files {
        entries.push(file(name, sector, data.len()));
        img.put(sector, data);
        sector += data.len().div_ceil(SECTOR).max(1);
    }
    (entries, img)
}

/// The image with `hidden/resource3d` holding `res` (a table, built by the caller).
fn finish(mut img: Img, res: &[u8]) -> Vec<u8> {
    let hidden_sector = 34;
    let res_sector = 35;
    let dir = |name: &[u8], sector: usize, size: usize| Dirent {
        dir: true,
        ..file(name, sector, size)
    };
    img.put(ROOT_SECTOR as usize, &table(&[dir(b"hidden", hidden_sector, SECTOR)]));
    img.put(hidden_sector, &table(&[dir(b"Resource3D", res_sector, res.len())]));
    assert!(res.len() <= (DATA_SECTOR - res_sector) * SECTOR);
    img.put(res_sector, res);
    img.bytes
}

/// A balanced tree over `entries` (sorted by name, as XDVDFS stores them): its root first.
fn balanced(mut entries: Vec<Dirent>) -> Vec<Dirent> {
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    fn build(src: &[Dirent], out: &mut Vec<Dirent>) -> Link {
        if src.is_empty() {
            return Link::None;
        }
        let mid = src.len() / 2;
        let me = out.len();
        out.push(src[mid].clone());
        let left = build(&src[..mid], out);
        let right = build(&src[mid + 1..], out);
        out[me].left = left;
        out[me].right = right;
        Link::Entry(me)
    }
    let mut out = Vec::new();
    build(&entries, &mut out);
    out
}

/// The first `n` model files of the demo disc (seed 1): (name, bytes).
fn models(tmp: &tempfile::TempDir, n: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    let (disc, _) = common::demo_disc(tmp);
    let res = disc.join("hidden").join("resource3d");
    let mut names: Vec<String> = std::fs::read_dir(&res)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("rou_"))
        .collect();
    names.sort();
    names
        .into_iter()
        .take(n)
        .map(|n| (n.clone().into_bytes(), std::fs::read(res.join(&n)).unwrap()))
        .collect()
}

/// An export of `disc` into `out` under a 2 GB address-space limit, killed after 60 s:
/// (exit code, stderr, wall time).
fn export(disc: &Path, out: &Path) -> (i32, String, Duration) {
    let t = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2000000; exec \"$0\" --disc \"$1\" --out \"$2\" --quiet --no-previews")
        .arg(env!("CARGO_BIN_EXE_xbg7-export"))
        .arg(disc)
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            return (status.code().unwrap_or(-1), err, t.elapsed());
        }
        if t.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!(
                "the export of {} ran for a minute (it must end within seconds)",
                disc.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn manifest(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
}

fn write(tmp: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = tmp.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn a_directory_table_that_loops_ends_within_seconds() {
    let tmp = tempfile::tempdir().unwrap();
    let files = models(&tmp, 3);
    let refs: Vec<(&[u8], Vec<u8>)> = files.iter().map(|(n, b)| (n.as_slice(), b.clone())).collect();
    let (entries, img) = with_files(&refs);
    let mut tree = balanced(entries);
    // The last entry's right subtree is itself, and so is another's left subtree.
    let last = tree.len() - 1;
    tree[last].right = Link::Entry(last);
    tree[1].left = Link::Entry(1);
    let iso = write(&tmp, "loop.iso", &finish(img, &table(&tree)));
    let out = tmp.path().join("out");
    let (code, err, took) = export(&iso, &out);
    assert!(code == 0 || code == 2, "exit {code}: {err}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    if code == 0 {
        assert_eq!(diff_self(&out.join("manifest.json")), 0);
        assert_eq!(manifest(&out)["containers"].as_array().unwrap().len(), 3);
    }
}

#[test]
fn a_directory_table_sharing_subtrees_40_levels_deep_is_read_once_per_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let files = models(&tmp, 1);
    let mut refs: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for k in 0..41 {
        refs.push((format!("e{k:02}.xpr").into_bytes(), files[0].1.clone()));
    }
    let refs: Vec<(&[u8], Vec<u8>)> = refs.iter().map(|(n, b)| (n.as_slice(), b.clone())).collect();
    let (mut entries, img) = with_files(&refs);
    // Entry k's left and right subtrees are both entry k + 1: 2^40 paths, 41 entries.
    for (k, e) in entries.iter_mut().take(40).enumerate() {
        e.left = Link::Entry(k + 1);
        e.right = Link::Entry(k + 1);
    }
    let iso = write(&tmp, "dag.iso", &finish(img, &table(&entries)));
    let out = tmp.path().join("out");
    let (code, err, took) = export(&iso, &out);
    assert_eq!(code, 0, "{err}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    let m = manifest(&out);
    let listed = m["containers"].as_array().unwrap();
    assert_eq!(listed.len(), 41);
    assert!(listed.iter().all(|c| c.get("error").is_none()), "{m}");
    assert_eq!(diff_self(&out.join("manifest.json")), 0);
}

#[test]
fn a_name_listed_twice_gets_two_manifest_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let files = models(&tmp, 2);
    let refs: Vec<(&[u8], Vec<u8>)> = vec![
        (b"Dup.xpr", files[0].1.clone()),
        (b"Dup.xpr", files[1].1.clone()),
        (b"Other.xpr", files[1].1.clone()),
    ];
    let (entries, img) = with_files(&refs);
    let iso = write(&tmp, "dup.iso", &finish(img, &table(&balanced(entries))));
    let out = tmp.path().join("out");
    let (code, err, _) = export(&iso, &out);
    assert_eq!(code, 0, "{err}");
    let m = manifest(&out);
    let mut paths: Vec<&str> = m["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "hidden/resource3d/Dup.xpr",
            "hidden/resource3d/Dup\\~2.xpr",
            "hidden/resource3d/Other.xpr"
        ]
    );
    assert_eq!(diff_self(&out.join("manifest.json")), 0);
    // A `--only` run keeps both.
    let st = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
        .args(["--quiet", "--no-previews", "--only", "Other*", "--disc"])
        .arg(&iso)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(manifest(&out)["containers"].as_array().unwrap().len(), 3);
}

#[test]
fn a_file_cut_off_by_the_image_end_is_truncated_and_the_others_exported() {
    let tmp = tempfile::tempdir().unwrap();
    let files = models(&tmp, 6);
    let refs: Vec<(&[u8], Vec<u8>)> = files.iter().map(|(n, b)| (n.as_slice(), b.clone())).collect();
    let (entries, img) = with_files(&refs);
    let mut bytes = finish(img, &table(&balanced(entries)));
    // The last file (highest sectors) loses its second half: a download cut off.
    let last = files.last().unwrap();
    bytes.truncate(bytes.len() - last.1.len() / 2);
    let iso = write(&tmp, "cut.iso", &bytes);
    let out = tmp.path().join("out");
    let (code, err, _) = export(&iso, &out);
    assert_eq!(code, 0, "{err}");
    let m = manifest(&out);
    let cs = m["containers"].as_array().unwrap();
    assert_eq!(cs.len(), 6);
    let cut = format!("hidden/resource3d/{}", String::from_utf8_lossy(&last.0));
    for c in cs {
        if c["path"] == cut.as_str() {
            assert_eq!(c["error"]["code"], "truncated", "{c}");
        } else {
            assert!(c.get("error").is_none(), "{c}");
            assert!(c["resources"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["status"] == "decoded"));
        }
    }
    assert_eq!(diff_self(&out.join("manifest.json")), 0);
}

#[test]
fn a_directory_table_past_the_image_end_is_refused_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let files = models(&tmp, 1);
    let refs: Vec<(&[u8], Vec<u8>)> = files.iter().map(|(n, b)| (n.as_slice(), b.clone())).collect();
    let (entries, img) = with_files(&refs);
    let mut bytes = finish(img, &table(&entries));
    // Cut inside the resource3d table (sector 35): the table runs past the end.
    bytes.truncate(35 * SECTOR + 4);
    let iso = write(&tmp, "cut-table.iso", &bytes);
    let out = tmp.path().join("out");
    let (code, err, _) = export(&iso, &out);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("IOError") && !err.contains("OutOfImage"), "{err}");
    assert!(err.contains(&format!("cut off at byte {}", 35 * SECTOR + 4)), "{err}");
}
