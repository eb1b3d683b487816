//! One stage file's plan: its sub-models (skyboxes, low-poly pieces, siblings sharing a
//! vertex count, the category mix), their names and textures.

use std::collections::HashSet;

use super::params::{params, Params, PURPOSE_BUILD, PURPOSE_PLAN};
use super::pieces::{
    log_size, opaque_format, smooth_kind, split_indices, tex_plan, tex_size, unique_parts, Counts, TexFamily,
};
use crate::geom::{PartPlan, ShapeKind};
use crate::rng::{derive_seed, Gen};
use crate::spec::{Category, FileKind, FileSpec, RecordLayout, ResourcePlan, SynthOptions};
use crate::texture::TexPlan;
use crate::vformat::VertexFormat;

/// Low-poly stage geometry: quads, boxes, small plates, prisms (unique counts).
fn lowpoly_parts(counts: &mut Counts, gen: &mut Gen) -> Vec<PartPlan> {
    for _ in 0..100 {
        let size = log_size(gen, 1.0, 60.0);
        let kind = [
            ShapeKind::Quad,
            ShapeKind::Box8,
            ShapeKind::Box24,
            ShapeKind::Plate,
            ShapeKind::Prism,
        ][gen.weighted(&[20, 15, 15, 25, 25])];
        let p = match kind {
            ShapeKind::Plate => PartPlan {
                kind,
                nu: gen.range(2, 6),
                nv: gen.range(2, 6),
                size,
            },
            ShapeKind::Prism => PartPlan {
                kind,
                nu: gen.range(3, 12),
                nv: 1,
                size,
            },
            _ => PartPlan {
                kind,
                nu: 1,
                nv: 1,
                size,
            },
        };
        if counts.free(&[p]) {
            counts.take(&[p]);
            return vec![p];
        }
    }
    let mut p = PartPlan {
        kind: ShapeKind::Plate,
        nu: 2,
        nv: 7,
        size: 4.0,
    };
    while !counts.free(&[p]) {
        p.nv += 1;
    }
    counts.take(&[p]);
    vec![p]
}

fn skybox_parts(counts: &mut Counts, gen: &mut Gen) -> Vec<PartPlan> {
    let mut p = PartPlan {
        kind: ShapeKind::SkyPlane,
        nu: gen.range(2, 4),
        nv: gen.range(2, 4),
        size: 300_000.0,
    };
    while !counts.free(&[p]) {
        p.nv += 1;
    }
    counts.take(&[p]);
    vec![p]
}

/// Same-V sibling of a grid-family part: another family or factorisation of `nu·nv`.
fn sibling_parts(counts: &mut Counts, src: &PartPlan, gen: &mut Gen) -> Option<Vec<PartPlan>> {
    let size = log_size(gen, 1.0, 60.0);
    let (nu, nv) = (src.nu, src.nv);
    let total = nu * nv;
    let mut options: Vec<PartPlan> = Vec::new();
    for kind in [ShapeKind::Torus, ShapeKind::Tube, ShapeKind::Plate] {
        options.push(PartPlan { kind, nu, nv, size });
        options.push(PartPlan {
            kind,
            nu: nv,
            nv: nu,
            size,
        });
    }
    for a in 3..=total.min(400) {
        if total % a == 0 && total / a >= 3 {
            options.push(PartPlan {
                kind: ShapeKind::Tube,
                nu: a,
                nv: total / a,
                size,
            });
        }
    }
    gen.shuffle(&mut options);
    for p in options {
        let p = p.normalized();
        if p.vertex_count() == total && counts.free(&[p]) {
            counts.take(&[p]);
            return Some(vec![p]);
        }
    }
    None
}

fn stage_name(counts: &mut Counts, cat: Category, stage: u32, k: usize, gen: &mut Gen) -> String {
    let want = match cat {
        Category::StageLowpoly => match gen.range(0, 2) {
            0 => format!("col_s{stage:02}_{k:03}"),
            1 => format!("box_s{stage:02}_{k:03}"),
            _ => format!("plane_{k:03}"),
        },
        Category::StageSkybox => format!("sky_s{stage:02}"),
        _ => match gen.weighted(&[40, 15, 30]) {
            0 => format!("e{:03}", gen.range(1, 400)),
            1 => format!("w{:03}", gen.range(1, 400)),
            _ => format!("obj_s{stage:02}_{k:03}"),
        },
    };
    counts.name(want, gen)
}

