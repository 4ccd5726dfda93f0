"""A ``session_info`` name that is not a string (issue 31, item 2): Pi's
``getSessionName`` throws ``entry.name?.trim is not a function``, and its session list
skips the file; pisession's ``Session.name`` raises the same one-line ``PiFailure``, the
views say so, and ``ls`` skips the file as Pi does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import pisession
from pisession.cli import main
from pisession.files import session_info
from pisession.projection import PiFailure
from pisession.tree import NameNotText, shown_name, trimmed_name

CORPUS = Path(__file__).resolve().parents[1] / "data" / "conformance" / "jsvalues"


@pytest.mark.parametrize("value", [{}, [], ["x"], 0, 42, False, True, {"trim": 1}])
def test_a_name_that_is_not_a_string_throws_as_in_pi(value):
    with pytest.raises(NameNotText):
        trimmed_name(value)


@pytest.mark.parametrize(("value", "name"), [(None, None), (" a ", "a"), ("\ufeff", None)])
def test_strings_and_null(value, name):
    assert trimmed_name(value) == name


def test_the_name_names_the_line_and_what_pi_does():
    session = pisession.load(CORPUS / "session-name-object.jsonl")
    with pytest.raises(PiFailure) as caught:
        session.name  # noqa: B018 (the property is what throws)
    assert str(caught.value) == (
        f"{session.source}:3: the session_info entry's name {{}} is not a string: "
        "Pi 0.87.1's getSessionName throws TypeError: entry.name?.trim is not a function"
    )
    assert "getSessionName throws (line 3)" in shown_name(session)
    session.context()  # Pi's context does not read the name


def test_only_the_latest_session_info_counts():
    assert pisession.load(CORPUS / "session-name-object-then-string.jsonl").name == "Later"


def test_views_say_what_pi_does(capsys, tmp_path):
    path = str(CORPUS / "session-name-array.jsonl")
    for command in (["explain"], ["stats"], ["export", "-o", str(tmp_path / "x.html")]):
        assert main([*command, path]) == 0
    out = capsys.readouterr().out
    assert out.count("getSessionName throws (line 3)") == 2  # explain's and stats' headers
    assert "getSessionName throws" in (tmp_path / "x.html").read_text()


def test_the_session_list_skips_the_file_as_pi_does(tmp_path):
    """Pi's ``buildSessionInfo`` reads every session_info's name; where one throws, its
    catch drops the file from the list (checked in Node: ``SessionManager.list`` lists
    only the file with a null name of these three)."""
    for name in ("session-name-object", "session-name-object-then-string", "session-name-null"):
        shutil.copy(CORPUS / f"{name}.jsonl", tmp_path / f"{name}.jsonl")
    listed = {p.stem for p in tmp_path.iterdir() if session_info(p) is not None}
    assert listed == {"session-name-null"}


LIST_IN_PI = """
const { sessionManager } = await import(process.argv[1]);
const list = await sessionManager.SessionManager.list("/home/dev/js", process.argv[2]);
process.stdout.write(JSON.stringify(list.map((i) => i.path.split("/").pop()).sort()));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_pis_own_list_skips_the_same_files(tmp_path):
    import json
    import subprocess

    for number, name in enumerate(
        ["session-name-object", "session-name-null", "session-name-false"]
    ):
        text = (CORPUS / f"{name}.jsonl").read_text().replace("0000001", f"000000{number}", 1)
        (tmp_path / f"{name}.jsonl").write_text(text)
    pi = Path(__file__).resolve().parents[1] / "conformance" / "pi.mjs"
    done = subprocess.run(
        ["node", "--input-type=module", "-e", LIST_IN_PI, str(pi), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    if done.returncode and "not found" in done.stderr:
        pytest.skip("Pi is not installed (conformance/check.sh installs it)")
    ours = sorted(p.name for p in tmp_path.iterdir() if session_info(p) is not None)
    assert json.loads(done.stdout) == ours == ["session-name-null.jsonl"]
