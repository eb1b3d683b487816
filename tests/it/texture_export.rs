//! Texture export end to end: a container with every format (and rejects) → PNGs and
//! manifest entries; a synthetic model exported by the pipeline → glTF materials that
//! reference its `_col` / `_lum` PNGs by relative URI (only when the mesh has UVs).

use std::path::Path;

use serde_json::Value;
use xbg7::container;
use xbg7::texture::resource::digest;
use xbg7::texture::{Image, TextureCode};
use xbg7_export::config::Config;
use xbg7_export::export::textures::export_textures;
use xbg7_export::export::{export, ExportOptions};
use xbg7_export::manifest::Status;
use xbg7_export::manifest::TextureCode::Decode;
use xbg7_synth::texture::{encode_texture, reference_image, tx2d_descriptor, TexFormat, TexPlan};
use xbg7_synth::{build_file, file_plan, FileKind, SynthOptions};

/// A minimal XPR2: TX2D entries (descriptor, name) over a data section laid out by the
/// caller.
fn xpr2(entries: &[(Vec<u8>, &str)], data: &[u8]) -> Vec<u8> {
    let n = entries.len();
    let dir_end = 4 + 16 * n + 4;
    let mut descs = Vec::new();
    let mut names = Vec::new();
    let mut rows = Vec::new();
    for (d, name) in entries {
        let d_off = dir_end + descs.len();
        descs.extend_from_slice(d);
        rows.push((d_off, d.len(), name));
    }
    let names_base = dir_end + descs.len();
    let mut block = (n as u32).to_be_bytes().to_vec();
    for (d_off, len, name) in rows {
        block.extend_from_slice(b"TX2D");
        block.extend_from_slice(&(d_off as u32).to_be_bytes());
        block.extend_from_slice(&(len as u32).to_be_bytes());
        block.extend_from_slice(&((names_base + names.len()) as u32).to_be_bytes());
        names.extend_from_slice(name.as_bytes());
        names.push(0);
    }
    block.extend_from_slice(&[0; 4]);
    block.extend_from_slice(&descs);
    block.extend_from_slice(&names);
    block.resize(block.len().div_ceil(2048) * 2048, 0);
    let mut out = b"XPR2".to_vec();
    out.extend_from_slice(&(block.len() as u32).to_be_bytes());
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(&block);
    out.extend_from_slice(data);
    out
}

fn read_png(path: &Path) -> Image {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    // Textures are written in the narrowest colour type that holds them exactly.
    let rgba = match info.color_type {
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::GrayscaleAlpha => buf.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::Rgba => buf,
        other => panic!("unexpected colour type {other:?}"),
    };
    Image {
        width: info.width,
        height: info.height,
        rgba,
    }
}

