//! Every relative link of README.md and docs/*.md resolves to a file inside this
//! repository (the README once linked to `../shared/spec/FORMAT.md`, which nobody who
//! clones the repository has).

use std::path::{Path, PathBuf};

/// Targets of the Markdown links `[text](target)` and `![alt](target)` of `text`.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            let target = rest[..end].split_whitespace().next().unwrap_or("");
            out.push(target.trim_matches(['<', '>']).to_string());
            rest = &rest[end..];
        }
    }
    out
}

fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    files.sort();
    files
}

#[test]
fn every_relative_link_in_the_docs_resolves_inside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).canonicalize().unwrap();
    let mut checked = 0;
    let mut bad = Vec::new();
    for md in markdown_files(&root) {
        let text = std::fs::read_to_string(&md).unwrap();
        for target in link_targets(&text) {
            let path = target.split('#').next().unwrap_or("");
            if path.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let resolved = md.parent().unwrap().join(path);
            match resolved.canonicalize() {
                Ok(p) if p.starts_with(&root) => {}
                Ok(p) => bad.push(format!(
                    "{}: {target} leaves the repository ({})",
                    md.display(),
                    p.display()
                )),
                Err(e) => bad.push(format!("{}: {target}: {e}", md.display())),
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    assert!(checked >= 5, "only {checked} links found: is the parser broken?");
}

#[test]
fn the_link_parser_sees_images_links_and_fragments() {
    let t = link_targets("a [x](docs/a.md#s) ![i](img/p.png \"t\") [w](https://e.org) (not)");
    assert_eq!(t, ["docs/a.md#s", "img/p.png", "https://e.org"]);
}

#[test]
fn the_repository_never_refers_to_the_shared_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for md in markdown_files(root) {
        let text = std::fs::read_to_string(&md).unwrap();
        assert!(!text.contains("../shared"), "{} refers to ../shared", md.display());
    }
}

/// `cargo install --path .` ignores `Cargo.lock` (it re-resolved 153 packages and built 14
/// newer crates than the tests ran with, issue 41): every install line says `--locked`.
#[test]
fn every_documented_cargo_install_of_this_crate_is_locked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for md in markdown_files(root) {
        let text = std::fs::read_to_string(&md).unwrap();
        for line in text
            .lines()
            .filter(|l| l.contains("cargo install") && l.contains("--path"))
        {
            seen += 1;
            assert!(line.contains("--locked"), "{}: {line}", md.display());
        }
    }
    assert!(
        seen >= 1,
        "the README's install line is gone: is the check still needed?"
    );
}

/// The packages after `apt-get install` in `line` (options left out), up to the end of the
/// code span or line.
fn apt_packages(line: &str) -> Vec<String> {
    let Some(i) = line.find("apt-get install") else {
        return Vec::new();
    };
    let rest = &line[i + "apt-get install".len()..];
    let rest = rest.split(['`', '#', '>', ';', '&']).next().unwrap_or("");
    rest.split_whitespace()
        .filter(|w| !w.starts_with('-') && !w.starts_with('$'))
        .map(str::to_string)
        .collect()
}

/// The README's Blender line is what CI runs (issue 41: `apt-get install blender` brings no
/// numpy, and the README named only docs/blender.md's package): `tests/blender/run.sh`
/// installs the README's package list and starts Blender with the README's shim.
#[test]
fn the_readme_blender_line_is_what_ci_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let run = std::fs::read_to_string(root.join("tests/blender/run.sh")).unwrap();
    let readme_line = readme
        .lines()
        .find(|l| l.contains("apt-get install blender"))
        .expect("the README's Blender install line");
    let readme_pkgs = apt_packages(readme_line);
    assert_eq!(readme_pkgs, ["blender", "python3-numpy"], "{readme_line}");
    let var = |name: &str| -> String {
        let l = run
            .lines()
            .find(|l| l.starts_with(&format!("{name}=")))
            .unwrap_or_else(|| panic!("run.sh sets {name}"));
        l[name.len() + 1..].trim_matches('"').to_string()
    };
    let run_pkgs: Vec<String> = var("README_PACKAGES").split_whitespace().map(str::to_string).collect();
    assert_eq!(run_pkgs, readme_pkgs);
    assert!(run.contains("apt-get install -y -qq $README_PACKAGES"));
    let installs = run
        .lines()
        .filter(|l| l.trim_start().starts_with("apt-get install"))
        .count();
    assert_eq!(installs, 1, "run.sh installs only the README's list");
    let shim = var("README_SHIM");
    assert!(
        readme.contains(&format!("`blender --python-expr \"{shim}\"`")),
        "the README's start line differs from run.sh's shim {shim:?}"
    );
    assert!(run.contains("--python-expr \"$README_SHIM\""));
}

#[test]
fn apt_packages_reads_a_command_line() {
    assert_eq!(
        apt_packages("as root: `apt-get install -y blender python3-numpy`; then"),
        ["blender", "python3-numpy"]
    );
    assert_eq!(
        apt_packages("apt-get update && apt-get install blender python3-numpy   # x"),
        ["blender", "python3-numpy"]
    );
}
