//! The synthetic demo disc checked by an independent small XPR2/XBG7 parser written here
//! from FORMAT.md (no crate decoder is used): container frame, directory, descriptors
//! (marker, vertex count at marker−32, declaration, records), TX2D descriptors, and for
//! every truth block the index and vertex bytes against the truth mesh. Also the hard rules
//! the decoder relies on: unique (V, I), frequent same-V pairs, winding, exact duplicates.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use xbg7::mesh::Mesh;
use xbg7_synth::{
    build_file, file_plan, load_truth, write_disc, Category, FileKind, FileSpec, Scale, SynthFile, SynthOptions,
    TruthContainer, TruthResource, TruthTexture,
};

const SEED: u64 = 20260712;

fn demo() -> &'static Vec<(FileSpec, SynthFile)> {
    static DEMO: OnceLock<Vec<(FileSpec, SynthFile)>> = OnceLock::new();
    DEMO.get_or_init(|| xbg7_synth::build_disc(&SynthOptions::demo(SEED)))
}

// ---------------------------------------------------------------- independent parser

fn u16be(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}
fn u32be(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes(b[o..o + 4].try_into().unwrap())
}
fn cstr(b: &[u8], o: usize) -> &[u8] {
    let end = b[o..].iter().position(|&c| c == 0).unwrap();
    &b[o..o + end]
}

struct Xpr {
    header_size: usize,
    data_start: usize,
    entries: Vec<([u8; 4], usize, usize, Vec<u8>)>, // tag, desc file offset, size, name
}

fn parse_xpr(b: &[u8]) -> Xpr {
    assert_eq!(&b[0..4], b"XPR2");
    let header_size = u32be(b, 4) as usize;
    let data_size = u32be(b, 8) as usize;
    assert_eq!(b.len(), 0x0C + header_size + data_size, "file = 12 + header + data");
    let count = u32be(b, 0x0C) as usize;
    assert!(4 + 16 * count <= header_size);
    assert_eq!(u32be(b, 0x10 + 16 * count), 0, "u32 0 after the directory");
    let mut entries = Vec::new();
    for k in 0..count {
        let e = 0x10 + 16 * k;
        let tag: [u8; 4] = b[e..e + 4].try_into().unwrap();
        assert!(tag.iter().all(|c| c.is_ascii_alphanumeric()));
        let off = 0x0C + u32be(b, e + 4) as usize;
        let size = u32be(b, e + 8) as usize;
        let name = cstr(b, 0x0C + u32be(b, e + 12) as usize).to_vec();
        assert!(off + size <= 0x0C + header_size, "descriptor inside the header block");
        entries.push((tag, off, size, name));
    }
    Xpr {
        header_size,
        data_start: 0x0C + header_size,
        entries,
    }
}

/// (stream, offset, type, usage, usage_index) until END.
fn parse_decl(d: &[u8], at: usize) -> Vec<(u16, u16, u32, u8, u8)> {
    let mut out = Vec::new();
    let mut o = at;
    loop {
        if u32be(d, o) == 0x00FF_0000 {
            assert_eq!(u32be(d, o + 4), 0xFFFF_FFFF);
            return out;
        }
        out.push((u16be(d, o), u16be(d, o + 2), u32be(d, o + 4), d[o + 9], d[o + 10]));
        assert_eq!(d[o + 8], 0, "method");
        o += 12;
        assert!(out.len() < 32);
    }
}

fn type_size(code: u32) -> usize {
    match code {
        0x2C83A4 | 0x182886 | 0x2A2187 | 0x2C235F => 4,
        0x2C23A5 | 0x1A215A | 0x1A2360 => 8,
        0x2A23B9 => 12,
        0x1A23A6 => 16,
        other => panic!("unexpected type code {other:#x}"),
    }
}

