//! `diff`: loading, every category, regression policy, exit codes, golden renderings.

use proptest::prelude::*;
use std::collections::BTreeMap;
use xbg7::Code;
use xbg7_export::diff::{
    self, Appeared, Change, ContainerDiff, Coverage, Diff, DiffError, ErrorChange, GeometryChanged, ManifestError,
    Moved, NewlyDecoded, NewlyRejected, Presence, ReasonChanged, Tally, Vanished, Was,
};
use xbg7_export::manifest::{
    Code as ManifestCode, ContainerEntry, Counts, Kind, Layout, Manifest, Reason, ResourceEntry, Status,
};

// ---------------------------------------------------------------------------------------
// Builders

fn digest(seed: u8) -> String {
    format!("{seed:02x}").repeat(32)
}

fn dec(index: u32, name: &str, seed: u8, vertices: u32, triangles: u32) -> ResourceEntry {
    ResourceEntry {
        index,
        name: name.into(),
        status: Status::Decoded,
        reason: None,
        layout: Some(Layout::Sequential),
        offset: Some(0),
        stride: Some(32),
        declaration: Some("position float3 @0".into()),
        vertices,
        triangles,
        submeshes: 1,
        bbox: Some([[-1.0, 0.0, -1.0], [1.0, f32::from(seed), 1.0]]),
        digest: Some(digest(seed)),
        skybox: false,
        spiky: false,
        winding: Some("ccw".into()),
        split: None,
        gltf: Some(format!("models/{name}.gltf")),
        bin: Some(format!("models/{name}.bin")),
        preview: None,
        thumb: None,
        streams: Vec::new(),
        same_as: None,
    }
}

fn rej(index: u32, name: &str, code: impl Into<ManifestCode>, detail: &str) -> ResourceEntry {
    ResourceEntry::rejected(index, name, Some(Reason::new(code, detail)))
}

fn kind_of(path: &str) -> Kind {
    if path.contains("Stage_") {
        Kind::Stage
    } else {
        Kind::Model
    }
}

fn cont(path: &str, resources: Vec<ResourceEntry>) -> ContainerEntry {
    ContainerEntry {
        path: path.into(),
        kind: kind_of(path),
        size: 4096,
        error: None,
        preview: None,
        scene: None,
        preview_cells: None,
        resources,
        textures: vec![],
        other: vec![],
    }
}

fn err_cont(path: &str, code: impl Into<ManifestCode>, detail: &str) -> ContainerEntry {
    ContainerEntry {
        error: Some(Reason::new(code, detail)),
        ..cont(path, vec![])
    }
}

fn r(code: impl Into<ManifestCode>, detail: &str) -> Reason {
    Reason::new(code, detail)
}

fn counts(files: usize, file_errors: usize, resources: usize, decoded: usize, rejected: usize) -> Counts {
    Counts {
        files,
        file_errors,
        resources,
        decoded,
        rejected,
    }
}

const A: &str = "hidden/resource3d/a.xpr";
const S: &str = "hidden/resource3d/Stage_S01.xpr";

/// An empty container diff for `path` present in both manifests, to fill in.
fn both(path: &str, before: (usize, usize), after: (usize, usize)) -> ContainerDiff {
    ContainerDiff {
        path: path.into(),
        kind: kind_of(path),
        presence: Presence::Both,
        before: Some(Coverage {
            decoded: before.0,
            resources: before.1,
        }),
        after: Some(Coverage {
            decoded: after.0,
            resources: after.1,
        }),
        error: None,
        newly_decoded: vec![],
        newly_rejected: vec![],
        reason_changed: vec![],
        geometry_changed: vec![],
        appeared: vec![],
        vanished: vec![],
        moved: vec![],
        tally: Tally::default(),
    }
}

fn one(old: Vec<ContainerEntry>, new: Vec<ContainerEntry>) -> (Diff, ContainerDiff) {
    let d = diff::diff(&Manifest::new(old), &Manifest::new(new));
    assert_eq!(d.containers.len(), 1, "{d:#?}");
    let cd = d.containers[0].clone();
    assert_eq!(d.total, cd.tally);
    (d, cd)
}

// ---------------------------------------------------------------------------------------
// One category at a time

