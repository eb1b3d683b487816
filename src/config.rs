//! `pipeline.toml`: every tunable of the pipeline, with defaults. Unknown keys are errors
//! that name the key (serde `deny_unknown_fields` at every level).

use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;
use xbg7::DecodeConfig;
use xbg7::GateConfig;
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
    /// Samples per pixel side of the export's previews (1: one sample per pixel).
    pub preview_supersample: u32,
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
            preview_size: PREVIEW_DEFAULT,
            preview_supersample: 1,
            stage_cell: 128,
            stage_max_width: 4096,
        }
    }
}

/// Ranges the image sizes must lie in (a preview of 0 pixels is no preview, and the
/// upper bounds keep every image within the raster's and the grid's memory budget).
pub const PREVIEW_SIZE: std::ops::RangeInclusive<u32> = 16..=4096;
pub const PREVIEW_SUPERSAMPLE: std::ops::RangeInclusive<u32> = 1..=4;

/// The default model preview size: the stage cells' (see `pipeline.toml`), so a model's
/// preview is its thumbnail, drawn once at about twice the size the report shows it.
pub const PREVIEW_DEFAULT: u32 = 128;
pub const STAGE_CELL: std::ops::RangeInclusive<u32> = 16..=1024;
pub const STAGE_MAX_WIDTH: std::ops::RangeInclusive<u32> = 16..=16384;

// The error texts carry their cause themselves: no `source` chain, so a caller printing
// the chain (`{:#}`) does not repeat it.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {error}")]
    Read {
        path: String,
        error: crate::input::ReadError,
    },
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
    /// A `[gates]` or `[stage]` value outside what its key means (`key` is `table.key`,
    /// `range` says in words what it may be).
    #[error("{path}: {key} = {value} is out of range ({range})")]
    RealRange {
        path: String,
        key: &'static str,
        value: f64,
        range: String,
    },
}

/// What a `[gates]` / `[stage]` number may be. Every one must be finite: NaN makes each
/// comparison false (a gate silently off), an infinite bound is no bound.
#[derive(Clone, Copy, Debug)]
enum Real {
    /// A fraction: 0 to 1.
    Fraction,
    /// A length or ratio that may be 0: 0 or more.
    NonNegative,
    /// A bound that must let something through: more than 0.
    Positive,
    /// The upper end of a range whose lower end is the given key's value.
    AtLeast(&'static str, f64),
}

impl Real {
    fn admits(self, v: f64) -> bool {
        v.is_finite()
            && match self {
                Real::Fraction => (0.0..=1.0).contains(&v),
                Real::NonNegative => v >= 0.0,
                Real::Positive => v > 0.0,
                Real::AtLeast(_, min) => v >= min,
            }
    }

    fn describe(self) -> String {
        match self {
            Real::Fraction => "0 to 1".to_string(),
            Real::NonNegative => "0 or more, finite".to_string(),
            Real::Positive => "more than 0, finite".to_string(),
            Real::AtLeast(key, min) => format!("{key} ({min}) or more, finite"),
        }
    }
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
            ("preview_supersample", o.preview_supersample, PREVIEW_SUPERSAMPLE),
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
        let (g, st) = (&c.gates, &c.stage);
        for (key, value, range) in [
            (
                "gates.max_degenerate_fraction",
                g.max_degenerate_fraction,
                Real::Fraction,
            ),
            (
                "gates.min_referenced_fraction",
                g.min_referenced_fraction,
                Real::Fraction,
            ),
            ("gates.normal_len_min", g.normal_len_min, Real::NonNegative),
            (
                "gates.normal_len_max",
                g.normal_len_max,
                Real::AtLeast("gates.normal_len_min", g.normal_len_min),
            ),
            (
                "gates.min_winding_consistency",
                g.min_winding_consistency,
                Real::Fraction,
            ),
            ("gates.max_abs_coordinate", g.max_abs_coordinate, Real::Positive),
            ("gates.spiky_edge_ratio", g.spiky_edge_ratio, Real::NonNegative),
            ("stage.skybox_extent", st.skybox_extent, Real::Positive),
        ] {
            if !range.admits(value) {
                return Err(ConfigError::RealRange {
                    path: path.to_string(),
                    key,
                    value,
                    range: range.describe(),
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
        let read = |error| ConfigError::Read { path: p.clone(), error };
        let bytes =
            crate::input::read_bounded(path, crate::input::MAX_CONFIG_BYTES, "a configuration").map_err(read)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            read(crate::input::ReadError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                e.utf8_error(),
            )))
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
    fn gate_and_stage_values_out_of_range_are_errors_naming_the_key_and_range() {
        // Regression (#40 row 13): these were accepted; NaN turned a gate silently off.
        for (text, want) in [
            (
                "[gates]\nmax_degenerate_fraction = -1.0\n",
                "x.toml: gates.max_degenerate_fraction = -1 is out of range (0 to 1)",
            ),
            (
                "[gates]\nmax_abs_coordinate = -inf\n",
                "x.toml: gates.max_abs_coordinate = -inf is out of range (more than 0, finite)",
            ),
            (
                "[gates]\nmin_referenced_fraction = 1.5\n",
                "x.toml: gates.min_referenced_fraction = 1.5 is out of range (0 to 1)",
            ),
            (
                "[gates]\nmin_winding_consistency = nan\n",
                "x.toml: gates.min_winding_consistency = NaN is out of range (0 to 1)",
            ),
            (
                "[gates]\nnormal_len_min = -0.5\n",
                "x.toml: gates.normal_len_min = -0.5 is out of range (0 or more, finite)",
            ),
            (
                "[gates]\nnormal_len_max = 0.25\n",
                "x.toml: gates.normal_len_max = 0.25 is out of range (gates.normal_len_min (0.5) or more, finite)",
            ),
            (
                "[gates]\nspiky_edge_ratio = inf\n",
                "x.toml: gates.spiky_edge_ratio = inf is out of range (0 or more, finite)",
            ),
            (
                "[stage]\nskybox_extent = 0.0\n",
                "x.toml: stage.skybox_extent = 0 is out of range (more than 0, finite)",
            ),
        ] {
            let e = Config::from_toml(text, "x.toml").unwrap_err();
            assert_eq!(e.to_string(), want);
        }
        // The ends of each range are in it.
        let ok = "[gates]\nmax_degenerate_fraction = 0.0\nmin_referenced_fraction = 1.0\n\
                  normal_len_min = 0.0\nnormal_len_max = 0.0\nmin_winding_consistency = 1.0\n\
                  spiky_edge_ratio = 0.0\nmax_abs_coordinate = 1e300\n[stage]\nskybox_extent = 1e-9\n";
        Config::from_toml(ok, "x.toml").unwrap();
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
