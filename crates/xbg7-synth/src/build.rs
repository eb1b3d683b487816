//! Byte assembly of one synthetic XPR2 container from its [`FileSpec`]: geometry blocks
//! and texture payloads laid out in the data section as FORMAT.md §5 describes for each
//! file kind (documented sequence at offset 0, scattered stage blocks, bodies after
//! texture data), XBG7 / TX2D descriptors and names in the header block, and the ground
//! truth of every resource.

use xbg7::mesh::{Mesh, Primitive};

use super::descriptor::{build_descriptor, DescInput};
use super::geom::{assemble, build_part, shuffle_coherent, Geometry};
use super::realism::{self, PURPOSE_REALISM_BUILD};
use super::rng::{derive_seed, Gen};
use super::spec::{Category, Expectation, Family, FileKind, FileSpec, RecordLayout, ResourcePlan};
use super::texture::{encode_payload, image_digest, tx2d_descriptor};
use super::truth::{TruthBlock, TruthContainer, TruthResource, TruthTexture};
use super::vformat::{decoded_attrs, encode_stream, DecodedAttrs, UnknownFill, VertexData, VertexFormat};

/// One generated container: its bytes and its ground truth (with in-memory meshes).
#[derive(Clone, Debug, PartialEq)]
pub struct SynthFile {
    pub rel_path: String,
    pub bytes: Vec<u8>,
    pub truth: TruthContainer,
}

/// Encoded bytes of one geometry block.
#[derive(Clone, Debug, PartialEq)]
struct BlockData {
    index_bytes: Vec<u8>,
    /// One vertex buffer per stream, ascending stream number.
    streams: Vec<Vec<u8>>,
    vertex_count: u32,
    index_count: u32,
}

/// A resource after geometry generation and encoding.
#[derive(Clone, Debug, PartialEq)]
struct BuiltRes {
    blocks: Vec<BlockData>,
    records: Vec<[u32; 4]>,
    mesh: Mesh,
    bound: f32,
}

fn vertex_data(g: &Geometry, sets: usize) -> VertexData {
    let uv0 = g.uvs.clone();
    let mut uvs = vec![uv0];
    if sets > 1 {
        uvs.push(
            g.uvs
                .iter()
                .map(|uv| [uv[0] * 0.5 + 0.25, uv[1] * 0.25 + 0.5])
                .collect(),
        );
    }
    let colors = g
        .normals
        .iter()
        .map(|n| {
            let c = |x: f32| ((x * 0.5 + 0.5) * 255.0).round().clamp(0.0, 255.0) as u8;
            [c(n[0]), c(n[1]), c(n[2]), 255]
        })
        .collect();
    VertexData {
        positions: g.positions.clone(),
        normals: g.normals.clone(),
        tangents: g.tangents.clone(),
        uvs,
        colors,
    }
}

fn encode_block(fmt: &VertexFormat, g: &Geometry, fill: UnknownFill, gen: &mut Gen) -> (BlockData, VertexData) {
    let sets = fmt
        .elements
        .iter()
        .filter(|e| e.usage == super::vformat::usage::TEXCOORD)
        .count();
    let data = vertex_data(g, sets);
    let mut index_bytes = Vec::with_capacity(2 * g.indices.len());
    for &i in &g.indices {
        index_bytes.extend_from_slice(&(i as u16).to_be_bytes());
    }
    let streams = fmt
        .streams()
        .iter()
        .map(|&s| encode_stream(fmt, s, &data, fill, gen))
        .collect();
    let block = BlockData {
        index_bytes,
        streams,
        vertex_count: g.positions.len() as u32,
        index_count: g.indices.len() as u32,
    };
    (block, data)
}

fn distinct(indices: &[u32]) -> u32 {
    let mut v = indices.to_vec();
    v.sort_unstable();
    v.dedup();
    v.len() as u32
}

/// `(first_index, index_count, vtx_count)` of one sub-mesh record, block-local.
type RecordRange = (u32, u32, u32);

/// Per resource, per block: (index offset, stream-0 vertex offset), data-relative.
type BlockOffsets = Vec<Vec<(u64, u64)>>;

/// Generate, encode and compute the truth mesh of one resource. `rgen` (the realism
/// stream) is only drawn from for a resource with an imperfection family.
fn build_resource(r: &ResourcePlan, gen: &mut Gen, rgen: &mut Gen) -> BuiltRes {
    let geoms = part_geometries(r, gen, rgen);
    let fill = UnknownFill {
        normal_w: gen.range(0, 2) as u8,
        dec_w: gen.range(0, 2) as u8,
    };
    let (mut block_geoms, record_ranges) = block_geometries(&r.records, geoms);
    if r.family == Some(Family::ImperfectNormals) {
        let b = rgen.range_usize(0, block_geoms.len().saturating_sub(1));
        if let Some(g) = block_geoms.get_mut(b) {
            realism::edit_normals(g, rgen);
        }
    }
    let (blocks, mut records, mut mesh) = encode_blocks(r, &block_geoms, &record_ranges, fill, gen, rgen);
    if r.family == Some(Family::RecordOrder) {
        // The truth's primitives stay in index-buffer order; only the descriptor's
        // record order changes (FORMAT.md §3 does not document it).
        realism::permute_records(&mut records, rgen);
    }
    drop_left_out_streams(&r.format, &mut mesh);
    let bound = xbg7::mesh::bbox_of(&geoms_positions(&block_geoms))
        .map(|(lo, hi)| (0..3).map(|k| hi[k] - lo[k]).fold(0.0f32, f32::max).ceil())
        .unwrap_or(1.0);
    BuiltRes {
        blocks,
        records,
        mesh,
        bound,
    }
}

