//! The glTF JSON of one resource: buffer views, accessors, the mesh with its
//! primitives and plain materials, the node and the extras naming the source.

use std::collections::BTreeMap;

use gltf_json as json;
use json::validation::{Checked, USize64};

use xbg7::mesh::Mesh;

use super::buffer::Encoded;
use super::types::Source;

/// An f32 vector as a JSON array of the exact f64 values.
pub(super) fn json_vec(v: &[f32]) -> json::Value {
    json::Value::Array(v.iter().map(|&c| json::Value::from(f64::from(c))).collect())
}

pub(super) fn raw(value: &serde_json::Value) -> json::extras::Extras {
    // Serialising an in-memory `Value` cannot fail.
    serde_json::value::to_raw_value(value).ok()
}

/// The glTF document for an encoded mesh; `uri: None` for GLB (embedded buffer).
pub(super) fn document(enc: &Encoded, uri: Option<&str>, mesh: &Mesh, src: &Source<'_>) -> json::Root {
    use json::accessor::{ComponentType, GenericComponentType, Type};
    let source = serde_json::json!({
        "source": { "container": src.container, "directory_index": src.directory_index }
    });
    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(format!("xbg7-export {}", env!("CARGO_PKG_VERSION"))),
            version: "2.0".to_string(),
            ..Default::default()
        },
        extras: raw(&source),
        ..Default::default()
    };
    let buffer = root.push(json::Buffer {
        byte_length: USize64::from(enc.bin.len()),
        name: None,
        uri: uri.map(str::to_string),
        extensions: None,
        extras: None,
    });
    let view = |root: &mut json::Root, offset: usize, len: usize, target| {
        root.push(json::buffer::View {
            buffer,
            byte_length: USize64::from(len),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: Some(Checked::Valid(target)),
            extensions: None,
            extras: None,
        })
    };
    let accessor = |view, offset: usize, count: usize, ct, type_, bounds: Option<_>| {
        let (min, max) = match bounds {
            Some((lo, hi)) => {
                let (lo, hi): ([f32; 3], [f32; 3]) = (lo, hi);
                (Some(json_vec(&lo)), Some(json_vec(&hi)))
            }
            None => (None, None),
        };
        json::Accessor {
            buffer_view: Some(view),
            byte_offset: (offset > 0).then(|| USize64::from(offset)),
            count: USize64::from(count),
            component_type: Checked::Valid(GenericComponentType(ct)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        }
    };

    let mut attributes = BTreeMap::new();
    for a in &enc.attributes {
        let v = view(&mut root, a.offset, a.len, json::buffer::Target::ArrayBuffer);
        let acc = root.push(accessor(v, 0, enc.vertex_count, ComponentType::F32, a.type_, a.bounds));
        attributes.insert(Checked::Valid(a.semantic.clone()), acc);
    }
    let (index_ct, index_size) = if enc.index_u32 {
        (ComponentType::U32, 4)
    } else {
        (ComponentType::U16, 2)
    };
    let index_len = enc.bin.len() - enc.index_offset;
    let index_view = view(
        &mut root,
        enc.index_offset,
        index_len,
        json::buffer::Target::ElementArrayBuffer,
    );

    let textures = serde_json::json!({ "textures": src.textures });
    let primitive = |attributes, indices, material| json::mesh::Primitive {
        attributes,
        extensions: None,
        extras: None,
        indices: Some(indices),
        material: Some(material),
        mode: Checked::Valid(json::mesh::Mode::Triangles),
        targets: None,
    };
    let mut materials_by_name = BTreeMap::new();
    let mut primitives = Vec::with_capacity(enc.primitives.len());
    for (k, (&(start, count), prim)) in enc.primitives.iter().zip(&mesh.primitives).enumerate() {
        let indices = root.push(accessor(
            index_view,
            start * index_size,
            count,
            index_ct,
            Type::Scalar,
            None,
        ));
        let material_name = prim.material.clone().unwrap_or_else(|| format!("{}_mat{k}", src.name));
        if let Some(&m) = materials_by_name.get(&material_name) {
            // One material per name: Blender would import a second one as `name.001`.
            primitives.push(primitive(attributes.clone(), indices, m));
            continue;
        }
        let material = root.push(json::Material {
            name: Some(material_name.clone()),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(0.8),
                ..Default::default()
            },
            double_sided: false,
            extras: raw(&textures),
            ..Default::default()
        });
        materials_by_name.insert(material_name, material);
        primitives.push(primitive(attributes.clone(), indices, material));
    }
    let mesh_index = root.push(json::Mesh {
        extensions: None,
        extras: None,
        name: Some(src.name.to_string()),
        primitives,
        weights: None,
    });
    let node = root.push(json::Node {
        mesh: Some(mesh_index),
        name: Some(src.name.to_string()),
        extras: raw(&source),
        ..Default::default()
    });
    let scene = root.push(json::Scene {
        extensions: None,
        extras: None,
        name: None,
        nodes: vec![node],
    });
    root.scene = Some(scene);
    root
}
