//! Decoding a whole file (`xbg7::Xpr::parse` then `meshes`), as a model and as a stage: any
//! bytes give a decode or a container-level reason, never a panic; every decoded mesh
//! passed the gates, so its indices are in range.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xbg7::{DecodeConfig, Kind, Xpr};

fuzz_target!(|data: &[u8]| {
    let cfg = DecodeConfig::default();
    let Ok(xpr) = Xpr::parse(data) else { return };
    for kind in [Kind::Model, Kind::Stage] {
        for r in &xpr.meshes(kind, &cfg).resources {
            if let Ok(dr) = &r.result {
                let n = dr.mesh.positions.len() as u32;
                assert!(dr.mesh.indices.iter().all(|&i| i < n));
                assert!(!dr.mesh.indices.is_empty());
            }
        }
    }
});
