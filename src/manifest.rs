//! The coverage manifest (`OUT/manifest.json`, schema `xbg7-export.manifest/1`).
//!
//! Owns the serialised shape and the summary arithmetic. Deterministic by construction:
//! containers sorted by path, resources by directory index, maps are `BTreeMap`s, no
//! timestamps and no absolute paths.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use xbg7::reason::Reason;
pub use xbg7::record::{Kind, Layout, OtherEntry, Status, TextureEntry};

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
    /// cells (the grid's pixel budget, [`xbg7_preview::preview::MAX_GRID_PIXELS`]).
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
    /// A multi-stream declaration's streams, in stream order: where each buffer is, or
    /// why it was left out (absent for a single-stream declaration).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamEntry>,
}

/// One stream of a decoded multi-stream resource.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamEntry {
    pub stream: u16,
    pub stride: u32,
    /// Data-section-relative offset of its buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Why the stream was left out (its attributes are not in the glTF).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_out: Option<String>,
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
            streams: Vec::new(),
        }
    }
}

/// Why bytes are not a `xbg7-export.manifest/1` manifest.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("not a manifest: the top level is not a JSON object")]
    NotObject,
    #[error("not a manifest: missing field `schema`")]
    MissingSchema,
    #[error("schema is {found}, expected {SCHEMA}")]
    WrongSchema { found: String },
    /// Serde's message names the field and position (e.g. "missing field `kind` at line 9 column 5").
    #[error("not a manifest: {0}")]
    Invalid(serde_json::Error),
    /// Two entries with one key: a diff keyed by it would silently keep one of them.
    #[error("not a manifest: {0}")]
    Duplicate(String),
}

/// Parse manifest bytes: JSON first, then the `schema` value, then the full shape.
pub fn parse(bytes: &[u8]) -> Result<Manifest, ManifestError> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(ManifestError::NotJson)?;
    let obj = value.as_object().ok_or(ManifestError::NotObject)?;
    match obj.get("schema") {
        None => return Err(ManifestError::MissingSchema),
        Some(serde_json::Value::String(s)) if s == SCHEMA => {}
        Some(serde_json::Value::String(s)) => return Err(ManifestError::WrongSchema { found: s.clone() }),
        Some(other) => {
            return Err(ManifestError::WrongSchema {
                found: other.to_string(),
            })
        }
    }
    // Deserialise from the bytes again (not the Value) so errors carry line and column.
    let m: Manifest = serde_json::from_slice(bytes).map_err(ManifestError::Invalid)?;
    check_unique(&m)?;
    Ok(m)
}

/// Container paths are unique, and resource indices within each container.
fn check_unique(m: &Manifest) -> Result<(), ManifestError> {
    let mut paths = std::collections::BTreeSet::new();
    for c in &m.containers {
        if !paths.insert(c.path.as_str()) {
            return Err(ManifestError::Duplicate(format!(
                "container {:?} is listed twice",
                c.path
            )));
        }
        let mut idx = std::collections::BTreeSet::new();
        for r in &c.resources {
            if !idx.insert(r.index) {
                return Err(ManifestError::Duplicate(format!(
                    "resource index {} of {:?} is listed twice",
                    r.index, c.path
                )));
            }
        }
    }
    Ok(())
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
