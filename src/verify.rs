//! Decoder vs ground truth: `xbg7-export verify --disc DIR` and the truth tests.
//!
//! Owns the comparison of decode outcomes with the synthetic disc's `truth.json`: per
//! resource category, how many expected-decoded resources decoded bit-identically (digest
//! and placement), how many were missed, and — the number that must stay zero — how many
//! decoded resources differ from the truth (garbage). Resources the truth marks
//! `decoded_or_rejected` (no NORMAL element) count as correct either way, decoded
//! bit-identically or rejected; decoded and different is wrong like anywhere else.
//! Textures likewise, per format: how many decoded to exactly the generator's reference
//! image (digest), how many decoded to a different image (wrong) and how many were
//! rejected; and the same per layout *shape* the Xenos rules treat specially (a tiled
//! extent past the whole tiles, a padded linear row pitch, each 8_8_8_8 swizzle, CTX1
//! blocks with equal endpoints ≥ 129), read from each texture's own descriptor and data.
//! On a `--realism` disc the resources are tallied a second time per imperfection
//! family (`truth.json`'s `family`).

use crate::config::Config;
use crate::export::{decode_container, kind_of};
use crate::manifest::TextureEntry;
use crate::text::plural;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use xbg7::container::{self, TAG_TX2D};
use xbg7::texture::resource::decode_resource;
use xbg7::SplitKind;
use xbg7_synth::truth::{TruthContainer, TruthDisc};

/// How one resource compares with the truth.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Decoded, digest and placement equal to the truth.
    Exact,
    /// Decoded as one primitive because the sub-mesh split is undecidable
    /// (`split: undecided`), geometry and placement equal to the truth.
    ExactUnsplit,
    /// Rejected, as the truth expects.
    RejectedAsExpected,
    /// Rejected although the truth expects it decoded.
    Missed(String),
    /// Decoded but not equal to the truth (or decoded when it should be rejected).
    Wrong(String),
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    pub expected_decoded: usize,
    pub decoded_exact: usize,
    /// Of `decoded_exact`: emitted as one primitive, the split undecidable.
    pub unsplit: usize,
    pub expected_rejected: usize,
    /// Resources that may be decoded (exactly) or rejected.
    pub expected_either: usize,
    pub rejected: usize,
    pub missed: Vec<String>,
    pub wrong: Vec<String>,
}

/// Texture outcomes of one format (the truth's format name).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TexTally {
    pub expected: usize,
    /// Decoded to exactly the reference image.
    pub exact: usize,
    /// Of those, stored tiled.
    pub exact_tiled: usize,
    /// Decoded, but to another image (or a texture the truth does not list).
    pub wrong: Vec<String>,
    /// Rejected (every truth texture is expected to decode).
    pub rejected: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    pub categories: BTreeMap<String, Tally>,
    /// Per imperfection family (`truth.json`'s `family`, `synth --realism`): the same
    /// resources again, keyed by family; resources without a family are not in it.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub families: BTreeMap<String, Tally>,
    /// Per texture format (`DXT1`, `8_8_8_8`, …).
    pub textures: BTreeMap<String, TexTally>,
    /// Per special layout shape ([`texture_shapes`]); a texture may count in several.
    pub texture_shapes: BTreeMap<String, TexTally>,
    pub container_errors: Vec<String>,
}

impl Report {
    /// Decoded resources and textures that differ from the truth.
    pub fn wrong(&self) -> usize {
        self.categories.values().map(|t| t.wrong.len()).sum::<usize>() + self.texture_wrong()
    }
    /// Expected-decoded resources and textures that were rejected.
    pub fn missed(&self) -> usize {
        self.categories.values().map(|t| t.missed.len()).sum::<usize>() + self.texture_rejected()
    }
    /// Resources decoded exactly as one primitive (the sub-mesh split undecidable).
    pub fn unsplit(&self) -> usize {
        self.categories.values().map(|t| t.unsplit).sum()
    }
    pub fn texture_wrong(&self) -> usize {
        self.textures.values().map(|t| t.wrong.len()).sum()
    }
    pub fn texture_rejected(&self) -> usize {
        self.textures.values().map(|t| t.rejected.len()).sum()
    }
    /// Every wrong and missed line (resources, then textures).
    pub fn problems(&self) -> impl Iterator<Item = &String> {
        self.categories
            .values()
            .flat_map(|t| t.wrong.iter().chain(&t.missed))
            .chain(self.textures.values().flat_map(|t| t.wrong.iter().chain(&t.rejected)))
    }

