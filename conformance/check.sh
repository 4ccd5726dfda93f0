#!/usr/bin/env bash
# Conformance re-check: re-record every golden with the pinned Pi 0.87.1 and compare
# byte-for-byte with the committed ones.
#
#   sh conformance/check.sh        (or bash; run from anywhere)
#
# Exit 0: all goldens identical, or the check was skipped (no node >= 20, registry
# unreachable). Exit 1: a mismatch, a missing/orphan golden, or a failing install.
# If PI_ORACLE_DIR is set, Pi is taken from $PI_ORACLE_DIR/node_modules and npm install
# is skipped (offline development); otherwise it is installed into conformance/node_modules.
set -u
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(dirname "$HERE")"
export TZ=UTC

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP conformance re-check: node >= 20 not found"
  exit 0
fi
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "${major:-0}" -lt 20 ] 2>/dev/null; then
  echo "SKIP conformance re-check: node >= 20 not found"
  exit 0
fi

if [ -n "${PI_ORACLE_DIR:-}" ]; then
  echo "conformance re-check: using Pi from PI_ORACLE_DIR=$PI_ORACLE_DIR (npm install skipped)"
else
  if ! command -v npm >/dev/null 2>&1; then
    echo "SKIP conformance re-check: npm registry unreachable (npm not found)"
    exit 0
  fi
  log="$(mktemp)"
  (cd "$HERE" && timeout 180 npm install --ignore-scripts --no-audit --no-fund >"$log" 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    if [ $rc -eq 124 ]; then
      reason="npm install timed out after 180 s"
    else
      reason="$(grep -Eo 'E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH|HOSTUNREACH)[^ ]*|ERR_SOCKET_TIMEOUT|getaddrinfo [A-Z_]+[^ ]*|network [^.]*|certificate [^.]*|SELF_SIGNED[^ ]*|UNABLE_TO_[A-Z_]+' "$log" | head -1)"
    fi
    if [ -n "$reason" ]; then
      echo "SKIP conformance re-check: npm registry unreachable ($reason)"
      rm -f "$log"
      exit 0
    fi
    echo "conformance re-check: npm install failed (exit $rc):"
    tail -20 "$log"
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

dirs=("$REPO/data/conformance/edge" "$REPO/data/conformance/generated")
[ -d "$REPO/data/samples" ] && dirs+=("$REPO/data/samples")
[ -d "$REPO/data/damaged" ] && dirs+=("$REPO/data/damaged")

if ! node "$HERE/record.mjs" --out "$tmp" "${dirs[@]}" 2>"$tmp/record.log"; then
  echo "conformance re-check: record.mjs failed:"
  tail -20 "$tmp/record.log"
  exit 1
fi

files=0
mismatches=0
report=()
note() {
  mismatches=$((mismatches + 1))
  [ ${#report[@]} -lt 10 ] && report+=("$1")
}
for src in "${dirs[@]}"; do
  base="$(basename "$src")"
  while IFS= read -r f; do
    rel="${f#"$src"/}"
    g="${rel%.jsonl}.golden.json"
    files=$((files + 1))
    if [ ! -f "$src/$g" ]; then
      if [ "$base" = "samples" ]; then
        echo "note: no committed golden for data/samples/$rel (not compared)"
        files=$((files - 1))
      else
        note "missing committed golden: ${src#"$REPO"/}/$g"
      fi
    elif ! cmp -s "$tmp/$base/$g" "$src/$g"; then
      note "differs: ${src#"$REPO"/}/$g"
    fi
  done < <(find -L "$src" -name '*.jsonl' | LC_ALL=C sort)
  while IFS= read -r g; do
    rel="${g#"$src"/}"
    [ -f "$src/${rel%.golden.json}.jsonl" ] || note "orphan golden (no .jsonl): ${src#"$REPO"/}/$rel"
  done < <(find -L "$src" -name '*.golden.json' | LC_ALL=C sort)
done

echo "conformance re-check: $files files, $mismatches mismatches"
if [ $mismatches -gt 0 ]; then
  for r in "${report[@]}"; do echo "  $r"; done
  [ $mismatches -gt ${#report[@]} ] && echo "  ... and $((mismatches - ${#report[@]})) more"
  echo "If Pi's behaviour is unchanged, re-record: node conformance/record.mjs data/conformance/edge data/conformance/generated data/samples data/damaged"
  exit 1
fi
exit 0
