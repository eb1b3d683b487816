//! xbg7: the pure decoder of Project Sylpheed XPR2/XBG7 containers — bytes in, meshes,
//! images and typed rejects out. No file system, no command line, no randomness: the
//! exporter (`xbg7-export`) reads the files and writes the outputs.
//!
//! # Getting started
//!
//! Parse a container once with [`Xpr::parse`], then decode its meshes ([`Xpr::meshes`]:
//! each resource's triangle count here, or why it was rejected) or its textures
//! ([`Xpr::textures`]):
//!
//! ```
//! # let file = xbg7_synth::build_file(&xbg7_synth::file_plan(&xbg7_synth::SynthOptions::perfect(1, xbg7_synth::Scale::Demo))[0]);
//! # let (bytes, path) = (file.bytes, std::path::Path::new(&file.rel_path));
//! let xpr = xbg7::Xpr::parse(&bytes)?;
//! let kind = xbg7::Kind::from_file_name(path); // `Stage_S*.xpr` is a stage
//! for r in xpr.meshes(kind, &xbg7::DecodeConfig::default()).resources {
//!     println!("{}: {:?}", r.name_lossy(), r.result.map(|d| d.mesh.indices.len() / 3));
//! }
//! # assert!(xpr.meshes(kind, &Default::default()).resources.iter().any(|r| r.result.is_ok()));
//! # Ok::<(), xbg7::Reason>(())
//! ```
//!
//! Data flow: `container` parses XPR2 → `described` reads each XBG7 descriptor (marker,
//! `decl` declaration, sub-mesh records) → `layout::plan` decides which decoder places
//! which block: `layout::sequential` the documented first block, `layout::anchored`
//! everything else by content → `vertex` reads the blocks into a `mesh`,
//! `layout::assemble` makes resources of them → `gates` accept or reject each decode
//! (`reason` codes) → `outcome`. `decode` is the one orchestrator of these rounds.
//! `texture` decodes TX2D resources to RGBA images. `vocab` is the vocabulary the
//! decoder shares with the manifest and the generator.

// The entry's vocabulary: the container, declarations, meshes, textures, reasons.
pub mod container;
pub mod decl;
pub mod descriptor;
pub mod mesh;
pub mod reason;
pub mod texture;
pub mod vocab;
// Internals: reached through the entry (`Xpr`) and the re-exports below.
pub(crate) mod be;
pub(crate) mod config;
pub(crate) mod decode;
pub(crate) mod described;
pub(crate) mod gates;
pub(crate) mod layout;
pub(crate) mod outcome;
pub(crate) mod vertex;

pub use config::{DecodeConfig, StageConfig};
pub use decode::Xpr;
pub use described::describe_declaration;
pub use gates::GateConfig;
pub use layout::anchored::MAX_CANDIDATES;
pub use outcome::{ContainerDecode, DecodedResource, ResourceOutcome, SplitKind};
pub use reason::{Code, Reason};
pub use texture::resource::TextureDecode;
pub use vocab::Kind;
