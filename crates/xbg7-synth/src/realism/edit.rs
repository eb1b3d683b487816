//! The build-time edits of the imperfection families: degenerate and unreferenced
//! vertices, off-unit normals, damaged indices, permuted records and record-like filler.

use crate::descriptor::{scan_markers, scan_records, BuiltDescriptor};
use crate::geom::{is_degenerate, Geometry};
use crate::rng::Gen;
use crate::spec::{Family, TrapKind};

/// Per-part geometry edits of `family` (before the parts are assembled into blocks, so
/// record ranges and vertex counts are computed from the edited geometry).
pub fn edit_parts(family: Family, geoms: &mut [Geometry], gen: &mut Gen) {
    match family {
        Family::DegenerateShare => {
            let frac = gen.f32_in(0.01, 0.04);
            let first = gen.chance(0.2);
            for (j, g) in geoms.iter_mut().enumerate() {
                let t = g.indices.len() / 3;
                let max = (t * 45 / 1000).max(1);
                let n = ((frac * t as f32).round() as usize).clamp(usize::from(j == 0), max);
                degenerate(g, n, first && j == 0, gen);
            }
        }
        Family::FlippedShare => {
            let frac = gen.f32_in(0.01, 0.07);
            for (j, g) in geoms.iter_mut().enumerate() {
                let t = g.indices.len() / 3;
                let max = (t * 7 / 100).max(1);
                let n = ((frac * t as f32).round() as usize).clamp(usize::from(j == 0), max);
                let mut order: Vec<usize> = (0..t).collect();
                gen.shuffle(&mut order);
                for &k in &order[..n.min(t)] {
                    g.indices.swap(3 * k + 1, 3 * k + 2);
                }
            }
        }
        Family::UnreferencedShare { extra } => {
            let weights: Vec<u32> = geoms.iter().map(|g| g.positions.len() as u32).collect();
            let mut per = vec![0usize; geoms.len()];
            for _ in 0..extra {
                per[gen.weighted(&weights)] += 1;
            }
            for (g, n) in geoms.iter_mut().zip(per) {
                unreferenced(g, n, gen);
            }
        }
        Family::OwnerTrapOwner {
            kind: TrapKind::Degenerate,
            ..
        } => {
            for g in geoms.iter_mut() {
                let t = g.indices.len() / 3;
                let n = ((gen.f32_in(0.22, 0.35) * t as f32).round() as usize).clamp(1, t.saturating_sub(1).max(1));
                degenerate(g, n, false, gen);
            }
        }
        Family::OwnerTrapOwner {
            kind: TrapKind::HugeCoordinate,
            ..
        } => {
            for g in geoms.iter_mut() {
                let v = gen.range_usize(0, g.positions.len().saturating_sub(1));
                let c = gen.range_usize(0, 2);
                let big = gen.f32_in(1.5e8, 1.0e9) * if gen.chance(0.5) { -1.0 } else { 1.0 };
                if let Some(p) = g.positions.get_mut(v) {
                    p[c] = big;
                }
            }
        }
        Family::OwnerTrapOwner {
            tail_below: Some(vb), ..
        } => {
            // The triangles that only use vertices below `vb` go last (the grid numbering
            // is kept for this owner), so the sibling-sized window there is valid.
            for g in geoms.iter_mut() {
                let tri: Vec<[u32; 3]> = g.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
                let (low, high): (Vec<[u32; 3]>, Vec<[u32; 3]>) =
                    tri.into_iter().partition(|t| t.iter().all(|&i| i < vb));
                g.indices = high.into_iter().chain(low).flatten().collect();
            }
        }
        _ => {}
    }
}

