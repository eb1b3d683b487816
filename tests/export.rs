//! End to end: synthesize the demo disc, export it, and check the outputs — every glTF
//! reads back with the `gltf` crate and matches the manifest, every XBG7 resource is in
//! the manifest, and `--jobs 1` / `--jobs 2` give byte-identical trees.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use xbg7_export::config::Config;
use xbg7_export::manifest::{Manifest, Status};
use xbg7_export::pipeline::{export, ExportOptions};

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn demo_export_reads_back_and_is_deterministic_across_thread_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, truth) = common::demo_disc(&tmp);
    let cfg = Config::default();
    let opts = |jobs| ExportOptions {
        jobs: Some(jobs),
        only: None,
        previews: true,
        progress: false,
    };
    let out1 = tmp.path().join("out1");
    let out2 = tmp.path().join("out2");
    let m1 = export(&disc, &out1, &cfg, &opts(1)).unwrap();
    let m2 = export(&disc, &out2, &cfg, &opts(2)).unwrap();
    assert_eq!(m1, m2);
    let (t1, t2) = (tree(&out1), tree(&out2));
    assert_eq!(t1.keys().collect::<Vec<_>>(), t2.keys().collect::<Vec<_>>());
    for (k, v) in &t1 {
        assert!(t2[k] == *v, "{k} differs between --jobs 1 and --jobs 2");
    }

    // The manifest on disk is the returned one, and lists every XBG7 resource of every file.
    let on_disk: Manifest = serde_json::from_slice(&std::fs::read(out1.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(on_disk, m1);
    assert_eq!(m1.containers.len(), truth.containers.len());
    let mut tcs: Vec<_> = truth.containers.iter().collect();
    tcs.sort_by(|a, b| a.path.cmp(&b.path));
    for (c, tc) in m1.containers.iter().zip(tcs) {
        assert_eq!(c.path, tc.path);
        let idx: Vec<u32> = c.resources.iter().map(|r| r.index).collect();
        let tidx: Vec<u32> = tc.resources.iter().map(|r| r.index).collect();
        assert_eq!(idx, tidx, "{}", c.path);
    }

    // Every glTF imports with the reference reader and matches the manifest's counts.
    let mut checked = 0;
    for c in &m1.containers {
        for r in c.resources.iter().filter(|r| r.status == Status::Decoded) {
            let path = out1.join(r.gltf.as_ref().unwrap());
            let (doc, buffers, _) = gltf::import(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mesh = doc.meshes().next().unwrap();
            assert_eq!(mesh.primitives().count() as u32, r.submeshes);
            let mut tris = 0;
            for p in mesh.primitives() {
                let reader = p.reader(|b| Some(&buffers[b.index()]));
                assert_eq!(reader.read_positions().unwrap().count() as u32, r.vertices);
                tris += reader.read_indices().unwrap().into_u32().count() / 3;
            }
            assert_eq!(tris as u32, r.triangles, "{}", path.display());
            checked += 1;
        }
    }
    assert_eq!(checked, m1.summary.total.decoded);
    assert!(checked > 0);
}
