//! The perfect disc does not move: `realism` draws come from their own random stream, so
//! with `realism: false` every byte of the demo disc and of its truth is what it was before
//! the imperfection families existed. The digest below was recorded from the generator
//! before #14 (seed 1, demo scale: every file's path, bytes and truth JSON), and again
//! after #16 laid textures out by the Xenos rules (tiled extent, 32-block linear pitch),
//! which changed the texture bytes (that merge touched only the generator's texture code).

use xbg7_synth::{build_file, file_plan, Scale, SynthOptions};

fn disc_digest(seed: u64) -> String {
    let mut h = blake3::Hasher::new();
    for spec in file_plan(&SynthOptions {
        seed,
        scale: Scale::Demo,
        realism: false,
    }) {
        let f = build_file(&spec);
        h.update(f.rel_path.as_bytes());
        h.update(&(f.bytes.len() as u64).to_le_bytes());
        h.update(&f.bytes);
        let json = serde_json::to_vec(&f.truth.without_meshes()).expect("truth serialises");
        h.update(&(json.len() as u64).to_le_bytes());
        h.update(&json);
    }
    h.finalize().to_hex().to_string()
}

#[test]
fn perfect_demo_disc_seed_1_is_byte_identical_to_before_realism() {
    let d = disc_digest(1);
    eprintln!("seed 1 demo disc digest: {d}");
    assert_eq!(d, "d099f858ff68f51ede5675be9e79a7c9ba443c62647287fdcac78be7536cb2db");
}
