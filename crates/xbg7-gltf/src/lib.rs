//! xbg7-gltf: glTF 2.0 documents from decoded XBG7 meshes. `gltf_out` writes one
//! resource (buffers, accessors, materials with the texture links, extras naming the
//! source) as `.gltf` + `.bin` or `.glb`; `scene` merges a stage's per-resource documents
//! into one scene laid out as a cast sheet. Bytes in, bytes out: the exporter writes them.

pub mod gltf_out;
pub mod scene;