/// The resource's parts generated, renumbered coherently (or not) and edited by its
/// family.
fn part_geometries(r: &ResourcePlan, gen: &mut Gen, rgen: &mut Gen) -> Vec<Geometry> {
    let mut geoms: Vec<Geometry> = r.parts.iter().map(|p| build_part(p, gen)).collect();
    let renumber = gen.chance(0.6);
    // A trap owner whose tail must fit a smaller sibling keeps the grid numbering.
    let keep_numbering = matches!(
        r.family,
        Some(Family::OwnerTrapOwner {
            tail_below: Some(_),
            ..
        })
    );
    for g in geoms.iter_mut() {
        shuffle_coherent(g, renumber && !keep_numbering, gen);
    }
    if let Some(f) = r.family {
        realism::edit_parts(f, &mut geoms, rgen);
    }
    geoms
}

/// Geometry per block and (first_index, index_count, vtx_count) per record, block-local,
/// as the record layout groups the parts.
fn block_geometries(records: &RecordLayout, geoms: Vec<Geometry>) -> (Vec<Geometry>, Vec<Vec<RecordRange>>) {
    match records {
        RecordLayout::SeparateBlocks => {
            let rr = geoms
                .iter()
                .map(|g| vec![(0, g.indices.len() as u32, g.positions.len() as u32)])
                .collect();
            (geoms, rr)
        }
        RecordLayout::PerPart => {
            let (g, ranges) = assemble(&geoms);
            (vec![g], vec![ranges])
        }
        RecordLayout::Split(counts) => {
            let (g, _) = assemble(&geoms);
            let mut ranges = Vec::new();
            let mut first = 0u32;
            for &c in counts {
                let end = (first + c).min(g.indices.len() as u32);
                let vc = distinct(&g.indices[first as usize..end as usize]);
                ranges.push((first, end - first, vc));
                first = end;
            }
            (vec![g], vec![ranges])
        }
    }
}

/// Encode every block (a damaged sibling's indices overwritten), draw its records'
/// unknown words, and gather the truth mesh from what the encoded bytes decode to.
fn encode_blocks(
    r: &ResourcePlan,
    block_geoms: &[Geometry],
    record_ranges: &[Vec<RecordRange>],
    fill: UnknownFill,
    gen: &mut Gen,
    rgen: &mut Gen,
) -> (Vec<BlockData>, Vec<[u32; 4]>, Mesh) {
    let mut blocks = Vec::new();
    let mut records = Vec::new();
    let mut truth = TruthMesh::default();
    for (g, ranges) in block_geoms.iter().zip(record_ranges) {
        let (mut block, data) = encode_block(&r.format, g, fill, gen);
        if let Some(Family::OwnerTrapSibling { damaged: true, .. }) = r.family {
            realism::damage_indices(&mut block.index_bytes, block.vertex_count, rgen);
        }
        let first_index = truth.append(&decoded_attrs(&r.format, &data), &g.indices);
        for &(fi, ic, vc) in ranges {
            truth.mesh.primitives.push(Primitive {
                first_index: first_index + fi,
                index_count: ic,
                material: None,
            });
            records.push([vc, 0, ic, gen.range(1, 64)]);
        }
        blocks.push(block);
    }
    (blocks, records, truth.finish(&r.format))
}

/// A resource's truth mesh being gathered block by block (normals and colours apart
/// until it is known whether the format has them).
#[derive(Default)]
struct TruthMesh {
    mesh: Mesh,
    normals: Vec<[f32; 3]>,
    colors: Vec<[f32; 4]>,
}

impl TruthMesh {
    /// Append one block's decoded vertices and its indices (rebased); returns the
    /// block's first index in the mesh.
    fn append(&mut self, d: &DecodedAttrs, indices: &[u32]) -> u32 {
        let mesh = &mut self.mesh;
        let base = mesh.positions.len() as u32;
        let first_index = mesh.indices.len() as u32;
        mesh.positions.extend_from_slice(&d.positions);
        if let Some(n) = &d.normals {
            self.normals.extend_from_slice(n);
        }
        if let Some(c) = &d.colors {
            self.colors.extend_from_slice(c);
        }
        if mesh.texcoords.len() < d.texcoords.len() {
            mesh.texcoords.resize(d.texcoords.len(), Vec::new());
        }
        for (set, t) in mesh.texcoords.iter_mut().zip(&d.texcoords) {
            set.extend_from_slice(t);
        }
        mesh.indices.extend(indices.iter().map(|&i| i + base));
        first_index
    }

