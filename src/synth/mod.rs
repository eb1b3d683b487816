//! Synthetic disc generator (stub until the generator lands).
use std::path::Path;
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Demo,
    Full,
}
impl std::str::FromStr for Scale {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "demo" => Ok(Scale::Demo),
            "full" => Ok(Scale::Full),
            _ => Err(s.into()),
        }
    }
}
pub struct SynthOptions {
    pub seed: u64,
    pub scale: Scale,
}
#[derive(Debug, thiserror::Error)]
#[error("synth")]
pub struct SynthError;
pub struct TruthDisc;
pub fn write_disc(_dir: &Path, _o: &SynthOptions) -> Result<TruthDisc, SynthError> {
    todo!()
}
