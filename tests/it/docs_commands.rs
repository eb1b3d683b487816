//! The commands the README and docs/*.md show are run, and the output they show is compared
//! with what the binary prints, so the pages cannot go stale (issue 41: the README's `diff`
//! example said `782/866 → 774/866` long after the tool said `823/866 → 815/866`).
//!
//! The convention, in the Markdown:
//!
//! - a fenced block whose info string is `console` is run: each line `$ COMMAND` is run by
//!   `sh` in one scratch folder per page (blocks in page order, so a block may use what an
//!   earlier one made), with `xbg7-export` on the `PATH` (this build) and
//!   `cargo run --release --` read as `xbg7-export`; the lines after it, up to the next `$`,
//!   are its output (stdout and stderr, in the order written). `…` in a line stands for any
//!   text, a line of only `…` for any number of lines. A command must exit 0 unless the next
//!   one is `echo $?`, which shows its status;
//! - in the other blocks that name the binary (`sh`, `usage`: commands that need a real
//!   disc, the full-scale disc or cargo itself), every option of every `xbg7-export` line
//!   must be one its `--help` lists, and its subcommand must exist.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SUBCOMMANDS: [&str; 9] = [
    "completions",
    "synth",
    "demo",
    "bench",
    "verify",
    "diff",
    "info",
    "render",
    "help",
];

/// A fenced block: its info string and its lines.
struct Block {
    info: String,
    lines: Vec<String>,
    line: usize,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, l) in text.lines().enumerate() {
        match (&mut open, l.trim_start().strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_string(),
                    lines: Vec::new(),
                    line: i + 1,
                })
            }
            (Some(_), Some(_)) => out.extend(open.take()),
            (Some(b), None) => b.lines.push(l.to_string()),
            (None, None) => {}
        }
    }
    out
}

/// A command of a `console` block and the output shown after it.
struct Shown {
    command: String,
    output: Vec<String>,
}

fn console_commands(b: &Block) -> Vec<Shown> {
    let mut out: Vec<Shown> = Vec::new();
    for l in &b.lines {
        if let Some(c) = l.strip_prefix("$ ") {
            out.push(Shown {
                command: c.to_string(),
                output: Vec::new(),
            });
        } else if let Some(last) = out.last_mut() {
            last.output.push(l.clone());
        }
    }
    out
}

/// `line` matches the shown line `pattern`, in which `…` stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split('…').collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || line.len() < first.len() + last.len() || !line.ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// The printed `lines` match the shown `pattern` lines (a line of only `…`: any lines).
fn lines_match(pattern: &[String], lines: &[&str]) -> bool {
    match pattern.split_first() {
        None => lines.is_empty(),
        Some((p, rest)) if p.trim() == "…" => (0..=lines.len()).any(|k| lines_match(rest, &lines[k..])),
        Some((p, rest)) => !lines.is_empty() && line_matches(p, lines[0]) && lines_match(rest, &lines[1..]),
    }
}

/// A scratch folder with `bin/xbg7-export` (this build) for a page's commands.
struct Scratch {
    dir: tempfile::TempDir,
    path_var: String,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_xbg7-export"), bin.join("xbg7-export")).unwrap();
        std::fs::create_dir(dir.path().join("work")).unwrap();
        let path_var = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
        Scratch { dir, path_var }
    }

    /// Runs `command` by `sh` in the work folder: its status and its stdout and stderr as
    /// written (one file for both keeps their order).
    fn run(&self, command: &str) -> (i32, String) {
        let log_path = self.dir.path().join("log");
        let log = std::fs::File::create(&log_path).unwrap();
        let status = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(self.dir.path().join("work"))
            .env("PATH", &self.path_var)
            .env_remove("NO_COLOR")
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .status()
            .unwrap();
        let text = std::fs::read_to_string(&log_path).unwrap();
        (status.code().unwrap_or(-1), text)
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Runs every `console` block of `page` (relative to the repository); returns how many
/// commands ran.
fn run_page(page: &str) -> usize {
    let text = std::fs::read_to_string(root().join(page)).unwrap();
    let scratch = Scratch::new();
    let mut ran = 0;
    let mut problems = Vec::new();
    for b in blocks(&text).iter().filter(|b| b.info == "console") {
        let cmds = console_commands(b);
        let mut last_status = 0;
        for (i, c) in cmds.iter().enumerate() {
            let command = c
                .command
                .replace("cargo run --release --", "xbg7-export")
                .replace("$?", &last_status.to_string());
            let (status, printed) = scratch.run(&command);
            ran += 1;
            let next_shows_status = cmds.get(i + 1).is_some_and(|n| n.command == "echo $?");
            let lines: Vec<&str> = printed.lines().collect();
            if status != 0 && !next_shows_status {
                problems.push(format!("{page}:{} `{}` exited {status}:\n{printed}", b.line, c.command));
            } else if !c.output.is_empty() && !lines_match(&c.output, &lines) {
                problems.push(format!(
                    "{page}:{} `{}` shows\n{}\nbut prints\n{printed}",
                    b.line,
                    c.command,
                    c.output.join("\n")
                ));
            }
            last_status = status;
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    ran
}

/// The options of an `xbg7-export` command line (`[--iso FILE [--xgd2]]` gives `--iso` and
/// `--xgd2`), its subcommand first when it has one.
fn command_words(line: &str) -> Option<(Option<String>, Vec<String>)> {
    let line = [" # ", " | ", " > ", " 2>", " && "]
        .iter()
        .fold(line, |l, cut| l.split(cut).next().unwrap_or(l));
    let line = line.replace("cargo run --release --", "xbg7-export");
    let i = line.find("xbg7-export ")?;
    let mut words = line[i + "xbg7-export ".len()..]
        .split(|c: char| c.is_whitespace() || "[]()|=".contains(c))
        .filter(|w| !w.is_empty())
        .peekable();
    let sub = words.peek().filter(|w| SUBCOMMANDS.contains(w)).map(|w| w.to_string());
    if sub.is_some() {
        words.next();
    }
    let flags = words
        .filter(|w| w.starts_with('-') && w.len() > 1 && !w.starts_with("--=") && *w != "--")
        .map(|w| w.trim_end_matches(['.', ',', ';', ':']).to_string())
        .collect();
    Some((sub, flags))
}

/// `help` lists `flag` as an option (followed by neither a letter nor a dash).
fn help_lists(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(i, _)| {
        let before = help[..i].chars().next_back();
        let after = help[i + flag.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '-')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '-')
    })
}

fn markdown_pages() -> Vec<String> {
    let mut pages = vec!["README.md".to_string()];
    for e in std::fs::read_dir(root().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(format!("docs/{}", p.file_name().unwrap().to_string_lossy()));
        }
    }
    pages.sort();
    pages
}

