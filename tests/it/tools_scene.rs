//! Stage scenes and `output.format`: export part of the demo disc and check that the
//! stage scene references every decoded non-skybox sub-model through the very `.bin`
//! files of the per-resource outputs (same bytes read back), lays them out without
//! overlap, and that the `glb` format writes self-contained files the manifest points to.

use xbg7_export::config::{Config, Format};
use xbg7_export::export::{export, scene_stem, ExportOptions};
use xbg7_export::manifest::{ContainerEntry, Kind, Manifest, Status};
use xbg7_synth::{write_disc, SynthOptions};

fn export_part(format: Format, glob: &str) -> (tempfile::TempDir, Manifest) {
    let mut cfg = Config::default();
    cfg.output.format = format;
    export_part_with(cfg, glob)
}

fn export_part_with(cfg: Config, glob: &str) -> (tempfile::TempDir, Manifest) {
    let tmp = tempfile::tempdir().unwrap();
    let disc = tmp.path().join("disc");
    write_disc(&disc, &SynthOptions::demo(1)).unwrap();
    let opts = ExportOptions {
        jobs: Some(2),
        only: Some(xbg7_export::export::Only::new(&[glob]).unwrap()),
        previews: false,
        progress: false,
        verbose: false,
    };
    let m = export(&disc, &tmp.path().join("out"), &cfg, &opts).unwrap();
    (tmp, m)
}

/// The mesh's POSITION accessor (the writer's primitives all share it).
fn positions(buffers: &[gltf::buffer::Data], mesh: &gltf::Mesh) -> Vec<[f32; 3]> {
    let p = mesh.primitives().next().unwrap();
    p.reader(|b| Some(&buffers[b.index()]))
        .read_positions()
        .unwrap()
        .collect()
}

fn bits(v: &[[f32; 3]]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.map(f32::to_bits)).collect()
}

/// The decoded, non-skybox resources of a stage, in directory order.
fn scene_members(c: &ContainerEntry) -> Vec<&xbg7_export::manifest::ResourceEntry> {
    c.resources
        .iter()
        .filter(|r| r.status == Status::Decoded && !r.skybox)
        .collect()
}

#[test]
fn stage_scene_shares_the_bins_and_lays_out_every_non_skybox_submodel() {
    let (tmp, m) = export_part(Format::Gltf, "Stage_S0[1-3].xpr");
    let out = tmp.path().join("out");
    let stages: Vec<&ContainerEntry> = m.containers.iter().filter(|c| c.kind == Kind::Stage).collect();
    assert_eq!(stages.len(), 3);
    let mut skyboxes = 0;
    for c in stages {
        let dir = c.path.rsplit('/').next().unwrap().trim_end_matches(".xpr");
        assert_eq!(c.scene.as_deref(), Some(format!("{dir}/{dir}.gltf").as_str()));
        skyboxes += c.resources.iter().filter(|r| r.skybox).count();
        let members = scene_members(c);
        let (doc, buffers, _) = gltf::import(out.join(c.scene.as_ref().unwrap())).unwrap();

        // One buffer per member, by the member's own .bin URI; no buffer is embedded.
        let uris: Vec<String> = doc
            .buffers()
            .map(|b| match b.source() {
                gltf::buffer::Source::Uri(u) => u.to_string(),
                gltf::buffer::Source::Bin => panic!("embedded buffer in a .gltf scene"),
            })
            .collect();
        let want: Vec<String> = members
            .iter()
            .map(|r| r.bin.as_ref().unwrap().rsplit('/').next().unwrap().to_string())
            .collect();
        assert_eq!(uris, want, "{}", c.path);

        // Root node named after the stage; one child per member, named as the resource.
        let scene = doc.default_scene().unwrap();
        let roots: Vec<gltf::Node> = scene.nodes().collect();
        assert_eq!(roots.len(), 1);
        assert_eq!(roots[0].name(), Some(dir));
        let children: Vec<gltf::Node> = roots[0].children().collect();
        assert_eq!(children.len(), members.len());
        let mut footprints = Vec::new();
        for (node, r) in children.iter().zip(&members) {
            assert_eq!(node.name(), Some(r.name.as_str()));
            let mesh = node.mesh().unwrap();
            // Same bytes as the per-resource file: positions bit-identical.
            let (rdoc, rbuf, _) = gltf::import(out.join(r.gltf.as_ref().unwrap())).unwrap();
            let mine = positions(&buffers, &mesh);
            let theirs = positions(&rbuf, &rdoc.meshes().next().unwrap());
            assert_eq!(bits(&mine), bits(&theirs), "{}", r.name);
            assert_eq!(mine.len() as u32, r.vertices);
            let tris: usize = mesh.primitives().map(|p| p.indices().unwrap().count() / 3).sum();
            assert_eq!(tris as u32, r.triangles);
            let materials: Vec<Option<&str>> = mesh.primitives().map(|p| p.material().name()).collect();
            let rmaterials: Vec<Option<&str>> = rdoc
                .meshes()
                .next()
                .unwrap()
                .primitives()
                .map(|p| p.material().name())
                .collect();
            assert_eq!(materials, rmaterials);

            // Placed footprint (XZ) and stands on the ground.
            let (t, _, _) = node.transform().decomposed();
            let bb = mesh.primitives().next().unwrap().bounding_box();
            let (mut lo, mut hi) = (bb.min, bb.max);
            for p in mesh.primitives() {
                let b = p.bounding_box();
                for k in 0..3 {
                    lo[k] = lo[k].min(b.min[k]);
                    hi[k] = hi[k].max(b.max[k]);
                }
            }
            assert!((lo[1] + t[1]).abs() < 1e-3 * (1.0 + hi[1] - lo[1]), "{} floats", r.name);
            footprints.push(([lo[0] + t[0], lo[2] + t[2]], [hi[0] + t[0], hi[2] + t[2]]));
        }
        for (i, a) in footprints.iter().enumerate() {
            for b in &footprints[i + 1..] {
                let overlap = a.0[0] < b.1[0] && b.0[0] < a.1[0] && a.0[1] < b.1[1] && b.0[1] < a.1[1];
                assert!(!overlap, "{}: footprints {a:?} and {b:?} overlap", c.path);
            }
        }
    }
    assert!(skyboxes > 0, "the sample should include a skybox plane to exclude");
}

