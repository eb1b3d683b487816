//! The coverage manifest (`OUT/manifest.json`, schema `xbg7-export.manifest/1`).
//!
//! Owns the serialised shape and the summary arithmetic. Deterministic by construction:
//! containers sorted by path, resources by directory index, maps are `BTreeMap`s, no
//! timestamps and no absolute paths.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use xbg7::container::{Container, TAG_TX2D, TAG_XBG7};
use xbg7::texture::Reject;
pub use xbg7::vocab::{Kind, Layout};
use xbg7::TextureDecode;

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

impl ContainerEntry {
    /// Every output path (relative to OUT) this container's entry references, each once
    /// (a later listing of a descriptor, `same_as`, repeats its first listing's paths).
    pub fn outputs(&self) -> Vec<&str> {
        let resources = self.resources.iter().flat_map(|r| {
            [
                r.gltf.as_deref(),
                r.bin.as_deref(),
                r.preview.as_deref(),
                r.thumb.as_deref(),
            ]
        });
        let textures = self
            .textures
            .iter()
            .flat_map(|t| [t.png.as_deref(), t.roughness_png.as_deref()]);
        let mut seen = std::collections::HashSet::new();
        [self.preview.as_deref(), self.scene.as_deref()]
            .into_iter()
            .chain(resources)
            .chain(textures)
            .flatten()
            .filter(|p| seen.insert(*p))
            .collect()
    }
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
    /// A model resource's small preview, at the stage cells' size (`output.stage_cell`,
    /// when smaller than `preview_size`): what the report's rows show, `preview` on click.
    /// (A stage resource's `preview` is its grid cell, already that small.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thumb: Option<String>,
    /// A multi-stream declaration's streams, in stream order: where each buffer is, or
    /// why it was left out (absent for a single-stream declaration).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamEntry>,
    /// The directory index of the first entry listing the same descriptor (same tag,
    /// descriptor offset and size), or of the first XBG7 entry with the same descriptor
    /// bytes decoded to the very same result: this entry repeats that one's facts and
    /// output paths (the files are written once). Absent for a first listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<u32>,
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
            thumb: None,
            streams: Vec::new(),
            same_as: None,
        }
    }
}

/// A reject code of the manifest: the decoder's ([`xbg7::Code`]) or the exporter's own
/// ([`ExportCode`]); written as its snake_case name either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Code {
    Decode(xbg7::Code),
    Export(ExportCode),
}

/// The exporter's own reject codes: what happens around the decoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportCode {
    /// Reading the file, or writing an output, failed.
    Io,
    /// A `*.xpr` symbolic link: listed, never followed (its target may be outside the disc).
    Symlink,
    /// The exporter itself failed on this container (a bug: a panic caught at the container
    /// boundary so the batch goes on). Please report it with the file.
    InternalError,
}

impl ExportCode {
    pub const ALL: [ExportCode; 3] = [ExportCode::Io, ExportCode::Symlink, ExportCode::InternalError];

    pub fn as_str(self) -> &'static str {
        match self {
            ExportCode::Io => "io",
            ExportCode::Symlink => "symlink",
            ExportCode::InternalError => "internal_error",
        }
    }
}

impl Code {
    pub const IO: Code = Code::Export(ExportCode::Io);
    pub const SYMLINK: Code = Code::Export(ExportCode::Symlink);
    pub const INTERNAL_ERROR: Code = Code::Export(ExportCode::InternalError);

    pub fn as_str(self) -> &'static str {
        match self {
            Code::Decode(c) => c.as_str(),
            Code::Export(c) => c.as_str(),
        }
    }
}

