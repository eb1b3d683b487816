//! Imperfection families of the realistic synthetic disc (`synth --realism`, issue #14).
//!
//! The perfect disc has regularities FORMAT.md does not promise: every normal is unit, no
//! triangle is degenerate or flipped, every vertex is referenced, every block's owner is
//! decodable, no filler word looks like a sub-mesh record, records come in index order and
//! bodies keep their sub-meshes in one block. With `realism` on, a modest seeded share of
//! the resources breaks exactly one of them (its `family`, recorded in `truth.json`):
//!
//! - `imperfect_normals`: 1–3 vertices of a block get a zero normal or a normal of length
//!   in [0.95, 0.98] ∪ [1.02, 1.05] (direction kept); in ~30 % one of them is vertex 0;
//! - `degenerate_share`: 1–4 % of the triangles get a repeated index (`aab`, `abb`, `aba`
//!   or `aaa`); in ~20 % the first triangle is one of them;
//! - `flipped_share`: 1–7 % of the triangles with two indices swapped;
//! - `unreferenced_share`: 1–6 % extra vertices (near the mesh, unit normals) inserted at
//!   random places of the vertex buffer, referenced by no index (counted in V);
//! - `owner_trap_owner` / `owner_trap_sibling` / `owner_trap_damaged`: an undecodable owner
//!   A (multi-stream with stream 0 exactly `POSITION@0 FLOAT3, NORMAL@12 FLOAT16_4`, a
//!   quantized stride-20 position, or a documented block failing a hard gate) next to a
//!   documented stride-20 sibling B with the same (or, honestly constructed, a smaller)
//!   vertex count and fewer indices; in ~1/3 of the pairs B's own index buffer is damaged
//!   (B then must be rejected: A's bytes are not B's);
//! - `record_filler`: one or two record-shaped tuples before and/or after the real records;
//! - `record_order`: the records of a shared index buffer written in another order;
//! - `per_record_blocks`: a body with several records stored as one block per record,
//!   scattered.
//!
//! Every draw comes from streams of their own (`PURPOSE_REALISM_*`), so the perfect disc
//! (`realism == false`) is byte-identical to the one before the families existed.
//!
//! Files: `edit` (what the builder does to a file of each family); this file holds the
//! families' plan-time choices (which resources, the trap pairs). The [`Family`] and
//! [`TrapKind`] types are plan data and live in [`crate::spec`] (re-exported here).

use crate::math::Math as _;
use std::collections::HashSet;

use crate::geom::{PartPlan, ShapeKind};
use crate::rng::{derive_seed, Gen};
use crate::spec::{Category, FileKind, FileSpec, RecordLayout, ResourcePlan, Scale, SynthOptions};
use crate::vformat::{usage, ElemSpec, EncType, VertexFormat};

mod edit;

pub use crate::spec::{Family, TrapKind, FAMILY_NAMES};
pub use edit::{damage_indices, edit_normals, edit_parts, first_triangle_real, insert_record_filler, permute_records};

/// Purpose of the plan-level realism stream (families, trap pairs).
pub const PURPOSE_REALISM_PLAN: u64 = 0x5EA1_0001;
/// Purpose of the byte-level realism stream (which triangles, vertices, tuples).
pub const PURPOSE_REALISM_BUILD: u64 = 0x5EA1_0002;

/// Share of the eligible resources that get each family.
const SHARE: f64 = 0.06;

fn tris(r: &ResourcePlan) -> u32 {
    r.parts.iter().map(|p| p.index_count() / 3).min().unwrap_or(0)
}

fn normal_ok(f: &VertexFormat) -> bool {
    f.find(usage::NORMAL, 0)
        .is_some_and(|e| e.stream == 0 && matches!(e.ty, EncType::Float16_4 | EncType::Float3 | EncType::Dec3N))
}

