//! Property tests of the ownership criterion over random small data sections: random
//! meshes whose counts lie close together (a vertex or a triangle apart, or the same
//! vertex count with a few more triangles), blocks with no header or a zero header, zero
//! padding and junk between them in random order, resources whose own block is absent,
//! and owners that cannot
//! be decoded (a quantized declaration of the right stride that does not describe their
//! bytes). Whatever the layout,
//! nothing decoded may differ from its truth; where every resource is decodable and has
//! a block of its own, every one is decoded.

use super::pyramid::{cone, indices, DECL_WORDS};
use super::*;
use crate::decl::parse_declaration;
use proptest::prelude::*;

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
    /// 0: no header, 1: twelve zero bytes.
    header: u8,
    has_block: bool,
    decodable: bool,
    gap: usize,
    padding: usize,
}

fn res() -> impl Strategy<Value = Res> {
    (
        (4u16..11, 0usize..3, 0.5f32..4.0),
        0u8..2,
        (prop::bool::weighted(0.85), prop::bool::weighted(0.85)),
        (0usize..24, 0usize..8),
    )
        .prop_map(
            |((n, extra, scale), header, (has_block, decodable), (gap, padding))| Res {
                n,
                extra,
                scale,
                header,
                has_block,
                decodable,
                gap: 2 * gap,
                padding: 2 * padding,
            },
        )
}

/// Lays the blocks out in `order`; returns the data, the units' counts and whether they
/// decode, and each unit's index offset (none when it has no block).
#[allow(clippy::type_complexity)]
fn build(rs: &[Res], order: &[usize]) -> (Vec<u8>, Vec<(u32, u32, bool)>, Vec<Vec<usize>>) {
    // One unit per resource; no two different units share both counts (FORMAT.md §6), so
    // a resource whose counts are taken is left out.
    let mut taken = std::collections::BTreeSet::new();
    let mut units: Vec<(u32, u32, bool)> = Vec::new();
    let mut blocks: Vec<(usize, Vec<u8>, usize)> = Vec::new(); // (resource, bytes, header length)
    let mut of_unit: Vec<usize> = Vec::new(); // unit -> resource
    for (r, x) in rs.iter().enumerate() {
        let (idx, vtx) = cone(x.n, x.extra, x.scale);
        let counts = (x.n as u32, idx.len() as u32);
        if !taken.insert(counts) {
            continue;
        }
        let header: Vec<u8> = if x.header == 1 { vec![0; 12] } else { Vec::new() };
        let mut bytes = header.clone();
        bytes.extend(indices(&idx));
        bytes.extend(vtx);
        units.push((counts.0, counts.1, x.decodable));
        of_unit.push(r);
        if x.has_block {
            blocks.push((r, bytes, header.len()));
        }
    }
    let mut data = vec![0u8; 4];
    let mut at: Vec<Vec<usize>> = vec![Vec::new(); rs.len()];
    for k in order.iter().copied().filter(|&k| k < blocks.len()) {
        let (r, bytes, h) = &blocks[k];
        data.extend(junk(rs[*r].gap, k as u8));
        data.extend(vec![0; rs[*r].padding]);
        at[*r].push(data.len() + h);
        data.extend(bytes);
    }
    data.extend(junk(40, 7));
    let truth = of_unit.iter().map(|&r| at[r].clone()).collect();
    (data, units, truth)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn nothing_decoded_differs_from_its_truth(
        rs in proptest::collection::vec(res(), 1..7),
        order in Just((0..16).collect::<Vec<usize>>()).prop_shuffle(),
    ) {
        let (data, counts, truth) = build(&rs, &order);
        let (d, quantized) = decls();
        let (map, q_map) = (AttributeMap::of(&d), AttributeMap::of(&quantized));
        let units: Vec<Unit> = counts
            .iter()
            .map(|&(v, i, decodable)| Unit {
                decl: if decodable { &d } else { &quantized },
                map: if decodable { &map } else { &q_map },
                vertex_count: v,
                index_count: i,
                decodable,
            })
            .collect();
        let r = anchor(&mut Scanner::new(&data), &units, &[], &GateConfig::default());
        for (u, result) in r.results.iter().enumerate() {
            // (An undecodable unit's result is its declaration's reject, whatever it holds.)
            if let (Ok(b), true) = (result, units[u].decodable) {
                prop_assert!(
                    truth[u].contains(&b.placement.index_offset),
                    "unit {u} ({:?}) decoded at {:#x}, its block(s) at {:?}",
                    counts[u], b.placement.index_offset, truth[u]
                );
            }
        }
        // Every resource decodable and with a block of its own: each is decoded.
        let clean = rs.iter().all(|x| x.has_block && x.decodable);
        if clean {
            for (u, result) in r.results.iter().enumerate() {
                prop_assert!(result.is_ok(), "unit {u} ({:?}) not decoded: {:?}", counts[u], result.as_ref().err());
            }
        }
    }
}
