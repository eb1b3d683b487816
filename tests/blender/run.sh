#!/usr/bin/env bash
# Blender import check: export the demo disc (unless OUT is given) and import a sample of
# it with Blender's own glTF importer, headless (see tests/blender/import_check.py and
# docs/blender.md).
#
#   tests/blender/run.sh [OUT]        # OUT: an existing export folder (with manifest.json)
#
# Env: BLENDER (default: blender), XBG7_EXPORT (exporter binary; default: cargo run),
#      BLENDER_INSTALL=1 to run the README's apt-get line when blender or numpy is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
BLENDER=${BLENDER:-blender}

# The README's Blender line, word for word (tests/it/docs_links.rs keeps the two equal):
# Debian's blender package does not pull in numpy, which its glTF importer needs.
README_PACKAGES="blender python3-numpy"
# ... and the README's shim: Debian 12's importer calls np.bool, which numpy 1.24 removed.
README_SHIM="import numpy; numpy.bool = bool"

if ! command -v "$BLENDER" >/dev/null \
  || ! "$BLENDER" -b --factory-startup --python-exit-code 1 --python-expr "import numpy" >/dev/null 2>&1; then
  if [ "${BLENDER_INSTALL:-0}" = 1 ]; then
    echo "== installing as the README says: apt-get install $README_PACKAGES"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086 # the list is words
    apt-get install -y -qq $README_PACKAGES >/dev/null
  else
    echo "blender or its numpy not found: apt-get install $README_PACKAGES (or BLENDER_INSTALL=1)" >&2
    exit 2
  fi
fi

if [ $# -ge 1 ]; then
  OUT=$1
else
  OUT=$(mktemp -d)/out
  trap 'rm -rf "$(dirname "$OUT")"' EXIT
  if [ -n "${XBG7_EXPORT:-}" ]; then
    "$XBG7_EXPORT" demo --out "$OUT" --no-previews --quiet
  else
    cargo run --quiet --release -- demo --out "$OUT" --no-previews --quiet
  fi
fi

# The README's start line, as written, then one import (what a user does next by hand).
# (`sed -n 1p` reads to the end: `head -1` may leave `sort` writing into a closed pipe,
# status 141, which pipefail turns into a failed check.)
first=$(find "$OUT" -mindepth 2 -maxdepth 2 \( -name '*.gltf' -o -name '*.glb' \) | sort | sed -n 1p)
if [ -n "$first" ]; then
  if ! log=$("$BLENDER" -b --factory-startup --python-exit-code 1 --python-expr "$README_SHIM" \
    --python-expr "import bpy, sys; r = bpy.ops.import_scene.gltf(filepath=sys.argv[-1]); assert r == {'FINISHED'}, r" \
    -- "$first" 2>&1); then
    printf '%s\n' "$log" | tail -5 >&2
    echo "the README's Blender start line (--python-expr \"$README_SHIM\") cannot import $first" >&2
    exit 1
  fi
  echo "README's Blender line: imported $first"
fi

rc=0
"$BLENDER" -b --factory-startup --python-exit-code 1 \
  --python tests/blender/import_check.py -- "$OUT" || rc=$?
exit "$rc"
