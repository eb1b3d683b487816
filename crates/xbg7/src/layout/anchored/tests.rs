//! Placement on hand-built data sections: the facade's answers, and the bitmaps and
//! runs it reads, against their plain definitions.

use super::bitmap::{half_square, index_runs, IndexMaxima, TolerantRun, GROUP, MAX_RUN_GAP};
use super::pyramid::{indices, vertices, DECL_WORDS, PYR_IDX, PYR_POS};
use super::search::{window_valid, Windows, HALF_UNIT_MIN_COMPONENT};
use super::*;
use crate::decl::{is_unit_normal, parse_declaration, unit_tolerance, DeclType, Declaration};
use crate::vertex::AttributeMap;

/// `POSITION@0 FLOAT3, NORMAL@12 FLOAT16_4` (stride 20).
fn decl() -> Declaration {
    let mut b = Vec::new();
    for w in DECL_WORDS {
        b.extend(w.to_be_bytes());
    }
    parse_declaration(&b).unwrap().0
}

/// Junk that is not unit normals and not small indices.
fn junk(n: usize) -> Vec<u8> {
    (0..n).map(|k| (0x9D ^ (k * 37) as u8) | 0x80).collect()
}

fn place(data: &[u8], units: &[(u32, u32)], d: &Declaration) -> Vec<Result<usize, Code>> {
    let map = AttributeMap::of(d);
    let us: Vec<Unit> = units
        .iter()
        .map(|&(v, i)| Unit {
            decl: d,
            map: &map,
            vertex_count: v,
            index_count: i,
            decodable: true,
        })
        .collect();
    anchor(&mut Scanner::new(data), &us, &[], &GateConfig::default())
        .results
        .into_iter()
        .map(|r| r.map(|x| x.placement.index_offset).map_err(|e| e.code))
        .collect()
}

#[test]
fn suffix_window_loses_to_the_true_block() {
    // A = 18 indices; B = the same 5 vertices with only the 4 side triangles, which
    // are exactly the last 12 indices of A: B validates on A's block too.
    let d = decl();
    let mut data = vec![0u8; 16];
    let a_at = data.len();
    data.extend(indices(&PYR_IDX));
    data.extend(vertices(1.0));
    data.extend(junk(64));
    data.extend([0u8; 12]);
    let b_at = data.len();
    data.extend(indices(&PYR_IDX[6..]));
    data.extend(vertices(2.0));
    data.extend(junk(40));
    assert_eq!(place(&data, &[(5, 18), (5, 12)], &d), vec![Ok(a_at), Ok(b_at)]);
    // Order of units does not matter (no first-come first-served).
    assert_eq!(place(&data, &[(5, 12), (5, 18)], &d), vec![Ok(b_at), Ok(a_at)]);
}

#[test]
fn a_suffix_with_no_block_of_its_own_is_rejected_not_emitted() {
    // B (5 vertices, 9 indices) has no block; its window fits the tail of A's list,
    // which cannot be extended backwards (zeros before it), three triangles in: more
    // than a block header can read as, so A's, and B is rejected: nothing fits it.
    let d = decl();
    let mut data = vec![0u8; 16];
    data.extend(indices(&PYR_IDX));
    data.extend(vertices(1.0));
    data.extend(junk(64));
    let r = place(&data, &[(5, 18), (5, 9)], &d);
    assert_eq!(r, vec![Ok(16), Err(Code::NoValidAnchor)]);
    // Two triangles in (B with 12 indices), the bytes cannot tell A's list from B's
    // behind a 12-byte header that reads as two triangles (FORMAT.md §6): both are
    // rejected.
    let r = place(&data, &[(5, 18), (5, 12)], &d);
    assert_eq!(r, vec![Err(Code::AmbiguousAnchor), Err(Code::AmbiguousAnchor)]);
    // With B's own block in the section, each has its own.
    let b_at = data.len() + 12;
    data.extend([0u8; 12]);
    data.extend(indices(&PYR_IDX[6..]));
    data.extend(vertices(2.0));
    data.extend(junk(40));
    assert_eq!(place(&data, &[(5, 18), (5, 12)], &d), vec![Ok(16), Ok(b_at)]);
}

