//! The comparison of two manifests ([`diff`]): the categories of change (the types of a
//! [`Diff`]), their tallies and the regression policy ([`Diff::has_regressions`],
//! [`exit_code`]).

use crate::manifest::{self, ContainerEntry, Counts, Kind, Manifest, ResourceEntry, Status};
use crate::manifest::{Code, Reason};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A value before and after.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change<T> {
    pub before: T,
    pub after: T,
}

impl<T> Change<T> {
    pub fn new(before: T, after: T) -> Change<T> {
        Change { before, after }
    }
}

/// What a newly decoded resource was before.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Was {
    Absent,
    Rejected { reason: Option<Reason> },
}

/// Decoded now, rejected or absent before (gain).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NewlyDecoded {
    pub index: u32,
    pub name: String,
    pub before: Was,
    pub vertices: u32,
    pub triangles: u32,
}

/// Decoded before, rejected now (regression).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NewlyRejected {
    pub index: u32,
    pub name: String,
    pub reason: Option<Reason>,
}

/// Rejected both times with a different code.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReasonChanged {
    pub index: u32,
    pub name: String,
    pub reason: Change<Option<Reason>>,
}

/// Decoded both times, different digest (regression).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GeometryChanged {
    pub index: u32,
    pub name: String,
    pub vertices: Change<u32>,
    pub triangles: Change<u32>,
    pub bbox: Change<Option<[[f32; 3]; 2]>>,
    pub digest: Change<Option<String>>,
}

/// Absent before, rejected now.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Appeared {
    pub index: u32,
    pub name: String,
    pub reason: Option<Reason>,
}

/// Present before, absent now (a regression when it was decoded).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Vanished {
    pub index: u32,
    pub name: String,
    pub status: Status,
    pub reason: Option<Reason>,
}

/// The same resource (matched by its name, unique in the container on both sides) at
/// another directory index.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Moved {
    pub name: String,
    pub index: Change<u32>,
}

/// Whether a container is in the old manifest, the new one, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    Both,
    Added,
    Removed,
}

/// A container-level error change.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "change")]
pub enum ErrorChange {
    /// Regression.
    Appeared { after: Reason },
    /// Gain.
    Disappeared { before: Reason },
    /// Code changed.
    Changed { before: Reason, after: Reason },
}

/// How many of each category (per container, or summed over all).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub newly_decoded: usize,
    pub newly_rejected: usize,
    pub reason_changed: usize,
    pub geometry_changed: usize,
    pub appeared: usize,
    pub vanished: usize,
    pub vanished_decoded: usize,
    pub moved: usize,
    pub containers_added: usize,
    pub containers_removed: usize,
    pub errors_appeared: usize,
    pub errors_disappeared: usize,
    pub errors_changed: usize,
    /// newly_rejected + geometry_changed + vanished_decoded + errors_appeared + containers_removed.
    pub regressions: usize,
    /// newly_decoded + errors_disappeared.
    pub gains: usize,
    /// reason_changed + appeared + vanished of rejected ones + containers_added + errors_changed.
    pub changes: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.newly_decoded += o.newly_decoded;
        self.newly_rejected += o.newly_rejected;
        self.reason_changed += o.reason_changed;
        self.geometry_changed += o.geometry_changed;
        self.appeared += o.appeared;
        self.vanished += o.vanished;
        self.vanished_decoded += o.vanished_decoded;
        self.moved += o.moved;
        self.containers_added += o.containers_added;
        self.containers_removed += o.containers_removed;
        self.errors_appeared += o.errors_appeared;
        self.errors_disappeared += o.errors_disappeared;
        self.errors_changed += o.errors_changed;
        self.regressions += o.regressions;
        self.gains += o.gains;
        self.changes += o.changes;
    }
}

/// Resource counts of one side of a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub decoded: usize,
    pub resources: usize,
}

/// Everything that changed in one container (only changed containers are listed).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContainerDiff {
    pub path: String,
    pub kind: Kind,
    pub presence: Presence,
    /// `None` on the side where the container is absent.
    pub before: Option<Coverage>,
    pub after: Option<Coverage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorChange>,
    pub newly_decoded: Vec<NewlyDecoded>,
    pub newly_rejected: Vec<NewlyRejected>,
    pub reason_changed: Vec<ReasonChanged>,
    pub geometry_changed: Vec<GeometryChanged>,
    pub appeared: Vec<Appeared>,
    pub vanished: Vec<Vanished>,
    pub moved: Vec<Moved>,
    pub tally: Tally,
}

/// The comparison of two manifests.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    pub total: Tally,
    /// All containers, before → after.
    pub coverage: Change<Counts>,
    /// Per container kind (`model`, `stage`); zero counts where a side has none.
    pub kinds: BTreeMap<String, Change<Counts>>,
    /// Rejects per reason code (resource reasons and container errors); every code present
    /// on either side, zero where absent.
    pub reasons: BTreeMap<String, Change<usize>>,
    /// Containers with any change, sorted by path.
    pub containers: Vec<ContainerDiff>,
}

impl Diff {
    pub fn has_regressions(&self) -> bool {
        self.total.regressions > 0
    }

