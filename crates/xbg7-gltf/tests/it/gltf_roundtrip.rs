//! Round trips of `gltf_out` through the `gltf` reader crate, golden bytes, and errors.

use gltf::accessor::DataType;
use gltf::buffer::Target;
use gltf::Semantic;
use serde_json::{json, Value};
use xbg7::mesh::{Mesh, Primitive};
use xbg7_gltf::gltf_out::{self, Axis, GltfError, GltfFiles, GltfOptions, Output, Source, VertexColor};

/// `.gltf` + `.bin` of an untextured mesh, or why it cannot be written.
fn try_build(mesh: &Mesh, bin_uri: &str, opts: &GltfOptions, src: &Source<'_>) -> Result<GltfFiles, GltfError> {
    gltf_out::build(mesh, opts, src, None, Output::Gltf { bin_uri }).map(|b| b.into_gltf().unwrap())
}

/// `.gltf` + `.bin` of an untextured valid mesh.
fn build(mesh: &Mesh, bin_uri: &str, opts: &GltfOptions, src: &Source<'_>) -> GltfFiles {
    try_build(mesh, bin_uri, opts, src).unwrap()
}

/// `.glb` of an untextured valid mesh.
fn build_glb(mesh: &Mesh, opts: &GltfOptions, src: &Source<'_>) -> Vec<u8> {
    gltf_out::build(mesh, opts, src, None, Output::Glb)
        .unwrap()
        .into_glb()
        .unwrap()
}

fn opts(axis: Axis, vertex_color: VertexColor) -> GltfOptions {
    GltfOptions {
        axis,
        vertex_color,
        specular_gloss: Default::default(),
    }
}

fn textures() -> Vec<String> {
    vec!["f001_wep_00_col".to_string(), "f001_wep_00_spc".to_string()]
}

fn source(textures: &[String]) -> Source<'_> {
    Source {
        container: "hidden/resource3d/f001.xpr",
        directory_index: 3,
        name: "rou_f001_wep_00",
        textures,
    }
}

/// Six vertices, two primitives (one named material, one unnamed), non-unit normals,
/// two UV sets, colours (one out of range), awkward floats (0.1, -0.0, 0.0 in Z).
fn sample() -> Mesh {
    Mesh {
        positions: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.1],
            [0.0, 1.0, -2.5],
            [0.5, 0.25, 3.0e-3],
            [-1.5, 2.0, -0.0],
            [7.0, -3.0, 12.75],
        ],
        normals: Some(vec![
            [0.0, 0.0, 2.0],
            [0.6, 0.8, 0.0],
            [0.0, -0.5, 0.0],
            [1.0, 1.0, 1.0],
            [0.0, 0.0, -0.9],
            [3.0, 0.0, 4.0],
        ]),
        texcoords: vec![
            vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.1, 0.2], [0.3, 0.7], [1.5, -0.25]],
            vec![[0.5; 2]; 6],
        ],
        colors: Some(vec![
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
            [0.0, 0.0, 1.0, 0.5],
            [0.2, 0.4, 0.6, 0.8],
            [1.5, -0.1, 0.5, 1.0],
            [0.0, 0.0, 0.0, 0.0],
        ]),
        indices: vec![0, 1, 2, 1, 3, 2, 3, 4, 5],
        primitives: vec![
            Primitive {
                first_index: 0,
                index_count: 6,
                material: Some("f001_wep_00_col".to_string()),
            },
            Primitive {
                first_index: 6,
                index_count: 3,
                material: None,
            },
        ],
    }
}

fn triangle() -> Mesh {
    Mesh {
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.5]],
        normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
        texcoords: vec![vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]],
        colors: None,
        indices: vec![0, 1, 2],
        primitives: vec![Primitive {
            first_index: 0,
            index_count: 3,
            material: None,
        }],
    }
}

/// Write the files into a temp dir and import them with the `gltf` crate.
fn import(files: &GltfFiles, stem: &str) -> (gltf::Document, Vec<gltf::buffer::Data>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(format!("{stem}.gltf")), &files.gltf).unwrap();
    std::fs::write(dir.path().join(format!("{stem}.bin")), &files.bin).unwrap();
    let (doc, buffers, _images) = gltf::import(dir.path().join(format!("{stem}.gltf"))).unwrap();
    (doc, buffers)
}