#[test]
fn a_resource_that_moved_is_matched_by_its_name() {
    // A resource inserted at index 1 moves s1 and s2 down one; s2 is also rejected now.
    let (d, cd) = one(
        vec![cont(
            S,
            vec![dec(0, "s0", 1, 8, 12), dec(1, "s1", 2, 8, 12), dec(2, "s2", 3, 8, 12)],
        )],
        vec![cont(
            S,
            vec![
                dec(0, "s0", 1, 8, 12),
                rej(1, "new", Code::BadRange, "past end"),
                dec(2, "s1", 2, 8, 12),
                rej(3, "s2", Code::NormalsNotUnit, "mean |n| 0.6"),
            ],
        )],
    );
    let mut want = both(S, (3, 3), (2, 4));
    want.appeared.push(Appeared {
        index: 1,
        name: "new".into(),
        reason: Some(Reason::new(Code::BadRange, "past end")),
    });
    want.newly_rejected.push(NewlyRejected {
        index: 3,
        name: "s2".into(),
        reason: Some(Reason::new(Code::NormalsNotUnit, "mean |n| 0.6")),
    });
    for (name, before, after) in [("s1", 1, 2), ("s2", 2, 3)] {
        want.moved.push(Moved {
            name: name.into(),
            index: Change::new(before, after),
        });
    }
    want.tally = Tally {
        appeared: 1,
        newly_rejected: 1,
        moved: 2,
        regressions: 1,
        changes: 3,
        ..Tally::default()
    };
    assert_eq!(cd, want);
    let text = diff::render_text(&d, false);
    assert!(text.contains("~ [2] s1: moved from [1] (matched by name)"), "{text}");
    assert!(text.contains("- [3] s2: decoded → rejected"), "{text}");
    assert!(!text.contains("gone"), "{text}");
}

#[test]
fn a_renamed_resource_and_repeated_names_are_matched_by_index() {
    // Index 0 renamed; two resources share a name and swap places: by index, as before.
    let (_, cd) = one(
        vec![cont(
            S,
            vec![
                dec(0, "a", 1, 8, 12),
                dec(1, "twin", 2, 8, 12),
                dec(2, "twin", 3, 8, 12),
            ],
        )],
        vec![cont(
            S,
            vec![
                dec(0, "b", 1, 8, 12),
                dec(1, "twin", 3, 8, 12),
                dec(2, "twin", 2, 8, 12),
            ],
        )],
    );
    assert!(
        cd.moved.is_empty() && cd.appeared.is_empty() && cd.vanished.is_empty(),
        "{cd:#?}"
    );
    assert_eq!(cd.geometry_changed.len(), 2, "{cd:#?}");
}

#[test]
fn identical_manifests_have_no_diff() {
    let m = Manifest::new(vec![
        cont(A, vec![dec(0, "a0", 1, 8, 12), rej(1, "a1", Code::NoValidAnchor, "x")]),
        err_cont(S, Code::Truncated, "short"),
    ]);
    let d = diff::diff(&m, &m);
    assert!(d.is_empty());
    assert!(!d.has_regressions());
    assert_eq!(d.total, Tally::default());
    assert_eq!(d.containers, vec![]);
    assert_eq!(d.coverage, Change::new(counts(2, 1, 2, 1, 1), counts(2, 1, 2, 1, 1)));
    assert_eq!(diff::exit_code(&d, false), 0);
    assert_eq!(
        diff::render_text(&d, true),
        "diff: no changes\ncoverage: 1/2 decoded in 2 files, 1 file error; model 1/2, stage 0/0\n"
    );
}

