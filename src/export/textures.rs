//! Texture export: every TX2D resource of a container → a manifest entry (format, size,
//! tiled, status, reason, png, digest; decoded by [`xbg7::texture::resource`]) and, when
//! decoded, `<dir>/textures/<name>.png` (or its bytes in memory, for `.glb` models that
//! embed them: [`Sink`])
//! (names from [`crate::names::unique_names`] over the container's TX2D names), plus the
//! [`TextureLinks`] the glTF writer turns into material textures, and whatever the
//! caller makes of each decoded `_col` image while it is in memory (the previews' prepared
//! albedos), so nothing is decoded twice. [`xbg7::texture::resource::decode_albedos`] decodes only the `_col`
//! images, for a preview without an export. With [`SpecularGloss::Pbr`] each `_gls`
//! texture also gets a derived roughness map (`textures/<file>~roughness.png`, linked
//! as `<name>~roughness`, listed as the texture entry's `roughness_png`).
//!
//! What a container's textures may decode to, and so what is held for its `.glb` models
//! and written, is bounded by its [`TextureBudget`] (16× its bytes + 16 MiB), charged in
//! directory order before anything is decoded: each image and its roughness map at their
//! RGBA bytes; a texture past it is `output_budget`, not decoded.

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

use super::entry::WRITING_PNG;
use super::fs::Outputs;
use crate::manifest::{Status, TextureCode, TextureEntry, TextureReason};
use crate::names;
use xbg7::container::{Container, Resource, TAG_TX2D};
use xbg7::texture::maps::{TextureLinks, ALBEDO_SUFFIX, GLOSS_SUFFIX, ROUGHNESS_KEY};
use xbg7::texture::resource::{decode_resource, decoded_size, not_decoded};
use xbg7::texture::{Image, Reject, TextureBudget};
use xbg7_gltf::gltf_out::SpecularGloss;
use xbg7_preview::raster::ColorScan;

/// Sub-folder (of a container's output folder) holding its texture PNGs.
pub const TEXTURE_DIR: &str = "textures";

/// PNG bytes of an image: its RGBA8 pixels, exactly, in the narrowest colour type
/// (grey, grey + alpha, RGB or RGBA; deterministic, the tool's one encoder and settings).
/// A decoded texture always has `width·height·4` bytes; were it not so, the texture's
/// PNG would be a single transparent pixel, as for previews.
pub fn encode_png(img: &Image) -> Vec<u8> {
    encode_png_scanned(img, None)
}

/// [`encode_png`] with the image's colour scan when it was taken already
/// ([`TextureEntry::of_scanning`]: read once for the digest and the colour type).
fn encode_png_scanned(img: &Image, scanned: Option<ColorScan>) -> Vec<u8> {
    let mut out = Vec::new();
    match write_png_scanned(&mut out, img, scanned) {
        Ok(()) => out,
        // Writing into memory fails only where the encoder does.
        Err(_) => xbg7_preview::raster::encode_png(&xbg7_preview::raster::Image::filled(1, 1, [0; 4])),
    }
}

/// [`encode_png`] straight into `w` (the texture's file: no copy of it in memory).
pub fn write_png(w: &mut dyn std::io::Write, img: &Image) -> std::io::Result<()> {
    write_png_scanned(w, img, None)
}

/// [`write_png`] with the image's colour scan when it was taken already.
fn write_png_scanned(w: &mut dyn std::io::Write, img: &Image, scanned: Option<ColorScan>) -> std::io::Result<()> {
    use xbg7_preview::raster;
    let (width, height) = (img.width, img.height);
    // The image check comes before anything is written, so the fallback starts afresh.
    let written = match scanned {
        Some(scan) => raster::write_png_compact_as(&mut *w, width, height, &img.rgba, scan.color()),
        None => raster::write_png_compact(&mut *w, width, height, &img.rgba),
    };
    match written {
        Err(raster::RasterError::BadBuffer { .. } | raster::RasterError::Empty { .. }) => {
            w.write_all(&raster::encode_png(&raster::Image::filled(1, 1, [0; 4])))
        }
        r => r.map_err(std::io::Error::other),
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
    let outputs = Outputs::plain(container_dir);
    let out = export_textures_with_albedos(
        c,
        container_dir,
        dir_rel,
        None::<&fn(&str, &Image) -> Option<()>>,
        mode,
        &outputs,
        Sink::Files,
    );
    (out.entries, out.links)
}

/// One texture's export: its entry, its PNG's URI (and bytes, when embedded), what
/// `albedo` made of it for each `_col` name listing it, its derived roughness map's URI
/// (and bytes).
type Exported<T> = (
    TextureEntry,
    Option<(String, Option<Vec<u8>>)>,
    Vec<(String, T)>,
    Option<(String, Option<Vec<u8>>)>,
);

/// What [`export_textures_with_albedos`] made of a container's textures.
pub struct TextureExport<T> {
    /// The manifest entries, in directory order.
    pub entries: Vec<TextureEntry>,
    /// The material links (texture name → URI relative to the container's folder).
    pub links: TextureLinks,
    /// What `albedo` made of each `_col` image, by TX2D name.
    pub albedos: BTreeMap<String, T>,
    /// With [`Sink::Embedded`] or [`Sink::Both`], each linked URI's PNG bytes.
    pub embedded: BTreeMap<String, Vec<u8>>,
}

/// Where decoded textures go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sink {
    /// PNG files in `textures/` (the manifest entry's `png`).
    Files,
    /// PNG bytes in memory, for models that embed them (`--format glb`: one
    /// self-contained file per model, no `textures/` folder, no `png` in the entry).
    Embedded,
    /// Both: files, and their bytes in memory (`--format glb --textures`).
    Both,
}

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

