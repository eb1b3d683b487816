//! The types the writer's modules share: the options ([`Axis`], [`VertexColor`],
//! [`SpecularGloss`] in [`GltfOptions`]), the [`Source`] named in `extras`, the
//! [`GltfFiles`] of a `.gltf` build and the [`GltfError`] a mesh is refused with.

/// How file-frame coordinates map to glTF.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// Treat the file as Direct3D left-handed: negate Z (positions, normals) and reverse
    /// the triangle winding so it still agrees with the normals. The default.
    #[default]
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

/// How a material's `_spc` (specular) and `_gls` (gloss) maps are written
/// (`pipeline.toml` `output.specular_gloss`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpecularGloss {
    /// `_gls` → roughness (`1 − gloss`, a derived `<gls>~roughness.png` in the green
    /// channel of `metallicRoughnessTexture`, roughness factor 1); `_spc` →
    /// `KHR_materials_specular` `specularColorTexture`. The default.
    #[default]
    Pbr,
    /// Only listed in the material's `extras.maps` (plain roughness 0.8, no specular).
    Extras,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GltfOptions {
    pub axis: Axis,
    pub vertex_color: VertexColor,
    pub specular_gloss: SpecularGloss,
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

/// Why a mesh cannot be written as valid glTF.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GltfError {
    #[error("mesh has no vertices")]
    NoVertices,
    #[error("mesh has no primitives")]
    NoPrimitives,
    #[error("{attribute} has {got} entries, expected one per vertex ({expected})")]
    AttributeLength {
        attribute: String,
        expected: usize,
        got: usize,
    },
    #[error("primitive {primitive}: indices {first}..+{count} outside the {total} indices")]
    PrimitiveRange {
        primitive: usize,
        first: u32,
        count: u32,
        total: usize,
    },
    #[error("primitive {primitive}: index count {count} is not a positive multiple of 3")]
    PrimitiveCount { primitive: usize, count: u32 },
    #[error("primitive {primitive}: index {index} is not below the vertex count {vertices}")]
    IndexOutOfRange {
        primitive: usize,
        index: u32,
        vertices: usize,
    },
    #[error("{attribute} of vertex {vertex} is not finite")]
    NonFinite { attribute: String, vertex: usize },
    #[error("output of {bytes} bytes is too large for glTF")]
    TooLarge { bytes: u64 },
    #[error("JSON serialisation failed: {0}")]
    Json(String),
}
