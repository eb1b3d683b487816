//! `synth --multistream`: multi-stream resources wherever FORMAT.md §5 leaves their
//! buffers ("each stream is its own buffer of `vertex_count` vertices"; where each one
//! sits is unknown). Some regular stage sub-models get a multi-stream declaration (two or
//! three streams, the positions alone in stream 0 or with the normals), and every file
//! holding multi-stream resources draws their layouts from all of `build::StreamLayout`,
//! the buffers apart included. Its own random stream: the plan without it does not move.

use crate::rng::{derive_seed, Gen};
use crate::spec::{Category, FileKind, FileSpec, RecordLayout, SynthOptions};

use super::pieces::opaque_format;

/// Seed purpose of the `--multistream` plan draws.
const PURPOSE_MULTISTREAM_PLAN: u64 = 0x5743_0002;

/// Share of a stage's regular sub-models made multi-stream.
const STAGE_SHARE: f64 = 0.12;

/// Make some regular sub-models of a stage multi-stream, and let every file with
/// multi-stream resources lay their buffers apart.
pub(super) fn apply_plan(spec: &mut FileSpec, opts: &SynthOptions) {
    let mut gen = Gen::new(derive_seed(opts.seed, spec.index as u64, PURPOSE_MULTISTREAM_PLAN));
    if spec.kind == FileKind::Stage {
        let twins: Vec<usize> = spec.resources.iter().filter_map(|r| r.duplicate_of).collect();
        for (k, r) in spec.resources.iter_mut().enumerate() {
            let plain = r.category == Category::Stage
                && r.family.is_none()
                && r.duplicate_of.is_none()
                && !twins.contains(&k)
                && r.parts.len() == 1
                && matches!(r.records, RecordLayout::PerPart);
            if plain && gen.chance(STAGE_SHARE) {
                r.category = Category::OpaqueMultistream;
                r.format = opaque_format(Category::OpaqueMultistream, &mut gen);
            }
        }
    }
    spec.streams_apart = spec.resources.iter().any(|r| r.format.streams().len() > 1);
}
