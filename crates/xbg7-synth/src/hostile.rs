//! Hostile and broken input fixtures (`synth --hostile`): files a robust exporter must
//! survive, built from two clean demo-disc containers (a one-resource documented model
//! and a many-resource stage) so that what each fixture breaks is known exactly.
//!
//! Owns: choosing the two sources ([`sources`]), re-assembling an XPR2 from edited
//! directory entries ([`assemble`]), the fixture list with what the exporter must report
//! for each ([`hostile_files`], [`Expect`]), and writing them into a disc
//! ([`write_hostile`], plus `hostile.json` describing them). Covered: truncations at many
//! cut points, a zero-byte file, non-XPR2 bytes, `resource_count = 0xFFFFFFFF`, header
//! and data sizes past EOF, descriptor offsets and sizes past EOF, overlapping
//! descriptors, a marker whose declaration never ends, absurd vertex/index counts, every
//! kind of hostile resource name and container file name, an upper-case `.XPR`, and
//! symlinks pointing outside the disc (and at `/dev/zero`).
//!
//! The one use of the decoder's crate beyond vocabulary: [`disassemble`] reads a *clean*
//! generated file back into its directory entries with `xbg7::container::parse` (the
//! public XDK frame, no XBG7 or TX2D decoding) so that the fixtures can edit them. The
//! generator's output and truth never pass through it; the ground truth stays independent
//! of the decoder.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::plan::file_plan;
use super::spec::{Category, FileKind, FileSpec, SynthOptions};
use super::{build_file, io_err, SynthError, SynthFile};
use xbg7::container;
use xbg7::reason::Code;

/// One directory entry of an XPR2 to assemble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawEntry {
    pub tag: [u8; 4],
    pub desc: Vec<u8>,
    pub name: Vec<u8>,
}

/// What the exporter must report for a fixture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    /// The whole container fails with this code (the manifest's `error.code`: a decoder
    /// [`Code`]'s name, or the exporter's `symlink`), no resources.
    FileError(&'static str),
    /// These directory indices are rejected with these codes; every other XBG7 resource
    /// decodes exactly as in the source file.
    Rejects { source: String, rejects: Vec<(u32, Code)> },
    /// Decodes exactly like this clean file of the disc (same resources, status, digests);
    /// only names (and so output file names) differ.
    SameAs(String),
    /// Every resource listed, decoded or rejected with a reason code; at least one reject.
    SomeRejected,
}

/// What a fixture file is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    Bytes(Vec<u8>),
    /// A symbolic link to this target (absolute, or relative to the resource folder).
    Symlink(PathBuf),
}

/// One hostile file of `hidden/resource3d`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostileFile {
    /// File name (raw bytes: may be non-UTF-8 on Unix).
    pub name: Vec<u8>,
    pub content: Content,
    pub expect: Expect,
    /// One line: what the fixture exercises.
    pub what: String,
}

/// The two clean files the fixtures are made from (both are files of the demo disc).
#[derive(Clone, Debug, PartialEq)]
pub struct Sources {
    /// The smallest one-resource documented model.
    pub model: SynthFile,
    /// The smallest stage with at least 12 XBG7 resources (else the one with the most).
    pub stage: SynthFile,
}

/// Pick and build the sources from the plan of `opts` (deterministic).
pub fn sources(opts: &SynthOptions) -> Sources {
    let plan = file_plan(opts);
    let model = plan
        .iter()
        .filter(|s| {
            s.kind == FileKind::Model
                && s.category == Category::Documented
                && s.resources.len() == 1
                && s.resources[0].category == Category::Documented
        })
        .min_by_key(|s| (s.estimated_size(), s.index))
        .or_else(|| plan.iter().find(|s| s.kind == FileKind::Model))
        .expect("the plan has model files");
    let stages: Vec<&FileSpec> = plan.iter().filter(|s| s.kind == FileKind::Stage).collect();
    let stage = stages
        .iter()
        .filter(|s| s.resources.len() >= 12)
        .min_by_key(|s| (s.estimated_size(), s.index))
        .or_else(|| stages.iter().max_by_key(|s| s.resources.len()))
        .expect("the plan has stage files");
    Sources {
        model: build_file(model),
        stage: build_file(stage),
    }
}

