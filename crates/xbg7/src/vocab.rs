//! The vocabulary the decoder shares with the manifest, the report and the generator:
//! container kinds (and the file names that make a stage), layouts, names as text.

use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Model,
    Stage,
}

impl Kind {
    /// The kind of the container at `path`, by its file name: `Stage_S*.xpr` (any case)
    /// is a stage, anything else a model.
    pub fn from_file_name(path: &Path) -> Kind {
        let name = path.file_name().map_or(&[][..], |n| n.as_encoded_bytes());
        if is_stage_bytes(name) {
            Kind::Stage
        } else {
            Kind::Model
        }
    }

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
    is_stage_bytes(file_name.as_bytes())
}

fn is_stage_bytes(file_name: &[u8]) -> bool {
    file_name.get(..7).is_some_and(|p| p.eq_ignore_ascii_case(b"stage_s"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_is_the_file_names_not_the_paths() {
        let kind = |p: &str| Kind::from_file_name(Path::new(p));
        assert_eq!(kind("Stage_S01.xpr"), Kind::Stage);
        assert_eq!(kind("disc/Stage_S01.xpr"), Kind::Stage);
        assert_eq!(kind("hidden/resource3d/stage_s22.XPR"), Kind::Stage);
        assert_eq!(kind("Stage_S/f001.xpr"), Kind::Model);
        assert_eq!(kind("f001.xpr"), Kind::Model);
        assert_eq!(kind("Stage_"), Kind::Model);
        assert_eq!(kind(""), Kind::Model);
    }
}
