//! Integration tests of the glTF writer `xbg7-gltf`: golden bytes, round trips through the
//! `gltf` reader, properties.
//!
//! One test binary per crate (each module below was a binary of its own: linking one
//! instead of many is most of the test build's time).

mod gltf_props;
mod gltf_roundtrip;
