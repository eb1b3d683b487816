//! What the file plans are drawn from: the per-file name counters, mesh parts of a
//! target size, index splits, vertex formats (rich and opaque), texture sizes, families
//! and a model's texture set.

use crate::math::Math as _;
use std::collections::HashSet;

use crate::geom::{PartPlan, ShapeKind};
use crate::rng::Gen;
use crate::spec::Category;
use crate::texture::{name_hash, TexFormat, TexPlan};
use crate::vformat::{usage, ElemSpec, EncType, VertexFormat};

/// Unique (V, I) bookkeeping of one container.
#[derive(Default)]
pub(super) struct Counts {
    pub(super) used: HashSet<(u32, u32)>,
    pub(super) names: HashSet<String>,
}

impl Counts {
    pub(super) fn free(&self, parts: &[PartPlan]) -> bool {
        let v: u32 = parts.iter().map(PartPlan::vertex_count).sum();
        let i: u32 = parts.iter().map(PartPlan::index_count).sum();
        v <= 65535 && !self.used.contains(&(v, i))
    }
    pub(super) fn take(&mut self, parts: &[PartPlan]) {
        let v: u32 = parts.iter().map(PartPlan::vertex_count).sum();
        let i: u32 = parts.iter().map(PartPlan::index_count).sum();
        self.used.insert((v, i));
    }
    pub(super) fn name(&mut self, want: String, gen: &mut Gen) -> String {
        let mut n = want;
        while self.names.contains(&n) {
            n = format!("{n}_{}", gen.range(0, 9));
        }
        self.names.insert(n.clone());
        n
    }
}

pub(super) fn log_size(gen: &mut Gen, lo: f32, hi: f32) -> f32 {
    (lo.m_ln() + (hi.m_ln() - lo.m_ln()) * gen.unit()).m_exp()
}

/// Grid resolution for about `target` vertices of `kind`.
pub(super) fn part_for(kind: ShapeKind, target: u32, size: f32, gen: &mut Gen) -> PartPlan {
    let t = target.max(4) as f32;
    let (nu, nv) = match kind {
        ShapeKind::Quad | ShapeKind::Box8 | ShapeKind::Box24 => (1, 1),
        ShapeKind::Prism => (gen.range(3, 12), 1),
        _ => {
            let aspect = gen.f32_in(0.5, 2.5);
            let nu = ((t * aspect).sqrt().round() as u32).clamp(3, 400);
            (nu, ((t / nu as f32).round() as u32).max(2))
        }
    };
    PartPlan { kind, nu, nv, size }.normalized()
}

pub(super) const SMOOTH: [ShapeKind; 6] = [
    ShapeKind::Hull,
    ShapeKind::Capsule,
    ShapeKind::Torus,
    ShapeKind::Tube,
    ShapeKind::Plate,
    ShapeKind::CappedCylinder,
];

pub(super) fn smooth_kind(gen: &mut Gen) -> ShapeKind {
    SMOOTH[gen.weighted(&[24, 18, 12, 14, 12, 20])]
}

/// A single- or multi-part geometry with unique counts. `parts` parts of about
/// `target / parts` vertices each.
pub(super) fn unique_parts(
    counts: &mut Counts,
    gen: &mut Gen,
    nparts: usize,
    v: (u32, u32),
    size: (f32, f32),
    kinds: &dyn Fn(&mut Gen, usize) -> ShapeKind,
) -> Vec<PartPlan> {
    for attempt in 0..200 {
        let target = gen.log_range(v.0, v.1) / nparts as u32;
        let s = log_size(gen, size.0, size.1);
        let parts: Vec<PartPlan> = (0..nparts)
            .map(|k| {
                let kind = kinds(gen, k);
                let sz = if k == 0 { s } else { s * gen.f32_in(0.2, 0.6) };
                let mut p = part_for(kind, target.max(v.0 / nparts as u32).max(8), sz, gen);
                p.nv += attempt / 50;
                p
            })
            .collect();
        if counts.free(&parts) {
            counts.take(&parts);
            return parts;
        }
    }
    // Unreachable in practice: grow a plate until free.
    let mut p = PartPlan {
        kind: ShapeKind::Plate,
        nu: 7,
        nv: 7,
        size: size.0,
    };
    while !counts.free(&[p]) {
        p.nv += 1;
    }
    counts.take(&[p]);
    vec![p]
}