    /// The mesh, with normals and colours where the format has them.
    fn finish(self, fmt: &VertexFormat) -> Mesh {
        let mut mesh = self.mesh;
        if fmt.find(super::vformat::usage::NORMAL, 0).is_some() {
            mesh.normals = Some(self.normals);
        }
        if fmt.find(super::vformat::usage::COLOR, 0).is_some() {
            mesh.colors = Some(self.colors);
        }
        mesh
    }
}

/// A multi-stream resource's truth holds the attributes of the streams that hold
/// POSITION or NORMAL only. A stream with neither has nothing its place can be checked by
/// (FORMAT.md §5 does not say where any stream's buffer is), so a correct decoder leaves
/// it out and says so rather than guess its bytes: the mesh is exact without it.
fn drop_left_out_streams(fmt: &VertexFormat, mesh: &mut Mesh) {
    use super::vformat::usage;
    if fmt.streams().len() < 2 {
        return;
    }
    let kept: Vec<u16> = [usage::POSITION, usage::NORMAL]
        .iter()
        .filter_map(|&u| fmt.find(u, 0))
        .map(|e| e.stream)
        .collect();
    let mut sets: Vec<_> = fmt.elements.iter().filter(|e| e.usage == usage::TEXCOORD).collect();
    sets.sort_by_key(|e| e.usage_index);
    let texcoords = std::mem::take(&mut mesh.texcoords);
    mesh.texcoords = sets
        .iter()
        .zip(texcoords)
        .filter(|(e, _)| kept.contains(&e.stream))
        .map(|(_, t)| t)
        .collect();
    if fmt.find(usage::COLOR, 0).is_some_and(|e| !kept.contains(&e.stream)) {
        mesh.colors = None;
    }
}

fn geoms_positions(gs: &[Geometry]) -> Vec<[f32; 3]> {
    gs.iter().flat_map(|g| g.positions.iter().copied()).collect()
}

/// The data section under construction.
struct Data {
    buf: Vec<u8>,
}

impl Data {
    fn pos(&self) -> u64 {
        self.buf.len() as u64
    }
    fn pad_to(&mut self, align: usize, junk: bool, gen: &mut Gen) {
        let rem = self.buf.len() % align.max(1);
        if rem != 0 {
            let n = align - rem;
            if junk {
                let j = gen.bytes(n);
                self.buf.extend_from_slice(&j);
            } else {
                self.buf.resize(self.buf.len() + n, 0);
            }
        }
    }
    fn zeros(&mut self, n: usize) {
        self.buf.resize(self.buf.len() + n, 0);
    }
    fn junk(&mut self, n: usize, gen: &mut Gen) {
        let j = gen.bytes(n);
        self.buf.extend_from_slice(&j);
    }
    /// `[indices]` and the vertex streams as `layout` places them (a single-stream block:
    /// `[indices][vertices]`); returns (index offset, stream-0 vertex offset). The
    /// streams [`StreamLayout::Scattered`] and [`StreamLayout::AllApart`] place
    /// elsewhere are not written here (stream 0's offset is then set where it is).
    fn block(&mut self, b: &BlockData, layout: StreamLayout, sgen: &mut Gen) -> (u64, u64) {
        let io = self.pos();
        self.buf.extend_from_slice(&b.index_bytes);
        let mut vo = self.pos();
        let order: Vec<usize> = match layout {
            StreamLayout::PositionLast => (1..b.streams.len()).chain([0]).collect(),
            StreamLayout::Scattered => vec![0],
            StreamLayout::AllApart | StreamLayout::Clustered | StreamLayout::AfterTextures => Vec::new(),
            _ => (0..b.streams.len()).collect(),
        };
        for (n, &k) in order.iter().enumerate() {
            if n > 0 && layout == StreamLayout::Padded {
                let a = *sgen.pick(&[4usize, 16, 128]).unwrap_or(&16);
                self.pad_to(a, false, sgen);
            }
            if k == 0 {
                vo = self.pos();
            }
            self.buf.extend_from_slice(&b.streams[k]);
        }
        (io, vo)
    }
    /// A 12-byte unknown prefix: none, zeros or random.
    fn prefix(&mut self, gen: &mut Gen, weights: &[u32; 3]) {
        match gen.weighted(weights) {
            0 => {}
            1 => self.zeros(12),
            _ => self.junk(12, gen),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Block(usize, usize),
    Texture(usize),
    /// Stream `s` of a block whose streams are [`StreamLayout::Scattered`] (`s ≥ 1`) or
    /// [`StreamLayout::AllApart`].
    Stream(usize, usize, usize),
    /// Every stream of a block, back to back, away from its index buffer
    /// ([`StreamLayout::Clustered`], [`StreamLayout::AfterTextures`]).
    Streams(usize, usize),
}

/// Where a multi-stream block's vertex buffers go: FORMAT.md §5 leaves it open (each
/// stream is its own buffer of `vertex_count` vertices; whether they follow the index
/// buffer or one another is unknown), so every file draws one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamLayout {
    /// A single-stream block, `[indices][vertices]`.
    Single,
    /// `[indices][stream 0][stream 1]…`, no gaps.
    BackToBack,
    /// `[indices][stream 0]`, then each later stream after a zero pad to 4, 16 or 128.
    Padded,
    /// `[indices][stream 0]`; every later stream somewhere else in the data section.
    Scattered,
    /// `[indices][stream 1]…[stream 0]`: the positions last.
    PositionLast,
    /// The index buffer alone; every stream somewhere else in the data section.
    AllApart,
    /// The index buffer alone; every stream, back to back, somewhere else.
    Clustered,
    /// The index buffer alone; every stream, back to back, after the file's textures
    /// (at the end of the data section).
    AfterTextures,
}

impl StreamLayout {
    /// The truth's `family` of a multi-stream resource (none for a single stream).
    pub const fn family(self) -> Option<&'static str> {
        match self {
            StreamLayout::Single => None,
            StreamLayout::BackToBack => Some("streams_back_to_back"),
            StreamLayout::Padded => Some("streams_padded"),
            StreamLayout::Scattered => Some("streams_scattered"),
            StreamLayout::PositionLast => Some("streams_position_last"),
            StreamLayout::AllApart => Some("streams_all_apart"),
            StreamLayout::Clustered => Some("streams_clustered"),
            StreamLayout::AfterTextures => Some("streams_after_textures"),
        }
    }

