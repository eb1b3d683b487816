//! Hostile sizes that are legal but adversarial for the placement engine: a model whose
//! descriptor lists thousands of sub-mesh records over thousands of small blocks, and a
//! stage with many identical blocks claimed by many identical resources. Both must
//! finish fast with bounded memory (each distinct unit's candidates are computed once
//! and shared, not recomputed per record or cloned per resource; a unit with more than
//! `MAX_CANDIDATES` valid blocks is ambiguous). Before the fix, 6000 records took 42 s
//! (quadratic: every record searched every block again).

use crate::pyramid;

use pyramid::{pyramid, DECL_WORDS};
use std::time::{Duration, Instant};

use xbg7::reason::Code;
use xbg7::MAX_CANDIDATES;
use xbg7_export::config::Config;
use xbg7_export::export::decode_container;
use xbg7_export::manifest::Kind;
use xbg7_synth::hostile::{assemble, RawEntry};

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// `POSITION@0 FLOAT3, NORMAL@12 FLOAT16_4` (stride 20), END.
fn decl() -> Vec<u8> {
    words(&DECL_WORDS)
}

/// Filler that is neither a unit normal nor a small index.
fn junk(n: usize) -> Vec<u8> {
    (0..n).map(|k| (0x9D ^ (k * 37) as u8) | 0x80).collect()
}

/// Descriptor: vertex count, marker (2i, i), declaration, then `records` records.
fn descriptor(v: u32, i: u32, records: &[(u32, u32)]) -> Vec<u8> {
    descriptor_with(&decl(), v, i, records)
}

fn descriptor_with(decl: &[u8], v: u32, i: u32, records: &[(u32, u32)]) -> Vec<u8> {
    let mut d = words(&[v, 0, 0, 0, 0, 0, 0, 0, 2 * i, i]);
    d.extend(decl);
    for &(rv, ri) in records {
        d.extend(words(&[rv, 0, ri, 1]));
    }
    d
}