fn extras(e: &gltf::json::Extras) -> Value {
    serde_json::from_str(e.as_ref().expect("extras present").get()).unwrap()
}

fn bits3(v: &[[f32; 3]]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.map(f32::to_bits)).collect()
}

fn unit_len(n: [f32; 3]) -> f64 {
    n.iter().map(|&c| f64::from(c) * f64::from(c)).sum::<f64>().sqrt()
}

fn renormalised(n: [f32; 3]) -> [f32; 3] {
    let l = unit_len(n);
    n.map(|c| (f64::from(c) / l) as f32)
}

fn flip(v: [f32; 3]) -> [f32; 3] {
    [v[0], v[1], -v[2]]
}

#[test]
fn flipz_round_trip_preserves_every_value() {
    let mesh = sample();
    let tex = textures();
    let files = build(
        &mesh,
        "rou_f001_wep_00.bin",
        &opts(Axis::FlipZ, VertexColor::Color0),
        &source(&tex),
    );
    let (doc, buffers) = import(&files, "rou_f001_wep_00");
    assert_eq!(buffers.len(), 1);
    // The reader pads its copy to 4 bytes; the data itself is the .bin file.
    assert_eq!(&buffers[0][..files.bin.len()], &files.bin[..]);
    assert_eq!(doc.buffers().next().unwrap().length(), files.bin.len());

    let gmesh = doc.meshes().next().unwrap();
    assert_eq!(doc.meshes().count(), 1);
    assert_eq!(gmesh.name(), Some("rou_f001_wep_00"));
    let prims: Vec<_> = gmesh.primitives().collect();
    assert_eq!(prims.len(), 2);

    let want_pos: Vec<[f32; 3]> = mesh.positions.iter().map(|&p| flip(p)).collect();
    let want_nrm: Vec<[f32; 3]> = mesh
        .normals
        .as_ref()
        .unwrap()
        .iter()
        .map(|&n| flip(renormalised(n)))
        .collect();
    let want_idx = [vec![0u32, 2, 1, 1, 2, 3], vec![3u32, 5, 4]];
    let want_col: Vec<[f32; 4]> = mesh
        .colors
        .as_ref()
        .unwrap()
        .iter()
        .map(|c| c.map(|x| x.clamp(0.0, 1.0)))
        .collect();

    for (k, prim) in prims.iter().enumerate() {
        assert_eq!(prim.mode(), gltf::mesh::Mode::Triangles);
        let r = prim.reader(|b| Some(&buffers[b.index()]));
        let pos: Vec<[f32; 3]> = r.read_positions().unwrap().collect();
        assert_eq!(bits3(&pos), bits3(&want_pos), "exact mirrored positions");
        // -0.0 in the file becomes +0.0 and vice versa: a pure sign flip.
        assert_eq!(pos[0][2].to_bits(), (-0.0f32).to_bits());
        assert_eq!(pos[4][2].to_bits(), 0.0f32.to_bits());
        let nrm: Vec<[f32; 3]> = r.read_normals().unwrap().collect();
        assert_eq!(bits3(&nrm), bits3(&want_nrm));
        for n in &nrm {
            assert!((unit_len(*n) - 1.0).abs() < 1e-6, "{n:?} not unit");
        }
        assert_eq!(nrm[5], [0.6, 0.0, -0.8]);
        for set in 0..2u32 {
            let uv: Vec<[f32; 2]> = r.read_tex_coords(set).unwrap().into_f32().collect();
            assert_eq!(uv, mesh.texcoords[set as usize], "uv set {set} as stored");
        }
        assert!(r.read_tex_coords(2).is_none());
        let col: Vec<[f32; 4]> = r.read_colors(0).unwrap().into_rgba_f32().collect();
        assert_eq!(col, want_col);
        let idx: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
        assert_eq!(idx, want_idx[k], "reversed winding of primitive {k}");
        let ia = prim.indices().unwrap();
        assert_eq!(ia.data_type(), DataType::U16);
        assert_eq!(ia.view().unwrap().target(), Some(Target::ElementArrayBuffer));
        // Attribute accessors are shared between primitives.
        assert_eq!(
            prim.get(&Semantic::Positions).unwrap().index(),
            prims[0].get(&Semantic::Positions).unwrap().index()
        );
    }

    // POSITION min/max: exact values of the written (mirrored) data.
    let pa = prims[0].get(&Semantic::Positions).unwrap();
    assert_eq!(pa.min().unwrap(), json!([-1.5, -3.0, -12.75]));
    assert_eq!(pa.max().unwrap(), json!([7.0, 2.0, 2.5]));
    assert_eq!(pa.view().unwrap().target(), Some(Target::ArrayBuffer));
    assert_eq!(pa.view().unwrap().stride(), None);

    // Materials: named from the primitive or <name>_mat<k>, textures in extras.
    let mats: Vec<_> = prims.iter().map(|p| p.material()).collect();
    assert_eq!(mats[0].name(), Some("f001_wep_00_col"));
    assert_eq!(mats[1].name(), Some("rou_f001_wep_00_mat1"));
    assert_eq!(doc.materials().count(), 2);
    for m in &mats {
        assert_eq!(extras(m.extras()), json!({ "textures": tex }));
        let pbr = m.pbr_metallic_roughness();
        assert_eq!(pbr.metallic_factor(), 0.0);
        assert_eq!(pbr.roughness_factor(), 0.8);
        assert_eq!(pbr.base_color_factor(), [1.0; 4]);
        assert!(!m.double_sided());
    }

    // Node, scene, asset and source extras.
    let source_json = json!({
        "source": { "container": "hidden/resource3d/f001.xpr", "directory_index": 3 }
    });
    assert_eq!(doc.nodes().count(), 1);
    let node = doc.nodes().next().unwrap();
    assert_eq!(node.name(), Some("rou_f001_wep_00"));
    assert_eq!(node.mesh().unwrap().index(), 0);
    assert_eq!(extras(node.extras()), source_json);
    assert_eq!(extras(&doc.as_json().extras), source_json);
    assert_eq!(doc.default_scene().unwrap().index(), 0);
    assert_eq!(doc.scenes().count(), 1);
    let asset = &doc.as_json().asset;
    assert_eq!(asset.version, "2.0");
    assert_eq!(
        asset.generator.as_deref(),
        Some(concat!("xbg7-export ", env!("CARGO_PKG_VERSION")))
    );
}

