//! Ground truth of a synthetic disc: what every container holds and, for every XBG7
//! resource, the exact geometry a correct decoder must produce (`mesh`, in memory only)
//! and its canonical digest. Serialised as `truth.json` (schema `xbg7-export.truth/1`).

use serde::{Deserialize, Serialize};

use xbg7::mesh::Mesh;

/// Schema tag written into every `truth.json`.
pub const TRUTH_SCHEMA: &str = "xbg7-export.truth/1";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthDisc {
    pub schema: String,
    pub seed: u64,
    pub scale: String,
    /// Generated with the imperfection families (`synth --realism`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub realism: bool,
    pub containers: Vec<TruthContainer>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthContainer {
    /// Disc-relative path, e.g. `hidden/resource3d/Stage_S07.xpr`.
    pub path: String,
    /// `"model"` or `"stage"`.
    pub kind: String,
    /// File-level category: the category of a model's resources, `"stage"` for stages.
    pub category: String,
    /// File size in bytes.
    pub size: u64,
    /// Every XBG7 resource, in directory order.
    pub resources: Vec<TruthResource>,
    /// Every TX2D resource, in directory order.
    pub textures: Vec<TruthTexture>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthResource {
    /// Directory index (position among all directory entries).
    pub index: u32,
    pub name: String,
    pub category: String,
    /// `"decoded"`, `"rejected"`, or `"decoded_or_rejected"` (either decoded equal to
    /// the truth or rejected with a reason; resources without a NORMAL element).
    pub expected: String,
    /// Marker-level counts: total vertices (u32 at marker−32) and total indices.
    pub vertex_count: u32,
    pub index_count: u32,
    /// Stride of stream 0.
    pub stride: u32,
    pub blocks: Vec<TruthBlock>,
    /// `Mesh::digest()` of `mesh` unless expected rejected.
    pub digest: Option<String>,
    /// With several primitives: the digest of the same geometry as one primitive
    /// ([`Mesh::unsplit`]), what a decoder emits when the sub-mesh split is undecidable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_unsplit: Option<String>,
    pub skybox: bool,
    /// Directory index of the original when this is an exact duplicate.
    pub duplicate_of: Option<u32>,
    /// Imperfection family (`synth --realism`): `imperfect_normals`, `degenerate_share`,
    /// `flipped_share`, `unreferenced_share`, `owner_trap_owner`, `owner_trap_sibling`,
    /// `owner_trap_damaged`, `record_filler`, `record_order` or `per_record_blocks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// The geometry a correct decoder produces (in memory only).
    #[serde(skip)]
    pub mesh: Option<Mesh>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthBlock {
    /// Data-section-relative offset of the index buffer.
    pub index_offset: u64,
    /// Data-section-relative offset of the (stream 0) vertex buffer.
    pub vertex_offset: u64,
    pub vertex_count: u32,
    pub index_count: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthTexture {
    pub name: String,
    /// Directory index.
    pub index: u32,
    /// The XDK format name: `"DXT1"`, `"DXT2_3"`, `"DXT4_5"`, `"DXN"`, `"DXT5A"`,
    /// `"CTX1"`, `"8_8_8_8"` or `"5_6_5"`.
    pub format: String,
    pub width: u32,
    pub height: u32,
    /// Data-section-relative payload offset (4096-aligned) and payload size in bytes
    /// (the padded tiled footprint when tiled).
    pub data_offset: u64,
    pub data_size: u64,
    /// Stored in the Xenos tiled order.
    #[serde(default)]
    pub tiled: bool,
    /// BLAKE3 of the image a correct decoder produces (width, height as u32 LE, then
    /// RGBA8 rows): the manifest's texture `digest`.
    #[serde(default)]
    pub digest: Option<String>,
}

impl TruthContainer {
    /// A copy without the in-memory meshes (what `truth.json` holds).
    pub fn without_meshes(&self) -> TruthContainer {
        let mut c = self.clone();
        for r in c.resources.iter_mut() {
            r.mesh = None;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_drops_only_the_mesh() {
        let r = TruthResource {
            index: 0,
            name: "e003".into(),
            category: "stage".into(),
            expected: "decoded".into(),
            vertex_count: 8,
            index_count: 36,
            stride: 20,
            blocks: vec![TruthBlock {
                index_offset: 16,
                vertex_offset: 88,
                vertex_count: 8,
                index_count: 36,
            }],
            digest: Some("ab".into()),
            digest_unsplit: Some("cd".into()),
            skybox: false,
            duplicate_of: None,
            family: None,
            mesh: Some(Mesh::default()),
        };
        let c = TruthContainer {
            path: "hidden/resource3d/Stage_S01.xpr".into(),
            kind: "stage".into(),
            category: "stage".into(),
            size: 4096,
            resources: vec![r],
            textures: vec![],
        };
        let s = serde_json::to_string(&c).unwrap();
        assert!(!s.contains("mesh"));
        let back: TruthContainer = serde_json::from_str(&s).unwrap();
        assert_eq!(back, c.without_meshes());
        assert_eq!(back.resources[0].blocks[0].vertex_offset, 88);
    }
}