fn markers(d: &[u8]) -> Vec<usize> {
    (0..d.len().saturating_sub(7))
        .step_by(4)
        .filter(|&o| {
            let (a, n) = (u32be(d, o), u32be(d, o + 4));
            n > 0 && n % 3 == 0 && a == n.wrapping_mul(2) && n < 0x8000_0000 && o + 20 <= d.len() && {
                // followed by a parseable declaration
                let mut e = o + 8;
                let mut ok = false;
                for _ in 0..32 {
                    if e + 12 > d.len() {
                        break;
                    }
                    if u32be(d, e) == 0x00FF_0000 && u32be(d, e + 4) == 0xFFFF_FFFF {
                        ok = true;
                        break;
                    }
                    e += 12;
                }
                ok
            }
        })
        .collect()
}

fn records(d: &[u8]) -> Vec<[u32; 4]> {
    (0..d.len().saturating_sub(15))
        .step_by(4)
        .map(|o| [u32be(d, o), u32be(d, o + 4), u32be(d, o + 8), u32be(d, o + 12)])
        .filter(|r| (3..=65535).contains(&r[0]) && r[1] == 0 && r[2] > 0 && r[2] % 3 == 0 && (1..=64).contains(&r[3]))
        .collect()
}

// ---------------------------------------------------------------- tests

#[test]
fn plan_lists_188_retail_named_files_with_the_stated_categories() {
    let plan = file_plan(&SynthOptions::demo(SEED));
    assert_eq!(plan.len(), 188);
    let models: Vec<&FileSpec> = plan.iter().filter(|f| f.kind == FileKind::Model).collect();
    assert_eq!(models.len(), 166);
    let stages: Vec<String> = plan
        .iter()
        .filter(|f| f.kind == FileKind::Stage)
        .map(|f| f.rel_path.clone())
        .collect();
    let want: Vec<String> = (1..=22)
        .map(|s| format!("hidden/resource3d/Stage_S{s:02}.xpr"))
        .collect();
    assert_eq!(stages, want);
    let count = |c: Category| models.iter().filter(|f| f.category == c).count();
    assert_eq!(count(Category::Documented), 36);
    assert_eq!(count(Category::MultiSubmesh), 14);
    assert_eq!(count(Category::Body), 60);
    assert_eq!(
        count(Category::OpaqueMultistream) + count(Category::OpaqueQuantized) + count(Category::OpaqueNoNormal),
        56
    );
    assert!(plan
        .iter()
        .any(|f| f.rel_path == "hidden/resource3d/rou_f001_wep_00.xpr"));
    assert!(plan.iter().any(|f| f.rel_path == "hidden/resource3d/DeltaSaber_A.xpr"));
    // Same file list and categories at full scale.
    let full = file_plan(&SynthOptions {
        seed: SEED,
        scale: Scale::Full,
        realism: false,
        multistream: false,
    });
    let names = |p: &[FileSpec]| p.iter().map(|f| (f.rel_path.clone(), f.category)).collect::<Vec<_>>();
    assert_eq!(names(&plan), names(&full));
    // Stage resource counts: S07 and S10 fixed.
    assert_eq!(full[166 + 6].resources.len(), 378);
    assert_eq!(full[166 + 9].resources.len(), 9);
    assert_eq!(plan[166 + 6].resources.len(), 40);
    assert_eq!(plan[166 + 9].resources.len(), 9);
    let total: usize = full[166..].iter().map(|f| f.resources.len()).sum();
    assert!((5000..=5700).contains(&total), "{total}");
}