#[test]
fn keep_mode_writes_stored_values_and_winding() {
    let mut mesh = sample();
    // Unit normals survive renormalisation bit-exactly.
    mesh.normals = Some(vec![
        [0.0, 0.0, 1.0],
        [0.6, 0.8, 0.0],
        [0.0, -1.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 0.0, -1.0],
        [0.0, 1.0, 0.0],
    ]);
    let tex = textures();
    let files = build(&mesh, "m.bin", &opts(Axis::Keep, VertexColor::Drop), &source(&tex));
    let (doc, buffers) = import(&files, "m");
    let prims: Vec<_> = doc.meshes().next().unwrap().primitives().collect();
    let mut all_indices = Vec::new();
    for prim in &prims {
        let r = prim.reader(|b| Some(&buffers[b.index()]));
        let pos: Vec<[f32; 3]> = r.read_positions().unwrap().collect();
        assert_eq!(bits3(&pos), bits3(&mesh.positions));
        let nrm: Vec<[f32; 3]> = r.read_normals().unwrap().collect();
        assert_eq!(&nrm, mesh.normals.as_ref().unwrap());
        assert!(r.read_colors(0).is_none(), "colours dropped");
        all_indices.extend(r.read_indices().unwrap().into_u32());
    }
    assert_eq!(all_indices, mesh.indices);
    assert_eq!(prims[0].attributes().count(), 4); // POSITION, NORMAL, TEXCOORD_0/1
    let pa = prims[0].get(&Semantic::Positions).unwrap();
    assert_eq!(pa.min().unwrap(), json!([-1.5, -3.0, -2.5]));
    // 0.1f32 written as its exact f64 value.
    assert_eq!(pa.max().unwrap(), json!([7.0, 2.0, 12.75]));
    let text = String::from_utf8(files.gltf.clone()).unwrap();
    assert!(!text.contains("COLOR_0") && !text.contains("_VERTEXCOLOR"));
}

