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

    /// Up to [`NEAREST`] of `names` (the disc's output folder names) nearest to the globs,
    /// for a filter that matched nothing: see [`nearest`].
    pub fn nearest(&self, names: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for g in &self.globs {
            for n in nearest(g, names) {
                if out.len() < NEAREST && !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }
}

/// How many names a filter that matches nothing suggests.
pub const NEAREST: usize = 3;

/// The names nearest to a glob that matched none of them, at most [`NEAREST`], nearest
/// first. The glob's letters (its text without `*?[]{}!,`, lowercased) are compared with
/// each lowercased name: first the names that contain them (`S10` → `Stage_S10`,
/// shortest first), then those within a small edit distance (`Stge_S10` → `Stage_S10`:
/// at most a third of the letters, and 2, differ). Nothing when no name is near.
pub fn nearest(glob: &str, names: &[String]) -> Vec<String> {
    // (Bounded work on a hostile disc: the letters and names compared are cut short.)
    const MAX_CHARS: usize = 64;
    let key: Vec<char> = glob
        .chars()
        .filter(|c| !"*?[]{}!,".contains(*c))
        .flat_map(char::to_lowercase)
        .take(MAX_CHARS)
        .collect();
    if key.is_empty() {
        return Vec::new();
    }
    let key_s: String = key.iter().collect();
    let budget = (key.len() / 3).max(2);
    let mut ranked: Vec<(usize, usize, &String)> = names
        .iter()
        .filter_map(|n| {
            let low = n.to_lowercase();
            if low.contains(&key_s) {
                return Some((0, low.len() - key_s.len(), n));
            }
            let low: Vec<char> = low.chars().take(MAX_CHARS).collect();
            let d = edit_distance(&key, &low);
            (d <= budget).then_some((1, d, n))
        })
        .collect();
    ranked.sort();
    ranked.into_iter().take(NEAREST).map(|(_, _, n)| n.clone()).collect()
}

/// Levenshtein distance (insertions, deletions, substitutions) of two strings of chars.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (up + 1).min(row[j] + 1).min(diag + usize::from(ca != cb));
            diag = up;
        }
    }
    row[b.len()]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_glob_that_matches_nothing_finds_the_names_holding_its_letters() {
        let disc = names(&["Stage_S1", "Stage_S10", "Stage_S100", "Stage_S2", "rou_f001_wep_00"]);
        assert_eq!(nearest("S10", &disc), ["Stage_S10", "Stage_S100"]);
        assert_eq!(nearest("*s1*", &disc), ["Stage_S1", "Stage_S10", "Stage_S100"]);
        assert_eq!(nearest("WEP", &disc), ["rou_f001_wep_00"]);
    }

    #[test]
    fn or_the_names_a_few_edits_away() {
        let disc = names(&["Stage_S1", "Stage_S10", "rou_f001_wep_00"]);
        // A typo (two letters swapped), a letter missing, one too many.
        assert_eq!(nearest("stage_s01", &disc), ["Stage_S1", "Stage_S10"]);
        assert_eq!(nearest("Stge_S10", &disc), ["Stage_S10", "Stage_S1"]);
        assert_eq!(nearest("rou_f001_weap_00", &disc), ["rou_f001_wep_00"]);
        // Nothing near: nothing suggested.
        assert!(nearest("zzz", &disc).is_empty());
        assert!(nearest("*", &disc).is_empty());
    }

    #[test]
    fn several_globs_suggest_three_names_at_most() {
        let disc = names(&["a1", "a2", "a3", "a4", "b1"]);
        let only = Only::new(&["a", "b"]).unwrap();
        assert_eq!(only.nearest(&disc), ["a1", "a2", "a3"]);
        assert_eq!(edit_distance(&['k', 'i', 't'], &['s', 'i', 't', 't', 'i', 'n', 'g']), 5);
    }
}
