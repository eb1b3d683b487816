//! glTF 2.0 writer: one decoded resource → `.gltf` JSON + `.bin` bytes, deterministic.

use crate::mesh::Mesh;

/// How file-frame coordinates map to glTF.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// Treat the file as Direct3D left-handed: negate Z (positions, normals) and reverse
    /// the triangle winding so it still agrees with the normals. The default.
    FlipZ,
    /// Write values exactly as stored.
    Keep,
}

/// What to do with a decoded vertex colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VertexColor {
    /// Standard `COLOR_0` (multiplies base colour in viewers).
    Color0,
    /// Custom `_VERTEXCOLOR` attribute (kept, but not applied by viewers).
    Custom,
    /// Not written.
    Drop,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GltfOptions {
    pub axis: Axis,
    pub vertex_color: VertexColor,
}

/// Where the resource came from (goes into `extras`).
#[derive(Clone, Debug, PartialEq)]
pub struct Source<'a> {
    /// Container path relative to the disc root, '/'-separated.
    pub container: &'a str,
    pub directory_index: u32,
    /// Resource name (lossy UTF-8), used for node and mesh names.
    pub name: &'a str,
    /// TX2D resource names of the container (listed in material extras).
    pub textures: &'a [String],
}

/// The two output files of one resource.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfFiles {
    pub gltf: Vec<u8>,
    pub bin: Vec<u8>,
}

/// Build `.gltf` + `.bin`; `bin_uri` is the relative URI written into the buffer.
pub fn build(mesh: &Mesh, bin_uri: &str, opts: &GltfOptions, src: &Source<'_>) -> GltfFiles {
    let _ = (mesh, bin_uri, opts, src);
    todo!("gltf helper")
}