impl From<xbg7::Code> for Code {
    fn from(c: xbg7::Code) -> Code {
        Code::Decode(c)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A reject of the manifest: code + human detail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {detail}")]
pub struct Reason {
    pub code: Code,
    pub detail: String,
}

impl Reason {
    pub fn new(code: impl Into<Code>, detail: impl Into<String>) -> Reason {
        Reason {
            code: code.into(),
            detail: detail.into(),
        }
    }
}

impl From<xbg7::Reason> for Reason {
    fn from(r: xbg7::Reason) -> Reason {
        Reason {
            code: r.code.into(),
            detail: r.detail,
        }
    }
}

/// A texture reject code of the manifest: the decoder's
/// ([`xbg7::texture::TextureCode`]) or the exporter's `io` (the PNG was not written).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TextureCode {
    Decode(xbg7::texture::TextureCode),
    Export(ExportCode),
}

impl TextureCode {
    pub const IO: TextureCode = TextureCode::Export(ExportCode::Io);

    /// Every texture code the manifest can hold, the decoder's first.
    pub fn all() -> impl Iterator<Item = TextureCode> {
        xbg7::texture::TextureCode::ALL
            .into_iter()
            .map(TextureCode::Decode)
            .chain([TextureCode::IO])
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TextureCode::Decode(c) => c.as_str(),
            TextureCode::Export(c) => c.as_str(),
        }
    }
}

/// A texture reject of the manifest: code + human detail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(deny_unknown_fields)]
#[error("{}: {detail}", code.as_str())]
pub struct TextureReason {
    pub code: TextureCode,
    pub detail: String,
}

impl TextureReason {
    pub fn new(code: TextureCode, detail: impl Into<String>) -> TextureReason {
        TextureReason {
            code,
            detail: detail.into(),
        }
    }
}

impl From<Reject> for TextureReason {
    fn from(r: Reject) -> TextureReason {
        TextureReason::new(TextureCode::Decode(r.code), r.detail)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Decoded,
    Rejected,
}

/// One TX2D resource. The fields after `name` are filled by the texture export; a
/// decode-only listing leaves them out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextureEntry {
    pub index: u32,
    pub name: String,
    /// `decoded` (PNG written) or `rejected` (see `reason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<TextureReason>,
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
    /// BLAKE3 of the decoded base level ([`xbg7::texture::resource::digest`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The directory index of the first TX2D entry with the same descriptor bytes (the
    /// same image): decoded and written once, this entry repeats its facts and `png`.
    /// Absent for a first listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<u32>,
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
            same_as: None,
        }
    }

    /// The entry of a decoded (or rejected) texture: what its header says, its status
    /// and digest or reason (no outputs yet).
    pub fn of(t: &TextureDecode) -> TextureEntry {
        TextureEntry::of_scanning(t, |_| {})
    }

    /// [`TextureEntry::of`], handing the decoded image's bytes to `scan` piece by piece
    /// while they are hashed ([`xbg7::texture::resource::digest_scanning`]).
    pub fn of_scanning(t: &TextureDecode, scan: impl FnMut(&[u8])) -> TextureEntry {
        let mut e = TextureEntry::new(t.index, t.name.clone());
        if let Some(h) = &t.header {
            e.format = t.format_name();
            e.width = Some(h.width);
            e.height = Some(h.height);
            e.tiled = Some(h.tiled);
        }
        match &t.result {
            Ok(img) => {
                e.status = Some(Status::Decoded);
                e.digest = Some(xbg7::texture::resource::digest_scanning(img, scan));
            }
            Err(reject) => {
                e.status = Some(Status::Rejected);
                e.reason = Some(reject.clone().into());
            }
        }
        e
    }
}

/// A directory entry that is neither XBG7 nor TX2D (`USER`, `TXCM`, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtherEntry {
    pub index: u32,
    pub tag: String,
    pub name: String,
}