#[test]
fn custom_vertex_color_attribute() {
    let mesh = sample();
    let tex = textures();
    let files = build(&mesh, "m.bin", &opts(Axis::FlipZ, VertexColor::Custom), &source(&tex));
    let (doc, buffers) = import(&files, "m");
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    assert!(prim.get(&Semantic::Colors(0)).is_none());
    let acc = prim
        .get(&Semantic::Extras("VERTEXCOLOR".to_string()))
        .expect("_VERTEXCOLOR");
    assert_eq!(acc.data_type(), DataType::F32);
    assert_eq!(acc.dimensions(), gltf::accessor::Dimensions::Vec4);
    assert_eq!(acc.count(), 6);
    let view = acc.view().unwrap();
    let bytes = &buffers[0][view.offset() + acc.offset()..][..view.length()];
    let vals: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(&vals[16..20], &[1.0, 0.0, 0.5, 1.0], "clamped to [0, 1]");
    assert_eq!(&vals[12..16], &[0.2, 0.4, 0.6, 0.8]);
}

#[test]
fn index_width_u16_below_65535_else_u32() {
    let tex = textures();
    for (vertices, top, want) in [
        (65535usize, 65534u32, DataType::U16),
        (65536, 65535, DataType::U32),
        (70000, 69999, DataType::U32),
    ] {
        let mesh = Mesh {
            positions: (0..vertices).map(|i| [i as f32, (i % 7) as f32, 1.0]).collect(),
            indices: vec![0, 1, top, top, 1, 2],
            primitives: vec![Primitive {
                first_index: 0,
                index_count: 6,
                material: None,
            }],
            ..Default::default()
        };
        let files = build(&mesh, "big.bin", &opts(Axis::FlipZ, VertexColor::Color0), &source(&tex));
        let (doc, buffers) = import(&files, "big");
        let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
        assert_eq!(prim.indices().unwrap().data_type(), want, "{vertices}");
        let idx: Vec<u32> = prim
            .reader(|b| Some(&buffers[b.index()]))
            .read_indices()
            .unwrap()
            .into_u32()
            .collect();
        assert_eq!(idx, vec![0, top, 1, top, 2, 1]);
        let size = if want == DataType::U16 { 2 } else { 4 };
        assert_eq!(files.bin.len(), vertices * 12 + 6 * size);
    }
}

#[test]
fn glb_reads_back_like_the_gltf() {
    let mesh = sample();
    let tex = textures();
    let o = opts(Axis::FlipZ, VertexColor::Color0);
    let glb = build_glb(&mesh, &o, &source(&tex));
    assert_eq!(&glb[0..4], b"glTF");
    assert_eq!(u32::from_le_bytes(glb[4..8].try_into().unwrap()), 2);
    assert_eq!(u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize, glb.len());
    assert_eq!(glb.len() % 4, 0);
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    assert_eq!(&glb[16..20], b"JSON");
    assert_eq!(json_len % 4, 0);
    let bin_at = 20 + json_len;
    assert_eq!(&glb[bin_at + 4..bin_at + 8], b"BIN\0");

    let parsed = gltf::Gltf::from_slice(&glb).unwrap();
    assert!(parsed.blob.is_some());
    assert!(matches!(
        parsed.buffers().next().unwrap().source(),
        gltf::buffer::Source::Bin
    ));
    let (doc, buffers, _) = gltf::import_slice(&glb).unwrap();

    let files = build(&mesh, "s.bin", &o, &source(&tex));
    assert_eq!(&buffers[0][..files.bin.len()], &files.bin[..], "same binary data");
    let (doc2, buffers2) = import(&files, "s");
    for (a, b) in doc
        .meshes()
        .next()
        .unwrap()
        .primitives()
        .zip(doc2.meshes().next().unwrap().primitives())
    {
        let ra = a.reader(|x| Some(&buffers[x.index()]));
        let rb = b.reader(|x| Some(&buffers2[x.index()]));
        let ia: Vec<u32> = ra.read_indices().unwrap().into_u32().collect();
        let ib: Vec<u32> = rb.read_indices().unwrap().into_u32().collect();
        assert_eq!(ia, ib);
        let pa: Vec<[f32; 3]> = ra.read_positions().unwrap().collect();
        let pb: Vec<[f32; 3]> = rb.read_positions().unwrap().collect();
        assert_eq!(bits3(&pa), bits3(&pb));
        assert_eq!(a.material().name(), b.material().name());
    }
}