    /// Whether stream 0 follows the index buffer (with the other streams or not).
    const fn follows_indices(self) -> bool {
        !matches!(
            self,
            StreamLayout::AllApart | StreamLayout::Clustered | StreamLayout::AfterTextures
        )
    }
}

/// The truth's `family` of a resource with `format` laid out by `layout` in a file of
/// `--multistream` (`apart`): the layout, then how many streams and whether stream 0
/// holds the positions alone (the layout alone otherwise, as before the option).
fn stream_family(layout: StreamLayout, format: &VertexFormat, apart: bool) -> Option<String> {
    let name = layout.family()?;
    if !apart {
        return Some(name.to_string());
    }
    let alone = format
        .elements
        .iter()
        .all(|e| e.stream != 0 || e.usage == super::vformat::usage::POSITION);
    Some(format!(
        "{name}_{}s{}",
        format.streams().len(),
        if alone { "_position_alone" } else { "" }
    ))
}

/// Seed purpose of a file's stream-layout draws (kept apart from its main stream, so
/// the draws of single-stream files do not move).
const PURPOSE_STREAMS: u64 = 0x5743_0001;

/// Each resource's [`StreamLayout`], drawn from the file's stream-layout seed.
fn stream_layouts(spec: &FileSpec, sgen: &mut Gen) -> Vec<StreamLayout> {
    spec.resources
        .iter()
        .map(|r| {
            if r.format.streams().len() < 2 {
                return StreamLayout::Single;
            }
            // A trap owner's block keeps its shape (its streams after its index buffer,
            // so a sibling can sit right after it, as the trap family is defined).
            let weights = if matches!(r.family, Some(Family::OwnerTrapOwner { .. })) {
                [3, 3, 0, 2, 0]
            } else {
                [3, 3, 3, 2, 2]
            };
            if spec.streams_apart && weights[4] > 0 {
                // `--multistream`: every layout, the buffers apart most often.
                return match sgen.weighted(&[2, 1, 2, 1, 3, 2, 2]) {
                    0 => StreamLayout::BackToBack,
                    1 => StreamLayout::Padded,
                    2 => StreamLayout::Scattered,
                    3 => StreamLayout::PositionLast,
                    4 => StreamLayout::AllApart,
                    5 => StreamLayout::Clustered,
                    _ => StreamLayout::AfterTextures,
                };
            }
            match sgen.weighted(&weights) {
                0 => StreamLayout::BackToBack,
                1 => StreamLayout::Padded,
                2 => StreamLayout::Scattered,
                3 => StreamLayout::PositionLast,
                _ => StreamLayout::AllApart,
            }
        })
        .collect()
}

const ALIGNS: [usize; 6] = [2, 4, 16, 32, 128, 4096];

/// Lay out the data section. Returns the bytes, per resource per block offsets, and per
/// texture its offset and the digest of its reference image.
fn layout_data(
    spec: &FileSpec,
    built: &[BuiltRes],
    layouts: &[StreamLayout],
    gen: &mut Gen,
    sgen: &mut Gen,
) -> (Vec<u8>, BlockOffsets, Vec<(u64, String)>) {
    let mut l = DataLayout {
        spec,
        built,
        layouts,
        d: Data { buf: Vec::new() },
        block_offs: built.iter().map(|b| vec![(0, 0); b.blocks.len()]).collect(),
        tex_offs: vec![(0u64, String::new()); spec.textures.len()],
    };
    match spec.category {
        Category::Documented | Category::MultiSubmesh => l.documented(gen, sgen),
        _ => l.scattered(gen, sgen),
    }
    l.share_duplicate_blocks();
    match gen.range(0, 2) {
        0 => l.d.pad_to(4096, false, gen),
        1 => l.d.pad_to(16, false, gen),
        _ => {}
    }
    (l.d.buf, l.block_offs, l.tex_offs)
}

