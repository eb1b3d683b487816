//! The documented model layout (FORMAT.md §5): the data section starts with the first
//! sub-mesh block, `[record[0].idx_count × u16][record[0].vtx_count × stride]`, at
//! data-relative offset 0. Only the first block's place is known; later sub-meshes go
//! to the anchoring engine.

use super::{decode_block, Decoded, Placement};
use crate::decl::Declaration;
use crate::descriptor::SubmeshRecord;
use crate::gates::GateConfig;
use crate::reason::Reason;
use crate::vertex::AttributeMap;

/// The placement of the first block under the documented layout.
pub fn first_placement(first: &SubmeshRecord) -> Placement {
    Placement {
        index_offset: 0,
        index_count: first.idx_count,
        vertex_offset: 2 * first.idx_count as usize,
        vertex_count: first.vtx_count,
    }
}

/// Decode the first sub-mesh at the data start, gated.
pub fn decode_first(
    data: &[u8],
    first: &SubmeshRecord,
    decl: &Declaration,
    map: &AttributeMap,
    cfg: &GateConfig,
) -> Result<Decoded, Reason> {
    decode_block(data, first_placement(first), decl, map, cfg)
}