/// Split `index_count` into `k` positive multiples of 3 (k ≤ triangles).
pub(super) fn split_indices(index_count: u32, k: usize, gen: &mut Gen) -> Vec<u32> {
    let tris = index_count / 3;
    let k = (k as u32).clamp(1, tris.max(1));
    let mut cuts: Vec<u32> = Vec::new();
    while (cuts.len() as u32) < k - 1 {
        let c = gen.range(1, tris - 1);
        if !cuts.contains(&c) {
            cuts.push(c);
        }
    }
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut prev = 0;
    for c in cuts.into_iter().chain(std::iter::once(tris)) {
        out.push(3 * (c - prev));
        prev = c;
    }
    out
}

pub(super) fn elem(stream: u16, offset: u16, ty: EncType, usage: u8, usage_index: u8) -> ElemSpec {
    ElemSpec {
        stream,
        offset,
        ty,
        usage,
        usage_index,
    }
}

/// A richer single-stream body declaration: elements at shuffled offsets with junk gaps,
/// listed in an independent random order; stride ≥ 28.
pub fn rich_format(gen: &mut Gen) -> VertexFormat {
    let mut els: Vec<(EncType, u8, u8)> = vec![(EncType::Float3, usage::POSITION, 0)];
    let normal = [EncType::Float3, EncType::Dec3N, EncType::Float16_4][gen.range_usize(0, 2)];
    els.push((normal, usage::NORMAL, 0));
    if gen.chance(0.5) {
        els.push((EncType::D3dColor, usage::COLOR, 0));
    }
    let uvt = |g: &mut Gen| {
        if g.chance(0.6) {
            EncType::Float16_2
        } else {
            EncType::Float2
        }
    };
    let t0 = uvt(gen);
    els.push((t0, usage::TEXCOORD, 0));
    if gen.chance(0.4) {
        let t1 = uvt(gen);
        els.push((t1, usage::TEXCOORD, 1));
    }
    if gen.chance(0.45) {
        let t = if gen.chance(0.5) {
            EncType::Float16_4
        } else {
            EncType::Dec3N
        };
        els.push((t, usage::TANGENT, 0));
    }
    if gen.chance(0.15) {
        els.push((EncType::Dec3N, usage::BINORMAL, 0));
    }
    gen.shuffle(&mut els);
    let mut off = 0u16;
    let mut placed = Vec::new();
    for (k, (ty, u, ui)) in els.iter().enumerate() {
        if k > 0 && gen.chance(0.25) {
            off += 4 * gen.range(1, 2) as u16;
        }
        placed.push(elem(0, off, *ty, *u, *ui));
        off += ty.size() as u16;
    }
    // Pad the stride up to at least 28 by moving the last element.
    if let Some(last) = placed.last_mut() {
        let end = last.offset as usize + last.ty.size();
        if end < 28 {
            last.offset += (28 - end) as u16;
        }
    }
    gen.shuffle(&mut placed);
    VertexFormat { elements: placed }
}

pub(super) fn opaque_format(cat: Category, gen: &mut Gen) -> VertexFormat {
    let mut e = Vec::new();
    match cat {
        Category::OpaqueMultistream => {
            e.push(elem(0, 0, EncType::Float3, usage::POSITION, 0));
            let n = if gen.chance(0.5) {
                EncType::Float16_4
            } else {
                EncType::Dec3N
            };
            let n_stream = if gen.chance(0.3) { 0 } else { 1 };
            e.push(elem(n_stream, if n_stream == 0 { 12 } else { 0 }, n, usage::NORMAL, 0));
            let uv_off = if n_stream == 1 { n.size() as u16 } else { 0 };
            e.push(elem(1, uv_off, EncType::Float16_2, usage::TEXCOORD, 0));
            if gen.chance(0.3) {
                e.push(elem(2, 0, EncType::D3dColor, usage::COLOR, 0));
            }
        }
        Category::OpaqueQuantized | Category::StageQuantized => {
            e.push(elem(0, 0, EncType::Short4N, usage::POSITION, 0));
            e.push(elem(0, 8, EncType::Float16_4, usage::NORMAL, 0));
            if gen.chance(0.6) {
                e.push(elem(0, 16, EncType::Float16_2, usage::TEXCOORD, 0));
            }
        }
        _ => {
            e.push(elem(0, 0, EncType::Float3, usage::POSITION, 0));
            e.push(elem(0, 12, EncType::Float16_2, usage::TEXCOORD, 0));
            if gen.chance(0.4) {
                e.push(elem(0, 16, EncType::D3dColor, usage::COLOR, 0));
            }
        }
    }
    if gen.chance(0.3) {
        gen.shuffle(&mut e);
    }
    VertexFormat { elements: e }
}