#[test]
fn full_scale_stage_category_proportions() {
    let full = file_plan(&SynthOptions {
        seed: SEED,
        scale: Scale::Full,
        realism: false,
        multistream: false,
    });
    let mut n: HashMap<Category, usize> = HashMap::new();
    let mut total = 0;
    for f in &full[166..] {
        for r in &f.resources {
            *n.entry(r.category).or_default() += 1;
            total += 1;
        }
    }
    let frac = |c: Category| *n.get(&c).unwrap_or(&0) as f64 / total as f64;
    let low = frac(Category::StageLowpoly) + frac(Category::StageSkybox);
    assert!((0.07..=0.12).contains(&low), "lowpoly {low}");
    assert!(n[&Category::StageSkybox] >= 2 && n[&Category::StageSkybox] <= 22);
    assert!((0.005..=0.02).contains(&frac(Category::StageDuplicate)));
    let rej = frac(Category::StageQuantized) + frac(Category::StageNoNormal);
    assert!((0.005..=0.02).contains(&rej), "rejected {rej}");
    assert!(frac(Category::Stage) > 0.85);
    // Several records on ~15 % of regular stage resources; same V (different I) on >= 5 %.
    let mut multi = 0usize;
    let mut regular = 0usize;
    let mut same_v = 0usize;
    let mut originals = 0usize;
    for f in &full[166..] {
        let mut by_v: HashMap<u32, usize> = HashMap::new();
        for r in f.resources.iter().filter(|r| r.duplicate_of.is_none()) {
            *by_v.entry(r.vertex_count()).or_default() += 1;
        }
        for r in f.resources.iter().filter(|r| r.duplicate_of.is_none()) {
            originals += 1;
            same_v += usize::from(by_v[&r.vertex_count()] > 1);
            if r.category == Category::Stage {
                regular += 1;
                multi += usize::from(r.record_count() > 1);
            }
        }
    }
    let multi = multi as f64 / regular as f64;
    let same = same_v as f64 / originals as f64;
    eprintln!("full: {total} stage resources, multi-record {multi:.3}, same-V {same:.3}");
    assert!((0.08..=0.2).contains(&multi), "multi-record {multi}");
    assert!(same >= 0.05, "same-V {same}");
}

#[test]
fn builds_are_deterministic_and_seed_sensitive() {
    let plan = file_plan(&SynthOptions::demo(SEED));
    let again = file_plan(&SynthOptions::demo(SEED));
    assert_eq!(plan, again);
    let other = file_plan(&SynthOptions::demo(SEED + 1));
    for k in [0usize, 40, 60, 120, 166 + 6] {
        let a = build_file(&plan[k]);
        let b = build_file(&plan[k]);
        assert_eq!(a.bytes, b.bytes, "{}", plan[k].rel_path);
        assert_eq!(a.truth, b.truth);
        let c = build_file(&other[k]);
        assert_eq!(c.rel_path, a.rel_path);
        assert_ne!(c.bytes, a.bytes, "{}", plan[k].rel_path);
    }
}

/// Check one container with the independent parser against its truth.
fn check_container(spec: &FileSpec, f: &SynthFile) {
    let b = &f.bytes;
    let x = parse_xpr(b);
    let t = &f.truth;
    assert_eq!(t.size, b.len() as u64);
    let data = &b[x.data_start..];
    check_directory(&x, t);
    let tex_names: HashSet<Vec<u8>> = t.textures.iter().map(|t| t.name.as_bytes().to_vec()).collect();
    for r in &t.resources {
        let (_, off, size, name) = &x.entries[r.index as usize];
        assert_eq!(name, r.name.as_bytes());
        check_resource(&b[*off..off + size], data, &tex_names, r);
    }
    for tx in &t.textures {
        let (_, off, size, name) = &x.entries[tx.index as usize];
        assert_eq!(*size, 52);
        assert_eq!(name, tx.name.as_bytes());
        check_texture(&b[*off..off + 52], data, tx);
    }
    check_no_overlap(spec, t);
    let _ = x.header_size;
}

/// The directory's XBG7 and TX2D entries are the truth's resources and textures.
fn check_directory(x: &Xpr, t: &TruthContainer) {
    let xbg7: Vec<usize> = (0..x.entries.len()).filter(|&i| &x.entries[i].0 == b"XBG7").collect();
    let tx2d: Vec<usize> = (0..x.entries.len()).filter(|&i| &x.entries[i].0 == b"TX2D").collect();
    assert_eq!(
        xbg7.iter().map(|&i| i as u32).collect::<Vec<_>>(),
        t.resources.iter().map(|r| r.index).collect::<Vec<_>>()
    );
    assert_eq!(
        tx2d.iter().map(|&i| i as u32).collect::<Vec<_>>(),
        t.textures.iter().map(|r| r.index).collect::<Vec<_>>()
    );
}