/// The data section being laid out, and where every block and texture landed.
struct DataLayout<'a> {
    spec: &'a FileSpec,
    built: &'a [BuiltRes],
    layouts: &'a [StreamLayout],
    d: Data,
    block_offs: BlockOffsets,
    tex_offs: Vec<(u64, String)>,
}

impl DataLayout<'_> {
    /// Whether resource `k` has a block of its own (not a duplicate sharing the
    /// original's).
    fn owns_block(&self, k: usize) -> bool {
        !(self.spec.resources[k].duplicate_of.is_some() && self.spec.resources[k].share_block)
    }

    /// Texture `t`'s payload, 4096-aligned.
    fn place_texture(&mut self, t: usize, gen: &mut Gen) {
        self.d.pad_to(4096, false, gen);
        let (p, reference) = encode_payload(&self.spec.textures[t], gen);
        self.tex_offs[t] = (self.d.pos(), image_digest(&self.spec.textures[t], &reference));
        self.d.buf.extend_from_slice(&p);
    }

    /// A documented model: its blocks in sequence from offset 0 (small varied gaps), then
    /// the textures.
    fn documented(&mut self, gen: &mut Gen, sgen: &mut Gen) {
        let d = &mut self.d;
        for (k, b) in self.built[0].blocks.iter().enumerate() {
            if k > 0 {
                match gen.weighted(&[2, 2, 2, 2, 2, 2, 2]) {
                    0 => {}
                    1 => d.pad_to(4, false, gen),
                    2 => d.pad_to(16, false, gen),
                    3 => d.pad_to(128, false, gen),
                    4 => d.junk(12, gen),
                    5 => d.zeros(12),
                    _ => {
                        // Index buffers are u16 arrays: a gap keeps them on an even offset
                        // (FORMAT.md §5: the vertex buffer "may start on any even offset").
                        let n = 2 * gen.range_usize(50, 300);
                        d.junk(n, gen);
                    }
                }
            }
            self.block_offs[0][k] = d.block(b, self.layouts[0], sgen);
        }
        for t in 0..self.spec.textures.len() {
            self.place_texture(t, gen);
        }
    }

    /// Every other file: blocks, textures and scattered streams in a shuffled order
    /// (trap siblings marked adjacent right after their owner).
    fn scattered(&mut self, gen: &mut Gen, sgen: &mut Gen) {
        let stage = self.spec.kind == FileKind::Stage;
        let (head, mut items) = self.item_order(stage, gen);
        let adjacent = self.place_adjacent_siblings(&mut items);
        self.scatter_streams(&mut items, sgen);
        for it in head.into_iter().chain(items) {
            self.place_item(it, &adjacent, stage, gen, sgen);
        }
    }

    /// The blocks this file owns and its textures in a drawn order: `head` (textures
    /// written first) and the shuffled rest.
    fn item_order(&self, stage: bool, gen: &mut Gen) -> (Vec<Item>, Vec<Item>) {
        let spec = self.spec;
        let mut items: Vec<Item> = Vec::new();
        for (k, b) in self.built.iter().enumerate() {
            if self.owns_block(k) {
                items.extend((0..b.blocks.len()).map(|j| Item::Block(k, j)));
            }
        }
        let mut head: Vec<Item> = Vec::new();
        if stage {
            items.extend((0..spec.textures.len()).map(Item::Texture));
            gen.shuffle(&mut items);
        } else if gen.chance(0.7) || spec.textures.is_empty() {
            // All texture data first, then the blocks.
            head.extend((0..spec.textures.len()).map(Item::Texture));
            gen.shuffle(&mut items);
        } else {
            // One texture at the start, then everything interleaved.
            let first = gen.range_usize(0, spec.textures.len() - 1);
            head.push(Item::Texture(first));
            items.extend((0..spec.textures.len()).filter(|&t| t != first).map(Item::Texture));
            gen.shuffle(&mut items);
        }
        (head, items)
    }

    /// Owner-trap siblings marked adjacent go right after their owner's block; returns
    /// which resources were placed so.
    fn place_adjacent_siblings(&self, items: &mut Vec<Item>) -> Vec<bool> {
        let mut adjacent = vec![false; self.spec.resources.len()];
        for (b, r) in self.spec.resources.iter().enumerate() {
            if let Some(Family::OwnerTrapSibling {
                owner, adjacent: true, ..
            }) = r.family
            {
                let last = self.built[owner].blocks.len().saturating_sub(1);
                items.retain(|it| *it != Item::Block(b, 0));
                if let Some(at) = items.iter().position(|it| *it == Item::Block(owner, last)) {
                    items.insert(at + 1, Item::Block(b, 0));
                    adjacent[b] = true;
                } else {
                    items.push(Item::Block(b, 0));
                }
            }
        }
        adjacent
    }

    /// Scattered streams anywhere among the rest (drawn apart from the main stream).
    fn scatter_streams(&self, items: &mut Vec<Item>, sgen: &mut Gen) {
        for (k, b) in self.built.iter().enumerate() {
            if !self.owns_block(k) {
                continue;
            }
            let first = match self.layouts[k] {
                StreamLayout::Scattered => 1,
                StreamLayout::AllApart => 0,
                StreamLayout::Clustered => {
                    for j in 0..b.blocks.len() {
                        let at = sgen.range_usize(0, items.len());
                        items.insert(at, Item::Streams(k, j));
                    }
                    continue;
                }
                StreamLayout::AfterTextures => {
                    items.extend((0..b.blocks.len()).map(|j| Item::Streams(k, j)));
                    continue;
                }
                _ => continue,
            };
            for (j, blk) in b.blocks.iter().enumerate() {
                for st in first..blk.streams.len() {
                    let at = sgen.range_usize(0, items.len());
                    items.insert(at, Item::Stream(k, j, st));
                }
            }
        }
    }

    /// Write one item (with its alignment, junk and prefix) and record where it landed.
    fn place_item(&mut self, it: Item, adjacent: &[bool], stage: bool, gen: &mut Gen, sgen: &mut Gen) {
        let (built, layouts, apart) = (self.built, self.layouts, self.spec.streams_apart);
        let d = &mut self.d;
        match it {
            Item::Texture(t) => self.place_texture(t, gen),
            Item::Block(k, j) if adjacent[k] => {
                // Right after the owner's last stream: no alignment, at most the
                // usual unknown 12-byte prefix.
                d.prefix(gen, &[50, 35, 15]);
                let (io, vo) = d.block(&built[k].blocks[j], layouts[k], sgen);
                self.block_offs[k][j].0 = io;
                if layouts[k].follows_indices() {
                    self.block_offs[k][j].1 = vo;
                }
            }
            Item::Block(k, j) => {
                let a = ALIGNS[gen.weighted(&[10, 25, 25, 15, 15, 10])];
                let junk_pad = !stage && gen.chance(0.4);
                d.pad_to(a, junk_pad, gen);
                if !stage && gen.chance(0.3) {
                    let n = 4 * gen.range_usize(1, 64);
                    d.junk(n, gen);
                }
                if d.pos() == 0 {
                    d.junk(4 * gen.range_usize(1, 16), gen);
                }
                d.prefix(gen, if stage { &[50, 35, 15] } else { &[50, 25, 25] });
                let (io, vo) = d.block(&built[k].blocks[j], layouts[k], sgen);
                self.block_offs[k][j].0 = io;
                if layouts[k].follows_indices() {
                    self.block_offs[k][j].1 = vo;
                }
            }
            Item::Stream(k, j, st) => {
                let a = apart_alignment(apart, sgen);
                d.pad_to(a, sgen.chance(0.4), sgen);
                if st == 0 {
                    self.block_offs[k][j].1 = d.pos();
                }
                d.buf.extend_from_slice(&built[k].blocks[j].streams[st]);
            }
            Item::Streams(k, j) => {
                let a = apart_alignment(apart, sgen);
                d.pad_to(a, sgen.chance(0.4), sgen);
                self.block_offs[k][j].1 = d.pos();
                for st in &built[k].blocks[j].streams {
                    d.buf.extend_from_slice(st);
                }
            }
        }
    }

    /// Duplicates that share their original's block get its offsets.
    fn share_duplicate_blocks(&mut self) {
        for k in 0..self.built.len() {
            if let Some(o) = self.spec.resources[k].duplicate_of {
                if self.spec.resources[k].share_block {
                    self.block_offs[k] = self.block_offs[o].clone();
                }
            }
        }
    }
}

