//! Synthetic disc generator: an independent XPR2/XBG7 *encoder* written from FORMAT.md
//! alone (its own type tables and packing), producing a retail-shaped disc
//! (`hidden/resource3d/*.xpr`) plus ground truth (`truth.json`). Everything FORMAT.md calls
//! known is modelled exactly; every unknown is varied at random so a guessing decoder fails.
//!
//! Submodules: `spec` (the plan types: options, categories, resource and file plans,
//! families), `plan` (file list, structural choices), `geom` (real meshes),
//! `vformat` (declarations, vertex encoding), `descriptor` (XBG7), `texture` (TX2D),
//! `build` (container assembly), `truth` (ground-truth types), `rng` (seeded streams),
//! `realism` (the imperfection families of `synth --realism`).

pub mod build;
pub mod descriptor;
pub mod geom;
pub mod hostile;
pub mod math;
pub mod plan;
pub mod realism;
pub mod rng;
pub mod spec;
pub mod texture;
pub mod truth;
pub mod vformat;

use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use thiserror::Error;

pub use build::{build_file, SynthFile};
pub use plan::file_plan;
pub use spec::{Category, Expectation, Family, FileKind, FileSpec, RecordLayout, ResourcePlan, Scale, SynthOptions};
pub use truth::{TruthBlock, TruthContainer, TruthDisc, TruthResource, TruthTexture, TRUTH_SCHEMA};

/// Errors of writing or reading a synthetic disc.
#[derive(Debug, Error)]
pub enum SynthError {
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid truth JSON in {path}: {source}")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("unsupported truth schema {found:?} in {path} (expected {TRUTH_SCHEMA:?})")]
    Schema { path: PathBuf, found: String },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |source| SynthError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Every file of the disc in memory, with its plan entry, built in parallel (for tests
/// and tools that rewrite or decode the files without a folder).
pub fn build_disc(opts: &SynthOptions) -> Vec<(FileSpec, SynthFile)> {
    file_plan(opts)
        .into_par_iter()
        .map(|spec| {
            let f = build_file(&spec);
            (spec, f)
        })
        .collect()
}

/// Write the disc to `dir` (`dir/hidden/resource3d/*.xpr`, files built in parallel, one
/// file in memory per thread) and `dir/truth.json`. Returns the truth without meshes.
pub fn write_disc(dir: &Path, opts: &SynthOptions) -> Result<TruthDisc, SynthError> {
    let res_dir = dir.join("hidden").join("resource3d");
    fs::create_dir_all(&res_dir).map_err(io_err(&res_dir))?;
    let plan = file_plan(opts);
    let containers = plan
        .par_iter()
        .map(|spec| {
            let f = build_file(spec);
            let path = dir.join(&f.rel_path);
            fs::write(&path, &f.bytes).map_err(io_err(&path))?;
            Ok(f.truth.without_meshes())
        })
        .collect::<Result<Vec<TruthContainer>, SynthError>>()?;
    let truth = TruthDisc {
        schema: TRUTH_SCHEMA.to_string(),
        seed: opts.seed,
        scale: opts.scale.to_string(),
        realism: opts.realism,
        containers,
    };
    let path = dir.join("truth.json");
    let json = serde_json::to_vec_pretty(&truth).map_err(|source| SynthError::Json {
        path: path.clone(),
        source,
    })?;
    fs::write(&path, json).map_err(io_err(&path))?;
    Ok(truth)
}

/// Read a `truth.json` written by [`write_disc`] (meshes are not stored: `mesh` is `None`).
pub fn load_truth(path: &Path) -> Result<TruthDisc, SynthError> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    parse_truth(&bytes, path)
}

/// [`load_truth`] of bytes already read (`path` names them in errors): a caller that
/// reads the file itself bounds the read.
pub fn parse_truth(bytes: &[u8], path: &Path) -> Result<TruthDisc, SynthError> {
    let truth: TruthDisc = serde_json::from_slice(bytes).map_err(|source| SynthError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    if truth.schema != TRUTH_SCHEMA {
        return Err(SynthError::Schema {
            path: path.to_path_buf(),
            found: truth.schema,
        });
    }
    Ok(truth)
}
