//! The disc plan: the fixed retail-like file list with its categories and, for every file,
//! all structural random choices — resources (shapes, counts, declarations, record layout,
//! duplicates), textures, materials. Cheap and deterministic from (seed, scale), so counts,
//! categories and sizes can be checked without generating any bytes.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use super::geom::{PartPlan, ShapeKind};
use super::realism::{self, Family};
use super::rng::{derive_seed, Gen};
use super::texture::{TexFormat, TexPlan};
use super::vformat::{usage, ElemSpec, EncType, VertexFormat};

/// Disc size: `demo` (small, fast, for tests) or `full` (retail-sized, ≈ 1 GB).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scale {
    Demo,
    Full,
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scale::Demo => "demo",
            Scale::Full => "full",
        })
    }
}

impl FromStr for Scale {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "demo" => Ok(Scale::Demo),
            "full" => Ok(Scale::Full),
            other => Err(format!("unknown scale {other:?} (expected \"demo\" or \"full\")")),
        }
    }
}

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SynthOptions {
    pub seed: u64,
    pub scale: Scale,
    /// Add the imperfection families of [`super::realism`] (off: the perfect reference
    /// disc, byte-identical to the disc before the families existed).
    pub realism: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    Model,
    Stage,
}

impl FileKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            FileKind::Model => "model",
            FileKind::Stage => "stage",
        }
    }
}

/// Resource (and model-file) categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    Documented,
    MultiSubmesh,
    Body,
    OpaqueMultistream,
    OpaqueQuantized,
    OpaqueNoNormal,
    Stage,
    StageLowpoly,
    StageSkybox,
    StageDuplicate,
    StageQuantized,
    StageNoNormal,
}

impl Category {
    pub const fn as_str(self) -> &'static str {
        match self {
            Category::Documented => "documented",
            Category::MultiSubmesh => "multi_submesh",
            Category::Body => "body",
            Category::OpaqueMultistream => "opaque_multistream",
            Category::OpaqueQuantized => "opaque_quantized",
            Category::OpaqueNoNormal => "opaque_no_normal",
            Category::Stage => "stage",
            Category::StageLowpoly => "stage_lowpoly",
            Category::StageSkybox => "stage_skybox",
            Category::StageDuplicate => "stage_duplicate",
            Category::StageQuantized => "stage_quantized",
            Category::StageNoNormal => "stage_no_normal",
        }
    }

    /// Whether a correct decoder must decode resources of this category.
    pub const fn expected_decoded(self) -> bool {
        matches!(self.expectation(), Expectation::Decoded)
    }

    /// What a correct decoder does with resources of this category. Without a NORMAL
    /// element there is nothing documented to anchor on (FORMAT.md §6): a decoder may find
    /// the block through its index window and positions, or reject it with a reason —
    /// but what it decodes must be the truth.
    pub const fn expectation(self) -> Expectation {
        match self {
            Category::OpaqueMultistream | Category::OpaqueQuantized | Category::StageQuantized => Expectation::Rejected,
            Category::OpaqueNoNormal | Category::StageNoNormal => Expectation::DecodedOrRejected,
            _ => Expectation::Decoded,
        }
    }
}

/// A category's expected outcome (`truth.json`'s `expected`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expectation {
    /// Must decode, bit-identical to the truth.
    Decoded,
    /// Must be rejected with a reason.
    Rejected,
    /// Either decoded bit-identical to the truth, or rejected with a reason.
    DecodedOrRejected,
}

impl Expectation {
    pub const fn as_str(self) -> &'static str {
        match self {
            Expectation::Decoded => "decoded",
            Expectation::Rejected => "rejected",
            Expectation::DecodedOrRejected => "decoded_or_rejected",
        }
    }
}

/// How a resource's sub-mesh records relate to its geometry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecordLayout {
    /// One block; one record per part (the parts' index ranges split the index buffer).
    PerPart,
    /// One block per part (documented multi-sub-mesh models).
    SeparateBlocks,
    /// One part, one block; records split its index buffer into these index counts.
    Split(Vec<u32>),
}

