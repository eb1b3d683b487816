//! The disc plan: the fixed retail-like file list with its categories and, for every file,
//! all structural random choices — resources (shapes, counts, declarations, record layout,
//! duplicates), textures, materials. Cheap and deterministic from (seed, scale), so counts,
//! categories and sizes can be checked without generating any bytes.
//!
//! Files: `model` and `stage` plan one file of each kind from the `pieces`; this file
//! holds the plan types, the scales' parameters and the disc's file list.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use super::geom::{PartPlan, ShapeKind};
use super::realism::{self, Family};
use super::rng::{derive_seed, Gen};
use super::texture::{self, TexFormat, TexPlan};
use super::vformat::{usage, ElemSpec, EncType, VertexFormat};

mod model;
mod pieces;
mod stage;

use model::*;
pub use pieces::rich_format;
use pieces::*;
use stage::*;

/// Disc size: `demo` (small, fast, for tests) or `full` (retail-sized, ≈ 1 GB).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scale {
    Demo,
    Full,
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scale::Demo => "demo",
            Scale::Full => "full",
        })
    }
}

impl FromStr for Scale {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "demo" => Ok(Scale::Demo),
            "full" => Ok(Scale::Full),
            other => Err(format!("unknown scale {other:?} (expected \"demo\" or \"full\")")),
        }
    }
}

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SynthOptions {
    pub seed: u64,
    pub scale: Scale,
    /// Add the imperfection families of [`super::realism`] (off: the perfect reference
    /// disc, byte-identical to the disc before the families existed).
    pub realism: bool,
}

impl SynthOptions {
    /// The perfect disc of `seed` at `scale`.
    pub fn perfect(seed: u64, scale: Scale) -> SynthOptions {
        SynthOptions {
            seed,
            scale,
            realism: false,
        }
    }

    /// The perfect demo disc of `seed` (what `synth` writes by default).
    pub fn demo(seed: u64) -> SynthOptions {
        SynthOptions::perfect(seed, Scale::Demo)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    Model,
    Stage,
}

impl FileKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            FileKind::Model => "model",
            FileKind::Stage => "stage",
        }
    }
}

/// Resource (and model-file) categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    Documented,
    MultiSubmesh,
    Body,
    OpaqueMultistream,
    OpaqueQuantized,
    OpaqueNoNormal,
    Stage,
    StageLowpoly,
    StageSkybox,
    StageDuplicate,
    StageQuantized,
    StageNoNormal,
}

impl Category {
    pub const fn as_str(self) -> &'static str {
        match self {
            Category::Documented => "documented",
            Category::MultiSubmesh => "multi_submesh",
            Category::Body => "body",
            Category::OpaqueMultistream => "opaque_multistream",
            Category::OpaqueQuantized => "opaque_quantized",
            Category::OpaqueNoNormal => "opaque_no_normal",
            Category::Stage => "stage",
            Category::StageLowpoly => "stage_lowpoly",
            Category::StageSkybox => "stage_skybox",
            Category::StageDuplicate => "stage_duplicate",
            Category::StageQuantized => "stage_quantized",
            Category::StageNoNormal => "stage_no_normal",
        }
    }

    /// Whether a correct decoder must decode resources of this category.
    pub const fn expected_decoded(self) -> bool {
        matches!(self.expectation(), Expectation::Decoded)
    }

    /// What a correct decoder does with resources of this category. Without a NORMAL
    /// element there is nothing documented to anchor on (FORMAT.md §6): a decoder may find
    /// the block through its index window and positions, or reject it with a reason —
    /// but what it decodes must be the truth. Where a multi-stream declaration's buffers
    /// sit is unknown (FORMAT.md §5): found by content they decode exactly, or not at all.
    pub const fn expectation(self) -> Expectation {
        match self {
            Category::OpaqueQuantized | Category::StageQuantized => Expectation::Rejected,
            Category::OpaqueNoNormal | Category::StageNoNormal | Category::OpaqueMultistream => {
                Expectation::DecodedOrRejected
            }
            _ => Expectation::Decoded,
        }
    }
}

/// A category's expected outcome (`truth.json`'s `expected`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expectation {
    /// Must decode, bit-identical to the truth.
    Decoded,
    /// Must be rejected with a reason.
    Rejected,
    /// Either decoded bit-identical to the truth, or rejected with a reason.
    DecodedOrRejected,
}

impl Expectation {
    pub const fn as_str(self) -> &'static str {
        match self {
            Expectation::Decoded => "decoded",
            Expectation::Rejected => "rejected",
            Expectation::DecodedOrRejected => "decoded_or_rejected",
        }
    }
}

/// How a resource's sub-mesh records relate to its geometry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecordLayout {
    /// One block; one record per part (the parts' index ranges split the index buffer).
    PerPart,
    /// One block per part (documented multi-sub-mesh models).
    SeparateBlocks,
    /// One part, one block; records split its index buffer into these index counts.
    Split(Vec<u32>),
}

