//! Materials with textures: each primitive's material name → its linked maps
//! (base colour, specular / gloss as PBR roughness or as extras, emissive).

use std::collections::BTreeMap;

use gltf_json as json;

use xbg7::mesh::Mesh;

use super::document::raw;
use super::types::{Source, SpecularGloss};

/// Add images, textures and material texture references (see `gltf_out::build`).
/// `root.materials[k]` is primitive `k`'s material, as `document::document` writes them.
pub(super) fn apply_textures(
    root: &mut json::Root,
    mesh: &Mesh,
    src: &Source<'_>,
    links: &xbg7::texture::maps::TextureLinks,
    mode: SpecularGloss,
) {
    let has_uv = !mesh.texcoords.is_empty();
    let pbr = mode == SpecularGloss::Pbr && has_uv;
    let mut by_uri: BTreeMap<String, json::Index<json::Texture>> = BTreeMap::new();
    for (k, prim) in mesh.primitives.iter().enumerate() {
        let Some(name) = &prim.material else { continue };
        let maps = xbg7::texture::maps::material_maps(name, links);
        if maps.is_empty() || k >= root.materials.len() {
            continue;
        }
        let mut texture = |root: &mut json::Root, uri: &str| -> json::texture::Info {
            let index = *by_uri.entry(uri.to_string()).or_insert_with(|| {
                // Named after the texture (its file's stem), so an importer that embeds
                // it (Blender, from a .glb) does not call it Image_0.
                let file = uri.rsplit('/').next().unwrap_or(uri);
                let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
                let image = root.push(json::Image {
                    buffer_view: None,
                    mime_type: Some(json::image::MimeType("image/png".to_string())),
                    name: Some(stem.to_string()),
                    uri: Some(uri.to_string()),
                    extensions: None,
                    extras: None,
                });
                root.push(json::Texture {
                    name: None,
                    sampler: None,
                    source: image,
                    extensions: None,
                    extras: None,
                })
            });
            json::texture::Info {
                index,
                tex_coord: 0,
                extensions: None,
                extras: None,
            }
        };
        let col = maps.get("col").filter(|_| has_uv).map(|u| texture(root, u));
        let lum = maps.get("lum").filter(|_| has_uv).map(|u| texture(root, u));
        let base = xbg7::texture::maps::map_base(name);
        let rough = links
            .get(&format!("{base}_gls{}", xbg7::texture::maps::ROUGHNESS_KEY))
            .filter(|_| pbr)
            .map(|u| texture(root, u));
        let spc = maps.get("spc").filter(|_| pbr).map(|u| texture(root, u));
        if spc.is_some() && !root.extensions_used.iter().any(|e| e == SPECULAR_EXT) {
            root.extensions_used.push(SPECULAR_EXT.to_string());
        }
        let m = &mut root.materials[k];
        if let Some(info) = rough {
            m.pbr_metallic_roughness.metallic_roughness_texture = Some(info);
            m.pbr_metallic_roughness.roughness_factor = json::material::StrengthFactor(1.0);
        }
        if let Some(info) = spc {
            m.extensions = Some(json::extensions::material::Material {
                specular: Some(json::extensions::material::Specular {
                    specular_factor: Default::default(),
                    specular_texture: None,
                    specular_color_factor: Default::default(),
                    specular_color_texture: Some(info),
                    extras: None,
                }),
            });
        }
        if let Some(info) = col {
            m.pbr_metallic_roughness.base_color_texture = Some(info);
        }
        if let Some(info) = lum {
            m.emissive_texture = Some(info);
            m.emissive_factor = json::material::EmissiveFactor([1.0, 1.0, 1.0]);
        }
        m.extras = raw(&serde_json::json!({ "textures": src.textures, "maps": maps }));
    }
}

/// The glTF extension `_spc` maps are written with.
pub const SPECULAR_EXT: &str = "KHR_materials_specular";