/// [`export_textures`], also turning each decoded `_col` image into a `T` with
/// `albedo(name, image)` (e.g. a preview's prepared texture; `None` to skip one) while it
/// is in memory, by TX2D name, and written to `sink`. Textures decode, encode and write
/// in parallel (rayon); entries stay in directory order.
pub fn export_textures_with_albedos<T: Send>(
    c: &Container<'_>,
    container_dir: &Path,
    dir_rel: &str,
    albedo: Option<&(impl Fn(&str, &Image) -> Option<T> + Sync)>,
    mode: SpecularGloss,
    outputs: &Outputs<'_>,
    sink: Sink,
) -> TextureExport<T> {
    let tex: Vec<&Resource<'_>> = c.resources.iter().filter(|r| r.is(TAG_TX2D)).collect();
    let groups = same_descriptor_groups(&tex);
    let raw: Vec<(u32, &[u8])> = groups.iter().map(|g| (tex[g[0]].index, tex[g[0]].name)).collect();
    let files = names::unique_names(&raw);
    let dir = container_dir.join(TEXTURE_DIR);
    let derive_roughness = mode == SpecularGloss::Pbr;
    let name_of = |k: usize| String::from_utf8_lossy(tex[k].name).into_owned();
    let glossy = |group: &[usize]| group.iter().any(|&k| name_of(k).ends_with(GLOSS_SUFFIX));
    // The container's texture budget, charged in directory order before anything is
    // decoded (the decisions do not depend on the threads): each image, and its derived
    // roughness map, at its RGBA bytes.
    let mut budget = TextureBudget::of(c);
    let refused: Vec<Option<Reject>> = groups
        .iter()
        .map(|group| {
            let first = tex[group[0]];
            let maps = 1 + u64::from(derive_roughness && glossy(group));
            let bytes = decoded_size(first, c.data).unwrap_or(0).saturating_mul(maps);
            budget.charge(bytes).err()
        })
        .collect();
    let done: Vec<Exported<T>> = groups
        .par_iter()
        .zip(files.par_iter())
        .zip(refused)
        .map(|((group, file), refused)| {
            let t = match refused {
                Some(why) => not_decoded(tex[group[0]], why),
                None => decode_resource(tex[group[0]], c.data),
            };
            // The image read once for its digest and its PNG colour type.
            let mut scan = ColorScan::new();
            let mut e = TextureEntry::of_scanning(&t, |piece| scan.update(piece));
            let Ok(img) = t.result else {
                return (e, None, Vec::new(), None);
            };
            // One PNG: written (bytes `None`) or kept in memory.
            let put =
                |f: &str, img: &Image, scanned: Option<ColorScan>| -> std::io::Result<(String, Option<Vec<u8>>)> {
                    let uri = format!("{TEXTURE_DIR}/{f}");
                    let bytes = (sink != Sink::Files).then(|| encode_png_scanned(img, scanned));
                    match (sink, bytes) {
                        (Sink::Embedded, bytes) => Ok((uri, bytes)),
                        (_, bytes) => std::fs::create_dir_all(&dir)
                            .and_then(|()| match &bytes {
                                Some(b) => outputs.write(&dir.join(f), b),
                                None => outputs.write_with(&dir.join(f), |w| write_png_scanned(w, img, scanned)),
                            })
                            .map(|()| (uri, bytes)),
                    }
                };
            match put(&format!("{file}.png"), &img, Some(scan)) {
                Ok(png) => {
                    if sink != Sink::Embedded {
                        e.png = Some(format!("{dir_rel}/{}", png.0));
                    }
                    // Every `_col` name listing the image, while it is in memory.
                    let kept = group
                        .iter()
                        .map(|&k| name_of(k))
                        .filter(|n| n.ends_with(ALBEDO_SUFFIX))
                        .filter_map(|n| albedo.and_then(|f| f(&n, &img)).map(|t| (n, t)))
                        .collect();
                    // A derived map that cannot be written is left out of the material
                    // (the texture itself is fine).
                    let rough = (derive_roughness && glossy(group))
                        .then(|| put(&format!("{file}{ROUGHNESS_KEY}.png"), &roughness_from_gloss(&img), None).ok())
                        .flatten();
                    (e, Some(png), kept, rough)
                }
                Err(err) => {
                    e.status = Some(Status::Rejected);
                    e.reason = Some(TextureReason::new(TextureCode::IO, format!("{}: {err}", WRITING_PNG)));
                    e.digest = None;
                    (e, None, Vec::new(), None)
                }
            }
        })
        .collect();
    // Each group's export, at every listing of its descriptor, in directory order.
    let mut listing: Vec<Option<(usize, bool)>> = vec![None; tex.len()];
    for (g, group) in groups.iter().enumerate() {
        for (n, &k) in group.iter().enumerate() {
            listing[k] = Some((g, n > 0));
        }
    }
    let first_index = |g: usize| tex[groups[g][0]].index;
    let mut out = TextureExport {
        entries: Vec::with_capacity(done.len()),
        links: TextureLinks::new(),
        albedos: BTreeMap::new(),
        embedded: BTreeMap::new(),
    };
    let mut done: Vec<Option<Exported<T>>> = done.into_iter().map(Some).collect();
    for (k, at) in listing.into_iter().enumerate() {
        let Some((g, later)) = at else { continue };
        let Some((first, png, _, rough)) = &done[g] else {
            continue;
        };
        let mut e = first.clone();
        e.index = tex[k].index;
        e.name = name_of(k);
        if later {
            e.same_as = Some(first_index(g));
        }
        if let Some((uri, _)) = png {
            out.links.insert(e.name.clone(), uri.clone());
        }
        e.roughness_png = None;
        if let Some((uri, _)) = rough.as_ref().filter(|_| e.name.ends_with(GLOSS_SUFFIX)) {
            if sink != Sink::Embedded {
                e.roughness_png = Some(format!("{dir_rel}/{uri}"));
            }
            out.links.insert(format!("{}{ROUGHNESS_KEY}", e.name), uri.clone());
        }
        out.entries.push(e);
        // The group's bytes and prepared albedos, moved out once every listing is seen.
        if groups[g].last() == Some(&k) {
            if let Some((_, png, kept, rough)) = done[g].take() {
                for (uri, bytes) in png.into_iter().chain(rough) {
                    out.embedded.extend(bytes.map(|b| (uri, b)));
                }
                out.albedos.extend(kept);
            }
        }
    }
    out
}