/// One declaration element: (stream, offset, type, usage, usage_index).
type DeclElem = (u16, u16, u32, u8, u8);

/// One XBG7 resource: its descriptor `d`, its records and blocks, and the bytes at the
/// truth offsets of the data section.
fn check_resource(d: &[u8], data: &[u8], tex_names: &HashSet<Vec<u8>>, r: &TruthResource) {
    let (decl, recs) = check_descriptor(d, tex_names, r);
    let mesh = r.mesh.as_ref().unwrap();
    check_records_and_blocks(r, &decl, &recs);
    check_block_bytes(r, &decl, data);
    assert_eq!(r.digest.is_some(), r.expected != "rejected");
    if let Some(dg) = &r.digest {
        assert_eq!(dg, &mesh.digest());
    }
}

/// The descriptor: one marker with V at marker−32, the declaration (stride 0 as the
/// truth's), material and node names, records adding up to I. Returns the declaration
/// and the records.
fn check_descriptor(d: &[u8], tex_names: &HashSet<Vec<u8>>, r: &TruthResource) -> (Vec<DeclElem>, Vec<[u32; 4]>) {
    let m = markers(d);
    assert_eq!(m.len(), 1, "{}: exactly one marker", r.name);
    let m = m[0];
    assert_eq!(u32be(d, m + 4), r.index_count);
    assert_eq!(u32be(d, m - 32), r.vertex_count, "{}: V at marker-32", r.name);
    let between: Vec<u32> = (1..8).map(|k| u32be(d, m - 32 + 4 * k)).collect();
    assert!(between.contains(&(2 * r.index_count + 3)));
    let decl = parse_decl(d, m + 8);
    assert_eq!(stride_of(&decl, 0) as u32, r.stride);
    // Material names in the descriptor are TX2D names.
    let has = |s: &[u8]| {
        let mut z = s.to_vec();
        z.push(0);
        d.windows(z.len()).any(|w| w == &z[..])
    };
    assert!(tex_names.iter().any(|n| has(n)), "{}: a material name", r.name);
    assert!(has(format!("{}_root", r.name).as_bytes()), "{}: node name", r.name);
    let recs = records(d);
    assert!(!recs.is_empty());
    assert_eq!(
        recs.iter().map(|r| r[2]).sum::<u32>(),
        r.index_count,
        "{}: records split I",
        r.name
    );
    (decl, recs)
}

/// Stride of stream `k`: the end of its furthest element (0 without elements).
fn stride_of(decl: &[DeclElem], k: u16) -> usize {
    decl.iter()
        .filter(|e| e.0 == k)
        .map(|e| e.1 as usize + type_size(e.2))
        .max()
        .unwrap_or(0)
}

/// Records against the truth's primitives and blocks; documented blocks at the data
/// start with the documented declaration head, the others not.
fn check_records_and_blocks(r: &TruthResource, decl: &[DeclElem], recs: &[[u32; 4]]) {
    let mesh = r.mesh.as_ref().unwrap();
    assert_eq!(mesh.primitives.len(), recs.len());
    for (p, rec) in mesh.primitives.iter().zip(recs) {
        assert_eq!(p.index_count, rec[2]);
        assert!(rec[0] <= r.vertex_count);
    }
    if r.category == "multi_submesh" {
        assert!(r.blocks.len() >= 2);
        assert_eq!(recs.iter().map(|r| r[0]).sum::<u32>(), r.vertex_count);
        for (blk, rec) in r.blocks.iter().zip(recs) {
            assert_eq!((blk.vertex_count, blk.index_count), (rec[0], rec[2]));
        }
    } else {
        assert_eq!(r.blocks.len(), 1);
        assert_eq!(
            (r.blocks[0].vertex_count, r.blocks[0].index_count),
            (r.vertex_count, r.index_count)
        );
    }
    if r.category == "documented" || r.category == "multi_submesh" {
        assert_eq!(r.blocks[0].index_offset, 0, "documented block at the data start");
        assert_eq!(
            decl[0..2].iter().map(|e| (e.1, e.2, e.3)).collect::<Vec<_>>(),
            vec![(0, 0x2A23B9, 0), (12, 0x1A2360, 3)]
        );
    } else {
        assert!(
            r.blocks.iter().all(|blk| blk.index_offset > 0),
            "{}: not at the data start",
            r.name
        );
    }
}

