//! Xbox disc images: XDVDFS file systems (a trimmed XISO, or a full XGD1/2/3 image with
//! the game partition at its offset), read through the `xdvdfs` crate.
//!
//! Reading maps the image and gives each `.xpr` of `hidden/resource3d` (any case) as an
//! extent of the image file — nothing is extracted; the pipeline maps each extent as it
//! would map a loose file. Writing (`synth --iso`) packs a folder into an XISO, and
//! optionally places it at the XGD2 partition offset of a sparse file (the leading
//! 253 MiB are a hole, so the image costs only its partition on disk).

use std::path::{Path, PathBuf};

use xdvdfs::blockdev::BlockDeviceRead;
use xdvdfs::layout::{DirectoryEntryNode, DirectoryEntryTable};

/// Where the game partition of an XDVDFS image may start: XISO (0), XGD2, XGD3, XGD1.
pub const PARTITION_OFFSETS: [u64; 4] = [0, XGD2_OFFSET, 0x0208_0000, 0x1830_0000];
/// The XGD2 game partition offset.
pub const XGD2_OFFSET: u64 = 0x0FD9_0000;
const SECTOR: u64 = 2048;

/// One file of an image: its name, and where its bytes are in the image file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageFile {
    /// Raw name bytes, as stored.
    pub name: Vec<u8>,
    /// Absolute byte offset in the image file.
    pub offset: u64,
    pub len: u64,
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
    #[error("{0}: the image's directory tables are damaged ({1})")]
    Damaged(String, String),
    #[error(
        "{0} has no hidden/resource3d folder (any case, e.g. hidden/Resource3D) and no .xpr \
         file at its root"
    )]
    NoResource3d(String),
}

/// The image bytes seen from a partition start; reads past the end fail (the crate's own
/// slice reader panics on a short read).
struct Partition<'a>(&'a [u8]);

#[derive(Debug)]
struct OutOfImage;

impl BlockDeviceRead<OutOfImage> for Partition<'_> {
    fn read(&mut self, offset: u64, buffer: &mut [u8]) -> Result<(), OutOfImage> {
        let start = usize::try_from(offset).map_err(|_| OutOfImage)?;
        let end = start.checked_add(buffer.len()).ok_or(OutOfImage)?;
        buffer.copy_from_slice(self.0.get(start..end).ok_or(OutOfImage)?);
        Ok(())
    }
}

/// Does `path` hold an XDVDFS volume at one of the known offsets?
pub fn is_image(path: &Path) -> bool {
    map(path).is_ok_and(|m| partition(&m).is_some())
}

fn map(path: &Path) -> std::io::Result<memmap2::Mmap> {
    let f = std::fs::File::open(path)?;
    // SAFETY: the image is read-only input, as every disc file (see pipeline::read_file).
    unsafe { memmap2::Mmap::map(&f) }
}

/// The partition start and root directory table.
fn partition(bytes: &[u8]) -> Option<(u64, DirectoryEntryTable)> {
    PARTITION_OFFSETS.iter().find_map(|&base| {
        let mut part = Partition(bytes.get(usize::try_from(base).ok()?..)?);
        let vol = xdvdfs::read::read_volume(&mut part).ok()?;
        Some((base, vol.root_table))
    })
}

/// Every entry of one directory table (bounded: a damaged table cannot loop forever,
/// the crate walks a tree of offsets inside the table's own size).
fn entries(bytes: &[u8], base: u64, table: &DirectoryEntryTable) -> Result<Vec<DirectoryEntryNode>, String> {
    let mut part = Partition(&bytes[base as usize..]);
    table.walk_dirent_tree(&mut part).map_err(|e| format!("{e:?}"))
}

fn file_of(base: u64, d: &DirectoryEntryNode) -> ImageFile {
    let data = d.node.dirent.data;
    let (sector, size) = (data.sector, data.size);
    ImageFile {
        name: d.name_slice().to_vec(),
        offset: base + sector as u64 * SECTOR,
        len: size as u64,
        directory: d.node.dirent.attributes.directory(),
    }
}

/// The child directory of `table` named `name` ASCII case-insensitively.
fn child(
    bytes: &[u8],
    base: u64,
    table: &DirectoryEntryTable,
    name: &str,
) -> Result<Option<DirectoryEntryTable>, String> {
    let mut hits: Vec<DirectoryEntryNode> = entries(bytes, base, table)?
        .into_iter()
        .filter(|d| d.name_slice().eq_ignore_ascii_case(name.as_bytes()))
        .filter(|d| d.node.dirent.attributes.directory())
        .collect();
    hits.sort_by(|a, b| a.name_slice().cmp(b.name_slice()));
    Ok(hits.first().and_then(|d| d.node.dirent.dirent_table()))
}

/// The `.xpr` entries (any case, files and anything else named so) of the image's
/// `hidden/resource3d` (any case), or of its root when it has no such folder; each file
/// checked to lie inside the image.
pub fn list_xpr(path: &Path) -> Result<Vec<ImageFile>, ImageError> {
    let shown = path.display().to_string();
    let bytes = map(path).map_err(|e| ImageError::Io(shown.clone(), e))?;
    let (base, root) = partition(&bytes).ok_or_else(|| ImageError::NotAnImage(shown.clone()))?;
    let damaged = |e: String| ImageError::Damaged(shown.clone(), e);
    let folder = match child(&bytes, base, &root, "hidden").map_err(damaged)? {
        Some(h) => child(&bytes, base, &h, "resource3d").map_err(damaged)?,
        None => None,
    };
    let table = folder.unwrap_or(root);
    let mut out: Vec<ImageFile> = match table.region.is_empty() {
        true => Vec::new(),
        false => entries(&bytes, base, &table).map_err(damaged)?,
    }
    .iter()
    .filter(|d| crate::walker::is_xpr_name(d.name_slice()))
    .map(|d| file_of(base, d))
    .collect();
    if folder.is_none() && out.is_empty() {
        return Err(ImageError::NoResource3d(shown));
    }
    for f in &out {
        if !f.directory && f.offset.checked_add(f.len).is_none_or(|end| end > bytes.len() as u64) {
            return Err(damaged(format!(
                "{} runs past the end of the image",
                crate::walker::name_text(&f.name)
            )));
        }
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
