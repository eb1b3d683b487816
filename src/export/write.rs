//! One container's outputs: decode it, write its textures, glTF documents and previews
//! under its own folder (kept inside `--out`), the stage scene, and its manifest entry.

use super::entry::{blank_entry, WRITING_OUTPUTS};
use super::fs::{give_back_buffer, read_file, take_buffer, Outputs};
use super::options::ExportOptions;
use super::previews::{
    grid_members, mesh_albedo, preview_texture_side, render_options, sampled_albedos, textured_grid_cells,
    PreviewTextures,
};
use super::textures::{export_textures_with_albedos, Sink, TEXTURE_DIR};
use crate::config::{Config, Format};
use crate::manifest::{directory, Code, ContainerEntry, GridCells, Kind, Reason, ResourceEntry, Status, StreamEntry};
use crate::names;
use crate::walker::DiscFile;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use xbg7::container::TAG_TX2D;
use xbg7::describe_declaration;
use xbg7::mesh::Mesh;
use xbg7::texture::maps::ROUGHNESS_KEY;
use xbg7::texture::TextureBudget;
use xbg7::{ContainerDecode, DecodedResource, Xpr};
use xbg7_gltf::gltf_out::{self, GltfOptions, Source};
use xbg7_gltf::scene;
use xbg7_preview::{preview, raster};

pub(super) fn export_container(
    f: &DiscFile,
    dir: &str,
    outputs: &Outputs<'_>,
    out_c: &Path,
    cfg: &Config,
    opts: &ExportOptions,
) -> ContainerEntry {
    let mut entry = blank_entry(f);
    if f.symlink {
        let target = std::fs::read_link(&f.abs)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        entry.error = Some(Reason::new(
            Code::SYMLINK,
            format!("symbolic link to {target:?} not followed"),
        ));
        return entry;
    }
    if let Some(what) = f.not_a_file {
        // Never opened: opening a FIFO would block the run.
        entry.error = Some(Reason::new(Code::IO, format!("{what}, not a regular file: not read")));
        return entry;
    }
    if let Some(present) = f.cut_off {
        // The disc image ends inside this file (cut off mid-download): as a cut file.
        let len = f.extent.map_or(0, |(_, l)| l);
        entry.size = present;
        entry.error = Some(Reason::new(
            xbg7::Code::Truncated,
            format!("the disc image ends {present} bytes into this file of {len} bytes (the image is cut off)"),
        ));
        return entry;
    }
    // The bytes go into this worker's buffer (kept for its next container: no fresh
    // pages to fault in and zero for every file), handed back when the container is done.
    let mut buf = take_buffer();
    match read_file(f, &mut buf) {
        Ok(()) => {
            entry.size = buf.len() as u64;
            entry = export_bytes(entry, &buf, dir, outputs, out_c, cfg, opts);
        }
        Err(reason) => entry.error = Some(reason),
    }
    give_back_buffer(buf);
    entry
}