#[test]
fn an_unreadable_owner_keeps_its_index_tail_from_a_sibling() {
    // A's declaration gives a stride its bytes do not have (as a multi-stream or
    // quantized owner's may), so A claims nothing by reading; B's only fit is the
    // last 12 of A's 18 indices before A's vertices. A's counts still own that.
    let d = decl();
    let wide = Declaration {
        elements: d.elements.clone(),
        stride: 24,
    };
    let mut data = vec![0u8; 16];
    data.extend(indices(&PYR_IDX));
    data.extend(vertices(1.0));
    data.extend(junk(64));
    let (map, wide_map) = (AttributeMap::of(&d), AttributeMap::of(&wide));
    let a = Unit {
        decl: &wide,
        map: &wide_map,
        vertex_count: 5,
        index_count: 18,
        decodable: false,
    };
    let b = Unit {
        decl: &d,
        map: &map,
        vertex_count: 5,
        index_count: 12,
        decodable: true,
    };
    let mut scanner = Scanner::new(&data);
    let r = anchor(&mut scanner, &[a, b], &[], &GateConfig::default());
    let b_result = r.results[1].as_ref().map(|x| x.placement.index_offset);
    assert_eq!(b_result.map_err(|e| e.code), Err(Code::AmbiguousAnchor), "{b_result:?}");
    assert!(r.claims.iter().any(|c| c.start == 16), "{:?}", r.claims);
    // Without A's counts in the section, B's tail window is all there is, and taken.
    let alone = anchor(&mut Scanner::new(&data), &[b], &[], &GateConfig::default());
    assert_eq!(
        alone.results[0].as_ref().map(|x| x.placement.index_offset).ok(),
        Some(28)
    );
}

#[test]
fn a_window_reaching_into_zero_padding_is_not_a_block() {
    // C would read 6 zero indices of padding + A's 18: "(0,0,0) leading triangles".
    let d = decl();
    let mut data = vec![0u8; 32];
    data.extend(indices(&PYR_IDX));
    data.extend(vertices(1.0));
    data.extend(junk(64));
    // C's only fit is A's block, which A's own window claims more strongly: nothing
    // fits C.
    assert_eq!(
        place(&data, &[(5, 24), (5, 18)], &d),
        vec![Err(Code::NoValidAnchor), Ok(32)]
    );
}

#[test]
fn run_longer_than_the_vertex_count_is_not_a_smaller_resource() {
    // A 4-vertex resource must not take the first 4 slots of a 5-vertex run.
    let d = decl();
    let mut data = vec![0u8; 16];
    data.extend(indices(&PYR_IDX));
    data.extend(vertices(1.0));
    data.extend(junk(64));
    // (Its reading of the pyramid's bytes is a claim that fails the gates.)
    assert!(place(&data, &[(4, 6)], &d)[0].is_err());
}

#[test]
fn identical_duplicates_may_share_or_split_blocks() {
    let d = decl();
    let mut data = vec![0u8; 16];
    data.extend(indices(&PYR_IDX));
    data.extend(vertices(1.0));
    data.extend(junk(64));
    // One block, two resources with identical counts: both decode from it.
    assert_eq!(place(&data, &[(5, 18), (5, 18)], &d), vec![Ok(16), Ok(16)]);
    // Two identical copies: each takes one.
    let second = data.len() + 8;
    data.extend([0u8; 8]);
    data.extend(indices(&PYR_IDX));
    data.extend(vertices(1.0));
    data.extend(junk(16));
    assert_eq!(place(&data, &[(5, 18), (5, 18)], &d), vec![Ok(16), Ok(second)]);
}

/// `lead`, then two pyramid blocks (same indices, the given vertex bytes) between junk.
fn two_blocks(lead: Vec<u8>, first: Vec<u8>, second: Vec<u8>) -> Vec<u8> {
    let mut data = lead;
    data.extend(indices(&PYR_IDX));
    data.extend(first);
    data.extend(junk(64));
    data.extend(indices(&PYR_IDX));
    data.extend(second);
    data.extend(junk(16));
    data
}

#[test]
fn two_different_blocks_for_one_resource_are_ambiguous() {
    let data = two_blocks(vec![0u8; 16], vertices(1.0), vertices(3.0));
    assert_eq!(place(&data, &[(5, 18)], &decl()), vec![Err(Code::AmbiguousAnchor)]);
}

#[test]
fn no_normal_and_nothing_to_anchor_on_is_no_anchor_element() {
    let d = decl_of(&[0, 0x002A_23B9, 0]);
    assert_eq!(place(&[0u8; 64], &[(5, 18)], &d), vec![Err(Code::NoAnchorElement)]);
    // Fewer indices than vertices can never reference them all.
    let mut data = vec![0u8; 16];
    data.extend(indices(&PYR_IDX[..3]));
    data.extend(nn_vertices(1.0));
    assert_eq!(place(&data, &[(5, 3)], &nn_decl()), vec![Err(Code::NoAnchorElement)]);
}

/// A declaration from its element words (3 u32 each), END appended.
fn decl_of(words: &[u32]) -> Declaration {
    let mut b: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    for w in [0x00FF_0000u32, 0xFFFF_FFFF, 0] {
        b.extend(w.to_be_bytes());
    }
    parse_declaration(&b).unwrap().0
}

/// `POSITION@0 FLOAT3, TEXCOORD@12 FLOAT16_2` (stride 16): no NORMAL.
fn nn_decl() -> Declaration {
    decl_of(&[0, 0x002A_23B9, 0, 0x0000_000C, 0x002C_235F, 0x0005_0000])
}