/// One planned XBG7 resource.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourcePlan {
    pub name: String,
    pub category: Category,
    pub parts: Vec<PartPlan>,
    pub records: RecordLayout,
    pub format: VertexFormat,
    /// Plan index of the original (always a lower index) for exact duplicates.
    pub duplicate_of: Option<usize>,
    /// A duplicate shares the original's block instead of holding its own copy.
    pub share_block: bool,
    /// Indices into the file's textures used as material names.
    pub materials: Vec<usize>,
    /// The imperfection family (`realism` discs only).
    pub family: Option<Family>,
}

impl ResourcePlan {
    pub fn vertex_count(&self) -> u32 {
        let extra = match self.family {
            Some(Family::UnreferencedShare { extra }) => extra,
            _ => 0,
        };
        self.parts.iter().map(PartPlan::vertex_count).sum::<u32>() + extra
    }

    /// What a correct decoder does with this resource (its family's override, else its
    /// category's expectation).
    pub fn expectation(&self) -> Expectation {
        match self.family {
            Some(f) => f.expectation(self.category),
            None => self.category.expectation(),
        }
    }

    pub fn index_count(&self) -> u32 {
        self.parts.iter().map(PartPlan::index_count).sum()
    }

    pub fn record_count(&self) -> usize {
        match &self.records {
            RecordLayout::PerPart | RecordLayout::SeparateBlocks => self.parts.len(),
            RecordLayout::Split(v) => v.len(),
        }
    }

    /// Bytes of the resource's geometry blocks (indices + all vertex streams).
    pub fn geometry_bytes(&self) -> u64 {
        let per_vertex: u64 = self
            .format
            .streams()
            .iter()
            .map(|&s| self.format.stride(s) as u64)
            .sum();
        2 * self.index_count() as u64 + per_vertex * self.vertex_count() as u64
    }
}

/// Everything `build_file` needs to produce one container, deterministically.
#[derive(Clone, Debug, PartialEq)]
pub struct FileSpec {
    /// `hidden/resource3d/<name>.xpr`.
    pub rel_path: String,
    /// Position in the disc's file list (seeds derive from it).
    pub index: u32,
    pub kind: FileKind,
    /// File-level category (`Category::Stage` for stage files).
    pub category: Category,
    /// Seed of the byte-level stream (geometry, layout, filler).
    pub seed: u64,
    pub scale: Scale,
    pub resources: Vec<ResourcePlan>,
    pub textures: Vec<TexPlan>,
    /// Add an extra `USER` resource to the directory.
    pub user_resource: bool,
}

impl FileSpec {
    /// Planned file size (header estimate + blocks + 4096-aligned textures).
    pub fn estimated_size(&self) -> u64 {
        let header: u64 = 16
            + self
                .resources
                .iter()
                .map(|r| {
                    16 + 420
                        + 12 * r.format.elements.len() as u64
                        + 40 * r.record_count() as u64
                        + 2 * r.name.len() as u64
                        + 60
                })
                .sum::<u64>()
            + self
                .textures
                .iter()
                .map(|t| 16 + 52 + t.name.len() as u64 + 1)
                .sum::<u64>();
        let blocks: u64 = self
            .resources
            .iter()
            .filter(|r| !(r.duplicate_of.is_some() && r.share_block))
            .map(|r| r.geometry_bytes() + 40 * r.parts.len() as u64)
            .sum();
        let tex: u64 = self
            .textures
            .iter()
            .map(|t| (t.payload_size() as u64).div_ceil(4096) * 4096)
            .sum();
        header.div_ceil(2048) * 2048 + blocks + tex
    }
}

/// Per-scale knobs.
struct Params {
    doc_v: (u32, u32),
    multi_v: (u32, u32),
    body_v: (u32, u32),
    variant_v: (u32, u32),
    opaque_v: (u32, u32),
    stage_v: (u32, u32),
    model_tex: (u32, u32),
    body_tex: (u32, u32),
    stage_tex: (u32, u32),
    s07: u32,
    stage_count: (u32, u32),
    stage_total: (u32, u32),
}

const FULL: Params = Params {
    doc_v: (150, 3000),
    multi_v: (100, 2500),
    body_v: (3000, 12000),
    variant_v: (800, 6000),
    opaque_v: (400, 6000),
    stage_v: (90, 12000),
    model_tex: (8, 10),
    body_tex: (8, 10),
    stage_tex: (6, 10),
    s07: 378,
    stage_count: (100, 450),
    stage_total: (5000, 5700),
};