#[test]
fn glb_format_writes_self_contained_files_and_no_bin() {
    let (tmp, m) = export_part(Format::Glb, "{Stage_S03.xpr,rou_f010.xpr}");
    let out = tmp.path().join("out");
    assert_eq!(m.containers.len(), 2);
    let mut files = 0;
    for c in &m.containers {
        for r in c.resources.iter().filter(|r| r.status == Status::Decoded) {
            let g = r.gltf.as_ref().unwrap();
            assert!(g.ends_with(".glb"), "{g}");
            assert_eq!(r.bin, None);
            let bytes = std::fs::read(out.join(g)).unwrap();
            assert_eq!(&bytes[..4], b"glTF");
            let (doc, buffers, _) = gltf::import_slice(&bytes).unwrap();
            let mesh = doc.meshes().next().unwrap();
            assert_eq!(positions(&buffers, &mesh).len() as u32, r.vertices);
            files += 1;
        }
        if c.kind == Kind::Stage {
            let scene = c.scene.as_deref().unwrap();
            assert_eq!(scene, "Stage_S03/Stage_S03.glb");
            let (doc, buffers, _) = gltf::import_slice(std::fs::read(out.join(scene)).unwrap()).unwrap();
            assert_eq!(doc.buffers().count(), 1);
            assert!(matches!(
                doc.buffers().next().unwrap().source(),
                gltf::buffer::Source::Bin
            ));
            let members = scene_members(c);
            let root = doc.default_scene().unwrap().nodes().next().unwrap();
            let children: Vec<gltf::Node> = root.children().collect();
            assert_eq!(children.len(), members.len());
            for (node, r) in children.iter().zip(&members) {
                let rbytes = std::fs::read(out.join(r.gltf.as_ref().unwrap())).unwrap();
                let (rdoc, rbuf, _) = gltf::import_slice(&rbytes).unwrap();
                let mine = positions(&buffers, &node.mesh().unwrap());
                let theirs = positions(&rbuf, &rdoc.meshes().next().unwrap());
                assert_eq!(bits(&mine), bits(&theirs), "{}", r.name);
            }
        } else {
            assert_eq!(c.scene, None);
        }
    }
    assert!(files > 2);
    // No .gltf, .bin or texture PNG anywhere in a glb export: the textures are embedded.
    let stray: Vec<_> = walkdir::WalkDir::new(&out)
        .into_iter()
        .map(|e| e.unwrap().path().to_path_buf())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "gltf" || e == "bin")
                || p.components().any(|c| c.as_os_str() == "textures")
        })
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    let decoded: Vec<_> = m
        .containers
        .iter()
        .flat_map(|c| &c.textures)
        .filter(|t| t.status == Some(Status::Decoded))
        .collect();
    assert!(!decoded.is_empty());
    assert!(decoded.iter().all(|t| t.png.is_none() && t.digest.is_some()));
    // And every image of every model is in its own BIN chunk.
    let mut images = 0;
    for r in m
        .containers
        .iter()
        .flat_map(|c| &c.resources)
        .filter(|r| r.status == Status::Decoded)
    {
        let bytes = std::fs::read(out.join(r.gltf.as_ref().unwrap())).unwrap();
        let (doc, _, imgs) = gltf::import_slice(&bytes).unwrap();
        for i in doc.images() {
            assert!(matches!(i.source(), gltf::image::Source::View { .. }), "{}", r.name);
            images += 1;
        }
        assert_eq!(imgs.len(), doc.images().count());
    }
    assert!(images > 0);
}