/// Bytes at the truth offsets are the truth mesh: stream 0 where the layout puts it,
/// the indices, and (FLOAT3 positions on stream 0) every position bit for bit.
fn check_block_bytes(r: &TruthResource, decl: &[DeclElem], data: &[u8]) {
    let mesh = r.mesh.as_ref().unwrap();
    let stride0 = stride_of(decl, 0);
    let pos = decl.iter().find(|e| e.3 == 0 && e.4 == 0).expect("POSITION");
    let mut icur = 0usize;
    let mut vbase = 0u32;
    for blk in &r.blocks {
        let io = blk.index_offset as usize;
        // Stream 0 follows the indices, or (positions last) the other streams do.
        let before: usize = match r.family.as_deref() {
            Some("streams_position_last") => {
                let mut streams: Vec<u16> = decl.iter().map(|e| e.0).filter(|&k| k != 0).collect();
                streams.sort_unstable();
                streams.dedup();
                streams
                    .iter()
                    .map(|&k| stride_of(decl, k) * blk.vertex_count as usize)
                    .sum()
            }
            _ => 0,
        };
        // (All apart: stream 0 anywhere but inside the index buffer.)
        if r.family.as_deref() == Some("streams_all_apart") {
            let vo = blk.vertex_offset as usize;
            assert!(vo + 12 <= io || vo >= io + 2 * blk.index_count as usize, "{}", r.name);
        } else {
            assert_eq!(blk.vertex_offset as usize, io + 2 * blk.index_count as usize + before);
        }
        for k in 0..blk.index_count as usize {
            let file = u16be(data, io + 2 * k) as u32;
            assert_eq!(file + vbase, mesh.indices[icur + k], "{}: index {k}", r.name);
        }
        if pos.2 == 0x2A23B9 && pos.0 == 0 {
            for v in 0..blk.vertex_count as usize {
                let o = blk.vertex_offset as usize + v * stride0 + pos.1 as usize;
                let p: [u32; 3] = [u32be(data, o), u32be(data, o + 4), u32be(data, o + 8)];
                let want = mesh.positions[vbase as usize + v].map(f32::to_bits);
                assert_eq!(p, want, "{}: position {v}", r.name);
            }
        } else {
            assert_eq!(r.expected, "rejected");
        }
        icur += blk.index_count as usize;
        vbase += blk.vertex_count;
    }
    assert_eq!(icur, mesh.indices.len());
    assert_eq!(vbase as usize, mesh.positions.len());
}