#[test]
fn output_is_deterministic() {
    let mesh = sample();
    let tex = textures();
    let o = opts(Axis::FlipZ, VertexColor::Color0);
    let a = build(&mesh, "x.bin", &o, &source(&tex));
    let b = build(&mesh.clone(), "x.bin", &o, &source(&tex.clone()));
    assert_eq!(a, b);
    assert_eq!(build_glb(&mesh, &o, &source(&tex)), build_glb(&mesh, &o, &source(&tex)));
}

#[test]
fn golden_triangle() {
    let mesh = triangle();
    let tex = vec!["tri_col".to_string()];
    let src = Source {
        container: "hidden/resource3d/tri.xpr",
        directory_index: 0,
        name: "tri",
        textures: &tex,
    };
    let files = build(&mesh, "tri.bin", &opts(Axis::FlipZ, VertexColor::Color0), &src);
    let want_bin = concat!(
        // POSITION: (0,0,-0) (1,0,-0) (0,1,-0.5)
        "00000000", "00000000", "00000080", "0000803f", "00000000", "00000080", "00000000", "0000803f",
        "000000bf", // NORMAL: (0,0,-1) x3
        "00000000", "00000000", "000080bf", "00000000", "00000000", "000080bf", "00000000", "00000000",
        "000080bf", // TEXCOORD_0
        "00000000", "00000000", "0000803f", "00000000", "00000000", "0000803f", // indices u16: 0 2 1
        "0000", "0200", "0100",
    );
    let hex: String = files.bin.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, want_bin);
    let golden = include_str!("golden/triangle.gltf");
    let got = String::from_utf8(files.gltf).unwrap();
    if std::env::var_os("XBG7_BLESS").is_some() {
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/golden/triangle.gltf"),
            &got,
        )
        .unwrap();
    }
    assert_eq!(got, golden);
}

#[test]
fn zero_and_non_finite_normals_fall_back_to_face_normals() {
    let mut mesh = triangle();
    mesh.positions.push([5.0, 5.0, 5.0]); // isolated vertex
    mesh.texcoords[0].push([0.0, 0.0]);
    mesh.normals = Some(vec![
        [0.0, 0.0, 0.0],
        [f32::NAN, 0.0, 1.0],
        [0.0, 0.0, 3.0],
        [0.0, 0.0, 0.0],
    ]);
    let tex = textures();
    for axis in [Axis::FlipZ, Axis::Keep] {
        let files = build(&mesh, "t.bin", &opts(axis, VertexColor::Color0), &source(&tex));
        let (doc, buffers) = import(&files, "t");
        let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
        let r = prim.reader(|b| Some(&buffers[b.index()]));
        let nrm: Vec<[f32; 3]> = r.read_normals().unwrap().collect();
        // The face normal (b - a) x (c - a) of the written triangle, normalised.
        let p: Vec<[f32; 3]> = r.read_positions().unwrap().collect();
        let i: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
        let at = |k: usize| p[i[k] as usize].map(f64::from);
        let (a, b, c) = (at(0), at(1), at(2));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let cross = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let len = cross.iter().map(|x| x * x).sum::<f64>().sqrt();
        let face = cross.map(|x| (x / len) as f32);
        assert_eq!(nrm[0], face, "{axis:?}");
        assert_eq!(nrm[1], face, "{axis:?}");
        let stored = if axis == Axis::FlipZ { -1.0 } else { 1.0 };
        assert_eq!(nrm[2], [0.0, 0.0, stored]);
        assert_eq!(nrm[3], [0.0, 0.0, 1.0], "isolated vertex: +Z of the output frame");
        // The winding agrees with the stored normal in both modes.
        let dot: f32 = face.iter().zip(nrm[2]).map(|(x, y)| x * y).sum();
        assert!(dot > 0.8, "{axis:?}: face {face:?} vs normal {:?}", nrm[2]);
    }
}