/// Make `n` triangles degenerate (a repeated index); the first one too when `first`.
fn degenerate(g: &mut Geometry, n: usize, first: bool, gen: &mut Gen) {
    let t = g.indices.len() / 3;
    if t == 0 || n == 0 {
        return;
    }
    let mut order: Vec<usize> = (1..t).collect();
    gen.shuffle(&mut order);
    let mut pick: Vec<usize> = order.into_iter().take(n - usize::from(first)).collect();
    if first {
        pick.push(0);
    }
    for k in pick {
        let (a, b) = (g.indices[3 * k], g.indices[3 * k + 1]);
        // Every place the repeat can take, and (rarely in exporters, not ruled out by
        // the format) one index three times.
        let tri = match gen.range(0, 3) {
            0 => [a, a, b],
            1 => [a, b, b],
            2 => [a, b, a],
            _ => [a, a, a],
        };
        g.indices[3 * k..3 * k + 3].copy_from_slice(&tri);
    }
}

/// Insert `n` unreferenced vertices at random places (copies of random vertices moved a
/// little along their normal: plausible positions, unit normals); indices renumbered.
fn unreferenced(g: &mut Geometry, n: usize, gen: &mut Gen) {
    for _ in 0..n {
        let v = g.positions.len();
        if v == 0 {
            return;
        }
        let src = gen.range_usize(0, v - 1);
        let at = gen.range_usize(0, v);
        let (lo, hi) = bbox(&g.positions);
        let diag = ((0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f32>()).sqrt().max(1e-3);
        let nrm = g.normals.get(src).copied().unwrap_or([0.0, 0.0, 1.0]);
        let d = diag * gen.f32_in(0.005, 0.03);
        let p = g.positions[src];
        g.positions
            .insert(at, [p[0] + nrm[0] * d, p[1] + nrm[1] * d, p[2] + nrm[2] * d]);
        if g.normals.len() == v {
            g.normals.insert(at, nrm);
        }
        if g.tangents.len() == v {
            let t = g.tangents[src];
            g.tangents.insert(at, t);
        }
        if g.uvs.len() == v {
            let uv = g.uvs[src];
            g.uvs.insert(at, uv);
        }
        for i in g.indices.iter_mut() {
            if *i as usize >= at {
                *i += 1;
            }
        }
    }
}

fn bbox(p: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for q in p {
        for (k, &c) in q.iter().enumerate() {
            lo[k] = lo[k].min(c);
            hi[k] = hi[k].max(c);
        }
    }
    (lo, hi)
}

/// `imperfect_normals` on one block's geometry (source normals before encoding, so the
/// truth is what the encoded bytes decode to).
pub fn edit_normals(g: &mut Geometry, gen: &mut Gen) {
    let v = g.normals.len();
    if v == 0 {
        return;
    }
    let n = gen.range_usize(1, 3).min((v / 8).max(1));
    let mut order: Vec<usize> = (1..v).collect();
    gen.shuffle(&mut order);
    let mut pick: Vec<usize> = order.into_iter().take(n).collect();
    if pick.is_empty() {
        pick.push(0);
    } else if gen.chance(0.3) {
        pick[0] = 0;
    }
    for k in pick {
        let s = match gen.range(0, 2) {
            0 => 0.0,
            1 => gen.f32_in(0.95, 0.98),
            _ => gen.f32_in(1.02, 1.05),
        };
        let nn = &mut g.normals[k];
        // Keep a scaled normal representable in [-1, 1] per component (DEC3N clamps).
        let m = nn.iter().fold(0.0f32, |a, c| a.max(c.abs()));
        let s = if s > 1.0 && m * s > 1.0 { 2.0 - s } else { s };
        *nn = [nn[0] * s, nn[1] * s, nn[2] * s];
    }
}

/// Whether the first triangle of `g` is a real one (for the tests).
pub fn first_triangle_real(g: &Geometry) -> bool {
    g.indices.len() >= 3 && !is_degenerate(&g.positions, [g.indices[0], g.indices[1], g.indices[2]])
}

/// Overwrite a damaged sibling's index buffer with values ≥ `v` (its own block can no
/// longer be anchored).
pub fn damage_indices(index_bytes: &mut [u8], v: u32, gen: &mut Gen) {
    for c in index_bytes.chunks_exact_mut(2) {
        let x = gen.range(v.min(65535), 65535) as u16;
        c.copy_from_slice(&x.to_be_bytes());
    }
}

/// A non-identity permutation of `records` (≥ 2 of them).
pub fn permute_records(records: &mut [[u32; 4]], gen: &mut Gen) {
    if records.len() < 2 {
        return;
    }
    let orig = records.to_vec();
    for _ in 0..16 {
        gen.shuffle(records);
        if records != orig.as_slice() {
            return;
        }
    }
    records.rotate_left(1);
}

pub(super) fn word(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4)
        .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
        .unwrap_or(0)
}

