//! The module graph of every crate has no cycle: within a crate, a module (a file under
//! `src/`) that uses another never is used back by it, directly or through others. A
//! cycle is how a layer ends up split across two (the decoder's entry was once half in
//! `decode.rs`, half in `layout/plan.rs`, each importing the other).
//!
//! The graph is read from the source text: `crate::`, `super::` and `self::` paths (with
//! `use` trees expanded) and paths starting at a child module's name, in code outside
//! comments and outside the `#[cfg(test)]` module at a file's end. A path names the
//! deepest module file it reaches. The crate root only declares and re-exports (a facade:
//! its edges are not counted).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `src/layout/anchored/mod.rs` → `[layout, anchored]`; `src/lib.rs` → `[]`.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut m: Module = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        m.pop();
    }
    m
}

/// The code of a file: comments dropped, the trailing test module cut off.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    text.lines()
        .map(|l| match l.find("//") {
            Some(k) => &l[..k],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths of a `use` tree or an expression path starting at byte `at` of `code`:
/// `a::b::{c, d::e}` → `a::b::c`, `a::b::d::e`. Returns the segments of each.
fn paths_at(code: &[char], mut at: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix.to_vec();
    loop {
        while at < code.len() && code[at].is_whitespace() {
            at += 1;
        }
        if at < code.len() && code[at] == '{' {
            at += 1;
            loop {
                at = paths_at(code, at, &path, out);
                while at < code.len() && (code[at].is_whitespace() || code[at] == ',') {
                    at += 1;
                }
                if at >= code.len() || code[at] == '}' {
                    return at + 1;
                }
            }
        }
        let start = at;
        while at < code.len() && is_ident(code[at]) {
            at += 1;
        }
        if at > start {
            path.push(code[start..at].iter().collect());
        }
        if code.get(at) == Some(&':') && code.get(at + 1) == Some(&':') {
            at += 2;
            continue;
        }
        // `as name`, `*`, or the end of the path.
        while at < code.len() && !matches!(code[at], ',' | '}' | ';' | '(' | ')' | '\n') {
            at += 1;
        }
        out.push(path);
        return at;
    }
}

/// The module a path from `me` names, if it is one of `modules`: the deepest one it reaches.
fn target(me: &Module, path: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let mut base: Module = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self") => me.clone(),
        Some("super") => me[..me.len().saturating_sub(1)].to_vec(),
        _ => me.clone(),
    };
    let mut rest = &path[1..];
    if !matches!(path.first().map(String::as_str), Some("crate" | "self" | "super")) {
        rest = path; // a child module's name
    }
    while rest.first().map(String::as_str) == Some("super") {
        base.pop();
        rest = &rest[1..];
    }
    let mut best = None;
    let mut m = base.clone();
    if modules.contains(&m) && matches!(path.first().map(String::as_str), Some("crate" | "self" | "super")) {
        best = Some(m.clone());
    }
    for seg in rest {
        m.push(seg.clone());
        if modules.contains(&m) {
            best = Some(m.clone());
        } else {
            break;
        }
    }
    best.filter(|t| t != me)
}

/// Every module's dependencies within its crate.
fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    // A binary beside a library is another crate (it uses the library by its name).
    if files.iter().any(|f| f.ends_with("lib.rs")) {
        files.retain(|f| !f.ends_with("main.rs") || f.parent() != Some(src));
    }
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(src, f)).collect();
    let mut out = BTreeMap::new();
    for f in &files {
        let me = module_of(src, f);
        if me.is_empty() {
            continue; // the crate root declares and re-exports: a facade, not a layer
        }
        let code: Vec<char> = code_of(&std::fs::read_to_string(f).unwrap()).chars().collect();
        let mut paths = Vec::new();
        let mut k = 0;
        while k < code.len() {
            let word_start = is_ident(code[k]) && (k == 0 || !(is_ident(code[k - 1]) || code[k - 1] == ':'));
            if word_start {
                let mut e = k;
                while e < code.len() && is_ident(code[e]) {
                    e += 1;
                }
                if code.get(e) == Some(&':') && code.get(e + 1) == Some(&':') {
                    k = paths_at(&code, k, &[], &mut paths);
                    continue;
                }
                k = e;
                continue;
            }
            k += 1;
        }
        let deps: BTreeSet<Module> = paths.iter().filter_map(|p| target(&me, p, &modules)).collect();
        out.insert(me, deps);
    }
    out
}

/// A cycle through `from`, if there is one.
fn cycle_from(g: &BTreeMap<Module, BTreeSet<Module>>, from: &Module) -> Option<Vec<Module>> {
    let mut stack = vec![(from.clone(), vec![from.clone()])];
    let mut seen = BTreeSet::new();
    while let Some((m, path)) = stack.pop() {
        for d in g.get(&m).into_iter().flatten() {
            if d == from {
                return Some(path.clone());
            }
            if seen.insert(d.clone()) {
                let mut p = path.clone();
                p.push(d.clone());
                stack.push((d.clone(), p));
            }
        }
    }
    None
}

fn cycles(src: &Path) -> Vec<String> {
    let g = graph(src);
    let mut out = BTreeSet::new();
    for m in g.keys() {
        if let Some(mut c) = cycle_from(&g, m) {
            let min = c.iter().enumerate().min_by_key(|(_, m)| *m).map(|(k, _)| k).unwrap();
            c.rotate_left(min);
            let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
            out.insert(names.join(" → "));
        }
    }
    out.into_iter().collect()
}

const CRATES: [&str; 5] = [
    "src",
    "crates/xbg7/src",
    "crates/xbg7-gltf/src",
    "crates/xbg7-preview/src",
    "crates/xbg7-synth/src",
];

#[test]
fn no_crate_has_an_import_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found: Vec<String> = CRATES
        .iter()
        .flat_map(|c| cycles(&root.join(c)).into_iter().map(move |s| format!("{c}: {s}")))
        .collect();
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn the_reader_sees_a_planted_cycle_and_its_use_trees() {
    let dir = std::env::temp_dir().join(format!("xbg7-arch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\npub use a::X;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "mod c;\npub use c::X;\n").unwrap();
    std::fs::write(dir.join("a/c.rs"), "use crate::{b::{self, Y}, z};\npub struct X;\n").unwrap();
    std::fs::write(dir.join("b.rs"), "pub fn f() { let _ = super::a::X; }\n").unwrap();
    let found = cycles(&dir);
    assert_eq!(found, vec!["a → a::c → b".to_string()], "{found:?}");
    // Broken: no cycle (neither a comment nor a test module counts).
    let b = "// super::a::X\npub fn f() {}\n#[cfg(test)]\nmod tests {\n use crate::a::X;\n}\n";
    std::fs::write(dir.join("b.rs"), b).unwrap();
    assert_eq!(cycles(&dir), Vec::<String>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}
