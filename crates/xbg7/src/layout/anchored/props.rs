//! Property tests of the ownership criterion over random small data sections: random
//! meshes whose counts lie close together (a vertex or a triangle apart, or the same
//! vertex count with a few more triangles), blocks with no header, a zero header or a
//! header that reads as two triangles, zero padding and junk between them in random
//! order, resources whose own block is absent or damaged (a coordinate out of range: the
//! gates refuse it), byte-identical duplicates (two resources, two copies), and owners
//! that cannot be decoded (a quantized declaration of the right stride that does not
//! describe their bytes). Whatever the layout, nothing decoded may differ from its truth
//! (its block's bytes); where every resource is decodable, undamaged and has a block of
//! its own with no header that reads as triangles, every one is decoded. Not covered: a
//! damaged block in a container with a header that reads as triangles (docs/
//! architecture.md, rule 5, "what stays open").

use super::pyramid::{cone, indices, DECL_WORDS};
use super::{anchor, Anchored, Scanner, Unit};
use crate::decl::parse_declaration;
use crate::decl::Declaration;
use crate::gates::GateConfig;
use crate::reason::Code;
use crate::vertex::AttributeMap;
use proptest::prelude::*;

/// The stride of both declarations of [`decls`] (the bytes of one vertex).
const STRIDE: usize = 20;

/// `POSITION@0 FLOAT3, NORMAL@12 FLOAT16_4` (stride 20), and an undecodable declaration
/// of the same stride that does not describe those bytes: `POSITION@0 SHORT4N` (scale
/// unknown), `NORMAL@8 FLOAT16_4`, `TEXCOORD@16 FLOAT16_2` (its normals read the wrong
/// bytes, so its own reading cannot find its block).
fn decls() -> (Declaration, Declaration) {
    let parse = |words: &[u32]| {
        let b: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        parse_declaration(&b).unwrap().0
    };
    let quantized = [
        0,
        0x001A_215A,
        0,
        8,
        0x001A_2360,
        0x0003_0000,
        16,
        0x002C_235F,
        0x0005_0000,
        0x00FF_0000,
        0xFFFF_FFFF,
        0,
    ];
    (parse(&DECL_WORDS), parse(&quantized))
}

/// Junk that is no index list and no unit normal.
fn junk(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|k| (0x9D ^ seed ^ (k * 37) as u8) | 0x80).collect()
}

#[derive(Clone, Debug)]
struct Res {
    n: u16,
    extra: usize,
    scale: f32,
    /// 0: no header, 1: twelve zero bytes, 2: twelve bytes of small values that read as
    /// two triangles (1, 2, 3, 0, 2, 1): FORMAT.md leaves what precedes a block open.
    header: u8,
    has_block: bool,
    decodable: bool,
    /// The block is damaged: one coordinate far out of range (the gates must refuse it).
    damaged: bool,
    /// A byte-identical duplicate (same counts, same bytes) follows somewhere.
    dup: bool,
    /// The first this many normals are zero (at most fewer than half: FORMAT.md §6 does
    /// not promise unit normals, and the mean-|normal| gate still passes).
    lead_zero: usize,
    /// One more vertex after the cone's, referenced by no index, whose position is
    /// infinite (its normal unit): FORMAT.md promises nothing about such a vertex. (Only
    /// for cones of 9 vertices or more: the block still references the gates' 90 %.)
    inf_tail: bool,
    /// Every normal 0.93 or 1.07 long, none unit (FORMAT.md promises only the gates'
    /// mean): found by its structure alone.
    off_unit: bool,
    gap: usize,
    padding: usize,
}

