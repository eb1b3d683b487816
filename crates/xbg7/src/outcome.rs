//! The decoder's results for one container: every XBG7 resource's outcome, a
//! [`DecodedResource`] (mesh, where its blocks were, how it was split, its measures) or
//! the [`Reason`] it was rejected for.

use crate::decl::Declaration;
use crate::gates::Measures;
use crate::layout::streams::StreamPlacement;
use crate::layout::Placement;
use crate::mesh::Mesh;
use crate::reason::Reason;
use crate::vocab::Layout;

/// A resource that decoded and passed every gate.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedResource {
    pub mesh: Mesh,
    pub layout: Layout,
    /// Every block, in record order (one for stages and bodies).
    pub placements: Vec<Placement>,
    pub decl: Declaration,
    pub measures: Measures,
    pub skybox: bool,
    pub spiky: bool,
    /// How the primitives were split (None: one primitive).
    pub split: Option<SplitKind>,
    /// Why the split is [`SplitKind::Undecided`] (the manifest entry's `reason`).
    pub note: Option<Reason>,
    /// A multi-stream declaration's streams in stream order: where each buffer is, or why
    /// it was left out (empty for a single-stream declaration).
    pub streams: Vec<StreamPlacement>,
    /// A multi-stream resource placed on the one reading its search accepted (no other
    /// combination of its candidates had a sample that agrees and passed the gates): its
    /// buffers are kept off the other resources' searches
    /// (`layout::assemble::one_owner_per_buffer`).
    pub sole_reading: bool,
}

/// How a decoded resource's primitives came about (the manifest's `split`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitKind {
    /// One primitive per sub-mesh record, in record order.
    Records,
    /// One shared index buffer split by the records taken in another order than stored:
    /// the only order whose ranges reference their records' vertex counts.
    InferredOrder,
    /// One block per record, each found by content (bodies), in record order.
    PerRecordBlocks,
    /// One primitive over a shared index buffer whose split by the records is
    /// undecidable (several orders of the records fit it, or none does): the geometry is
    /// exact, the sub-mesh boundaries are not known (FORMAT.md leaves the records' order
    /// undocumented), so none is guessed.
    Undecided,
}

impl SplitKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            SplitKind::Records => "records",
            SplitKind::InferredOrder => "inferred_order",
            SplitKind::PerRecordBlocks => "per_record_blocks",
            SplitKind::Undecided => "undecided",
        }
    }
}

/// The outcome for one XBG7 resource.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceOutcome {
    pub index: u32,
    pub name: Vec<u8>,
    pub result: Result<DecodedResource, Reason>,
    /// The directory index of the first entry listing the same descriptor (tag,
    /// descriptor offset and size) when this entry is a later listing of it: decoded once,
    /// `result` is that entry's. Also set on a later entry whose descriptor bytes are an
    /// earlier one's and which decoded to that entry's very result (the same blocks): the
    /// same output, written once.
    pub same_as: Option<u32>,
}

impl ResourceOutcome {
    /// The directory name as text (invalid UTF-8 replaced).
    pub fn name_lossy(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }
}

/// The XBG7 resources decoded from one container, in directory order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ContainerDecode {
    pub resources: Vec<ResourceOutcome>,
}