/// One TX2D descriptor `d` (FORMAT.md §8) against the truth, and its payload in the
/// data section: size from the padded pitch and tiling, not zeros.
fn check_texture(d: &[u8], data: &[u8], tx: &TruthTexture) {
    assert_eq!(u32be(d, 0) & 0xF, 3);
    let (f0, f1, f2) = (u32be(d, 0x1C), u32be(d, 0x20), u32be(d, 0x24));
    assert_eq!(f0 & 3, 2);
    let fmt = f1 & 0x3F;
    // (format code, texels per block side, bytes per block): FORMAT.md §8 / XDK.
    let (code, bd, bpb) = match tx.format.as_str() {
        "DXT1" => (18, 4, 8),
        "DXT2_3" => (19, 4, 16),
        "DXT4_5" => (20, 4, 16),
        "DXN" => (49, 4, 16),
        "DXT5A" => (59, 4, 8),
        "CTX1" => (60, 4, 8),
        "8_8_8_8" => (6, 1, 4),
        "5_6_5" => (4, 1, 2),
        other => panic!("{}: unexpected format {other}", tx.name),
    };
    assert_eq!(fmt, code, "{}", tx.name);
    // Endian 8in32 for 8_8_8_8 (file bytes A, R, G, B), 8in16 for the others.
    assert_eq!((f1 >> 6) & 3, if fmt == 6 { 2 } else { 1 });
    assert_eq!(f0 >> 31 == 1, tx.tiled, "{}: tiled bit", tx.name);
    assert_eq!((f1 & !0xFFF) as u64, tx.data_offset);
    assert_eq!(tx.data_offset % 4096, 0);
    assert_eq!(((f2 & 0x1FFF) + 1, ((f2 >> 13) & 0x1FFF) + 1), (tx.width, tx.height));
    // Row pitch padded to 32 blocks, tiled and linear (the header's pitch is the
    // padded one). Tiled: height padded to 32 blocks too, and with 2-byte texels an
    // odd number of tiles spans 1 KiB more (tiles pair up in the tiled order: the
    // last one reaches 0xC00 bytes past its start); linear: pitch × rows.
    let (wb, hb) = (tx.width.div_ceil(bd) as u64, tx.height.div_ceil(bd) as u64);
    let pitch_blocks = ((f0 >> 22) & 0x1FF) as u64 * 32 / bd as u64;
    assert_eq!(pitch_blocks, wb.div_ceil(32) * 32, "{}: pitch", tx.name);
    let size = if tx.tiled {
        let tiles = (pitch_blocks / 32) * hb.div_ceil(32);
        pitch_blocks * hb.div_ceil(32) * 32 * bpb + if bpb == 2 && tiles % 2 == 1 { 1024 } else { 0 }
    } else {
        pitch_blocks * hb * bpb
    };
    // The swizzle (dword3 bits 1–12) the XDK writes for the format.
    let swz = (u32be(d, 0x28) >> 1) & 0xFFF;
    let allowed: &[u32] = match fmt {
        6 => &[0x60A, 0x688, 0xA0A],
        4 => &[0xA0A],
        49 | 60 => &[0xB08],
        59 => &[0xA00],
        _ => &[0x688],
    };
    assert!(allowed.contains(&swz), "{}: swizzle {swz:#x}", tx.name);
    assert_eq!(size, tx.data_size);
    assert!(tx.data_offset + size <= data.len() as u64);
    let payload = &data[tx.data_offset as usize..(tx.data_offset + size) as usize];
    assert!(
        payload.iter().filter(|&&c| c != 0).count() as u64 >= wb * hb / 2,
        "{} ({} {}×{}, tiled {}): not zeros",
        tx.name,
        tx.format,
        tx.width,
        tx.height,
        tx.tiled
    );
    assert!(tx.digest.as_ref().is_some_and(|d| d.len() == 64));
}

/// No two (blocks of) resources overlap unless one is a shared duplicate.
fn check_no_overlap(spec: &FileSpec, t: &TruthContainer) {
    let mut spans: Vec<(u64, u64, &TruthResource)> = t
        .resources
        .iter()
        .filter(|r| r.duplicate_of.is_none())
        .flat_map(|r| {
            let stride = r.stride as u64;
            // The index buffer and the stream-0 vertex buffer (apart in some
            // multi-stream layouts).
            r.blocks.iter().flat_map(move |blk| {
                [
                    (blk.index_offset, blk.index_offset + 2 * blk.index_count as u64, r),
                    (
                        blk.vertex_offset,
                        blk.vertex_offset + blk.vertex_count as u64 * stride,
                        r,
                    ),
                ]
            })
        })
        .collect();
    spans.extend(
        t.textures
            .iter()
            .map(|tx| (tx.data_offset, tx.data_offset + tx.data_size, &t.resources[0])),
    );
    spans.sort_by_key(|s| s.0);
    for w in spans.windows(2) {
        assert!(w[0].1 <= w[1].0, "{}: overlapping data at {:#x}", spec.rel_path, w[1].0);
    }
}

#[test]
fn independent_parser_finds_the_documented_structure_and_truth_bytes() {
    for (spec, f) in demo() {
        check_container(spec, f);
    }
}

