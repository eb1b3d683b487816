//! A [`Diff`] as text (optionally coloured), Markdown and JSON, and the listed items
//! the HTML page shows.

use super::compare::{Change, ContainerDiff, Coverage, Diff, ErrorChange, Presence, Was};
use crate::manifest::Reason;
use crate::manifest::{Counts, Status};
use crate::text::{clean, plural};
use std::fmt::Write as _;

/// How an item counts: gain (green), regression (red) or neutral change (yellow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    Gain,
    Regression,
    Change,
}

impl Class {
    pub(super) fn mark(self) -> char {
        match self {
            Class::Gain => '+',
            Class::Regression => '-',
            Class::Change => '~',
        }
    }

    pub(super) fn ansi(self) -> &'static str {
        match self {
            Class::Gain => "\x1b[32m",
            Class::Regression => "\x1b[31m",
            Class::Change => "\x1b[33m",
        }
    }
}

pub(super) const RESET: &str = "\x1b[0m";

/// One listed fact: a resource (`index`) or the container itself (`None`).
pub(super) struct Item {
    pub(super) class: Class,
    pub(super) index: Option<u32>,
    pub(super) name: Option<String>,
    pub(super) text: String,
}

/// Text: control characters escaped. Markdown: an inline code span.
#[derive(Clone, Copy)]
pub(super) enum Style {
    Text,
    Markdown,
}

impl Style {
    pub(super) fn q(self, s: &str) -> String {
        match self {
            Style::Text => clean(s),
            Style::Markdown => code_span(&clean(s)),
        }
    }

    pub(super) fn reason(self, r: &Option<Reason>) -> String {
        match r {
            None => "no reason".to_string(),
            Some(r) if r.detail.is_empty() => self.q(r.code.as_str()),
            Some(r) => format!("{}: {}", self.q(r.code.as_str()), clean(&r.detail)),
        }
    }

    pub(super) fn code(self, r: &Option<Reason>) -> String {
        match r {
            None => "no reason".to_string(),
            Some(r) => self.q(r.code.as_str()),
        }
    }
}

/// A Markdown code span that survives backticks inside `s`.
pub(super) fn code_span(s: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// "b → a", or just "a" when equal.
pub(super) fn arrow<T: PartialEq + std::fmt::Display>(b: T, a: T) -> String {
    if b == a {
        format!("{a}")
    } else {
        format!("{b} → {a}")
    }
}

pub(super) fn frac(c: &Counts) -> String {
    format!("{}/{}", c.decoded, c.resources)
}

pub(super) fn cov(c: &Option<Coverage>) -> String {
    match c {
        Some(c) => format!("{}/{} decoded", c.decoded, c.resources),
        None => "absent".to_string(),
    }
}

pub(super) fn bbox(b: &Option<[[f32; 3]; 2]>) -> String {
    match b {
        None => "none".to_string(),
        Some([lo, hi]) => format!("[{}, {}, {}]..[{}, {}, {}]", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]),
    }
}

/// "2 regressions, 1 gain, 3 changes" or "no changes".
pub(super) fn headline(d: &Diff) -> String {
    let t = &d.total;
    if t.regressions + t.gains + t.changes == 0 {
        return "no changes".to_string();
    }
    format!(
        "{}, {}, {}",
        plural(t.regressions, "regression", "regressions"),
        plural(t.gains, "gain", "gains"),
        plural(t.changes, "change", "changes")
    )
}

/// The container-level item (added, removed, error change), if any.
pub(super) fn container_item(cd: &ContainerDiff, st: Style) -> Option<Item> {
    let (class, text) = match (&cd.presence, &cd.error) {
        (Presence::Added, _) => (
            Class::Change,
            format!("container added ({}), {}", cd.kind.as_str(), cov(&cd.after)),
        ),
        (Presence::Removed, _) => (
            Class::Regression,
            format!("container removed ({}), was {}", cd.kind.as_str(), cov(&cd.before)),
        ),
        (Presence::Both, Some(ErrorChange::Appeared { after })) => (
            Class::Regression,
            format!(
                "container error appeared: {}; was {}",
                st.reason(&Some(after.clone())),
                cov(&cd.before)
            ),
        ),
        (Presence::Both, Some(ErrorChange::Disappeared { before })) => (
            Class::Gain,
            format!(
                "container error gone (was {}); now {}",
                st.code(&Some(before.clone())),
                cov(&cd.after)
            ),
        ),
        (Presence::Both, Some(ErrorChange::Changed { before, after })) => (
            Class::Change,
            format!(
                "container error {} → {}",
                st.code(&Some(before.clone())),
                st.reason(&Some(after.clone()))
            ),
        ),
        (Presence::Both, None) => return None,
    };
    Some(Item {
        class,
        index: None,
        name: None,
        text,
    })
}

