//! The HTML coverage report: `OUT/index.html` for an export, and the page of
//! `xbg7-export diff OLD NEW --format html`.
//!
//! Owns the page (markup, the inline CSS and JavaScript in `page.css` / `page.js`), the
//! escaping of everything that comes from the disc, and the rule that every link stays
//! inside the output folder. The page is built from the [`Manifest`] alone: a summary
//! rendered here (HTML-escaped), and the rows as one JSON blob in a
//! `<script type="application/json">` element (every `<`, `>` and `&` written as a
//! `\u` escape, so no `</script>` or `<!--` can appear in it) that the inline script
//! renders lazily, in batches, as the reader scrolls. Names reach the DOM only through
//! `textContent`. Links are the manifest's relative output paths, accepted only when
//! they are plain relative paths (no `..`, no scheme, no absolute path) and
//! percent-encoded. No network, no server: the page opens from `file://`. No
//! timestamps: the same manifest gives the same bytes. Rendering is pure (text in, text
//! out); the exporter writes the page and records it in the manifest.

use crate::diff::{self, Diff};
use crate::manifest::{ContainerEntry, Manifest, ResourceEntry, Status, Summary};
use crate::text::clean;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Component, Path};

/// The report's file name, relative to OUT.
pub const FILE: &str = "index.html";

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// HTML text: `&`, `<`, `>`, `"` and `'` escaped, control characters shown as escapes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in clean(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON for a `<script type="application/json">` element: `<`, `>` and `&` as `\u`
/// escapes (valid JSON, and the element cannot be closed or commented out from inside).
pub fn script_json<T: Serialize>(value: &T) -> String {
    let s = serde_json::to_string(value).expect("report data serialises");
    let mut out = String::with_capacity(s.len() + 64);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A link to an output `rel` (relative to OUT): `None` unless `rel` is a plain relative
/// path ('/'-separated, no empty, `.` or `..` component, no `\`, `:` or NUL — so no
/// scheme, drive or absolute path); every byte outside `[A-Za-z0-9._~-]` percent-encoded.
pub fn href(rel: &str) -> Option<String> {
    let plain = !rel.is_empty()
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains(['\\', ':', '\0']));
    if !plain {
        return None;
    }
    let mut out = String::with_capacity(rel.len());
    for b in rel.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'~' | b'-' | b'/' => out.push(b as char),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------
// The export page

/// One resource as the page's script reads it (short keys: 6 000 of them).
#[derive(Serialize)]
struct Row {
    /// Directory index.
    i: u32,
    /// Name (control characters escaped).
    n: String,
    /// 1 decoded, 0 rejected.
    ok: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    rc: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    l: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    o: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    st: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decl: Option<String>,
    /// A multi-stream resource's streams, one line each.
    #[serde(skip_serializing_if = "Option::is_none")]
    sm: Option<String>,
    v: u32,
    t: u32,
    m: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    bb: Option<[[f32; 3]; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dg: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    w: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    sky: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    spiky: bool,
    /// `.gltf` / `.glb`, `.bin`, preview PNG (hrefs).
    #[serde(skip_serializing_if = "Option::is_none")]
    g: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p: Option<String>,
    /// The small preview the row shows (`thumb`; absent: the row shows `p`).
    #[serde(skip_serializing_if = "Option::is_none")]
    th: Option<String>,
}

#[derive(Serialize)]
struct Tex {
    i: u32,
    n: String,
    /// 1 decoded, 0 rejected, absent when not exported.
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    f: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    w: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    h: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rc: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    png: Option<String>,
}

#[derive(Serialize)]
struct Group {
    /// Container path (control characters escaped).
    path: String,
    kind: &'static str,
    size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ec: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ed: Option<String>,
    /// Stage grid preview, stage scene (hrefs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sc: Option<String>,
    rows: Vec<Row>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tex: Vec<Tex>,
    #[serde(skip_serializing_if = "is_zero")]
    other: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize)]
struct ExportData {
    mode: &'static str,
    groups: Vec<Group>,
}

fn opt_href(rel: &Option<String>) -> Option<String> {
    rel.as_deref().and_then(href)
}

fn row(r: &ResourceEntry) -> Row {
    Row {
        i: r.index,
        n: clean(&r.name),
        ok: (r.status == Status::Decoded) as u8,
        rc: r.reason.as_ref().map(|x| x.code.as_str()),
        rd: r.reason.as_ref().map(|x| clean(&x.detail)),
        l: r.layout.map(|l| l.as_str()),
        o: r.offset,
        st: r.stride,
        decl: r.declaration.as_deref().map(clean),
        sm: (!r.streams.is_empty()).then(|| {
            r.streams
                .iter()
                .map(|x| match (x.offset, &x.left_out) {
                    (Some(at), _) => format!("stream {} /{} at data+{at:#x}", x.stream, x.stride),
                    (None, why) => format!(
                        "stream {} /{} left out: {}",
                        x.stream,
                        x.stride,
                        clean(why.as_deref().unwrap_or(""))
                    ),
                })
                .collect::<Vec<_>>()
                .join("\n")
        }),
        v: r.vertices,
        t: r.triangles,
        m: r.submeshes,
        bb: r.bbox,
        dg: r.digest.as_deref().map(clean),
        w: r.winding.as_deref().map(clean),
        sky: r.skybox,
        spiky: r.spiky,
        g: opt_href(&r.gltf),
        b: opt_href(&r.bin),
        p: opt_href(&r.preview),
        th: opt_href(&r.thumb),
    }
}

fn group(c: &ContainerEntry) -> Group {
    Group {
        path: clean(&c.path),
        kind: c.kind.as_str(),
        size: c.size,
        ec: c.error.as_ref().map(|e| e.code.as_str()),
        ed: c.error.as_ref().map(|e| clean(&e.detail)),
        pv: opt_href(&c.preview),
        sc: opt_href(&c.scene),
        rows: c.resources.iter().map(row).collect(),
        tex: c
            .textures
            .iter()
            .map(|t| Tex {
                i: t.index,
                n: clean(&t.name),
                ok: t.status.map(|s| (s == Status::Decoded) as u8),
                f: t.format.as_deref().map(clean),
                w: t.width,
                h: t.height,
                rc: t.reason.as_ref().map(|r| r.code.as_str()),
                rd: t.reason.as_ref().map(|r| clean(&r.detail)),
                png: opt_href(&t.png),
            })
            .collect(),
        other: c.other.len(),
    }
}

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"{} {}\">\n<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION"),
        escape(title)
    );
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "–".to_string()
    } else {
        format!("{:.1} %", n as f64 * 100.0 / of as f64)
    }
}

