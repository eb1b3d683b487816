//! XPR2 container parsing (public XDK frame, FORMAT.md §2).
//!
//! Owns: the header, the resource directory, descriptor and name ranges, and the data
//! section slice. Everything is bounds-checked against the file length; a bad container
//! is a typed error, a bad entry is recorded on that entry, nothing panics and nothing is
//! allocated from an untrusted count beyond what the header's size allows.

use crate::be::{cstr_at, u32_at};
use crate::reason::{Code, Reason};
use thiserror::Error;

/// File offset of the header block (everything in the directory is relative to it).
pub const HEADER_BASE: usize = 0x0C;
/// Longest resource name read (bytes before the NUL): a longer name (or one that runs
/// to the end of the file unterminated) is its first `MAX_NAME` bytes (before, it became
/// the empty name).
pub const MAX_NAME: usize = 4096;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ContainerError {
    #[error("not an XPR2 file (magic {0:02x?})")]
    NotXpr2([u8; 4]),
    #[error("file is {len} bytes, too short for the XPR2 header")]
    TooShort { len: usize },
    #[error("header block ends at {end:#x} but the file is {len:#x} bytes")]
    HeaderTruncated { end: usize, len: usize },
    #[error("data section ends at {end:#x} but the file is {len:#x} bytes")]
    DataTruncated { end: usize, len: usize },
    #[error("resource_count {count} does not fit header_size {header_size:#x} (needs 4 + 16·count)")]
    BadCount { count: u32, header_size: u32 },
}

impl From<ContainerError> for Reason {
    /// The reject code of a container that does not parse (every variant mapped here).
    fn from(e: ContainerError) -> Reason {
        let code = match e {
            ContainerError::NotXpr2(_) => Code::NotXpr2,
            ContainerError::TooShort { .. }
            | ContainerError::HeaderTruncated { .. }
            | ContainerError::DataTruncated { .. } => Code::Truncated,
            ContainerError::BadCount { .. } => Code::BadDirectory,
        };
        Reason::new(code, e.to_string())
    }
}

/// A directory entry's problem (the entry is kept and reported, the rest goes on).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EntryError {
    #[error("descriptor range {offset:#x}+{size:#x} (header-relative) is outside the file")]
    DescriptorRange { offset: u32, size: u32 },
    #[error("tag {0:02x?} is not ASCII")]
    BadTag([u8; 4]),
}

/// One directory entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource<'a> {
    /// Position in the directory (0-based).
    pub index: u32,
    pub tag: [u8; 4],
    /// File offset of the descriptor (`0x0C + offset`).
    pub descriptor_offset: usize,
    /// The descriptor bytes; empty when `problem` is set.
    pub descriptor: &'a [u8],
    /// Name bytes without the NUL (may be empty, non-UTF-8, anything).
    pub name: &'a [u8],
    pub problem: Option<EntryError>,
}

impl Resource<'_> {
    pub fn tag_str(&self) -> String {
        String::from_utf8_lossy(&self.tag).into_owned()
    }
    pub fn name_lossy(&self) -> String {
        String::from_utf8_lossy(self.name).into_owned()
    }
    pub fn is(&self, tag: &[u8; 4]) -> bool {
        &self.tag == tag
    }
}

/// A parsed XPR2 container borrowing the file bytes.
#[derive(Debug, Clone)]
pub struct Container<'a> {
    pub header_size: u32,
    pub data_size: u32,
    /// File offset of the data section (`0x0C + header_size`).
    pub data_start: usize,
    /// The data section (`data_size` bytes).
    pub data: &'a [u8],
    pub resources: Vec<Resource<'a>>,
}

pub const TAG_XBG7: &[u8; 4] = b"XBG7";
pub const TAG_TX2D: &[u8; 4] = b"TX2D";

