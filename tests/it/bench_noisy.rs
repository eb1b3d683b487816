//! The texture-heavy bench variant (`bench --noisy-textures`) changes textures only: the
//! copy's geometry decodes to the same digests, its textures to other images.

use std::collections::BTreeMap;
use xbg7_export::config::Config;
use xbg7_export::export::{export, ExportOptions};
use xbg7_export::manifest::Manifest;
use xbg7_synth::{self as synth, SynthOptions};

fn digests(m: &Manifest) -> (BTreeMap<String, Option<String>>, BTreeMap<String, Option<String>>) {
    let mut geometry = BTreeMap::new();
    let mut textures = BTreeMap::new();
    for c in &m.containers {
        let name = c.path.rsplit('/').next().unwrap_or(&c.path).to_string();
        for r in &c.resources {
            geometry.insert(format!("{name}#{}", r.index), r.digest.clone());
        }
        for t in &c.textures {
            textures.insert(format!("{name}#{}", t.index), t.digest.clone());
        }
    }
    (geometry, textures)
}

#[test]
fn noisy_copy_randomises_textures_and_keeps_geometry() {
    let tmp = tempfile::tempdir().unwrap();
    let disc = tmp.path().join("disc");
    let opts = SynthOptions::demo(3);
    synth::write_disc(&disc, &opts).unwrap();
    let noisy = tmp.path().join("noisy");
    let n = xbg7_export::bench::noisy_copy(&disc, &noisy).unwrap();
    let run = |d: &std::path::Path, out: &str| {
        let o = ExportOptions::quiet(Some(2), false);
        export(d, &tmp.path().join(out), &Config::default(), &o).unwrap()
    };
    let (g0, t0) = digests(&run(&disc, "out"));
    let (g1, t1) = digests(&run(&noisy, "out-noisy"));
    assert_eq!(g0, g1);
    assert!(g0.values().filter(|d| d.is_some()).count() > 500);
    assert_eq!(t0.len(), t1.len());
    let decoded = t0.values().filter(|d| d.is_some()).count();
    let changed = t0
        .iter()
        .filter(|(k, d)| d.is_some() && t1[*k].is_some() && t1[*k] != **d)
        .count();
    assert!(n >= decoded && decoded > 500, "{n} randomised, {decoded} decoded");
    assert_eq!(changed, decoded, "every decoded texture is another image");
}
