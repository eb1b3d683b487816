//! The coverage manifest (`OUT/manifest.json`, schema `xbg7-export.manifest/1`).
//!
//! Owns the serialised shape and the summary arithmetic. Deterministic by construction:
//! containers sorted by path, resources by directory index, maps are `BTreeMap`s, no
//! timestamps and no absolute paths.

use crate::reason::Reason;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SCHEMA: &str = "xbg7-export.manifest/1";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub schema: String,
    pub generator: Generator,
    /// The HTML coverage report (`index.html`, relative to OUT) when one was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    pub summary: Summary,
    pub containers: Vec<ContainerEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generator {
    pub name: String,
    pub version: String,
}

#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub files: usize,
    pub file_errors: usize,
    pub resources: usize,
    pub decoded: usize,
    pub rejected: usize,
}

#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    #[serde(flatten)]
    pub total: Counts,
    /// Per container kind (`model`, `stage`).
    pub kinds: BTreeMap<String, Counts>,
    /// Rejects (resource reasons and container errors) per reason code.
    pub reasons: BTreeMap<String, usize>,
}

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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContainerEntry {
    /// Relative to the disc root, '/'-separated.
    pub path: String,
    pub kind: Kind,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Reason>,
    /// Stage grid preview (relative to OUT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Stage scene: one glTF referencing every decoded non-skybox sub-model as a node,
    /// laid out as a cast sheet (relative to OUT; `.gltf` or `.glb` per `output.format`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<String>,
    /// Present when the stage grid `preview` shows only the first `shown` of `total`
    /// cells (the grid's pixel budget, [`crate::preview::MAX_GRID_PIXELS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview_cells: Option<GridCells>,
    pub resources: Vec<ResourceEntry>,
    pub textures: Vec<TextureEntry>,
    /// Directory entries that are neither XBG7 nor TX2D (`USER`, `TXCM`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other: Vec<OtherEntry>,
}

/// How many cells a capped stage grid shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridCells {
    pub shown: u32,
    pub total: u32,
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceEntry {
    pub index: u32,
    pub name: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<Layout>,
    /// Data-section-relative offset of the (first) index buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stride: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<String>,
    pub vertices: u32,
    pub triangles: u32,
    pub submeshes: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bbox: Option<[[f32; 3]; 2]>,
    /// BLAKE3 of the decoded geometry (`Mesh::digest`, file frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skybox: bool,
    /// Soft signal: long mean edge (the reference decoder's reject gate).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spiky: bool,
    /// `"ccw"` / `"cw"`: how the winding relates to the normals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winding: Option<String>,
    /// How the primitives came about (`records`, `inferred_order`, `per_record_blocks`,
    /// `undecided`: one primitive, the records' split undecidable, `reason` says why);
    /// absent for one primitive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gltf: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

impl ResourceEntry {
    /// A rejected (or not yet decoded) entry: no geometry fields, no outputs.
    pub fn rejected(index: u32, name: impl Into<String>, reason: Option<Reason>) -> ResourceEntry {
        ResourceEntry {
            index,
            name: name.into(),
            status: Status::Rejected,
            reason,
            layout: None,
            offset: None,
            stride: None,
            declaration: None,
            vertices: 0,
            triangles: 0,
            submeshes: 0,
            bbox: None,
            digest: None,
            skybox: false,
            spiky: false,
            winding: None,
            split: None,
            gltf: None,
            bin: None,
            preview: None,
        }
    }
}

/// One TX2D resource. The fields after `name` are filled by the texture export
/// (`crate::texture::export`); a decode-only listing leaves them out.
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
    /// BLAKE3 of the decoded base level (`crate::texture::export::digest`).
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

impl Manifest {
    /// Build from container entries (sorted here) and compute the summary.
    pub fn new(mut containers: Vec<ContainerEntry>) -> Manifest {
        containers.sort_by(|a, b| a.path.cmp(&b.path));
        let summary = summarize(&containers);
        Manifest {
            schema: SCHEMA.to_string(),
            generator: Generator {
                name: env!("CARGO_PKG_NAME").to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            },
            report: None,
            summary,
            containers,
        }
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).expect("manifest serialises");
        v.push(b'\n');
        v
    }

    /// Every output path (relative to OUT) this manifest references.
    pub fn outputs(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.report.as_deref().into_iter().collect();
        for c in &self.containers {
            out.extend(c.preview.as_deref());
            out.extend(c.scene.as_deref());
            for r in &c.resources {
                out.extend(r.gltf.as_deref());
                out.extend(r.bin.as_deref());
                out.extend(r.preview.as_deref());
            }
            for t in &c.textures {
                out.extend(t.png.as_deref());
                out.extend(t.roughness_png.as_deref());
            }
        }
        out
    }
}

pub fn summarize(containers: &[ContainerEntry]) -> Summary {
    let mut s = Summary::default();
    for c in containers {
        let k = s.kinds.entry(c.kind.as_str().to_string()).or_default();
        for counts in [&mut s.total, k] {
            counts.files += 1;
            counts.file_errors += c.error.is_some() as usize;
            counts.resources += c.resources.len();
            counts.decoded += c.resources.iter().filter(|r| r.status == Status::Decoded).count();
            counts.rejected += c.resources.iter().filter(|r| r.status == Status::Rejected).count();
        }
        for reason in c
            .error
            .iter()
            // A decoded resource's reason is a note (`split: undecided`), no reject.
            .chain(
                c.resources
                    .iter()
                    .filter(|r| r.status == Status::Rejected)
                    .filter_map(|r| r.reason.as_ref()),
            )
        {
            *s.reasons.entry(reason.code.as_str().to_string()).or_default() += 1;
        }
    }
    s
}