/// The pyramid's vertices in `nn_decl` form (positions × `scale`, UVs in [0, 1]).
fn nn_vertices(scale: f32) -> Vec<u8> {
    let mut out = Vec::new();
    for p in PYR_POS {
        for c in p {
            out.extend((c * scale).to_be_bytes());
        }
        for c in [p[0] * 0.75 + 0.125, p[1] * 0.5 + 0.25] {
            out.extend(half::f16::from_f32(c).to_bits().to_be_bytes());
        }
    }
    out
}

#[test]
fn a_block_without_normals_anchors_exactly() {
    let d = nn_decl();
    let mut data = junk(30);
    data.extend([0u8; 2]);
    let at = data.len();
    data.extend(indices(&PYR_IDX));
    data.extend(nn_vertices(2.5));
    data.extend(junk(64));
    assert_eq!(place(&data, &[(5, 18)], &d), vec![Ok(at)]);
    // The decoded geometry is the stored one, bit for bit.
    let map = AttributeMap::of(&d);
    let unit = Unit {
        decl: &d,
        map: &map,
        vertex_count: 5,
        index_count: 18,
        decodable: true,
    };
    let got = anchor(&mut Scanner::new(&data), &[unit], &[], &GateConfig::default()).results;
    let m = &got[0].as_ref().unwrap().mesh;
    assert_eq!(m.indices, PYR_IDX.map(u32::from).to_vec());
    assert_eq!(m.positions[4], [1.25, 1.25, 2.5]);
    assert_eq!(m.texcoords[0][1], [0.875, 0.25]);
}

#[test]
fn two_different_blocks_without_normals_are_ambiguous() {
    let data = two_blocks(junk(32), nn_vertices(1.0), nn_vertices(3.0));
    assert_eq!(place(&data, &[(5, 18)], &nn_decl()), vec![Err(Code::AmbiguousAnchor)]);
}

#[test]
fn a_window_without_normals_reaching_into_zero_padding_is_refused() {
    // (5, 24) would read 6 zero indices of padding + the real 18: its first triangle
    // is (0, 0, 0); every later start is the suffix case or misreads the vertices.
    let d = nn_decl();
    let mut data = junk(16);
    data.extend([0u8; 32]);
    let at = data.len();
    data.extend(indices(&PYR_IDX));
    data.extend(nn_vertices(1.0));
    data.extend(junk(64));
    let r = place(&data, &[(5, 24), (5, 18)], &d);
    assert_eq!(r[1], Ok(at));
    assert!(r[0].is_err(), "{r:?}");
}

#[test]
fn a_no_normal_unit_does_not_take_a_block_a_normal_unit_owns() {
    // `POSITION@0 FLOAT3, TEXCOORD@12 FLOAT16_4` (stride 20) reads the pyramid's
    // normals as texture coordinates, so the no-normal unit validates on the normal
    // block A too; A's only claimant with a NORMAL keeps it, the other gets B.
    let nd = decl();
    let td = decl_of(&[0, 0x002A_23B9, 0, 0x0000_000C, 0x001A_2360, 0x0005_0000]);
    let mut data = junk(32);
    let a_at = data.len();
    data.extend(indices(&PYR_IDX));
    data.extend(vertices(1.0));
    data.extend(junk(64));
    let b_at = data.len();
    data.extend(indices(&PYR_IDX));
    for c in nn_vertices(4.0).chunks_exact(16) {
        data.extend(&c[..12]);
        for h in [0.25f32, 0.5, 0.0, 0.0] {
            data.extend(half::f16::from_f32(h).to_bits().to_be_bytes());
        }
    }
    data.extend(junk(16));
    let (nm, tm) = (AttributeMap::of(&nd), AttributeMap::of(&td));
    let un = Unit {
        decl: &nd,
        map: &nm,
        vertex_count: 5,
        index_count: 18,
        decodable: true,
    };
    let ut = Unit {
        decl: &td,
        map: &tm,
        vertex_count: 5,
        index_count: 18,
        decodable: true,
    };
    let at = |us: &[Unit]| -> Vec<Result<usize, Code>> {
        anchor(&mut Scanner::new(&data), us, &[], &GateConfig::default())
            .results
            .into_iter()
            .map(|r| r.map(|x| x.placement.index_offset).map_err(|e| e.code))
            .collect()
    };
    assert_eq!(at(&[un, ut]), vec![Ok(a_at), Ok(b_at)]);
    assert_eq!(at(&[ut, un]), vec![Ok(b_at), Ok(a_at)]);
}

/// A cone of `n` vertices ([`super::pyramid::cone`] without repeated triangles).
fn cone(n: u16, scale: f32) -> (Vec<u16>, Vec<u8>) {
    super::pyramid::cone(n, 0, scale)
}

/// Blocks (`junk` bytes before each, then its indices and vertex bytes) and 40 bytes
/// of junk after them; returns the data and each block's offset.
fn lay_out(blocks: &[(usize, &[u16], &[u8])]) -> (Vec<u8>, Vec<usize>) {
    let (mut data, mut at) = (Vec::new(), Vec::new());
    for &(gap, idx, vtx) in blocks {
        data.extend(junk(gap));
        at.push(data.len());
        data.extend(indices(idx));
        data.extend(vtx);
    }
    data.extend(junk(40));
    (data, at)
}

