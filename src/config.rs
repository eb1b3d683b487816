//! `pipeline.toml`: every tunable of the pipeline, with defaults. Unknown keys are errors
//! that name the key (serde `deny_unknown_fields` at every level).

use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;
use xbg7::gates::GateConfig;
use xbg7::DecodeConfig;
pub use xbg7::StageConfig;
use xbg7_gltf::gltf_out::{Axis, SpecularGloss, VertexColor};

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
    /// With `"glb"`, also write the textures as PNG files (embedded either way; `"gltf"`
    /// always writes them). `--textures` sets it.
    pub texture_files: bool,
    /// `"flip_z"` (Direct3D left-handed → glTF right-handed; winding reversed) or `"keep"`.
    pub axis: Axis,
    /// `"color_0"`, `"custom"` (`_VERTEXCOLOR`) or `"drop"`.
    pub vertex_color: VertexColor,
    /// `"pbr"` (`_gls` → roughness texture, `_spc` → `KHR_materials_specular`) or
    /// `"extras"` (both only listed in the material's extras).
    pub specular_gloss: SpecularGloss,
    /// Write PNG previews.
    pub previews: bool,
    /// Write the HTML coverage report `OUT/index.html` (the `report` module). `--no-report`
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
            texture_files: false,
            axis: Axis::FlipZ,
            vertex_color: VertexColor::Custom,
            specular_gloss: SpecularGloss::Pbr,
            previews: true,
            report: true,
            preview_size: 512,
            stage_cell: 128,
            stage_max_width: 4096,
        }
    }
}

/// Ranges the image sizes must lie in (a preview of 0 pixels is no preview, and the
/// upper bounds keep every image within the raster's and the grid's memory budget).
pub const PREVIEW_SIZE: std::ops::RangeInclusive<u32> = 16..=4096;
pub const STAGE_CELL: std::ops::RangeInclusive<u32> = 16..=1024;
pub const STAGE_MAX_WIDTH: std::ops::RangeInclusive<u32> = 16..=16384;

// The error texts carry their cause themselves: no `source` chain, so a caller printing
// the chain (`{:#}`) does not repeat it.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path}: {error}")]
    Parse { path: String, error: Box<toml::de::Error> },
    #[error("{path}: output.{key} = {value} is out of range ({min} to {max})")]
    Range {
        path: String,
        key: &'static str,
        value: u32,
        min: u32,
        max: u32,
    },
}

impl Config {
    pub fn from_toml(text: &str, path: &str) -> Result<Config, ConfigError> {
        let c: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_string(),
            error: Box::new(e),
        })?;
        let o = &c.output;
        for (key, value, range) in [
            ("preview_size", o.preview_size, PREVIEW_SIZE),
            ("stage_cell", o.stage_cell, STAGE_CELL),
            ("stage_max_width", o.stage_max_width, STAGE_MAX_WIDTH),
        ] {
            if !range.contains(&value) {
                return Err(ConfigError::Range {
                    path: path.to_string(),
                    key,
                    value,
                    min: *range.start(),
                    max: *range.end(),
                });
            }
        }
        Ok(c)
    }

    /// The part of the configuration decoding is tuned by (`[gates]`, `[stage]`).
    pub fn decoding(&self) -> DecodeConfig {
        DecodeConfig {
            gates: self.gates.clone(),
            stage: self.stage.clone(),
        }
    }

    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read { path: p.clone(), error })?;
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
        let e = Config::from_toml("[output]\nspecular_gloss = \"shiny\"\n", "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("shiny"), "{e}");
        let c = Config::from_toml("[output]\nspecular_gloss = \"extras\"\n", "x.toml").unwrap();
        assert_eq!(c.output.specular_gloss, SpecularGloss::Extras);
    }

    #[test]
    fn image_sizes_out_of_range_are_errors_naming_the_key() {
        // Regression: preview_size = 0 wrote 1×1 PNGs.
        let e = Config::from_toml("[output]\npreview_size = 0\n", "x.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.toml: output.preview_size = 0 is out of range (16 to 4096)"
        );
        assert!(Config::from_toml("[output]\nstage_max_width = 100000\n", "x").is_err());
        assert!(Config::from_toml("[output]\nstage_cell = 64\n", "x").is_ok());
    }

    #[test]
    fn a_read_error_is_said_once() {
        let e = Config::load(Path::new("/nonexistent/x.toml")).unwrap_err();
        assert!(std::error::Error::source(&e).is_none());
        let text = e.to_string();
        assert_eq!(text.matches("os error 2").count(), 1, "{text}");
    }

    #[test]
    fn partial_file_keeps_other_defaults() {
        let c = Config::from_toml("[output]\naxis = \"keep\"\n", "x").unwrap();
        assert_eq!(c.output.axis, Axis::Keep);
        assert_eq!(c.gates, GateConfig::default());
    }
}