pub(super) fn plan_stage(opts: &SynthOptions, index: u32, stage: u32, n: u32) -> FileSpec {
    let p = params(opts.scale);
    let mut gen = Gen::new(derive_seed(opts.seed, index as u64, PURPOSE_PLAN));
    let mut counts = Counts::default();
    let (cats, n_dup) = category_mix(n as usize, &mut gen);
    let mut resources = sub_models(&cats, stage, p, &mut counts, &mut gen);
    add_duplicates(&mut resources, n_dup, &mut counts, &mut gen);
    let textures = stage_textures(&resources, p, &mut gen);
    assign_materials(&mut resources, &textures, &mut gen);
    FileSpec {
        rel_path: format!("hidden/resource3d/Stage_S{stage:02}.xpr"),
        index,
        kind: FileKind::Stage,
        category: Category::Stage,
        seed: derive_seed(opts.seed, index as u64, PURPOSE_BUILD),
        scale: opts.scale,
        resources,
        textures,
        user_resource: gen.chance(0.1),
        streams_apart: false,
    }
}

/// The categories of the stage's `n` sub-models in a shuffled order (skyboxes, low-poly,
/// quantized, no-normal and regular ones), and how many exact duplicates to add.
fn category_mix(n: usize, gen: &mut Gen) -> (Vec<Category>, usize) {
    let frac = |g: &mut Gen, f: f64| (n as f64 * f + g.unit() as f64).floor() as usize;
    let n_sky = usize::from(gen.chance(0.35));
    let n_low = frac(gen, 0.09).saturating_sub(n_sky);
    let n_dup = frac(gen, 0.01);
    let n_quant = frac(gen, 0.005);
    let n_nonorm = frac(gen, 0.005);
    let n_special = n_sky + n_low + n_dup + n_quant + n_nonorm;
    let n_regular = n.saturating_sub(n_special).max(1);
    let mut cats: Vec<Category> = Vec::new();
    cats.extend(std::iter::repeat_n(Category::Stage, n_regular));
    cats.extend(std::iter::repeat_n(Category::StageLowpoly, n_low));
    cats.extend(std::iter::repeat_n(Category::StageSkybox, n_sky));
    cats.extend(std::iter::repeat_n(Category::StageQuantized, n_quant));
    cats.extend(std::iter::repeat_n(Category::StageNoNormal, n_nonorm));
    gen.shuffle(&mut cats);
    (cats, n_dup)
}

/// One resource per category: name, parts (regular ones sometimes a same-V sibling of
/// an earlier grid part), record layout and format; materials come later.
fn sub_models(cats: &[Category], stage: u32, p: &Params, counts: &mut Counts, gen: &mut Gen) -> Vec<ResourcePlan> {
    let mut resources: Vec<ResourcePlan> = Vec::new();
    let mut grid_srcs: Vec<PartPlan> = Vec::new();
    for (k, &cat) in cats.iter().enumerate() {
        let name = stage_name(counts, cat, stage, k, gen);
        let mut records = RecordLayout::PerPart;
        let parts = match cat {
            Category::StageLowpoly => lowpoly_parts(counts, gen),
            Category::StageSkybox => skybox_parts(counts, gen),
            Category::Stage => {
                let (parts, r) = regular_parts(&grid_srcs, p, counts, gen);
                records = r;
                parts
            }
            _ => unique_parts(counts, gen, 1, p.stage_v, (1.0, 60.0), &|g, _| smooth_kind(g)),
        };
        if parts.len() == 1
            && matches!(parts[0].kind, ShapeKind::Torus | ShapeKind::Tube | ShapeKind::Plate)
            && cat == Category::Stage
        {
            grid_srcs.push(parts[0]);
        }
        let format = match cat {
            Category::StageQuantized | Category::StageNoNormal => opaque_format(cat, gen),
            _ => VertexFormat::documented(gen.chance(0.25)),
        };
        resources.push(ResourcePlan {
            name,
            category: cat,
            parts,
            records,
            format,
            duplicate_of: None,
            share_block: false,
            materials: Vec::new(),
            family: None,
        });
    }
    resources
}

