//! The decoder against the ground truth of the multi-stream demo discs (`synth
//! --multistream`, issue #39): multi-stream sub-models in the stages and every layout of
//! their buffers (after the index buffer, padded, scattered, positions last, all apart,
//! clustered, after the textures; two and three streams; the positions alone in stream
//! 0). Whatever is decoded is exact (0 wrong), and the single-stream resources beside
//! them — which now meet index buffers alone before their blocks — all decode.

use xbg7_export::verify::Report;

fn run(seed: u64) -> Report {
    crate::common::verify_demo(seed, false, true)
}

fn check(seed: u64, floor: usize) {
    let r = run(seed);
    eprintln!("multistream seed {seed}\n{}", r.table());
    assert!(r.container_errors.is_empty(), "{:?}", r.container_errors);
    let wrong: Vec<&String> = r.categories.values().flat_map(|t| &t.wrong).collect();
    assert!(wrong.is_empty(), "seed {seed}: {} wrong: {wrong:?}", wrong.len());
    // Every layout is on the disc.
    for layout in [
        "back_to_back",
        "padded",
        "scattered",
        "position_last",
        "all_apart",
        "clustered",
        "after_textures",
    ] {
        let n: usize = r
            .families
            .iter()
            .filter(|(f, _)| f.starts_with(&format!("streams_{layout}_")))
            .map(|(_, t)| t.expected_decoded + t.expected_rejected + t.expected_either)
            .sum();
        assert!(n > 0, "seed {seed}: no resource laid out {layout}");
    }
    // The single-stream stage sub-models beside them: at most two of the ~400 lost (two
    // readings fit), none wrong. Measured 0 on both seeds once a multi-stream resource's
    // tie with an owner's block was settled by its reading apart (rule 9).
    let stage = &r.categories["stage"];
    assert!(stage.missed.len() <= 2, "seed {seed}: {:?}", stage.missed);
    // The multi-stream resources themselves: at least `floor` of them decoded exactly
    // (measured when the floor was set: seed 1 92 of 100, seed 5 84 of 90), so a change
    // that loses more than two shows here.
    let (exact, total) = r
        .families
        .iter()
        .filter(|(f, _)| f.starts_with("streams_"))
        .fold((0, 0), |(e, t), (_, x)| {
            (e + x.decoded_exact, t + x.expected_either + x.expected_decoded)
        });
    assert!(
        exact >= floor,
        "seed {seed}: {exact} of {total} multi-stream resources exact, want {floor}"
    );
}

#[test]
fn multistream_demo_seed_1_decodes_nothing_wrong() {
    check(1, 90);
}

#[test]
fn multistream_demo_seed_5_decodes_nothing_wrong() {
    check(5, 82);
}