/// Every item of a container: the container-level one first, then resources by index.
pub(super) fn items(cd: &ContainerDiff, st: Style) -> Vec<Item> {
    let mut v: Vec<Item> = Vec::new();
    let item = |class, index, name: &str, text| Item {
        class,
        index: Some(index),
        name: Some(name.to_string()),
        text,
    };
    for r in &cd.newly_decoded {
        let was = match &r.before {
            Was::Absent => "absent".to_string(),
            Was::Rejected { reason } => st.code(reason),
        };
        let text = format!(
            "decoded, {}, {} (was {was})",
            plural(r.vertices as usize, "vertex", "vertices"),
            plural(r.triangles as usize, "triangle", "triangles")
        );
        v.push(item(Class::Gain, r.index, &r.name, text));
    }
    for r in &cd.newly_rejected {
        let text = format!("decoded → rejected: {}", st.reason(&r.reason));
        v.push(item(Class::Regression, r.index, &r.name, text));
    }
    for r in &cd.geometry_changed {
        let text = format!(
            "geometry changed: vertices {}, triangles {}, bbox {}",
            arrow(r.vertices.before, r.vertices.after),
            arrow(r.triangles.before, r.triangles.after),
            arrow(bbox(&r.bbox.before), bbox(&r.bbox.after))
        );
        v.push(item(Class::Regression, r.index, &r.name, text));
    }
    for r in &cd.reason_changed {
        let text = format!("reason {} → {}", st.code(&r.reason.before), st.reason(&r.reason.after));
        v.push(item(Class::Change, r.index, &r.name, text));
    }
    for r in &cd.appeared {
        let text = format!("new resource, rejected: {}", st.reason(&r.reason));
        v.push(item(Class::Change, r.index, &r.name, text));
    }
    for r in &cd.vanished {
        let (class, text) = match r.status {
            Status::Decoded => (Class::Regression, "gone (was decoded)".to_string()),
            Status::Rejected => (Class::Change, format!("gone (was rejected: {})", st.code(&r.reason))),
        };
        v.push(item(class, r.index, &r.name, text));
    }
    for r in &cd.moved {
        let text = format!("moved from [{}] (matched by name)", r.index.before);
        v.push(item(Class::Change, r.index.after, &r.name, text));
    }
    v.sort_by_key(|i| i.index);
    if let Some(c) = container_item(cd, st) {
        v.insert(0, c);
    }
    v
}

/// One listed fact of a container's diff, worded as in the text rendering (control
/// characters escaped in the text, not in `name`). `class` is `"gain"`, `"regression"` or
/// `"change"`; `index` and `name` are `None` for the container-level fact (added, removed,
/// error change), which comes first. For the HTML page (the `report` module).
#[derive(Clone, Debug, PartialEq)]
pub struct ListedItem {
    pub class: &'static str,
    pub index: Option<u32>,
    pub name: Option<String>,
    pub text: String,
}

/// The facts of one container's diff, in the order every rendering lists them.
pub fn listed_items(cd: &ContainerDiff) -> Vec<ListedItem> {
    items(cd, Style::Text)
        .into_iter()
        .map(|it| ListedItem {
            class: match it.class {
                Class::Gain => "gain",
                Class::Regression => "regression",
                Class::Change => "change",
            },
            index: it.index,
            name: it.name,
            text: it.text,
        })
        .collect()
}

pub(super) fn paint(s: &str, class: Option<Class>, color: bool) -> String {
    match class {
        Some(c) if color => format!("{}{s}{RESET}", c.ansi()),
        _ => s.to_string(),
    }
}