/// A regular sub-model's parts and record layout: sometimes a same-V sibling of an
/// earlier grid part, else smooth parts (some with several records, split or per part).
fn regular_parts(
    grid_srcs: &[PartPlan],
    p: &Params,
    counts: &mut Counts,
    gen: &mut Gen,
) -> (Vec<PartPlan>, RecordLayout) {
    let mut records = RecordLayout::PerPart;
    let sib = if !grid_srcs.is_empty() && gen.chance(0.1) {
        let src = grid_srcs[gen.range_usize(0, grid_srcs.len() - 1)];
        sibling_parts(counts, &src, gen)
    } else {
        None
    };
    let parts = match sib {
        Some(parts) => parts,
        None => {
            let multi = gen.chance(0.15);
            let nrec = if multi { gen.range_usize(2, 4) } else { 1 };
            let compound = multi && gen.chance(0.5);
            let nparts = if compound { nrec } else { 1 };
            let parts = unique_parts(counts, gen, nparts, p.stage_v, (1.0, 60.0), &|g, _| smooth_kind(g));
            if multi && !compound {
                records = RecordLayout::Split(split_indices(parts[0].index_count(), nrec, gen));
            }
            parts
        }
    };
    (parts, records)
}

/// Exact duplicates of decodable originals (some sharing the original's block).
fn add_duplicates(resources: &mut Vec<ResourcePlan>, n_dup: usize, counts: &mut Counts, gen: &mut Gen) {
    let originals: Vec<usize> = resources
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.category, Category::Stage | Category::StageLowpoly))
        .map(|(i, _)| i)
        .collect();
    for _ in 0..n_dup {
        if originals.is_empty() {
            break;
        }
        let o = originals[gen.range_usize(0, originals.len() - 1)];
        let mut d = resources[o].clone();
        let suffix = *gen.pick(&["_b", "_c", "_2", "_copy"]).unwrap_or(&"_b");
        d.name = counts.name(format!("{}{}", resources[o].name, suffix), gen);
        d.category = Category::StageDuplicate;
        d.duplicate_of = Some(o);
        d.share_block = gen.chance(0.5);
        resources.push(d);
    }
}

/// Textures: about as many bytes as the geometry, named after random sub-models.
fn stage_textures(resources: &[ResourcePlan], p: &Params, gen: &mut Gen) -> Vec<TexPlan> {
    let geometry: u64 = resources
        .iter()
        .filter(|r| !(r.duplicate_of.is_some() && r.share_block))
        .map(|r| r.geometry_bytes())
        .sum();
    let budget = (geometry as f64 * gen.f32_in(0.95, 1.25) as f64) as u64;
    let mut textures: Vec<TexPlan> = Vec::new();
    let mut tex_names: HashSet<String> = HashSet::new();
    let mut spent = 0u64;
    let mut guard = 0;
    while (spent < budget || textures.is_empty()) && guard < 100_000 {
        guard += 1;
        let r = &resources[gen.range_usize(0, resources.len() - 1)];
        let suffix = *gen.pick(&["_col", "_col", "_spc", "_lum", "_gls"]).unwrap_or(&"_col");
        let name = format!("{}{}", r.name, suffix);
        if !tex_names.insert(name.clone()) {
            continue;
        }
        let (width, height) = tex_size(gen, p.stage_tex);
        let family = if width <= 128 && gen.chance(0.05) {
            TexFamily::Raw
        } else if suffix == "_col" && gen.chance(0.4) {
            TexFamily::Alpha
        } else {
            TexFamily::Block
        };
        // The budget counts the family's nominal linear size (not the stored footprint),
        // so the loop makes the same draws whatever the concrete format and tiling.
        spent += (family.nominal().payload_size(width, height) as u64).div_ceil(4096) * 4096;
        textures.push(tex_plan(name, family, width, height));
    }
    textures
}

/// Each sub-model's materials: the textures named after it, else one random texture;
/// duplicates take their original's.
fn assign_materials(resources: &mut [ResourcePlan], textures: &[TexPlan], gen: &mut Gen) {
    for r in resources.iter_mut() {
        let own: Vec<usize> = textures
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                t.name
                    .strip_prefix(&r.name)
                    .is_some_and(|s| s.starts_with("_") && !s[1..].contains('_'))
            })
            .map(|(i, _)| i)
            .collect();
        r.materials = if own.is_empty() {
            vec![gen.range_usize(0, textures.len() - 1)]
        } else {
            own
        };
    }
    for k in 0..resources.len() {
        if let Some(o) = resources[k].duplicate_of {
            resources[k].materials = resources[o].materials.clone();
        }
    }
}