/// A container's TX2D resources (index and name) and its other directory entries
/// (neither XBG7 nor TX2D), in directory order.
pub fn directory(c: &Container<'_>) -> (Vec<TextureEntry>, Vec<OtherEntry>) {
    let mut textures = Vec::new();
    let mut other = Vec::new();
    for r in &c.resources {
        if r.is(TAG_TX2D) {
            textures.push(TextureEntry::new(r.index, r.name_lossy()));
        } else if !r.is(TAG_XBG7) {
            other.push(OtherEntry {
                index: r.index,
                tag: r.tag_str(),
                name: r.name_lossy(),
            });
        }
    }
    (textures, other)
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

/// Largest manifest read, by `diff` or by an export reading the previous one (a
/// full-scale disc's manifest is ≈ 10 MB); also the bound of the tool's other files in
/// `--out/.xbg7` (the journal and the pending removals list what a manifest lists).
pub const MAX_MANIFEST_BYTES: u64 = 1 << 30;

/// Parse manifest bytes: JSON first, then the `schema` value, then the full shape —
/// typed all the way: no `serde_json::Value` of the document is ever built (one cost
/// ≈ 16× the file), so the peak is the typed manifest itself.
pub fn parse(bytes: &[u8]) -> Result<Manifest, ManifestError> {
    // A first pass checks the syntax and reads the top level's `schema`, skipping every
    // other value (`IgnoredAny`: nothing allocated) …
    match serde_json::from_slice::<Head>(bytes).map_err(ManifestError::NotJson)? {
        Head::NotObject => return Err(ManifestError::NotObject),
        Head::Object(None) => return Err(ManifestError::MissingSchema),
        Head::Object(Some(s)) if s == SCHEMA => {}
        Head::Object(Some(found)) => return Err(ManifestError::WrongSchema { found }),
    }
    // … then the bytes again, into the manifest's types (errors carry line and column).
    let m: Manifest = serde_json::from_slice(bytes).map_err(ManifestError::Invalid)?;
    check_unique(&m)?;
    Ok(m)
}

/// What [`parse`]'s first pass reads: whether the top level is an object, and its
/// `schema` (a string as is, another value as JSON text or "an array" / "an object";
/// the last one when the key repeats, as a JSON object would keep it).
enum Head {
    NotObject,
    Object(Option<String>),
}

impl<'de> Deserialize<'de> for Head {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Head, D::Error> {
        d.deserialize_any(HeadVisitor)
    }
}

struct HeadVisitor;

impl<'de> serde::de::Visitor<'de> for HeadVisitor {
    type Value = Head;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Head, A::Error> {
        let mut schema = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "schema" {
                schema = Some(map.next_value::<SchemaText>()?.0);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(Head::Object(schema))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Head, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Head::NotObject)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Head, E> {
        Ok(Head::NotObject)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Head, E> {
        Ok(Head::NotObject)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Head, E> {
        Ok(Head::NotObject)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Head, E> {
        Ok(Head::NotObject)
    }
    fn visit_str<E>(self, _: &str) -> Result<Head, E> {
        Ok(Head::NotObject)
    }
    fn visit_unit<E>(self) -> Result<Head, E> {
        Ok(Head::NotObject)
    }
}

/// The `schema` value as text (see [`Head`]).
struct SchemaText(String);

impl<'de> Deserialize<'de> for SchemaText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SchemaText, D::Error> {
        d.deserialize_any(SchemaVisitor)
    }
}

struct SchemaVisitor;

impl<'de> serde::de::Visitor<'de> for SchemaVisitor {
    type Value = SchemaText;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E>(self, s: &str) -> Result<SchemaText, E> {
        Ok(SchemaText(s.to_string()))
    }
    fn visit_bool<E>(self, b: bool) -> Result<SchemaText, E> {
        Ok(SchemaText(b.to_string()))
    }
    fn visit_i64<E>(self, n: i64) -> Result<SchemaText, E> {
        Ok(SchemaText(n.to_string()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<SchemaText, E> {
        Ok(SchemaText(n.to_string()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<SchemaText, E> {
        Ok(SchemaText(
            serde_json::Number::from_f64(n).map_or_else(|| n.to_string(), |n| n.to_string()),
        ))
    }
    fn visit_unit<E>(self) -> Result<SchemaText, E> {
        Ok(SchemaText("null".to_string()))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<SchemaText, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(SchemaText("an array".to_string()))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<SchemaText, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(SchemaText("an object".to_string()))
    }
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
            out.extend(c.outputs());
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
