//! One container's decode: the result types ([`ContainerDecode`] and its resources),
//! each XBG7 descriptor read into what it says about its block, and the entry points
//! [`decode_container`] / [`parse_container`]. Pure over the file bytes: which layout
//! decoder places which block is [`crate::layout::plan`]'s decision.

use crate::container::{self, Container};
use crate::decl::{DeclType, Declaration};
use crate::descriptor::{self, Descriptor, SubmeshRecord};
use crate::gates::{GateConfig, Measures};
pub use crate::layout::plan::decode_parsed;
use crate::layout::records::{self, Selection};
use crate::layout::Placement;
use crate::mesh::Mesh;
use crate::reason::{Code, Reason};
use crate::record::{is_stage, Kind, Layout, OtherEntry, TextureEntry};
use crate::vertex::AttributeMap;
use serde::{Deserialize, Serialize};

/// What decoding is tuned by: the `[gates]` and `[stage]` tables of `pipeline.toml`
/// (the rest of the file configures the outputs).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DecodeConfig {
    pub gates: GateConfig,
    pub stage: StageConfig,
}

/// The `[stage]` table of `pipeline.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StageConfig {
    pub skybox_extent: f64,
}

impl Default for StageConfig {
    fn default() -> Self {
        StageConfig {
            skybox_extent: 10_000.0,
        }
    }
}

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
    pub streams: Vec<crate::layout::streams::StreamPlacement>,
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
}

/// Everything decoded from one container.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ContainerDecode {
    pub resources: Vec<ResourceOutcome>,
    pub textures: Vec<TextureEntry>,
    pub other: Vec<OtherEntry>,
}

/// Container kind from the file name (a `/`-separated path is taken by its last part:
/// `disc/Stage_S01.xpr` is a stage).
pub fn kind_of(file_name: &str) -> Kind {
    let file_name = file_name.rsplit('/').next().unwrap_or(file_name);
    if is_stage(file_name) {
        Kind::Stage
    } else {
        Kind::Model
    }
}

/// Reject declarations no layout can decode exactly.
pub fn check_declaration(map: &AttributeMap) -> Result<(), Reason> {
    let pos = map
        .position
        .ok_or_else(|| Reason::new(Code::NoPositionElement, "declaration has no POSITION element"))?;
    if !matches!(pos.ty, DeclType::Float3 | DeclType::Float4 | DeclType::Float16_4) {
        return Err(Reason::new(
            Code::QuantizedPosition,
            format!("POSITION is {} (scale unknown)", pos.ty.name()),
        ));
    }
    Ok(())
}

/// The elements of stream `k` of `decl`, with that stream's stride (the largest
/// `offset + size` of its elements; FORMAT.md §5).
pub fn stream_declaration(decl: &Declaration, k: u16) -> Declaration {
    let elements: Vec<_> = decl.elements.iter().copied().filter(|e| e.stream == k).collect();
    let stride = elements
        .iter()
        .map(|e| e.offset as usize + e.ty.size())
        .max()
        .unwrap_or(0);
    Declaration { elements, stride }
}

/// How a multi-stream declaration's buffers are placed: the stream holding POSITION is
/// located with the index buffer (as a single-stream block is); a NORMAL in another
/// stream is placed by its own content and the geometry ([`crate::layout::streams`]);
/// the streams holding neither are left out (the mesh is exact without them).
#[derive(Clone, Debug, PartialEq)]
pub struct Streams {
    /// The stream holding POSITION (stream 0 when there is none: the block is still
    /// located and claimed by it).
    pub located: u16,
    /// The stream holding NORMAL, when it is another one: its declaration and map.
    pub normal: Option<(u16, Declaration, AttributeMap)>,
    /// Every other stream with elements: its number and stride.
    pub left_out: Vec<(u16, usize)>,
}

impl Streams {
    /// `None` for a single-stream declaration.
    pub fn of(decl: &Declaration, map: &AttributeMap) -> Option<Streams> {
        let mut numbers: Vec<u16> = decl.elements.iter().map(|e| e.stream).collect();
        numbers.sort_unstable();
        numbers.dedup();
        if numbers.iter().all(|&k| k == 0) {
            return None;
        }
        let located = map.position.map_or(0, |e| e.stream);
        let normal = map.normal.map(|e| e.stream).filter(|&k| k != located).map(|k| {
            let d = stream_declaration(decl, k);
            let m = AttributeMap::of(&d);
            (k, d, m)
        });
        let left_out = numbers
            .into_iter()
            .filter(|&k| k != located && normal.as_ref().is_none_or(|n| n.0 != k))
            .map(|k| (k, stream_declaration(decl, k).stride))
            .collect();
        Some(Streams {
            located,
            normal,
            left_out,
        })
    }
}

/// `POSITION0@0:FLOAT3 NORMAL0@12:FLOAT16_4 …` (stride N)
pub fn describe_declaration(decl: &Declaration) -> String {
    let els: Vec<String> = decl
        .elements
        .iter()
        .map(|e| {
            let s = if e.stream != 0 {
                format!("s{}:", e.stream)
            } else {
                String::new()
            };
            format!("{s}{}{}@{}:{}", e.usage.name(), e.usage_index, e.offset, e.ty.name())
        })
        .collect();
    format!("{} (stride {})", els.join(" "), decl.stride)
}