/// The filter bar (status values differ between the export and the diff page).
fn controls(out: &mut String, statuses: &[(&str, &str)], reasons: &[&str], sorts: &[(&str, &str)]) {
    out.push_str("<div id=\"bar\" class=\"bar\">\n");
    out.push_str(
        "<input id=\"q\" type=\"search\" placeholder=\"filter by name or container…\" \
         aria-label=\"filter by name or container\" autocomplete=\"off\">\n",
    );
    out.push_str("<select id=\"status\" aria-label=\"status\">");
    for (v, label) in statuses {
        let _ = write!(out, "<option value=\"{}\">{}</option>", escape(v), escape(label));
    }
    out.push_str("</select>\n<select id=\"reason\" aria-label=\"reason\"><option value=\"\">any reason</option>");
    for r in reasons {
        let _ = write!(out, "<option value=\"{0}\">{0}</option>", escape(r));
    }
    out.push_str(
        "</select>\n<select id=\"kind\" aria-label=\"kind\"><option value=\"\">any kind</option>\
         <option value=\"model\">model</option><option value=\"stage\">stage</option></select>\n",
    );
    out.push_str("<select id=\"sort\" aria-label=\"sort\">");
    for (v, label) in sorts {
        let _ = write!(out, "<option value=\"{}\">{}</option>", escape(v), escape(label));
    }
    out.push_str("</select>\n<span id=\"shown\" class=\"shown\"></span>\n</div>\n");
}

fn tail(out: &mut String, data: &str) {
    out.push_str("<main id=\"list\"></main>\n<div id=\"more\" class=\"more\" hidden><button id=\"all\" type=\"button\">show all</button></div>\n");
    let _ = write!(
        out,
        "<script type=\"application/json\" id=\"data\">{data}</script>\n<script>\n{JS}</script>\n</body>\n</html>\n"
    );
}

