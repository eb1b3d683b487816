//! The perfect disc does not move: `realism` draws come from their own random stream, so
//! with `realism: false` every byte of the demo disc is what it was before the
//! imperfection families existed. Two digests (seed 1, demo scale): the files (every
//! path and its bytes) and the truth JSON. The first was recorded before #14 and again
//! after #16 laid textures out by the Xenos rules (tiled extent, 32-block linear pitch;
//! that merge touched only the generator's texture code), and again after #26 drew a
//! stream layout for every multi-stream file (only the 20 `rou_e1xx` files and their
//! truth moved: `decoded_or_rejected`, the left-out streams' attributes not in the
//! truth mesh, the layout as `family`); the truth's other changes are fields added to
//! it (`digest_unsplit`).

use xbg7_synth::{build_file, file_plan, Scale, SynthOptions};

fn disc_digests(seed: u64) -> (String, String) {
    let (mut files, mut truth) = (blake3::Hasher::new(), blake3::Hasher::new());
    for spec in file_plan(&SynthOptions {
        seed,
        scale: Scale::Demo,
        realism: false,
        multistream: false,
    }) {
        let f = build_file(&spec);
        files.update(f.rel_path.as_bytes());
        files.update(&(f.bytes.len() as u64).to_le_bytes());
        files.update(&f.bytes);
        let json = serde_json::to_vec(&f.truth.without_meshes()).expect("truth serialises");
        truth.update(&(json.len() as u64).to_le_bytes());
        truth.update(&json);
    }
    (
        files.finalize().to_hex().to_string(),
        truth.finalize().to_hex().to_string(),
    )
}

#[test]
fn perfect_demo_disc_seed_1_is_byte_identical_to_before_realism() {
    let (files, truth) = disc_digests(1);
    eprintln!("seed 1 demo disc: files {files}, truth {truth}");
    assert_eq!(
        files,
        "eeb9054d7ff293af0e531b498459ea7511ac45a349c6f0bce2fc9a618b1a67fc"
    );
    assert_eq!(
        truth,
        "467684ef7c0f72bea745063c11432fd85c372ab8457f18b54f67a08d8c2ef318"
    );
}
