//! `docs/manifest.schema.json` against manifests built with `Manifest::new` + `to_bytes`.
//!
//! The schema is hand-written; these tests pin it to the serde shape of `src/manifest.rs`:
//! a fully populated manifest validates, its key sets equal the schema's `properties`, every
//! reason code (the decoder's and the exporter's) is listed, and extra fields or wrong enum
//! values are rejected.

use serde_json::{json, Value};
use std::collections::BTreeSet;
use xbg7::Code;
use xbg7_export::manifest::{
    ContainerEntry, ExportCode, GridCells, Kind, Layout, Manifest, OtherEntry, Reason, ResourceEntry, Status,
    StreamEntry, TextureCode, TextureEntry, TextureReason, SCHEMA,
};

const SCHEMA_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/manifest.schema.json");

/// Every decoder `Code`, in declaration order (the exporter's follow: `ExportCode::ALL`).
/// `exhaustive` fails to compile when a variant is added without listing it here (and then
/// in the schema).
const ALL_CODES: [Code; 27] = [
    Code::NotXpr2,
    Code::Truncated,
    Code::BadDirectory,
    Code::BadRange,
    Code::NoIndexMarker,
    Code::NoVertexCount,
    Code::UnknownDeclType,
    Code::DeclUnterminated,
    Code::NoSubmeshRecords,
    Code::MultiStreamDeclaration,
    Code::NoPositionElement,
    Code::QuantizedPosition,
    Code::NoAnchorElement,
    Code::LaterSubmeshUnplaced,
    Code::NoValidAnchor,
    Code::AmbiguousAnchor,
    Code::AnchorOutOfBudget,
    Code::AmbiguousSubmeshRecords,
    Code::AmbiguousSubmeshSplit,
    Code::IndexOutOfRange,
    Code::NormalsNotUnit,
    Code::DegenerateTriangles,
    Code::NonFinitePosition,
    Code::PositionOutOfBounds,
    Code::WindingInconsistent,
    Code::VerticesUnreferenced,
    Code::InvalidAttribute,
];

#[allow(dead_code)]
fn exhaustive(c: Code) -> usize {
    match c {
        Code::NotXpr2
        | Code::Truncated
        | Code::BadDirectory
        | Code::BadRange
        | Code::NoIndexMarker
        | Code::NoVertexCount
        | Code::UnknownDeclType
        | Code::DeclUnterminated
        | Code::NoSubmeshRecords
        | Code::MultiStreamDeclaration
        | Code::NoPositionElement
        | Code::QuantizedPosition
        | Code::NoAnchorElement
        | Code::LaterSubmeshUnplaced
        | Code::NoValidAnchor
        | Code::AmbiguousAnchor
        | Code::AnchorOutOfBudget
        | Code::AmbiguousSubmeshRecords
        | Code::AmbiguousSubmeshSplit
        | Code::IndexOutOfRange
        | Code::NormalsNotUnit
        | Code::DegenerateTriangles
        | Code::NonFinitePosition
        | Code::PositionOutOfBounds
        | Code::WindingInconsistent
        | Code::VerticesUnreferenced
        | Code::InvalidAttribute => ALL_CODES.len(),
    }
}

fn schema() -> Value {
    let text = std::fs::read_to_string(SCHEMA_PATH).expect("schema file readable");
    serde_json::from_str(&text).expect("schema is JSON")
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema()).expect("schema compiles")
}

/// Every error message for `instance`, sorted (empty when valid).
fn errors(instance: &Value) -> Vec<String> {
    let v = validator();
    let mut out: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{}: {}", e.instance_path(), e))
        .collect();
    out.sort();
    out
}