    /// No change of any category and equal coverage.
    pub fn is_empty(&self) -> bool {
        self.containers.is_empty()
            && self.coverage.before == self.coverage.after
            && self.kinds.values().all(|c| c.before == c.after)
            && self.reasons.values().all(|c| c.before == c.after)
    }
}

/// 0 without regressions (or when they are allowed), 1 with. Usage and I/O errors are 2 (CLI).
pub fn exit_code(d: &Diff, allow_regressions: bool) -> i32 {
    if d.has_regressions() && !allow_regressions {
        1
    } else {
        0
    }
}

/// Compare two manifests.
pub fn diff(old: &Manifest, new: &Manifest) -> Diff {
    let olds: BTreeMap<&str, &ContainerEntry> = old.containers.iter().map(|c| (c.path.as_str(), c)).collect();
    let news: BTreeMap<&str, &ContainerEntry> = new.containers.iter().map(|c| (c.path.as_str(), c)).collect();
    let mut paths: Vec<&str> = olds.keys().chain(news.keys()).copied().collect();
    paths.sort_unstable();
    paths.dedup();

    let mut total = Tally::default();
    let mut containers = Vec::new();
    for p in paths {
        let cd = diff_container(p, olds.get(p).copied(), news.get(p).copied());
        if let Some(cd) = cd {
            total.add(&cd.tally);
            containers.push(cd);
        }
    }

    let s_old = manifest::summarize(&old.containers);
    let s_new = manifest::summarize(&new.containers);
    let mut kinds = BTreeMap::new();
    for k in s_old.kinds.keys().chain(s_new.kinds.keys()) {
        let get = |s: &manifest::Summary| s.kinds.get(k).cloned().unwrap_or_default();
        kinds.insert(k.clone(), Change::new(get(&s_old), get(&s_new)));
    }
    let mut reasons = BTreeMap::new();
    for r in s_old.reasons.keys().chain(s_new.reasons.keys()) {
        let get = |s: &manifest::Summary| s.reasons.get(r).copied().unwrap_or(0);
        reasons.insert(r.clone(), Change::new(get(&s_old), get(&s_new)));
    }
    Diff {
        total,
        coverage: Change::new(s_old.total, s_new.total),
        kinds,
        reasons,
        containers,
    }
}

fn coverage(c: &ContainerEntry) -> Coverage {
    Coverage {
        decoded: c.resources.iter().filter(|r| r.status == Status::Decoded).count(),
        resources: c.resources.len(),
    }
}

fn code_of(r: &ResourceEntry) -> Option<Code> {
    r.reason.as_ref().map(|r| r.code)
}

/// The old and new entry of each resource of a container, in the new directory order
/// (then the vanished ones by their old index): a resource whose name is unique in the
/// container on both sides is matched by name, wherever it moved; the others by
/// directory index among those left.
fn matched<'a>(
    old: &'a [ResourceEntry],
    new: &'a [ResourceEntry],
) -> Vec<(Option<&'a ResourceEntry>, Option<&'a ResourceEntry>)> {
    // Each name that occurs once on a side.
    let unique = |rs: &'a [ResourceEntry]| {
        let mut by: BTreeMap<&'a str, Option<&'a ResourceEntry>> = BTreeMap::new();
        for r in rs {
            by.entry(r.name.as_str()).and_modify(|e| *e = None).or_insert(Some(r));
        }
        by.into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect::<BTreeMap<&'a str, &'a ResourceEntry>>()
    };
    let (uo, un) = (unique(old), unique(new));
    // By name: new index → old entry.
    let named: BTreeMap<u32, &ResourceEntry> = un
        .iter()
        .filter_map(|(name, a)| uo.get(name).map(|b| (a.index, *b)))
        .collect();
    let named_old: BTreeSet<u32> = named.values().map(|b| b.index).collect();
    // By index, among those no name matched.
    let left_old: BTreeMap<u32, &ResourceEntry> = old
        .iter()
        .filter(|b| !named_old.contains(&b.index))
        .map(|b| (b.index, b))
        .collect();
    let mut used: BTreeSet<u32> = BTreeSet::new();
    let mut out = Vec::with_capacity(new.len());
    for a in new {
        let b = match named.get(&a.index) {
            Some(b) => Some(*b),
            None => left_old.get(&a.index).copied(),
        };
        used.extend(b.map(|b| b.index));
        out.push((b, Some(a)));
    }
    out.extend(old.iter().filter(|b| !used.contains(&b.index)).map(|b| (Some(b), None)));
    out
}