    fn add(&mut self, category: &str, family: Option<&str>, expected: Expected, outcome: Outcome) {
        if let Some(f) = family {
            Self::count(
                self.families.entry(f.to_string()).or_default(),
                expected,
                outcome.clone(),
            );
        }
        Self::count(
            self.categories.entry(category.to_string()).or_default(),
            expected,
            outcome,
        );
    }

    fn count(t: &mut Tally, expected: Expected, outcome: Outcome) {
        match expected {
            Expected::Decoded => t.expected_decoded += 1,
            Expected::Rejected => t.expected_rejected += 1,
            Expected::Either => t.expected_either += 1,
        }
        match outcome {
            Outcome::Exact => t.decoded_exact += 1,
            Outcome::ExactUnsplit => {
                t.decoded_exact += 1;
                t.unsplit += 1;
            }
            Outcome::RejectedAsExpected => t.rejected += 1,
            Outcome::Missed(m) => t.missed.push(m),
            Outcome::Wrong(w) => t.wrong.push(w),
        }
    }

    /// Sum two reports.
    pub fn merge(mut self, other: Report) -> Report {
        let sum = |me: &mut Tally, t: Tally| {
            me.expected_decoded += t.expected_decoded;
            me.decoded_exact += t.decoded_exact;
            me.unsplit += t.unsplit;
            me.expected_rejected += t.expected_rejected;
            me.expected_either += t.expected_either;
            me.rejected += t.rejected;
            me.missed.extend(t.missed);
            me.wrong.extend(t.wrong);
        };
        for (k, t) in other.categories {
            sum(self.categories.entry(k).or_default(), t);
        }
        for (k, t) in other.families {
            sum(self.families.entry(k).or_default(), t);
        }
        for (mine, theirs) in [
            (&mut self.textures, other.textures),
            (&mut self.texture_shapes, other.texture_shapes),
        ] {
            for (k, t) in theirs {
                let me = mine.entry(k).or_default();
                me.expected += t.expected;
                me.exact += t.exact;
                me.exact_tiled += t.exact_tiled;
                me.wrong.extend(t.wrong);
                me.rejected.extend(t.rejected);
            }
        }
        self.container_errors.extend(other.container_errors);
        self
    }

    /// A fixed-width table, one line per category, then (realism discs) one line per
    /// imperfection family, then the texture formats and totals.
    pub fn table(&self) -> String {
        // The label column fits the longest label (`tiled extent past whole tiles` is 29
        // characters), and each heading ends where its column's numbers end.
        let w = (self.categories.keys())
            .chain(self.families.keys())
            .chain(self.textures.keys())
            .chain(self.texture_shapes.keys())
            .map(|k| k.chars().count())
            .fold(22, usize::max);
        let mut s = format!(
            "{:w$} {:>19} {:>19} {:>7}\n",
            "category", "decoded exact", "rejected (exp.)", "wrong"
        );
        tally_rows(&mut s, &self.categories, w);
        if !self.families.is_empty() {
            let _ = writeln!(
                s,
                "{:w$} {:>19} {:>19} {:>7}",
                "family", "decoded exact", "rejected (exp.)", "wrong"
            );
            tally_rows(&mut s, &self.families, w);
        }
        for (title, rows) in [
            ("texture format", &self.textures),
            ("texture shape", &self.texture_shapes),
        ] {
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(s, "{title:w$} {:>19} {:>17} {:>7}", "decoded exact", "(tiled)", "wrong");
            tex_rows(&mut s, rows, w);
        }
        let _ = writeln!(
            s,
            "total: {} wrong (decoded but differing from the truth), {} missed, {}",
            self.wrong(),
            self.missed(),
            plural(self.container_errors.len(), "container error", "container errors")
        );
        if self.unsplit() > 0 {
            let _ = writeln!(
                s,
                "       {} decoded exactly as one primitive (split: undecided; the records' order \
                 does not decide the sub-mesh ranges)",
                self.unsplit()
            );
        }
        s
    }
}