/// Compact terminal report; ANSI colours when `color` (green gains, red regressions,
/// yellow changes).
pub fn render_text(d: &Diff, color: bool) -> String {
    let mut out = String::new();
    let t = &d.total;
    let head_class = if t.regressions > 0 {
        Some(Class::Regression)
    } else if t.gains > 0 {
        Some(Class::Gain)
    } else if t.changes > 0 {
        Some(Class::Change)
    } else {
        None
    };
    let _ = writeln!(out, "{}", paint(&format!("diff: {}", headline(d)), head_class, color));

    let (b, a) = (&d.coverage.before, &d.coverage.after);
    let mut line = format!(
        "coverage: {} decoded in {} {}",
        arrow(frac(b), frac(a)),
        arrow(b.files, a.files),
        if a.files == 1 { "file" } else { "files" }
    );
    if b.file_errors + a.file_errors > 0 {
        let word = if a.file_errors == 1 {
            "file error"
        } else {
            "file errors"
        };
        let _ = write!(line, ", {} {word}", arrow(b.file_errors, a.file_errors));
    }
    let kinds: Vec<String> = d
        .kinds
        .iter()
        .map(|(k, c)| format!("{k} {}", arrow(frac(&c.before), frac(&c.after))))
        .collect();
    if !kinds.is_empty() {
        let _ = write!(line, "; {}", kinds.join(", "));
    }
    let _ = writeln!(out, "{line}");
    let reasons: Vec<String> = d
        .reasons
        .iter()
        .filter(|(_, c)| c.before != c.after)
        .map(|(r, c)| format!("{r} {} → {}", c.before, c.after))
        .collect();
    if !reasons.is_empty() {
        let _ = writeln!(out, "reasons: {}", reasons.join(", "));
    }

    for cd in &d.containers {
        let mut its = items(cd, Style::Text).into_iter().peekable();
        match its.peek() {
            Some(first) if first.index.is_none() => {
                let first = its.next().expect("peeked");
                let s = format!("{} {}: {}", first.class.mark(), clean(&cd.path), first.text);
                let _ = writeln!(out, "{}", paint(&s, Some(first.class), color));
            }
            _ => {
                let _ = writeln!(out, "  {}", clean(&cd.path));
            }
        }
        for it in its {
            let s = format!(
                "{} [{}] {}: {}",
                it.class.mark(),
                it.index.unwrap_or(0),
                clean(it.name.as_deref().unwrap_or("")),
                it.text
            );
            let _ = writeln!(out, "    {}", paint(&s, Some(it.class), color));
        }
    }
    out
}

/// A PR comment: headline, a coverage table per kind, changed reason counts, then lists of
/// regressions, gains and changes.
pub fn render_markdown(d: &Diff) -> String {
    let mut out = markdown_summary(d);
    for (_, title, lines) in &markdown_buckets(d) {
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n#### {title} ({})\n", lines.len());
        for l in lines {
            let _ = writeln!(out, "{l}");
        }
    }
    out
}

/// Default cap of [`render_markdown_capped`]: a GitHub comment holds 65 536 characters.
pub const MARKDOWN_CAP: usize = 60_000;