/// Parse an XPR2 file.
pub fn parse(file: &[u8]) -> Result<Container<'_>, ContainerError> {
    if file.len() < 0x10 {
        return Err(ContainerError::TooShort { len: file.len() });
    }
    let magic: [u8; 4] = file[0..4].try_into().expect("4 bytes");
    if &magic != b"XPR2" {
        return Err(ContainerError::NotXpr2(magic));
    }
    let header_size = u32_at(file, 4).expect("len checked");
    let data_size = u32_at(file, 8).expect("len checked");
    let header_end = HEADER_BASE as u64 + header_size as u64;
    if header_end > file.len() as u64 {
        return Err(ContainerError::HeaderTruncated {
            end: header_end as usize,
            len: file.len(),
        });
    }
    let header_end = header_end as usize;
    let data_end = header_end as u64 + data_size as u64;
    if data_end > file.len() as u64 {
        return Err(ContainerError::DataTruncated {
            end: data_end as usize,
            len: file.len(),
        });
    }
    let count = u32_at(file, HEADER_BASE).ok_or(ContainerError::TooShort { len: file.len() })?;
    if 4 + 16 * count as u64 > header_size as u64 {
        return Err(ContainerError::BadCount { count, header_size });
    }
    // count ≤ header_size / 16 ≤ file length / 16: the allocation is bounded by the file.
    let mut resources = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let e = HEADER_BASE + 4 + 16 * i;
        let tag: [u8; 4] = file[e..e + 4].try_into().expect("inside header");
        let offset = u32_at(file, e + 4).expect("inside header");
        let size = u32_at(file, e + 8).expect("inside header");
        let name_offset = u32_at(file, e + 12).expect("inside header");
        resources.push(entry(file, i as u32, tag, offset, size, name_offset));
    }
    Ok(Container {
        header_size,
        data_size,
        data_start: header_end,
        data: &file[header_end..data_end as usize],
        resources,
    })
}

fn entry(file: &[u8], index: u32, tag: [u8; 4], offset: u32, size: u32, name_offset: u32) -> Resource<'_> {
    let name = (HEADER_BASE as u64 + name_offset as u64)
        .try_into()
        .ok()
        .and_then(|at: usize| {
            cstr_at(file, at, MAX_NAME).or_else(|| file.get(at..).map(|t| &t[..t.len().min(MAX_NAME)]))
        })
        .unwrap_or(&[]);
    let start = HEADER_BASE as u64 + offset as u64;
    let end = start + size as u64;
    let mut r = Resource {
        index,
        tag,
        descriptor_offset: start as usize,
        descriptor: &[],
        name,
        problem: None,
    };
    if !tag.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
        r.problem = Some(EntryError::BadTag(tag));
    } else if end > file.len() as u64 {
        r.problem = Some(EntryError::DescriptorRange { offset, size });
    } else {
        r.descriptor = &file[start as usize..end as usize];
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal hand-built XPR2: one XBG7 entry "ab" with a 8-byte descriptor.
    fn tiny() -> Vec<u8> {
        let mut f = Vec::new();
        f.extend_from_slice(b"XPR2");
        f.extend_from_slice(&0x40u32.to_be_bytes()); // header_size
        f.extend_from_slice(&4u32.to_be_bytes()); // data_size
        f.extend_from_slice(&1u32.to_be_bytes()); // count @0x0C
        f.extend_from_slice(b"XBG7");
        f.extend_from_slice(&0x20u32.to_be_bytes()); // desc @0x2C
        f.extend_from_slice(&8u32.to_be_bytes());
        f.extend_from_slice(&0x30u32.to_be_bytes()); // name @0x3C
        f.extend_from_slice(&0u32.to_be_bytes());
        f.resize(0x2C, 0);
        f.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        f.resize(0x3C, 0);
        f.extend_from_slice(b"ab\0");
        f.resize(0x4C, 0);
        f.extend_from_slice(&[9, 9, 9, 9]);
        f
    }

    #[test]
    fn parses_header_directory_and_ranges() {
        let f = tiny();
        let c = parse(&f).unwrap();
        assert_eq!(c.header_size, 0x40);
        assert_eq!(c.data_start, 0x4C);
        assert_eq!(c.data, &[9, 9, 9, 9]);
        assert_eq!(c.resources.len(), 1);
        let r = &c.resources[0];
        assert!(r.is(TAG_XBG7));
        assert_eq!(r.descriptor_offset, 0x2C);
        assert_eq!(r.descriptor, &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(r.name, b"ab");
        assert_eq!(r.problem, None);
    }

    #[test]
    fn rejects_bad_input_without_panicking() {
        let f = tiny();
        assert!(matches!(parse(&f[..8]), Err(ContainerError::TooShort { .. })));
        let mut g = f.clone();
        g[0] = b'Y';
        assert!(matches!(parse(&g), Err(ContainerError::NotXpr2(_))));
        assert!(matches!(
            parse(&f[..f.len() - 1]),
            Err(ContainerError::DataTruncated { .. })
        ));
        let mut h = f.clone();
        h[0x0C..0x10].copy_from_slice(&0xFFFF_FFFFu32.to_be_bytes());
        assert!(matches!(parse(&h), Err(ContainerError::BadCount { .. })));
        let mut k = f.clone();
        k[0x18..0x1C].copy_from_slice(&0xFFFF_FFF0u32.to_be_bytes()); // descriptor size
        let c = parse(&k).unwrap();
        assert!(matches!(
            c.resources[0].problem,
            Some(EntryError::DescriptorRange { .. })
        ));
        for cut in 0..f.len() {
            let _ = parse(&f[..cut]);
        }
    }
}
