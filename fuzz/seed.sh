#!/usr/bin/env bash
# Seed the fuzz corpora (fuzz/corpus/<target>/, git-ignored) from a freshly generated
# demo disc plus the hostile fixtures: the smallest container files for `container` and
# `decode`, their XBG7 descriptors for `descriptor`, and the bytes after each index
# marker (where a declaration starts) for `decl`.
# Usage: fuzz/seed.sh [MAX_FILE_BYTES]   (DISC=dir to seed from an existing disc instead)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
max="${1:-40000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$root" && cargo build --quiet --bin xbg7-export)
bin="${CARGO_TARGET_DIR:-$root/target}/debug/xbg7-export"
disc="${DISC:-}"
if [ -z "$disc" ]; then
  disc="$tmp/disc"
  "$bin" synth --out "$disc" --hostile 2>/dev/null
fi

mkdir -p "$here"/corpus/{container,decode,descriptor,decl}
n=0
while IFS= read -r -d '' f; do
  size=$(stat -c %s "$f")
  [ "$size" -le "$max" ] || continue
  [ -L "$f" ] && continue
  name="seed_$n"; n=$((n + 1))
  cp "$f" "$here/corpus/container/$name"
  cp "$f" "$here/corpus/decode/$name"
  # `info` prints "[  i] XBG7 "name" desc 0xOFF+LEN" and, below it, "marker @0xM: ...".
  desc=""
  k=0
  while IFS= read -r line; do
    if [[ "$line" =~ XBG7\ .*desc\ (0x[0-9a-f]+)\+([0-9]+)$ ]]; then
      desc="${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
      read -r off len <<<"$desc"
      dd if="$f" of="$here/corpus/descriptor/${name}_$k" bs=1 skip=$((off)) count="$len" status=none
    elif [[ -n "$desc" && "$line" =~ marker\ @(0x[0-9a-f]+): ]]; then
      read -r off len <<<"$desc"
      m=$((off + ${BASH_REMATCH[1]} + 8))
      dd if="$f" of="$here/corpus/decl/${name}_$k" bs=1 skip="$m" count=780 status=none
      k=$((k + 1))
      desc=""
    fi
  done < <("$bin" info "$f" 2>/dev/null || true)
done < <(find "$disc/hidden/resource3d" -maxdepth 1 -type f -iname '*.xpr' -print0 | sort -z)
for t in container decode descriptor decl; do
  echo "$t: $(ls "$here/corpus/$t" | wc -l) seeds"
done