#[test]
fn a_claim_that_loses_takes_no_other_claim_with_it() {
    // A (30 vertices) is followed at once by B, whose first triangle is degenerate
    // (a weaker claim: its window does not start with a real triangle). C has A's
    // index count and one vertex more: its reading of A's block also takes B's first
    // bytes as a 31st vertex, and loses A's block to A (one vertex that is no
    // vertex). Having lost, it must not take B's block from B; C has its own.
    let d = decl();
    let (a_idx, a_vtx) = cone(30, 1.0);
    let (mut b_idx, b_vtx) = cone(30, 2.0);
    b_idx.truncate(b_idx.len() - 3); // other counts than A's (not a duplicate of it)
    b_idx[..3].copy_from_slice(&[0, 0, 1]);
    let (c_idx, c_vtx) = cone(31, 3.0);
    let c_idx: Vec<u16> = c_idx[..a_idx.len()].to_vec();
    let (data, at) = lay_out(&[(40, &a_idx, &a_vtx), (0, &b_idx, &b_vtx), (64, &c_idx, &c_vtx)]);
    let (a_at, b_at, c_at) = (at[0], at[1], at[2]);
    let i = a_idx.len() as u32;
    let got = place(&data, &[(30, i), (30, i - 3), (31, i)], &d);
    assert_eq!(got, vec![Ok(a_at), Ok(b_at), Ok(c_at)]);
}

#[test]
fn a_window_after_degenerate_triangles_is_inside_a_longer_list() {
    let pos = |k: u32| PYR_POS[k as usize % 5];
    let window = |before: &[u16]| {
        let mut data = indices(before);
        let w = data.len();
        data.extend(indices(&PYR_IDX));
        (data, w)
    };
    // Directly after a real triangle, and after one to three degenerate ones.
    for before in [
        &[0u16, 2, 1][..],
        &[0, 2, 1, 3, 3, 4],
        &[0, 2, 1, 3, 3, 4, 1, 2, 2, 4, 0, 4],
    ] {
        let (data, w) = window(before);
        assert!(edges::extendable(&data, w, 5, pos), "{before:?}");
    }
    // Not past more than three, nor past a triangle of one repeated value (zero
    // padding), nor past an index the block does not have.
    for before in [
        &[0u16, 2, 1, 1, 1, 2, 3, 3, 4, 4, 4, 2, 0, 0, 1][..],
        &[0, 2, 1, 0, 0, 0],
        &[0, 0, 0],
        &[0, 2, 1, 1, 7, 1],
    ] {
        let (data, w) = window(before);
        assert!(!edges::extendable(&data, w, 5, pos), "{before:?}");
    }
}

#[test]
fn a_unit_that_keeps_its_own_block_does_not_hold_the_ones_it_let_go() {
    // P's block (a cone of 30 vertices, 87 indices) is placed only in a second round
    // (as bodies' per-record blocks are). X (31 vertices, 81 indices) fits P's index
    // tail and vertices too (a weak claim: its window extends backwards) but has its
    // own block: having taken it, X does not keep P's bytes from P.
    let d = decl();
    let (p_idx, p_vtx) = cone(30, 1.0);
    let (x_idx, x_vtx) = cone(31, 2.0);
    let x_idx = x_idx[..81].to_vec();
    let (data, at) = lay_out(&[(40, &p_idx, &p_vtx), (64, &x_idx, &x_vtx)]);
    let (p_at, x_at) = (at[0], at[1]);
    let map = AttributeMap::of(&d);
    let unit = |v: u32, i: usize| Unit {
        decl: &d,
        map: &map,
        vertex_count: v,
        index_count: i as u32,
        decodable: true,
    };
    let mut scanner = Scanner::new(&data);
    let first = anchor(&mut scanner, &[unit(31, 81)], &[], &GateConfig::default());
    let x = first.results[0].as_ref().map(|r| r.placement.index_offset);
    assert_eq!(x.map_err(|e| e.code), Ok(x_at));
    let second = anchor(
        &mut scanner,
        &[unit(30, p_idx.len())],
        &first.claims,
        &GateConfig::default(),
    );
    let p = second.results[0].as_ref().map(|r| r.placement.index_offset);
    assert_eq!(p.map_err(|e| e.code), Ok(p_at));
}

#[test]
fn index_runs_match_a_plain_scan() {
    let mut data: Vec<u8> = (0..5000u32)
        .map(|k| (k.wrapping_mul(2_654_435_761) >> 17) as u8 & 0x07)
        .collect();
    data.extend([0u8; 300]);
    data.extend((0..777u32).map(|k| (k * 13) as u8));
    let cases = [
        (1u32, 1usize),
        (5, 3),
        (600, 3),
        (600, 7),
        (1500, 40),
        (2048, 10),
        (2048, 31),
        (2048, 127),
        (70_000, 1),
        (70_000, 200),
        (9, 40),
    ];
    for (v, min) in cases {
        let want = plain_index_runs(&data, v, min);
        assert_eq!(index_runs(&data, v, min), want, "v {v} min {min}");
        assert_eq!(IndexMaxima::build(&data).runs(&data, v, min), want, "v {v} min {min}");
    }
}