#[test]
fn demo_disc_is_small_and_has_every_category() {
    let total: u64 = demo().iter().map(|(_, f)| f.bytes.len() as u64).sum();
    assert!(total <= 60_000_000, "{total}");
    assert!(total >= 10_000_000, "{total}");
    let cats: HashSet<String> = demo()
        .iter()
        .flat_map(|(_, f)| f.truth.resources.iter().map(|r| r.category.clone()))
        .collect();
    for c in [
        "documented",
        "multi_submesh",
        "body",
        "opaque_multistream",
        "opaque_quantized",
        "opaque_no_normal",
        "stage",
        "stage_lowpoly",
        "stage_skybox",
        "stage_duplicate",
        "stage_quantized",
        "stage_no_normal",
    ] {
        assert!(cats.contains(c), "missing {c}");
    }
}

fn len3(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

#[test]
fn hard_rules_hold_on_every_resource() {
    let mut agree = 0usize;
    let mut tris = 0usize;
    let mut degenerate = 0usize;
    let mut stage_res = 0usize;
    let mut same_v = 0usize;
    for (_, f) in demo() {
        let t = &f.truth;
        // Unique (V, I) except duplicates.
        let mut seen: HashMap<(u32, u32), &str> = HashMap::new();
        for r in t.resources.iter().filter(|r| r.duplicate_of.is_none()) {
            if let Some(prev) = seen.insert((r.vertex_count, r.index_count), &r.name) {
                panic!("{}: {} and {} share (V, I)", t.path, prev, r.name);
            }
        }
        if t.kind == "stage" {
            let mut by_v: HashMap<u32, usize> = HashMap::new();
            for r in t.resources.iter().filter(|r| r.duplicate_of.is_none()) {
                *by_v.entry(r.vertex_count).or_default() += 1;
            }
            for r in t.resources.iter().filter(|r| r.duplicate_of.is_none()) {
                stage_res += 1;
                if by_v[&r.vertex_count] > 1 {
                    same_v += 1;
                }
            }
        }
        for r in &t.resources {
            let m: &Mesh = r.mesh.as_ref().unwrap();
            let v = m.positions.len();
            assert_eq!(v as u32, r.vertex_count);
            assert!((4..=65535).contains(&v));
            let mut used = vec![false; v];
            for &i in &m.indices {
                used[i as usize] = true;
            }
            assert!(used.iter().all(|&u| u), "{}: every vertex referenced", r.name);
            let first = &m.indices[0..3];
            assert!(
                first[0] != first[1] && first[1] != first[2] && first[0] != first[2],
                "{}: first triangle",
                r.name
            );
            let (lo, hi) = m.bbox().unwrap();
            let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0f32, f32::max);
            if r.skybox {
                assert_eq!(size, 300_000.0);
            } else if r.category != "opaque_quantized" && r.category != "stage_quantized" {
                assert!((0.5..=120.0).contains(&size), "{}: size {size}", r.name);
            }
            if let Some(ns) = &m.normals {
                for n in ns {
                    assert!((len3(*n) - 1.0).abs() < 0.01, "{}: unit normal", r.name);
                }
                for tr in m.indices.chunks_exact(3) {
                    let p = |k: u32| m.positions[k as usize];
                    let (a, b, c) = (p(tr[0]), p(tr[1]), p(tr[2]));
                    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                    let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
                    let cr = [
                        u[1] * w[2] - u[2] * w[1],
                        u[2] * w[0] - u[0] * w[2],
                        u[0] * w[1] - u[1] * w[0],
                    ];
                    let s: [f32; 3] =
                        std::array::from_fn(|k| ns[tr[0] as usize][k] + ns[tr[1] as usize][k] + ns[tr[2] as usize][k]);
                    tris += 1;
                    if len3(cr) == 0.0 || tr[0] == tr[1] || tr[1] == tr[2] || tr[0] == tr[2] {
                        degenerate += 1;
                    }
                    if cr[0] * s[0] + cr[1] * s[1] + cr[2] * s[2] > 0.0 {
                        agree += 1;
                    }
                }
            }
        }
    }
    let winding = agree as f64 / tris as f64;
    let same = same_v as f64 / stage_res as f64;
    eprintln!("winding agreement {winding:.5} over {tris} triangles; degenerate {degenerate}; same-V stage resources {same:.3}");
    assert!(winding >= 0.99);
    assert!((degenerate as f64) < 0.01 * tris as f64);
    assert!(same >= 0.05, "same-V fraction {same}");
}

