//! What decoding is tuned by: the gate thresholds ([`GateConfig`]) and the stage
//! settings, the `[gates]` and `[stage]` tables of the exporter's `pipeline.toml`.

use crate::gates::GateConfig;
use serde::{Deserialize, Serialize};

/// What decoding is tuned by: the `[gates]` and `[stage]` tables of `pipeline.toml`
/// (the rest of the file configures the outputs).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DecodeConfig {
    pub gates: GateConfig,
    pub stage: StageConfig,
}

/// The `[stage]` table of `pipeline.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StageConfig {
    pub skybox_extent: f64,
}

impl Default for StageConfig {
    fn default() -> Self {
        StageConfig {
            skybox_extent: 10_000.0,
        }
    }
}
