"""Blender import check for an xbg7-export output folder (run inside Blender).

    blender -b --factory-startup --python-exit-code 1 \
        --python tests/blender/import_check.py -- OUT [--stage NAME] [--report FILE]

Imports, with Blender's own glTF importer (default options, `merge_vertices` off):
every decoded resource of every *model* container of the manifest, and one whole stage
scene (the first stage with a `scene`, or `--stage NAME`). For every imported mesh object
it checks, against the manifest and the glTF file the manifest names:

- the object is the expected resource: its name is the resource name (Blender caps names
  at 63 bytes), and for stage scenes its `source.directory_index` custom property (the
  node's glTF extras) names a decoded, non-skybox resource of that stage; every such
  resource is imported exactly once;
- the glTF file holds the manifest's counts (POSITION count = `vertices`, indices / 3 =
  `triangles`, one primitive per sub-mesh);
- Blender's vertex and face counts equal the counts computed the way the importer
  builds a mesh: per primitive, only the referenced vertices (`np.unique` of its indices),
  so a vertex shared by two primitives counts once per primitive; faces that repeat a
  vertex index, and repeated faces (same vertex set) within a primitive, are dropped by
  `Mesh.validate()`. The counts are computed here from the file's index buffers;
- the material slots are the primitives' material names (first-use order), each one a
  TX2D name of the container (or the writer's `<resource>_mat<k>` fallback), and each
  material's `textures` custom property (the material extras) lists the container's
  TX2D names;
- every material whose glTF material has a `baseColorTexture` (and an `emissiveTexture`)
  gets an image texture node in Blender whose image loaded (non-zero size; for `.glb`
  files the image is packed in the .blend, i.e. it came from the file's BIN chunk);
- the import raised no warning or error: the operator finished and nothing written to
  stdout/stderr during the import (captured at the file-descriptor level, so C-level
  reports count too) matches WARNING/ERROR.

Prints one line per file and a summary; exits 1 on any mismatch (with
--python-exit-code 1 also on an exception).
"""

import json
import os
import re
import struct
import sys
import tempfile

import bpy
import numpy as np

# Debian's Blender 3.4 importer uses `np.bool`, which numpy ≥ 1.24 (Debian 12's) removed:
# every import then fails in `set_poly_smoothing`. Restore the alias (it meant `bool`);
# nothing else in the importer changes. Reported in the summary line.
NP_BOOL_SHIM = "bool" not in np.__dict__
if NP_BOOL_SHIM:
    np.bool = bool

WARN = re.compile(r"\b(WARNING|ERROR|Warning|Error)\b")
COMPONENT = {5121: np.uint8, 5123: np.uint16, 5125: np.uint32}


def args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    opts = {"out": None, "stage": None, "report": None}
    it = iter(argv)
    for a in it:
        if a == "--stage":
            opts["stage"] = next(it)
        elif a == "--report":
            opts["report"] = next(it)
        elif opts["out"] is None:
            opts["out"] = a
        else:
            raise SystemExit(f"import_check: unexpected argument {a}")
    if opts["out"] is None:
        raise SystemExit("import_check: usage: ... -- OUT [--stage NAME] [--report FILE]")
    return opts


