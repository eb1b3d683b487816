//! Texture export: every TX2D resource of a container → a manifest entry (format, size,
//! tiled, status, reason, png, digest) and, when decoded, `<dir>/textures/<name>.png`
//! (names from [`crate::names::unique_names`] over the container's TX2D names), plus the
//! [`TextureLinks`] the glTF writer turns into material textures, and whatever the
//! caller makes of each decoded `_col` image while it is in memory (the previews' prepared
//! albedos), so nothing is decoded twice. [`decode_albedos`] decodes only the `_col`
//! images, for a preview without an export. With [`SpecularGloss::Pbr`] each `_gls`
//! texture also gets a derived roughness map (`textures/<file>~roughness.png`, linked
//! as `<name>~roughness`, listed as the texture entry's `roughness_png`).

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

use crate::container::{Container, Resource, TAG_TX2D};
use crate::manifest::{Status, TextureEntry};
use crate::names;

use super::{decode, Image, Reject, TextureCode};
use crate::gltf_out::SpecularGloss;

/// TX2D resource name (lossy UTF-8) → image URI relative to the container's output
/// folder (`textures/<name>.png`), for decoded textures only.
pub type TextureLinks = BTreeMap<String, String>;

/// Decoded `_col` images of a container by TX2D name (lossy UTF-8): the albedos the
/// previews are textured with.
pub type Albedos = BTreeMap<String, Image>;

/// Sub-folder (of a container's output folder) holding its texture PNGs.
pub const TEXTURE_DIR: &str = "textures";

/// BLAKE3 of the decoded image: width and height (u32 LE) then the RGBA bytes.
pub fn digest(img: &Image) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&img.width.to_le_bytes());
    h.update(&img.height.to_le_bytes());
    h.update(&img.rgba);
    h.finalize().to_hex().to_string()
}

/// PNG bytes of an image (RGBA8, deterministic).
pub fn encode_png(img: &Image) -> Vec<u8> {
    // One PNG encoder for the whole tool (fixed, fast settings: deterministic bytes).
    let rgba = crate::raster::Image {
        width: img.width,
        height: img.height,
        rgba: img.rgba.clone(),
    };
    crate::raster::encode_png(&rgba)
}

/// The manifest entry of one TX2D resource and its decoded image (or the reject).
pub fn decode_resource(r: &Resource<'_>, data: &[u8]) -> (TextureEntry, Option<Image>) {
    let mut e = TextureEntry::new(r.index, r.name_lossy());
    let result = match &r.problem {
        Some(p) => Err(Reject::new(TextureCode::BadDescriptor, p.to_string())),
        None => decode(r.descriptor, data),
    };
    if let Ok(h) = super::header::parse(r.descriptor) {
        e.format = Some(match h.format {
            Some(f) => f.name().to_string(),
            None => format!("unknown_{}", h.format_code),
        });
        e.width = Some(h.width);
        e.height = Some(h.height);
        e.tiled = Some(h.tiled);
    }
    match result {
        Ok((_, img)) => {
            e.status = Some(Status::Decoded);
            e.digest = Some(digest(&img));
            (e, Some(img))
        }
        Err(reject) => {
            e.status = Some(Status::Rejected);
            e.reason = Some(reject);
            (e, None)
        }
    }
}

/// Decode every TX2D resource of `c`; write decoded ones as PNGs into
/// `container_dir/textures/` (created when needed) with `dir_rel/textures/<name>.png` in
/// the manifest entry. Returns the entries in directory order and the material links.
pub fn export_textures(
    c: &Container<'_>,
    container_dir: &Path,
    dir_rel: &str,
    mode: SpecularGloss,
) -> (Vec<TextureEntry>, TextureLinks) {
    let (entries, links, _) =
        export_textures_with_albedos(c, container_dir, dir_rel, None::<&fn(&str, &Image) -> Option<()>>, mode);
    (entries, links)
}

/// One texture's export: its entry, its PNG's URI, what `albedo` made of it, the URI of
/// its derived roughness map.
type Exported<T> = (TextureEntry, Option<String>, Option<T>, Option<String>);