#[test]
fn every_format_exports_a_png_and_rejects_carry_codes() {
    let mut data = Vec::new();
    let mut entries = Vec::new();
    let mut plans = Vec::new();
    for (k, f) in TexFormat::ALL.into_iter().enumerate() {
        let t = TexPlan {
            name: format!("m{k}_col"),
            format: f,
            width: if k % 3 == 0 { 64 } else { 128 },
            height: if k % 2 == 0 { 128 } else { 64 },
            tiled: k % 4 != 3,
        };
        data.resize(data.len().div_ceil(4096) * 4096, 0);
        entries.push((
            tx2d_descriptor(&t, data.len() as u32).to_vec(),
            t.name.as_str().to_owned(),
        ));
        data.extend_from_slice(&encode_texture(&t));
        plans.push(t);
    }
    // An unknown format (k_8 = 2) and a base level in the packed mip tail.
    let mut unknown = tx2d_descriptor(&plans[0], 0);
    unknown[0x23] = (unknown[0x23] & 0xC0) | 2;
    entries.push((unknown.to_vec(), "odd_col".into()));
    let tiny = TexPlan {
        name: "tiny_col".into(),
        format: TexFormat::Dxt1,
        width: 16,
        height: 16,
        tiled: true,
    };
    let mut packed = tx2d_descriptor(&tiny, 0);
    packed[0x32] |= 1 << 3;
    entries.push((packed.to_vec(), "tiny_col".into()));
    let refs: Vec<(Vec<u8>, &str)> = entries.iter().map(|(d, n)| (d.clone(), n.as_str())).collect();
    let file = xpr2(&refs, &data);

    let c = container::parse(&file).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (es, links) = export_textures(&c, tmp.path(), "box", Default::default());
    assert_eq!(es.len(), 10);
    for (e, t) in es.iter().zip(&plans) {
        assert_eq!(e.status, Some(Status::Decoded), "{}: {:?}", t.name, e.reason);
        assert_eq!(e.format.as_deref(), Some(t.format.name()));
        assert_eq!(e.tiled, Some(t.tiled));
        let uri = format!("textures/{}.png", t.name);
        assert_eq!(e.png.as_deref(), Some(format!("box/{uri}").as_str()));
        assert_eq!(links.get(&t.name), Some(&uri));
        let img = read_png(&tmp.path().join(&uri));
        let px: Vec<[u8; 4]> = img.rgba.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
        assert!(px == reference_image(t), "{}", t.name);
        assert_eq!(e.digest.as_deref(), Some(digest(&img).as_str()));
    }
    assert_eq!(es[8].status, Some(Status::Rejected));
    assert_eq!(
        es[8].reason.as_ref().map(|r| r.code),
        Some(Decode(TextureCode::UnknownFormat))
    );
    assert_eq!(es[8].format.as_deref(), Some("unknown_2"));
    assert_eq!(
        es[9].reason.as_ref().map(|r| r.code),
        Some(Decode(TextureCode::PackedMipTail))
    );
    assert_eq!((es[9].png.as_ref(), es[9].digest.as_ref()), (None, None));
    assert_eq!(links.len(), 8);
}

fn load(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn pipeline_writes_pngs_and_textured_materials() {
    let plan = file_plan(&SynthOptions::demo(3));
    let tmp = tempfile::tempdir().unwrap();
    let disc = tmp.path().join("disc");
    let res = disc.join("hidden/resource3d");
    std::fs::create_dir_all(&res).unwrap();
    for spec in plan.iter().filter(|f| f.kind == FileKind::Model).take(4) {
        let f = build_file(spec);
        std::fs::write(disc.join(&f.rel_path), &f.bytes).unwrap();
    }
    let out = tmp.path().join("out");
    let opts = ExportOptions::quiet(Some(1), false);
    let m = export(&disc, &out, &Config::default(), &opts).unwrap();
    let mut textured = 0;
    let mut untextured = 0;
    for c in &m.containers {
        assert!(!c.textures.is_empty());
        for t in &c.textures {
            assert_eq!(t.status, Some(Status::Decoded), "{}: {:?}", t.name, t.reason);
            let png = out.join(t.png.as_ref().unwrap());
            assert_eq!(t.digest.as_deref(), Some(digest(&read_png(&png)).as_str()));
        }
        for r in c.resources.iter().filter(|r| r.status == Status::Decoded) {
            let gltf_path = out.join(r.gltf.as_ref().unwrap());
            let g = load(&gltf_path);
            let has_uv = g["meshes"][0]["primitives"][0]["attributes"]
                .get("TEXCOORD_0")
                .is_some();
            for mat in g["materials"].as_array().unwrap() {
                let name = mat["name"].as_str().unwrap();
                let maps = &mat["extras"]["maps"];
                let base_colour = &mat["pbrMetallicRoughness"]["baseColorTexture"];
                if name.ends_with("_col") {
                    let uri = format!("textures/{name}.png");
                    assert_eq!(maps["col"], Value::from(uri.clone()), "{name}");
                    if has_uv {
                        let tex = base_colour["index"].as_u64().unwrap() as usize;
                        let img = g["textures"][tex]["source"].as_u64().unwrap() as usize;
                        assert_eq!(g["images"][img]["uri"], Value::from(uri.clone()));
                        assert!(gltf_path.parent().unwrap().join(&uri).is_file());
                        assert_eq!(base_colour["texCoord"].as_u64().unwrap_or(0), 0);
                        if maps.get("lum").is_some() {
                            assert_eq!(mat["emissiveFactor"], serde_json::json!([1.0, 1.0, 1.0]));
                            assert!(mat["emissiveTexture"]["index"].is_u64());
                        }
                        textured += 1;
                    } else {
                        assert!(base_colour.is_null(), "{name}: no UVs, no texture");
                        assert!(g.get("images").is_none());
                        untextured += 1;
                    }
                }
            }
            // The gltf crate accepts the document (images resolved relative to it).
            let doc = gltf::Gltf::from_slice(&std::fs::read(&gltf_path).unwrap()).unwrap();
            assert_eq!(doc.materials().count(), g["materials"].as_array().unwrap().len());
        }
    }
    assert!(textured > 0, "no textured material in the sample");
    eprintln!("textured materials {textured}, without UVs {untextured}");
}

/// The first four model files of the seed-3 demo plan, exported with `cfg`.
fn export_models(cfg: &Config, tmp: &Path) -> (std::path::PathBuf, xbg7_export::manifest::Manifest) {
    let plan = file_plan(&SynthOptions::demo(3));
    let disc = tmp.join("disc");
    let res = disc.join("hidden/resource3d");
    std::fs::create_dir_all(&res).unwrap();
    for spec in plan.iter().filter(|f| f.kind == FileKind::Model).take(4) {
        let f = build_file(spec);
        std::fs::write(disc.join(&f.rel_path), &f.bytes).unwrap();
    }
    let out = tmp.join("out");
    let opts = ExportOptions::quiet(Some(1), false);
    let m = export(&disc, &out, cfg, &opts).unwrap();
    (out, m)
}

/// The JSON chunk of a `.glb` and its BIN chunk.
fn glb_parts(bytes: &[u8]) -> (Value, Vec<u8>) {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&bytes[..4], b"glTF");
    let jlen = u32_at(12);
    let json: Value = serde_json::from_slice(&bytes[20..20 + jlen]).unwrap();
    let at = 20 + jlen;
    let blen = u32_at(at);
    (json, bytes[at + 8..at + 8 + blen].to_vec())
}