/// The TX2D resources grouped by identical descriptor bytes (in one container, the
/// same descriptor over the same data section: the same image), each group in directory
/// order, the groups in the order of their first listing. A group is decoded, encoded
/// and written once: its first listing names the file, every listing links to it.
fn same_descriptor_groups(tex: &[&Resource<'_>]) -> Vec<Vec<usize>> {
    let mut at: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (k, r) in tex.iter().enumerate() {
        // An entry with a bad range has no descriptor bytes: its own group.
        if r.problem.is_some() {
            groups.push(vec![k]);
            continue;
        }
        match at.get(r.descriptor) {
            Some(&g) => groups[g].push(k),
            None => {
                at.insert(r.descriptor, groups.len());
                groups.push(vec![k]);
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use xbg7::texture::resource::digest;

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
        assert_eq!(info.color_type, png::ColorType::Rgba);
        assert_eq!(&buf[..8], &img.rgba[..]);
        let tall = Image {
            width: 1,
            height: 2,
            rgba: img.rgba.clone(),
        };
        assert_ne!(digest(&img), digest(&tall));
        assert_eq!(digest(&img).len(), 64);
    }

    /// A PNG's pixels as RGBA8, from the colour type the decoder reports (the PNG
    /// specification's rules, not the encoder's code).
    fn decode_rgba(png: &[u8]) -> (png::ColorType, Vec<u8>) {
        let mut r = png::Decoder::new(std::io::Cursor::new(png)).read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        let rgba = match info.color_type {
            png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            png::ColorType::GrayscaleAlpha => buf.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
            png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
            png::ColorType::Rgba => buf,
            other => panic!("unexpected colour type {other:?}"),
        };
        (info.color_type, rgba)
    }

    #[test]
    fn each_texture_png_is_the_narrowest_colour_type_and_gives_back_its_pixels() {
        use png::ColorType::*;
        // 3×2 images: one pixel breaks the regularity of the narrower type, or none does.
        let grey = |a: u8| -> Vec<u8> { (0..6u8).flat_map(|k| [k * 40, k * 40, k * 40, a]).collect() };
        let mut grey_alpha = grey(255);
        grey_alpha[19] = 7;
        let mut rgb = grey(255);
        rgb[21] = 1;
        let mut rgba = rgb.clone();
        rgba[3] = 0;
        for (pixels, want) in [
            (grey(255), Grayscale),
            (grey_alpha, GrayscaleAlpha),
            (rgb, Rgb),
            (rgba, Rgba),
        ] {
            let img = Image {
                width: 3,
                height: 2,
                rgba: pixels,
            };
            let (ty, back) = decode_rgba(&encode_png(&img));
            assert_eq!(ty, want);
            assert_eq!(back, img.rgba, "{want:?}");
        }
        // A buffer that is not width·height·4 bytes is one transparent pixel, no panic.
        let bad = Image {
            width: 3,
            height: 2,
            rgba: vec![0; 5],
        };
        assert_eq!(decode_rgba(&encode_png(&bad)).1, vec![0, 0, 0, 0]);
    }
}