/// Suffix of a `_gls` texture's derived roughness map, in its link key
/// (`<name>~roughness`) and its file (`textures/<file>~roughness.png`; `~` never comes
/// out of [`names`], so it cannot collide with a texture's own file).
pub const ROUGHNESS_KEY: &str = "~roughness";

/// The roughness map of a gloss image, for glTF's `metallicRoughnessTexture`: green =
/// `255 − gloss` (gloss = the image's red channel: grey for DXT5A, the first channel
/// otherwise), blue (metallic) 0, red (occlusion, unused) 255, opaque.
pub fn roughness_from_gloss(gloss: &Image) -> Image {
    let rgba = gloss
        .rgba
        .chunks_exact(4)
        .flat_map(|p| [255, 255 - p[0], 0, 255])
        .collect();
    Image {
        width: gloss.width,
        height: gloss.height,
        rgba,
    }
}

/// [`export_textures`], also turning each written `_col` image into a `T` with
/// `albedo(name, image)` (e.g. a preview's prepared texture; `None` to skip one) while it
/// is in memory, by TX2D name. Textures
/// decode, encode and write in parallel (rayon); entries stay in directory order.
pub fn export_textures_with_albedos<T: Send>(
    c: &Container<'_>,
    container_dir: &Path,
    dir_rel: &str,
    albedo: Option<&(impl Fn(&str, &Image) -> Option<T> + Sync)>,
    mode: SpecularGloss,
) -> (Vec<TextureEntry>, TextureLinks, BTreeMap<String, T>) {
    let tex: Vec<&Resource<'_>> = c.resources.iter().filter(|r| r.is(TAG_TX2D)).collect();
    let raw: Vec<(u32, &[u8])> = tex.iter().map(|r| (r.index, r.name)).collect();
    let files = names::unique_names(&raw);
    let dir = container_dir.join(TEXTURE_DIR);
    let derive_roughness = mode == SpecularGloss::Pbr;
    let done: Vec<Exported<T>> = tex
        .par_iter()
        .zip(files.par_iter())
        .map(|(r, file)| {
            let (mut e, img) = decode_resource(r, c.data);
            let Some(img) = img else {
                return (e, None, None, None);
            };
            let written = std::fs::create_dir_all(&dir)
                .and_then(|()| crate::pipeline::write_atomic(&dir.join(format!("{file}.png")), &encode_png(&img)));
            match written {
                Ok(()) => {
                    let uri = format!("{TEXTURE_DIR}/{file}.png");
                    e.png = Some(format!("{dir_rel}/{uri}"));
                    let kept = albedo
                        .filter(|_| e.name.ends_with(ALBEDO_SUFFIX))
                        .and_then(|f| f(&e.name, &img));
                    // A derived map that cannot be written is left out of the material
                    // (the texture itself is fine).
                    let rough = (derive_roughness && e.name.ends_with(GLOSS_SUFFIX))
                        .then(|| format!("{file}{ROUGHNESS_KEY}.png"))
                        .filter(|f| {
                            crate::pipeline::write_atomic(&dir.join(f), &encode_png(&roughness_from_gloss(&img)))
                                .is_ok()
                        })
                        .map(|f| format!("{TEXTURE_DIR}/{f}"));
                    (e, Some(uri), kept, rough)
                }
                Err(err) => {
                    e.status = Some(Status::Rejected);
                    e.reason = Some(Reject::new(TextureCode::Io, format!("writing the PNG: {err}")));
                    e.digest = None;
                    (e, None, None, None)
                }
            }
        })
        .collect();
    let mut entries = Vec::with_capacity(done.len());
    let mut links = TextureLinks::new();
    let mut albedos = BTreeMap::new();
    for (mut e, uri, kept, rough) in done {
        if let Some(uri) = uri {
            links.insert(e.name.clone(), uri);
        }
        if let Some(uri) = rough {
            e.roughness_png = Some(format!("{dir_rel}/{uri}"));
            links.insert(format!("{}{ROUGHNESS_KEY}", e.name), uri);
        }
        if let Some(k) = kept {
            albedos.insert(e.name.clone(), k);
        }
        entries.push(e);
    }
    (entries, links, albedos)
}

