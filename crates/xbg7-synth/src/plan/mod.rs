//! The disc plan: the fixed retail-like file list with its categories and, for every file,
//! all structural random choices — resources (shapes, counts, declarations, record layout,
//! duplicates), textures, materials. Cheap and deterministic from (seed, scale), so counts,
//! categories and sizes can be checked without generating any bytes.
//!
//! Files: `model` and `stage` plan one file of each kind from the `pieces`, with the
//! scales' knobs and stream purposes of `params`; `multistream` adds `--multistream`'s
//! resources and layouts; this file holds the disc's file list.
//! The plan types themselves live in [`crate::spec`].

use crate::realism;
use crate::rng::{derive_seed, Gen};
use crate::spec::{Category, FileSpec, SynthOptions};

mod model;
mod multistream;
mod params;
mod pieces;
mod stage;

use model::plan_model;
use params::{params, PURPOSE_DISC};
pub use pieces::rich_format;
use stage::plan_stage;

/// The 166 model files (sorted by name) with their categories: 36 documented,
/// 14 multi_submesh, 60 body, 20 + 20 + 16 opaque.
pub fn model_list() -> Vec<(String, Category)> {
    let mut v = Vec::with_capacity(166);
    for f in [1, 2, 3, 5, 6, 7] {
        for k in 0..6 {
            v.push((format!("rou_f{f:03}_wep_{k:02}"), Category::Documented));
        }
    }
    for f in [1, 2, 3, 5, 6, 7, 8] {
        for k in 0..2 {
            v.push((format!("rou_f{f:03}_opt_{k:02}"), Category::MultiSubmesh));
        }
    }
    for s in ["A", "T", "W"] {
        v.push((format!("DeltaSaber_{s}"), Category::Body));
    }
    for f in 10..30 {
        v.push((format!("rou_f{f:03}"), Category::Body));
    }
    for e in 1..=37 {
        v.push((format!("rou_e{e:03}"), Category::Body));
    }
    for e in 1..=20 {
        v.push((format!("rou_e{:03}", 100 + e), Category::OpaqueMultistream));
    }
    for k in 1..=20 {
        v.push((format!("chr_p{k:03}"), Category::OpaqueQuantized));
    }
    for k in 1..=16 {
        v.push((format!("obj_fx{k:03}"), Category::OpaqueNoNormal));
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Resource counts of the 22 stages (S07 and S10 fixed, the others random).
pub fn stage_counts(opts: &SynthOptions) -> Vec<u32> {
    let p = params(opts.scale);
    let mut gen = Gen::new(derive_seed(opts.seed, u64::MAX, PURPOSE_DISC));
    let mut best: Vec<u32> = Vec::new();
    for _ in 0..10_000 {
        let v: Vec<u32> = (1..=22u32)
            .map(|s| match s {
                7 => p.s07,
                10 => 9,
                _ => gen.range(p.stage_count.0, p.stage_count.1),
            })
            .collect();
        let total: u32 = v.iter().sum();
        best = v;
        if (p.stage_total.0..=p.stage_total.1).contains(&total) {
            break;
        }
    }
    best
}

/// The whole disc plan: 166 model files then `Stage_S01` .. `Stage_S22`.
pub fn file_plan(opts: &SynthOptions) -> Vec<FileSpec> {
    let mut out = Vec::with_capacity(188);
    for (i, (name, cat)) in model_list().into_iter().enumerate() {
        out.push(plan_model(opts, i as u32, &name, cat));
    }
    for (s, count) in stage_counts(opts).into_iter().enumerate() {
        let index = (166 + s) as u32;
        out.push(plan_stage(opts, index, s as u32 + 1, count));
    }
    if opts.realism {
        // Its own random stream: the perfect plan above does not move.
        for spec in out.iter_mut() {
            realism::apply_plan(spec, opts);
        }
    }
    if opts.multistream {
        for spec in out.iter_mut() {
            multistream::apply_plan(spec, opts);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::pieces::split_indices;
    use super::*;
    use crate::spec::Scale;
    use crate::vformat::{usage, EncType};

    #[test]
    fn scale_parses_and_prints() {
        assert_eq!("demo".parse::<Scale>(), Ok(Scale::Demo));
        assert_eq!("FULL".parse::<Scale>(), Ok(Scale::Full));
        assert!("huge".parse::<Scale>().is_err());
        assert_eq!(Scale::Full.to_string(), "full");
        assert_eq!(Scale::Demo.to_string(), "demo");
    }

    #[test]
    fn model_list_has_the_retail_category_counts() {
        let l = model_list();
        assert_eq!(l.len(), 166);
        let count = |c| l.iter().filter(|(_, k)| *k == c).count();
        assert_eq!(count(Category::Documented), 36);
        assert_eq!(count(Category::MultiSubmesh), 14);
        assert_eq!(count(Category::Body), 60);
        assert_eq!(
            count(Category::OpaqueMultistream) + count(Category::OpaqueQuantized) + count(Category::OpaqueNoNormal),
            56
        );
        let names: HashSet<&String> = l.iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), 166);
    }

    #[test]
    fn stage_counts_follow_the_retail_shape() {
        let full = stage_counts(&SynthOptions::perfect(42, Scale::Full));
        assert_eq!(full.len(), 22);
        assert_eq!(full[6], 378);
        assert_eq!(full[9], 9);
        let total: u32 = full.iter().sum();
        assert!((5000..=5700).contains(&total), "{total}");
        for (i, &c) in full.iter().enumerate() {
            if i != 6 && i != 9 {
                assert!((100..=450).contains(&c));
            }
        }
        let demo = stage_counts(&SynthOptions::demo(42));
        assert_eq!((demo[6], demo[9]), (40, 9));
    }

    #[test]
    fn split_indices_covers_the_buffer_in_triangles() {
        let mut g = Gen::new(4);
        for (i, k) in [(36u32, 3usize), (6, 4), (3, 2), (300, 1)] {
            let s = split_indices(i, k, &mut g);
            assert_eq!(s.iter().sum::<u32>(), i);
            assert!(s.iter().all(|&c| c > 0 && c % 3 == 0));
            assert_eq!(s.len(), k.min(i as usize / 3));
        }
    }

    #[test]
    fn rich_formats_are_single_stream_and_wide() {
        let mut g = Gen::new(8);
        for _ in 0..200 {
            let f = rich_format(&mut g);
            assert_eq!(f.streams(), vec![0]);
            assert!(f.stride(0) >= 28);
            assert_eq!(f.find(usage::POSITION, 0).map(|e| e.ty), Some(EncType::Float3));
            assert!(f.find(usage::NORMAL, 0).is_some());
            // Elements never overlap.
            let mut spans: Vec<(u16, u16)> = f
                .elements
                .iter()
                .map(|e| (e.offset, e.offset + e.ty.size() as u16))
                .collect();
            spans.sort_unstable();
            assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0));
        }
    }
}
