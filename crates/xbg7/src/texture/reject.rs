//! Why a texture was not decoded: the [`TextureCode`] and its [`Reject`].

use serde::{Deserialize, Serialize};

/// Why a texture was not decoded (the manifest's `textures[].reason.code`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextureCode {
    /// Shorter than 52 bytes, or the directory entry's range is bad.
    BadDescriptor,
    /// `Common` type is not 3 or the fetch constant type is not 2.
    NotTexture,
    /// Cube, 3D or 1D.
    #[serde(rename = "not_2d")]
    Not2d,
    /// A GPU format this exporter does not decode.
    UnknownFormat,
    /// The base level is in the packed mip tail (≤ 16 px with packed mips).
    PackedMipTail,
    /// The base level's bytes are not inside the data section.
    BadRange,
    /// Decoding it would take the container's decoded textures past their bound
    /// ([`super::budget`]: 16 × the container's bytes + 16 MiB).
    OutputBudget,
}

impl TextureCode {
    pub const ALL: [TextureCode; 7] = [
        TextureCode::BadDescriptor,
        TextureCode::NotTexture,
        TextureCode::Not2d,
        TextureCode::UnknownFormat,
        TextureCode::PackedMipTail,
        TextureCode::BadRange,
        TextureCode::OutputBudget,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TextureCode::BadDescriptor => "bad_descriptor",
            TextureCode::NotTexture => "not_texture",
            TextureCode::Not2d => "not_2d",
            TextureCode::UnknownFormat => "unknown_format",
            TextureCode::PackedMipTail => "packed_mip_tail",
            TextureCode::BadRange => "bad_range",
            TextureCode::OutputBudget => "output_budget",
        }
    }
}

/// A texture reject: code plus human detail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(deny_unknown_fields)]
#[error("{}: {detail}", code.as_str())]
pub struct Reject {
    pub code: TextureCode,
    pub detail: String,
}

impl Reject {
    pub fn new(code: TextureCode, detail: impl Into<String>) -> Reject {
        Reject {
            code,
            detail: detail.into(),
        }
    }
}
