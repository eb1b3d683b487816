//! The plan's vocabulary: what a disc, a file and a resource are planned as — options
//! and scales, file kinds, categories and their expected outcomes, record layouts, the
//! resource and file plans, and the imperfection family a resource may carry (`realism`
//! discs). Plain data shared by the planner (`plan`), the families (`realism`), the
//! builder (`build`) and the hostile disc; it depends on none of them.

use std::fmt;
use std::str::FromStr;

use crate::geom::PartPlan;
use crate::texture::TexPlan;
use crate::vformat::VertexFormat;

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
    /// Add the imperfection families of `realism` (off: the perfect reference
    /// disc, byte-identical to the disc before the families existed).
    pub realism: bool,
    /// Add multi-stream resources to the stages and the layouts with every buffer apart
    /// (`plan::multistream`; off: the discs before it, byte-identical).
    pub multistream: bool,
}

impl SynthOptions {
    /// The perfect disc of `seed` at `scale`.
    pub fn perfect(seed: u64, scale: Scale) -> SynthOptions {
        SynthOptions {
            seed,
            scale,
            realism: false,
            multistream: false,
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
    /// Draw its multi-stream resources' layouts from every layout, buffers apart
    /// included (`synth --multistream`).
    pub streams_apart: bool,
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

/// Why the owner of a trap pair cannot be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrapKind {
    /// Stream 0 exactly `POSITION@0 FLOAT3, NORMAL@12 FLOAT16_4`, the rest on stream 1.
    MultiStream,
    /// `SHORT4N` POSITION with `NORMAL FLOAT16_4 @12`, stride 20.
    Quantized,
    /// Documented format, > 20 % degenerate triangles.
    Degenerate,
    /// Documented format, one |coordinate| > 1e8.
    HugeCoordinate,
}

/// One resource's imperfection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    ImperfectNormals,
    DegenerateShare,
    FlippedShare,
    /// `extra` vertices referenced by no index.
    UnreferencedShare {
        extra: u32,
    },
    /// `tail_below`: the owner's last triangles only use vertices below this count (the
    /// smaller sibling's V), so that a window of the sibling's size there is valid.
    OwnerTrapOwner {
        kind: TrapKind,
        tail_below: Option<u32>,
    },
    /// `owner`: plan index of A; `adjacent`: B's block directly after A's; `damaged`: B's
    /// own index buffer is overwritten with values ≥ V.
    OwnerTrapSibling {
        owner: usize,
        adjacent: bool,
        damaged: bool,
    },
    RecordFiller,
    RecordOrder,
    PerRecordBlocks,
}

/// Every family name, in report order.
pub const FAMILY_NAMES: [&str; 10] = [
    "imperfect_normals",
    "degenerate_share",
    "flipped_share",
    "unreferenced_share",
    "owner_trap_owner",
    "owner_trap_sibling",
    "owner_trap_damaged",
    "record_filler",
    "record_order",
    "per_record_blocks",
];

impl Family {
    pub const fn name(self) -> &'static str {
        match self {
            Family::ImperfectNormals => "imperfect_normals",
            Family::DegenerateShare => "degenerate_share",
            Family::FlippedShare => "flipped_share",
            Family::UnreferencedShare { .. } => "unreferenced_share",
            Family::OwnerTrapOwner { .. } => "owner_trap_owner",
            Family::OwnerTrapSibling { damaged: false, .. } => "owner_trap_sibling",
            Family::OwnerTrapSibling { damaged: true, .. } => "owner_trap_damaged",
            Family::RecordFiller => "record_filler",
            Family::RecordOrder => "record_order",
            Family::PerRecordBlocks => "per_record_blocks",
        }
    }

    /// What a correct decoder does with a resource of this family and category: trap
    /// owners and damaged siblings must be rejected — but a multi-stream owner, whose
    /// streams may be placed, is decoded exactly or rejected — everything else as its
    /// category.
    pub const fn expectation(self, category: Category) -> Expectation {
        match self {
            Family::OwnerTrapOwner { .. } if matches!(category, Category::OpaqueMultistream) => {
                Expectation::DecodedOrRejected
            }
            Family::OwnerTrapOwner { .. } | Family::OwnerTrapSibling { damaged: true, .. } => Expectation::Rejected,
            _ => category.expectation(),
        }
    }
}
