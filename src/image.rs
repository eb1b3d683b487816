//! Xbox disc images: XDVDFS file systems (a trimmed XISO, or a full XGD1/2/3 image with
//! the game partition at its offset), read through the `xdvdfs` crate's on-disk types.
//!
//! Reading gives each `.xpr` of `hidden/resource3d` (any case) as an extent of the image
//! file — nothing is extracted, nothing is mapped: every read is a positioned read into
//! an owned buffer, so an image that gets shorter while the run reads it is a read error,
//! never a SIGBUS. The directory tables are walked here, not by the crate (whose walk keeps
//! no record of the entries it visited: a table whose subtree offsets loop, or share
//! subtrees, made it run until memory ran out): each table's tree is walked once per
//! offset (a visited set) and at most [`MAX_ENTRIES`] entries. A file entry that runs past
//! the image's end (an image cut off mid-download) is listed with the bytes the image
//! holds of it ([`ImageFile::present`]); the exporter lists it `truncated`. Writing
//! (`synth --iso`) packs a folder into an XISO, and optionally places it at the XGD2
//! partition offset of a sparse file (the leading 253 MiB are a hole, so the image costs
//! only its partition on disk).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use xdvdfs::blockdev::BlockDeviceRead;
use xdvdfs::layout::{DirectoryEntryDiskNode, DirectoryEntryTable};

/// Where the game partition of an XDVDFS image may start: XISO (0), XGD2, XGD3, XGD1.
pub const PARTITION_OFFSETS: [u64; 4] = [0, XGD2_OFFSET, 0x0208_0000, 0x1830_0000];
/// The XGD2 game partition offset.
pub const XGD2_OFFSET: u64 = 0x0FD9_0000;
const SECTOR: u64 = 2048;
/// Most entries read from one directory table. A real table holds at most one entry per
/// 14 bytes and the game's resource folder a few hundred files; a damaged table whose
/// walk meets more is refused rather than read on.
pub const MAX_ENTRIES: usize = 1 << 16;
/// Size of an entry's fixed part (subtree offsets, data region, attributes, name length).
const DIRENT: usize = 0xe;

/// One file of an image: its name, and where its bytes are in the image file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageFile {
    /// Raw name bytes, as stored.
    pub name: Vec<u8>,
    /// Absolute byte offset in the image file.
    pub offset: u64,
    /// Length as the directory entry gives it.
    pub len: u64,
    /// How many of those bytes the image holds (less than `len` when the image ends
    /// inside the file: a cut-off image).
    pub present: u64,
    pub directory: bool,
}

/// Why an image cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("cannot read {0}: {1}")]
    Io(String, std::io::Error),
    #[error(
        "{0} is not a folder, an .xpr file or an Xbox disc image (no XDVDFS volume at the \
         XISO, XGD2, XGD3 or XGD1 offset)"
    )]
    NotAnImage(String),
    #[error("{0}: the image's directory tables are damaged: {1}")]
    Damaged(String, Damage),
    #[error(
        "{0} has no hidden/resource3d folder (any case, e.g. hidden/Resource3D) and no .xpr \
         file at its root"
    )]
    NoResource3d(String),
}

/// What is wrong with a directory table, in words.
#[derive(Debug, thiserror::Error)]
pub enum Damage {
    #[error("the entry at byte {at} lies past the image's end (the image is cut off at byte {len})")]
    CutOff { at: u64, len: u64 },
    #[error("the entry at byte {at} points outside its table ({size} bytes)")]
    OutsideTable { at: u64, size: u32 },
    #[error("the entry at byte {at} cannot be parsed")]
    Unparsable { at: u64 },
    #[error("a table at byte {at} has more than {MAX_ENTRIES} entries")]
    TooManyEntries { at: u64 },
    #[error("reading byte {at}: {source}")]
    Io { at: u64, source: std::io::Error },
}

/// An image file, read with positioned reads (never mapped). A block device is an image
/// like a file; its length is where it ends.
pub struct Image {
    file: std::fs::File,
    len: u64,
}