/// The diff of one container, `None` when nothing changed.
fn diff_container(path: &str, old: Option<&ContainerEntry>, new: Option<&ContainerEntry>) -> Option<ContainerDiff> {
    let (presence, kind) = match (old, new) {
        (Some(_), Some(n)) => (Presence::Both, n.kind),
        (None, Some(n)) => (Presence::Added, n.kind),
        (Some(o), None) => (Presence::Removed, o.kind),
        (None, None) => return None,
    };
    let mut cd = ContainerDiff {
        path: path.to_string(),
        kind,
        presence,
        before: old.map(coverage),
        after: new.map(coverage),
        error: None,
        newly_decoded: Vec::new(),
        newly_rejected: Vec::new(),
        reason_changed: Vec::new(),
        geometry_changed: Vec::new(),
        appeared: Vec::new(),
        vanished: Vec::new(),
        moved: Vec::new(),
        tally: Tally::default(),
    };
    let t = &mut cd.tally;
    let (o, n) = match (old, new) {
        (Some(o), Some(n)) => (o, n),
        (None, Some(_)) => {
            t.containers_added = 1;
            t.changes = 1;
            return Some(cd);
        }
        _ => {
            t.containers_removed = 1;
            t.regressions = 1;
            return Some(cd);
        }
    };

    cd.error = error_change(o, n);
    match cd.error {
        Some(ErrorChange::Appeared { .. }) => t.errors_appeared = 1,
        Some(ErrorChange::Disappeared { .. }) => t.errors_disappeared = 1,
        Some(ErrorChange::Changed { .. }) => t.errors_changed = 1,
        None => {}
    }
    for (b, a) in matched(&o.resources, &n.resources) {
        compare_resource(&mut cd, b, a);
    }
    count(&mut cd);
    let t = &cd.tally;
    if t.regressions + t.gains + t.changes == 0 {
        None
    } else {
        Some(cd)
    }
}

/// How a container's error changed (`None`: it did not, or only its detail did).
fn error_change(o: &ContainerEntry, n: &ContainerEntry) -> Option<ErrorChange> {
    match (&o.error, &n.error) {
        (None, Some(a)) => Some(ErrorChange::Appeared { after: a.clone() }),
        (Some(b), None) => Some(ErrorChange::Disappeared { before: b.clone() }),
        (Some(b), Some(a)) if b.code != a.code => Some(ErrorChange::Changed {
            before: b.clone(),
            after: a.clone(),
        }),
        _ => None,
    }
}

/// One matched resource (`b` before, `a` after) into its category of `cd`, if any.
fn compare_resource(cd: &mut ContainerDiff, b: Option<&ResourceEntry>, a: Option<&ResourceEntry>) {
    let i = a.or(b).map_or(0, |r| r.index);
    if let (Some(b), Some(a)) = (b, a) {
        if b.index != a.index {
            cd.moved.push(Moved {
                name: a.name.clone(),
                index: Change::new(b.index, a.index),
            });
        }
    }
    match (b, a) {
        (b, Some(a)) if a.status == Status::Decoded => match b {
            Some(b) if b.status == Status::Decoded => {
                if b.digest != a.digest {
                    cd.geometry_changed.push(GeometryChanged {
                        index: i,
                        name: a.name.clone(),
                        vertices: Change::new(b.vertices, a.vertices),
                        triangles: Change::new(b.triangles, a.triangles),
                        bbox: Change::new(b.bbox, a.bbox),
                        digest: Change::new(b.digest.clone(), a.digest.clone()),
                    });
                }
            }
            _ => cd.newly_decoded.push(NewlyDecoded {
                index: i,
                name: a.name.clone(),
                before: match b {
                    None => Was::Absent,
                    Some(b) => Was::Rejected {
                        reason: b.reason.clone(),
                    },
                },
                vertices: a.vertices,
                triangles: a.triangles,
            }),
        },
        (Some(b), Some(a)) => {
            // a is rejected.
            if b.status == Status::Decoded {
                cd.newly_rejected.push(NewlyRejected {
                    index: i,
                    name: a.name.clone(),
                    reason: a.reason.clone(),
                });
            } else if code_of(b) != code_of(a) {
                cd.reason_changed.push(ReasonChanged {
                    index: i,
                    name: a.name.clone(),
                    reason: Change::new(b.reason.clone(), a.reason.clone()),
                });
            }
        }
        (None, Some(a)) => cd.appeared.push(Appeared {
            index: i,
            name: a.name.clone(),
            reason: a.reason.clone(),
        }),
        (Some(b), None) => cd.vanished.push(Vanished {
            index: i,
            name: b.name.clone(),
            status: b.status,
            reason: b.reason.clone(),
        }),
        (None, None) => {}
    }
}

/// The resource tallies of `cd` from its lists (the error's is set by the caller), and
/// its regressions, gains and changes.
fn count(cd: &mut ContainerDiff) {
    let t = &mut cd.tally;
    t.newly_decoded = cd.newly_decoded.len();
    t.newly_rejected = cd.newly_rejected.len();
    t.reason_changed = cd.reason_changed.len();
    t.geometry_changed = cd.geometry_changed.len();
    t.appeared = cd.appeared.len();
    t.vanished = cd.vanished.len();
    t.vanished_decoded = cd.vanished.iter().filter(|v| v.status == Status::Decoded).count();
    t.moved = cd.moved.len();
    t.regressions = t.newly_rejected + t.geometry_changed + t.vanished_decoded + t.errors_appeared;
    t.gains = t.newly_decoded + t.errors_disappeared;
    t.changes = t.reason_changed + t.appeared + (t.vanished - t.vanished_decoded) + t.errors_changed + t.moved;
}