/// The definition: maximal runs of big-endian u16 values `< v`, value by value.
fn plain_index_runs(data: &[u8], v: u32, min: usize) -> Vec<(usize, usize)> {
    let mut want = Vec::new();
    let (mut st, mut l) = (0, 0);
    for (k, c) in data.chunks_exact(2).enumerate() {
        if (u16::from_be_bytes([c[0], c[1]]) as u32) < v {
            if l == 0 {
                st = k;
            }
            l += 1;
        } else {
            if l >= min.max(1) {
                want.push((st, l));
            }
            l = 0;
        }
    }
    if l >= min.max(1) {
        want.push((st, l));
    }
    want
}

/// Index-list-like data: pieces of small values (runs of every length, across group
/// boundaries), zeros and large values, in random order and an odd total length.
fn index_like() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let piece = (0u8..4, 1usize..200, any::<u16>()).prop_map(|(kind, len, seed)| {
        (0..len)
            .flat_map(|k| {
                let x = (seed as usize).wrapping_add(k * 40_503) as u16;
                match kind {
                    0 => x % 600,
                    1 => 0,
                    2 => x | 0x8000,
                    _ => x,
                }
                .to_be_bytes()
            })
            .collect::<Vec<u8>>()
    });
    (proptest::collection::vec(piece, 1..40), any::<bool>()).prop_map(|(ps, odd)| {
        let mut d: Vec<u8> = ps.concat();
        if odd {
            d.push(3);
        }
        d
    })
}

proptest::proptest! {
    #[test]
    fn group_maxima_runs_are_the_plain_runs(
        data in index_like(),
        pick in proptest::prelude::any::<proptest::sample::Index>(),
        step in 0u32..2,
        v in proptest::prop_oneof![1u32..700, 0u32..70_000],
        min in 0usize..300,
    ) {
        // `v` at, or one above, a value of the data (the boundaries), or anywhere.
        let vals: Vec<u32> = data.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).collect();
        let v = match (vals.is_empty(), step) {
            (false, 0) => vals[pick.index(vals.len())] + (v % 2),
            _ => v,
        };
        let m = IndexMaxima::build(&data);
        proptest::prop_assert_eq!(m.runs(&data, v, min), plain_index_runs(&data, v, min));
        proptest::prop_assert_eq!(index_runs(&data, v, min), plain_index_runs(&data, v, min));
    }

    #[test]
    fn group_maxima_are_the_maxima(data in index_like()) {
        let m = IndexMaxima::build(&data);
        let want: Vec<u16> = data
            .chunks_exact(2 * GROUP)
            .map(|g| g.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).max().unwrap_or(0))
            .collect();
        proptest::prop_assert_eq!(m.max_values(&data), &want[..]);
        // Any range's maximum, against the definition.
        let n = data.len() / 2;
        for (a, b) in [(0, n), (n / 3, n / 2), (1, n.saturating_sub(1)), (n / 7, n / 7 + 40), (n / 2, n / 2)] {
            let (a, b) = (a.min(n), b.min(n).max(a.min(n)));
            let want = (a..b).map(|k| u16::from_be_bytes([data[2 * k], data[2 * k + 1]])).max().unwrap_or(0);
            proptest::prop_assert_eq!(m.range_max(&data, a, b), want, "range {}..{}", a, b);
        }
        let mut plain = vec![0u16; want.len()];
        bitmap::fill_group_maxima_plain(&data[..2 * GROUP * want.len()], &mut plain);
        proptest::prop_assert_eq!(&plain[..], &want[..]);
    }
}

#[test]
fn no_unit_normal_fits_below_the_index_bound() {
    let tol = unit_tolerance(DeclType::Float16_4);
    let xyz = |h: u16| -> Vec<u8> { [h, h, h, 0].iter().flat_map(|x| x.to_be_bytes()).collect() };
    // The largest all-equal xyz below the bound is short of unit; one step up is not.
    assert!(!is_unit_normal(
        DeclType::Float16_4,
        &xyz(HALF_UNIT_MIN_COMPONENT as u16),
        tol
    ));
    assert!(is_unit_normal(
        DeclType::Float16_4,
        &xyz(HALF_UNIT_MIN_COMPONENT as u16 + 1),
        tol
    ));
    // And no xyz of halves all ≤ the bound is unit (components are monotone in bits).
    let mut v = Vec::new();
    for h in (0..=HALF_UNIT_MIN_COMPONENT as u16)
        .step_by(7)
        .chain([HALF_UNIT_MIN_COMPONENT as u16])
    {
        v.extend(h.to_be_bytes());
    }
    let bm = UnitBitmap::build(&v, DeclType::Float16_4, 0);
    assert_eq!(bm.iter().count(), 0);
}