/// A resource with every optional field set (so its JSON shows every key).
fn full_resource() -> ResourceEntry {
    ResourceEntry {
        index: 3,
        name: "rou_f001_body_00".into(),
        status: Status::Decoded,
        // A decoded resource's reason: the note of an undecidable split.
        reason: Some(Reason::new(Code::AmbiguousSubmeshSplit, "2 orders fit")),
        layout: Some(Layout::Anchored),
        offset: Some(0x1800),
        stride: Some(32),
        declaration: Some("position float3 @0, normal float3 @12".into()),
        vertices: 120,
        triangles: 200,
        submeshes: 2,
        bbox: Some([[-1.5, 0.0, -2.25], [1.5, 3.0, 2.25]]),
        digest: Some("0123456789abcdef".repeat(4)),
        skybox: true,
        spiky: true,
        winding: Some("ccw".into()),
        split: Some("undecided".into()),
        gltf: Some("models/f001/rou_f001_body_00.gltf".into()),
        bin: Some("models/f001/rou_f001_body_00.bin".into()),
        preview: Some("models/f001/rou_f001_body_00.png".into()),
        thumb: Some("m/rou_f001_body_00~thumb.png".into()),
        streams: vec![
            StreamEntry {
                stream: 0,
                stride: 12,
                offset: Some(0x1c00),
                left_out: None,
            },
            StreamEntry {
                stream: 1,
                stride: 4,
                offset: None,
                left_out: Some("TEXCOORD0 only".into()),
            },
        ],
        same_as: Some(3),
    }
}

fn minimal_rejected() -> ResourceEntry {
    ResourceEntry::rejected(
        4,
        "rou_f001_wep_00",
        Some(Reason::new(Code::NoValidAnchor, "no candidate passed the gates")),
    )
}

fn full_container() -> ContainerEntry {
    ContainerEntry {
        path: "hidden/resource3d/Stage_S01.xpr".into(),
        kind: Kind::Stage,
        size: 123_456,
        error: Some(Reason::new(Code::Truncated, "directory past end")),
        preview: Some("stages/Stage_S01.png".into()),
        scene: Some("Stage_S01/Stage_S01.gltf".into()),
        preview_cells: Some(GridCells {
            shown: 1024,
            total: 5000,
        }),
        resources: vec![full_resource(), minimal_rejected()],
        textures: vec![
            TextureEntry {
                index: 0,
                name: "rou_f001_body_00_col".into(),
                status: Some(Status::Rejected),
                reason: Some(TextureReason::new(
                    TextureCode::Decode(xbg7::texture::TextureCode::PackedMipTail),
                    "16×16 base level",
                )),
                format: Some("DXT1".into()),
                width: Some(16),
                height: Some(16),
                tiled: Some(true),
                png: Some("Stage_S01/textures/rou_f001_body_00_col.png".into()),
                roughness_png: Some("Stage_S01/textures/rou_f001_body_00_gls~roughness.png".into()),
                digest: Some("0".repeat(64)),
                same_as: Some(4),
            },
            TextureEntry::new(1, "rou_f001_body_00_spc".into()),
        ],
        other: vec![OtherEntry {
            index: 5,
            tag: "USER".into(),
            name: "user_data".into(),
        }],
    }
}

fn minimal_container() -> ContainerEntry {
    ContainerEntry {
        path: "hidden/resource3d/f001.xpr".into(),
        kind: Kind::Model,
        size: 0,
        error: None,
        preview: None,
        scene: None,
        preview_cells: None,
        resources: vec![],
        textures: vec![],
        other: vec![],
    }
}

fn manifest_json() -> Value {
    let mut m = Manifest::new(vec![full_container(), minimal_container()]);
    m.report = Some("index.html".into());
    serde_json::from_slice(&m.to_bytes()).expect("manifest bytes are JSON")
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("object").keys().cloned().collect()
}