/// [`render_markdown`] when it fits in `cap` characters; otherwise a shorter form that
/// does: the summary first, a table of the containers with the most changes, then each
/// list folded in a `<details>` section (regressions open), cut where the cap is
/// reached, with a last line saying how many lines it left out and how to see them all.
pub fn render_markdown_capped(d: &Diff, cap: usize) -> String {
    let full = render_markdown(d);
    if full.chars().count() <= cap {
        return full;
    }
    let mut out = markdown_summary(d);
    // The containers with the most listed changes.
    let mut sizes: Vec<(usize, &ContainerDiff)> = d
        .containers
        .iter()
        .map(|cd| (items(cd, Style::Markdown).len(), cd))
        .filter(|(n, _)| *n > 0)
        .collect();
    sizes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.path.cmp(&b.1.path)));
    let _ = writeln!(out, "\n| container | regressions | gains | changes |");
    let _ = writeln!(out, "|:--|--:|--:|--:|");
    for (_, cd) in sizes.iter().take(LARGEST_SHOWN) {
        let its = items(cd, Style::Markdown);
        let n = |c: Class| its.iter().filter(|i| i.class == c).count();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            code_span(&clean(&cd.path)),
            n(Class::Regression),
            n(Class::Gain),
            n(Class::Change)
        );
    }
    if sizes.len() > LARGEST_SHOWN {
        let more = plural(sizes.len() - LARGEST_SHOWN, "more container", "more containers");
        let _ = writeln!(out, "\n({more} changed.)");
    }
    // What the last line needs, kept free.
    const TAIL: usize = 400;
    let mut left_out = 0usize;
    let mut len = out.chars().count();
    for (class, title, lines) in &markdown_buckets(d) {
        if lines.is_empty() {
            continue;
        }
        let open = if *class == Class::Regression { " open" } else { "" };
        let head = format!("\n<details{open}><summary>{title} ({})</summary>\n\n", lines.len());
        let foot = "\n</details>\n";
        if len + head.len() + foot.len() + TAIL > cap {
            left_out += lines.len();
            continue;
        }
        out.push_str(&head);
        len += head.chars().count() + foot.len();
        for (k, l) in lines.iter().enumerate() {
            let n = l.chars().count() + 1;
            if len + n + TAIL > cap {
                left_out += lines.len() - k;
                break;
            }
            out.push_str(l);
            out.push('\n');
            len += n;
        }
        out.push_str(foot);
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "\n*{left_out} more lines left out to stay under {cap} characters; \
             `xbg7-export diff OLD NEW --format markdown --max-chars 0` lists them all.*"
        );
    }
    out
}

/// Containers [`render_markdown_capped`]'s table of the largest changes lists.
const LARGEST_SHOWN: usize = 20;

/// The headline, the counts per kind and the reason codes that changed.
fn markdown_summary(d: &Diff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### xbg7-export diff: {}\n", headline(d));
    let _ = writeln!(out, "| kind | files | decoded/resources | rejected | file errors |");
    let _ = writeln!(out, "|:--|--:|--:|--:|--:|");
    let row = |out: &mut String, name: &str, c: &Change<Counts>| {
        let (b, a) = (&c.before, &c.after);
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} |",
            arrow(b.files, a.files),
            arrow(frac(b), frac(a)),
            arrow(b.rejected, a.rejected),
            arrow(b.file_errors, a.file_errors)
        );
    };
    for (k, c) in &d.kinds {
        row(&mut out, k, c);
    }
    row(&mut out, "**total**", &d.coverage);

    let changed: Vec<(&String, &Change<usize>)> = d.reasons.iter().filter(|(_, c)| c.before != c.after).collect();
    if !changed.is_empty() {
        let _ = writeln!(out, "\n| reason | before | after |");
        let _ = writeln!(out, "|:--|--:|--:|");
        for (r, c) in changed {
            let _ = writeln!(out, "| `{r}` | {} | {} |", c.before, c.after);
        }
    }
    out
}

/// The listed lines by class: regressions, gains, changes.
fn markdown_buckets(d: &Diff) -> [(Class, &'static str, Vec<String>); 3] {
    let mut buckets: [(Class, &str, Vec<String>); 3] = [
        (Class::Regression, "Regressions", Vec::new()),
        (Class::Gain, "Gains", Vec::new()),
        (Class::Change, "Changes", Vec::new()),
    ];
    for cd in &d.containers {
        for it in items(cd, Style::Markdown) {
            let line = match (it.index, &it.name) {
                (Some(i), Some(n)) => format!(
                    "- {} [{i}] {}: {}",
                    code_span(&clean(&cd.path)),
                    code_span(&clean(n)),
                    it.text
                ),
                _ => format!("- {}: {}", code_span(&clean(&cd.path)), it.text),
            };
            if let Some(b) = buckets.iter_mut().find(|b| b.0 == it.class) {
                b.2.push(line);
            }
        }
    }
    buckets
}

/// The [`Diff`] as pretty JSON (field order fixed, maps sorted) with a trailing newline.
pub fn render_json(d: &Diff) -> String {
    let mut s = serde_json::to_string_pretty(d).expect("diff serialises");
    s.push('\n');
    s
}