/// The rest of [`export_container`], on the container's bytes.
fn export_bytes(
    mut entry: ContainerEntry,
    bytes: &[u8],
    dir: &str,
    outputs: &Outputs<'_>,
    out_c: &Path,
    cfg: &Config,
    opts: &ExportOptions,
) -> ContainerEntry {
    let kind = entry.kind;
    let xpr = match Xpr::parse(bytes) {
        Ok(x) => x,
        Err(e) => {
            entry.error = Some(e.into());
            return entry;
        }
    };
    let parsed = xpr.container();
    let decoded = xpr.meshes(kind, &cfg.decoding());
    (entry.textures, entry.other) = directory(parsed);
    let root = OutRoot {
        path: outputs.root(),
        canonical: out_c,
        outputs,
    };
    // Textures: PNGs + manifest entries, the links materials use, and (for the previews)
    // each albedo prepared for sampling while its decoded image is at hand.
    let previews = opts.previews && cfg.output.previews;
    // `.glb` models embed their textures: no PNG files, no folder made for them.
    let sink = match (cfg.output.format, cfg.output.texture_files) {
        (Format::Gltf, _) => Sink::Files,
        (Format::Glb, false) => Sink::Embedded,
        (Format::Glb, true) => Sink::Both,
    };
    let folder = || match sink {
        Sink::Embedded => Ok(root.path.join(dir)),
        Sink::Files | Sink::Both => root
            .container_dir(dir)
            .and_then(|abs| root.no_link_below(&abs, TEXTURE_DIR).map(|()| abs)),
    };
    let (links, prepared, embedded) = if parsed.resources.iter().any(|r| r.is(TAG_TX2D)) {
        match folder() {
            Ok(abs) => {
                let max_side = preview_texture_side(kind, cfg);
                // Only read by `prepare`, which runs only with previews.
                let needed = if previews {
                    sampled_albedos(&decoded)
                } else {
                    Default::default()
                };
                let prepare = |name: &str, img: &xbg7::texture::Image| {
                    needed
                        .contains(name)
                        .then(|| raster::Texture::reduced(img.width, img.height, &img.rgba, max_side))
                        .flatten()
                };
                let t = export_textures_with_albedos(
                    parsed,
                    &abs,
                    dir,
                    previews.then_some(&prepare),
                    cfg.output.specular_gloss,
                    outputs,
                    sink,
                );
                entry.textures = t.entries;
                (t.links, t.albedos, t.embedded)
            }
            Err(e) => {
                entry.error = Some(Reason::new(Code::IO, format!("{WRITING_OUTPUTS}: {e}")));
                return entry;
            }
        }
    } else {
        Default::default()
    };
    let tex = Textures {
        links: &links,
        prepared: &prepared,
        embedded: &embedded,
        files: sink != Sink::Embedded,
        embed_limit: TextureBudget::of(parsed).limit(),
    };
    if let Err(e) = write_container(&decoded, &mut entry, dir, &root, cfg, opts, &tex) {
        entry.error = Some(Reason::new(Code::IO, format!("{WRITING_OUTPUTS}: {e}")));
    }
    entry
}

/// Write the linked PNG `uri` (`textures/<file>.png`), which a `.glb` model references
/// instead of embedding it (past the container's embedding bound), into the container's
/// `textures/` folder, and list it as the `png` (or `roughness_png`) of every texture
/// entry linked to it.
fn write_linked_png(
    uri: &str,
    entry: &mut ContainerEntry,
    dir: &str,
    root: &OutRoot<'_>,
    tex: &Textures<'_>,
) -> std::io::Result<()> {
    let Some(bytes) = tex.embedded.get(uri) else {
        return Ok(());
    };
    let abs = root.container_dir(dir)?;
    root.no_link_below(&abs, TEXTURE_DIR)?;
    std::fs::create_dir_all(abs.join(TEXTURE_DIR))?;
    root.outputs.write(&abs.join(uri), bytes)?;
    let linked = |name: &str| tex.links.get(name).is_some_and(|u| u == uri);
    for e in &mut entry.textures {
        if linked(&e.name) {
            e.png = Some(format!("{dir}/{uri}"));
        }
        if linked(&format!("{}{ROUGHNESS_KEY}", e.name)) {
            e.roughness_png = Some(format!("{dir}/{uri}"));
        }
    }
    Ok(())
}

/// The output root: as given, and canonical (for the inside-`--out` checks).
pub(super) struct OutRoot<'a> {
    path: &'a Path,
    canonical: &'a Path,
    /// Every file goes through it (journalled before it is renamed into place).
    outputs: &'a Outputs<'a>,
}