pub(super) fn tex_size(gen: &mut Gen, range: (u32, u32)) -> (u32, u32) {
    let w = 1u32 << gen.range(range.0, range.1);
    let h = if w > 64 && gen.chance(0.2) { w / 2 } else { w };
    (w, h)
}

/// A texture's format family, decided by the plan's random draws (the same draws, in
/// the same order, as when each family was one format: the geometry does not move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TexFamily {
    /// Colour with alpha (`_col` only): DXT4_5 or DXT2_3.
    Alpha,
    /// Uncompressed (≤ 128 px): 8_8_8_8 or 5_6_5.
    Raw,
    /// 8-byte blocks (and DXN for `_spc`), by map kind.
    Block,
}

impl TexFamily {
    /// The format the previous generator used for the whole family: its linear size is
    /// what the stage texture budget counts, so the budget loop draws as before.
    pub(super) fn nominal(self) -> TexFormat {
        match self {
            TexFamily::Alpha => TexFormat::Dxt5,
            TexFamily::Raw => TexFormat::Argb8,
            TexFamily::Block => TexFormat::Dxt1,
        }
    }

    /// The concrete format of the texture `name` (suffix `_col`/`_gls`/`_spc`/`_lum`),
    /// from a stable hash of the name: colour maps DXT1 (alpha: DXT4_5 / DXT2_3), gloss
    /// DXT5A / DXT1, specular DXT1 / CTX1 / DXN, glow DXT1 / DXT5A; small uncompressed
    /// textures 8_8_8_8 / 5_6_5.
    pub(super) fn pick(self, name: &str) -> TexFormat {
        let h = name_hash(name);
        let choose = |options: &[TexFormat]| options[(h % options.len() as u64) as usize];
        match self {
            TexFamily::Alpha => choose(&[TexFormat::Dxt5, TexFormat::Dxt3]),
            TexFamily::Raw => choose(&[TexFormat::Argb8, TexFormat::Rgb565]),
            TexFamily::Block => match name.rsplit('_').next() {
                Some("gls") => choose(&[TexFormat::Dxt5a, TexFormat::Dxt5a, TexFormat::Dxt1]),
                Some("spc") => choose(&[TexFormat::Dxt1, TexFormat::Ctx1, TexFormat::Dxn]),
                Some("lum") => choose(&[TexFormat::Dxt1, TexFormat::Dxt5a]),
                _ => TexFormat::Dxt1,
            },
        }
    }
}

/// A planned texture of `family`: concrete format, tiling and layout shape from its name
/// ([`TexPlan::on_disc`]).
pub(super) fn tex_plan(name: String, family: TexFamily, width: u32, height: u32) -> TexPlan {
    let format = family.pick(&name);
    TexPlan::on_disc(name, format, width, height)
}

pub(super) fn model_textures(base: &str, suffixes: &[&str], range: (u32, u32), gen: &mut Gen) -> Vec<TexPlan> {
    suffixes
        .iter()
        .map(|s| {
            let (width, height) = tex_size(gen, range);
            let family = if *s == "_col" && gen.chance(0.4) {
                TexFamily::Alpha
            } else if width <= 128 && gen.chance(0.08) {
                TexFamily::Raw
            } else {
                TexFamily::Block
            };
            tex_plan(format!("{base}{s}"), family, width, height)
        })
        .collect()
}