def load_gltf(path):
    """(json document, list of buffer bytes) of a .gltf (external buffers) or .glb."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"glTF":
        jlen = struct.unpack_from("<I", data, 12)[0]
        doc = json.loads(data[20:20 + jlen])
        rest = 20 + jlen
        blob = b""
        if rest < len(data):
            blen = struct.unpack_from("<I", data, rest)[0]
            blob = data[rest + 8:rest + 8 + blen]
        buffers = []
        for b in doc.get("buffers", []):
            if "uri" in b:
                with open(os.path.join(os.path.dirname(path), b["uri"]), "rb") as f:
                    buffers.append(f.read())
            else:
                buffers.append(blob)
        return doc, buffers
    doc = json.loads(data)
    buffers = []
    for b in doc.get("buffers", []):
        with open(os.path.join(os.path.dirname(path), b["uri"]), "rb") as f:
            buffers.append(f.read())
    return doc, buffers


def read_indices(doc, buffers, accessor):
    a = doc["accessors"][accessor]
    v = doc["bufferViews"][a["bufferView"]]
    dtype = np.dtype(COMPONENT[a["componentType"]]).newbyteorder("<")
    start = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    return np.frombuffer(buffers[v["buffer"]], dtype=dtype, count=a["count"], offset=start).astype(np.int64)


def expected_mesh(doc, buffers, mesh_index):
    """What the file holds and what Blender's importer makes of it, for one glTF mesh."""
    mesh = doc["meshes"][mesh_index]
    gl_vertices = None
    gl_triangles = 0
    bl_vertices = 0
    bl_faces = 0
    materials = []
    for p in mesh["primitives"]:
        count = doc["accessors"][p["attributes"]["POSITION"]]["count"]
        gl_vertices = count if gl_vertices is None else gl_vertices
        if gl_vertices != count:
            gl_vertices = -1  # primitives do not share one vertex set (never from the writer)
        idx = read_indices(doc, buffers, p["indices"])
        tris = idx.reshape(-1, 3)
        gl_triangles += len(tris)
        bl_vertices += len(np.unique(idx))
        ok = (tris[:, 0] != tris[:, 1]) & (tris[:, 1] != tris[:, 2]) & (tris[:, 0] != tris[:, 2])
        real = np.sort(tris[ok], axis=1)
        bl_faces += len(np.unique(real, axis=0)) if len(real) else 0
        if "material" in p:
            name = doc["materials"][p["material"]].get("name", "")
            if name not in materials:
                materials.append(name)
    return {
        "gl_vertices": gl_vertices,
        "gl_triangles": gl_triangles,
        "primitives": len(mesh["primitives"]),
        "bl_vertices": bl_vertices,
        "bl_faces": bl_faces,
        "materials": materials,
    }


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def import_captured(path):
    """Import `path`; (operator result, everything written to fd 1 and 2 meanwhile)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = (os.dup(1), os.dup(2))
    with tempfile.TemporaryFile(mode="w+b") as cap:
        os.dup2(cap.fileno(), 1)
        os.dup2(cap.fileno(), 2)
        try:
            result = bpy.ops.import_scene.gltf(filepath=path, merge_vertices=False)
        except Exception as e:  # the operator raises on a failed import
            lines = str(e).strip().splitlines()
            result = {f"EXCEPTION: {lines[-1] if lines else e}"}
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        cap.seek(0)
        text = cap.read().decode("utf-8", "replace")
    return result, text


def blender_name(name):
    """Blender keeps at most 63 bytes of an ID name (cut on a UTF-8 boundary)."""
    b = name.encode("utf-8")[:63]
    return b.decode("utf-8", "ignore")


def check_file(rel, out, container, members, is_scene):
    """Import one file; return (problems, per-object rows)."""
    problems = []
    rows = []
    path = os.path.join(out, rel)
    doc, buffers = load_gltf(path)
    reset()
    result, text = import_captured(path)
    if result != {"FINISHED"}:
        problems.append(f"import returned {sorted(result)}")
    for line in text.splitlines():
        if WARN.search(line) and not line.startswith("  File "):
            problems.append(f"importer said: {line.strip()}")
    textures = sorted(t["name"] for t in container["textures"])
    objects = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    by_index = {r["index"]: r for r in members}
    seen = set()
    # glTF node per object: match by the node's extras (custom property `source`).
    for obj in sorted(objects, key=lambda o: o.name):
        src = obj.get("source")
        di = src.get("directory_index") if src is not None else None
        r = by_index.get(di)
        if r is None:
            problems.append(f"object {obj.name!r}: source.directory_index {di} is not an expected resource")
            continue
        if di in seen:
            problems.append(f"object {obj.name!r}: resource {di} imported twice")
        seen.add(di)
        want_name = blender_name(r["name"])
        base = re.sub(r"\.\d{3}$", "", obj.name)
        if obj.name != want_name and not (is_scene and base == want_name):
            problems.append(f"object name {obj.name!r} != resource name {want_name!r}")
        node = next(
            n for n in doc["nodes"]
            if n.get("extras", {}).get("source", {}).get("directory_index") == di and "mesh" in n
        )
        e = expected_mesh(doc, buffers, node["mesh"])
        me = obj.data
        got = {"vertices": len(me.vertices), "faces": len(me.polygons)}
        row = {
            "file": rel,
            "resource": r["name"],
            "index": di,
            "manifest": {"vertices": r["vertices"], "triangles": r["triangles"], "submeshes": r["submeshes"]},
            "expected": {"vertices": e["bl_vertices"], "faces": e["bl_faces"]},
            "blender": got,
        }
        rows.append(row)
        if (e["gl_vertices"], e["gl_triangles"], e["primitives"]) != (r["vertices"], r["triangles"], r["submeshes"]):
            problems.append(
                f"{r['name']}: file has {e['gl_vertices']} vertices / {e['gl_triangles']} triangles / "
                f"{e['primitives']} primitives, manifest {r['vertices']} / {r['triangles']} / {r['submeshes']}"
            )
        if (got["vertices"], got["faces"]) != (e["bl_vertices"], e["bl_faces"]):
            problems.append(
                f"{r['name']}: Blender has {got['vertices']} vertices / {got['faces']} faces, "
                f"expected {e['bl_vertices']} / {e['bl_faces']}"
            )
        slots = [s.material.name if s.material else None for s in obj.material_slots]
        want_slots = [blender_name(m) for m in e["materials"]]
        if [re.sub(r"\.\d{3}$", "", s or "") for s in slots] != want_slots:
            problems.append(f"{r['name']}: material slots {slots} != {want_slots}")
        for k, m in enumerate(e["materials"]):
            fallback = re.fullmatch(re.escape(r["name"]) + r"_mat\d+", m)
            if m not in textures and not fallback:
                problems.append(f"{r['name']}: material {m!r} is neither a TX2D name nor the fallback")
        gl_materials = {m.get("name"): m for m in doc.get("materials", [])}
        for s in obj.material_slots:
            if s.material is None:
                continue
            gm = gl_materials.get(re.sub(r"\.\d{3}$", "", s.material.name), {})
            wanted = ("baseColorTexture" in gm.get("pbrMetallicRoughness", {})) + ("emissiveTexture" in gm)
            if wanted:
                images = [
                    n.image for n in (s.material.node_tree.nodes if s.material.node_tree else [])
                    if n.type == "TEX_IMAGE" and n.image is not None
                ]
                loaded = [im for im in images if im.size[0] > 0 and im.size[1] > 0]
                packed = [im for im in loaded if im.packed_file is not None]
                row.setdefault("images", 0)
                row["images"] += len(loaded)
                if len(loaded) < wanted:
                    problems.append(f"{r['name']}: material {s.material.name!r} has {len(loaded)} loaded image "
                                    f"textures, the glTF {wanted}")
                if rel.endswith(".glb") and len(packed) < len(loaded):
                    problems.append(f"{r['name']}: material {s.material.name!r}: image not embedded (glb)")
            extra = s.material.get("textures")
            listed = sorted(extra) if extra is not None else None
            if listed != textures:
                problems.append(f"{r['name']}: material {s.material.name!r} textures extras {listed} != manifest")
    missing = sorted(set(by_index) - seen)
    if missing:
        problems.append(f"resources not imported: {missing}")
    return problems, rows


def main():
    opts = args()
    out = opts["out"]
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    jobs = []  # (rel, container, members, is_scene)
    for c in manifest["containers"]:
        if c["kind"] == "model":
            for r in c["resources"]:
                if r["status"] == "decoded":
                    jobs.append((r["gltf"], c, [r], False))
    stages = [c for c in manifest["containers"] if c["kind"] == "stage" and c.get("scene")]
    if opts["stage"]:
        stages = [c for c in stages if os.path.basename(c["path"]).rsplit(".", 1)[0] == opts["stage"]]
    if not stages:
        raise SystemExit("import_check: no stage scene in the manifest")
    st = stages[0]
    members = [r for r in st["resources"] if r["status"] == "decoded" and not r.get("skybox")]
    jobs.append((st["scene"], st, members, True))

    all_problems = []
    all_rows = []
    for rel, c, members, is_scene in jobs:
        problems, rows = check_file(rel, out, c, members, is_scene)
        all_rows.extend(rows)
        v = sum(r["blender"]["vertices"] for r in rows)
        fcount = sum(r["blender"]["faces"] for r in rows)
        status = "ok" if not problems else "FAIL"
        if is_scene or problems:
            print(f"{status} {rel}: {len(rows)} objects, {v} vertices, {fcount} faces")
        for p in problems:
            print(f"    {p}")
        all_problems.extend(f"{rel}: {p}" for p in problems)

    models = [r for r in all_rows if not r["file"].endswith(jobs[-1][0])]
    scene = [r for r in all_rows if r["file"] == jobs[-1][0]]
    def total(rows, side, key):
        return sum(r[side][key] for r in rows)
    import addon_utils
    import io_scene_gltf2
    version = ".".join(map(str, addon_utils.module_bl_info(io_scene_gltf2)["version"]))
    shim = ", np.bool alias restored for numpy " + np.__version__ if NP_BOOL_SHIM else ""
    print(f"Blender {bpy.app.version_string}, glTF importer {version}{shim}")
    print(f"models: {len(jobs) - 1} files, {len(models)} objects; manifest {total(models, 'manifest', 'vertices')} "
          f"vertices / {total(models, 'manifest', 'triangles')} triangles; expected in Blender "
          f"{total(models, 'expected', 'vertices')} / {total(models, 'expected', 'faces')}; Blender "
          f"{total(models, 'blender', 'vertices')} / {total(models, 'blender', 'faces')}")
    print(f"stage scene {jobs[-1][0]}: {len(scene)} objects; manifest {total(scene, 'manifest', 'vertices')} "
          f"vertices / {total(scene, 'manifest', 'triangles')} triangles; expected in Blender "
          f"{total(scene, 'expected', 'vertices')} / {total(scene, 'expected', 'faces')}; Blender "
          f"{total(scene, 'blender', 'vertices')} / {total(scene, 'blender', 'faces')}")
    print(f"image textures loaded in Blender materials: {sum(r.get('images', 0) for r in all_rows)}")
    differ = [r for r in all_rows if (r["manifest"]["vertices"], r["manifest"]["triangles"])
              != (r["expected"]["vertices"], r["expected"]["faces"])]
    print(f"objects whose Blender counts differ from the manifest's (unreferenced vertices, vertices shared "
          f"across sub-meshes, degenerate or repeated faces): {len(differ)} of {len(all_rows)}")
    if opts["report"]:
        with open(opts["report"], "w") as f:
            json.dump({"problems": all_problems, "objects": all_rows}, f, indent=1)
    print(f"result: {'PASS' if not all_problems else 'FAIL'} ({len(all_problems)} problems)")
    sys.stdout.flush()
    if all_problems:
        sys.exit(1)


main()
