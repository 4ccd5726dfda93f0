"""Pi versions: the one version list, headers newer than version 3, and files in
pi-agent-core's experimental format 4."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pisession
from pisession.errors import SessionFormatError
from pisession.piversions import checked_range, pi_versions, version_text

REPO = Path(__file__).resolve().parent.parent
EDGE = REPO / "data" / "conformance" / "edge"


def header(version) -> bytes:
    fields = {"type": "session", "id": "s1", "timestamp": "2026-11-20T00:00:00Z", "cwd": "/w"}
    if version is not ...:
        fields["version"] = version
    line = {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-11-20T00:00:01Z"}
    line["message"] = {"role": "user", "content": "hi", "timestamp": 1}
    return (json.dumps(fields) + "\n" + json.dumps(line) + "\n").encode()


@pytest.mark.parametrize("version", [4, 3.5, "10", 99, [4]])
def test_a_header_above_3_is_read_as_is_with_a_diagnostic(version):
    session = pisession.loads(header(version))
    newer = [d for d in session.diagnostics if d.kind == "newer-version"]
    assert [d.line for d in newer] == [1]
    assert json.dumps(version) in newer[0].message and checked_range() in newer[0].message
    assert not session.migration_steps and session.entry(0)["id"] == "u1"
    assert [m["role"] for m in session.context().messages] == ["user"]


@pytest.mark.parametrize("version", [3, "3", 2, 1, None, ..., "abc", 2.5])
def test_no_diagnostic_up_to_version_3(version):
    session = pisession.loads(header(version))
    assert not [d for d in session.diagnostics if d.kind == "newer-version"]


def test_edge_files_above_3_carry_the_diagnostic():
    for name in ("version-4-future", "version-3.5-above-3", "version-string-10"):
        kinds = [d.kind for d in pisession.load(EDGE / f"{name}.jsonl").diagnostics]
        assert kinds[:1] == ["newer-version"], name


def test_agent_core_v4_file_is_named_in_one_line():
    path = EDGE / "agent-core-v4-storage.jsonl"
    with pytest.raises(SessionFormatError) as caught:
        pisession.load(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}:1: ")
    assert "pi-agent-core" in message and "format 4" in message
    assert "not a session header" not in message


def test_other_storage_formats_are_named_too():
    line = b'{"kind":"header","v":5,"id":"x","cwd":"/w"}\n'
    with pytest.raises(SessionFormatError, match="experimental format 5"):
        pisession.loads(line)
    with pytest.raises(SessionFormatError, match="not a session header"):
        pisession.loads(b'{"kind":"other","v":4}\n')


def test_the_version_list_is_one_file_the_scripts_agree_with():
    versions = pi_versions()
    assert versions["primary"] in versions["checked"]
    assert versions["sessionFormat"] == pisession.migration.CURRENT_VERSION
    package = json.loads((REPO / "conformance" / "package.json").read_text())
    assert package["dependencies"][versions["package"]] == versions["primary"]
    oldest, newest = versions["checked"][0], versions["checked"][-1]
    assert version_text() == (f"(session format v3; the rules of Pi {oldest} to {newest})")


def test_goldens_name_a_checked_version():
    checked = set(pi_versions()["checked"])
    for golden in sorted((REPO / "data" / "conformance").glob("*/*.golden.json")):
        assert json.loads(golden.read_text())["pi"] in checked, golden


@pytest.mark.parametrize("doc", ["README.md", "docs/cli.md", "conformance/README.md"])
def test_docs_name_the_checked_range(doc):
    # The docs are prose; this keeps them in step with pisession/pi_versions.json.
    assert checked_range() in (REPO / doc).read_text(encoding="utf-8")


def test_command_line_names_a_newer_version(capsys):
    from pisession.cli import main

    path = str(EDGE / "version-4-future.jsonl")
    assert main(["explain", path, "--no-color"]) == 0
    shown = capsys.readouterr().out
    assert "version     4 (newer than version 3" in shown and "skipped" not in shown
    assert main(["check", path]) == 1
    assert f"{path}:1: newer-version: the header says version 4" in capsys.readouterr().out


def test_command_line_names_an_agent_core_file(capsys):
    from pisession.cli import main

    assert main(["explain", str(EDGE / "agent-core-v4-storage.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pi-agent-core session (experimental format 4" in err
