//! The glTF JSON of one resource: buffer views, accessors, the mesh with its
//! primitives and plain materials, the node and the extras naming the source.

use std::collections::BTreeMap;

use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
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

/// The glTF document for an encoded mesh; `uri: None` for GLB (embedded buffer): the
/// root with its buffer, the attribute accessors, the primitives with their index
/// accessors and materials, then the mesh, its node and the scene.
pub(super) fn document(enc: &Encoded, uri: Option<&str>, mesh: &Mesh, src: &Source<'_>) -> json::Root {
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
    let attributes = push_attributes(&mut root, enc, buffer);
    let primitives = push_primitives(&mut root, enc, buffer, &attributes, mesh, src);
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

/// The primitives' shared attributes: one buffer view and one f32 accessor each.
type Attributes = BTreeMap<Checked<json::mesh::Semantic>, json::Index<json::Accessor>>;

/// A buffer view of `len` bytes at `offset` of `buffer`.
fn push_view(
    root: &mut json::Root,
    buffer: json::Index<json::Buffer>,
    offset: usize,
    len: usize,
    target: json::buffer::Target,
) -> json::Index<json::buffer::View> {
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
}

/// An accessor of `count` elements at `offset` of `view`, with `min`/`max` when `bounds`.
fn accessor(
    view: json::Index<json::buffer::View>,
    offset: usize,
    count: usize,
    ct: ComponentType,
    type_: Type,
    bounds: Option<([f32; 3], [f32; 3])>,
) -> json::Accessor {
    let (min, max) = match bounds {
        Some((lo, hi)) => (Some(json_vec(&lo)), Some(json_vec(&hi))),
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
}

/// One `ARRAY_BUFFER` view and one accessor per encoded attribute.
fn push_attributes(root: &mut json::Root, enc: &Encoded, buffer: json::Index<json::Buffer>) -> Attributes {
    let mut attributes = BTreeMap::new();
    for a in &enc.attributes {
        let v = push_view(root, buffer, a.offset, a.len, json::buffer::Target::ArrayBuffer);
        let acc = root.push(accessor(v, 0, enc.vertex_count, ComponentType::F32, a.type_, a.bounds));
        attributes.insert(Checked::Valid(a.semantic.clone()), acc);
    }
    attributes
}

/// The index view, then per primitive its index accessor and its material (one per
/// material name, see the module doc of `gltf_out`).
fn push_primitives(
    root: &mut json::Root,
    enc: &Encoded,
    buffer: json::Index<json::Buffer>,
    attributes: &Attributes,
    mesh: &Mesh,
    src: &Source<'_>,
) -> Vec<json::mesh::Primitive> {
    let (index_ct, index_size) = if enc.index_u32 {
        (ComponentType::U32, 4)
    } else {
        (ComponentType::U16, 2)
    };
    let index_len = enc.bin.len() - enc.index_offset;
    let index_view = push_view(
        root,
        buffer,
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
    primitives
}