/// The export page for `m`: the summary (cards, per-kind and per-reason tables), the
/// filter bar, and the rows as data.
pub fn render(m: &Manifest) -> String {
    let s = &m.summary;
    let mut out = String::with_capacity(4096 + 400 * s.total.resources);
    head(&mut out, "xbg7-export coverage");
    out.push_str("<body>\n<header>\n<h1>xbg7-export coverage</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"sub\">{} {} · <a href=\"manifest.json\">manifest.json</a> · schema {}</p>",
        escape(&m.generator.name),
        escape(&m.generator.version),
        escape(&m.schema)
    );
    export_cards(&mut out, m);
    out.push_str("</div>\n<div class=\"tables\">\n");
    kind_table(&mut out, s);
    reason_table(&mut out, s);
    out.push_str("</tbody></table>\n</div>\n</header>\n");
    let reasons = row_codes(m);
    controls(
        &mut out,
        &[("", "any status"), ("decoded", "decoded"), ("rejected", "rejected")],
        &reasons,
        &[
            ("", "sort: disc order"),
            ("name", "sort: name"),
            ("tri", "sort: triangles ↓"),
            ("vert", "sort: vertices ↓"),
            ("reason", "sort: status, reason"),
        ],
    );
    let data = ExportData {
        mode: "export",
        groups: m.containers.iter().map(group).collect(),
    };
    tail(&mut out, &script_json(&data));
    out
}

/// The export page's cards: files, resources, decoded, rejected, file errors, textures.
fn export_cards(out: &mut String, m: &Manifest) {
    let s = &m.summary;
    let textures: usize = m.containers.iter().map(|c| c.textures.len()).sum();
    let tex_ok: usize = m
        .containers
        .iter()
        .flat_map(|c| &c.textures)
        .filter(|t| t.status == Some(Status::Decoded))
        .count();
    out.push_str("<div class=\"cards\">\n");
    let t = &s.total;
    let cards = [
        ("files", t.files.to_string(), "files", String::new()),
        ("resources", t.resources.to_string(), "resources", String::new()),
        ("decoded", t.decoded.to_string(), "decoded", pct(t.decoded, t.resources)),
        (
            "rejected",
            t.rejected.to_string(),
            "rejected",
            pct(t.rejected, t.resources),
        ),
        ("errors", t.file_errors.to_string(), "file errors", String::new()),
        (
            "textures",
            format!("{tex_ok}/{textures}"),
            "textures decoded",
            String::new(),
        ),
    ];
    for (id, n, label, extra) in cards {
        let _ = writeln!(
            out,
            "<div class=\"card {id}\"><b id=\"n-{id}\">{}</b><span>{}</span><small>{}</small></div>",
            escape(&n),
            escape(label),
            escape(&extra)
        );
    }
}

/// The per-kind table (and its total row) of the export page.
fn kind_table(out: &mut String, s: &Summary) {
    out.push_str(
        "<table class=\"sum\"><caption>per kind</caption><thead><tr><th>kind</th><th>files</th>\
         <th>resources</th><th>decoded</th><th>rejected</th><th>file errors</th></tr></thead><tbody>\n",
    );
    for (k, c) in s.kinds.iter().chain([(&"total".to_string(), &s.total)]) {
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{} <small>{}</small></td><td>{}</td><td>{}</td></tr>",
            escape(k),
            c.files,
            c.resources,
            c.decoded,
            pct(c.decoded, c.resources),
            c.rejected,
            c.file_errors
        );
    }
    out.push_str("</tbody></table>\n");
}

/// The rejects-per-reason table of the export page (its last `</tbody></table>` is the
/// caller's).
fn reason_table(out: &mut String, s: &Summary) {
    out.push_str(
        "<table class=\"sum\"><caption>rejects per reason code (click to filter)</caption>\
         <thead><tr><th>reason</th><th>count</th></tr></thead><tbody>\n",
    );
    if s.reasons.is_empty() {
        out.push_str("<tr><td colspan=\"2\">none</td></tr>\n");
    }
    for (code, n) in &s.reasons {
        let _ = writeln!(
            out,
            "<tr><th><button type=\"button\" class=\"code pick\" data-reason=\"{0}\">{0}</button></th><td>{n}</td></tr>",
            escape(code)
        );
    }
}

/// Every code a row carries, sorted: the rejects' (the summary's) and the notes of
/// decoded resources (`split: undecided`), so those can be filtered for too.
fn row_codes(m: &Manifest) -> Vec<&str> {
    let s = &m.summary;
    s.reasons
        .keys()
        .map(String::as_str)
        .chain(
            m.containers
                .iter()
                .flat_map(|c| c.resources.iter().filter_map(|r| r.reason.as_ref()))
                .map(|r| r.code.as_str()),
        )
        .collect::<std::collections::BTreeSet<&str>>()
        .into_iter()
        .collect()
}

