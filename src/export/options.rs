//! What a run is asked to do besides the configuration: `--only` ([`Only`]), `--jobs`,
//! previews, the progress bar and `--verbose` ([`ExportOptions`]).

/// `--only`: the containers any of its globs matches (case-insensitively), by file name,
/// output folder name or manifest path, so whatever the user sees of a container (in the
/// disc, in `out/`, in the manifest) selects it.
#[derive(Clone, Debug)]
pub struct Only {
    set: globset::GlobSet,
    globs: Vec<String>,
}

impl Only {
    pub fn new<S: AsRef<str>>(globs: &[S]) -> Result<Only, globset::Error> {
        let mut set = globset::GlobSetBuilder::new();
        for g in globs {
            set.add(globset::GlobBuilder::new(g.as_ref()).case_insensitive(true).build()?);
        }
        Ok(Only {
            set: set.build()?,
            globs: globs.iter().map(|g| g.as_ref().to_string()).collect(),
        })
    }

    /// Does any glob match any of a container's names (file name, folder, path)?
    pub fn matches(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.set.is_match(n))
    }

    /// The globs as the user gave them, for messages.
    pub fn describe(&self) -> String {
        self.globs.join(" ")
    }
}

#[derive(Clone, Debug)]
pub struct ExportOptions {
    pub jobs: Option<usize>,
    /// Only the containers it selects (`--only`).
    pub only: Option<Only>,
    pub previews: bool,
    pub progress: bool,
    /// Print one line per container: what was decided (see [`crate::export::explain`]).
    pub verbose: bool,
}

impl ExportOptions {
    /// Every container, `jobs` worker threads (`None`: one per core), no progress bar, no
    /// per-container lines: what a script or a test runs.
    pub fn quiet(jobs: Option<usize>, previews: bool) -> ExportOptions {
        ExportOptions {
            jobs,
            only: None,
            previews,
            progress: false,
            verbose: false,
        }
    }
}