#[test]
fn byte_flags_puts_bit_b_of_byte_j_at_bit_j() {
    use crate::layout::byte_flags;
    for j in 0..64 {
        for b in 0..8 {
            let mut f = [0u8; 64];
            f[j] = 1 << b;
            assert_eq!(byte_flags(&f, b), 1 << j);
            // The other bits of every byte are not read.
            f = [!(1u8 << b); 64];
            f[j] = 0xFF;
            assert_eq!(byte_flags(&f, b), 1 << j);
        }
    }
    let f: [u8; 64] = std::array::from_fn(|j| (j % 3 == 0) as u8 | (2 * (j % 5 == 0) as u8));
    let want = |k: usize| (0..64).filter(|j| j % k == 0).fold(0u64, |a, j| a | 1 << j);
    assert_eq!((byte_flags(&f, 0), byte_flags(&f, 1)), (want(3), want(5)));
}

#[test]
fn half_square_is_the_square_of_the_reader() {
    for h in 0..=u16::MAX {
        let x = crate::decl::xenos_half_to_f32(h);
        assert_eq!(half_square(h).to_bits(), (x * x).to_bits(), "{h:#06x}");
    }
}

proptest::proptest! {
    #[test]
    fn residue_by_multiplication_is_the_remainder(q in proptest::prelude::any::<u32>(), s in 1u32..) {
        let r = bitmap::Residue::new(s as usize);
        proptest::prop_assert_eq!(r.of(q as usize), (q % s) as usize);
    }
}

#[test]
fn residue_at_the_edges() {
    let edges = [
        0usize,
        1,
        2,
        3,
        63,
        64,
        65,
        0xFFFF,
        0x1_0000,
        0x7FFF_FFFF,
        0xFFFF_FFFE,
        0xFFFF_FFFF,
    ];
    for s in [
        1usize,
        2,
        3,
        7,
        12,
        24,
        40,
        64,
        1 << 16,
        (1 << 31) + 1,
        u32::MAX as usize,
        1 << 32,
    ] {
        let r = bitmap::Residue::new(s);
        for q in edges
            .iter()
            .copied()
            .chain([1 << 32, usize::MAX, s - 1, s, s + 1, 3 * s])
        {
            assert_eq!(r.of(q), q % s, "{q} mod {s}");
        }
    }
}

/// The chain walk of every start on its own (the definition of a tolerant run).
fn tolerant_runs_naive(bm: &UnitBitmap, s: usize) -> Vec<TolerantRun> {
    let mut out = Vec::new();
    for q in bm.iter().filter(|&q| !(q >= s && bm.get(q - s))) {
        let (mut cur, mut units) = (q, 1usize);
        while let Some(j) = (1..=MAX_RUN_GAP + 1).find(|&j| bm.get(cur + j * s)) {
            cur += j * s;
            units += 1;
        }
        out.push((q, (cur - q) / s + 1, units));
    }
    out.retain(|r| r.2 >= MIN_RUN_UNITS);
    out.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    out
}

#[test]
fn tolerant_runs_equal_the_walk_of_every_start() {
    // Unit normals (x = 1.0 as a half) at pseudo-random slots of strides 4..40:
    // dense, sparse and gap-bridging chains, many starts inside one chain.
    let mut bridged = 0;
    for seed in 0..40u32 {
        let len = 6_000;
        let mut data = vec![0u8; len];
        let density = 1 + seed % 7;
        for q in (0..len - 8).step_by(2) {
            let h = (q as u32 ^ seed.wrapping_mul(0x9E37_79B9)).wrapping_mul(2_654_435_761) >> 24;
            if h % 8 < density {
                data[q..q + 2].copy_from_slice(&0x3C00u16.to_be_bytes());
            }
        }
        let bm = UnitBitmap::build(&data, DeclType::Float16_4, 0);
        for s in [4, 8, 12, 20, 24, 40] {
            let runs = tolerant_runs(&bm, s);
            assert_eq!(runs, tolerant_runs_naive(&bm, s), "seed {seed} stride {s}");
            bridged += runs.iter().filter(|r| r.1 > r.2 && r.2 > 5).count();
        }
    }
    assert!(bridged > 100, "{bridged} runs bridge a gap");
}

#[test]
fn cached_windows_equal_the_plain_check() {
    // Index lists of several vertex counts between junk and zero runs; every place,
    // counts asked small to large and back (the walks' bound grows on the way).
    let mut data = Vec::new();
    for (k, v) in [5u16, 300, 40, 9, 1000].into_iter().enumerate() {
        data.extend(junk(7 + k));
        data.extend([0u8; 6]);
        data.extend((0..60u16).flat_map(|j| ((j * 7 + k as u16) % v).to_be_bytes()));
    }
    let mut w = Windows::default();
    for v in [6u32, 41, 301, 1001, 40, 5, 65535] {
        for p in (0..=data.len()).step_by(2) {
            for i in [3usize, 4, 20, 59, 60, 61, 200] {
                let want = i >= 3 && 2 * i <= p && window_valid(&data, p - 2 * i, i, v);
                assert_eq!(w.valid(&data, p, i, v), want, "p {p} i {i} v {v}");
            }
        }
    }
}