impl Image {
    pub fn open(path: &Path) -> std::io::Result<Image> {
        use std::io::Seek;
        let mut file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        let len = if meta.is_file() {
            meta.len()
        } else {
            file.seek(std::io::SeekFrom::End(0))?
        };
        Ok(Image { file, len })
    }

    /// Length in bytes when opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the image holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fill `buf` from byte `at`; a read that ends past the image's end (as opened, or as
    /// it is now: a file that got shorter) is an error.
    pub fn read_at(&self, at: u64, buf: &mut [u8]) -> Result<(), Damage> {
        let end = at.checked_add(buf.len() as u64);
        if end.is_none_or(|e| e > self.len) {
            return Err(Damage::CutOff { at, len: self.len });
        }
        read_exact_at(&self.file, buf, at).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => Damage::CutOff { at, len: self.len },
            _ => Damage::Io { at, source: e },
        })
    }
}

/// `pread` until `buf` is full (`UnexpectedEof` when the file ends first).
#[cfg(unix)]
pub fn read_exact_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

/// `pread` until `buf` is full (`UnexpectedEof` when the file ends first).
#[cfg(windows)]
pub fn read_exact_at(file: &std::fs::File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, at)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}

/// The image seen from a partition start (for the crate's volume reader).
struct Partition<'a>(&'a Image, u64);

impl BlockDeviceRead<Damage> for Partition<'_> {
    fn read(&mut self, offset: u64, buffer: &mut [u8]) -> Result<(), Damage> {
        let at = self.1.checked_add(offset).ok_or(Damage::CutOff {
            at: u64::MAX,
            len: self.0.len,
        })?;
        self.0.read_at(at, buffer)
    }
}

/// Does `path` hold an XDVDFS volume at one of the known offsets? Only regular files and
/// block devices are opened (opening a FIFO would block).
pub fn is_image(path: &Path) -> bool {
    let openable = std::fs::metadata(path).is_ok_and(|m| m.is_file() || is_block_device(&m));
    openable && Image::open(path).is_ok_and(|img| partition(&img).is_some())
}

/// Whether `m` is a block device's.
pub fn is_block_device(m: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        m.file_type().is_block_device()
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        false
    }
}

/// The partition start and root directory table.
fn partition(img: &Image) -> Option<(u64, DirectoryEntryTable)> {
    PARTITION_OFFSETS.iter().find_map(|&base| {
        let vol = xdvdfs::read::read_volume(&mut Partition(img, base)).ok()?;
        Some((base, vol.root_table))
    })
}

/// One directory entry as read.
struct Entry {
    name: Vec<u8>,
    sector: u32,
    size: u32,
    directory: bool,
}

impl Entry {
    fn table(&self) -> Option<DirectoryEntryTable> {
        self.directory.then(|| DirectoryEntryTable::new(self.size, self.sector))
    }
}

/// Every entry of one directory table: its binary tree walked in preorder, each subtree
/// offset at most once (an entry whose subtree is itself or an ancestor, or two entries
/// sharing a subtree, cannot make the walk loop or multiply), at most [`MAX_ENTRIES`].
fn entries(img: &Image, base: u64, table: &DirectoryEntryTable) -> Result<Vec<Entry>, Damage> {
    let (sector, size) = (table.region.sector, table.region.size);
    let start = base + sector as u64 * SECTOR;
    let mut out = Vec::new();
    if size == 0 {
        return Ok(out);
    }
    let mut seen: HashSet<u32> = HashSet::new();
    let mut stack = vec![0u32];
    while let Some(top) = stack.pop() {
        if !seen.insert(top) {
            continue;
        }
        let at = start + top as u64;
        if top >= size || top as u64 + DIRENT as u64 > size as u64 {
            return Err(Damage::OutsideTable { at, size });
        }
        if seen.len() > MAX_ENTRIES {
            return Err(Damage::TooManyEntries { at: start });
        }
        let mut fixed = [0u8; DIRENT];
        img.read_at(at, &mut fixed)?;
        // Empty slots are filled with 0xff or 0x00.
        if fixed == [0xff; DIRENT] || fixed == [0; DIRENT] {
            continue;
        }
        let node = DirectoryEntryDiskNode::deserialize::<Damage>(&fixed).map_err(|_| Damage::Unparsable { at })?;
        let mut name = vec![0u8; node.dirent.filename_length as usize];
        img.read_at(at + DIRENT as u64, &mut name)?;
        for child in [node.left_entry_offset, node.right_entry_offset] {
            if child != 0 && child != 0xffff {
                stack.push(4 * child as u32);
            }
        }
        let data = node.dirent.data;
        out.push(Entry {
            name,
            sector: data.sector,
            size: data.size,
            directory: node.dirent.attributes.directory(),
        });
    }
    Ok(out)
}