impl OutRoot<'_> {
    /// Create a container's folder; it must resolve inside `--out` (a symlink planted in
    /// the output tree must not carry writes elsewhere).
    fn container_dir(&self, dir: &str) -> std::io::Result<PathBuf> {
        let abs = self.path.join(dir);
        match std::fs::symlink_metadata(&abs) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(std::io::Error::other(format!(
                    "{dir} is a symlink or a file, not a folder; not written through"
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir(&abs)?,
            Err(e) => return Err(e),
        }
        if !abs.canonicalize()?.starts_with(self.canonical) {
            return Err(std::io::Error::other(format!(
                "{dir} resolves outside the output folder"
            )));
        }
        Ok(abs)
    }

    /// `dir/name`, when it exists, must be a real folder (not a symlink): the texture
    /// export writes into `textures/` below a checked container folder, and a planted
    /// `textures` symlink sent the PNGs to its target.
    fn no_link_below(&self, dir: &Path, name: &str) -> std::io::Result<()> {
        match std::fs::symlink_metadata(dir.join(name)) {
            Ok(m) if !m.is_dir() => Err(std::io::Error::other(format!(
                "{}/{name} is a symlink or a file, not a folder; not written through",
                dir.strip_prefix(self.path).unwrap_or(dir).display()
            ))),
            _ => Ok(()),
        }
    }
}

pub(super) fn write_container(
    d: &ContainerDecode,
    entry: &mut ContainerEntry,
    dir: &str,
    root: &OutRoot<'_>,
    cfg: &Config,
    opts: &ExportOptions,
    tex: &Textures<'_>,
) -> std::io::Result<()> {
    let out = root.path;
    let links = tex.links;
    let make_dir = || root.container_dir(dir).map(|_| ());
    let files = file_names(d);
    let textures: Vec<String> = entry.textures.iter().map(|t| t.name.clone()).collect();
    let gopts = GltfOptions {
        axis: cfg.output.axis,
        vertex_color: cfg.output.vertex_color,
        specular_gloss: cfg.output.specular_gloss,
    };
    let writer = ModelWriter {
        out,
        outputs: root.outputs,
        dir,
        format: cfg.output.format,
        gopts: &gopts,
        links,
        embedded: tex.embedded,
        embed_left: Cell::new(tex.embed_limit),
        by_uri: RefCell::new(BTreeSet::new()),
    };
    // The linked PNGs written as files for the `.glb` models that reference them (past
    // the embedding bound; with `--textures` they are files already).
    let mut png_files: BTreeSet<String> = BTreeSet::new();
    let previews = opts.previews && cfg.output.previews;
    let ropts = render_options(cfg, cfg.output.preview_size);
    // A model's thumbnail for the report's rows, at the stage cells' size, when the
    // preview is bigger (a 512² preview is 60–190 KB shown at 48 px; issue 41: the demo
    // page loaded ~100 MB). By default the preview is that size and is its own thumbnail.
    let topts = (cfg.output.stage_cell < cfg.output.preview_size).then(|| render_options(cfg, cfg.output.stage_cell));
    let mut made_dir = false;
    // One set of render buffers for this container's model previews; its albedos were
    // prepared once, for all of its previews.
    let mut scratch = raster::Scratch::default();
    let prepared = tex.prepared;
    let mut scene_parts: Vec<Vec<u8>> = Vec::new();
    for (r, file) in d.resources.iter().zip(&files) {
        let name = String::from_utf8_lossy(&r.name).into_owned();
        if let Some(first) = r.same_as {
            entry
                .resources
                .push(listed_again(&entry.resources, first, r.index, name));
            continue;
        }
        let mut e = ResourceEntry::rejected(r.index, name.clone(), None);
        match &r.result {
            Err(reason) => e.reason = Some(reason.clone().into()),
            Ok(dr) => {
                if !made_dir {
                    make_dir()?;
                    made_dir = true;
                }
                let m = &dr.mesh;
                describe_decoded(&mut e, dr);
                let src = Source {
                    container: &entry.path,
                    directory_index: r.index,
                    name: &name,
                    textures: &textures,
                };
                let built = writer.write(m, file, &src)?;
                // The images it referenced by URI instead of embedding them.
                let by_uri = writer.by_uri.take();
                let written = match built {
                    Ok(w) => w,
                    Err(err) => {
                        let why = Reason::new(xbg7::Code::InvalidAttribute, err.to_string());
                        entry.resources.push(ResourceEntry::rejected(r.index, name, Some(why)));
                        continue;
                    }
                };
                e.gltf = Some(written.gltf);
                e.bin = written.bin;
                for uri in by_uri {
                    if !tex.files && png_files.insert(uri.clone()) {
                        write_linked_png(&uri, entry, dir, root, tex)?;
                    }
                }
                if !dr.skybox {
                    scene_parts.push(written.document);
                }
                if previews && entry.kind == Kind::Model {
                    let albedo = mesh_albedo(m, prepared);
                    let png = raster::encode_png(&raster::render_mesh_with(m, &ropts, &albedo, &mut scratch));
                    root.outputs.write(&out.join(dir).join(format!("{file}.png")), &png)?;
                    e.preview = Some(format!("{dir}/{file}.png"));
                    if let Some(topts) = &topts {
                        // `~` never comes out of a sanitised name: no resource is called so.
                        let png = raster::encode_png(&raster::render_mesh_with(m, topts, &albedo, &mut scratch));
                        root.outputs
                            .write(&out.join(dir).join(format!("{file}~thumb.png")), &png)?;
                        e.thumb = Some(format!("{dir}/{file}~thumb.png"));
                    }
                }
            }
        }
        entry.resources.push(e);
    }
    if entry.kind == Kind::Stage && !scene_parts.is_empty() {
        entry.scene = write_stage_scene(&scene_parts, &files, dir, root.outputs, cfg.output.format, &entry.path)?;
    }
    if previews && entry.kind == Kind::Stage && !d.resources.is_empty() {
        make_dir()?;
        write_stage_previews(d, entry, dir, &files, root, cfg, prepared)?;
    }
    Ok(())
}

/// Each resource's file stem: unique among the container's first listings; a later
/// listing of the same descriptor ([`xbg7::ResourceOutcome::same_as`]) has its first
/// listing's, and writes nothing of its own.
fn file_names(d: &ContainerDecode) -> Vec<String> {
    let raw: Vec<(u32, &[u8])> = d
        .resources
        .iter()
        .filter(|r| r.same_as.is_none())
        .map(|r| (r.index, r.name.as_slice()))
        .collect();
    let mut unique = names::unique_names(&raw).into_iter();
    let mut by_index: std::collections::HashMap<u32, String> = std::collections::HashMap::new();
    d.resources
        .iter()
        .map(|r| match r.same_as {
            Some(first) => by_index.get(&first).cloned().unwrap_or_default(),
            None => {
                let file = unique.next().unwrap_or_default();
                by_index.insert(r.index, file.clone());
                file
            }
        })
        .collect()
}

/// The manifest entry of a later listing of the descriptor at directory index `first`:
/// the first listing's entry (its facts and its output files, written once) under this
/// listing's index and name, with `same_as`.
fn listed_again(done: &[ResourceEntry], first: u32, index: u32, name: String) -> ResourceEntry {
    let mut e = done
        .iter()
        .find(|e| e.index == first)
        .cloned()
        .unwrap_or_else(|| ResourceEntry::rejected(index, name.clone(), None));
    e.index = index;
    e.name = name;
    e.same_as = Some(first);
    e
}

/// A decoded resource's manifest facts: layout, placement, declaration, counts, bbox,
/// digest, flags, split, note and streams (its outputs are the caller's).
fn describe_decoded(e: &mut ResourceEntry, dr: &DecodedResource) {
    let m = &dr.mesh;
    e.status = Status::Decoded;
    e.layout = Some(dr.layout);
    e.offset = dr.placements.first().map(|p| p.index_offset as u64);
    e.stride = Some(dr.decl.stride as u32);
    e.declaration = Some(describe_declaration(&dr.decl));
    e.vertices = m.vertex_count() as u32;
    e.triangles = m.triangle_count() as u32;
    e.submeshes = m.primitives.len() as u32;
    e.bbox = m.bbox().map(|(a, b)| [a, b]);
    e.digest = Some(m.digest());
    e.skybox = dr.skybox;
    e.spiky = dr.spiky;
    e.winding = dr.measures.winding_sense().map(str::to_string);
    e.split = dr.split.map(|k| k.as_str().to_string());
    e.reason = dr.note.clone().map(Reason::from);
    e.streams = dr
        .streams
        .iter()
        .map(|p| StreamEntry {
            stream: p.stream,
            stride: p.stride as u32,
            offset: p.offset.map(|o| o as u64),
            left_out: p.left_out.clone(),
        })
        .collect();
}

/// A stage's previews: the thumbnail grid (`preview.png`, or `preview~grid.png` when a
/// resource's file is called `preview`) and a thumbnail per decoded resource
/// (`<file>.png`, the resource's `preview`). A thumbnail is the render its grid cell
/// shows, handed over as the grid draws it (one render per resource); skybox planes
/// (not in the grid) and resources past the grid's pixel budget are rendered alone at
/// the cell size. A resource the glTF writer refused is a crossed cell with no thumbnail.
fn write_stage_previews(
    d: &ContainerDecode,
    entry: &mut ContainerEntry,
    dir: &str,
    files: &[String],
    root: &OutRoot<'_>,
    cfg: &Config,
    prepared: &PreviewTextures,
) -> std::io::Result<()> {
    let folder = root.path.join(dir);
    // `entry.resources` holds one entry per resource, in the decode's order.
    let written = |i: usize| entry.resources.get(i).is_some_and(|e| e.status == Status::Decoded);
    let members = grid_members(d.resources.iter());
    let mut cells: Vec<preview::Cell<'_>> = textured_grid_cells(d.resources.iter(), prepared)
        .into_iter()
        .zip(&members)
        .map(|(c, &i)| if written(i) { c } else { preview::Cell::Rejected })
        .collect();
    let shown = preview::grid_capacity(cells.len(), cfg.output.stage_cell, cfg.output.stage_max_width);
    if shown < cells.len() {
        entry.preview_cells = Some(GridCells {
            shown: shown as u32,
            total: u32::try_from(cells.len()).unwrap_or(u32::MAX),
        });
        cells.truncate(shown);
    }
    let ropts = render_options(cfg, cfg.output.stage_cell);
    // Encoded and written on the thread that drew them; the first error is kept.
    let thumbs: Vec<std::sync::OnceLock<std::io::Result<String>>> =
        (0..d.resources.len()).map(|_| std::sync::OnceLock::new()).collect();
    let save = |i: usize, img: &raster::Image| {
        let (Some(file), Some(slot)) = (files.get(i), thumbs.get(i)) else {
            return;
        };
        // A later listing's cell is drawn (the grid keeps a cell per entry); its
        // thumbnail is its first listing's, written once.
        if d.resources.get(i).is_some_and(|r| r.same_as.is_some()) {
            return;
        }
        let written = root
            .outputs
            .write(&folder.join(format!("{file}.png")), &raster::encode_png(img))
            .map(|()| format!("{dir}/{file}.png"));
        let _ = slot.set(written);
    };
    let grid = preview::stage_grid_with(
        &cells,
        cfg.output.stage_cell,
        cfg.output.stage_max_width,
        &ropts,
        &|k, img| save(members[k], img),
    );
    // The rest of the decoded resources, each at the grid's cell size.
    let cell_opts = raster::RenderOptions {
        size: preview::GridLayout::new(1, cfg.output.stage_cell, cfg.output.stage_max_width).cell,
        ..ropts
    };
    let mut scratch = raster::Scratch::default();
    let in_cells: std::collections::HashSet<usize> = members[..cells.len()].iter().copied().collect();
    for (i, r) in d.resources.iter().enumerate() {
        let Ok(dr) = &r.result else { continue };
        if in_cells.contains(&i) || !written(i) || r.same_as.is_some() {
            continue;
        }
        let albedo = mesh_albedo(&dr.mesh, prepared);
        save(
            i,
            &raster::render_mesh_with(&dr.mesh, &cell_opts, &albedo, &mut scratch),
        );
    }
    for (e, thumb) in entry.resources.iter_mut().zip(thumbs) {
        e.preview = thumb.into_inner().transpose()?;
    }
    // A later listing shows its first listing's thumbnail (drawn once).
    for k in 0..entry.resources.len() {
        if let Some(first) = entry.resources[k].same_as {
            let shown = entry.resources.iter().find(|e| e.index == first && e.same_as.is_none());
            entry.resources[k].preview = shown.and_then(|e| e.preview.clone());
        }
    }
    let grid_file = grid_file(files);
    root.outputs
        .write(&folder.join(grid_file), &raster::encode_png(&grid))?;
    entry.preview = Some(format!("{dir}/{grid_file}"));
    Ok(())
}

/// The stage grid's file name: `preview.png`, or `preview~grid.png` when a resource's
/// thumbnail is `preview.png` (`~` never comes out of [`names`]).
pub fn grid_file(files: &[String]) -> &'static str {
    if files.iter().any(|f| f.eq_ignore_ascii_case("preview")) {
        "preview~grid.png"
    } else {
        "preview.png"
    }
}