/// The pages with `console` blocks, each run by a test below.
const RUN_PAGES: [&str; 4] = ["README.md", "docs/outputs.md", "docs/synthetic.md", "docs/usage.md"];

#[test]
fn every_page_with_console_blocks_is_run() {
    let with: Vec<String> = markdown_pages()
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(root().join(p)).unwrap();
            blocks(&text).iter().any(|b| b.info == "console")
        })
        .collect();
    assert_eq!(with, RUN_PAGES, "add a test for each page with a console block");
}

#[test]
fn the_readme_commands_print_what_it_shows() {
    assert!(run_page("README.md") >= 1);
}

#[test]
fn the_usage_page_commands_print_what_it_shows() {
    assert!(run_page("docs/usage.md") >= 4);
}

#[test]
fn the_outputs_page_commands_print_what_it_shows() {
    assert!(run_page("docs/outputs.md") >= 1);
}

#[test]
fn the_synthetic_disc_page_commands_print_what_it_shows() {
    assert!(run_page("docs/synthetic.md") >= 2);
}

/// Every `xbg7-export` line of the blocks that are not run names a subcommand that exists
/// and options its `--help` lists.
#[test]
fn every_shown_command_line_uses_options_that_exist() {
    let mut helps = std::collections::BTreeMap::new();
    let mut checked = 0;
    let mut bad = Vec::new();
    for page in markdown_pages() {
        let text = std::fs::read_to_string(root().join(&page)).unwrap();
        for b in blocks(&text) {
            for l in &b.lines {
                let l = l.strip_prefix("$ ").unwrap_or(l);
                let Some((sub, flags)) = command_words(l) else {
                    continue;
                };
                let help = helps.entry(sub.clone()).or_insert_with(|| {
                    let mut c = Command::new(env!("CARGO_BIN_EXE_xbg7-export"));
                    c.args(sub.iter()).arg("--help");
                    let o = c.output().unwrap();
                    assert!(o.status.success(), "{page}: {l}: no such subcommand");
                    String::from_utf8(o.stdout).unwrap()
                });
                for f in flags {
                    checked += 1;
                    if !help_lists(help, &f) {
                        bad.push(format!("{page}:{}: {l}: {f} is not an option", b.line));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    assert!(checked >= 30, "only {checked} options checked: is the parser broken?");
}

#[test]
fn the_convention_is_parsed_as_documented() {
    let b = blocks("x\n```console\n$ a b\nout 1\n…\n$ echo $?\n1\n```\n```sh\nc\n```\n");
    assert_eq!(b.len(), 2);
    assert_eq!((b[0].info.as_str(), b[1].info.as_str()), ("console", "sh"));
    let c = console_commands(&b[0]);
    assert_eq!(c.len(), 2);
    assert_eq!((c[0].command.as_str(), c[0].output.len()), ("a b", 2));
    assert!(line_matches("a … s", "a 2.5 s"));
    assert!(line_matches("… of …", "3 of 4"));
    assert!(!line_matches("a … s", "a 2.5 ms x"));
    assert!(!line_matches("ab…ba", "aba"));
    let p = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&p(&["a", "…", "z"]), &["a", "b", "c", "z"]));
    assert!(lines_match(&p(&["a", "…"]), &["a"]));
    assert!(!lines_match(&p(&["a", "z"]), &["a", "b", "z"]));
    let (sub, flags) = command_words("xbg7-export synth --out DIR [--iso FILE [--xgd2]]   # x --y").unwrap();
    assert_eq!(sub.as_deref(), Some("synth"));
    assert_eq!(flags, ["--out", "--iso", "--xgd2"]);
    let (_, flags) = command_words("xbg7-export diff a b | head -1").unwrap();
    assert!(flags.is_empty());
    let (sub, flags) = command_words("cargo run --release -- --disc D --out o/").unwrap();
    assert_eq!((sub, flags), (None, vec!["--disc".into(), "--out".into()]));
    assert!(help_lists("  -o, --output <F>", "-o"));
    assert!(!help_lists("  --outer", "--out"));
}