#[test]
fn same_code_other_detail_and_same_digest_are_no_change() {
    let old = vec![cont(
        A,
        vec![
            dec(0, "a0", 1, 8, 12),
            rej(1, "a1", Code::NoValidAnchor, "3 candidates"),
        ],
    )];
    let mut new = old.clone();
    new[0].resources[1].reason = Some(r(Code::NoValidAnchor, "5 candidates"));
    new[0].resources[0].offset = Some(64); // placement moved, same geometry
    new[0].size = 8192;
    let d = diff::diff(&Manifest::new(old), &Manifest::new(new));
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn newly_decoded_from_rejected_and_from_absent() {
    let (d, cd) = one(
        vec![cont(A, vec![rej(1, "a1", Code::NoValidAnchor, "none")])],
        vec![cont(A, vec![dec(1, "a1", 1, 8, 12), dec(2, "a2", 2, 4, 2)])],
    );
    let mut want = both(A, (0, 1), (2, 2));
    want.newly_decoded = vec![
        NewlyDecoded {
            index: 1,
            name: "a1".into(),
            before: Was::Rejected {
                reason: Some(r(Code::NoValidAnchor, "none")),
            },
            vertices: 8,
            triangles: 12,
        },
        NewlyDecoded {
            index: 2,
            name: "a2".into(),
            before: Was::Absent,
            vertices: 4,
            triangles: 2,
        },
    ];
    want.tally = Tally {
        newly_decoded: 2,
        gains: 2,
        ..Tally::default()
    };
    assert_eq!(cd, want);
    assert!(!d.has_regressions());
    assert_eq!(diff::exit_code(&d, false), 0);
    assert_eq!(
        d.kinds["model"],
        Change::new(counts(1, 0, 1, 0, 1), counts(1, 0, 2, 2, 0))
    );
    assert_eq!(d.reasons["no_valid_anchor"], Change::new(1, 0));
}

#[test]
fn newly_rejected_is_a_regression_with_the_new_reason() {
    let (d, cd) = one(
        vec![cont(A, vec![dec(0, "a0", 1, 8, 12)])],
        vec![cont(A, vec![rej(0, "a0", Code::NormalsNotUnit, "mean |n| 0.62")])],
    );
    let mut want = both(A, (1, 1), (0, 1));
    want.newly_rejected = vec![NewlyRejected {
        index: 0,
        name: "a0".into(),
        reason: Some(r(Code::NormalsNotUnit, "mean |n| 0.62")),
    }];
    want.tally = Tally {
        newly_rejected: 1,
        regressions: 1,
        ..Tally::default()
    };
    assert_eq!(cd, want);
    assert!(d.has_regressions());
    assert_eq!(diff::exit_code(&d, false), 1);
    assert_eq!(diff::exit_code(&d, true), 0);
    assert_eq!(
        d.reasons,
        BTreeMap::from([("normals_not_unit".to_string(), Change::new(0, 1))])
    );
}

#[test]
fn reason_change_is_a_change_not_a_regression() {
    let (d, cd) = one(
        vec![cont(A, vec![rej(3, "a3", Code::NoValidAnchor, "none")])],
        vec![cont(A, vec![rej(3, "a3", Code::AmbiguousAnchor, "2 anchors")])],
    );
    let mut want = both(A, (0, 1), (0, 1));
    want.reason_changed = vec![ReasonChanged {
        index: 3,
        name: "a3".into(),
        reason: Change::new(
            Some(r(Code::NoValidAnchor, "none")),
            Some(r(Code::AmbiguousAnchor, "2 anchors")),
        ),
    }];
    want.tally = Tally {
        reason_changed: 1,
        changes: 1,
        ..Tally::default()
    };
    assert_eq!(cd, want);
    assert_eq!(diff::exit_code(&d, false), 0);
    assert_eq!(
        d.reasons,
        BTreeMap::from([
            ("ambiguous_anchor".to_string(), Change::new(0, 1)),
            ("no_valid_anchor".to_string(), Change::new(1, 0)),
        ])
    );
}

#[test]
fn geometry_change_is_a_regression_with_counts_and_bbox() {
    let (d, cd) = one(
        vec![cont(A, vec![dec(4, "a4", 1, 100, 50)])],
        vec![cont(A, vec![dec(4, "a4", 2, 98, 49)])],
    );
    let mut want = both(A, (1, 1), (1, 1));
    want.geometry_changed = vec![GeometryChanged {
        index: 4,
        name: "a4".into(),
        vertices: Change::new(100, 98),
        triangles: Change::new(50, 49),
        bbox: Change::new(
            Some([[-1.0, 0.0, -1.0], [1.0, 1.0, 1.0]]),
            Some([[-1.0, 0.0, -1.0], [1.0, 2.0, 1.0]]),
        ),
        digest: Change::new(Some(digest(1)), Some(digest(2))),
    }];
    want.tally = Tally {
        geometry_changed: 1,
        regressions: 1,
        ..Tally::default()
    };
    assert_eq!(cd, want);
    assert_eq!(diff::exit_code(&d, false), 1);
}

#[test]
fn appeared_and_vanished_resources() {
    let (d, cd) = one(
        vec![cont(
            A,
            vec![dec(6, "a6", 1, 8, 12), rej(7, "a7", Code::BadRange, "past end")],
        )],
        vec![cont(A, vec![rej(5, "a5", Code::DegenerateTriangles, "40%")])],
    );
    let mut want = both(A, (1, 2), (0, 1));
    want.appeared = vec![Appeared {
        index: 5,
        name: "a5".into(),
        reason: Some(r(Code::DegenerateTriangles, "40%")),
    }];
    want.vanished = vec![
        Vanished {
            index: 6,
            name: "a6".into(),
            status: Status::Decoded,
            reason: None,
        },
        Vanished {
            index: 7,
            name: "a7".into(),
            status: Status::Rejected,
            reason: Some(r(Code::BadRange, "past end")),
        },
    ];
    want.tally = Tally {
        appeared: 1,
        vanished: 2,
        vanished_decoded: 1,
        regressions: 1,
        changes: 2,
        ..Tally::default()
    };
    assert_eq!(cd, want);
    assert_eq!(diff::exit_code(&d, false), 1);
}

#[test]
fn container_error_appeared_is_a_regression() {
    let (d, cd) = one(
        vec![cont(S, vec![dec(0, "s0", 1, 8, 12)])],
        vec![err_cont(S, Code::Truncated, "directory past end")],
    );
    let mut want = both(S, (1, 1), (0, 0));
    want.error = Some(ErrorChange::Appeared {
        after: r(Code::Truncated, "directory past end"),
    });
    want.vanished = vec![Vanished {
        index: 0,
        name: "s0".into(),
        status: Status::Decoded,
        reason: None,
    }];
    want.tally = Tally {
        vanished: 1,
        vanished_decoded: 1,
        errors_appeared: 1,
        regressions: 2,
        ..Tally::default()
    };
    assert_eq!(cd, want);
    assert_eq!(
        d.kinds["stage"],
        Change::new(counts(1, 0, 1, 1, 0), counts(1, 1, 0, 0, 0))
    );
    assert_eq!(diff::exit_code(&d, false), 1);
}

#[test]
fn container_error_disappeared_is_a_gain_and_changed_is_a_change() {
    let (d, cd) = one(
        vec![err_cont(S, Code::Truncated, "short")],
        vec![cont(S, vec![dec(0, "s0", 1, 8, 12)])],
    );
    let mut want = both(S, (0, 0), (1, 1));
    want.error = Some(ErrorChange::Disappeared {
        before: r(Code::Truncated, "short"),
    });
    want.newly_decoded = vec![NewlyDecoded {
        index: 0,
        name: "s0".into(),
        before: Was::Absent,
        vertices: 8,
        triangles: 12,
    }];
    want.tally = Tally {
        newly_decoded: 1,
        errors_disappeared: 1,
        gains: 2,
        ..Tally::default()
    };
    assert_eq!(cd, want);
    assert_eq!(diff::exit_code(&d, false), 0);

    let (d, cd) = one(
        vec![err_cont(S, Code::Truncated, "short")],
        vec![err_cont(S, Code::BadDirectory, "count 9999")],
    );
    assert_eq!(
        cd.error,
        Some(ErrorChange::Changed {
            before: r(Code::Truncated, "short"),
            after: r(Code::BadDirectory, "count 9999"),
        })
    );
    assert_eq!(
        cd.tally,
        Tally {
            errors_changed: 1,
            changes: 1,
            ..Tally::default()
        }
    );
    assert_eq!(diff::exit_code(&d, false), 0);
}

#[test]
fn containers_added_and_removed() {
    let b = "hidden/resource3d/b.xpr";
    let d = diff::diff(
        &Manifest::new(vec![cont(
            A,
            vec![dec(0, "a0", 1, 8, 12), rej(1, "a1", ManifestCode::IO, "x")],
        )]),
        &Manifest::new(vec![cont(b, vec![dec(0, "b0", 1, 8, 12)])]),
    );
    let added = ContainerDiff {
        presence: Presence::Added,
        before: None,
        tally: Tally {
            containers_added: 1,
            changes: 1,
            ..Tally::default()
        },
        ..both(b, (0, 0), (1, 1))
    };
    let removed = ContainerDiff {
        presence: Presence::Removed,
        after: None,
        tally: Tally {
            containers_removed: 1,
            regressions: 1,
            ..Tally::default()
        },
        ..both(A, (1, 2), (0, 0))
    };
    assert_eq!(d.containers, vec![removed, added]);
    assert_eq!(
        d.total,
        Tally {
            containers_added: 1,
            containers_removed: 1,
            regressions: 1,
            changes: 1,
            ..Tally::default()
        }
    );
    assert_eq!(diff::exit_code(&d, false), 1);
    assert_eq!(d.coverage, Change::new(counts(1, 0, 2, 1, 1), counts(1, 0, 1, 1, 0)));
}

#[test]
fn kinds_missing_on_one_side_count_as_zero() {
    let d = diff::diff(
        &Manifest::new(vec![cont(A, vec![])]),
        &Manifest::new(vec![cont(A, vec![]), cont(S, vec![dec(0, "s0", 1, 3, 1)])]),
    );
    assert_eq!(
        d.kinds,
        BTreeMap::from([
            (
                "model".to_string(),
                Change::new(counts(1, 0, 0, 0, 0), counts(1, 0, 0, 0, 0))
            ),
            (
                "stage".to_string(),
                Change::new(Counts::default(), counts(1, 0, 1, 1, 0))
            ),
        ])
    );
}

// ---------------------------------------------------------------------------------------
// Everything at once: totals over several containers, ordering

#[test]
fn totals_sum_over_containers_in_path_order() {
    let old = vec![
        cont(
            A,
            vec![
                dec(0, "a0", 1, 8, 12),
                rej(1, "a1", Code::NoValidAnchor, ""),
                dec(2, "a2", 2, 8, 12),
            ],
        ),
        cont(S, vec![dec(0, "s0", 1, 8, 12)]),
        cont("hidden/resource3d/same.xpr", vec![dec(0, "x", 1, 8, 12)]),
        cont("hidden/resource3d/gone.xpr", vec![]),
    ];
    let new = vec![
        cont(
            A,
            vec![
                dec(0, "a0", 1, 8, 12),
                dec(1, "a1", 3, 8, 12),
                rej(2, "a2", Code::IndexOutOfRange, ""),
            ],
        ),
        err_cont(S, Code::NotXpr2, "magic"),
        cont("hidden/resource3d/same.xpr", vec![dec(0, "x", 1, 8, 12)]),
        cont("hidden/resource3d/new.xpr", vec![]),
    ];
    let d = diff::diff(&Manifest::new(old), &Manifest::new(new));
    let paths: Vec<(&str, Presence)> = d.containers.iter().map(|c| (c.path.as_str(), c.presence)).collect();
    assert_eq!(
        paths,
        vec![
            (S, Presence::Both),
            (A, Presence::Both),
            ("hidden/resource3d/gone.xpr", Presence::Removed),
            ("hidden/resource3d/new.xpr", Presence::Added),
        ]
    );
    assert_eq!(
        d.total,
        Tally {
            newly_decoded: 1,
            newly_rejected: 1,
            vanished: 1,
            vanished_decoded: 1,
            containers_added: 1,
            containers_removed: 1,
            errors_appeared: 1,
            regressions: 4,
            gains: 1,
            changes: 1,
            ..Tally::default()
        }
    );
    assert_eq!(diff::exit_code(&d, false), 1);
    assert_eq!(diff::exit_code(&d, true), 0);
}

// ---------------------------------------------------------------------------------------
// Golden renderings of a small fixed case

const F1: &str = "hidden/resource3d/f001.xpr";
const F2: &str = "hidden/resource3d/f002.xpr";

fn golden_case() -> Diff {
    let old = Manifest::new(vec![
        cont(
            F1,
            vec![
                rej(0, "rou_f001_body", Code::NoValidAnchor, "no candidate passed"),
                dec(1, "rou_f001_wep", 1, 24, 12),
                dec(2, "rou_f001_fin", 1, 8, 12),
                rej(3, "rou_f001_gear", Code::NoValidAnchor, "no candidate passed"),
            ],
        ),
        cont(
            S,
            vec![
                dec(0, "rou_e001", 1, 36, 12),
                rej(1, "rou_e002", Code::BadRange, "past end"),
            ],
        ),
    ]);
    let new = Manifest::new(vec![
        cont(
            F1,
            vec![
                dec(0, "rou_f001_body", 1, 120, 200),
                rej(1, "rou_f001_wep", Code::NormalsNotUnit, "mean |n| 0.62"),
                dec(2, "rou_f001_fin", 2, 6, 8),
                rej(3, "rou_f001_gear", Code::AmbiguousAnchor, "2 anchors"),
            ],
        ),
        err_cont(S, Code::Truncated, "directory past end of file"),
        cont(F2, vec![dec(0, "rou_f002_body", 1, 3, 1)]),
    ]);
    diff::diff(&old, &new)
}

const GOLDEN_TEXT: &str = "\
diff: 4 regressions, 1 gain, 3 changes
coverage: 3/6 → 3/5 decoded in 2 → 3 files, 0 → 1 file error; model 2/4 → 3/5, stage 1/2 → 0/0
reasons: ambiguous_anchor 0 → 1, bad_range 1 → 0, no_valid_anchor 2 → 0, normals_not_unit 0 → 1, truncated 0 → 1
- hidden/resource3d/Stage_S01.xpr: container error appeared: truncated: directory past end of file; was 1/2 decoded
    - [0] rou_e001: gone (was decoded)
    ~ [1] rou_e002: gone (was rejected: bad_range)
  hidden/resource3d/f001.xpr
    + [0] rou_f001_body: decoded, 120 vertices, 200 triangles (was no_valid_anchor)
    - [1] rou_f001_wep: decoded → rejected: normals_not_unit: mean |n| 0.62
    - [2] rou_f001_fin: geometry changed: vertices 8 → 6, triangles 12 → 8, bbox [-1, 0, -1]..[1, 1, 1] → [-1, 0, -1]..[1, 2, 1]
    ~ [3] rou_f001_gear: reason no_valid_anchor → ambiguous_anchor: 2 anchors
~ hidden/resource3d/f002.xpr: container added (model), 1/1 decoded
";

const GOLDEN_MARKDOWN: &str = "\
### xbg7-export diff: 4 regressions, 1 gain, 3 changes

| kind | files | decoded/resources | rejected | file errors |
|:--|--:|--:|--:|--:|
| model | 1 → 2 | 2/4 → 3/5 | 2 | 0 |
| stage | 1 | 1/2 → 0/0 | 1 → 0 | 0 → 1 |
| **total** | 2 → 3 | 3/6 → 3/5 | 3 → 2 | 0 → 1 |

| reason | before | after |
|:--|--:|--:|
| `ambiguous_anchor` | 0 | 1 |
| `bad_range` | 1 | 0 |
| `no_valid_anchor` | 2 | 0 |
| `normals_not_unit` | 0 | 1 |
| `truncated` | 0 | 1 |

#### Regressions (4)

- `hidden/resource3d/Stage_S01.xpr`: container error appeared: `truncated`: directory past end of file; was 1/2 decoded
- `hidden/resource3d/Stage_S01.xpr` [0] `rou_e001`: gone (was decoded)
- `hidden/resource3d/f001.xpr` [1] `rou_f001_wep`: decoded → rejected: `normals_not_unit`: mean |n| 0.62
- `hidden/resource3d/f001.xpr` [2] `rou_f001_fin`: geometry changed: vertices 8 → 6, triangles 12 → 8, bbox [-1, 0, -1]..[1, 1, 1] → [-1, 0, -1]..[1, 2, 1]

#### Gains (1)

- `hidden/resource3d/f001.xpr` [0] `rou_f001_body`: decoded, 120 vertices, 200 triangles (was `no_valid_anchor`)

#### Changes (3)

- `hidden/resource3d/Stage_S01.xpr` [1] `rou_e002`: gone (was rejected: `bad_range`)
- `hidden/resource3d/f001.xpr` [3] `rou_f001_gear`: reason `no_valid_anchor` → `ambiguous_anchor`: 2 anchors
- `hidden/resource3d/f002.xpr`: container added (model), 1/1 decoded
";

#[test]
fn golden_text() {
    let d = golden_case();
    assert_eq!(diff::render_text(&d, false), GOLDEN_TEXT);
}

#[test]
fn golden_markdown() {
    let d = golden_case();
    assert_eq!(diff::render_markdown(&d), GOLDEN_MARKDOWN);
}

#[test]
fn text_colours_gains_green_regressions_red_changes_yellow() {
    let d = golden_case();
    let coloured = diff::render_text(&d, true);
    let lines: Vec<&str> = coloured.lines().collect();
    assert_eq!(lines[0], "\x1b[31mdiff: 4 regressions, 1 gain, 3 changes\x1b[0m");
    assert_eq!(lines[1], GOLDEN_TEXT.lines().nth(1).unwrap());
    assert_eq!(
        lines[5],
        "    \x1b[33m~ [1] rou_e002: gone (was rejected: bad_range)\x1b[0m"
    );
    assert_eq!(
        lines[7],
        "    \x1b[32m+ [0] rou_f001_body: decoded, 120 vertices, 200 triangles (was no_valid_anchor)\x1b[0m"
    );
    assert_eq!(
        lines[8],
        "    \x1b[31m- [1] rou_f001_wep: decoded → rejected: normals_not_unit: mean |n| 0.62\x1b[0m"
    );
    // Stripping the colour codes gives the plain rendering.
    assert_eq!(
        coloured
            .replace("\x1b[31m", "")
            .replace("\x1b[32m", "")
            .replace("\x1b[33m", "")
            .replace("\x1b[0m", ""),
        GOLDEN_TEXT
    );
}

#[test]
fn json_rendering_is_the_serde_shape_in_fixed_order() {
    let d = golden_case();
    let j = diff::render_json(&d);
    assert!(j.ends_with("}\n"));
    assert_eq!(j, diff::render_json(&golden_case()));
    let v: serde_json::Value = serde_json::from_str(&j).unwrap();
    let top: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    // serde_json without preserve_order sorts object keys on parse: compare as a set, and the
    // raw text for the order.
    assert_eq!(top, vec!["containers", "coverage", "kinds", "reasons", "total"]);
    let order: Vec<usize> = [
        "\"total\"",
        "\"coverage\"",
        "\"kinds\"",
        "\"reasons\"",
        "\"containers\"",
    ]
    .iter()
    .map(|k| j.find(k).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert_eq!(v["total"]["regressions"], 4);
    assert_eq!(v["containers"][0]["path"], S);
    assert_eq!(v["containers"][0]["error"]["change"], "appeared");
    assert_eq!(v["containers"][0]["error"]["after"]["code"], "truncated");
    assert_eq!(v["containers"][1]["newly_decoded"][0]["before"]["status"], "rejected");
    assert_eq!(
        v["containers"][1]["newly_decoded"][0]["before"]["reason"]["code"],
        "no_valid_anchor"
    );
    assert_eq!(
        v["containers"][1]["geometry_changed"][0]["vertices"],
        serde_json::json!({"before": 8, "after": 6})
    );
    assert_eq!(v["containers"][2]["presence"], "added");
    assert_eq!(v["containers"][2]["before"], serde_json::Value::Null);
    assert_eq!(v["kinds"]["stage"]["after"]["file_errors"], 1);
    assert_eq!(v["reasons"]["truncated"], serde_json::json!({"before": 0, "after": 1}));
}

#[test]
fn empty_diff_renderings() {
    let m = Manifest::new(vec![cont(A, vec![dec(0, "a0", 1, 8, 12)])]);
    let d = diff::diff(&m, &m);
    assert_eq!(
        diff::render_text(&d, true),
        "diff: no changes\ncoverage: 1/1 decoded in 1 file; model 1/1\n"
    );
    assert_eq!(
        diff::render_markdown(&d),
        "### xbg7-export diff: no changes\n\n| kind | files | decoded/resources | rejected | file errors |\n|:--|--:|--:|--:|--:|\n| model | 1 | 1/1 | 0 | 0 |\n| **total** | 1 | 1/1 | 0 | 0 |\n"
    );
}

#[test]
fn hostile_names_are_escaped() {
    let d = diff::diff(
        &Manifest::new(vec![cont(A, vec![])]),
        &Manifest::new(vec![cont(A, vec![rej(0, "a`b\x1b[2J\n", ManifestCode::IO, "x")])]),
    );
    assert_eq!(
        diff::render_text(&d, false).lines().last().unwrap(),
        "    ~ [0] a`b\\u{1b}[2J\\n: new resource, rejected: io: x"
    );
    assert!(diff::render_markdown(&d).contains("[0] ``a`b\\u{1b}[2J\\n``: new resource"));
}

// ---------------------------------------------------------------------------------------
// Loading

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn load_err(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "m.json", bytes);
    let e = diff::load(&p).unwrap_err();
    let s = e.to_string();
    let prefix = format!("{}: ", p.display());
    assert!(s.starts_with(&prefix), "{s}");
    s[prefix.len()..].to_string()
}

#[test]
fn load_round_trips_a_written_manifest() {
    let m = Manifest::new(vec![
        cont(A, vec![dec(0, "a0", 1, 8, 12), rej(1, "a1", Code::NoValidAnchor, "x")]),
        err_cont(S, Code::Truncated, "short"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "manifest.json", &m.to_bytes());
    assert_eq!(diff::load(&p).unwrap(), m);
}

#[test]
fn load_names_the_problem() {
    assert_eq!(load_err(b""), "not JSON: EOF while parsing a value at line 1 column 0");
    assert_eq!(
        load_err(b"{\"schema\": "),
        "not JSON: EOF while parsing a value at line 1 column 11"
    );
    assert_eq!(
        load_err(b"[1, 2]"),
        "not a manifest: the top level is not a JSON object"
    );
    assert_eq!(
        load_err(b"{\"containers\": []}"),
        "not a manifest: missing field `schema`"
    );
    assert_eq!(
        load_err(b"{\"schema\": \"xbg7-export.manifest/2\", \"bogus\": 1}"),
        "schema is xbg7-export.manifest/2, expected xbg7-export.manifest/1"
    );
    assert_eq!(
        load_err(b"{\"schema\": 7}"),
        "schema is 7, expected xbg7-export.manifest/1"
    );

    let good = String::from_utf8(Manifest::new(vec![cont(A, vec![dec(0, "a0", 1, 8, 12)])]).to_bytes()).unwrap();
    let missing = good.replace("      \"kind\": \"model\",\n", "");
    let e = load_err(missing.as_bytes());
    assert!(e.starts_with("not a manifest: missing field `kind` at line "), "{e}");
    let extra = good.replace("\"size\": 4096", "\"size\": 4096, \"colour\": 1");
    let e = load_err(extra.as_bytes());
    assert!(
        e.starts_with("not a manifest: unknown field `colour`, expected one of "),
        "{e}"
    );
    let bad_enum = good.replace("\"status\": \"decoded\"", "\"status\": \"ok\"");
    let e = load_err(bad_enum.as_bytes());
    assert!(
        e.starts_with("not a manifest: unknown variant `ok`, expected `decoded` or `rejected` at line "),
        "{e}"
    );
}

#[test]
fn load_of_a_missing_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("nope.json");
    let e = diff::load(&p).unwrap_err();
    assert!(matches!(e, DiffError::Io { .. }), "{e:?}");
    assert!(
        e.to_string().starts_with(&format!("{}: cannot read: ", p.display())),
        "{e}"
    );
}

#[test]
fn parse_errors_are_typed() {
    assert!(matches!(diff::parse(b"nope"), Err(ManifestError::NotJson(_))));
    assert!(matches!(diff::parse(b"1"), Err(ManifestError::NotObject)));
    assert!(matches!(diff::parse(b"{}"), Err(ManifestError::MissingSchema)));
    assert!(matches!(
        diff::parse(b"{\"schema\": \"x\"}"),
        Err(ManifestError::WrongSchema { found }) if found == "x"
    ));
    assert!(matches!(
        diff::parse(b"{\"schema\": \"xbg7-export.manifest/1\"}"),
        Err(ManifestError::Invalid(_))
    ));
}

// ---------------------------------------------------------------------------------------
// Properties over random manifests

const PATHS: [&str; 4] = [
    "hidden/resource3d/a.xpr",
    "hidden/resource3d/b.xpr",
    "hidden/resource3d/Stage_S01.xpr",
    "hidden/resource3d/Stage_S02.xpr",
];
const CODES: [Code; 3] = [Code::NoValidAnchor, Code::AmbiguousAnchor, Code::Truncated];

fn arb_resource(index: u32) -> impl Strategy<Value = ResourceEntry> {
    (any::<bool>(), 0u8..3, 0usize..3).prop_map(move |(decoded, seed, code)| {
        if decoded {
            dec(index, &format!("r{index}"), seed, 8, 12)
        } else {
            rej(index, &format!("r{index}"), CODES[code], "d")
        }
    })
}

fn arb_container(path: &'static str) -> impl Strategy<Value = Option<ContainerEntry>> {
    let resources = proptest::collection::vec((0u32..5).prop_flat_map(arb_resource), 0..5);
    (0u8..4, resources).prop_map(move |(state, mut rs)| {
        rs.sort_by_key(|r| r.index);
        rs.dedup_by_key(|r| r.index);
        match state {
            0 => None,
            1 => Some(err_cont(path, CODES[rs.len() % 3], "e")),
            _ => Some(cont(path, rs)),
        }
    })
}

fn arb_manifest() -> impl Strategy<Value = Manifest> {
    (
        arb_container(PATHS[0]),
        arb_container(PATHS[1]),
        arb_container(PATHS[2]),
        arb_container(PATHS[3]),
    )
        .prop_map(|(a, b, c, d)| Manifest::new([a, b, c, d].into_iter().flatten().collect()))
}

proptest! {
    #[test]
    fn a_manifest_against_itself_is_empty(m in arb_manifest()) {
        let d = diff::diff(&m, &m);
        prop_assert!(d.is_empty());
        prop_assert_eq!(&d.total, &Tally::default());
        prop_assert_eq!(diff::exit_code(&d, false), 0);
    }

    #[test]
    fn swapping_sides_swaps_gains_and_losses(a in arb_manifest(), b in arb_manifest()) {
        let f = diff::diff(&a, &b).total;
        let r = diff::diff(&b, &a).total;
        prop_assert_eq!(f.newly_decoded, r.newly_rejected + r.vanished_decoded);
        prop_assert_eq!(f.appeared, r.vanished - r.vanished_decoded);
        prop_assert_eq!(f.geometry_changed, r.geometry_changed);
        prop_assert_eq!(f.reason_changed, r.reason_changed);
        prop_assert_eq!(f.errors_appeared, r.errors_disappeared);
        prop_assert_eq!(f.errors_changed, r.errors_changed);
        prop_assert_eq!(f.containers_added, r.containers_removed);
        prop_assert_eq!(
            f.regressions,
            f.newly_rejected + f.geometry_changed + f.vanished_decoded + f.errors_appeared + f.containers_removed
        );
    }

    #[test]
    fn capped_markdown_fits_and_says_what_it_left_out(
        a in arb_manifest(),
        b in arb_manifest(),
        cap in 300usize..3_000,
    ) {
        let d = diff::diff(&a, &b);
        let full = diff::render_markdown(&d);
        let capped = diff::render_markdown_capped(&d, cap);
        let listed = |s: &str| s.lines().filter(|l| l.starts_with("- ")).count();
        if full.chars().count() <= cap {
            prop_assert_eq!(&capped, &full);
        } else {
            // Within the cap, unless the summary and the table alone exceed it (then
            // nothing is listed).
            prop_assert!(
                capped.chars().count() <= cap || listed(&capped) == 0,
                "{} > {cap}",
                capped.chars().count()
            );
            prop_assert!(capped.starts_with(full.lines().next().unwrap()), "the summary comes first");
            // Every listed line is one of the full list's, and the rest are counted.
            let left: usize = capped
                .lines()
                .find_map(|l| l.strip_prefix('*')?.split(' ').next()?.parse().ok())
                .unwrap_or(0);
            prop_assert_eq!(listed(&capped) + left, listed(&full));
        }
    }

    #[test]
    fn renderings_are_consistent(a in arb_manifest(), b in arb_manifest()) {
        let d = diff::diff(&a, &b);
        let md = diff::render_markdown(&d);
        let listed = md.lines().filter(|l| l.starts_with("- ")).count();
        prop_assert_eq!(listed, d.total.regressions + d.total.gains + d.total.changes);
        let text = diff::render_text(&d, false);
        let marked = text
            .lines()
            .filter(|l| l.trim_start().starts_with(['+', '-', '~']))
            .count();
        prop_assert_eq!(marked, listed);
        let v: serde_json::Value = serde_json::from_str(&diff::render_json(&d)).unwrap();
        prop_assert_eq!(v["total"]["regressions"].as_u64(), Some(d.total.regressions as u64));
        prop_assert_eq!(diff::exit_code(&d, false), i32::from(d.has_regressions()));
    }
}