/// One planned XBG7 resource.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourcePlan {
    pub name: String,
    pub category: Category,
    pub parts: Vec<PartPlan>,
    pub records: RecordLayout,
    pub format: VertexFormat,
    /// Plan index of the original (always a lower index) for exact duplicates.
    pub duplicate_of: Option<usize>,
    /// A duplicate shares the original's block instead of holding its own copy.
    pub share_block: bool,
    /// Indices into the file's textures used as material names.
    pub materials: Vec<usize>,
    /// The imperfection family (`realism` discs only).
    pub family: Option<Family>,
}

impl ResourcePlan {
    pub fn vertex_count(&self) -> u32 {
        let extra = match self.family {
            Some(Family::UnreferencedShare { extra }) => extra,
            _ => 0,
        };
        self.parts.iter().map(PartPlan::vertex_count).sum::<u32>() + extra
    }

    /// What a correct decoder does with this resource (its family's override, else its
    /// category's expectation).
    pub fn expectation(&self) -> Expectation {
        match self.family {
            Some(f) => f.expectation(self.category),
            None => self.category.expectation(),
        }
    }

    pub fn index_count(&self) -> u32 {
        self.parts.iter().map(PartPlan::index_count).sum()
    }

    pub fn record_count(&self) -> usize {
        match &self.records {
            RecordLayout::PerPart | RecordLayout::SeparateBlocks => self.parts.len(),
            RecordLayout::Split(v) => v.len(),
        }
    }

    /// Bytes of the resource's geometry blocks (indices + all vertex streams).
    pub fn geometry_bytes(&self) -> u64 {
        let per_vertex: u64 = self
            .format
            .streams()
            .iter()
            .map(|&s| self.format.stride(s) as u64)
            .sum();
        2 * self.index_count() as u64 + per_vertex * self.vertex_count() as u64
    }
}

/// Everything `build_file` needs to produce one container, deterministically.
#[derive(Clone, Debug, PartialEq)]
pub struct FileSpec {
    /// `hidden/resource3d/<name>.xpr`.
    pub rel_path: String,
    /// Position in the disc's file list (seeds derive from it).
    pub index: u32,
    pub kind: FileKind,
    /// File-level category (`Category::Stage` for stage files).
    pub category: Category,
    /// Seed of the byte-level stream (geometry, layout, filler).
    pub seed: u64,
    pub scale: Scale,
    pub resources: Vec<ResourcePlan>,
    pub textures: Vec<TexPlan>,
    /// Add an extra `USER` resource to the directory.
    pub user_resource: bool,
}

impl FileSpec {
    /// Planned file size (header estimate + blocks + 4096-aligned textures).
    pub fn estimated_size(&self) -> u64 {
        let header: u64 = 16
            + self
                .resources
                .iter()
                .map(|r| {
                    16 + 420
                        + 12 * r.format.elements.len() as u64
                        + 40 * r.record_count() as u64
                        + 2 * r.name.len() as u64
                        + 60
                })
                .sum::<u64>()
            + self
                .textures
                .iter()
                .map(|t| 16 + 52 + t.name.len() as u64 + 1)
                .sum::<u64>();
        let blocks: u64 = self
            .resources
            .iter()
            .filter(|r| !(r.duplicate_of.is_some() && r.share_block))
            .map(|r| r.geometry_bytes() + 40 * r.parts.len() as u64)
            .sum();
        let tex: u64 = self
            .textures
            .iter()
            .map(|t| (t.payload_size() as u64).div_ceil(4096) * 4096)
            .sum();
        header.div_ceil(2048) * 2048 + blocks + tex
    }
}

/// Per-scale knobs.
struct Params {
    doc_v: (u32, u32),
    multi_v: (u32, u32),
    body_v: (u32, u32),
    variant_v: (u32, u32),
    opaque_v: (u32, u32),
    stage_v: (u32, u32),
    model_tex: (u32, u32),
    body_tex: (u32, u32),
    stage_tex: (u32, u32),
    s07: u32,
    stage_count: (u32, u32),
    stage_total: (u32, u32),
}

const FULL: Params = Params {
    doc_v: (150, 3000),
    multi_v: (100, 2500),
    body_v: (3000, 12000),
    variant_v: (800, 6000),
    opaque_v: (400, 6000),
    stage_v: (90, 12000),
    model_tex: (8, 10),
    body_tex: (8, 10),
    stage_tex: (6, 10),
    s07: 378,
    stage_count: (100, 450),
    stage_total: (5000, 5700),
};

const DEMO: Params = Params {
    doc_v: (40, 400),
    multi_v: (30, 300),
    body_v: (300, 1500),
    variant_v: (100, 800),
    opaque_v: (60, 600),
    stage_v: (20, 1500),
    model_tex: (6, 6),
    body_tex: (6, 7),
    stage_tex: (6, 7),
    s07: 40,
    stage_count: (5, 40),
    stage_total: (0, u32::MAX),
};

fn params(scale: Scale) -> &'static Params {
    match scale {
        Scale::Demo => &DEMO,
        Scale::Full => &FULL,
    }
}

const PURPOSE_PLAN: u64 = 1;
const PURPOSE_BUILD: u64 = 2;
const PURPOSE_DISC: u64 = 3;

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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