/// Assemble an XPR2: header block = count, directory, a u32 0, descriptors (4-aligned),
/// NUL-terminated names, padded to a multiple of 2048; then `data`.
pub fn assemble(entries: &[RawEntry], data: &[u8]) -> Vec<u8> {
    let dir_len = 4 + 16 * entries.len() + 4;
    let mut body: Vec<u8> = Vec::new();
    let mut offs = Vec::with_capacity(entries.len());
    for e in entries {
        while !(dir_len + body.len()).is_multiple_of(4) {
            body.push(0);
        }
        offs.push((dir_len + body.len()) as u32);
        body.extend_from_slice(&e.desc);
    }
    let mut name_offs = Vec::with_capacity(entries.len());
    for e in entries {
        name_offs.push((dir_len + body.len()) as u32);
        body.extend_from_slice(&e.name);
        body.push(0);
    }
    let mut header = Vec::with_capacity(dir_len + body.len());
    header.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    for (k, e) in entries.iter().enumerate() {
        header.extend_from_slice(&e.tag);
        header.extend_from_slice(&offs[k].to_be_bytes());
        header.extend_from_slice(&(e.desc.len() as u32).to_be_bytes());
        header.extend_from_slice(&name_offs[k].to_be_bytes());
    }
    header.extend_from_slice(&0u32.to_be_bytes());
    header.extend_from_slice(&body);
    header.resize(header.len().next_multiple_of(2048), 0);
    let mut f = Vec::with_capacity(12 + header.len() + data.len());
    f.extend_from_slice(b"XPR2");
    f.extend_from_slice(&(header.len() as u32).to_be_bytes());
    f.extend_from_slice(&(data.len() as u32).to_be_bytes());
    f.extend_from_slice(&header);
    f.extend_from_slice(data);
    f
}

/// The directory entries and data section of a clean file.
pub fn disassemble(file: &[u8]) -> (Vec<RawEntry>, Vec<u8>) {
    let c = container::parse(file).expect("a clean synthetic file parses");
    let entries = c
        .resources
        .iter()
        .map(|r| RawEntry {
            tag: r.tag,
            desc: r.descriptor.to_vec(),
            name: r.name.to_vec(),
        })
        .collect();
    (entries, c.data.to_vec())
}

/// Overwrite u32 `field` (0 tag, 1 offset, 2 size, 3 name offset) of directory entry `i`.
fn patch_entry(f: &mut [u8], i: usize, field: usize, value: u32) {
    let at = container::HEADER_BASE + 4 + 16 * i + 4 * field;
    f[at..at + 4].copy_from_slice(&value.to_be_bytes());
}

fn patch_u32(f: &mut [u8], at: usize, value: u32) {
    f[at..at + 4].copy_from_slice(&value.to_be_bytes());
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// A descriptor: vertex count `v` at 0, the marker `(2i, i)` at 32, then `decl` bytes.
fn descriptor_with(v: u32, i: u32, decl: &[u8]) -> Vec<u8> {
    let mut d = words(&[v, 0, 0, 0, 0, 0, 0, 0]);
    d.extend(words(&[i.wrapping_mul(2), i]));
    d.extend_from_slice(decl);
    d
}

/// D3DVERTEXELEMENT9 `POSITION0@0 FLOAT3`.
const POS_FLOAT3: [u32; 3] = [0x0000_0000, 0x002A_23B9, 0x0000_0000];
/// `NORMAL0@12 FLOAT16_4`.
const NORMAL_F16X4: [u32; 3] = [0x0000_000C, 0x001A_2360, 0x0003_0000];
const END: [u32; 3] = [0x00FF_0000, 0xFFFF_FFFF, 0];

/// Hostile resource names (every one must map to a safe, unique file name).
pub fn hostile_names() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = vec![
        b"..".to_vec(),
        b".".to_vec(),
        b"../../../../tmp/xbg7-escape".to_vec(),
        b"/etc/passwd".to_vec(),
        b"C:\\Windows\\evil".to_vec(),
        b"a\\..\\b".to_vec(),
        b"nul\0after-the-nul".to_vec(),
        b"\x01\x02\x1b[31mred\x7f".to_vec(),
        b"\xff\xfe\xfd".to_vec(),
        b"caf\xc3\x28".to_vec(),
        vec![b'A'; 300],
        b"CON".to_vec(),
        b"aux.txt".to_vec(),
        b"LpT1".to_vec(),
        b"".to_vec(),
        b"dup".to_vec(),
        b"dup".to_vec(),
        b"DUP".to_vec(),
    ];
    let mut long_b = vec![b'A'; 299];
    long_b.push(b'B');
    v.push(long_b);
    v
}

