//! One TX2D resource of a container → what its header says and its decoded image (or
//! why not), with the image's digest; the `_col` albedos of a container for a preview.

use std::collections::BTreeMap;

use super::base::{decode, decoded_bytes, Image};
use super::budget::TextureBudget;
use super::header::{self, TextureHeader};
use super::maps::ALBEDO_SUFFIX;
use super::reject::{Reject, TextureCode};
use crate::container::{Container, Resource, TAG_TX2D};

/// Decoded `_col` images of a container by TX2D name (lossy UTF-8): the albedos the
/// previews are textured with.
pub type Albedos = BTreeMap<String, Image>;

/// BLAKE3 of the decoded image: width and height (u32 LE) then the RGBA bytes.
pub fn digest(img: &Image) -> String {
    digest_scanning(img, |_| {})
}

/// Bytes of the RGBA hashed at a time by [`digest_scanning`] (whole pixels; small enough
/// to stay in the cache for `scan`, large enough for BLAKE3's widest SIMD).
pub const DIGEST_PIECE: usize = 64 * 1024;

/// [`digest`], handing each piece of the RGBA bytes (in order, [`DIGEST_PIECE`] bytes, the
/// last fewer) to `scan` right after hashing it, while it is in the cache: a second look
/// at the image (the PNG colour type) for one read of it.
pub fn digest_scanning(img: &Image, mut scan: impl FnMut(&[u8])) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&img.width.to_le_bytes());
    h.update(&img.height.to_le_bytes());
    for piece in img.rgba.chunks(DIGEST_PIECE) {
        h.update(piece);
        scan(piece);
    }
    h.finalize().to_hex().to_string()
}

/// One TX2D resource decoded: what its header says (when it parses: a rejected texture
/// may still have one) and its base level as RGBA, or why not.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureDecode {
    pub index: u32,
    /// The directory name (lossy UTF-8).
    pub name: String,
    pub header: Option<TextureHeader>,
    pub result: Result<Image, Reject>,
}

impl TextureDecode {
    /// The GPU format's name (`DXT1`, `8_8_8_8`, …; `unknown_<n>` for a number this
    /// decoder does not know), when the header parses.
    pub fn format_name(&self) -> Option<String> {
        self.header.as_ref().map(|h| match h.format {
            Some(f) => f.name().to_string(),
            None => format!("unknown_{}", h.format_code),
        })
    }
}

/// Decode one TX2D resource of a container whose data section is `data`.
pub fn decode_resource(r: &Resource<'_>, data: &[u8]) -> TextureDecode {
    let result = match &r.problem {
        Some(p) => Err(Reject::new(TextureCode::BadDescriptor, p.to_string())),
        None => decode(r.descriptor, data).map(|(_, img)| img),
    };
    TextureDecode {
        index: r.index,
        name: r.name_lossy(),
        header: header::parse(r.descriptor).ok(),
        result,
    }
}

/// The bytes of the RGBA image decoding `r` would make ([`decoded_bytes`]), or `None`
/// when the decode is refused before anything is allocated (a bad range or header, an
/// unsupported format, the base level outside the data section `data`).
pub fn decoded_size(r: &Resource<'_>, data: &[u8]) -> Option<u64> {
    if r.problem.is_some() {
        return None;
    }
    header::parse(r.descriptor)
        .and_then(|h| decoded_bytes(&h, data.len()))
        .ok()
}

/// `r` rejected without being decoded (its header, when it parses, still read).
pub fn not_decoded(r: &Resource<'_>, why: Reject) -> TextureDecode {
    TextureDecode {
        index: r.index,
        name: r.name_lossy(),
        header: header::parse(r.descriptor).ok(),
        result: Err(why),
    }
}

/// [`decode_resource`] within `budget`: its decoded bytes are charged first
/// ([`decoded_size`]), and a texture past the bound is not decoded
/// ([`TextureCode::OutputBudget`]).
pub fn decode_within(r: &Resource<'_>, data: &[u8], budget: &mut TextureBudget) -> TextureDecode {
    match budget.charge(decoded_size(r, data).unwrap_or(0)) {
        Ok(()) => decode_resource(r, data),
        Err(why) => not_decoded(r, why),
    }
}

/// Decode only the `_col` textures of `c` (for a preview without an export), in
/// directory order within the container's [`TextureBudget`].
pub fn decode_albedos(c: &Container<'_>) -> Albedos {
    let mut budget = TextureBudget::of(c);
    c.resources
        .iter()
        .filter(|r| r.is(TAG_TX2D) && r.name_lossy().ends_with(ALBEDO_SUFFIX))
        .filter_map(|r| {
            let t = decode_within(r, c.data, &mut budget);
            Some((t.name, t.result.ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Any image (one piece or several, the last short): the pieces handed to the scan
        /// are the image's bytes in order, and the digest is BLAKE3 of the size and the
        /// bytes in one update.
        #[test]
        fn the_scanned_digest_is_the_digest(width in 1u32..300, height in 1u32..120, seed: u8) {
            let rgba: Vec<u8> = (0..width * height * 4).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
            let img = Image { width, height, rgba };
            let mut seen = Vec::new();
            let got = digest_scanning(&img, |piece| {
                assert!(piece.len() <= DIGEST_PIECE && piece.len() % 4 == 0);
                seen.extend_from_slice(piece);
            });
            let mut whole = Vec::new();
            whole.extend_from_slice(&width.to_le_bytes());
            whole.extend_from_slice(&height.to_le_bytes());
            whole.extend_from_slice(&img.rgba);
            prop_assert_eq!(&seen, &img.rgba);
            prop_assert_eq!(got, blake3::hash(&whole).to_hex().to_string());
        }
    }
}