/// The child directory of `table` named `name` ASCII case-insensitively.
fn child(
    img: &Image,
    base: u64,
    table: &DirectoryEntryTable,
    name: &str,
) -> Result<Option<DirectoryEntryTable>, Damage> {
    let mut hits: Vec<Entry> = entries(img, base, table)?
        .into_iter()
        .filter(|d| d.name.eq_ignore_ascii_case(name.as_bytes()) && d.directory)
        .collect();
    hits.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(hits.first().and_then(Entry::table))
}

/// The `.xpr` entries (files and anything else named so; `is_xpr` is the caller's name
/// rule, the walker's `.xpr` in any case) of the image's `hidden/resource3d` (any case),
/// or of its root when it has no such folder, sorted by name (a name listed twice is
/// listed twice). A file running past the image's end is listed with the bytes the
/// image holds of it.
pub fn list_xpr(path: &Path, is_xpr: impl Fn(&[u8]) -> bool) -> Result<Vec<ImageFile>, ImageError> {
    let shown = path.display().to_string();
    let img = Image::open(path).map_err(|e| ImageError::Io(shown.clone(), e))?;
    let (base, root) = partition(&img).ok_or_else(|| ImageError::NotAnImage(shown.clone()))?;
    let damaged = |e: Damage| ImageError::Damaged(shown.clone(), e);
    let folder = match child(&img, base, &root, "hidden").map_err(damaged)? {
        Some(h) => child(&img, base, &h, "resource3d").map_err(damaged)?,
        None => None,
    };
    let table = folder.unwrap_or(root);
    let mut out: Vec<ImageFile> = entries(&img, base, &table)
        .map_err(damaged)?
        .into_iter()
        .filter(|d| is_xpr(&d.name))
        .map(|d| {
            let offset = base + d.sector as u64 * SECTOR;
            let len = d.size as u64;
            ImageFile {
                present: len.min(img.len().saturating_sub(offset)),
                name: d.name,
                offset,
                len,
                directory: d.directory,
            }
        })
        .collect();
    if folder.is_none() && out.is_empty() {
        return Err(ImageError::NoResource3d(shown));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Pack the folder `src` into an XISO at `image` (replaced); with `xgd2`, the partition
/// starts at [`XGD2_OFFSET`] of a sparse file, as on a full XGD2 disc image.
pub fn write_image(src: &Path, image: &Path, xgd2: bool) -> std::io::Result<()> {
    let part = PathBuf::from(format!("{}.part", image.display()));
    {
        let f = std::fs::File::create(&part)?;
        let mut w = std::io::BufWriter::new(f);
        let mut fs = xdvdfs::write::fs::StdFilesystem::create(src);
        xdvdfs::write::img::create_xdvdfs_image(&mut fs, &mut w, |_| {})
            .map_err(|e| std::io::Error::other(format!("{e:?}")))?;
        use std::io::Write;
        w.flush()?;
    }
    if xgd2 {
        use std::io::{Seek, SeekFrom};
        let shifted = PathBuf::from(format!("{}.xgd2", image.display()));
        let mut out = std::fs::File::create(&shifted)?;
        out.set_len(XGD2_OFFSET)?;
        out.seek(SeekFrom::Start(XGD2_OFFSET))?;
        std::io::copy(&mut std::fs::File::open(&part)?, &mut out)?;
        out.sync_all()?;
        std::fs::remove_file(&part)?;
        std::fs::rename(&shifted, image)
    } else {
        std::fs::rename(&part, image)
    }
}