/// Families `r` may get (before the draw), with the per-family share.
fn eligible(r: &ResourcePlan) -> Vec<(Family, f64)> {
    let mut out = Vec::new();
    if !r.category.expected_decoded() {
        return out;
    }
    if normal_ok(&r.format) {
        out.push((Family::ImperfectNormals, SHARE));
    }
    let t = tris(r);
    if t >= 25 {
        out.push((Family::DegenerateShare, SHARE));
    }
    if t >= 15 {
        out.push((Family::FlippedShare, SHARE));
    }
    if r.records != RecordLayout::SeparateBlocks && r.parts.iter().all(|p| p.vertex_count() >= 20) {
        out.push((Family::UnreferencedShare { extra: 0 }, SHARE));
    }
    out.push((Family::RecordFiller, SHARE));
    let shared_records = match &r.records {
        RecordLayout::PerPart => r.parts.len() >= 2,
        RecordLayout::Split(v) => v.len() >= 2,
        RecordLayout::SeparateBlocks => false,
    };
    if shared_records {
        out.push((Family::RecordOrder, 2.0 * SHARE));
    }
    if r.category == Category::Body && r.records == RecordLayout::PerPart && r.parts.len() >= 2 {
        out.push((Family::PerRecordBlocks, 2.0 * SHARE));
    }
    out
}

fn counts_of(r: &ResourcePlan) -> (u32, u32) {
    (r.vertex_count(), r.index_count())
}

/// Assign families to the resources of `spec` and add its owner-trap pairs (plan level).
pub fn apply_plan(spec: &mut FileSpec, opts: &SynthOptions) {
    let mut gen = Gen::new(derive_seed(opts.seed, spec.index as u64, PURPOSE_REALISM_PLAN));
    let twins: HashSet<usize> = spec
        .resources
        .iter()
        .enumerate()
        .filter_map(|(k, r)| r.duplicate_of.map(|o| [k, o]))
        .flatten()
        .collect();
    let mut used: HashSet<(u32, u32)> = spec.resources.iter().map(counts_of).collect();
    for k in 0..spec.resources.len() {
        if twins.contains(&k) {
            continue;
        }
        let mut options = eligible(&spec.resources[k]);
        gen.shuffle(&mut options);
        let Some(&(fam, _)) = options.iter().find(|(_, p)| gen.chance(*p)) else {
            continue;
        };
        let r = &mut spec.resources[k];
        match fam {
            Family::UnreferencedShare { .. } => {
                let v = r.vertex_count();
                let frac = gen.f32_in(0.01, 0.06);
                let extra = ((frac * v as f32).round() as u32).clamp(1, (v * 6 / 100).max(1));
                let new = (v + extra, r.index_count());
                if v + extra > 65535 || used.contains(&new) {
                    continue;
                }
                used.insert(new);
                r.family = Some(Family::UnreferencedShare { extra });
            }
            Family::PerRecordBlocks => {
                r.records = RecordLayout::SeparateBlocks;
                r.family = Some(fam);
            }
            _ => r.family = Some(fam),
        }
    }
    let pairs = match spec.kind {
        FileKind::Stage => {
            let n = spec.resources.len() as f32;
            (n * 0.03 + gen.unit()).floor() as usize
        }
        FileKind::Model => match spec.category {
            Category::OpaqueMultistream | Category::OpaqueQuantized | Category::OpaqueNoNormal => {
                usize::from(gen.chance(0.35))
            }
            _ => 0,
        },
    };
    for p in 0..pairs {
        add_trap_pair(spec, p, &mut used, &mut gen);
    }
}

fn log_size(gen: &mut Gen, lo: f32, hi: f32) -> f32 {
    (lo.m_ln() + (hi.m_ln() - lo.m_ln()) * gen.unit()).m_exp()
}

fn elem(stream: u16, offset: u16, ty: EncType, usage: u8) -> ElemSpec {
    ElemSpec {
        stream,
        offset,
        ty,
        usage,
        usage_index: 0,
    }
}