fn schema_props(s: &Value, pointer: &str) -> BTreeSet<String> {
    keys(
        s.pointer(&format!("{pointer}/properties"))
            .unwrap_or_else(|| panic!("{pointer}/properties")),
    )
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn schema_is_valid_draft_2020_12() {
    let s = schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    jsonschema::meta::validate(&s).expect("schema valid against its meta-schema");
}

#[test]
fn hand_built_manifest_validates() {
    let m = manifest_json();
    assert_eq!(errors(&m), Vec::<String>::new());
    // The fixture really exercises the optional and flattened parts.
    assert_eq!(m["schema"], SCHEMA);
    assert_eq!(m["summary"]["files"], 2);
    assert_eq!(m["summary"]["kinds"]["stage"]["resources"], 2);
    assert_eq!(m["summary"]["reasons"]["truncated"], 1);
    // Rejects per code: the rejected resource's, not the decoded one's note.
    assert_eq!(m["summary"]["reasons"]["no_valid_anchor"], 1);
    assert!(m["summary"]["reasons"].get("ambiguous_submesh_split").is_none());
    assert_eq!(m["containers"][0]["other"][0]["tag"], "USER");
}

#[test]
fn empty_manifest_validates() {
    let m: Value = serde_json::from_slice(&Manifest::new(vec![]).to_bytes()).unwrap();
    assert_eq!(errors(&m), Vec::<String>::new());
}

#[test]
fn schema_properties_equal_serialised_keys() {
    let s = schema();
    let m = manifest_json();
    assert_eq!(schema_props(&s, ""), keys(&m));
    assert_eq!(schema_props(&s, "/properties/generator"), keys(&m["generator"]));
    assert_eq!(schema_props(&s, "/$defs/summary"), keys(&m["summary"]));
    assert_eq!(schema_props(&s, "/$defs/counts"), keys(&m["summary"]["kinds"]["model"]));
    // containers[0] is the full one (sorted by path: "Stage_S01" < "f001").
    assert_eq!(schema_props(&s, "/$defs/container"), keys(&m["containers"][0]));
    assert_eq!(
        schema_props(&s, "/$defs/resource"),
        keys(&m["containers"][0]["resources"][0])
    );
    assert_eq!(schema_props(&s, "/$defs/reason"), keys(&m["containers"][0]["error"]));
    assert_eq!(
        schema_props(&s, "/$defs/texture"),
        keys(&m["containers"][0]["textures"][0])
    );
    assert_eq!(schema_props(&s, "/$defs/other"), keys(&m["containers"][0]["other"][0]));
    assert_eq!(
        schema_props(&s, "/$defs/summary/properties/kinds"),
        set(&["model", "stage"])
    );
    // Omitted optionals: the minimal container and rejected resource drop exactly these.
    assert_eq!(
        keys(&m["containers"][1]),
        set(&["path", "kind", "size", "resources", "textures"])
    );
    assert_eq!(
        keys(&m["containers"][0]["resources"][1]),
        set(&[
            "index",
            "name",
            "status",
            "reason",
            "vertices",
            "triangles",
            "submeshes"
        ])
    );
}

#[test]
fn schema_lists_every_reason_code() {
    let s = schema();
    let names = || {
        ALL_CODES
            .iter()
            .map(|c| c.as_str())
            .chain(ExportCode::ALL.iter().map(|c| c.as_str()))
    };
    let want: Vec<Value> = names().map(|c| json!(c)).collect();
    assert_eq!(s["$defs"]["code"]["enum"], Value::Array(want));
    let want_keys: BTreeSet<String> = names().map(str::to_string).collect();
    assert_eq!(schema_props(&s, "/$defs/summary/properties/reasons"), want_keys);
    assert_eq!(exhaustive(Code::NotXpr2), 27);
    for c in ExportCode::ALL {
        assert_eq!(ser(xbg7_export::manifest::Code::Export(c)), json!(c.as_str()));
    }
}

fn ser<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).unwrap()
}

#[test]
fn schema_enums_match_serde_names() {
    let s = schema();
    assert_eq!(s["$defs"]["kind"]["enum"], json!([ser(Kind::Model), ser(Kind::Stage)]));
    assert_eq!(
        s["$defs"]["resource"]["properties"]["status"]["enum"],
        json!([ser(Status::Decoded), ser(Status::Rejected)])
    );
    assert_eq!(
        s["$defs"]["resource"]["properties"]["layout"]["enum"],
        json!([ser(Layout::Sequential), ser(Layout::Anchored)])
    );
}

/// Apply `edit` to the valid manifest and return the validation errors.
fn errors_after(edit: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut m = manifest_json();
    edit(&mut m);
    errors(&m)
}

