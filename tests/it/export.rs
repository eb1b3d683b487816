//! End to end: synthesize the demo disc, export it, and check the outputs — every glTF
//! reads back with the `gltf` crate and matches the manifest, every XBG7 resource is in
//! the manifest, and `--jobs 1` / `--jobs 2` give byte-identical trees.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use xbg7_export::config::Config;
use xbg7_export::export::{export, ExportOptions};
use xbg7_export::manifest::{Manifest, Status};

/// Export options: previews on, no progress bar, `jobs` threads.
fn options(jobs: usize) -> ExportOptions {
    ExportOptions::quiet(Some(jobs), true)
}

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn demo_export_reads_back_and_is_deterministic_across_thread_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let (disc, truth) = common::demo_disc(&tmp);
    let cfg = Config::default();
    let out1 = tmp.path().join("out1");
    let out2 = tmp.path().join("out2");
    let m1 = export(&disc, &out1, &cfg, &options(1)).unwrap();
    let m2 = export(&disc, &out2, &cfg, &options(2)).unwrap();
    assert_eq!(m1, m2);
    let (t1, t2) = (tree(&out1), tree(&out2));
    assert_eq!(t1.keys().collect::<Vec<_>>(), t2.keys().collect::<Vec<_>>());
    for (k, v) in &t1 {
        assert!(t2[k] == *v, "{k} differs between --jobs 1 and --jobs 2");
    }

    // The manifest on disk is the returned one, and lists every XBG7 resource of every file.
    let on_disk: Manifest = serde_json::from_slice(&std::fs::read(out1.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(on_disk, m1);
    assert_eq!(m1.containers.len(), truth.containers.len());
    let mut tcs: Vec<_> = truth.containers.iter().collect();
    tcs.sort_by(|a, b| a.path.cmp(&b.path));
    for (c, tc) in m1.containers.iter().zip(tcs) {
        assert_eq!(c.path, tc.path);
        let idx: Vec<u32> = c.resources.iter().map(|r| r.index).collect();
        let tidx: Vec<u32> = tc.resources.iter().map(|r| r.index).collect();
        assert_eq!(idx, tidx, "{}", c.path);
    }

    // Every glTF imports with the reference reader and matches the manifest's counts.
    let mut checked = 0;
    for c in &m1.containers {
        for r in c.resources.iter().filter(|r| r.status == Status::Decoded) {
            let path = out1.join(r.gltf.as_ref().unwrap());
            let (doc, buffers, _) = gltf::import(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mesh = doc.meshes().next().unwrap();
            assert_eq!(mesh.primitives().count() as u32, r.submeshes);
            let mut tris = 0;
            for p in mesh.primitives() {
                let reader = p.reader(|b| Some(&buffers[b.index()]));
                assert_eq!(reader.read_positions().unwrap().count() as u32, r.vertices);
                tris += reader.read_indices().unwrap().into_u32().count() / 3;
            }
            assert_eq!(tris as u32, r.triangles, "{}", path.display());
            checked += 1;
        }
    }
    assert_eq!(checked, m1.summary.total.decoded);
    assert!(checked > 0);
}

/// The `cell × cell` square of `img` at `(x, y)`.
fn crop(img: &xbg7_preview::raster::Image, (x, y): (u32, u32), cell: u32) -> xbg7_preview::raster::Image {
    let mut rgba = Vec::with_capacity((cell * cell * 4) as usize);
    for row in y..y + cell {
        let at = ((row * img.width + x) * 4) as usize;
        rgba.extend_from_slice(&img.rgba[at..at + (cell * 4) as usize]);
    }
    xbg7_preview::raster::Image {
        width: cell,
        height: cell,
        rgba,
    }
}

#[test]
fn export_previews_equal_renders_with_every_albedo_prepared() {
    // The export prepares only the albedos a preview can sample; a render given every
    // `_col` texture of the container (as `xbg7-export render` does) must be identical.
    use xbg7_export::export;
    use xbg7_export::manifest::Kind;
    use xbg7_preview::{preview, raster};
    let tmp = tempfile::tempdir().unwrap();
    let (disc, _) = common::demo_disc(&tmp);
    let cfg = Config::default();
    let out = tmp.path().join("out");
    let m = export(&disc, &out, &cfg, &options(2)).unwrap();
    let (mut models, mut stages, mut textured, mut thumbs) = (0, 0, 0, 0);
    for c in &m.containers {
        let bytes = std::fs::read(disc.join("hidden/resource3d").join(c.path.rsplit('/').next().unwrap())).unwrap();
        let Ok(d) = export::decode_container(&bytes, c.kind, &cfg) else {
            continue;
        };
        let parsed = xbg7::Xpr::parse(&bytes).unwrap().into_container();
        let all = export::prepare_albedos(
            &xbg7::texture::resource::decode_albedos(&parsed),
            export::preview_texture_side(c.kind, &cfg),
        );
        match c.kind {
            Kind::Model => {
                let ropts = export::render_options(&cfg, cfg.output.preview_size);
                for (r, e) in d.resources.iter().zip(&c.resources) {
                    let (Ok(dr), Some(png)) = (&r.result, &e.preview) else {
                        continue;
                    };
                    let albedo = export::mesh_albedo(&dr.mesh, &all);
                    textured += usize::from(albedo.iter().any(Option::is_some) && !dr.mesh.texcoords.is_empty());
                    let want = raster::encode_png(&raster::render_mesh_textured(&dr.mesh, &ropts, &albedo));
                    assert!(std::fs::read(out.join(png)).unwrap() == want, "{png}");
                    models += 1;
                }
            }
            Kind::Stage => {
                let Some(png) = &c.preview else { continue };
                let cells = export::textured_grid_cells(d.resources.iter(), &all);
                let img = preview::stage_grid(
                    &cells,
                    cfg.output.stage_cell,
                    cfg.output.stage_max_width,
                    &export::render_options(&cfg, cfg.output.stage_cell),
                );
                assert!(
                    std::fs::read(out.join(png)).unwrap() == raster::encode_png(&img),
                    "{png}"
                );
                stages += 1;
                // Every decoded resource's thumbnail is its grid cell (a skybox plane, not
                // in the grid, is rendered alone at the cell size).
                let layout = preview::GridLayout::new(cells.len(), cfg.output.stage_cell, cfg.output.stage_max_width);
                let members = export::grid_members(d.resources.iter());
                for (i, (r, e)) in d.resources.iter().zip(&c.resources).enumerate() {
                    let Ok(dr) = &r.result else {
                        assert!(e.preview.is_none(), "{}", e.name);
                        continue;
                    };
                    let thumb = e
                        .preview
                        .as_ref()
                        .unwrap_or_else(|| panic!("{} has no thumbnail", e.name));
                    let want = match members.iter().position(|&m| m == i) {
                        Some(k) => crop(&img, layout.origin(k), layout.cell),
                        None => {
                            assert!(dr.skybox, "{}: only skybox planes are left out of the grid", e.name);
                            let opts = export::render_options(&cfg, layout.cell);
                            raster::render_mesh_textured(&dr.mesh, &opts, &export::mesh_albedo(&dr.mesh, &all))
                        }
                    };
                    assert!(
                        std::fs::read(out.join(thumb)).unwrap() == raster::encode_png(&want),
                        "{thumb}"
                    );
                    thumbs += 1;
                }
            }
        }
    }
    assert!(thumbs > 100, "{thumbs} stage thumbnails");
    assert!(
        models > 5 && stages > 0 && textured > 0,
        "{models} models, {stages} stages, {textured} textured"
    );
}

#[test]
fn a_stage_resource_called_preview_keeps_its_thumbnail_beside_the_grid() {
    // A stage's thumbnails are `<file>.png` beside its grid `preview.png`: a resource
    // called `preview` moves the grid to `preview~grid.png` instead of overwriting it.
    let tmp = tempfile::tempdir().unwrap();
    let (disc, _) = common::demo_disc(&tmp);
    let path = disc.join("hidden/resource3d/Stage_S01.xpr");
    let mut bytes = std::fs::read(&path).unwrap();
    let (from, to) = (b"obj_s01_012\0", b"preview\0\0\0\0\0");
    let at = bytes
        .windows(from.len())
        .position(|w| w == from)
        .expect("the demo stage holds obj_s01_012");
    bytes[at..at + from.len()].copy_from_slice(to);
    std::fs::write(&path, bytes).unwrap();
    let out = tmp.path().join("out");
    let m = export(&disc, &out, &Config::default(), &options(2)).unwrap();
    let c = m.containers.iter().find(|c| c.path.ends_with("Stage_S01.xpr")).unwrap();
    let r = c
        .resources
        .iter()
        .find(|r| r.name == "preview")
        .expect("renamed resource");
    assert_eq!(r.status, Status::Decoded);
    let dir = c.preview.as_deref().unwrap().rsplit_once('/').unwrap().0.to_string();
    assert_eq!(c.preview.as_deref(), Some(format!("{dir}/preview~grid.png").as_str()));
    assert_eq!(r.preview.as_deref(), Some(format!("{dir}/preview.png").as_str()));
    let size = |p: &str| {
        let d = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(out.join(p)).unwrap()));
        let info = d.read_info().unwrap();
        (info.info().width, info.info().height)
    };
    let cell = Config::default().output.stage_cell;
    assert_eq!(size(r.preview.as_deref().unwrap()), (cell, cell));
    let (w, h) = size(c.preview.as_deref().unwrap());
    assert!(w > cell && h >= cell, "the grid is {w}×{h}");
}
