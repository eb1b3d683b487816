//! Layout decoders: where a resource's geometry block sits in the data section.
//!
//! `plan` = which decoder places which block of a container; `assemble` = the placed
//! blocks made into resources; `sequential` = the documented model layout (first
//! block at the data start); `anchored` = content anchoring for everything without a
//! stored offset; `records` = which sub-mesh records are real and how one index buffer
//! splits; `streams` = the buffers of a multi-stream declaration's other streams;
//! `tied` = a multi-stream resource tied with another's block, settled by its reading
//! apart. Both decoders end in [`decode_block`], which reads a placed block and runs
//! the hard gates.

pub mod anchored;
pub(crate) mod assemble;
pub(crate) mod plan;
pub mod records;
pub mod sequential;
pub mod streams;
pub(crate) mod tied;

use crate::decl::Declaration;
use crate::gates::{self, GateConfig, Measures};
use crate::mesh::{Mesh, Primitive};
use crate::reason::{Code, Reason};
use crate::vertex::{read_indices, read_vertices, AttributeMap};

/// Bit `bit` of each of 64 flag bytes as one word, byte `j` → bit `j`: eight bytes at
/// a time, their bits gathered into the top byte by one multiplication by
/// `0x0102_0408_1020_4080` (no carries: each product bit comes from exactly one byte).
/// For flags written a byte per item by plain stores (or computed branch-free), then packed.
#[inline(always)]
pub(crate) fn byte_flags(flags: &[u8; 64], bit: u32) -> u64 {
    const LOW: u64 = 0x0101_0101_0101_0101;
    let mut out = 0u64;
    for (g, c) in flags.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) >> bit & LOW;
        out |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * g);
    }
    out
}

/// Where a block was found (data-section-relative byte offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Placement {
    pub index_offset: usize,
    pub index_count: u32,
    pub vertex_offset: usize,
    pub vertex_count: u32,
}

impl Placement {
    /// The block's byte range `[index_offset, vertex end)`.
    pub fn range(&self, stride: usize) -> std::ops::Range<usize> {
        self.index_offset..self.vertex_offset + self.vertex_count as usize * stride
    }
}

/// A block that passed the gates.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    pub placement: Placement,
    pub mesh: Mesh,
    pub measures: Measures,
}

/// Read the block at `p` (indices, then vertices by the declaration) and gate it.
/// The mesh gets one primitive covering all indices.
pub fn decode_block(
    data: &[u8],
    p: Placement,
    decl: &Declaration,
    map: &AttributeMap,
    cfg: &GateConfig,
) -> Result<Decoded, Reason> {
    gate_block(p, read_block(data, p, decl, map)?, cfg)
}

/// Read the block at `p` without gating it: indices (each `< vertex_count`), then the
/// vertices by the declaration, one primitive covering all indices.
pub fn read_block(data: &[u8], p: Placement, decl: &Declaration, map: &AttributeMap) -> Result<Mesh, Reason> {
    let indices = read_indices(data, p.index_offset, p.index_count as usize).ok_or_else(|| {
        Reason::new(
            Code::Truncated,
            format!(
                "index buffer {:#x}+{} runs past the data section",
                p.index_offset,
                2 * p.index_count
            ),
        )
    })?;
    if let Some(&bad) = indices.iter().find(|&&i| i >= p.vertex_count) {
        return Err(Reason::new(
            Code::IndexOutOfRange,
            format!("index {bad} ≥ vertex count {}", p.vertex_count),
        ));
    }
    let mut mesh = read_vertices(data, p.vertex_offset, p.vertex_count as usize, decl, map)
        .ok_or_else(|| vertices_past_end(p, decl))?;
    mesh.primitives = vec![Primitive {
        first_index: 0,
        index_count: p.index_count,
        material: None,
    }];
    mesh.indices = indices;
    Ok(mesh)
}

/// Why [`read_block`] cannot read the vertices of `p` (they run past the data section,
/// or the declaration has no POSITION to read).
pub fn vertices_past_end(p: Placement, decl: &Declaration) -> Reason {
    Reason::new(
        Code::Truncated,
        format!(
            "vertex buffer {:#x}+{}×{} runs past the data section",
            p.vertex_offset, p.vertex_count, decl.stride
        ),
    )
}

/// Run the hard gates over a block read at `p`.
pub fn gate_block(p: Placement, mesh: Mesh, cfg: &GateConfig) -> Result<Decoded, Reason> {
    let measures = gates::measure(&mesh);
    gates::verdict(&measures, cfg)?;
    Ok(Decoded {
        placement: p,
        mesh,
        measures,
    })
}

/// Split a resource's single primitive into one primitive per range of `counts` (index
/// counts in index-buffer order, adding up to the indices).
pub fn split_by_counts(mesh: &mut Mesh, counts: &[u32]) {
    let mut first = 0u32;
    mesh.primitives = counts
        .iter()
        .map(|&c| {
            let p = Primitive {
                first_index: first,
                index_count: c,
                material: None,
            };
            first += c;
            p
        })
        .collect();
}