/// Hostile container file names (copies of the model): every one must export exactly
/// like the model into its own safe, unique folder. Unix only (raw bytes).
pub fn hostile_file_names() -> Vec<Vec<u8>> {
    let mut long = vec![b'L'; 240];
    long.extend_from_slice(b".xpr");
    vec![
        b"UPPER_CASE.XPR".to_vec(),
        b"back\\slash.xpr".to_vec(),
        b"ctrl\x01\x1b[0m.xpr".to_vec(),
        b"\xff\xfe_invalid.xpr".to_vec(),
        b"\xff\xfd_invalid.xpr".to_vec(),
        b"Stage_\xc3\xa9.xpr".to_vec(),
        b"CON.xpr".to_vec(),
        b"nul.Xpr".to_vec(),
        b"..dots.xpr".to_vec(),
        b"dup name.xpr".to_vec(),
        b"dup_name.xpr".to_vec(),
        b"DUP_NAME.xpr".to_vec(),
        long,
    ]
}

fn file_name(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// Every fixture, built from `src`, in listing order.
pub fn hostile_files(src: &Sources) -> Vec<HostileFile> {
    let mut fx = Fixtures::new(src);
    fx.truncations();
    fx.short_data();
    fx.broken_frames();
    fx.entries_past_eof();
    fx.overlapping_descriptors();
    fx.lying_descriptors();
    fx.hostile_resource_names();
    fx.hostile_container_names();
    fx.symlinks();
    fx.out
}

/// The fixture list under construction, with what its phases share: the model
/// disassembled and its XBG7 entry, the sources' paths.
struct Fixtures<'a> {
    src: &'a Sources,
    model: &'a [u8],
    model_rel: String,
    stage_rel: String,
    m_entries: Vec<RawEntry>,
    m_data: Vec<u8>,
    /// Directory index of the model's XBG7 entry.
    xi: usize,
    /// End of the model's header block (start of its data section).
    header_end: usize,
    /// A cut point in the middle of the model's XBG7 descriptor.
    desc_mid: usize,
    out: Vec<HostileFile>,
}