/// The alignment of a stream laid apart from its index buffer: any of [`ALIGNS`]; in a
/// file of `--multistream` (`apart`), 16 or 4096 bytes mostly (buffers the GPU reads are
/// aligned).
fn apart_alignment(apart: bool, sgen: &mut Gen) -> usize {
    if apart {
        [4, 16, 4096][sgen.weighted(&[1, 4, 3])]
    } else {
        ALIGNS[sgen.weighted(&[10, 25, 25, 15, 15, 10])]
    }
}

/// One directory entry before layout.
struct Entry {
    tag: [u8; 4],
    desc: Vec<u8>,
    name: Vec<u8>,
}

/// Header block: count, directory, u32 0, then descriptors and names in a varied order
/// and alignment; returns the block padded to `header_size`.
fn layout_header(entries: &[Entry], gen: &mut Gen) -> Vec<u8> {
    let n = entries.len();
    let mut h: Vec<u8> = vec![0; 4 + 16 * n + 4];
    h[0..4].copy_from_slice(&(n as u32).to_be_bytes());
    h.resize(h.len() + 4 * gen.range_usize(0, 1) * gen.range_usize(0, 16), 0);
    let desc_align = [4usize, 8, 16, 32][gen.weighted(&[40, 20, 30, 10])];
    let name_align = [1usize, 2, 4][gen.range_usize(0, 2)];
    let mode = gen.weighted(&[50, 20, 20, 10]);
    let mut desc_off = vec![0usize; n];
    let mut name_off = vec![0usize; n];
    let pad = |h: &mut Vec<u8>, a: usize| {
        while !h.len().is_multiple_of(a) {
            h.push(0);
        }
    };
    let put_desc = |h: &mut Vec<u8>, k: usize, off: &mut Vec<usize>| {
        pad(h, desc_align);
        off[k] = h.len();
        h.extend_from_slice(&entries[k].desc);
    };
    let put_name = |h: &mut Vec<u8>, k: usize, off: &mut Vec<usize>| {
        pad(h, name_align);
        off[k] = h.len();
        h.extend_from_slice(&entries[k].name);
        h.push(0);
    };
    match mode {
        0 => {
            (0..n).for_each(|k| put_desc(&mut h, k, &mut desc_off));
            (0..n).for_each(|k| put_name(&mut h, k, &mut name_off));
        }
        1 => {
            (0..n).for_each(|k| put_name(&mut h, k, &mut name_off));
            (0..n).for_each(|k| put_desc(&mut h, k, &mut desc_off));
        }
        2 => (0..n).for_each(|k| {
            put_desc(&mut h, k, &mut desc_off);
            put_name(&mut h, k, &mut name_off);
        }),
        _ => (0..n).for_each(|k| {
            put_name(&mut h, k, &mut name_off);
            put_desc(&mut h, k, &mut desc_off);
        }),
    }
    let size = if gen.chance(0.8) {
        h.len().div_ceil(2048) * 2048
    } else {
        h.len().div_ceil(16) * 16 + 16 * gen.range_usize(0, 8)
    };
    h.resize(size, 0);
    for (k, e) in entries.iter().enumerate() {
        let o = 4 + 16 * k;
        h[o..o + 4].copy_from_slice(&e.tag);
        h[o + 4..o + 8].copy_from_slice(&(desc_off[k] as u32).to_be_bytes());
        h[o + 8..o + 12].copy_from_slice(&(e.desc.len() as u32).to_be_bytes());
        h[o + 12..o + 16].copy_from_slice(&(name_off[k] as u32).to_be_bytes());
    }
    h
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    Res(usize),
    Tex(usize),
    User,
}