/// The owner's declaration for `kind` (stream 0 always has stride 20).
fn trap_format(kind: TrapKind, gen: &mut Gen) -> VertexFormat {
    let mut e = Vec::new();
    match kind {
        TrapKind::MultiStream => {
            e.push(elem(0, 0, EncType::Float3, usage::POSITION));
            e.push(elem(0, 12, EncType::Float16_4, usage::NORMAL));
            match gen.range(0, 2) {
                0 => e.push(elem(1, 0, EncType::Float16_2, usage::TEXCOORD)),
                1 => {
                    e.push(elem(1, 0, EncType::Float16_2, usage::TEXCOORD));
                    e.push(elem(1, 4, EncType::D3dColor, usage::COLOR));
                }
                _ => e.push(elem(1, 0, EncType::D3dColor, usage::COLOR)),
            }
        }
        TrapKind::Quantized => {
            e.push(elem(0, 12, EncType::Float16_4, usage::NORMAL));
            if gen.chance(0.5) {
                e.push(elem(0, 4, EncType::Short4N, usage::POSITION));
            } else {
                e.push(elem(0, 0, EncType::Short4N, usage::POSITION));
                if gen.chance(0.6) {
                    e.push(elem(0, 8, EncType::Float16_2, usage::TEXCOORD));
                }
            }
        }
        TrapKind::Degenerate | TrapKind::HugeCoordinate => return VertexFormat::documented(false),
    }
    gen.shuffle(&mut e);
    VertexFormat { elements: e }
}

/// Add one owner-trap pair (A, then B) at the end of `spec.resources`.
fn add_trap_pair(spec: &mut FileSpec, p: usize, used: &mut HashSet<(u32, u32)>, gen: &mut Gen) {
    let stage = spec.kind == FileKind::Stage;
    let vrange = match (spec.scale, stage) {
        (Scale::Demo, true) => (20u32, 1500u32),
        (Scale::Demo, false) => (60, 600),
        (Scale::Full, true) => (90, 12000),
        (Scale::Full, false) => (400, 6000),
    };
    let kind = [
        TrapKind::MultiStream,
        TrapKind::Quantized,
        TrapKind::Degenerate,
        TrapKind::HugeCoordinate,
    ][gen.weighted(&[35, 35, 15, 15])];
    for _ in 0..100 {
        let pair = pair_shapes(kind, vrange, gen);
        let (a, b) = (pair.a, pair.b);
        let (ca, cb) = ((a.vertex_count(), a.index_count()), (b.vertex_count(), b.index_count()));
        if ca.0 > 65535
            || cb.0 > ca.0
            || cb.1 >= ca.1
            || (pair.tail_below.is_none() && cb.0 != ca.0)
            || used.contains(&ca)
            || used.contains(&cb)
        {
            continue;
        }
        used.insert(ca);
        used.insert(cb);
        push_pair(spec, p, &pair, gen);
        return;
    }
}

/// One drawn owner-trap pair: the owner A's undecodable `kind`, A's and the sibling B's
/// shapes, and (a smaller B) the vertex count A's tail must stay below.
struct TrapPair {
    kind: TrapKind,
    a: PartPlan,
    b: PartPlan,
    tail_below: Option<u32>,
}

/// Draw A (a torus or tube of about `vrange` vertices) and B: the same vertex count in
/// another shape or factorisation, or (some declaration traps) a smaller plate on A's
/// first rows.
fn pair_shapes(kind: TrapKind, vrange: (u32, u32), gen: &mut Gen) -> TrapPair {
    let v = gen.log_range(vrange.0, vrange.1);
    let aspect = gen.f32_in(0.5, 2.5);
    let nu = ((v as f32 * aspect).sqrt().round() as u32).clamp(3, 200);
    let nv = (v / nu).max(3);
    let a_kind = if gen.chance(0.7) {
        ShapeKind::Torus
    } else {
        ShapeKind::Tube
    };
    let size_a = log_size(gen, 1.0, 60.0);
    let size_b = log_size(gen, 1.0, 60.0);
    let a = PartPlan {
        kind: a_kind,
        nu,
        nv,
        size: size_a,
    }
    .normalized();
    let decl_trap = matches!(kind, TrapKind::MultiStream | TrapKind::Quantized);
    let smaller = decl_trap && a_kind == ShapeKind::Torus && a.nv >= 3 && gen.chance(0.3);
    let (b, tail_below) = if smaller {
        let k = gen.range(2, a.nv - 1);
        let b = PartPlan {
            kind: ShapeKind::Plate,
            nu: a.nu,
            nv: k,
            size: size_b,
        }
        .normalized();
        (b, Some(b.vertex_count()))
    } else {
        let options: &[(ShapeKind, bool)] = if a_kind == ShapeKind::Torus {
            &[
                (ShapeKind::Tube, false),
                (ShapeKind::Tube, true),
                (ShapeKind::Plate, false),
            ]
        } else {
            &[(ShapeKind::Plate, false), (ShapeKind::Plate, true)]
        };
        let &(bk, swap) = gen.pick(options).unwrap_or(&(ShapeKind::Plate, false));
        let (bu, bv) = if swap { (a.nv, a.nu) } else { (a.nu, a.nv) };
        let b = PartPlan {
            kind: bk,
            nu: bu,
            nv: bv,
            size: size_b,
        }
        .normalized();
        (b, None)
    };
    TrapPair { kind, a, b, tail_below }
}