#[test]
fn invalid_meshes_are_rejected_with_reasons() {
    let tex = textures();
    let o = opts(Axis::FlipZ, VertexColor::Color0);
    let src = source(&tex);
    let err = |m: &Mesh| try_build(m, "e.bin", &o, &src).unwrap_err();

    assert_eq!(err(&Mesh::default()), GltfError::NoVertices);
    let mut m = triangle();
    m.primitives.clear();
    assert_eq!(err(&m), GltfError::NoPrimitives);
    let mut m = triangle();
    m.indices[1] = 3;
    assert_eq!(
        err(&m),
        GltfError::IndexOutOfRange {
            primitive: 0,
            index: 3,
            vertices: 3
        }
    );
    let mut m = triangle();
    m.primitives[0].index_count = 6;
    assert_eq!(
        err(&m),
        GltfError::PrimitiveRange {
            primitive: 0,
            first: 0,
            count: 6,
            total: 3
        }
    );
    let mut m = triangle();
    m.primitives[0].first_index = u32::MAX;
    assert!(matches!(err(&m), GltfError::PrimitiveRange { .. }));
    let mut m = triangle();
    m.primitives[0].index_count = 2;
    assert_eq!(err(&m), GltfError::PrimitiveCount { primitive: 0, count: 2 });
    let mut m = triangle();
    m.texcoords[0].pop();
    assert_eq!(
        err(&m),
        GltfError::AttributeLength {
            attribute: "TEXCOORD_0".into(),
            expected: 3,
            got: 2
        }
    );
    let mut m = triangle();
    m.positions[2][0] = f32::INFINITY;
    assert_eq!(
        err(&m),
        GltfError::NonFinite {
            attribute: "POSITION".into(),
            vertex: 2
        }
    );
    let mut m = triangle();
    m.texcoords[0][1][1] = f32::NAN;
    assert_eq!(
        err(&m),
        GltfError::NonFinite {
            attribute: "TEXCOORD_0".into(),
            vertex: 1
        }
    );
    assert_eq!(err(&m).to_string(), "TEXCOORD_0 of vertex 1 is not finite");
}

/// Not a check: writes sample outputs for the Khronos glTF-Validator when
/// `XBG7_GLTF_DUMP=<dir>` is set (`cargo test --test gltf_roundtrip -- --ignored`).
#[test]
#[ignore]
fn dump_samples_for_validator() {
    let Some(dir) = std::env::var_os("XBG7_GLTF_DUMP") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let tex = textures();
    let big = Mesh {
        positions: (0..70000).map(|i| [i as f32, (i % 7) as f32, (i % 3) as f32]).collect(),
        normals: Some((0..70000).map(|i| [0.0, (i % 2) as f32, 0.0]).collect()),
        indices: (0..69999u32).flat_map(|i| [i, i + 1, (i + 2) % 70000]).collect(),
        primitives: vec![
            Primitive {
                first_index: 0,
                index_count: 3000,
                material: None,
            },
            Primitive {
                first_index: 3000,
                index_count: 69999 * 3 - 3000,
                material: None,
            },
        ],
        ..Default::default()
    };
    let cases: Vec<(&str, Mesh, GltfOptions)> = vec![
        ("sample_flip", sample(), opts(Axis::FlipZ, VertexColor::Color0)),
        ("sample_keep", sample(), opts(Axis::Keep, VertexColor::Custom)),
        ("sample_drop", sample(), opts(Axis::FlipZ, VertexColor::Drop)),
        ("triangle", triangle(), opts(Axis::FlipZ, VertexColor::Color0)),
        ("big_u32", big, opts(Axis::FlipZ, VertexColor::Color0)),
    ];
    for (stem, mesh, o) in cases {
        let files = build(&mesh, &format!("{stem}.bin"), &o, &source(&tex));
        std::fs::write(dir.join(format!("{stem}.gltf")), &files.gltf).unwrap();
        std::fs::write(dir.join(format!("{stem}.bin")), &files.bin).unwrap();
        std::fs::write(dir.join(format!("{stem}.glb")), build_glb(&mesh, &o, &source(&tex))).unwrap();
    }
}