const DEMO: Params = Params {
    doc_v: (40, 400),
    multi_v: (30, 300),
    body_v: (300, 1500),
    variant_v: (100, 800),
    opaque_v: (60, 600),
    stage_v: (20, 1500),
    model_tex: (6, 6),
    body_tex: (6, 7),
    stage_tex: (6, 7),
    s07: 40,
    stage_count: (5, 40),
    stage_total: (0, u32::MAX),
};

fn params(scale: Scale) -> &'static Params {
    match scale {
        Scale::Demo => &DEMO,
        Scale::Full => &FULL,
    }
}

const PURPOSE_PLAN: u64 = 1;
const PURPOSE_BUILD: u64 = 2;
const PURPOSE_DISC: u64 = 3;

/// The 166 model files (sorted by name) with their categories: 36 documented,
/// 14 multi_submesh, 60 body, 20 + 20 + 16 opaque.
pub fn model_list() -> Vec<(String, Category)> {
    let mut v = Vec::with_capacity(166);
    for f in [1, 2, 3, 5, 6, 7] {
        for k in 0..6 {
            v.push((format!("rou_f{f:03}_wep_{k:02}"), Category::Documented));
        }
    }
    for f in [1, 2, 3, 5, 6, 7, 8] {
        for k in 0..2 {
            v.push((format!("rou_f{f:03}_opt_{k:02}"), Category::MultiSubmesh));
        }
    }
    for s in ["A", "T", "W"] {
        v.push((format!("DeltaSaber_{s}"), Category::Body));
    }
    for f in 10..30 {
        v.push((format!("rou_f{f:03}"), Category::Body));
    }
    for e in 1..=37 {
        v.push((format!("rou_e{e:03}"), Category::Body));
    }
    for e in 1..=20 {
        v.push((format!("rou_e{:03}", 100 + e), Category::OpaqueMultistream));
    }
    for k in 1..=20 {
        v.push((format!("chr_p{k:03}"), Category::OpaqueQuantized));
    }
    for k in 1..=16 {
        v.push((format!("obj_fx{k:03}"), Category::OpaqueNoNormal));
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Resource counts of the 22 stages (S07 and S10 fixed, the others random).
pub fn stage_counts(opts: &SynthOptions) -> Vec<u32> {
    let p = params(opts.scale);
    let mut gen = Gen::new(derive_seed(opts.seed, u64::MAX, PURPOSE_DISC));
    let mut best: Vec<u32> = Vec::new();
    for _ in 0..10_000 {
        let v: Vec<u32> = (1..=22u32)
            .map(|s| match s {
                7 => p.s07,
                10 => 9,
                _ => gen.range(p.stage_count.0, p.stage_count.1),
            })
            .collect();
        let total: u32 = v.iter().sum();
        best = v;
        if (p.stage_total.0..=p.stage_total.1).contains(&total) {
            break;
        }
    }
    best
}

/// The whole disc plan: 166 model files then `Stage_S01` .. `Stage_S22`.
pub fn file_plan(opts: &SynthOptions) -> Vec<FileSpec> {
    let mut out = Vec::with_capacity(188);
    for (i, (name, cat)) in model_list().into_iter().enumerate() {
        out.push(plan_model(opts, i as u32, &name, cat));
    }
    for (s, count) in stage_counts(opts).into_iter().enumerate() {
        let index = (166 + s) as u32;
        out.push(plan_stage(opts, index, s as u32 + 1, count));
    }
    if opts.realism {
        // Its own random stream: the perfect plan above does not move.
        for spec in out.iter_mut() {
            realism::apply_plan(spec, opts);
        }
    }
    out
}

/// Unique (V, I) bookkeeping of one container.
#[derive(Default)]
struct Counts {
    used: HashSet<(u32, u32)>,
    names: HashSet<String>,
}

impl Counts {
    fn free(&self, parts: &[PartPlan]) -> bool {
        let v: u32 = parts.iter().map(PartPlan::vertex_count).sum();
        let i: u32 = parts.iter().map(PartPlan::index_count).sum();
        v <= 65535 && !self.used.contains(&(v, i))
    }
    fn take(&mut self, parts: &[PartPlan]) {
        let v: u32 = parts.iter().map(PartPlan::vertex_count).sum();
        let i: u32 = parts.iter().map(PartPlan::index_count).sum();
        self.used.insert((v, i));
    }
    fn name(&mut self, want: String, gen: &mut Gen) -> String {
        let mut n = want;
        while self.names.contains(&n) {
            n = format!("{n}_{}", gen.range(0, 9));
        }
        self.names.insert(n.clone());
        n
    }
}

fn log_size(gen: &mut Gen, lo: f32, hi: f32) -> f32 {
    (lo.ln() + (hi.ln() - lo.ln()) * gen.unit()).exp()
}

/// Grid resolution for about `target` vertices of `kind`.
fn part_for(kind: ShapeKind, target: u32, size: f32, gen: &mut Gen) -> PartPlan {
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

const SMOOTH: [ShapeKind; 6] = [
    ShapeKind::Hull,
    ShapeKind::Capsule,
    ShapeKind::Torus,
    ShapeKind::Tube,
    ShapeKind::Plate,
    ShapeKind::CappedCylinder,
];

fn smooth_kind(gen: &mut Gen) -> ShapeKind {
    SMOOTH[gen.weighted(&[24, 18, 12, 14, 12, 20])]
}

/// A single- or multi-part geometry with unique counts. `parts` parts of about
/// `target / parts` vertices each.
fn unique_parts(
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
fn split_indices(index_count: u32, k: usize, gen: &mut Gen) -> Vec<u32> {
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

fn elem(stream: u16, offset: u16, ty: EncType, usage: u8, usage_index: u8) -> ElemSpec {
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

fn opaque_format(cat: Category, gen: &mut Gen) -> VertexFormat {
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

fn tex_size(gen: &mut Gen, range: (u32, u32)) -> (u32, u32) {
    let w = 1u32 << gen.range(range.0, range.1);
    let h = if w > 64 && gen.chance(0.2) { w / 2 } else { w };
    (w, h)
}

/// A texture's format family, decided by the plan's random draws (the same draws, in
/// the same order, as when each family was one format: the geometry does not move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TexFamily {
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
    fn nominal(self) -> TexFormat {
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
    fn pick(self, name: &str) -> TexFormat {
        let h = super::texture::name_hash(name);
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
fn tex_plan(name: String, family: TexFamily, width: u32, height: u32) -> TexPlan {
    let format = family.pick(&name);
    TexPlan::on_disc(name, format, width, height)
}

fn model_textures(base: &str, suffixes: &[&str], range: (u32, u32), gen: &mut Gen) -> Vec<TexPlan> {
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

fn plan_model(opts: &SynthOptions, index: u32, file: &str, cat: Category) -> FileSpec {
    let p = params(opts.scale);
    let mut gen = Gen::new(derive_seed(opts.seed, index as u64, PURPOSE_PLAN));
    let mut counts = Counts::default();
    let mut resources = Vec::new();
    let textures;
    match cat {
        Category::Documented => {
            let parts = unique_parts(&mut counts, &mut gen, 1, p.doc_v, (1.0, 8.0), &|g, _| {
                [
                    ShapeKind::Hull,
                    ShapeKind::CappedCylinder,
                    ShapeKind::Tube,
                    ShapeKind::Capsule,
                    ShapeKind::Torus,
                ][g.range_usize(0, 4)]
            });
            textures = model_textures(file, &["_col", "_gls", "_spc"], p.model_tex, &mut gen);
            resources.push(ResourcePlan {
                name: file.to_string(),
                category: cat,
                parts,
                records: RecordLayout::PerPart,
                format: VertexFormat::documented(gen.chance(0.6)),
                duplicate_of: None,
                share_block: false,
                materials: vec![0, 1, 2],
                family: None,
            });
        }
        Category::MultiSubmesh => {
            let n = gen.range_usize(2, 4);
            let parts = unique_parts(
                &mut counts,
                &mut gen,
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
            textures = model_textures(file, suffixes, p.model_tex, &mut gen);
            resources.push(ResourcePlan {
                name: file.to_string(),
                category: cat,
                parts,
                records: RecordLayout::SeparateBlocks,
                format: VertexFormat::documented(gen.chance(0.6)),
                duplicate_of: None,
                share_block: false,
                materials: (0..textures.len()).collect(),
                family: None,
            });
        }
        Category::Body => {
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
            textures = model_textures(&base, &["_col", "_spc", "_gls", "_lum"], p.body_tex, &mut gen);
            let shared = gen.chance(0.5).then(|| rich_format(&mut gen));
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
                let parts = unique_parts(&mut counts, &mut gen, nparts, range, (10.0, 60.0), &|g, j| {
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
                    RecordLayout::Split(split_indices(i, nrec, &mut gen))
                };
                let format = shared.clone().unwrap_or_else(|| rich_format(&mut gen));
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
        }
        _ => {
            // Opaque kinds.
            let n = gen.range_usize(1, 3);
            textures = model_textures(
                file,
                &["_col", "_spc", "_gls", "_lum"][..gen.range_usize(2, 4)],
                p.body_tex,
                &mut gen,
            );
            for k in 0..n {
                let name = match k {
                    0 => file.to_string(),
                    1 => format!("{file}_l"),
                    _ => format!("{file}_d"),
                };
                let nparts = gen.range_usize(1, 2);
                let parts = unique_parts(&mut counts, &mut gen, nparts, p.opaque_v, (5.0, 40.0), &|g, _| {
                    smooth_kind(g)
                });
                resources.push(ResourcePlan {
                    name,
                    category: cat,
                    parts,
                    records: RecordLayout::PerPart,
                    format: opaque_format(cat, &mut gen),
                    duplicate_of: None,
                    share_block: false,
                    materials: (0..textures.len()).collect(),
                    family: None,
                });
            }
        }
    }
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
    }
}

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

fn plan_stage(opts: &SynthOptions, index: u32, stage: u32, n: u32) -> FileSpec {
    let p = params(opts.scale);
    let mut gen = Gen::new(derive_seed(opts.seed, index as u64, PURPOSE_PLAN));
    let mut counts = Counts::default();
    let n = n as usize;
    let frac = |g: &mut Gen, f: f64| (n as f64 * f + g.unit() as f64).floor() as usize;
    let n_sky = usize::from(gen.chance(0.35));
    let n_low = frac(&mut gen, 0.09).saturating_sub(n_sky);
    let n_dup = frac(&mut gen, 0.01);
    let n_quant = frac(&mut gen, 0.005);
    let n_nonorm = frac(&mut gen, 0.005);
    let n_special = n_sky + n_low + n_dup + n_quant + n_nonorm;
    let n_regular = n.saturating_sub(n_special).max(1);
    let mut cats: Vec<Category> = Vec::new();
    cats.extend(std::iter::repeat_n(Category::Stage, n_regular));
    cats.extend(std::iter::repeat_n(Category::StageLowpoly, n_low));
    cats.extend(std::iter::repeat_n(Category::StageSkybox, n_sky));
    cats.extend(std::iter::repeat_n(Category::StageQuantized, n_quant));
    cats.extend(std::iter::repeat_n(Category::StageNoNormal, n_nonorm));
    gen.shuffle(&mut cats);
    let mut resources: Vec<ResourcePlan> = Vec::new();
    let mut grid_srcs: Vec<PartPlan> = Vec::new();
    for (k, &cat) in cats.iter().enumerate() {
        let name = stage_name(&mut counts, cat, stage, k, &mut gen);
        let mut records = RecordLayout::PerPart;
        let parts = match cat {
            Category::StageLowpoly => lowpoly_parts(&mut counts, &mut gen),
            Category::StageSkybox => skybox_parts(&mut counts, &mut gen),
            Category::Stage => {
                let sib = if !grid_srcs.is_empty() && gen.chance(0.1) {
                    let src = grid_srcs[gen.range_usize(0, grid_srcs.len() - 1)];
                    sibling_parts(&mut counts, &src, &mut gen)
                } else {
                    None
                };
                match sib {
                    Some(parts) => parts,
                    None => {
                        let multi = gen.chance(0.15);
                        let nrec = if multi { gen.range_usize(2, 4) } else { 1 };
                        let compound = multi && gen.chance(0.5);
                        let nparts = if compound { nrec } else { 1 };
                        let parts = unique_parts(&mut counts, &mut gen, nparts, p.stage_v, (1.0, 60.0), &|g, _| {
                            smooth_kind(g)
                        });
                        if multi && !compound {
                            records = RecordLayout::Split(split_indices(parts[0].index_count(), nrec, &mut gen));
                        }
                        parts
                    }
                }
            }
            _ => unique_parts(&mut counts, &mut gen, 1, p.stage_v, (1.0, 60.0), &|g, _| smooth_kind(g)),
        };
        if parts.len() == 1
            && matches!(parts[0].kind, ShapeKind::Torus | ShapeKind::Tube | ShapeKind::Plate)
            && cat == Category::Stage
        {
            grid_srcs.push(parts[0]);
        }
        let format = match cat {
            Category::StageQuantized | Category::StageNoNormal => opaque_format(cat, &mut gen),
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
    // Exact duplicates of decodable originals.
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
        d.name = counts.name(format!("{}{}", resources[o].name, suffix), &mut gen);
        d.category = Category::StageDuplicate;
        d.duplicate_of = Some(o);
        d.share_block = gen.chance(0.5);
        resources.push(d);
    }
    // Textures: about as many bytes as the geometry.
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
        let (width, height) = tex_size(&mut gen, p.stage_tex);
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_parses_and_prints() {
        assert_eq!("demo".parse::<Scale>(), Ok(Scale::Demo));
        assert_eq!("FULL".parse::<Scale>(), Ok(Scale::Full));
        assert!("huge".parse::<Scale>().is_err());
        assert_eq!(Scale::Full.to_string(), "full");
        assert_eq!(Scale::Demo.to_string(), "demo");
    }

    #[test]
    fn model_list_has_the_retail_category_counts() {
        let l = model_list();
        assert_eq!(l.len(), 166);
        let count = |c| l.iter().filter(|(_, k)| *k == c).count();
        assert_eq!(count(Category::Documented), 36);
        assert_eq!(count(Category::MultiSubmesh), 14);
        assert_eq!(count(Category::Body), 60);
        assert_eq!(
            count(Category::OpaqueMultistream) + count(Category::OpaqueQuantized) + count(Category::OpaqueNoNormal),
            56
        );
        let names: HashSet<&String> = l.iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), 166);
    }

    #[test]
    fn stage_counts_follow_the_retail_shape() {
        let full = stage_counts(&SynthOptions {
            seed: 42,
            scale: Scale::Full,
            realism: false,
        });
        assert_eq!(full.len(), 22);
        assert_eq!(full[6], 378);
        assert_eq!(full[9], 9);
        let total: u32 = full.iter().sum();
        assert!((5000..=5700).contains(&total), "{total}");
        for (i, &c) in full.iter().enumerate() {
            if i != 6 && i != 9 {
                assert!((100..=450).contains(&c));
            }
        }
        let demo = stage_counts(&SynthOptions {
            seed: 42,
            scale: Scale::Demo,
            realism: false,
        });
        assert_eq!((demo[6], demo[9]), (40, 9));
    }

    #[test]
    fn split_indices_covers_the_buffer_in_triangles() {
        let mut g = Gen::new(4);
        for (i, k) in [(36u32, 3usize), (6, 4), (3, 2), (300, 1)] {
            let s = split_indices(i, k, &mut g);
            assert_eq!(s.iter().sum::<u32>(), i);
            assert!(s.iter().all(|&c| c > 0 && c % 3 == 0));
            assert_eq!(s.len(), k.min(i as usize / 3));
        }
    }

    #[test]
    fn rich_formats_are_single_stream_and_wide() {
        let mut g = Gen::new(8);
        for _ in 0..200 {
            let f = rich_format(&mut g);
            assert_eq!(f.streams(), vec![0]);
            assert!(f.stride(0) >= 28);
            assert_eq!(f.find(usage::POSITION, 0).map(|e| e.ty), Some(EncType::Float3));
            assert!(f.find(usage::NORMAL, 0).is_some());
            // Elements never overlap.
            let mut spans: Vec<(u16, u16)> = f
                .elements
                .iter()
                .map(|e| (e.offset, e.offset + e.ty.size() as u16))
                .collect();
            spans.sort_unstable();
            assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0));
        }
    }
}