/// One record-shaped tuple: `[4, 0, 6, 1]` or a random `[v, 0, i, t]`.
fn record_tuple(gen: &mut Gen) -> [u32; 4] {
    if gen.chance(0.4) {
        [4, 0, 6, 1]
    } else {
        [
            gen.log_range(3, 65535),
            0,
            3 * gen.log_range(1, 20000),
            gen.range(1, 64),
        ]
    }
}

/// `record_filler`: insert one or two record-shaped tuples before the first real record
/// (at the start, or among the filler words between the declaration and the first
/// record) and/or right after the last one (or at the very end). The documented marker
/// stays the only marker, and the real records stay the only run of scanned records
/// that adds up to the marker's index count.
pub fn insert_record_filler(d: &BuiltDescriptor, decl_len: usize, gen: &mut Gen) -> Vec<u8> {
    let first = d.record_offsets.first().copied().unwrap_or(d.bytes.len());
    let last_end = d.record_offsets.last().map(|&o| o + 16).unwrap_or(d.bytes.len());
    let decl_end = d.marker_offset + 8 + decl_len;
    let before_slots: Vec<usize> = std::iter::once(0)
        .chain((decl_end..=first).step_by(4).filter(|o| o % 4 == 0))
        .collect();
    let after_slots = [last_end, d.bytes.len()];
    let (n_before, n_after) = match gen.range(0, 4) {
        0 => (1, 0),
        1 => (0, 1),
        2 => (1, 1),
        3 => (2, 0),
        _ => (0, 2),
    };
    let mut inserts: Vec<usize> = Vec::new();
    for _ in 0..n_before {
        inserts.push(*gen.pick(&before_slots).unwrap_or(&0));
    }
    for _ in 0..n_after {
        inserts.push(*gen.pick(&after_slots).unwrap_or(&d.bytes.len()));
    }
    inserts.sort_unstable();
    let total = word(&d.bytes, d.marker_offset + 4);
    for attempt in 0..33 {
        let tuples: Vec<[u32; 4]> = inserts
            .iter()
            .map(|_| {
                let mut t = record_tuple(gen);
                if attempt == 32 {
                    // More indices than the resource has: no run through it adds up.
                    t[2] = total + 3 * gen.range(1, 1000);
                }
                t
            })
            .collect();
        let out = splice(&d.bytes, &inserts, &tuples);
        if scan_markers(&out, 4).len() == 1 && unique_run(&out, total) {
            return out;
        }
    }
    d.bytes.clone()
}

/// Exactly one contiguous run of scanned records adds up to `total` (the real records):
/// the filler never makes the documented rule ambiguous.
fn unique_run(b: &[u8], total: u32) -> bool {
    let counts: Vec<u64> = scan_records(b, 4).iter().map(|&o| word(b, o + 8) as u64).collect();
    let mut runs = 0;
    for i in 0..counts.len() {
        let mut sum = 0u64;
        for c in &counts[i..] {
            sum += c;
            if sum == total as u64 {
                runs += 1;
            }
            if sum >= total as u64 {
                break;
            }
        }
    }
    runs == 1
}

fn splice(b: &[u8], at: &[usize], tuples: &[[u32; 4]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len() + 16 * at.len());
    let mut prev = 0;
    for (&o, t) in at.iter().zip(tuples) {
        out.extend_from_slice(&b[prev..o]);
        for w in t {
            out.extend_from_slice(&w.to_be_bytes());
        }
        prev = o;
    }
    out.extend_from_slice(&b[prev..]);
    out
}
