//! What each XBG7 resource's descriptor says about its block: the declaration and its
//! attribute map, whether the vertices can be decoded exactly ([`check_declaration`]),
//! a multi-stream declaration's [`Streams`], the candidate runs of sub-mesh records.
//! Pure over one directory entry; where the block is, is the layout's question.

use crate::container::{self, Container, TAG_XBG7};
use crate::decl::{DeclType, Declaration};
use crate::descriptor::{self, Descriptor, SubmeshRecord};
use crate::layout::records::{self, Selection};
use crate::reason::{Code, Reason};
use crate::vertex::AttributeMap;
use crate::vocab::Kind;

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
    pub(crate) descriptor: Descriptor,
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
            None => (&self.descriptor.decl, &self.map),
        }
    }
}

pub(crate) fn parse_resource<'a>(r: &container::Resource<'a>, kind: Kind) -> Parsed<'a> {
    let desc = match &r.problem {
        Some(p) => Err(Reason::new(Code::BadRange, p.to_string())),
        None => descriptor::parse(r.descriptor).map_err(Reason::from).map(|d| {
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
                descriptor: d,
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

/// Every XBG7 resource of `c`, in directory order, as its descriptor describes it.
pub(crate) fn parse_resources<'a>(c: &Container<'a>, kind: Kind) -> Vec<Parsed<'a>> {
    c.resources
        .iter()
        .filter(|r| r.is(TAG_XBG7))
        .map(|r| parse_resource(r, kind))
        .collect()
}
