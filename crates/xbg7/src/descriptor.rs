//! XBG7 descriptor parsing (FORMAT.md §3): only what is documented.
//!
//! Owns: finding the index marker `(2n, n)` by the valid vertex declaration that follows
//! it, the vertex count 32 bytes before the marker, the sub-mesh records by the documented
//! sliding 4-byte scan, and the NUL-terminated strings (node / material names). The rest
//! of the descriptor's layout is unknown and nothing here depends on it.

use crate::be::u32_at;
use crate::decl::{parse_declaration, DeclError, Declaration};
use crate::reason::{Code, Reason};
use thiserror::Error;

/// A `[vtx_count][0][idx_count][tail]` sub-mesh record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubmeshRecord {
    /// Offset of the record inside the descriptor.
    pub offset: usize,
    pub vtx_count: u32,
    pub idx_count: u32,
    pub tail: u32,
}

/// What the descriptor documents.
#[derive(Clone, Debug, PartialEq)]
pub struct Descriptor {
    /// Offset of the marker's first word inside the descriptor.
    pub marker_offset: usize,
    /// Total index count of the resource (the marker's second word).
    pub index_count: u32,
    /// Total vertex count (u32 at marker − 32).
    pub vertex_count: u32,
    pub decl: Declaration,
    /// Offset just past the declaration's END element.
    pub decl_end: usize,
    /// Sub-mesh records in file order (outside the marker/declaration range).
    pub records: Vec<SubmeshRecord>,
    /// Printable NUL-terminated strings (≥ 3 bytes), in file order.
    pub strings: Vec<String>,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DescriptorError {
    #[error("no (index_bytes = 2·n, n) marker followed by a vertex declaration")]
    NoIndexMarker,
    #[error("index marker at {marker:#x} is followed by a bad declaration: {err}")]
    Declaration { marker: usize, err: DeclError },
    #[error("index marker at {marker:#x} is less than 32 bytes into the descriptor (no vertex count)")]
    NoVertexCount { marker: usize },
    #[error("vertex count at marker−32 is 0")]
    ZeroVertexCount,
}

impl DescriptorError {
    /// The reject code a resource with this descriptor gets (every variant its own).
    pub fn code(&self) -> Code {
        match self {
            DescriptorError::NoIndexMarker => Code::NoIndexMarker,
            DescriptorError::NoVertexCount { .. } | DescriptorError::ZeroVertexCount => Code::NoVertexCount,
            DescriptorError::Declaration { err, .. } => match err {
                DeclError::UnknownType { .. } => Code::UnknownDeclType,
                DeclError::Unterminated { .. } => Code::DeclUnterminated,
                DeclError::Empty => Code::NoPositionElement,
            },
        }
    }
}

impl From<DescriptorError> for Reason {
    fn from(e: DescriptorError) -> Reason {
        Reason::new(e.code(), e.to_string())
    }
}

/// Record bounds documented in FORMAT.md §3.
pub fn is_record(vtx: u32, zero: u32, idx: u32, tail: u32) -> bool {
    (3..=65535).contains(&vtx) && zero == 0 && idx > 0 && idx.is_multiple_of(3) && (1..=64).contains(&tail)
}

/// Is `(a, b)` an index marker shape: `a == 2b`, `b > 0`, `b % 3 == 0`?
pub fn is_marker(a: u32, b: u32) -> bool {
    b > 0 && b.is_multiple_of(3) && a as u64 == 2 * b as u64
}

/// Parse a descriptor.
pub fn parse(desc: &[u8]) -> Result<Descriptor, DescriptorError> {
    let mut first_err: Option<DescriptorError> = None;
    let mut off = 0usize;
    while off + 8 <= desc.len() {
        let (a, b) = (u32_at(desc, off).unwrap_or(0), u32_at(desc, off + 4).unwrap_or(0));
        if is_marker(a, b) {
            match parse_declaration(&desc[off + 8..]) {
                Ok((decl, used)) => return finish(desc, off, b, decl, off + 8 + used),
                Err(err) => {
                    first_err.get_or_insert(DescriptorError::Declaration { marker: off, err });
                }
            }
        }
        off += 4;
    }
    Err(first_err.unwrap_or(DescriptorError::NoIndexMarker))
}

fn finish(
    desc: &[u8],
    marker: usize,
    index_count: u32,
    decl: Declaration,
    decl_end: usize,
) -> Result<Descriptor, DescriptorError> {
    let vc_at = marker
        .checked_sub(32)
        .ok_or(DescriptorError::NoVertexCount { marker })?;
    let vertex_count = u32_at(desc, vc_at).ok_or(DescriptorError::NoVertexCount { marker })?;
    if vertex_count == 0 {
        return Err(DescriptorError::ZeroVertexCount);
    }
    let records = scan_records(desc)
        .into_iter()
        .filter(|r| r.offset + 16 <= marker || r.offset >= decl_end)
        .collect();
    Ok(Descriptor {
        marker_offset: marker,
        index_count,
        vertex_count,
        decl,
        decl_end,
        records,
        strings: strings(desc),
    })
}

/// The documented sliding 4-byte scan for sub-mesh records.
pub fn scan_records(desc: &[u8]) -> Vec<SubmeshRecord> {
    let mut out = Vec::new();
    let mut off = 0usize;
    while off + 16 <= desc.len() {
        let w = |k: usize| u32_at(desc, off + 4 * k).unwrap_or(u32::MAX);
        let (v, z, i, t) = (w(0), w(1), w(2), w(3));
        if is_record(v, z, i, t) {
            out.push(SubmeshRecord {
                offset: off,
                vtx_count: v,
                idx_count: i,
                tail: t,
            });
            off += 16;
        } else {
            off += 4;
        }
    }
    out
}

/// Printable ASCII strings of ≥ 3 bytes terminated by NUL.
pub fn strings(desc: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0usize;
    for (i, &c) in desc.iter().enumerate() {
        if c == 0 {
            if i - start >= 3 {
                out.push(String::from_utf8_lossy(&desc[start..i]).into_owned());
            }
            start = i + 1;
        } else if !(0x20..0x7F).contains(&c) {
            start = i + 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_descriptor_error_has_its_own_code() {
        use crate::decl::DeclError;
        let decl = |err| DescriptorError::Declaration { marker: 0, err };
        assert_eq!(DescriptorError::NoIndexMarker.code(), Code::NoIndexMarker);
        assert_eq!(DescriptorError::NoVertexCount { marker: 8 }.code(), Code::NoVertexCount);
        assert_eq!(DescriptorError::ZeroVertexCount.code(), Code::NoVertexCount);
        assert_eq!(
            decl(DeclError::UnknownType { index: 0, code: 7 }).code(),
            Code::UnknownDeclType
        );
        assert_eq!(
            decl(DeclError::Unterminated { available: 4 }).code(),
            Code::DeclUnterminated
        );
        assert_eq!(decl(DeclError::Empty).code(), Code::NoPositionElement);
    }

    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    /// prefix, vertex count at marker−32, marker, decl (POS FLOAT3, NORMAL FLOAT16_4), END, record.
    fn sample() -> Vec<u8> {
        let mut d = words(&[0x4210_0000, 7]);
        d.extend(b"abc_col\0");
        d.extend(words(&[215, 9, 9, 2187, 0x1000_0000 | 4302, 1, 1, 1]));
        d.extend(words(&[2184, 1092]));
        d.extend(words(&[0x0000_0000, 0x002A_23B9, 0x0000_0000]));
        d.extend(words(&[0x0000_000C, 0x001A_2360, 0x0003_0000]));
        d.extend(words(&[0x00FF_0000, 0xFFFF_FFFF, 0]));
        d.extend(words(&[0x3F80_0000, 215, 0, 1092, 4, 0xDEAD_BEEF]));
        d
    }

    #[test]
    fn finds_marker_vertex_count_decl_and_records() {
        let d = parse(&sample()).unwrap();
        assert_eq!(d.marker_offset, 48);
        assert_eq!((d.index_count, d.vertex_count), (1092, 215));
        assert_eq!(d.decl.stride, 20);
        assert_eq!(d.decl.elements.len(), 2);
        assert_eq!(d.decl_end, 48 + 8 + 36);
        assert_eq!(d.records.len(), 1);
        assert_eq!(
            (d.records[0].vtx_count, d.records[0].idx_count, d.records[0].tail),
            (215, 1092, 4)
        );
        assert_eq!(d.strings, vec!["abc_col".to_string()]);
    }

    #[test]
    fn errors_are_specific() {
        assert_eq!(parse(&words(&[1, 2, 3, 4])), Err(DescriptorError::NoIndexMarker));
        let mut s = sample();
        s[48 + 8 + 4..48 + 8 + 8].copy_from_slice(&0x0012_3456u32.to_be_bytes());
        assert!(matches!(
            parse(&s),
            Err(DescriptorError::Declaration { marker: 48, .. })
        ));
        let s = sample();
        assert!(matches!(parse(&s[24..]), Err(DescriptorError::NoVertexCount { .. })));
        for cut in 0..s.len() {
            let _ = parse(&s[..cut]);
        }
    }

    #[test]
    fn record_bounds_are_the_documented_ones() {
        assert!(is_record(3, 0, 3, 1));
        assert!(is_record(65535, 0, 3, 64));
        assert!(!is_record(2, 0, 3, 1));
        assert!(!is_record(65536, 0, 3, 1));
        assert!(!is_record(3, 1, 3, 1));
        assert!(!is_record(3, 0, 4, 1));
        assert!(!is_record(3, 0, 0, 1));
        assert!(!is_record(3, 0, 3, 0));
        assert!(!is_record(3, 0, 3, 65));
        assert!(is_marker(6, 3) && !is_marker(0, 0) && !is_marker(8, 4) && !is_marker(7, 3));
    }
}