/// One line per key: decoded exact / expected, rejected / expected rejects, wrong. A key
/// whose resources may be decoded or rejected counts them on both sides (`n/total`), so
/// the two columns add up to its size.
fn tally_rows(s: &mut String, tallies: &BTreeMap<String, Tally>, w: usize) {
    for (key, t) in tallies {
        // A percentage of a decoded-or-rejected category would read as a shortfall
        // (27/27 decoded is also 0/27 rejected): it gets a note instead.
        let either = t.expected_either > 0;
        let pct = |a: usize, b: usize| match (either, b) {
            (true, _) => "    ".to_string(),
            (false, 0) => "100%".to_string(),
            (false, b) => format!("{:3.0}%", 100.0 * a as f64 / b as f64),
        };
        let _ = writeln!(
            s,
            "{key:w$} {:>7}/{:<6} {:>4} {:>7}/{:<6} {:>4} {:>7}{}",
            t.decoded_exact,
            t.expected_decoded + t.expected_either,
            pct(t.decoded_exact, t.expected_decoded + t.expected_either),
            t.rejected,
            t.expected_rejected + t.expected_either,
            pct(t.rejected, t.expected_rejected + t.expected_either),
            t.wrong.len(),
            match (either, t.unsplit) {
                (true, _) => "  (decoded exactly or rejected: both correct)".to_string(),
                (false, 0) => String::new(),
                (false, n) => format!("  ({n} as one primitive: split undecidable)"),
            }
        );
    }
}

fn tex_rows(s: &mut String, rows: &BTreeMap<String, TexTally>, w: usize) {
    for (fmt, t) in rows {
        let pct = if t.expected == 0 {
            100.0
        } else {
            100.0 * t.exact as f64 / t.expected as f64
        };
        let _ = writeln!(
            s,
            "{fmt:w$} {:>7}/{:<6} {pct:>3.0}% {:>17} {:>7}{}",
            t.exact,
            t.expected,
            t.exact_tiled,
            t.wrong.len(),
            if t.rejected.is_empty() {
                String::new()
            } else {
                format!("  ({} rejected)", t.rejected.len())
            }
        );
    }
}

/// The special layout shapes of a texture, from its descriptor and data: `tiled extent
/// past whole tiles` (2-byte texels, odd tile counts: the level spans more than
/// pitch × rows × bytes), `linear pitch padded` (a linear level whose width is not a
/// multiple of 32 blocks), `8_8_8_8 <swizzle>` (e.g. `ZYXW` = A8R8G8B8, `XYZW` =
/// A8B8G8R8, `ZYX1` = X8R8G8B8) and `CTX1 equal endpoints >= 129` (a block whose two
/// endpoints are equal and at least 129 in a component, at an interpolated index).
pub fn texture_shapes(desc: &[u8], data: &[u8]) -> Vec<String> {
    use xbg7::texture::{header, tiling, Format};
    let Ok(h) = header::parse(desc) else {
        return vec![];
    };
    let Ok(f) = h.check() else {
        return vec![];
    };
    let mut out = Vec::new();
    let (wb, hb) = h.blocks(f);
    let pitch = h.pitch_blocks(f);
    let bpb = f.block_bytes();
    if h.tiled && h.base_size(f) > pitch as u64 * hb.div_ceil(32) as u64 * 32 * bpb as u64 {
        out.push("tiled extent past whole tiles".to_string());
    }
    if !h.tiled && wb % 32 != 0 {
        out.push("linear pitch padded".to_string());
    }
    if f == Format::Argb8888 {
        let name: String = h
            .swizzle_channels()
            .iter()
            .map(|&c| b"XYZW01??"[c as usize] as char)
            .collect();
        out.push(format!("8_8_8_8 {name}"));
    }
    if f == Format::Ctx1 {
        let base = h.base_address as usize;
        let log2 = tiling::bpb_log2(bpb);
        let hit = (0..hb).any(|y| {
            (0..wb).any(|x| {
                let off = base
                    + if h.tiled {
                        tiling::tiled_offset(x, y, pitch, log2) as usize
                    } else {
                        (y * pitch + x) as usize * 8
                    };
                let Some(b) = data.get(off..off + 8) else {
                    return false;
                };
                let mut b: [u8; 8] = b.try_into().unwrap_or([0; 8]);
                tiling::endian_swap(&mut b, h.endian);
                let idx = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
                let interpolated = (0..16).any(|i| (idx >> (2 * i)) & 2 != 0);
                b[..2] == b[2..4] && b[..2].iter().any(|&v| v >= 129) && interpolated
            })
        });
        if hit {
            out.push("CTX1 equal endpoints >= 129".to_string());
        }
    }
    out
}