/// One XBG7 resource as its descriptor describes it.
pub(crate) struct Parsed<'a> {
    pub(crate) index: u32,
    pub(crate) name: &'a [u8],
    pub(crate) desc: Result<Described, Reason>,
}

/// What a parsed descriptor says about a resource's block.
pub(crate) struct Described {
    pub(crate) d: Descriptor,
    pub(crate) map: AttributeMap,
    /// Why the vertices cannot be decoded exactly; the block is still located (by its
    /// stream holding POSITION, or stream 0) and claimed, so no other resource can take it.
    pub(crate) undecodable: Option<Reason>,
    /// A multi-stream declaration's streams, and the declaration of the one located with
    /// the index buffer.
    pub(crate) streams: Option<(Streams, Declaration, AttributeMap)>,
    /// The candidate runs of real sub-mesh records ([`records::select`]): one when the
    /// file decides them; several when their sums cannot (the ranges may still).
    pub(crate) records: Vec<Vec<SubmeshRecord>>,
}

impl Described {
    /// The declaration the block is located and read with.
    pub(crate) fn locate(&self) -> (&Declaration, &AttributeMap) {
        match &self.streams {
            Some((_, d, m)) => (d, m),
            None => (&self.d.decl, &self.map),
        }
    }
}

pub(crate) fn parse_resource<'a>(r: &container::Resource<'a>, kind: Kind) -> Parsed<'a> {
    let desc = match &r.problem {
        Some(p) => Err(Reason::new(Code::BadRange, p.to_string())),
        None => descriptor::parse(r.descriptor)
            .map_err(|e| Reason::new(e.code(), e.to_string()))
            .map(|d| {
                let map = AttributeMap::of(&d.decl);
                let mut undecodable = check_declaration(&map).err();
                let streams = Streams::of(&d.decl, &map).map(|s| {
                    let decl = stream_declaration(&d.decl, s.located);
                    let map = AttributeMap::of(&decl);
                    (s, decl, map)
                });
                // Without a NORMAL, nothing checks where a multi-stream declaration's
                // positions are: an index buffer may be followed by any buffer.
                if streams.is_some() && map.normal.is_none() && undecodable.is_none() {
                    undecodable = Some(Reason::new(
                        Code::MultiStreamDeclaration,
                        "multi-stream declaration without a NORMAL in any stream: where its positions \
                         are cannot be checked against anything",
                    ));
                }
                let records = match records::select(&d.records, d.index_count, d.vertex_count) {
                    Selection::Unique(rs) => vec![rs],
                    // A model without usable records is one block of the marker's totals.
                    Selection::None if kind == Kind::Model => vec![vec![SubmeshRecord {
                        offset: 0,
                        vtx_count: d.vertex_count,
                        idx_count: d.index_count,
                        tail: 0,
                    }]],
                    Selection::None => vec![Vec::new()],
                    Selection::Ambiguous(runs) => runs,
                };
                Described {
                    d,
                    map,
                    undecodable,
                    streams,
                    records,
                }
            }),
    };
    Parsed {
        index: r.index,
        name: r.name,
        desc,
    }
}
/// Decode every XBG7 resource of one container (pure; no I/O).
pub fn decode_container(file: &[u8], kind: Kind, cfg: &DecodeConfig) -> Result<ContainerDecode, Reason> {
    let c = container::parse(file).map_err(container_reason)?;
    Ok(decode_parsed(&c, kind, cfg))
}

/// Name each primitive's material from the descriptor strings that are TX2D names:
/// the `_col` (albedo) names in order when there is one per primitive, else the first.
pub(crate) fn name_materials(mesh: &mut Mesh, strings: &[String], textures: &std::collections::HashSet<&str>) {
    // A set, not a list: a hostile file may pair a huge descriptor with a huge directory.
    let known: Vec<&String> = strings.iter().filter(|s| textures.contains(s.as_str())).collect();
    let col: Vec<&String> = known.iter().copied().filter(|s| s.ends_with("_col")).collect();
    let pick = if col.is_empty() { &known } else { &col };
    let n = mesh.primitives.len();
    for (k, p) in mesh.primitives.iter_mut().enumerate() {
        p.material = if pick.len() == n {
            Some(pick[k].clone())
        } else {
            pick.first().map(|s| s.to_string())
        };
    }
}

pub fn container_reason(e: container::ContainerError) -> Reason {
    use container::ContainerError as E;
    let code = match e {
        E::NotXpr2(_) => Code::NotXpr2,
        E::TooShort { .. } | E::HeaderTruncated { .. } | E::DataTruncated { .. } => Code::Truncated,
        E::BadCount { .. } => Code::BadDirectory,
    };
    Reason::new(code, e.to_string())
}

/// Parse a container for `info` (re-export for the CLI).
pub fn parse_container(file: &[u8]) -> Result<Container<'_>, Reason> {
    container::parse(file).map_err(container_reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_of_reads_the_file_name_of_a_path() {
        assert_eq!(kind_of("Stage_S01.xpr"), Kind::Stage);
        assert_eq!(kind_of("disc/Stage_S01.xpr"), Kind::Stage);
        assert_eq!(kind_of("hidden/resource3d/stage_s22.XPR"), Kind::Stage);
        assert_eq!(kind_of("Stage_S/f001.xpr"), Kind::Model);
        assert_eq!(kind_of("f001.xpr"), Kind::Model);
    }
}