impl<'a> Fixtures<'a> {
    fn new(src: &'a Sources) -> Fixtures<'a> {
        let model = &src.model.bytes;
        let (m_entries, m_data) = disassemble(model);
        let xi = m_entries
            .iter()
            .position(|e| &e.tag == container::TAG_XBG7)
            .expect("the model has an XBG7 resource");
        let c = container::parse(model).expect("clean");
        let xdesc = &c.resources[xi];
        Fixtures {
            src,
            model,
            model_rel: src.model.rel_path.clone(),
            stage_rel: src.stage.rel_path.clone(),
            m_entries,
            m_data,
            xi,
            header_end: c.data_start,
            desc_mid: xdesc.descriptor_offset + xdesc.descriptor.len() / 2,
            out: Vec::new(),
        }
    }

    fn add(&mut self, name: &[u8], content: Content, expect: Expect, what: &str) {
        self.out.push(HostileFile {
            name: name.to_vec(),
            content,
            expect,
            what: what.to_string(),
        });
    }

    /// The model's resources rejected with these codes, every other one as in the model.
    fn rejects(&self, r: Vec<(u32, Code)>) -> Expect {
        Expect::Rejects {
            source: self.model_rel.clone(),
            rejects: r,
        }
    }

    /// The model with its XBG7 descriptor replaced by `desc`.
    fn with_desc(&self, desc: Vec<u8>) -> Vec<u8> {
        let mut e = self.m_entries.clone();
        e[self.xi].desc = desc;
        assemble(&e, &self.m_data)
    }

    /// Truncations: every cut point shorter than header + data is a truncated container.
    fn truncations(&mut self) {
        let (model, header_end) = (self.model, self.header_end);
        let len = model.len();
        let mut cuts = vec![
            1,
            3,
            4,
            8,
            12,
            15,
            16,
            0x10 + 8,
            self.desc_mid,
            header_end - 1,
            header_end,
            header_end + 1,
            header_end + (len - header_end) / 3,
            header_end + 2 * (len - header_end) / 3,
            len - 1,
        ];
        cuts.sort_unstable();
        cuts.dedup();
        for cut in cuts {
            self.add(
                format!("trunc_{cut:06}.xpr").as_bytes(),
                Content::Bytes(model[..cut].to_vec()),
                Expect::FileError(Code::Truncated.as_str()),
                &format!("the model cut to {cut} bytes"),
            );
        }
    }

    /// Truncated data with a consistent header (data_size patched): resource-level
    /// rejects. The last cut falls in the middle of the first block's vertex buffer.
    fn short_data(&mut self) {
        let (model, header_end) = (self.model, self.header_end);
        let len = model.len();
        let truth = &self.src.model.truth.resources[0];
        let mid_block = truth.blocks.first().map_or(len - header_end, |b| {
            b.vertex_offset as usize + b.vertex_count as usize / 2 * truth.stride as usize
        });
        for (k, keep) in [2usize, 64, mid_block.min(len - header_end - 1)]
            .into_iter()
            .enumerate()
        {
            let mut f = model[..header_end + keep].to_vec();
            patch_u32(&mut f, 8, keep as u32);
            self.add(
                format!("short_data_{k}.xpr").as_bytes(),
                Content::Bytes(f),
                Expect::SomeRejected,
                &format!("data section cut to {keep} bytes, data_size patched to match"),
            );
        }
    }

    /// Files that are no container at all, or whose frame (magic, count, sizes) lies.
    fn broken_frames(&mut self) {
        let model = self.model;
        self.add(
            b"empty.xpr",
            Content::Bytes(Vec::new()),
            Expect::FileError(Code::Truncated.as_str()),
            "a zero-byte file",
        );
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.resize(300, 0x5A);
        self.add(
            b"not_xpr2.xpr",
            Content::Bytes(png),
            Expect::FileError(Code::NotXpr2.as_str()),
            "PNG bytes named .xpr",
        );
        let mut xpr0 = model.to_vec();
        xpr0[..4].copy_from_slice(b"XPR0");
        self.add(
            b"magic_xpr0.xpr",
            Content::Bytes(xpr0),
            Expect::FileError(Code::NotXpr2.as_str()),
            "the model with magic XPR0",
        );
        let mut f = model.to_vec();
        patch_u32(&mut f, container::HEADER_BASE, 0xFFFF_FFFF);
        self.add(
            b"count_ffffffff.xpr",
            Content::Bytes(f),
            Expect::FileError(Code::BadDirectory.as_str()),
            "resource_count = 0xFFFFFFFF",
        );
        let mut f = model.to_vec();
        patch_u32(&mut f, 4, 0xFFFF_FFF0);
        self.add(
            b"header_size_huge.xpr",
            Content::Bytes(f),
            Expect::FileError(Code::Truncated.as_str()),
            "header_size past EOF",
        );
        let mut f = model.to_vec();
        patch_u32(&mut f, 8, 0xFFFF_FFFF);
        self.add(
            b"data_size_huge.xpr",
            Content::Bytes(f),
            Expect::FileError(Code::Truncated.as_str()),
            "data_size past EOF",
        );
    }

    /// Directory entries pointing past EOF.
    fn entries_past_eof(&mut self) {
        let (model, xi) = (self.model, self.xi);
        let mut f = model.to_vec();
        patch_entry(&mut f, xi, 1, 0xFFFF_FF00);
        let expect = self.rejects(vec![(xi as u32, Code::BadRange)]);
        self.add(
            b"desc_offset_past_eof.xpr",
            Content::Bytes(f),
            expect,
            "XBG7 descriptor offset past EOF",
        );
        let mut f = model.to_vec();
        patch_entry(&mut f, xi, 2, 0xFFFF_FFFF);
        let expect = self.rejects(vec![(xi as u32, Code::BadRange)]);
        self.add(
            b"desc_size_huge.xpr",
            Content::Bytes(f),
            expect,
            "XBG7 descriptor size 0xFFFFFFFF",
        );
        let mut f = model.to_vec();
        patch_entry(&mut f, xi, 3, 0xFFFF_FFF0);
        let expect = Expect::SameAs(self.model_rel.clone());
        self.add(
            b"name_offset_past_eof.xpr",
            Content::Bytes(f),
            expect,
            "XBG7 name offset past EOF (empty name)",
        );
    }

    /// Overlapping descriptors: a second entry on the same bytes, a third 4 bytes in.
    fn overlapping_descriptors(&mut self) {
        let xi = self.xi;
        let mut ov = self.m_entries.clone();
        ov.push(self.m_entries[xi].clone());
        ov.push(self.m_entries[xi].clone());
        let n = ov.len();
        let mut f = assemble(&ov, &self.m_data);
        let at = u32::from_be_bytes(f[0x10 + 16 * xi + 4..0x10 + 16 * xi + 8].try_into().expect("4"));
        let size = self.m_entries[xi].desc.len() as u32;
        patch_entry(&mut f, n - 2, 1, at);
        patch_entry(&mut f, n - 2, 2, size);
        patch_entry(&mut f, n - 1, 1, at + 4);
        patch_entry(&mut f, n - 1, 2, size - 4);
        // The entry on the same bytes lists the same descriptor: decoded once, its
        // outcome is the model's (`same_as`); the shifted one finds no block left.
        let expect = self.rejects(vec![((n - 1) as u32, Code::NoValidAnchor)]);
        self.add(
            b"overlapping_descriptors.xpr",
            Content::Bytes(f),
            expect,
            "two more XBG7 entries on the model's descriptor bytes (one the same listing, one shifted by 4)",
        );
    }

    /// Descriptors that lie: declarations that never end, are cut or hold an unknown
    /// type, absurd counts, no marker, an empty descriptor.
    fn lying_descriptors(&mut self) {
        let xi = self.xi;
        let mut never_ends = Vec::new();
        for _ in 0..100 {
            never_ends.extend(words(&POS_FLOAT3));
        }
        self.add_lying(
            b"decl_never_ends.xpr",
            descriptor_with(5, 18, &never_ends),
            vec![(xi as u32, Code::DeclUnterminated)],
            "a marker followed by 100 POSITION elements and no END",
        );
        let mut cut_decl = words(&POS_FLOAT3);
        cut_decl.extend(&words(&NORMAL_F16X4)[..7]);
        self.add_lying(
            b"decl_cut.xpr",
            descriptor_with(5, 18, &cut_decl),
            vec![(xi as u32, Code::DeclUnterminated)],
            "the descriptor ends inside the declaration",
        );
        let mut unknown = words(&POS_FLOAT3);
        unknown.extend(words(&[0x0000_000C, 0x0012_3456, 0x0003_0000]));
        unknown.extend(words(&END));
        self.add_lying(
            b"decl_unknown_type.xpr",
            descriptor_with(5, 18, &unknown),
            vec![(xi as u32, Code::UnknownDeclType)],
            "a declaration element of unknown type",
        );
        let mut good_decl = words(&POS_FLOAT3);
        good_decl.extend(words(&NORMAL_F16X4));
        good_decl.extend(words(&END));
        self.add_lying(
            b"counts_huge.xpr",
            descriptor_with(0xFFFF_FFFF, 0x7FFF_FFFE, &good_decl),
            vec![(xi as u32, Code::NoValidAnchor)],
            "vertex count 0xFFFFFFFF and index count 0x7FFFFFFE",
        );
        self.add_lying(
            b"no_marker.xpr",
            words(&[7; 40]),
            vec![(xi as u32, Code::NoIndexMarker)],
            "a descriptor without an index marker",
        );
        self.add_lying(
            b"empty_descriptor.xpr",
            Vec::new(),
            vec![(xi as u32, Code::NoIndexMarker)],
            "a zero-size descriptor",
        );
    }

    /// One lying-descriptor fixture: the model with `desc`, these rejects.
    fn add_lying(&mut self, name: &[u8], desc: Vec<u8>, rejects: Vec<(u32, Code)>, what: &str) {
        let f = self.with_desc(desc);
        let expect = self.rejects(rejects);
        self.add(name, Content::Bytes(f), expect, what);
    }

    /// Hostile resource names: the stage's XBG7 entries renamed (as many containers as
    /// needed), and the model's one resource.
    fn hostile_resource_names(&mut self) {
        let (s_entries, s_data) = disassemble(&self.src.stage.bytes);
        let slots: Vec<usize> = (0..s_entries.len())
            .filter(|&k| &s_entries[k].tag == container::TAG_XBG7)
            .collect();
        for (part, names) in hostile_names().chunks(slots.len().max(1)).enumerate() {
            let mut e = s_entries.clone();
            for (&k, name) in slots.iter().zip(names) {
                e[k].name = name.clone();
            }
            let expect = Expect::SameAs(self.stage_rel.clone());
            self.add(
                format!("Stage_S9{part}_names.xpr").as_bytes(),
                Content::Bytes(assemble(&e, &s_data)),
                expect,
                "the stage with hostile resource names",
            );
        }
        let mut e = self.m_entries.clone();
        e[self.xi].name = b"../../escape".to_vec();
        let f = assemble(&e, &self.m_data);
        let expect = Expect::SameAs(self.model_rel.clone());
        self.add(
            b"model_dotdot_name.xpr",
            Content::Bytes(f),
            expect,
            "the model's resource named ../../escape",
        );
    }

    /// Hostile container file names (copies of the model).
    fn hostile_container_names(&mut self) {
        let model = self.model;
        if cfg!(unix) {
            for name in hostile_file_names() {
                let expect = Expect::SameAs(self.model_rel.clone());
                self.add(
                    &name,
                    Content::Bytes(model.to_vec()),
                    expect,
                    "the model under a hostile file name",
                );
            }
        } else {
            let expect = Expect::SameAs(self.model_rel.clone());
            self.add(
                b"UPPER_CASE.XPR",
                Content::Bytes(model.to_vec()),
                expect,
                "the model as .XPR",
            );
        }
    }

    /// Symlinks: never followed (one points at /dev/zero, which never ends).
    fn symlinks(&mut self) {
        let target_inside = PathBuf::from(file_name(&self.model_rel));
        for (name, target) in [
            (&b"link_outside.xpr"[..], PathBuf::from("../../../outside/secret.xpr")),
            (b"link_dev_zero.xpr", PathBuf::from("/dev/zero")),
            (b"link_inside.xpr", target_inside),
            (b"link_dir.xpr", PathBuf::from("/")),
        ] {
            self.add(
                name,
                Content::Symlink(target),
                Expect::FileError("symlink"),
                "a symlink (not followed)",
            );
        }
    }
}

/// A fixture as `hostile.json` lists it.
#[derive(Serialize)]
struct Listed<'a> {
    /// File name, invalid UTF-8 escaped as in the manifest.
    name: String,
    what: &'a str,
    expect: &'a Expect,
}

