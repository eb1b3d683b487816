//! One TX2D resource of a container → its texture entry (format, size, tiled, status,
//! reason, digest) and decoded image; the `_col` albedos of a container for a preview.

use std::collections::BTreeMap;

use super::maps::ALBEDO_SUFFIX;
use super::{decode, Image, Reject, TextureCode};
use crate::container::{Container, Resource, TAG_TX2D};
use crate::record::{Status, TextureEntry};

/// Decoded `_col` images of a container by TX2D name (lossy UTF-8): the albedos the
/// previews are textured with.
pub type Albedos = BTreeMap<String, Image>;

/// BLAKE3 of the decoded image: width and height (u32 LE) then the RGBA bytes.
pub fn digest(img: &Image) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&img.width.to_le_bytes());
    h.update(&img.height.to_le_bytes());
    h.update(&img.rgba);
    h.finalize().to_hex().to_string()
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