/// Directory order: models mostly XBG7 then TX2D, stages shuffled; optional USER entry.
fn directory_order(spec: &FileSpec, gen: &mut Gen) -> Vec<What> {
    let res = (0..spec.resources.len()).map(What::Res);
    let tex = (0..spec.textures.len()).map(What::Tex);
    let mut order: Vec<What> = match (spec.kind, gen.weighted(&[85, 10, 5])) {
        (FileKind::Model, 0) => res.chain(tex).collect(),
        (FileKind::Model, 1) => tex.chain(res).collect(),
        _ => {
            let mut v: Vec<What> = res.chain(tex).collect();
            gen.shuffle(&mut v);
            v
        }
    };
    if spec.user_resource {
        let at = gen.range_usize(0, order.len());
        order.insert(at, What::User);
    }
    order
}

/// Build one container, deterministically from `spec` alone.
pub fn build_file(spec: &FileSpec) -> SynthFile {
    let mut gen = Gen::new(spec.seed);
    let mut rgen = Gen::new(derive_seed(spec.seed, 0, PURPOSE_REALISM_BUILD));
    let built = build_resources(spec, &mut gen, &mut rgen);
    let mut sgen = Gen::new(derive_seed(spec.seed, 0, PURPOSE_STREAMS));
    let layouts = stream_layouts(spec, &mut sgen);
    let (data, block_offs, tex_offs) = layout_data(spec, &built, &layouts, &mut gen, &mut sgen);
    let order = directory_order(spec, &mut gen);
    let mut entries = Vec::with_capacity(order.len());
    for w in &order {
        entries.push(match *w {
            What::Res(k) => xbg7_entry(spec, k, &built[k], &mut gen, &mut rgen),
            What::Tex(t) => Entry {
                tag: *b"TX2D",
                desc: tx2d_descriptor(&spec.textures[t], tex_offs[t].0 as u32).to_vec(),
                name: spec.textures[t].name.as_bytes().to_vec(),
            },
            What::User => {
                let n = 4 * gen.range_usize(4, 16);
                Entry {
                    tag: *b"USER",
                    desc: gen.bytes(n),
                    name: b"userdata".to_vec(),
                }
            }
        });
    }
    let header = layout_header(&entries, &mut gen);
    let bytes = container_bytes(&header, &data);
    let placed = Placed {
        built: &built,
        layouts: &layouts,
        block_offs: &block_offs,
        tex_offs: &tex_offs,
    };
    let truth = placed.truth(spec, &order, bytes.len() as u64);
    SynthFile {
        rel_path: spec.rel_path.clone(),
        bytes,
        truth,
    }
}

/// Every resource generated and encoded in plan order (a duplicate is a copy of its
/// original's).
fn build_resources(spec: &FileSpec, gen: &mut Gen, rgen: &mut Gen) -> Vec<BuiltRes> {
    let mut built: Vec<BuiltRes> = Vec::with_capacity(spec.resources.len());
    for r in &spec.resources {
        let b = match r.duplicate_of.and_then(|o| built.get(o)) {
            Some(orig) => orig.clone(),
            None => build_resource(r, gen, rgen),
        };
        built.push(b);
    }
    built
}