// ---------------------------------------------------------------------------------------
// The diff page

#[derive(Serialize)]
struct Side {
    /// Preview, glTF (hrefs, prefixed with the side's folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    p: Option<String>,
    /// The small preview shown (`thumb`; absent: `p`).
    #[serde(skip_serializing_if = "Option::is_none")]
    t: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    g: Option<String>,
    /// Short description: "decoded, 552 v, 1032 t" or the reason code.
    s: String,
}

#[derive(Serialize)]
struct DiffRow {
    /// gain / regression / change.
    c: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    i: Option<u32>,
    n: String,
    /// What changed (the text rendering's words).
    x: String,
    /// Reason code now (rejected), for the reason filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    rc: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    old: Option<Side>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<Side>,
}

#[derive(Serialize)]
struct DiffGroup {
    path: String,
    kind: &'static str,
    /// "12/20 → 14/20 decoded".
    cov: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    opv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    npv: Option<String>,
    rows: Vec<DiffRow>,
}

#[derive(Serialize)]
struct DiffData {
    mode: &'static str,
    groups: Vec<DiffGroup>,
}

/// A folder prefix for links from a page in `page_dir` to outputs listed by the manifest
/// at `manifest`: the relative path between the two folders (both resolved), '/'-joined
/// and percent-encoded, ending in '/' (empty when they are the same folder). `None` when
/// either cannot be resolved or the path is not representable (then the page has no
/// links to that side).
pub fn folder_prefix(page_dir: &Path, manifest: &Path) -> Option<String> {
    let from = page_dir.canonicalize().ok()?;
    let to = manifest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let to = to.canonicalize().ok()?;
    let (f, t): (Vec<Component>, Vec<Component>) = (from.components().collect(), to.components().collect());
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); f.len() - common];
    for c in &t[common..] {
        let s = c.as_os_str().to_str()?;
        parts.push(href(s)?);
    }
    let mut p = parts.join("/");
    if !p.is_empty() {
        p.push('/');
    }
    Some(p)
}

fn side(r: &ResourceEntry, prefix: Option<&str>) -> Side {
    let link = |rel: &Option<String>| prefix.and_then(|p| opt_href(rel).map(|h| format!("{p}{h}")));
    Side {
        p: link(&r.preview),
        t: link(&r.thumb),
        g: link(&r.gltf),
        s: match (&r.status, &r.reason) {
            (Status::Decoded, _) => format!("decoded, {} vertices, {} triangles", r.vertices, r.triangles),
            (Status::Rejected, Some(x)) => x.code.as_str().to_string(),
            (Status::Rejected, None) => "rejected".to_string(),
        },
    }
}

/// The diff page: headline, coverage before → after, then each changed container with
/// its facts and the previews of both sides where they exist. `old_prefix` /
/// `new_prefix` lead from the page to each manifest's folder ([`folder_prefix`]);
/// `None` leaves that side without links.
pub fn render_diff(
    d: &Diff,
    old: &Manifest,
    new: &Manifest,
    old_prefix: Option<&str>,
    new_prefix: Option<&str>,
) -> String {
    let mut out = String::with_capacity(8192);
    head(&mut out, "xbg7-export diff");
    out.push_str("<body class=\"diff\">\n<header>\n<h1>xbg7-export diff</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"sub\">{} {} → {} {}</p>",
        escape(&old.generator.name),
        escape(&old.generator.version),
        escape(&new.generator.name),
        escape(&new.generator.version)
    );
    diff_cards(&mut out, d);
    out.push_str("</div>\n<div class=\"tables\">\n");
    coverage_table(&mut out, d);
    reason_change_table(&mut out, d);
    out.push_str("</tbody></table>\n</div>\n</header>\n");

    let (groups, mut codes) = diff_groups(d, old, new, old_prefix, new_prefix);
    codes.sort_unstable();
    controls(
        &mut out,
        &[
            ("", "any class"),
            ("regression", "regressions"),
            ("gain", "gains"),
            ("change", "changes"),
        ],
        &codes,
        &[
            ("", "sort: disc order"),
            ("name", "sort: name"),
            ("reason", "sort: class"),
        ],
    );
    let data = DiffData { mode: "diff", groups };
    tail(&mut out, &script_json(&data));
    out
}

