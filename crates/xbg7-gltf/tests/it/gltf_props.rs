//! Property tests: any valid mesh round-trips through `.glb` and the `gltf` reader.

use gltf::Semantic;
use proptest::prelude::*;
use xbg7::mesh::{Mesh, Primitive};
use xbg7_gltf::gltf_out::{build, Axis, GltfOptions, Output, Source, VertexColor};

fn finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        -1.0e4f32..1.0e4,
        Just(0.0f32),
        Just(-0.0f32),
        any::<f32>().prop_filter("finite", |f| f.is_finite()),
    ]
}

/// A valid mesh: 1..40 vertices, optional normals (any values, even zero/NaN), 0..2
/// UV sets, optional colours, 1..4 primitives covering the index list.
fn mesh() -> impl Strategy<Value = Mesh> {
    (1usize..40).prop_flat_map(|n| {
        (
            prop::collection::vec([finite(), finite(), finite()], n),
            prop::option::of(prop::collection::vec([any::<f32>(), any::<f32>(), any::<f32>()], n)),
            prop::collection::vec(prop::collection::vec([finite(), finite()], n), 0..3),
            prop::option::of(prop::collection::vec([any::<f32>(); 4], n)),
            prop::collection::vec(prop::collection::vec(0..n as u32, 1..6), 1..4),
        )
            .prop_map(move |(positions, normals, texcoords, colors, prims)| {
                let mut indices = Vec::new();
                let mut primitives = Vec::new();
                for (k, tris) in prims.iter().enumerate() {
                    let first = indices.len() as u32;
                    for &t in tris {
                        indices.extend([t, (t + 1) % n as u32, (t + 2) % n as u32]);
                    }
                    primitives.push(Primitive {
                        first_index: first,
                        index_count: indices.len() as u32 - first,
                        material: (k % 2 == 0).then(|| format!("m{k}")),
                    });
                }
                Mesh {
                    positions,
                    normals,
                    texcoords,
                    colors,
                    indices,
                    primitives,
                }
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn glb_round_trip(m in mesh(), flip in any::<bool>()) {
        let axis = if flip { Axis::FlipZ } else { Axis::Keep };
        let opts = GltfOptions {
            axis,
            vertex_color: VertexColor::Color0,
            specular_gloss: Default::default(),
        };
        let tex = vec!["t_col".to_string()];
        let src = Source { container: "c.xpr", directory_index: 1, name: "r", textures: &tex };
        let glb = build(&m, &opts, &src, None, Output::Glb).unwrap().into_glb().unwrap();
        // Same binary data as the .gltf + .bin form.
        let files = build(&m, &opts, &src, None, Output::Gltf { bin_uri: "r.bin" }).unwrap().into_gltf().unwrap();
        let (doc, buffers, _) = gltf::import_slice(&glb).unwrap();
        prop_assert_eq!(&buffers[0][..files.bin.len()], &files.bin[..]);

        let mut all = Vec::new();
        for (k, prim) in doc.meshes().next().unwrap().primitives().enumerate() {
            let r = prim.reader(|b| Some(&buffers[b.index()]));
            let pos: Vec<[f32; 3]> = r.read_positions().unwrap().collect();
            for (got, want) in pos.iter().zip(&m.positions) {
                let z = if flip { -want[2] } else { want[2] };
                prop_assert_eq!(got.map(f32::to_bits), [want[0], want[1], z].map(f32::to_bits));
            }
            if m.normals.is_some() {
                for nv in r.read_normals().unwrap() {
                    let len = nv.iter().map(|&c| f64::from(c).powi(2)).sum::<f64>().sqrt();
                    prop_assert!((len - 1.0).abs() < 1e-6, "{:?}", nv);
                }
            }
            for (set, want) in m.texcoords.iter().enumerate() {
                let uv: Vec<[f32; 2]> =
                    r.read_tex_coords(set as u32).unwrap().into_f32().collect();
                prop_assert_eq!(&uv, want);
            }
            if let Some(cs) = r.read_colors(0) {
                for c in cs.into_rgba_f32() {
                    prop_assert!(c.iter().all(|x| (0.0..=1.0).contains(x)));
                }
            }
            let idx: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
            prop_assert_eq!(idx.len() as u32, m.primitives[k].index_count);
            all.extend(idx);
            // Exact bounds of what was written. (serde_json's default float parser,
            // used by the gltf crate, may be one f64 ulp off on long decimals; the
            // value read back as f32 is exact.)
            let acc = prim.get(&Semantic::Positions).unwrap();
            let (min, max) = (acc.min().unwrap(), acc.max().unwrap());
            for c in 0..3 {
                let lo = pos.iter().map(|p| p[c]).fold(f32::INFINITY, f32::min);
                let hi = pos.iter().map(|p| p[c]).fold(f32::NEG_INFINITY, f32::max);
                prop_assert_eq!(min[c].as_f64().unwrap() as f32, lo);
                prop_assert_eq!(max[c].as_f64().unwrap() as f32, hi);
            }
        }
        let want: Vec<u32> = if flip {
            m.indices.chunks(3).flat_map(|t| [t[0], t[2], t[1]]).collect()
        } else {
            m.indices.clone()
        };
        prop_assert_eq!(all, want);
    }
}