fn res() -> impl Strategy<Value = Res> {
    (
        (4u16..11, 0usize..3, 0.5f32..4.0),
        0u8..3,
        (
            prop::bool::weighted(0.85),
            prop::bool::weighted(0.85),
            prop::bool::weighted(0.1),
            prop::bool::weighted(0.1),
        ),
        (0usize..24, 0usize..8, prop_oneof![3 => Just(0usize), 1 => 0usize..6]),
        (prop::bool::weighted(0.15), prop::bool::weighted(0.15)),
    )
        .prop_map(
            |(
                (n, extra, scale),
                header,
                (has_block, decodable, damaged, dup),
                (gap, padding, lead_zero),
                (inf_tail, off_unit),
            )| {
                Res {
                    n,
                    extra,
                    scale,
                    header,
                    has_block,
                    decodable,
                    damaged,
                    dup,
                    lead_zero,
                    inf_tail,
                    off_unit,
                    gap: 2 * gap,
                    padding: 2 * padding,
                }
            },
        )
}

/// One generated unit: its counts, whether its declaration decodes, whether its block is
/// damaged, and its block offsets (none when it has no block).
#[derive(Debug)]
struct Built {
    vertex_count: u32,
    index_count: u32,
    decodable: bool,
    damaged: bool,
    at: Vec<usize>,
}