/// Push A and B (categories, fresh names, materials, A's trap format, whether B sits
/// right after A and whether B's indices are damaged) as the file's `p`-th pair.
fn push_pair(spec: &mut FileSpec, p: usize, pair: &TrapPair, gen: &mut Gen) {
    let stage = spec.kind == FileKind::Stage;
    let TrapPair { kind, a, b, tail_below } = *pair;
    let cat_a = match (kind, stage) {
        (TrapKind::MultiStream, _) => Category::OpaqueMultistream,
        (TrapKind::Quantized, true) => Category::StageQuantized,
        (TrapKind::Quantized, false) => Category::OpaqueQuantized,
        (_, true) => Category::Stage,
        (_, false) => Category::Body,
    };
    let cat_b = if stage { Category::Stage } else { Category::Body };
    let ntex = spec.textures.len();
    let materials = |gen: &mut Gen| {
        if stage {
            vec![gen.range_usize(0, ntex.saturating_sub(1))]
        } else {
            (0..ntex).collect::<Vec<usize>>()
        }
    };
    let base = spec
        .rel_path
        .rsplit('/')
        .next()
        .unwrap_or("x")
        .trim_end_matches(".xpr")
        .to_string();
    let names: HashSet<String> = spec.resources.iter().map(|r| r.name.clone()).collect();
    let fresh = |want: String, gen: &mut Gen| {
        let mut n = want;
        while names.contains(&n) {
            n = format!("{n}_{}", gen.range(0, 9));
        }
        n
    };
    let (name_a, name_b) = if stage {
        let s = base.trim_start_matches("Stage_S").to_string();
        (
            fresh(format!("obj_s{s}_{:03}", 600 + 2 * p), gen),
            fresh(format!("obj_s{s}_{:03}", 601 + 2 * p), gen),
        )
    } else {
        (
            fresh(format!("{base}_p{}", 2 * p), gen),
            fresh(format!("{base}_p{}", 2 * p + 1), gen),
        )
    };
    let owner = spec.resources.len();
    let mats_a = materials(gen);
    spec.resources.push(ResourcePlan {
        name: name_a,
        category: cat_a,
        parts: vec![a],
        records: RecordLayout::PerPart,
        format: trap_format(kind, gen),
        duplicate_of: None,
        share_block: false,
        materials: mats_a,
        family: Some(Family::OwnerTrapOwner { kind, tail_below }),
    });
    let adjacent = gen.chance(0.4);
    let damaged = gen.chance(1.0 / 3.0);
    let mats_b = materials(gen);
    spec.resources.push(ResourcePlan {
        name: name_b,
        category: cat_b,
        parts: vec![b],
        records: RecordLayout::PerPart,
        format: VertexFormat::documented(false),
        duplicate_of: None,
        share_block: false,
        materials: mats_b,
        family: Some(Family::OwnerTrapSibling {
            owner,
            adjacent,
            damaged,
        }),
    });
}

#[cfg(test)]
mod tests {
    use super::edit::word;
    use super::*;
    use crate::descriptor::{build_descriptor, scan_markers, scan_records, DescInput};
    use crate::geom::build_part;