#[test]
fn duplicates_are_exact_copies_and_stages_vary_layout() {
    let mut dups = 0;
    let mut shared = 0;
    let mut zero_before = 0;
    let mut nonzero_before = 0;
    let mut unordered = 0;
    for (_, f) in demo().iter().filter(|(s, _)| s.kind == FileKind::Stage) {
        let x = parse_xpr(&f.bytes);
        let data = &f.bytes[x.data_start..];
        let by_index: HashMap<u32, &TruthResource> = f.truth.resources.iter().map(|r| (r.index, r)).collect();
        for r in &f.truth.resources {
            if let Some(o) = r.duplicate_of {
                dups += 1;
                let orig = by_index[&o];
                assert_eq!(
                    (r.vertex_count, r.index_count, r.stride),
                    (orig.vertex_count, orig.index_count, orig.stride)
                );
                assert_eq!(r.digest, orig.digest);
                let span = |x: &TruthResource| {
                    let blk = &x.blocks[0];
                    &data[blk.index_offset as usize
                        ..(blk.vertex_offset + blk.vertex_count as u64 * x.stride as u64) as usize]
                };
                assert_eq!(span(r), span(orig));
                if r.blocks == orig.blocks {
                    shared += 1;
                }
            }
            let io = r.blocks[0].index_offset as usize;
            if io >= 12 {
                if data[io - 12..io].iter().all(|&c| c == 0) {
                    zero_before += 1;
                } else {
                    nonzero_before += 1;
                }
            }
        }
        let offs: Vec<u64> = f
            .truth
            .resources
            .iter()
            .filter(|r| r.duplicate_of.is_none())
            .map(|r| r.blocks[0].index_offset)
            .collect();
        if offs.windows(2).any(|w| w[0] > w[1]) {
            unordered += 1;
        }
    }
    assert!(dups >= 1, "duplicates exist");
    assert!(shared >= 1 || dups < 3);
    assert!(
        zero_before > 10 && nonzero_before > 10,
        "{zero_before} {nonzero_before}"
    );
    assert!(unordered >= 15, "blocks not in directory order: {unordered}");
}

#[test]
fn write_disc_writes_files_and_round_trips_truth() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SynthOptions::demo(SEED);
    let t0 = std::time::Instant::now();
    let truth = write_disc(dir.path(), &opts).unwrap();
    eprintln!("write_disc demo: {:?}", t0.elapsed());
    assert_eq!(truth.schema, "xbg7-export.truth/1");
    assert_eq!(truth.scale, "demo");
    assert_eq!(truth.seed, SEED);
    assert_eq!(truth.containers.len(), 188);
    let loaded = load_truth(&dir.path().join("truth.json")).unwrap();
    assert_eq!(loaded, truth);
    for ((_, f), c) in demo().iter().zip(&truth.containers) {
        assert_eq!(&f.truth.without_meshes(), c);
        let on_disk = std::fs::read(dir.path().join(&c.path)).unwrap();
        assert_eq!(on_disk.len() as u64, c.size);
        assert_eq!(on_disk, f.bytes);
    }
    // A wrong schema is a typed error.
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        serde_json::to_vec(&serde_json::json!({"schema": "x", "seed": 1, "scale": "demo", "containers": []})).unwrap(),
    )
    .unwrap();
    assert!(matches!(load_truth(&bad), Err(xbg7_synth::SynthError::Schema { .. })));
    assert!(matches!(
        load_truth(&dir.path().join("missing.json")),
        Err(xbg7_synth::SynthError::Io { .. })
    ));
}
