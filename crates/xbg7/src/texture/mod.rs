//! TX2D textures: D3DBaseTexture header and fetch constant (`header`), endian swaps and
//! Xenos 2D untiling (`tiling`), block decoding (`bcn`), the base level decoded to RGBA
//! (`base`), why not (`reject`), one TX2D resource → its header and image (`resource`),
//! the bound on a container's decoded texture bytes (`budget`), and the material-map
//! names materials find their textures by (`maps`). This file is the facade. Writing
//! PNGs is the exporter's (`xbg7_export::export::textures`).
//!
//! Decoding is pure over the descriptor and data-section bytes: blocks decode to their
//! stored components, which the fetch constant's swizzle maps to RGBA; only the base mip
//! level is decoded; a base level in the packed mip tail, an unknown format, a non-2D texture
//! or data outside the data section is a reject with a [`TextureCode`], never a panic,
//! and no allocation is sized by the header before the data is known to be there. A
//! container's textures together decode to at most 16× its bytes + 16 MiB
//! ([`TextureBudget`]): descriptors that re-read the same bytes are not decoded past it.

pub mod base;
pub mod bcn;
pub mod budget;
pub mod header;
pub mod maps;
pub mod reject;
pub mod resource;
pub mod tiling;

pub use base::{decode, decode_base, decoded_bytes, Image};
pub use budget::TextureBudget;
pub use header::{Format, TextureHeader};
pub use reject::{Reject, TextureCode};
pub use resource::TextureDecode;
pub use tiling::Endian;
