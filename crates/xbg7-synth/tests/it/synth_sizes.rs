//! Size of the synthetic disc. Demo size is checked on the real build in
//! `synth_disc.rs`; full scale is checked from the plan (summed planned sizes) plus one
//! real build of the largest planned stage, to keep tests fast. Run with `--nocapture` to
//! see the sizes. (`xbg7-export synth` reports how long a whole disc takes.)

use xbg7_synth::{build_file, file_plan, FileKind, FileSpec, Scale, SynthOptions};

const SEED: u64 = 20260712;

fn largest_stage(plan: &[FileSpec]) -> &FileSpec {
    plan.iter()
        .filter(|f| f.kind == FileKind::Stage)
        .max_by_key(|f| f.estimated_size())
        .unwrap()
}

#[test]
fn planned_sizes_match_the_retail_disc_shape() {
    for (scale, lo, hi) in [(Scale::Demo, 10e6, 60e6), (Scale::Full, 0.9e9, 1.2e9)] {
        let plan = file_plan(&SynthOptions {
            seed: SEED,
            scale,
            realism: false,
            multistream: false,
        });
        let total: u64 = plan.iter().map(FileSpec::estimated_size).sum();
        let stages: u64 = plan
            .iter()
            .filter(|f| f.kind == FileKind::Stage)
            .map(FileSpec::estimated_size)
            .sum();
        let big = largest_stage(&plan);
        eprintln!(
            "{scale}: planned total {:.1} MB (stages {:.1} MB), largest stage {} {:.1} MB",
            total as f64 / 1e6,
            stages as f64 / 1e6,
            big.rel_path,
            big.estimated_size() as f64 / 1e6
        );
        assert!((lo..=hi).contains(&(total as f64)), "{scale}: {total}");
        if scale == Scale::Full {
            assert!((55e6..=85e6).contains(&(big.estimated_size() as f64)));
            // Textures are about half of every stage's bytes.
            for f in plan.iter().filter(|f| f.kind == FileKind::Stage) {
                let tex: u64 = f.textures.iter().map(|t| t.payload_size() as u64).sum();
                let share = tex as f64 / f.estimated_size() as f64;
                assert!((0.35..=0.65).contains(&share), "{}: texture share {share}", f.rel_path);
            }
        }
    }
}

#[test]
fn largest_full_stage_builds_to_its_planned_size() {
    let plan = file_plan(&SynthOptions {
        seed: SEED,
        scale: Scale::Full,
        realism: false,
        multistream: false,
    });
    let big = largest_stage(&plan);
    let f = build_file(big);
    let real = f.bytes.len() as f64;
    eprintln!(
        "full: {} built {:.1} MB ({} XBG7, {} TX2D)",
        big.rel_path,
        real / 1e6,
        f.truth.resources.len(),
        f.truth.textures.len()
    );
    let planned = big.estimated_size() as f64;
    assert!((real - planned).abs() / planned < 0.05, "{real} vs {planned}");
    assert!((55e6..=85e6).contains(&real));
}
