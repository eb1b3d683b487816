//! Shared setup of the end-to-end tests: the demo disc (seed 1) written to a temp folder.

use std::path::PathBuf;
use xbg7_synth::{write_disc, Scale, SynthOptions, TruthDisc};

/// Write the seed-1 demo disc under `tmp/disc`; returns its path and ground truth.
pub fn demo_disc(tmp: &tempfile::TempDir) -> (PathBuf, TruthDisc) {
    let disc = tmp.path().join("disc");
    let truth = write_disc(
        &disc,
        &SynthOptions {
            seed: 1,
            scale: Scale::Demo,
            realism: false,
        },
    )
    .unwrap();
    (disc, truth)
}