#[test]
fn glb_embeds_the_same_textured_materials_as_the_gltf() {
    let tmp = tempfile::tempdir().unwrap();
    let (gl_out, gl_m) = export_models(&Config::default(), &tmp.path().join("a"));
    let mut cfg = Config::default();
    cfg.output.format = xbg7_export::config::Format::Glb;
    let (glb_out, glb_m) = export_models(&cfg, &tmp.path().join("b"));
    let (mut images, mut roughness, mut specular) = (0, 0, 0);
    for (gc, bc) in gl_m.containers.iter().zip(&glb_m.containers) {
        for (gr, br) in gc.resources.iter().zip(&bc.resources) {
            let (Some(gp), Some(bp)) = (&gr.gltf, &br.gltf) else {
                continue;
            };
            assert!(bp.ends_with(".glb") && br.bin.is_none());
            let g = load(&gl_out.join(gp));
            let (b, bin) = glb_parts(&std::fs::read(glb_out.join(bp)).unwrap());
            // Same materials, textures, samplers and extensions; images embedded.
            for key in ["materials", "textures", "samplers", "extensionsUsed", "extras"] {
                assert_eq!(g.get(key), b.get(key), "{bp}: {key}");
            }
            let gi = g["images"].as_array().cloned().unwrap_or_default();
            let bi = b["images"].as_array().cloned().unwrap_or_default();
            assert_eq!(gi.len(), bi.len(), "{bp}: images");
            for (gim, bim) in gi.iter().zip(&bi) {
                assert!(bim.get("uri").is_none(), "{bp}: an image by URI");
                assert_eq!(bim["mimeType"], "image/png");
                // Named in both formats after the texture file (Blender shows the name).
                let stem = gim["uri"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .trim_end_matches(".png");
                assert_eq!(bim["name"], stem, "{bp}: image name");
                assert_eq!(gim["name"], stem, "{gp}: image name");
                let view = &b["bufferViews"][bim["bufferView"].as_u64().unwrap() as usize];
                assert!(view.get("target").is_none());
                let off = view["byteOffset"].as_u64().unwrap_or(0) as usize;
                assert_eq!(off % 4, 0);
                let len = view["byteLength"].as_u64().unwrap() as usize;
                let dir = gl_out.join(gp);
                let png = std::fs::read(dir.parent().unwrap().join(gim["uri"].as_str().unwrap())).unwrap();
                assert!(
                    bin[off..off + len] == png[..],
                    "{bp}: embedded bytes differ from the PNG"
                );
                images += 1;
            }
            // The gltf crate accepts the embedded images.
            let doc = gltf::Gltf::from_slice(&std::fs::read(glb_out.join(bp)).unwrap()).unwrap();
            for im in doc.images() {
                assert!(matches!(im.source(), gltf::image::Source::View { .. }));
            }
            // "pbr" (the default): gloss → roughness texture, specular → KHR_materials_specular.
            for mat in g["materials"].as_array().unwrap() {
                let maps = &mat["extras"]["maps"];
                let uv = mat["pbrMetallicRoughness"].get("baseColorTexture").is_some();
                if maps.get("gls").is_some() && uv {
                    let t = mat["pbrMetallicRoughness"]["metallicRoughnessTexture"]["index"]
                        .as_u64()
                        .unwrap();
                    let img = g["textures"][t as usize]["source"].as_u64().unwrap() as usize;
                    let uri = g["images"][img]["uri"].as_str().unwrap();
                    assert!(uri.ends_with("~roughness.png"), "{uri}");
                    assert_eq!(mat["pbrMetallicRoughness"]["roughnessFactor"], 1.0);
                    let gls = read_png(&gl_out.join(gp).parent().unwrap().join(maps["gls"].as_str().unwrap()));
                    let rough = read_png(&gl_out.join(gp).parent().unwrap().join(uri));
                    for (a, b) in gls.rgba.chunks_exact(4).zip(rough.rgba.chunks_exact(4)) {
                        assert_eq!(b, [255, 255 - a[0], 0, 255]);
                    }
                    roughness += 1;
                }
                if maps.get("spc").is_some() && uv {
                    let sp = &mat["extensions"]["KHR_materials_specular"]["specularColorTexture"];
                    assert!(sp["index"].is_u64(), "{mat}");
                    assert!(g["extensionsUsed"]
                        .as_array()
                        .unwrap()
                        .contains(&Value::from("KHR_materials_specular")));
                    specular += 1;
                }
            }
        }
    }
    eprintln!("embedded images {images}, roughness maps {roughness}, specular maps {specular}");
    assert!(images > 0 && roughness > 0 && specular > 0);

    // "extras": no derived maps, no extension.
    let mut cfg = Config::default();
    cfg.output.specular_gloss = xbg7_gltf::gltf_out::SpecularGloss::Extras;
    let (out, m) = export_models(&cfg, &tmp.path().join("c"));
    for c in &m.containers {
        for r in c.resources.iter().filter_map(|r| r.gltf.as_ref()) {
            let g = load(&out.join(r));
            assert!(g.get("extensionsUsed").is_none());
            for mat in g["materials"].as_array().unwrap() {
                assert!(mat["pbrMetallicRoughness"].get("metallicRoughnessTexture").is_none());
            }
        }
    }
}

/// Not a check: exports the disc at `$XBG7_TEX_DISC` into `$XBG7_TEX_OUT` (for the Khronos
/// glTF-Validator over textured outputs).
#[test]
#[ignore]
fn export_disc_for_the_validator() {
    let (Some(disc), Some(out)) = (std::env::var_os("XBG7_TEX_DISC"), std::env::var_os("XBG7_TEX_OUT")) else {
        return;
    };
    let opts = ExportOptions::quiet(Some(2), false);
    export(Path::new(&disc), Path::new(&out), &Config::default(), &opts).unwrap();
}