/// A container's exported textures: the material links, and the `_col` albedos prepared
/// for its previews (empty without previews).
pub(super) struct Textures<'a> {
    links: &'a xbg7::texture::maps::TextureLinks,
    prepared: &'a PreviewTextures,
    /// The PNG bytes `.glb` models embed, by link URI ([`Sink::Embedded`], [`Sink::Both`]).
    embedded: &'a BTreeMap<String, Vec<u8>>,
    /// Whether the PNGs are files too (not [`Sink::Embedded`]).
    files: bool,
    /// The image bytes the container's `.glb` models may embed in all: its texture bound
    /// ([`TextureBudget::limit`]).
    embed_limit: u64,
}

/// What [`ModelWriter::write`] wrote (paths relative to OUT) and the document it wrote (the
/// `.gltf` JSON or the `.glb` bytes), kept for the stage scene.
pub(super) struct WrittenModel {
    gltf: String,
    bin: Option<String>,
    document: Vec<u8>,
}

/// Where and how one container's models are written.
pub(super) struct ModelWriter<'a> {
    out: &'a Path,
    outputs: &'a Outputs<'a>,
    dir: &'a str,
    format: Format,
    gopts: &'a GltfOptions,
    links: &'a xbg7::texture::maps::TextureLinks,
    embedded: &'a BTreeMap<String, Vec<u8>>,
    /// What the container's `.glb` models may still embed, in image bytes: each model
    /// embeds a copy of every image it links, so `k` models linking one image would
    /// write it `k` times; past the bound an image is referenced by its URI instead.
    embed_left: Cell<u64>,
    /// The URIs the last model referenced instead of embedding them (files to write).
    by_uri: RefCell<BTreeSet<String>>,
}