/// The diff page's cards: regressions, gains, changes, digests changed.
fn diff_cards(out: &mut String, d: &Diff) {
    let t = &d.total;
    out.push_str("<div class=\"cards\">\n");
    for (id, n, label) in [
        ("rejected", t.regressions, "regressions"),
        ("decoded", t.gains, "gains"),
        ("changes", t.changes, "changes"),
        ("geometry", t.geometry_changed, "digests changed"),
    ] {
        let _ = writeln!(
            out,
            "<div class=\"card {id}\"><b id=\"n-{id}\">{n}</b><span>{}</span><small></small></div>",
            escape(label)
        );
    }
}

/// The coverage table of the diff page: per kind and in total, before → after.
fn coverage_table(out: &mut String, d: &Diff) {
    out.push_str(
        "<table class=\"sum\"><caption>coverage, before → after</caption><thead><tr><th>kind</th>\
         <th>files</th><th>decoded/resources</th><th>rejected</th><th>file errors</th></tr></thead><tbody>\n",
    );
    let arrow = |b: String, a: String| if a == b { a } else { format!("{b} → {a}") };
    let total = ("total".to_string(), d.coverage.clone());
    for (k, c) in d.kinds.iter().chain([(&total.0, &total.1)]) {
        let (b, a) = (&c.before, &c.after);
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(k),
            escape(&arrow(b.files.to_string(), a.files.to_string())),
            escape(&arrow(
                format!("{}/{}", b.decoded, b.resources),
                format!("{}/{}", a.decoded, a.resources)
            )),
            escape(&arrow(b.rejected.to_string(), a.rejected.to_string())),
            escape(&arrow(b.file_errors.to_string(), a.file_errors.to_string()))
        );
    }
    out.push_str("</tbody></table>\n");
}

/// The rejects-per-reason table of the diff page, the codes whose count changed (its last
/// `</tbody></table>` is the caller's).
fn reason_change_table(out: &mut String, d: &Diff) {
    out.push_str(
        "<table class=\"sum\"><caption>rejects per reason code, before → after</caption>\
         <thead><tr><th>reason</th><th>before</th><th>after</th></tr></thead><tbody>\n",
    );
    let changed: Vec<_> = d.reasons.iter().filter(|(_, c)| c.before != c.after).collect();
    if changed.is_empty() {
        out.push_str("<tr><td colspan=\"3\">no change</td></tr>\n");
    }
    for (code, c) in &changed {
        let _ = writeln!(
            out,
            "<tr><th><button type=\"button\" class=\"code pick\" data-reason=\"{0}\">{0}</button></th><td>{1}</td><td>{2}</td></tr>",
            escape(code),
            c.before,
            c.after
        );
    }
}

