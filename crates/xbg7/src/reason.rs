//! Reject reason codes: why a container or resource was not decoded, the stable
//! snake_case vocabulary the exporter's manifest writes (it adds its own for I/O).
//!
//! A reason is a code (for scripts and `diff`) plus a human detail. Codes never change
//! meaning once published; new ones may be added.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a resource (or a whole container) was not decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    // container / descriptor level
    NotXpr2,
    Truncated,
    BadDirectory,
    BadRange,
    NoIndexMarker,
    /// The index marker has no usable vertex count before it (fewer than 32 bytes into
    /// the descriptor, or 0).
    NoVertexCount,
    UnknownDeclType,
    DeclUnterminated,
    NoSubmeshRecords,
    // declaration shape
    MultiStreamDeclaration,
    NoPositionElement,
    QuantizedPosition,
    NoAnchorElement,
    // placement
    LaterSubmeshUnplaced,
    /// Nothing fits: no block the bytes give it (no candidate, or every one another's).
    NoValidAnchor,
    /// Two readings fit: the bytes cannot tell which block is its.
    AmbiguousAnchor,
    /// Gave up: a work bound of the search ran out before it decided.
    AnchorOutOfBudget,
    /// Several runs of record-shaped words with different counts add up to the marker's
    /// index total: which records are real is undecidable.
    AmbiguousSubmeshRecords,
    /// The records split one index buffer, but which range is whose is undecidable.
    AmbiguousSubmeshSplit,
    // gates
    IndexOutOfRange,
    NormalsNotUnit,
    DegenerateTriangles,
    NonFinitePosition,
    PositionOutOfBounds,
    WindingInconsistent,
    VerticesUnreferenced,
    /// Decoded, but an attribute cannot be written as valid glTF (e.g. non-finite UVs).
    InvalidAttribute,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::NotXpr2 => "not_xpr2",
            Code::Truncated => "truncated",
            Code::BadDirectory => "bad_directory",
            Code::BadRange => "bad_range",
            Code::NoIndexMarker => "no_index_marker",
            Code::NoVertexCount => "no_vertex_count",
            Code::UnknownDeclType => "unknown_decl_type",
            Code::DeclUnterminated => "decl_unterminated",
            Code::NoSubmeshRecords => "no_submesh_records",
            Code::MultiStreamDeclaration => "multi_stream_declaration",
            Code::NoPositionElement => "no_position_element",
            Code::QuantizedPosition => "quantized_position",
            Code::NoAnchorElement => "no_anchor_element",
            Code::LaterSubmeshUnplaced => "later_submesh_unplaced",
            Code::NoValidAnchor => "no_valid_anchor",
            Code::AmbiguousAnchor => "ambiguous_anchor",
            Code::AnchorOutOfBudget => "anchor_out_of_budget",
            Code::AmbiguousSubmeshRecords => "ambiguous_submesh_records",
            Code::AmbiguousSubmeshSplit => "ambiguous_submesh_split",
            Code::IndexOutOfRange => "index_out_of_range",
            Code::NormalsNotUnit => "normals_not_unit",
            Code::DegenerateTriangles => "degenerate_triangles",
            Code::NonFinitePosition => "non_finite_position",
            Code::PositionOutOfBounds => "position_out_of_bounds",
            Code::WindingInconsistent => "winding_inconsistent",
            Code::VerticesUnreferenced => "vertices_unreferenced",
            Code::InvalidAttribute => "invalid_attribute",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A reject: code + human detail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    pub code: Code,
    pub detail: String,
}

impl Reason {
    pub fn new(code: Code, detail: impl Into<String>) -> Reason {
        Reason {
            code,
            detail: detail.into(),
        }
    }
}

impl std::error::Error for Reason {}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_name_matches_as_str() {
        for c in [
            Code::NotXpr2,
            Code::LaterSubmeshUnplaced,
            Code::AmbiguousAnchor,
            Code::AnchorOutOfBudget,
            Code::InvalidAttribute,
        ] {
            let j = serde_json::to_string(&c).unwrap();
            assert_eq!(j, format!("\"{}\"", c.as_str()));
        }
    }
}
