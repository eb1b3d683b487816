#!/usr/bin/env bash
# Blender import check: export the demo disc (unless OUT is given) and import a sample of
# it with Blender's own glTF importer, headless (see tests/blender/import_check.py and
# docs/blender.md).
#
#   tests/blender/run.sh [OUT]        # OUT: an existing export folder (with manifest.json)
#
# Env: BLENDER (default: blender), XBG7_EXPORT (exporter binary; default: cargo run),
#      BLENDER_INSTALL=1 to apt-get install blender and python3-numpy when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
BLENDER=${BLENDER:-blender}

if ! command -v "$BLENDER" >/dev/null; then
  if [ "${BLENDER_INSTALL:-0}" = 1 ]; then
    echo "== installing blender (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends blender python3-numpy >/dev/null
  else
    echo "blender not found: apt-get install blender python3-numpy (or BLENDER_INSTALL=1)" >&2
    exit 2
  fi
fi
# Debian's Blender uses the system Python; its glTF importer needs numpy.
if ! "$BLENDER" -b --factory-startup --python-exit-code 1 --python-expr "import numpy" >/dev/null 2>&1; then
  if [ "${BLENDER_INSTALL:-0}" = 1 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-numpy >/dev/null
  else
    echo "Blender's Python has no numpy: apt-get install python3-numpy" >&2
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

rc=0
"$BLENDER" -b --factory-startup --python-exit-code 1 \
  --python tests/blender/import_check.py -- "$OUT" || rc=$?
exit "$rc"
