"""The session folder name against Pi's own function, for POSIX and Windows path rules.

``data/paths/session-dirs.json`` holds Pi's answers, recorded from Pi's own
``resolvePath`` and folder-name line (``conformance/session-dirs.mjs``; ``check.sh``
re-records it with every checked Pi version). When Node is installed, pisession's port of
Node's path rules is also compared with Node itself on thousands of random paths, and
when Pi is installed, the whole rule with Pi's own code on random working directories.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from pisession.files import (
    RUNNING_PLATFORM,
    default_session_dir,
    resolve_cwd,
    safe_dir_name,
    session_dir_name,
)
from pisession.js import path as nodepath

REPO = Path(__file__).resolve().parent.parent
GOLDEN = json.loads((REPO / "data" / "paths" / "session-dirs.json").read_text(encoding="utf-8"))
CASES = [
    (platform, GOLDEN[platform]["base"], GOLDEN[platform]["home"], cwd, name)
    for platform in ("posix", "win32")
    for cwd, name in GOLDEN[platform]["cases"]
]


@pytest.mark.parametrize(
    ("platform", "base", "home", "cwd", "expected"),
    CASES,
    ids=[f"{c[0]}:{c[3]!r}" for c in CASES],
)
def test_matches_pi(platform, base, home, cwd, expected):
    assert session_dir_name(cwd, platform=platform, base=base, home=home) == expected


def test_the_issue_cases():
    # Before: pisession skipped Pi's resolve step and gave "--home-x---" for "/home/x/".
    assert session_dir_name("/home/x/", platform="posix") == "--home-x--"
    assert session_dir_name("C:\\work\\api", platform="win32") == "--C--work-api--"
    # On Linux or macOS Pi reads a Windows path as a relative one.
    assert session_dir_name("C:\\work\\api", platform="posix", base="/w") == "--w-C--work-api--"
    covered = {(p, c) for p, _, _, c, _ in CASES}
    for case in [
        ("posix", "/home/x/"),  # trailing separator
        ("posix", "/home/x/./y/../z"),  # . and ..
        ("posix", "relative/dir"),
        ("posix", "~/projects/demo"),
        ("win32", "C:\\work\\api\\"),
        ("win32", "C:/work/api"),
        ("win32", "..\\up"),
        ("win32", "~\\proj"),
        ("win32", "/mnt/d/data"),
    ]:
        assert case in covered


def test_defaults_are_this_machine(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    here = session_dir_name(".")
    assert here == safe_dir_name(resolve_cwd(str(tmp_path), RUNNING_PLATFORM))
    home = os.path.expanduser("~")
    assert session_dir_name("~") == safe_dir_name(resolve_cwd(home, RUNNING_PLATFORM))
    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    assert default_session_dir(".", "pi", env).name == here


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="platform must be"):
        session_dir_name("/x", platform="darwin")
    # Pi's normalizePath reads a file:// URL as the path it names (Node's fileURLToPath)
    assert session_dir_name("file:///home/x", platform="posix") == session_dir_name("/home/x")
    with pytest.raises(ValueError, match="File URL host"):
        session_dir_name("file://example.com/x", platform="posix")


# --- live comparisons, when Node (and Pi) are installed ------------------------------

PIECES = ["/", "\\", "//", ".", "..", ":", "C:", "c:", "D:", "~", "a", "b", "mnt", "cygdrive"]
PIECES += ["?", " ", "CON", "ü", "x.y", "C", "\\\\", "/c", "..\\", "./", "~/", "~\\"]


def random_paths(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 7))) for _ in range(count)]


def run_node(script: str, payload: object) -> object:
    result = subprocess.run(
        ["node", "-e", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("=")},
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


NODE_PATH = """
const path = require("node:path");
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const out = JSON.parse(input).map(([flavour, fn, cwd, args]) => {
    process.cwd = () => cwd;
    return path[flavour][fn](...args);
  });
  process.stdout.write(JSON.stringify(out));
});
"""

PORTS = {
    ("posix", "resolve"): lambda cwd, args: nodepath.posix_resolve(*args, cwd=cwd),
    ("posix", "join"): lambda cwd, args: nodepath.posix_join(*args),
    ("posix", "normalize"): lambda cwd, args: nodepath.posix_normalize(*args),
    ("posix", "isAbsolute"): lambda cwd, args: nodepath.posix_is_absolute(*args),
    ("win32", "resolve"): lambda cwd, args: nodepath.win32_resolve(*args, cwd=cwd),
    ("win32", "join"): lambda cwd, args: nodepath.win32_join(*args),
    ("win32", "normalize"): lambda cwd, args: nodepath.win32_normalize(*args),
    ("win32", "isAbsolute"): lambda cwd, args: nodepath.win32_is_absolute(*args),
}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_path_port_matches_node():
    paths = random_paths(20261120, 3000)
    rng = random.Random(7)
    calls = []
    for i, p in enumerate(paths):
        flavour = "win32" if i % 2 else "posix"
        cwd = rng.choice(["C:\\Users\\reader", "D:\\", "\\\\srv\\share\\x"] if i % 2 else ["/w/x"])
        other = paths[(i * 7 + 3) % len(paths)]
        calls += [
            [flavour, "resolve", cwd, [p]],
            [flavour, "resolve", cwd, [other, p]],
            [flavour, "join", cwd, [other, p]],
            [flavour, "normalize", cwd, [p]],
            [flavour, "isAbsolute", cwd, [p]],
        ]
    expected = run_node(NODE_PATH, calls)
    wrong = [
        (call, want, got)
        for call, want in zip(calls, expected)
        if (got := PORTS[call[0], call[1]](call[2], call[3])) != want
    ]
    assert not wrong[:5]


def pi_versions_installed() -> list[str]:
    if shutil.which("node") is None:
        return []
    versions = json.loads((REPO / "pisession" / "pi_versions.json").read_text())["checked"]
    located = []
    for version in versions:
        found = subprocess.run(
            ["node", "conformance/locate.mjs", version], cwd=REPO, capture_output=True, check=False
        )
        if found.returncode == 0:
            located.append(version)
    return located


@pytest.mark.parametrize("version", pi_versions_installed() or ["(none)"])
def test_whole_rule_matches_pi_on_random_cwds(version):
    if version == "(none)":
        pytest.skip("Pi is not installed (sh conformance/check.sh installs it)")
    cwds = random_paths(20260922, 1500)
    cases = [
        ["win32", "C:\\Users\\reader\\work", "C:\\Users\\reader", c]
        if i % 2
        else ["posix", "/home/reader/work", "/home/reader", c]
        for i, c in enumerate(cwds)
    ]
    answers = _eval_with_pi(version, cases)
    wrong = [
        (case, want, got)
        for case, want in zip(cases, answers)
        if (got := session_dir_name(case[3], platform=case[0], base=case[1], home=case[2])) != want
    ]
    assert not wrong[:5]


def _eval_with_pi(version: str, cases: list) -> list:
    result = subprocess.run(
        ["node", "conformance/session-dirs.mjs", "--eval"],
        input=json.dumps({"cases": cases}),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        cwd=REPO,
        env={**os.environ, "PI_ORACLE_VERSION": version},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)