/// Lays the blocks out in `order`; returns the data and the units.
fn build(rs: &[Res], order: &[usize]) -> (Vec<u8>, Vec<Built>) {
    // One unit per resource (two for a duplicate); no two different units share both
    // counts (FORMAT.md §6), so a resource whose counts are taken is left out.
    let mut taken = std::collections::BTreeSet::new();
    let mut units: Vec<Built> = Vec::new();
    // (unit, bytes, header length, resource)
    let mut blocks: Vec<(usize, Vec<u8>, usize, usize)> = Vec::new();
    for (r, x) in rs.iter().enumerate() {
        let (idx, mut vtx) = cone(x.n, x.extra, x.scale);
        // (Only where the block still references the gates' share of its vertices.)
        let inf_tail = x.inf_tail && x.n >= 9;
        if inf_tail {
            vtx.extend(f32::INFINITY.to_be_bytes());
            vtx.extend([0u8; 8]);
            for c in [1.0f32, 0.0, 0.0, 0.0] {
                vtx.extend(half::f16::from_f32(c).to_bits().to_be_bytes());
            }
        }
        let counts = ((x.n + u16::from(inf_tail)) as u32, idx.len() as u32);
        if !taken.insert(counts) {
            continue;
        }
        if x.damaged {
            vtx[20..24].copy_from_slice(&3.0e9f32.to_be_bytes());
        }
        let vertices = vtx.len() / STRIDE;
        if x.off_unit {
            for (k, v) in vtx.chunks_exact_mut(STRIDE).enumerate() {
                let f = if k % 2 == 0 { 0.93f32 } else { 1.07 };
                for c in v[12..18].chunks_exact_mut(2) {
                    let h = half::f16::from_bits(u16::from_be_bytes([c[0], c[1]]));
                    c.copy_from_slice(&half::f16::from_f32(h.to_f32() * f).to_bits().to_be_bytes());
                }
            }
        }
        for k in 0..x.lead_zero.min(vertices.saturating_sub(1) / 2) {
            vtx[k * STRIDE + 12..k * STRIDE + 20].fill(0);
        }
        let header: Vec<u8> = match x.header {
            1 => vec![0; 12],
            2 => indices(&[1, 2, 3, 0, 2, 1]),
            _ => Vec::new(),
        };
        let mut bytes = header.clone();
        bytes.extend(indices(&idx));
        bytes.extend(vtx);
        for _ in 0..1 + usize::from(x.dup) {
            if x.has_block {
                blocks.push((units.len(), bytes.clone(), header.len(), r));
            }
            units.push(Built {
                vertex_count: counts.0,
                index_count: counts.1,
                decodable: x.decodable,
                damaged: x.damaged,
                at: Vec::new(),
            });
        }
    }
    let mut data = vec![0u8; 4];
    let mut at: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
    for k in order.iter().copied().filter(|&k| k < blocks.len()) {
        let (u, bytes, h, r) = &blocks[k];
        data.extend(junk(rs[*r].gap, k as u8));
        data.extend(vec![0; rs[*r].padding]);
        at[*u].push(data.len() + h);
        data.extend(bytes);
    }
    data.extend(junk(40, 7));
    // A duplicate's truth is either copy (the same bytes).
    for (u, b) in units.iter_mut().enumerate() {
        b.at = at[u].clone();
    }
    for u in 1..units.len() {
        let (a, b) = (&units[u - 1], &units[u]);
        if (a.vertex_count, a.index_count) == (b.vertex_count, b.index_count) {
            let both: Vec<usize> = a.at.iter().chain(&b.at).copied().collect();
            units[u - 1].at = both.clone();
            units[u].at = both;
        }
    }
    (data, units)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256)
    ))]

    #[test]
    fn nothing_decoded_differs_from_its_truth(
        rs in proptest::collection::vec(res(), 1..7),
        order in Just((0..16).collect::<Vec<usize>>()).prop_shuffle(),
    ) {
        // Not covered: a damaged block, or one whose first (or every) normals are not
        // unit, in a container where a block header reads as triangles (docs/architecture.md,
        // rule 5, "what stays open").
        let rs: Vec<Res> = if rs.iter().any(|x| x.header == 2) {
            rs.into_iter().map(|x| Res { damaged: false, lead_zero: 0, off_unit: false, ..x }).collect()
        } else {
            rs
        };
        let (data, built) = build(&rs, &order);
        let r = anchored(&data, &built);
        for (u, (result, b)) in r.results.iter().zip(&built).enumerate() {
            // (An undecodable unit's result is its declaration's reject, whatever it holds.)
            if let (Ok(x), true) = (result, b.decodable) {
                // Its block, or bytes identical to it (a header that reads as the first
                // triangle of a list can make a neighbour's block a byte-identical copy).
                let len = 2 * b.index_count as usize + STRIDE * b.vertex_count as usize;
                let bytes = |at: usize| data.get(at..at + len);
                let at = x.placement.index_offset;
                prop_assert!(
                    !b.damaged && b.at.iter().any(|&t| bytes(t) == bytes(at)),
                    "unit {u} ({}/{}{}) decoded at {:#x}, its block(s) at {:?}",
                    b.vertex_count, b.index_count, if b.damaged { ", damaged" } else { "" },
                    x.placement.index_offset, b.at
                );
            }
        }
        // Every resource decodable, undamaged, with a block of its own, no header that
        // reads as triangles and unit normals: each is decoded. (Leading normals that are
        // not unit are in the first assertion only: a block whose run of unit normals
        // goes on past its end, into bytes that read as unit normals at its stride, is
        // not found — docs/architecture.md, rule 4.)
        let clean = rs
            .iter()
            .all(|x| x.has_block && x.decodable && !x.damaged && x.header < 2 && x.lead_zero == 0 && !x.inf_tail);
        if clean {
            for (u, result) in r.results.iter().enumerate() {
                prop_assert!(
                    result.is_ok(),
                    "unit {u} ({}/{}) not decoded: {:?}",
                    built[u].vertex_count, built[u].index_count, result.as_ref().err()
                );
            }
        }
    }
}

/// Anchors the generated units in `data` (decodable ones by the float declaration, the
/// others by the quantized one).
fn anchored(data: &[u8], built: &[Built]) -> Anchored {
    let (d, quantized) = decls();
    let (map, q_map) = (AttributeMap::of(&d), AttributeMap::of(&quantized));
    let units: Vec<Unit> = built
        .iter()
        .map(|b| Unit {
            decl: if b.decodable { &d } else { &quantized },
            map: if b.decodable { &map } else { &q_map },
            vertex_count: b.vertex_count,
            index_count: b.index_count,
            decodable: b.decodable,
        })
        .collect();
    anchor(&mut Scanner::new(data), &units, &[], &GateConfig::default())
}

