//! Integration tests of the decoder library `xbg7`: declarations and vertex types, textures.
//!
//! One test binary per crate (each module below was a binary of its own: linking one
//! instead of many is most of the test build's time).

mod decl_parse;
mod decl_props;
mod decl_types;
mod texture_oracle;
