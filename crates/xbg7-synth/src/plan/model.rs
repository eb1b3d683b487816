//! One model file's plan: its category's resources (parts, formats, record layout,
//! duplicates, realism families) and textures.

use super::params::{params, Params, PURPOSE_BUILD, PURPOSE_PLAN};
use super::pieces::{model_textures, opaque_format, rich_format, smooth_kind, split_indices, unique_parts, Counts};
use crate::geom::{PartPlan, ShapeKind};
use crate::rng::{derive_seed, Gen};
use crate::spec::{Category, FileKind, FileSpec, RecordLayout, ResourcePlan, SynthOptions};
use crate::texture::TexPlan;
use crate::vformat::VertexFormat;

pub(super) fn plan_model(opts: &SynthOptions, index: u32, file: &str, cat: Category) -> FileSpec {
    let p = params(opts.scale);
    let mut gen = Gen::new(derive_seed(opts.seed, index as u64, PURPOSE_PLAN));
    let mut counts = Counts::default();
    let (resources, textures) = match cat {
        Category::Documented => documented(file, cat, p, &mut counts, &mut gen),
        Category::MultiSubmesh => multi_submesh(file, cat, p, &mut counts, &mut gen),
        Category::Body => body(file, cat, p, &mut counts, &mut gen),
        _ => opaque(file, cat, p, &mut counts, &mut gen),
    };
    FileSpec {
        rel_path: format!("hidden/resource3d/{file}.xpr"),
        index,
        kind: FileKind::Model,
        category: cat,
        seed: derive_seed(opts.seed, index as u64, PURPOSE_BUILD),
        scale: opts.scale,
        resources,
        textures,
        user_resource: gen.chance(0.08),
        streams_apart: false,
    }
}

/// A documented weapon: one single-part resource, three textures.
fn documented(
    file: &str,
    cat: Category,
    p: &Params,
    counts: &mut Counts,
    gen: &mut Gen,
) -> (Vec<ResourcePlan>, Vec<TexPlan>) {
    let parts = unique_parts(counts, gen, 1, p.doc_v, (1.0, 8.0), &|g, _| {
        [
            ShapeKind::Hull,
            ShapeKind::CappedCylinder,
            ShapeKind::Tube,
            ShapeKind::Capsule,
            ShapeKind::Torus,
        ][g.range_usize(0, 4)]
    });
    let textures = model_textures(file, &["_col", "_gls", "_spc"], p.model_tex, gen);
    let resource = ResourcePlan {
        name: file.to_string(),
        category: cat,
        parts,
        records: RecordLayout::PerPart,
        format: VertexFormat::documented(gen.chance(0.6)),
        duplicate_of: None,
        share_block: false,
        materials: vec![0, 1, 2],
        family: None,
    };
    (vec![resource], textures)
}

/// A documented multi-sub-mesh model: 2–4 parts in separate blocks, 3–4 textures.
fn multi_submesh(
    file: &str,
    cat: Category,
    p: &Params,
    counts: &mut Counts,
    gen: &mut Gen,
) -> (Vec<ResourcePlan>, Vec<TexPlan>) {
    let n = gen.range_usize(2, 4);
    let parts = unique_parts(
        counts,
        gen,
        n,
        (p.multi_v.0 * n as u32, p.multi_v.1 * n as u32),
        (2.0, 15.0),
        &|g, _| smooth_kind(g),
    );
    let suffixes: &[&str] = if gen.chance(0.5) {
        &["_col", "_gls", "_spc"]
    } else {
        &["_col", "_gls", "_spc", "_lum"]
    };
    let textures = model_textures(file, suffixes, p.model_tex, gen);
    let resource = ResourcePlan {
        name: file.to_string(),
        category: cat,
        parts,
        records: RecordLayout::SeparateBlocks,
        format: VertexFormat::documented(gen.chance(0.6)),
        duplicate_of: None,
        share_block: false,
        materials: (0..textures.len()).collect(),
        family: None,
    };
    (vec![resource], textures)
}

/// A body and its variants (`_mnv…`, `_turn180`): rich formats, shared or not, parts or split records.
fn body(
    file: &str,
    cat: Category,
    p: &Params,
    counts: &mut Counts,
    gen: &mut Gen,
) -> (Vec<ResourcePlan>, Vec<TexPlan>) {
    let mut resources = Vec::new();
    let base = if file.starts_with("DeltaSaber") {
        "rou_f004".to_string()
    } else {
        file.to_string()
    };
    let n = if file.starts_with("DeltaSaber") {
        5
    } else {
        gen.range_usize(1, 5)
    };
    let variants = ["_mnv01_L", "_mnv01_R", "_mnv02", "_turn180"];
    let textures = model_textures(&base, &["_col", "_spc", "_gls", "_lum"], p.body_tex, gen);
    let shared = gen.chance(0.5).then(|| rich_format(gen));
    for k in 0..n {
        let name = if k == 0 {
            base.clone()
        } else {
            format!("_{base}{}", variants[k - 1])
        };
        let range = if k == 0 { p.body_v } else { p.variant_v };
        let nrec = gen.range_usize(1, 3);
        let compound = gen.chance(0.5);
        let nparts = if compound { nrec } else { 1 };
        let parts = unique_parts(counts, gen, nparts, range, (10.0, 60.0), &|g, j| {
            if j == 0 {
                ShapeKind::Hull
            } else if g.chance(0.5) {
                ShapeKind::Plate
            } else {
                ShapeKind::CappedCylinder
            }
        });
        let records = if compound {
            RecordLayout::PerPart
        } else {
            let i: u32 = parts.iter().map(PartPlan::index_count).sum();
            RecordLayout::Split(split_indices(i, nrec, gen))
        };
        let format = shared.clone().unwrap_or_else(|| rich_format(gen));
        resources.push(ResourcePlan {
            name,
            category: cat,
            parts,
            records,
            format,
            duplicate_of: None,
            share_block: false,
            materials: (0..textures.len()).collect(),
            family: None,
        });
    }
    (resources, textures)
}

/// An opaque model (multi-stream, quantized or without normals): 1–3 resources.
fn opaque(
    file: &str,
    cat: Category,
    p: &Params,
    counts: &mut Counts,
    gen: &mut Gen,
) -> (Vec<ResourcePlan>, Vec<TexPlan>) {
    let mut resources = Vec::new();
    let n = gen.range_usize(1, 3);
    let textures = model_textures(
        file,
        &["_col", "_spc", "_gls", "_lum"][..gen.range_usize(2, 4)],
        p.body_tex,
        gen,
    );
    for k in 0..n {
        let name = match k {
            0 => file.to_string(),
            1 => format!("{file}_l"),
            _ => format!("{file}_d"),
        };
        let nparts = gen.range_usize(1, 2);
        let parts = unique_parts(counts, gen, nparts, p.opaque_v, (5.0, 40.0), &|g, _| smooth_kind(g));
        resources.push(ResourcePlan {
            name,
            category: cat,
            parts,
            records: RecordLayout::PerPart,
            format: opaque_format(cat, gen),
            duplicate_of: None,
            share_block: false,
            materials: (0..textures.len()).collect(),
            family: None,
        });
    }
    (resources, textures)
}