/// Places the units of `rs` (blocks in resource order, no gaps) and returns each result's
/// index offset or reject code.
fn placed(rs: &[Res]) -> Vec<Result<usize, Code>> {
    let (data, built) = build(rs, &(0..16).collect::<Vec<usize>>());
    anchored(&data, &built)
        .results
        .into_iter()
        .map(|r| r.map(|x| x.placement.index_offset).map_err(|e| e.code))
        .collect()
}

fn one(n: u16, extra: usize, has_block: bool, decodable: bool, damaged: bool, dup: bool) -> Res {
    Res {
        n,
        extra,
        scale: 0.5,
        header: 0,
        has_block,
        decodable,
        damaged,
        dup,
        lead_zero: 0,
        inf_tail: false,
        off_unit: false,
        gap: 0,
        padding: 0,
    }
}

#[test]
fn a_damaged_block_is_not_traded_for_an_undecodable_neighbours_tail() {
    // An undecodable 9/27 block, then a damaged 9/24 one: the damaged unit reads cleanly
    // as the tail of its neighbour's list, and its neighbour's counts fit a window in the
    // damaged block. Found by the property test (main decoded it at 0xa); rejected.
    let r = placed(&[one(9, 1, true, false, false, false), one(9, 0, true, true, true, false)]);
    assert_eq!(r[1], Err(Code::AmbiguousAnchor));
}

#[test]
fn twins_take_a_copy_each_and_leave_none_to_a_unit_without_a_block() {
    // Undecodable twins (9/27, two copies behind zero headers) and a decodable 10/27 unit
    // without a block: with the twins sharing one copy, the other was read as its block.
    // Found by the property test (main decoded it at 0x10).
    let twin = Res {
        header: 1,
        ..one(9, 1, true, false, false, true)
    };
    let r = placed(&[
        one(4, 0, false, false, false, false),
        one(10, 0, false, true, false, false),
        twin,
    ]);
    assert!(r[1].is_err(), "{r:?}");
}

#[test]
fn a_header_that_reads_as_a_triangle_lends_no_block_to_a_longer_list() {
    // A decodable 10/30 unit without a block, and an undecodable 10/27 one behind a
    // header that reads as two triangles: the header's last triangle and the 27 indices
    // read as a 10/30 list. Found by the property test (main decoded it at 0xa).
    let r = placed(&[
        one(10, 1, false, true, false, false),
        Res {
            header: 2,
            ..one(10, 0, true, false, false, false)
        },
    ]);
    assert!(r[0].is_err(), "{r:?}");
}

#[test]
fn headers_that_read_as_triangles_do_not_shift_a_row_of_blocks() {
    // Two undecodable blocks behind such headers and a decodable 10/30 unit without a
    // block: each list read one triangle longer is the next unit's counts. Found by the
    // property test (main decoded the 10/30 unit inside the 10/27 block).
    let rs = [
        Res {
            header: 2,
            ..one(9, 0, true, false, false, false)
        },
        Res {
            header: 2,
            ..one(10, 0, true, false, false, false)
        },
        one(4, 0, true, false, false, false),
        one(10, 1, false, true, false, false),
    ];
    let (data, built) = build(&rs, &[2, 1, 0]);
    let r = anchored(&data, &built);
    assert!(
        r.results[3].is_err(),
        "{:?}",
        r.results[3].as_ref().map(|x| x.placement)
    );
}

#[test]
fn a_block_whose_first_normals_are_not_unit_is_found() {
    // Its first four normals zero: the run of unit normals starts at vertex 4, so the
    // buffer starts four strides before it (the search tried two before this rule).
    let r = placed(&[Res {
        lead_zero: 4,
        ..one(10, 1, true, true, false, false)
    }]);
    assert_eq!(r, vec![Ok(4)]);
}