#[test]
fn extra_fields_are_rejected_everywhere() {
    let cases: [(&str, &str); 9] = [
        ("", ""),
        ("/generator", "/generator"),
        ("/summary", "/summary"),
        ("/summary/kinds", "/summary/kinds"),
        ("/summary/kinds/model", "/summary/kinds/model"),
        ("/containers/0", "/containers/0"),
        ("/containers/0/error", "/containers/0/error"),
        ("/containers/0/resources/0", "/containers/0/resources/0"),
        ("/containers/0/textures/0", "/containers/0/textures/0"),
    ];
    for (pointer, at) in cases {
        let errs = errors_after(|m| {
            m.pointer_mut(pointer)
                .unwrap()
                .as_object_mut()
                .unwrap()
                .insert("extra".into(), json!(1));
        });
        assert_eq!(errs.len(), 1, "{pointer}: {errs:?}");
        assert!(errs[0].starts_with(&format!("{at}: ")), "{pointer}: {errs:?}");
        assert!(errs[0].contains("extra"), "{pointer}: {errs:?}");
    }
}

#[test]
fn unknown_reason_key_in_summary_is_rejected() {
    let errs = errors_after(|m| m["summary"]["reasons"]["made_up"] = json!(2));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].starts_with("/summary/reasons: "), "{errs:?}");
}

#[test]
fn wrong_enum_values_are_rejected() {
    let cases: Vec<(&str, Value)> = vec![
        ("/containers/0/kind", json!("ship")),
        ("/containers/0/resources/0/status", json!("ok")),
        ("/containers/0/resources/0/layout", json!("guessed")),
        ("/containers/0/resources/0/reason/code", json!("not_a_code")),
        ("/containers/0/error/code", json!("NotXpr2")),
        ("/containers/0/resources/0/winding", json!("left")),
        ("/schema", json!("xbg7-export.manifest/2")),
        ("/containers/0/resources/0/skybox", json!(false)),
    ];
    for (pointer, value) in cases {
        let errs = errors_after(|m| *m.pointer_mut(pointer).unwrap() = value.clone());
        assert_eq!(errs.len(), 1, "{pointer}: {errs:?}");
        assert!(errs[0].starts_with(&format!("{pointer}: ")), "{pointer}: {errs:?}");
    }
}

#[test]
fn wrong_types_and_shapes_are_rejected() {
    let cases: Vec<(&str, Value)> = vec![
        ("/containers/0/resources/0/index", json!(-1)),
        ("/containers/0/resources/0/vertices", json!(4_294_967_296u64)),
        ("/containers/0/resources/0/bbox", json!([[0, 0, 0]])),
        ("/containers/0/resources/0/digest", json!("ABC")),
        ("/containers/0/size", json!(1.5)),
        ("/summary/decoded", json!("3")),
    ];
    for (pointer, value) in cases {
        let errs = errors_after(|m| *m.pointer_mut(pointer).unwrap() = value.clone());
        assert_eq!(errs.len(), 1, "{pointer}: {errs:?}");
        assert!(errs[0].starts_with(&format!("{pointer}: ")), "{pointer}: {errs:?}");
    }
}

#[test]
fn missing_required_field_is_rejected() {
    let errs = errors_after(|m| {
        m["containers"][0]["resources"][0]
            .as_object_mut()
            .unwrap()
            .remove("status");
    });
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].starts_with("/containers/0/resources/0: "), "{errs:?}");
    assert!(errs[0].contains("status"), "{errs:?}");
}

#[test]
fn schema_lists_every_texture_reason_code() {
    let s = schema();
    let want: Vec<Value> = TextureCode::all().map(|c| json!(c.as_str())).collect();
    assert_eq!(
        s["$defs"]["texture_reason"]["properties"]["code"]["enum"],
        Value::Array(want)
    );
    for c in TextureCode::all() {
        assert_eq!(ser(c), json!(c.as_str()));
    }
    assert_eq!(
        s["$defs"]["texture"]["properties"]["status"]["enum"],
        json!([ser(Status::Decoded), ser(Status::Rejected)])
    );
    let m = manifest_json();
    assert_eq!(
        schema_props(&s, "/$defs/texture_reason"),
        keys(&m["containers"][0]["textures"][0]["reason"])
    );
    assert_eq!(keys(&m["containers"][0]["textures"][1]), set(&["index", "name"]));
}
