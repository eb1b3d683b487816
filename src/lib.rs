//! xbg7-export: the batch exporter around the workspace's libraries — Project Sylpheed
//! XPR2/XBG7 containers on a disc → glTF 2.0, PNG previews, a coverage manifest and an
//! HTML report.
//!
//! Data flow (see docs/architecture.md): `walker` (and `image` for disc images) finds
//! containers → the `xbg7` crate decodes each one (pure) → `export` writes its outputs
//! (`xbg7_gltf` documents, `export::textures` PNGs, `xbg7_preview` renders) atomically →
//! `manifest` records every resource → `report` renders it as a page. `config` is
//! `pipeline.toml`; `names` the safe output file names; `diff`, `verify` and `bench`
//! are the `diff`, `verify` and `bench` subcommands (the generator is `xbg7_synth`);
//! `inspect` is `info` and `render` (one container alone, `label` the names under its
//! grid's cells); `text` makes disc text
//! safe to show (shared by `diff` and `report`); `pipe` tells a reader that went away
//! (`info X | head -1`) from a failed write; `input` reads a whole file only when it is a
//! regular one, and at most a stated size (every user-named file, the tool's own).

pub mod atomic;
pub mod bench;
pub mod config;
pub mod diff;
pub mod eta;
pub mod export;
pub mod image;
pub mod input;
pub mod inspect;
pub mod label;
pub mod manifest;
pub mod names;
pub mod pipe;
pub mod report;
pub mod text;
pub mod verify;
pub mod walker;