/// What the truth expects of one resource (`truth.json`'s `expected`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expected {
    Decoded,
    Rejected,
    Either,
}

/// Compare one container's decode with its truth.
pub fn check_container(bytes: &[u8], truth: &TruthContainer, cfg: &Config) -> Report {
    let mut report = Report::default();
    let name = truth.path.rsplit('/').next().unwrap_or(&truth.path);
    let d = match decode_container(bytes, kind_of(name), cfg) {
        Ok(d) => d,
        Err(r) => {
            report.container_errors.push(format!("{}: {r}", truth.path));
            return report;
        }
    };
    for want in &truth.resources {
        let label = format!("{name}#{} {} ({})", want.index, want.name, want.category);
        let expected = match want.expected.as_str() {
            "decoded" => Expected::Decoded,
            "decoded_or_rejected" => Expected::Either,
            _ => Expected::Rejected,
        };
        let expected_decoded = expected == Expected::Decoded;
        let Some(got) = d.resources.iter().find(|r| r.index == want.index) else {
            report.add(
                &want.category,
                want.family.as_deref(),
                expected,
                Outcome::Missed(format!("{label}: not reported")),
            );
            continue;
        };
        let outcome = match &got.result {
            Ok(dr) => {
                let has_twin =
                    want.duplicate_of.is_some() || truth.resources.iter().any(|r| r.duplicate_of == Some(want.index));
                let offsets: Vec<u64> = dr.placements.iter().map(|p| p.index_offset as u64).collect();
                let truth_offsets: Vec<u64> = want.blocks.iter().map(|b| b.index_offset).collect();
                let unsplit = dr.split == Some(SplitKind::Undecided);
                let digest = dr.mesh.digest();
                let want_digest = if unsplit { &want.digest_unsplit } else { &want.digest };
                if want.digest.is_none() {
                    Outcome::Wrong(format!(
                        "{label}: decoded at {offsets:x?}, but the truth expects a reject (no digest)"
                    ))
                } else if want_digest.as_deref() != Some(digest.as_str()) {
                    let what = if unsplit { "unsplit digest" } else { "digest" };
                    Outcome::Wrong(format!(
                        "{label}: {what} differs (decoded at {offsets:x?}, truth {truth_offsets:x?})"
                    ))
                } else if !has_twin && offsets != truth_offsets {
                    Outcome::Wrong(format!("{label}: placed at {offsets:x?}, truth {truth_offsets:x?}"))
                } else if unsplit {
                    Outcome::ExactUnsplit
                } else {
                    Outcome::Exact
                }
            }
            Err(reason) if expected_decoded => Outcome::Missed(format!("{label}: {reason}")),
            Err(_) => Outcome::RejectedAsExpected,
        };
        report.add(&want.category, want.family.as_deref(), expected, outcome);
    }
    check_textures(bytes, truth, name, &mut report);
    if d.resources.len() != truth.resources.len() {
        report.container_errors.push(format!(
            "{}: {} XBG7 resources reported, truth has {}",
            truth.path,
            d.resources.len(),
            truth.resources.len()
        ));
    }
    report
}

