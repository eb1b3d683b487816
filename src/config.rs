//! `pipeline.toml`: every tunable of the pipeline, with defaults. Unknown keys are errors
//! that name the key (serde `deny_unknown_fields` at every level).

use crate::gates::GateConfig;
use crate::gltf_out::{Axis, VertexColor};
use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub output: OutputConfig,
    pub gates: GateConfig,
    pub stage: StageConfig,
}

/// Output file format of the exported models and stage scenes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// `.gltf` JSON + external `.bin` (the default; stage scenes share the `.bin` files).
    #[default]
    Gltf,
    /// One self-contained binary `.glb` per resource (and per stage scene).
    Glb,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// `"gltf"` (`.gltf` + `.bin`) or `"glb"` (one `.glb`). `--format` overrides it.
    pub format: Format,
    /// `"flip_z"` (Direct3D left-handed → glTF right-handed; winding reversed) or `"keep"`.
    pub axis: Axis,
    /// `"color_0"`, `"custom"` (`_VERTEXCOLOR`) or `"drop"`.
    pub vertex_color: VertexColor,
    /// Write PNG previews.
    pub previews: bool,
    /// Write the HTML coverage report `OUT/index.html` (`crate::report`). `--no-report`
    /// turns it off.
    pub report: bool,
    /// Model preview size in pixels.
    pub preview_size: u32,
    /// Stage grid cell size in pixels.
    pub stage_cell: u32,
    /// Stage grid maximum width in pixels.
    pub stage_max_width: u32,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            format: Format::Gltf,
            axis: Axis::FlipZ,
            vertex_color: VertexColor::Custom,
            previews: true,
            report: true,
            preview_size: 512,
            stage_cell: 128,
            stage_max_width: 4096,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StageConfig {
    /// A decoded resource whose bbox extent exceeds this is flagged `skybox: true`.
    pub skybox_extent: f64,
}

impl Default for StageConfig {
    fn default() -> Self {
        StageConfig {
            skybox_extent: 10_000.0,
        }
    }
}

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}: {source}")]
    Parse { path: String, source: Box<toml::de::Error> },
}

impl Config {
    pub fn from_toml(text: &str, path: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_string(),
            source: Box::new(e),
        })
    }

    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: p.clone(),
            source,
        })?;
        Config::from_toml(&text, &p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_pipeline_toml_equals_the_defaults() {
        let text = include_str!("../pipeline.toml");
        assert_eq!(Config::from_toml(text, "pipeline.toml").unwrap(), Config::default());
    }

    #[test]
    fn unknown_key_is_an_error_naming_it() {
        let e = Config::from_toml("[gates]\nwinding_typo = true\n", "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("winding_typo"), "{e}");
        let e = Config::from_toml("[output]\naxis = \"sideways\"\n", "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("sideways"), "{e}");
    }

    #[test]
    fn partial_file_keeps_other_defaults() {
        let c = Config::from_toml("[output]\naxis = \"keep\"\n", "x").unwrap();
        assert_eq!(c.output.axis, Axis::Keep);
        assert_eq!(c.gates, GateConfig::default());
    }
}