impl ModelWriter<'_> {
    /// Write one decoded resource as `.gltf` + `.bin` (materials with their textures) or as
    /// one `.glb`; the inner error is the writer refusing the mesh (it becomes a reject).
    fn write(
        &self,
        m: &Mesh,
        file: &str,
        src: &Source<'_>,
    ) -> std::io::Result<Result<WrittenModel, gltf_out::GltfError>> {
        let (out, dir) = (self.out, self.dir);
        let bin_name = format!("{file}.bin");
        let output = match self.format {
            Format::Gltf => gltf_out::Output::Gltf { bin_uri: &bin_name },
            Format::Glb => gltf_out::Output::Glb,
        };
        // Charged in the order the models are written and their images listed.
        let png = |uri: &str| {
            let bytes = self.embedded.get(uri)?;
            match self.embed_left.get().checked_sub(bytes.len() as u64) {
                Some(left) => {
                    self.embed_left.set(left);
                    Some(bytes.as_slice())
                }
                None => {
                    self.by_uri.borrow_mut().insert(uri.to_string());
                    None
                }
            }
        };
        let textures = gltf_out::Textures {
            links: self.links,
            png: (self.format == Format::Glb).then_some(&png as gltf_out::PngLookup),
        };
        let built = match gltf_out::build(m, self.gopts, src, Some(textures), output) {
            Ok(b) => b,
            Err(e) => return Ok(Err(e)),
        };
        match built {
            gltf_out::Built::Gltf(g) => {
                self.outputs
                    .write(&out.join(dir).join(format!("{file}.gltf")), &g.gltf)?;
                self.outputs.write(&out.join(dir).join(&bin_name), &g.bin)?;
                Ok(Ok(WrittenModel {
                    gltf: format!("{dir}/{file}.gltf"),
                    bin: Some(format!("{dir}/{bin_name}")),
                    document: g.gltf,
                }))
            }
            gltf_out::Built::Glb(glb) => {
                self.outputs.write(&out.join(dir).join(format!("{file}.glb")), &glb)?;
                Ok(Ok(WrittenModel {
                    gltf: format!("{dir}/{file}.glb"),
                    bin: None,
                    document: glb,
                }))
            }
        }
    }
}