/// Decode every TX2D resource and compare its image digest with the truth's.
fn check_textures(bytes: &[u8], truth: &TruthContainer, name: &str, report: &mut Report) {
    let Ok(c) = container::parse(bytes) else {
        return; // decode_container already reported the container error
    };
    let mut seen = 0;
    for r in c.resources.iter().filter(|r| r.is(TAG_TX2D)) {
        let entry = TextureEntry::of(&decode_resource(r, c.data));
        let want = truth.textures.iter().find(|t| t.index == r.index);
        let format = match (want, &entry.format) {
            (Some(w), _) => w.format.clone(),
            (None, Some(f)) => f.clone(),
            (None, None) => "unknown".to_string(),
        };
        let label = format!("{name}#{} {}", r.index, entry.name);
        let Some(want) = want else {
            let t = report.textures.entry(format).or_default();
            t.wrong.push(format!("{label}: a texture the truth does not list"));
            continue;
        };
        seen += 1;
        let shapes = texture_shapes(r.descriptor, c.data);
        for key in std::iter::once(&format).chain(&shapes) {
            let t = if *key == format {
                report.textures.entry(format.clone()).or_default()
            } else {
                report.texture_shapes.entry(key.clone()).or_default()
            };
            t.expected += 1;
            match (&entry.reason, &entry.digest) {
                (Some(reason), _) => t.rejected.push(format!("{label}: {reason}")),
                (None, Some(d)) if want.digest.as_ref() == Some(d) => {
                    t.exact += 1;
                    t.exact_tiled += usize::from(want.tiled);
                }
                (None, _) => t.wrong.push(format!(
                    "{label}: decoded image differs from the reference ({} {}×{}, tiled {})",
                    want.format, want.width, want.height, want.tiled
                )),
            }
        }
    }
    if seen != truth.textures.len() {
        report.container_errors.push(format!(
            "{}: {seen} of the truth's {} textures found",
            truth.path,
            truth.textures.len()
        ));
    }
}

/// Compare a whole disc on disk (with its `truth.json`), containers in parallel.
pub fn check_disc(disc: &Path, truth: &TruthDisc, cfg: &Config) -> Report {
    truth
        .containers
        .par_iter()
        .map(|c| {
            match crate::input::read_bounded(
                &disc.join(&c.path),
                crate::input::MAX_CONTAINER_BYTES,
                "an XPR2 container",
            ) {
                Ok(bytes) => check_container(&bytes, c, cfg),
                Err(e) => Report {
                    container_errors: vec![format!("{}: {e}", c.path)],
                    ..Default::default()
                },
            }
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(Report::default(), Report::merge)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A label longer than the old fixed 22 columns (`tiled extent past whole tiles`)
    /// widens the label column of every section: each number stays in its column.
    #[test]
    fn the_table_stays_aligned_for_long_labels() {
        let mut r = Report::default();
        r.categories.insert(
            "model".into(),
            Tally {
                expected_decoded: 10,
                decoded_exact: 10,
                ..Tally::default()
            },
        );
        let tex = |n| TexTally {
            expected: n,
            exact: n,
            ..TexTally::default()
        };
        r.textures.insert("DXT1".into(), tex(4));
        r.texture_shapes.insert("tiled extent past whole tiles".into(), tex(2));
        r.container_errors.push("hidden/resource3d/x.xpr: truncated".into());
        let want = "\
category                            decoded exact     rejected (exp.)   wrong
model                              10/10     100%       0/0      100%       0
texture format                      decoded exact           (tiled)   wrong
DXT1                                4/4      100%                 0       0
texture shape                       decoded exact           (tiled)   wrong
tiled extent past whole tiles       2/2      100%                 0       0
total: 0 wrong (decoded but differing from the truth), 0 missed, 1 container error
";
        assert_eq!(r.table(), want);
    }

    /// Short labels keep the 22 columns the label always had.
    #[test]
    fn short_labels_keep_the_old_width() {
        let r = Report::default();
        assert_eq!(
            r.table(),
            "category                     decoded exact     rejected (exp.)   wrong\n\
             total: 0 wrong (decoded but differing from the truth), 0 missed, 0 container errors\n"
        );
    }
}