/// The diff page's data: a group per changed container, its listed items with both sides'
/// links; and the reason codes the rows carry now, in order of first appearance.
fn diff_groups(
    d: &Diff,
    old: &Manifest,
    new: &Manifest,
    old_prefix: Option<&str>,
    new_prefix: Option<&str>,
) -> (Vec<DiffGroup>, Vec<&'static str>) {
    let olds: BTreeMap<&str, &ContainerEntry> = old.containers.iter().map(|c| (c.path.as_str(), c)).collect();
    let news: BTreeMap<&str, &ContainerEntry> = new.containers.iter().map(|c| (c.path.as_str(), c)).collect();
    let mut codes: Vec<&'static str> = Vec::new();
    let groups = d
        .containers
        .iter()
        .map(|cd| {
            let (oc, nc) = (olds.get(cd.path.as_str()).copied(), news.get(cd.path.as_str()).copied());
            fn find(c: Option<&ContainerEntry>, i: u32) -> Option<&ResourceEntry> {
                c.and_then(|c| c.resources.iter().find(|r| r.index == i))
            }
            let grid = |c: Option<&ContainerEntry>, prefix: Option<&str>| {
                let c = c?;
                prefix.and_then(|p| opt_href(&c.preview).map(|h| format!("{p}{h}")))
            };
            let cov = |c: &Option<diff::Coverage>| match c {
                Some(c) => format!("{}/{}", c.decoded, c.resources),
                None => "absent".to_string(),
            };
            let rows = diff::listed_items(cd)
                .into_iter()
                .map(|it| {
                    let (o, n) = match it.index {
                        Some(i) => (find(oc, i), find(nc, i)),
                        None => (None, None),
                    };
                    let rc = n.and_then(|r| r.reason.as_ref()).map(|x| x.code.as_str());
                    if let Some(c) = rc {
                        if !codes.contains(&c) {
                            codes.push(c);
                        }
                    }
                    DiffRow {
                        c: it.class,
                        i: it.index,
                        n: clean(it.name.as_deref().unwrap_or("(container)")),
                        x: clean(&it.text),
                        rc,
                        old: o.map(|r| side(r, old_prefix)),
                        new: n.map(|r| side(r, new_prefix)),
                    }
                })
                .collect();
            DiffGroup {
                path: clean(&cd.path),
                kind: cd.kind.as_str(),
                cov: format!("{} → {} decoded", cov(&cd.before), cov(&cd.after)),
                opv: grid(oc, old_prefix),
                npv: grid(nc, new_prefix),
                rows,
            }
        })
        .collect();
    (groups, codes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Reason;
    use crate::manifest::{ContainerEntry, Kind, ResourceEntry};

    fn hostile_manifest() -> Manifest {
        let mut ok = ResourceEntry::rejected(0, "</script><script>alert(1)</script>", None);
        ok.status = Status::Decoded;
        ok.gltf = Some("../../etc/passwd".into());
        ok.bin = Some("javascript:alert(1)".into());
        ok.preview = Some("m/<b>&x.png".into());
        let bad = ResourceEntry::rejected(
            1,
            "<!--<img src=x onerror=alert(2)>",
            Some(Reason::new(xbg7::Code::Truncated, "</script>&<!--")),
        );
        Manifest::new(vec![ContainerEntry {
            path: "hidden/resource3d/<i>x</i>.xpr".into(),
            kind: Kind::Model,
            size: 3,
            error: None,
            preview: Some("/abs/preview.png".into()),
            preview_cells: None,
            scene: None,
            resources: vec![ok, bad],
            textures: Vec::new(),
            other: Vec::new(),
        }])
    }

    #[test]
    fn disc_text_cannot_close_the_data_element_or_add_markup() {
        let page = render(&hostile_manifest());
        // Our two script elements, nothing else.
        assert_eq!(page.matches("<script").count(), 2, "{page}");
        assert_eq!(page.matches("</script>").count(), 2);
        assert!(!page.contains("<!--"));
        assert!(!page.contains("<img"));
        assert!(!page.contains("<i>x"));
        // The data blob is valid JSON and carries the names unchanged.
        let start = page.find("id=\"data\">").unwrap() + "id=\"data\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        let v: serde_json::Value = serde_json::from_str(&page[start..end]).unwrap();
        assert_eq!(v["groups"][0]["rows"][0]["n"], "</script><script>alert(1)</script>");
        assert_eq!(v["groups"][0]["rows"][1]["rd"], "</script>&<!--");
        // Links that would leave OUT (or carry a scheme) are dropped; others are encoded.
        let row = &v["groups"][0]["rows"][0];
        assert!(row.get("g").is_none() && row.get("b").is_none());
        assert_eq!(row["p"], "m/%3Cb%3E%26x.png");
        assert!(v["groups"][0].get("pv").is_none());
    }

    #[test]
    fn hrefs_stay_inside_the_output_folder() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "c:/x",
            "a\\..\\b",
            "http://x",
        ] {
            assert_eq!(href(bad), None, "{bad}");
        }
        assert_eq!(href("Stage_S01/preview.png").as_deref(), Some("Stage_S01/preview.png"));
        assert_eq!(href("a b/é.png").as_deref(), Some("a%20b/%C3%A9.png"));
    }

    #[test]
    fn escape_covers_markup_and_control_characters() {
        assert_eq!(
            escape("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
        assert_eq!(escape("a\u{1b}[31m\0"), "a\\u{1b}[31m\\u{0}");
    }

    #[test]
    fn the_page_is_deterministic_and_summarises_the_manifest() {
        let m = hostile_manifest();
        let (a, b) = (render(&m), render(&m));
        assert_eq!(a, b);
        assert!(a.contains("<b id=\"n-resources\">2</b>"));
        assert!(a.contains("data-reason=\"truncated\""));
    }

    #[test]
    fn folder_prefix_is_relative_and_encoded() {
        let tmp = std::env::temp_dir().join(format!("xbg7-report-prefix-{}", std::process::id()));
        std::fs::create_dir_all(tmp.join("old dir")).unwrap();
        std::fs::create_dir_all(tmp.join("page")).unwrap();
        let p = folder_prefix(&tmp.join("page"), &tmp.join("old dir/manifest.json"));
        assert_eq!(p.as_deref(), Some("../old%20dir/"));
        assert_eq!(
            folder_prefix(&tmp.join("page"), &tmp.join("page/manifest.json")).as_deref(),
            Some("")
        );
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