/// Suffix of the albedo (colour) map.
pub const ALBEDO_SUFFIX: &str = "_col";
/// Suffix of the gloss map.
pub const GLOSS_SUFFIX: &str = "_gls";

/// A material's (TX2D) name without its map suffix.
pub fn map_base(material: &str) -> &str {
    MAP_SUFFIXES
        .iter()
        .find_map(|s| material.strip_suffix(s))
        .unwrap_or(material)
}

/// Decode only the `_col` textures of `c` (for a preview without an export).
pub fn decode_albedos(c: &Container<'_>) -> Albedos {
    c.resources
        .iter()
        .filter(|r| r.is(TAG_TX2D) && r.name_lossy().ends_with(ALBEDO_SUFFIX))
        .filter_map(|r| match decode_resource(r, c.data) {
            (e, Some(img)) => Some((e.name, img)),
            _ => None,
        })
        .collect()
}

/// The albedo of a material named after one of its TX2D names: `<base>_col` (the
/// texture the glTF writer makes its `baseColorTexture`, see [`material_maps`]).
pub fn albedo_for<'a, T>(material: &str, albedos: &'a BTreeMap<String, T>) -> Option<&'a T> {
    albedos.get(&albedo_name(material))
}

/// The TX2D name of a material's albedo: its name without a map suffix, plus `_col`.
pub fn albedo_name(material: &str) -> String {
    let base = MAP_SUFFIXES
        .iter()
        .find_map(|s| material.strip_suffix(s))
        .unwrap_or(material);
    format!("{base}{ALBEDO_SUFFIX}")
}

/// The map suffixes a material can use, with the `extras.maps` key each goes under.
pub const MAP_SUFFIXES: [&str; 4] = ["_col", "_spc", "_gls", "_lum"];

/// The texture set of a material named after one of its TX2D names: the name without
/// its `_col`/`_spc`/`_gls`/`_lum` suffix, then every linked `<base><suffix>`, keyed by
/// suffix without the underscore (`col`, `spc`, `gls`, `lum`).
pub fn material_maps<'a>(material: &str, links: &'a TextureLinks) -> BTreeMap<&'static str, &'a str> {
    let base = MAP_SUFFIXES
        .iter()
        .find_map(|s| material.strip_suffix(s))
        .unwrap_or(material);
    MAP_SUFFIXES
        .iter()
        .filter_map(|s| links.get(&format!("{base}{s}")).map(|u| (&s[1..], u.as_str())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_group_by_base_name() {
        let links: TextureLinks = [
            ("a_col", "textures/a_col.png"),
            ("a_lum", "textures/a_lum.png"),
            ("a_gls", "textures/a_gls.png"),
            ("ab_col", "textures/ab_col.png"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        let m = material_maps("a_col", &links);
        assert_eq!(
            m.into_iter().collect::<Vec<_>>(),
            [
                ("col", "textures/a_col.png"),
                ("gls", "textures/a_gls.png"),
                ("lum", "textures/a_lum.png")
            ]
        );
        assert_eq!(material_maps("a_spc", &links).len(), 3);
        assert!(material_maps("zz_mat0", &links).is_empty());
    }

    #[test]
    fn png_round_trips_and_digest_covers_size() {
        let img = Image {
            width: 2,
            height: 1,
            rgba: vec![1, 2, 3, 4, 5, 6, 7, 8],
        };
        let png = encode_png(&img);
        let dec = png::Decoder::new(std::io::Cursor::new(png));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (2, 1));
        assert_eq!(&buf[..8], &img.rgba[..]);
        let tall = Image {
            width: 1,
            height: 2,
            rgba: img.rgba.clone(),
        };
        assert_ne!(digest(&img), digest(&tall));
        assert_eq!(digest(&img).len(), 64);
    }
}
