//! xbg7-export: Project Sylpheed XPR2/XBG7 geometry → glTF 2.0, with a synthetic disc.
//!
//! Data flow (see docs/architecture.md):
//! `walker` finds containers → `container` parses XPR2 → `descriptor` parses each XBG7
//! (marker, `decl` declaration, sub-mesh records) → `layout::sequential` places the
//! documented first block, `layout::anchored` places everything else by content →
//! `gates` accept or reject each decode → `gltf_out` / `raster`+`preview` write outputs →
//! `manifest` records every resource. `pipeline` ties it together per container; `synth`
//! generates the test disc with ground truth.

pub mod be;
pub mod bench;
pub mod config;
pub mod container;
pub mod decl;
pub mod descriptor;
pub mod diff;
pub mod gates;
pub mod gltf_out;
pub mod image;
pub mod layout;
pub mod manifest;
pub mod mesh;
pub mod names;
pub mod pipeline;
pub mod preview;
pub mod raster;
pub mod reason;
pub mod report;
pub mod scene;
pub mod synth;
pub mod texture;
pub mod verify;
pub mod vertex;
pub mod walker;