/// The stage scene's file stem: the container's folder name, or `<dir>~scene` when a
/// resource file already uses that name (`~scene` never comes out of [`names`]).
pub fn scene_stem(dir: &str, files: &[String]) -> String {
    if files.iter().any(|f| f.eq_ignore_ascii_case(dir)) {
        format!("{dir}~scene")
    } else {
        dir.to_string()
    }
}

/// Write the stage scene (every non-skybox decoded sub-model, see [`xbg7_gltf::scene`]) into
/// the stage's folder; its path relative to OUT, or `None` when it cannot be built (the
/// per-resource files are still valid, so this is not a container error).
pub(super) fn write_stage_scene(
    parts: &[Vec<u8>],
    files: &[String],
    dir: &str,
    outputs: &Outputs<'_>,
    format: Format,
    container: &str,
) -> std::io::Result<Option<String>> {
    let out = outputs.root();
    let stem = scene_stem(dir, files);
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    let (built, ext) = match format {
        Format::Gltf => (scene::merge_gltf(&refs, dir, container), "gltf"),
        Format::Glb => (scene::merge_glb(&refs, dir, container), "glb"),
    };
    let Ok(bytes) = built else {
        return Ok(None);
    };
    outputs.write(&out.join(dir).join(format!("{stem}.{ext}")), &bytes)?;
    Ok(Some(format!("{dir}/{stem}.{ext}")))
}