/// Write the sources and every fixture into `disc/hidden/resource3d` (the sources are
/// written too, so a disc with only them is complete) and `disc/hostile.json`.
/// Symlinks are made only on Unix.
pub fn write_hostile(disc: &Path, opts: &SynthOptions) -> Result<Vec<HostileFile>, SynthError> {
    write_fixtures(disc, &sources(opts))
}

/// Write just the two sources (a clean disc to compare a hostile run with).
pub fn write_sources(disc: &Path, src: &Sources) -> Result<(), SynthError> {
    let dir = disc.join("hidden").join("resource3d");
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    for f in [&src.model, &src.stage] {
        let p = disc.join(&f.rel_path);
        std::fs::write(&p, &f.bytes).map_err(io_err(&p))?;
    }
    Ok(())
}

/// [`write_hostile`] from given sources.
pub fn write_fixtures(disc: &Path, src: &Sources) -> Result<Vec<HostileFile>, SynthError> {
    write_sources(disc, src)?;
    let dir = disc.join("hidden").join("resource3d");
    let files = hostile_files(src);
    for h in &files {
        let p = dir.join(os_name(&h.name));
        match &h.content {
            Content::Bytes(b) => std::fs::write(&p, b).map_err(io_err(&p))?,
            Content::Symlink(t) => {
                let _ = std::fs::remove_file(&p);
                symlink(t, &p).map_err(io_err(&p))?;
            }
        }
    }
    let listed: Vec<Listed> = files
        .iter()
        .map(|h| Listed {
            name: xbg7::vocab::name_text(&h.name),
            what: &h.what,
            expect: &h.expect,
        })
        .collect();
    let p = disc.join("hostile.json");
    let json = serde_json::to_vec_pretty(&listed).map_err(|source| SynthError::Json {
        path: p.clone(),
        source,
    })?;
    std::fs::write(&p, json).map_err(io_err(&p))?;
    Ok(files)
}

/// A raw file name as an `OsString` (bytes on Unix; lossy elsewhere).
pub fn os_name(raw: &[u8]) -> std::ffi::OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(raw).to_os_string()
    }
    #[cfg(not(unix))]
    {
        String::from_utf8_lossy(raw).into_owned().into()
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_target: &Path, _link: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use xbg7::{DecodeConfig as Config, Kind, Xpr};

    #[test]
    fn assemble_round_trips_a_clean_file() {
        let src = sources(&SynthOptions::demo(1));
        let (e, d) = disassemble(&src.model.bytes);
        let again = assemble(&e, &d);
        let (e2, d2) = disassemble(&again);
        assert_eq!((e, d), (e2, d2));
        let cfg = Config::default();
        let kind = Kind::from_file_name(src.model.rel_path.as_ref());
        let a = Xpr::parse(&src.model.bytes).unwrap().meshes(kind, &cfg);
        let b = Xpr::parse(&again).unwrap().meshes(kind, &cfg);
        assert_eq!(a, b);
        assert!(a.resources.iter().all(|r| r.result.is_ok()));
    }
}