    #[test]
    fn filler_tuples_sit_outside_the_documented_range() {
        let mut g = Gen::new(5);
        for k in 0..200u32 {
            let (v, i) = (100 + k, 3 * (200 + k));
            let decl = VertexFormat::documented(k % 2 == 0).decl_bytes();
            let inp = DescInput {
                bound: 10.0,
                node_names: vec!["n_root".into()],
                material_names: vec!["n_col".into()],
                vertex_count: v,
                index_count: i,
                vertex_bytes: v * 20,
                decl: decl.clone(),
                records: vec![[v - 10, 0, i - 30, 4], [10, 0, 30, 1 + k % 64]],
            };
            let d = build_descriptor(&inp, &mut g);
            let out = insert_record_filler(&d, decl.len(), &mut g);
            let m = scan_markers(&out, 4);
            assert_eq!(m.len(), 1);
            let m = m[0];
            assert_eq!(word(&out, m - 32), v);
            assert_eq!(&out[m + 8..m + 8 + decl.len()], &decl[..]);
            let recs = scan_records(&out, 4);
            assert!(recs.len() > 2, "{recs:?}");
            // The real records are still there, contiguous in scan order.
            let vals: Vec<[u32; 4]> = recs
                .iter()
                .map(|&o| [word(&out, o), word(&out, o + 4), word(&out, o + 8), word(&out, o + 12)])
                .collect();
            let p = vals.iter().position(|r| *r == [v - 10, 0, i - 30, 4]).unwrap();
            assert_eq!(vals[p + 1], [10, 0, 30, 1 + k % 64]);
        }
    }

    #[test]
    fn owner_tail_fits_the_smaller_sibling() {
        let mut g = Gen::new(11);
        for nu in 3..12u32 {
            for nv in 3..10u32 {
                for k in 2..nv {
                    let a = PartPlan {
                        kind: ShapeKind::Torus,
                        nu,
                        nv,
                        size: 5.0,
                    };
                    let b = PartPlan {
                        kind: ShapeKind::Plate,
                        nu,
                        nv: k,
                        size: 5.0,
                    };
                    let mut geo = vec![build_part(&a, &mut g)];
                    let vb = b.vertex_count();
                    edit_parts(
                        Family::OwnerTrapOwner {
                            kind: TrapKind::MultiStream,
                            tail_below: Some(vb),
                        },
                        &mut geo,
                        &mut g,
                    );
                    let ib = b.index_count() as usize;
                    let idx = &geo[0].indices;
                    assert!(idx[idx.len() - ib..].iter().all(|&i| i < vb), "nu {nu} nv {nv} k {k}");
                    assert!(first_triangle_real(&geo[0]));
                }
            }
        }
    }

    #[test]
    fn shares_stay_inside_the_gate_limits() {
        let mut g = Gen::new(3);
        for s in 0..100 {
            let p = PartPlan {
                kind: ShapeKind::Capsule,
                nu: 3 + s % 20,
                nv: 2 + s / 20,
                size: 4.0,
            };
            let base = build_part(&p, &mut g);
            let t = base.indices.len() / 3;
            if t < 25 {
                continue;
            }
            let mut d = vec![base.clone()];
            edit_parts(Family::DegenerateShare, &mut d, &mut g);
            let deg = d[0]
                .indices
                .chunks_exact(3)
                .filter(|x| x[0] == x[1] || x[1] == x[2] || x[0] == x[2])
                .count();
            assert!(deg >= 1 && deg as f64 <= 0.045 * t as f64, "{deg}/{t}");
            let mut u = vec![base.clone()];
            let extra = (base.positions.len() as u32 * 3 / 100).max(1);
            edit_parts(Family::UnreferencedShare { extra }, &mut u, &mut g);
            assert_eq!(u[0].positions.len(), base.positions.len() + extra as usize);
            assert_eq!(u[0].normals.len(), u[0].positions.len());
            let mut used = vec![false; u[0].positions.len()];
            u[0].indices.iter().for_each(|&i| used[i as usize] = true);
            assert_eq!(used.iter().filter(|&&x| !x).count(), extra as usize);
        }
    }
}
