#!/usr/bin/env bash
# Conformance re-check: for every Pi version pisession is checked against (the "checked"
# list of pisession/pi_versions.json), re-record every golden with that version's own code
# and compare with the committed ones, byte for byte apart from the "pi" field that names
# the recording version. Also re-checks the session-folder-name table (data/paths), Pi's
# own rewrite of every legacy file (data/migrated, ids normalised) and Pi's answers at the
# SessionManager level (data/manager: the leaf open picks, its context, listAll and list).
#
#   sh conformance/check.sh                       (or bash; run from anywhere)
#   PI_VERSIONS="1.3.0 1.4.0" sh conformance/check.sh   (other versions, on demand)
#   PI_CHECK_LATEST=1 sh conformance/check.sh     (also npm's newest release, if not listed)
#
# Exit 0: all goldens identical for every version, or skipped (no node >= 20, registry
# unreachable: a `SKIP ...` line says which). Exit 1: a mismatch, a missing/orphan golden,
# a failing install, or conformance/package.json not pinning the primary version.
# Pi <V> is taken from wherever conformance/locate.mjs finds it ($PI_ORACLE_DIR/<V>,
# $PI_ORACLE_DIR, conformance/.pi/<V>, conformance/node_modules); otherwise it is installed:
# the primary version with `npm install` in conformance/ (package.json + lock), every other
# one with `npm install --prefix conformance/.pi/<V>`.
set -u
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

export TZ=UTC
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP conformance re-check: node >= 20 not found"
  exit 0
fi
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(dirname "$HERE")"
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "${major:-0}" -lt 20 ] 2>/dev/null; then
  echo "SKIP conformance re-check: node >= 20 not found"
  exit 0
fi

package="$(node -p 'require(process.argv[1]).package' "$REPO/pisession/pi_versions.json")"
primary="$(node "$HERE/locate.mjs" --primary)"
pinned="$(node -p 'require(process.argv[1]).dependencies[process.argv[2]]' "$HERE/package.json" "$package")"
if [ "$pinned" != "$primary" ]; then
  echo "conformance re-check: conformance/package.json pins $package $pinned, but pisession/pi_versions.json says the primary version is $primary"
  exit 1
fi
versions="${PI_VERSIONS:-$(node "$HERE/locate.mjs" --checked)}"

# npm's newest release: a note when the list does not have it (PI_CHECK_LATEST=1 checks it too).
if [ -z "${PI_VERSIONS:-}" ] && command -v npm >/dev/null 2>&1; then
  latest="$(timeout 30 npm view "$package" version 2>/dev/null | tail -1)"
  if [ -n "$latest" ] && ! printf ' %s ' $versions | grep -qF " $latest "; then
    if [ "${PI_CHECK_LATEST:-}" = 1 ]; then
      versions="$versions $latest"
    else
      echo "NOTE: npm's newest $package is $latest, not in pisession/pi_versions.json (checked: $versions)."
      echo "      Check it with PI_VERSIONS=$latest sh conformance/check.sh, then add it to the list."
    fi
  fi
fi

# install VERSION: puts Pi VERSION where locate.mjs finds it. Prints SKIP and returns 2 when the
# registry cannot be reached, returns 1 on any other failure.
install() {
  local version="$1" log rc reason
  if ! command -v npm >/dev/null 2>&1; then
    echo "SKIP conformance re-check with Pi $version: npm registry unreachable (npm not found)"
    return 2
  fi
  log="$(mktemp)"
  if [ "$version" = "$primary" ]; then
    (cd "$HERE" && timeout 180 npm install --ignore-scripts --no-audit --no-fund >"$log" 2>&1)
  else
    mkdir -p "$HERE/.pi/$version"
    timeout 180 npm install --prefix "$HERE/.pi/$version" --ignore-scripts --no-audit --no-fund \
      "$package@$version" >"$log" 2>&1
  fi
  rc=$?
  if [ $rc -ne 0 ]; then
    [ "$version" = "$primary" ] || rm -rf "${HERE:?}/.pi/$version"
    if [ $rc -eq 124 ]; then
      reason="npm install timed out after 180 s"
    else
      reason="$(grep -Eo 'E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH|HOSTUNREACH)[^ ]*|ERR_SOCKET_TIMEOUT|getaddrinfo [A-Z_]+[^ ]*|network [^.]*|certificate [^.]*|SELF_SIGNED[^ ]*|UNABLE_TO_[A-Z_]+' "$log" | head -1)"
    fi
    if [ -n "$reason" ]; then
      echo "SKIP conformance re-check with Pi $version: npm registry unreachable ($reason)"
      rm -f "$log"
      return 2
    fi
    echo "conformance re-check: npm install of Pi $version failed (exit $rc):"
    tail -20 "$log"
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  return 0
}

dirs=()
for d in "$REPO"/data/conformance/*/; do dirs+=("${d%/}"); done
[ -d "$REPO/data/samples" ] && dirs+=("$REPO/data/samples")
[ -d "$REPO/data/damaged" ] && dirs+=("$REPO/data/damaged")

failed=0
checked=()
for version in $versions; do
  if ! where="$(node "$HERE/locate.mjs" "$version" 2>/dev/null)"; then
    install "$version"
    case $? in
      0) ;;
      2) continue ;;
      *) failed=1; continue ;;
    esac
    if ! where="$(node "$HERE/locate.mjs" "$version")"; then
      failed=1
      continue
    fi
  fi
  echo "== Pi $version (${where#"$REPO"/})"
  start=$SECONDS
  (cd "$REPO" && PI_ORACLE_VERSION="$version" node "$HERE/record.mjs" --check "${dirs[@]#"$REPO"/}") || failed=1
  (cd "$REPO" && PI_ORACLE_VERSION="$version" node "$HERE/session-dirs.mjs" --check) || failed=1
  (cd "$REPO" && PI_ORACLE_VERSION="$version" node "$HERE/record-migrate.mjs" --check) || failed=1
  (cd "$REPO" && PI_ORACLE_VERSION="$version" node "$HERE/record-manager.mjs" --check) || failed=1
  if [ -f "$REPO/data/request/$version.json" ]; then  # what pi-ai's transformMessages sends
    (cd "$REPO" && PI_ORACLE_VERSION="$version" node "$HERE/record-sent.mjs" --check) || failed=1
  fi
  echo "   ($((SECONDS - start)) s)"
  checked+=("$version")
done

if [ $failed -ne 0 ]; then
  echo "conformance re-check FAILED. If Pi's behaviour is unchanged, re-record (see conformance/README.md)."
  exit 1
fi
if [ ${#checked[@]} -gt 0 ]; then
  echo "conformance re-check: identical goldens with Pi ${checked[*]}"
fi
exit 0