/// The directory entry of resource `k`: its XBG7 descriptor (random node names, the
/// `record_filler` tuples inserted afterwards) and name.
fn xbg7_entry(spec: &FileSpec, k: usize, b: &BuiltRes, gen: &mut Gen, rgen: &mut Gen) -> Entry {
    let r = &spec.resources[k];
    let mut nodes = vec![format!("{}_root", r.name), "Light".to_string()];
    if gen.chance(0.5) {
        nodes.push(format!("{}_mesh", r.name));
    }
    if gen.chance(0.2) {
        nodes.push("Camera".to_string());
    }
    let inp = DescInput {
        bound: b.bound,
        node_names: nodes,
        material_names: r
            .materials
            .iter()
            .filter_map(|&m| spec.textures.get(m))
            .map(|t| t.name.clone())
            .collect(),
        vertex_count: r.vertex_count(),
        index_count: r.index_count(),
        vertex_bytes: r.vertex_count().wrapping_mul(r.format.stride(0) as u32),
        decl: r.format.decl_bytes(),
        records: b.records.clone(),
    };
    let d = build_descriptor(&inp, gen);
    let desc = if r.family == Some(Family::RecordFiller) {
        // The filler stays free of spurious records; the trap tuples are
        // inserted afterwards, on purpose.
        realism::insert_record_filler(&d, inp.decl.len(), rgen)
    } else {
        d.bytes
    };
    Entry {
        tag: *b"XBG7",
        desc,
        name: r.name.as_bytes().to_vec(),
    }
}

/// The XPR2 frame: magic, header and data sizes, the header block, the data section.
fn container_bytes(header: &[u8], data: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(12 + header.len() + data.len());
    bytes.extend_from_slice(b"XPR2");
    bytes.extend_from_slice(&(header.len() as u32).to_be_bytes());
    bytes.extend_from_slice(&(data.len() as u32).to_be_bytes());
    bytes.extend_from_slice(header);
    bytes.extend_from_slice(data);
    bytes
}

/// What the truth is read from once the file is laid out: the built resources, their
/// stream layouts, and where every block and texture landed.
struct Placed<'a> {
    built: &'a [BuiltRes],
    layouts: &'a [StreamLayout],
    block_offs: &'a BlockOffsets,
    tex_offs: &'a [(u64, String)],
}

impl Placed<'_> {
    /// The container's ground truth, resources and textures in directory `order`.
    fn truth(&self, spec: &FileSpec, order: &[What], size: u64) -> TruthContainer {
        let mut dir_index = vec![0u32; spec.resources.len()];
        for (i, w) in order.iter().enumerate() {
            if let What::Res(k) = w {
                dir_index[*k] = i as u32;
            }
        }
        let mut resources = Vec::new();
        let mut textures = Vec::new();
        for (i, w) in order.iter().enumerate() {
            match *w {
                What::Res(k) => resources.push(self.truth_resource(spec, k, i as u32, &dir_index)),
                What::Tex(t) => textures.push(self.truth_texture(spec, t, i as u32)),
                What::User => {}
            }
        }
        TruthContainer {
            path: spec.rel_path.clone(),
            kind: spec.kind.as_str().to_string(),
            category: spec.category.as_str().to_string(),
            size,
            resources,
            textures,
        }
    }

    /// Resource `k` at directory index `index`.
    fn truth_resource(&self, spec: &FileSpec, k: usize, index: u32, dir_index: &[u32]) -> TruthResource {
        let r = &spec.resources[k];
        let b = &self.built[k];
        let expected = r.expectation();
        TruthResource {
            index,
            name: r.name.clone(),
            category: r.category.as_str().to_string(),
            expected: expected.as_str().to_string(),
            vertex_count: r.vertex_count(),
            index_count: r.index_count(),
            stride: r.format.stride(0) as u32,
            blocks: b
                .blocks
                .iter()
                .zip(&self.block_offs[k])
                .map(|(blk, &(io, vo))| TruthBlock {
                    index_offset: io,
                    vertex_offset: vo,
                    vertex_count: blk.vertex_count,
                    index_count: blk.index_count,
                })
                .collect(),
            digest: (expected != Expectation::Rejected).then(|| b.mesh.digest()),
            digest_unsplit: (expected != Expectation::Rejected && b.mesh.primitives.len() > 1)
                .then(|| b.mesh.clone().unsplit().digest()),
            skybox: r.category == Category::StageSkybox,
            duplicate_of: r.duplicate_of.map(|o| dir_index[o]),
            family: r
                .family
                .map(|f| f.name())
                .map(str::to_string)
                .or_else(|| stream_family(self.layouts[k], &r.format, spec.streams_apart)),
            mesh: Some(b.mesh.clone()),
        }
    }

    /// Texture `t` at directory index `index`.
    fn truth_texture(&self, spec: &FileSpec, t: usize, index: u32) -> TruthTexture {
        let tp = &spec.textures[t];
        TruthTexture {
            name: tp.name.clone(),
            index,
            format: tp.format.name().to_string(),
            width: tp.width,
            height: tp.height,
            data_offset: self.tex_offs[t].0,
            data_size: tp.payload_size() as u64,
            tiled: tp.tiled,
            digest: Some(self.tex_offs[t].1.clone()),
        }
    }
}
