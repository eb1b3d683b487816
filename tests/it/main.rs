//! Integration tests of the exporter `xbg7-export` end to end: the CLI, the manifest,
//! hostile input, the report, the diff.
//!
//! One test binary per crate (each module below was a binary of its own: linking one
//! instead of many is most of the test build's time).

mod common;
#[path = "../../crates/xbg7/src/layout/anchored/pyramid.rs"]
mod pyramid;
#[path = "../../crates/xbg7-preview/tests/it/shapes.rs"]
mod shapes;

mod architecture;
mod bench_noisy;
mod cli_words;
mod diff_demo;
mod diff_manifest;
mod disc_forms;
mod docs_commands;
mod docs_links;
mod export;
mod hostile_atomic;
mod hostile_cli;
mod hostile_complexity;
mod hostile_disc;
mod hostile_image;
mod hostile_kill;
mod hostile_owned;
mod hostile_paths;
mod hostile_review;
mod hostile_shrink;
mod imperfect_mutations;
mod multistream_truth;
mod raster_bench;
mod realism_truth;
mod report_page;
mod schema_manifest;
mod texture_export;
mod texture_roundtrip;
mod tools_scene;
mod truth;