#[test]
fn every_normal_type_bitmap_agrees_with_the_reader() {
    // Pseudo-random bytes with unit normals of each type planted at offsets of both
    // parities: the bitmap (with its per-type loops) is the reader at every offset.
    let planted: [(DeclType, Vec<u8>); 6] = [
        (
            DeclType::Float3,
            [1.0f32, 0.0, 0.0].iter().flat_map(|c| c.to_be_bytes()).collect(),
        ),
        (DeclType::Dec3N, 0x0000_01FFu32.to_be_bytes().to_vec()),
        (
            DeclType::Short4N,
            [0x7FFFu16, 0, 0, 0].iter().flat_map(|c| c.to_be_bytes()).collect(),
        ),
        (DeclType::Ubyte4N, vec![255, 0, 0, 0]),
        (
            DeclType::Short2N,
            [0x7FFFu16, 0].iter().flat_map(|c| c.to_be_bytes()).collect(),
        ),
        (DeclType::Udec3, 0x0000_0001u32.to_be_bytes().to_vec()),
    ];
    for (ty, unit) in planted {
        let mut v: Vec<u8> = (0..5_000u32)
            .map(|k| (k.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for at in [0usize, 7, 100, 333, 1000, 2001, 4990 - unit.len()] {
            v[at..at + unit.len()].copy_from_slice(&unit);
        }
        let tol = unit_tolerance(ty);
        for parity in 0..2 {
            let bm = UnitBitmap::build(&v, ty, parity);
            let mut hits = 0;
            for q in (parity..v.len()).step_by(2) {
                let want = v.get(q..q + ty.size()).is_some_and(|b| is_unit_normal(ty, b, tol));
                assert_eq!(bm.get(q), want, "{ty:?} offset {q}");
                hits += usize::from(want);
            }
            assert!(hits >= 2, "{ty:?} parity {parity}: {hits} unit normals");
        }
    }
}

#[test]
fn bitmap_scan_agrees_with_the_reader() {
    let data: Vec<u8> = (0..20_000u32)
        .map(|k| (k.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut v = vertices(1.0);
    v.extend(data);
    let bm = UnitBitmap::build(&v, DeclType::Float16_4, 0);
    let tol = unit_tolerance(DeclType::Float16_4);
    for q in (0..v.len() - 8).step_by(2) {
        assert_eq!(
            bm.get(q),
            is_unit_normal(DeclType::Float16_4, &v[q..q + 8], tol),
            "offset {q}"
        );
    }
    assert!(bm.get(12) && bm.get(32));
    // The plain loop too (the build may have taken the AVX2 one), on both parities.
    for parity in 0..2 {
        let bm = UnitBitmap::build(&v, DeclType::Float16_4, parity);
        let n = (v.len() - 8 - parity) / 2 + 1;
        let mut plain = vec![0u64; n.div_ceil(64)];
        UnitBitmap::fill_half3_plain(&v, parity, n, tol, &mut plain);
        let got: Vec<usize> = bm.iter().collect();
        let want: Vec<usize> = (0..plain.len() * 64)
            .filter(|&k| plain[k / 64] >> (k % 64) & 1 == 1)
            .map(|k| 2 * k + parity)
            .collect();
        assert_eq!(got, want, "parity {parity}");
    }
}

proptest::proptest! {
    /// The AVX2 word and the plain one agree on any 66 squares and bounds: a bound equal
    /// to one offset's sum (taken in the plain order, so a sum in another order or a
    /// strict comparison differs there), squares near a third of it, NaN, infinities,
    /// zeros and random values. (Skipped where the CPU has no AVX2: nothing to compare.)
    #[test]
    fn the_avx2_word_is_the_plain_word(
        picks in proptest::collection::vec((0u8..6, proptest::prelude::any::<u32>()), 66),
        lane in 0usize..64,
        which in 0u8..3,
        spread in 1.0f32..3.0,
    ) {
        use super::bitmap::unit_word;
        let base = 0.3f32 + (picks[0].1 % 1000) as f32 * 1e-4;
        let cur: [f32; 66] = std::array::from_fn(|k| {
            let (kind, r) = picks[k];
            match kind {
                0 | 1 => f32::from_bits(base.to_bits().wrapping_add(r % 64).wrapping_sub(32)),
                2 => (r % 1_000_000) as f32 * 2e-6,
                3 => [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, f32::MIN_POSITIVE][r as usize % 6],
                _ => base * (1.0 + (r % 7) as f32 * 1e-7),
            }
        });
        let sum = cur[lane] + cur[lane + 1] + cur[lane + 2];
        let (lo2, hi2) = match which {
            0 => (sum, sum * spread),
            1 => (sum / spread, sum),
            _ => (sum, sum),
        };
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            let avx2 = unsafe { super::bitmap::unit_word_avx2(&cur, lo2, hi2) };
            proptest::prop_assert_eq!(avx2, unit_word(&cur, lo2, hi2));
        }
        // The plain word against its definition.
        for j in 0..64 {
            let v = cur[j] + cur[j + 1] + cur[j + 2];
            proptest::prop_assert_eq!(unit_word(&cur, lo2, hi2) >> j & 1 == 1, v >= lo2 && v <= hi2);
        }
    }
}

proptest::proptest! {
    /// The scan as built (the AVX2 loop where the CPU has it) and the plain loop give the
    /// same bitmap on data made of halves whose squares sum to around the unit band
    /// (lengths within twice the tolerance of 1), halves near the bounds, the largest
    /// exponents (finite in a Xenos half: it has no NaN or infinity), zeros and random
    /// bytes, at both parities: the whole scan, past the word (whose bounds and NaN are
    /// [`the_avx2_word_is_the_plain_word`]'s).
    #[test]
    fn the_vector_scan_gives_the_plain_scans_bits(
        pieces in proptest::collection::vec((0u8..6, proptest::prelude::any::<u64>()), 1..120),
    ) {
        let tol = unit_tolerance(DeclType::Float16_4);
        let mut data = Vec::new();
        for (kind, r) in pieces {
            let len = 1.0 - 2.0 * tol + 4.0 * tol * ((r & 0xFFFF) as f32 / 65535.0);
            let third = (len * len / 3.0).sqrt();
            let h = |x: f32| half::f16::from_f32(x).to_bits();
            let halves: [u16; 4] = match kind {
                0 => [h(third), h(-third), h(third), 0],
                1 => [h(len), 0, 0, (r >> 16) as u16],
                2 => [h(1.0 - tol), h(0.0), h(-0.0), h(1.0 + tol)],
                3 => [0x7C00, 0x7E00, 0xFC00, (r >> 16) as u16],
                4 => [(r >> 16) as u16, (r >> 32) as u16, (r >> 48) as u16, r as u16],
                _ => [0, 0, 0, 0],
            };
            data.extend(halves.iter().flat_map(|x| x.to_be_bytes()));
            data.extend(std::iter::repeat_n(0x3C, (r >> 60) as usize % 3));
        }
        for parity in 0..2 {
            if data.len() < 8 + parity {
                continue;
            }
            let built = UnitBitmap::build(&data, DeclType::Float16_4, parity);
            let n = (data.len() - 8 - parity) / 2 + 1;
            let mut plain = vec![0u64; n.div_ceil(64)];
            UnitBitmap::fill_half3_plain(&data, parity, n, tol, &mut plain);
            let want: Vec<usize> = (0..n).filter(|&k| plain[k / 64] >> (k % 64) & 1 == 1).map(|k| 2 * k + parity).collect();
            let mut got: Vec<usize> = built.iter_rev().collect();
            got.reverse();
            proptest::prop_assert_eq!(got, want);
        }
    }
}

mod every_type_bitmap {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Any bytes of any length (empty, within one word's window, across several and a
        /// short last one), with unit elements of six types planted at any offsets of
        /// either parity: for every type and parity, the bitmap (each type's own
        /// windowed loop, and the last word's offsets one by one) is the reader at every
        /// offset.
        #[test]
        fn the_bitmap_is_the_reader_for_every_type(
            mut data in proptest::collection::vec(any::<u8>(), 0..700),
            plants in proptest::collection::vec((0usize..700, 0usize..6), 0..20),
        ) {
            let units: [Vec<u8>; 6] = [
                [1.0f32, 0.0, 0.0].iter().flat_map(|c| c.to_be_bytes()).collect(),
                0x0000_01FFu32.to_be_bytes().to_vec(),
                [0x7FFFu16, 0, 0, 0].iter().flat_map(|c| c.to_be_bytes()).collect(),
                vec![255, 0, 0, 0],
                [0x7FFFu16, 0].iter().flat_map(|c| c.to_be_bytes()).collect(),
                0x0000_0001u32.to_be_bytes().to_vec(),
            ];
            for (at, u) in plants {
                let unit = &units[u];
                if at + unit.len() <= data.len() {
                    data[at..at + unit.len()].copy_from_slice(unit);
                }
            }
            for ty in DeclType::ALL {
                let tol = unit_tolerance(ty);
                for parity in 0..2 {
                    let bm = UnitBitmap::build(&data, ty, parity);
                    for q in 0..data.len() + 2 {
                        let want = q % 2 == parity
                            && data.get(q..q + ty.size()).is_some_and(|b| is_unit_normal(ty, b, tol));
                        prop_assert_eq!(bm.get(q), want, "{:?} parity {} offset {}", ty, parity, q);
                    }
                }
            }
        }
    }
}
