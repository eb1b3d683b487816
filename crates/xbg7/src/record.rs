//! The vocabulary the decoder shares with the manifest, the report and the generator:
//! container kinds (and the file names that make a stage), resource statuses and
//! layouts, the entries of TX2D and other directory resources, names as text.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Model,
    Stage,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Model => "model",
            Kind::Stage => "stage",
        }
    }
}

/// Whether the file name is a stage container (`Stage_S*.xpr`).
pub fn is_stage(file_name: &str) -> bool {
    // Bytes, not a `str` slice: byte 7 may fall inside a multi-byte character.
    file_name
        .as_bytes()
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"stage_s"))
}

/// A file name as manifest text: UTF-8 as is, but the escape character `\` as `\\`; every
/// byte of an invalid sequence as `\xNN` (lower-case hex). Injective: distinct raw names
/// stay distinct (a file named with byte 0xFF and one literally named `\xff` no longer
/// meet at one manifest path).
pub fn name_text(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    for chunk in raw.utf8_chunks() {
        for (k, piece) in chunk.valid().split('\\').enumerate() {
            if k > 0 {
                out.push_str("\\\\");
            }
            out.push_str(piece);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Decoded,
    Rejected,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// The documented model layout (first block at the data start).
    Sequential,
    /// Located by content.
    Anchored,
}

impl Layout {
    /// The name the manifest uses (`sequential`, `anchored`).
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Sequential => "sequential",
            Layout::Anchored => "anchored",
        }
    }
}

/// One TX2D resource. The fields after `name` are filled by the texture export
/// (the exporter's texture export); a decode-only listing leaves them out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextureEntry {
    pub index: u32,
    pub name: String,
    /// `decoded` (PNG written) or `rejected` (see `reason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<crate::texture::Reject>,
    /// GPU format name (`DXT1`, `8_8_8_8`, …; `unknown_<n>` for an unsupported number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiled: Option<bool>,
    /// The PNG (relative to OUT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub png: Option<String>,
    /// The roughness map derived from a `_gls` texture (`output.specular_gloss = "pbr"`),
    /// relative to OUT: an output of the run like `png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roughness_png: Option<String>,
    /// BLAKE3 of the decoded base level (`crate::texture::resource::digest`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

impl TextureEntry {
    /// An entry with only the directory index and name.
    pub fn new(index: u32, name: String) -> TextureEntry {
        TextureEntry {
            index,
            name,
            status: None,
            reason: None,
            format: None,
            width: None,
            height: None,
            tiled: None,
            png: None,
            roughness_png: None,
            digest: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtherEntry {
    pub index: u32,
    pub tag: String,
    pub name: String,
}