#[test]
fn an_undecodable_neighbour_behind_a_header_lends_no_block() {
    // A decodable 9/30 unit whose first normal is zero, and an undecodable 9/27 one; both
    // behind headers that read as two triangles. The undecodable unit's windows over the
    // first header read as the start of a list; were its claims widened like a decodable
    // unit's, the 9/30 unit was decoded from the other's block (the property test found it).
    let r = placed(&[
        Res {
            header: 2,
            lead_zero: 1,
            ..one(9, 2, true, true, false, false)
        },
        Res {
            header: 2,
            ..one(9, 1, true, false, false, false)
        },
    ]);
    assert!(r[0].is_err() || r[0] == Ok(16), "{r:?}");
}

#[test]
fn counting_referenced_vertices_is_bounded_by_the_u16_range() {
    // A descriptor may declare 0xFFFFFFFF vertices: u16 indices reference at most 2¹⁶
    // of them, and the scratch bitset is never larger than that (the window holds values
    // `< v` only, as every caller has checked).
    let data: Vec<u8> = [0u16, 1, 2, 65535, 2].iter().flat_map(|x| x.to_be_bytes()).collect();
    let mut seen = super::search::Seen::default();
    assert_eq!(super::search::referenced(&data, 0, 5, u32::MAX as usize, &mut seen), 4);
    assert_eq!(seen.bits.len(), 1024);
    assert_eq!(super::search::referenced(&data, 0, 3, 3, &mut seen), 3);
}

proptest! {
    /// `referenced` gives the number of distinct values and their bit set, exactly as a
    /// naive set does, for any values `< v` (v across the u16 range and past it), few
    /// values for many vertices (bits set in place) or many for few (byte marks), at any
    /// offset, with one scratch reused from a call before that took either way (no mark
    /// of the call before may survive into the next).
    #[test]
    fn referenced_counts_the_distinct_values_and_sets_their_bits(
        v in prop_oneof![1usize..3_000, 1usize..70_000],
        raw in proptest::collection::vec(any::<u16>(), 0..800),
        before_v in prop_oneof![1usize..3_000, 1usize..70_000],
        before in proptest::collection::vec(any::<u16>(), 0..800),
        lead in 0usize..3,
    ) {
        let cap = v.min(1 << 16);
        let values: Vec<u16> = raw.iter().map(|&x| (x as usize % cap) as u16).collect();
        let before: Vec<u16> = before.iter().map(|&x| (x as usize % before_v.min(1 << 16)) as u16).collect();
        let bytes = |xs: &[u16]| -> Vec<u8> {
            std::iter::repeat_n(0xAB, 2 * lead).chain(xs.iter().flat_map(|x| x.to_be_bytes())).collect()
        };
        let mut seen = super::search::Seen::default();
        // Whatever the call before marked.
        super::search::referenced(&bytes(&before), 2 * lead, before.len(), before_v, &mut seen);
        let n = super::search::referenced(&bytes(&values), 2 * lead, values.len(), v, &mut seen);
        let set: std::collections::BTreeSet<u16> = values.iter().copied().collect();
        prop_assert_eq!(n, set.len());
        let mut bits = vec![0u64; cap.div_ceil(64)];
        for &x in &set {
            bits[x as usize / 64] |= 1 << (x % 64);
        }
        prop_assert_eq!(&seen.bits, &bits);
    }
}

#[test]
fn damaged_twins_take_no_block_from_an_undecodable_longer_list() {
    // Damaged twins (9/27, two copies) and an undecodable 9/30 block whose list's tail
    // is a 9/27 window one triangle in (a header's worth): the twins read it cleanly.
    // Found by the property test: the twin that a second best assignment placed there
    // escaped the nested-window rule, which looked only at the first one's picks.
    let r = placed(&[one(9, 1, true, true, true, true), one(9, 2, true, false, false, false)]);
    assert!(r[0].is_err() && r[1].is_err(), "{r:?}");
}
