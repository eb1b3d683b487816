//! xbg7: the pure decoder of Project Sylpheed XPR2/XBG7 containers — bytes in, meshes,
//! images and typed rejects out. No file system, no command line, no randomness: the
//! exporter (`xbg7-export`) reads the files and writes the outputs.
//!
//! Data flow: `container` parses XPR2 → `descriptor` parses each XBG7 (marker, `decl`
//! declaration, sub-mesh records) → `layout::plan` decides which decoder places which
//! block: `layout::sequential` the documented first block, `layout::anchored` everything
//! else by content → `vertex` reads the blocks into a `mesh` → `gates` accept or reject
//! each decode (`reason` codes). `texture` decodes TX2D resources to RGBA images.
//! `record` is the vocabulary the decoder shares with the manifest and the generator.

pub mod be;
pub mod container;
pub mod decl;
pub mod decode;
pub mod descriptor;
pub mod gates;
pub mod layout;
pub mod mesh;
pub mod reason;
pub mod record;
pub mod texture;
pub mod vertex;

pub use decode::{decode_container, kind_of, parse_container, ContainerDecode, DecodeConfig};
