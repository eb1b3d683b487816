//! Decoding a whole file (`xbg7::decode_container`), as a model and as a stage: any
//! bytes give a decode or a container-level reason, never a panic; every decoded mesh
//! passed the gates, so its indices are in range.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xbg7::decode::{decode_container, DecodeConfig};
use xbg7::record::Kind;

fuzz_target!(|data: &[u8]| {
    let cfg = DecodeConfig::default();
    for kind in [Kind::Model, Kind::Stage] {
        if let Ok(d) = decode_container(data, kind, &cfg) {
            for r in &d.resources {
                if let Ok(dr) = &r.result {
                    let n = dr.mesh.positions.len() as u32;
                    assert!(dr.mesh.indices.iter().all(|&i| i < n));
                    assert!(!dr.mesh.indices.is_empty());
                }
            }
        }
    }
});