#[test]
fn glb_with_texture_files_also_writes_the_pngs_and_embeds_the_same() {
    let glob = "{Stage_S03.xpr,rou_f010.xpr}";
    let (plain_tmp, plain) = export_part(Format::Glb, glob);
    let mut cfg = Config::default();
    cfg.output.format = Format::Glb;
    cfg.output.texture_files = true;
    let (tmp, m) = export_part_with(cfg, glob);
    let out = tmp.path().join("out");
    let mut pngs = 0;
    for t in m.containers.iter().flat_map(|c| &c.textures) {
        if t.status == Some(Status::Decoded) {
            let png = t.png.as_ref().expect("a decoded texture names its file");
            assert!(std::fs::read(out.join(png)).unwrap().starts_with(b"\x89PNG"));
            pngs += 1;
        }
    }
    assert!(pngs > 0);
    // The models are the same bytes as without the files.
    for (c, pc) in m.containers.iter().zip(&plain.containers) {
        for (r, pr) in c.resources.iter().zip(&pc.resources) {
            if let (Some(g), Some(pg)) = (&r.gltf, &pr.gltf) {
                let mine = std::fs::read(out.join(g)).unwrap();
                let theirs = std::fs::read(plain_tmp.path().join("out").join(pg)).unwrap();
                assert!(mine == theirs, "{g}");
            }
        }
    }
}

#[test]
fn scene_stem_avoids_a_resource_named_like_the_stage() {
    let files = ["e001".to_string(), "stage_s01".to_string()];
    assert_eq!(scene_stem("Stage_S01", &files), "Stage_S01~scene");
    assert_eq!(scene_stem("Stage_S02", &files), "Stage_S02");
    assert_eq!(scene_stem("x", &[]), "x");
}

#[test]
fn format_key_parses_and_defaults_to_gltf() {
    assert_eq!(Config::default().output.format, Format::Gltf);
    let c = Config::from_toml("[output]\nformat = \"glb\"\n", "x").unwrap();
    assert_eq!(c.output.format, Format::Glb);
    let e = Config::from_toml("[output]\nformat = \"fbx\"\n", "x")
        .unwrap_err()
        .to_string();
    assert!(e.contains("fbx"), "{e}");
}

#[test]
fn primitives_with_one_material_name_share_one_material() {
    use xbg7::mesh::{Mesh, Primitive};
    use xbg7_gltf::gltf_out::{build, Axis, GltfOptions, Output, Source, VertexColor};
    let prim = |first, material: Option<&str>| Primitive {
        first_index: first,
        index_count: 3,
        material: material.map(str::to_string),
    };
    let mesh = Mesh {
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        indices: vec![0, 1, 2, 0, 2, 1, 1, 2, 0, 2, 0, 1],
        primitives: vec![
            prim(0, Some("a_col")),
            prim(3, Some("a_col")),
            prim(6, None),
            prim(9, Some("b_col")),
        ],
        ..Default::default()
    };
    let opts = GltfOptions {
        axis: Axis::Keep,
        vertex_color: VertexColor::Custom,
        specular_gloss: Default::default(),
    };
    let textures = ["a_col".to_string(), "b_col".to_string()];
    let src = Source {
        container: "c.xpr",
        directory_index: 0,
        name: "m",
        textures: &textures,
    };
    let files = build(&mesh, &opts, &src, None, Output::Gltf { bin_uri: "m.bin" })
        .unwrap()
        .into_gltf()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&files.gltf).unwrap();
    let names: Vec<&str> = doc["materials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a_col", "m_mat2", "b_col"]);
    let used: Vec<u64> = doc["meshes"][0]["primitives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["material"].as_u64().unwrap())
        .collect();
    assert_eq!(used, [0, 0, 1, 2]);
}