#[test]
fn thousands_of_records_over_thousands_of_blocks_stay_linear() {
    let k = 6000;
    let mut data = Vec::new();
    for b in 0..k {
        data.extend(pyramid(1.0 + b as f32 / 64.0));
        data.extend(junk(40));
    }
    let records = vec![(5, 18); k];
    // The marker's totals are what the records add up to (FORMAT.md §3).
    let file = assemble(
        &[RawEntry {
            tag: *b"XBG7",
            desc: descriptor(5 * k as u32, 18 * k as u32, &records),
            name: b"many".to_vec(),
        }],
        &data,
    );
    let t = Instant::now();
    let d = decode_container(&file, Kind::Model, &Config::default()).unwrap();
    let elapsed = t.elapsed();
    let r = d.resources[0].result.as_ref().unwrap();
    assert_eq!(r.mesh.primitives.len(), k);
    assert_eq!(r.placements.len(), k);
    assert_eq!(r.mesh.vertex_count(), 5 * k);
    assert_eq!(r.placements[k - 1].index_offset, (k - 1) * (pyramid(1.0).len() + 40));
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

/// A stage of `k` identical resources over `k` identical blocks.
fn identical_stage(k: usize) -> Vec<u8> {
    let mut data = junk(16);
    for _ in 0..k {
        data.extend(pyramid(2.0));
        data.extend(junk(40));
    }
    let entries: Vec<RawEntry> = (0..k)
        .map(|n| RawEntry {
            tag: *b"XBG7",
            desc: descriptor(5, 18, &[]),
            name: format!("copy{n}").into_bytes(),
        })
        .collect();
    assemble(&entries, &data)
}

#[test]
fn many_identical_resources_over_many_identical_blocks_share_them_out() {
    let k = 400;
    let t = Instant::now();
    let d = decode_container(&identical_stage(k), Kind::Stage, &Config::default()).unwrap();
    let elapsed = t.elapsed();
    assert_eq!(d.resources.len(), k);
    let mut offsets: Vec<usize> = d
        .resources
        .iter()
        .map(|r| r.result.as_ref().unwrap().placements[0].index_offset)
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    assert_eq!(offsets.len(), k, "each copy takes its own block");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

#[test]
fn more_candidates_than_the_cap_are_given_up_not_kept() {
    // Regression: every unit held (a clone of) every candidate mesh: k units × k blocks.
    let k = MAX_CANDIDATES + 88;
    let t = Instant::now();
    let d = decode_container(&identical_stage(k), Kind::Stage, &Config::default()).unwrap();
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert_eq!(d.resources.len(), k);
    for r in &d.resources {
        let e = r.result.as_ref().unwrap_err();
        assert_eq!(e.code, Code::AnchorOutOfBudget);
        assert_eq!(e.detail, format!("gave up: more than {MAX_CANDIDATES} blocks validate"));
    }
}

#[test]
fn a_huge_descriptor_against_a_huge_directory_names_materials_fast() {
    // Regression: material naming compared every descriptor string with every TX2D name
    // (strings × textures). 100k strings × 20k texture entries.
    let mut desc = descriptor(5, 18, &[]);
    for n in 0..100_000u32 {
        desc.extend(format!("tex_{n:05}_cox\0").into_bytes());
    }
    desc.extend(b"tex_00007_col\0");
    let mut entries = vec![RawEntry {
        tag: *b"XBG7",
        desc,
        name: b"model".to_vec(),
    }];
    for n in 0..20_000 {
        entries.push(RawEntry {
            tag: *b"TX2D",
            desc: Vec::new(),
            name: format!("tex_{n:05}_col").into_bytes(),
        });
    }
    let mut data = pyramid(1.0);
    data.extend(junk(40));
    let file = assemble(&entries, &data);
    let t = Instant::now();
    let d = decode_container(&file, Kind::Model, &Config::default()).unwrap();
    // Before the fix: 6.7 s here (test profile), quadratic in the file size.
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let listed = xbg7_export::manifest::directory(xbg7::Xpr::parse(&file).unwrap().container()).0;
    assert_eq!(listed.len(), 20_000);
    let mesh = &d.resources[0].result.as_ref().unwrap().mesh;
    assert_eq!(mesh.primitives[0].material.as_deref(), Some("tex_00007_col"));
}

#[test]
fn thousands_of_resources_without_normals_over_index_like_data_stay_bounded() {
    // 4 MiB of u16 values 0..97 ascending (mod 97): for every vertex count ≥ 97 the whole
    // data section is one run of valid indices whose windows all start with a real
    // triangle — the shape that would make the no-normal search quadratic.
    let data: Vec<u8> = (0..(2u32 << 20))
        .flat_map(|k| ((k % 97) as u16).to_be_bytes())
        .collect();
    // `POSITION@0 FLOAT3, TEXCOORD@12 FLOAT16_2` (stride 16): no NORMAL.
    let no_normal = words(&[
        0,
        0x002A_23B9,
        0,
        0x0000_000C,
        0x002C_235F,
        0x0005_0000,
        0x00FF_0000,
        0xFFFF_FFFF,
        0,
    ]);
    let k = 3000u32;
    let entries: Vec<RawEntry> = (0..k)
        .map(|n| RawEntry {
            tag: *b"XBG7",
            desc: descriptor_with(&no_normal, 100 + n, 3 * (100 + n), &[]),
            name: format!("fx{n}").into_bytes(),
        })
        .collect();
    let file = assemble(&entries, &data);
    let t = Instant::now();
    let d = decode_container(&file, Kind::Stage, &Config::default()).unwrap();
    let elapsed = t.elapsed();
    assert_eq!(d.resources.len(), k as usize);
    let codes: Vec<Code> = d
        .resources
        .iter()
        .map(|r| r.result.as_ref().map(|_| ()).unwrap_err().code)
        .collect();
    assert!(codes.iter().all(|&c| c == Code::NoAnchorElement), "{codes:?}");
    let budget = d
        .resources
        .iter()
        .filter(|r| r.result.as_ref().unwrap_err().detail.contains("budget"))
        .count();
    assert!(budget > 0, "the work budget never ran out");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}
