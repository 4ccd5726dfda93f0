"""``pisession search``: the text of messages is searched (never JSON keys), every hit
carries the fate ``pisession explain`` gives its entry at the default leaf, the byte
filter that skips lines never loses a hit, and bad files are named and skipped."""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from builders import compaction, entry, jsonl, msg

import pisession
from pisession.cli import main
from pisession.folders import prefilter
from pisession.folders.search import (
    Pattern,
    required_text,
    search_file,
    search_folder,
    searched_texts,
)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    p
    for folder in ("conformance/edge", "conformance/generated-1.6", "samples", "damaged", "audit")
    for p in (ROOT / "data" / folder).glob("*.jsonl")
)


def _readable(path: Path) -> bool:
    try:
        pisession.load(path).fates()
    except pisession.PisessionError:
        return False
    return True


READABLE = [p for p in CORPUS if _readable(p)]


def _explain_fates(path: Path, capsys) -> dict[int, tuple[str, bool]]:
    """The fate of every entry by line, from ``pisession explain --json`` (from
    ``Session.fates``, which explain reads, where explain itself fails on the file)."""
    if main(["explain", str(path), "--json"]) != 0:
        capsys.readouterr()
        session = pisession.load(path)
        return {f.line: (f.fate, f.reached_model) for f in session.fates()}
    entries = json.loads(capsys.readouterr().out)["entries"]
    return {e["line"]: (e["fate"], e["reached"]) for e in entries}


@pytest.mark.parametrize("path", READABLE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_hit_has_the_fate_explain_gives(path, capsys):
    hits = search_file(path, Pattern(r"\S", regex=True))  # every entry with any text
    fates = _explain_fates(path, capsys)
    assert all((h.fate, h.reached) == fates[h.line] for h in hits)
    session = pisession.load(path)
    with_text = [
        p for p, e in enumerate(session.entries) if any(t.strip() for _, t in searched_texts(e))
    ]
    assert [h.line for h in hits] == [session.line_of(p) for p in with_text]


PATTERNS = ["the", "THE", 'say "', "\\", "é", "\n", "a b", "tests/", "{", "Ünï"]


def _unfiltered(paths, pattern: Pattern) -> list:
    """Every hit, every entry of every file decoded (no byte search)."""
    return [h for path in paths for h in search_file(path, pattern, prefilter=False)]


@pytest.mark.parametrize("ignore_case", [False, True])
@pytest.mark.parametrize("text", PATTERNS)
def test_the_byte_filter_never_loses_a_hit(text, ignore_case):
    literal = search_folder(READABLE, Pattern(text, ignore_case=ignore_case), workers=1)
    regex = search_folder(READABLE, Pattern(re.escape(text), True, ignore_case), workers=1)
    assert literal.hits == regex.hits == _unfiltered(READABLE, Pattern(text, False, ignore_case))


#: Texts as a file's bytes hold them (a JSON string's inside), the pattern that matches
#: the decoded text, and whether case is ignored: each match is reachable only through
#: an escape or a character that is another one's case, never in the bytes as written.
REACHED_ONLY_DECODED = [
    (rb"the \u0069ndex here", "index", False),  # \uXXXX of a plain letter
    (rb"\u0049NDEX", "index", True),
    (rb"a\/b", "a/b", False),  # \/ is a slash to JSON.parse
    (rb"path a\u002Fb", "A/B", True),
    ("the \u212ait".encode(), "kit", True),  # KELVIN SIGN is k ignoring case
    ("\u017fee".encode(), "SEE", True),  # LATIN SMALL LETTER LONG S is s
    ("\u0130ndex".encode(), "index", True),  # LATIN CAPITAL LETTER I WITH DOT ABOVE
    ("\u00dcN\u00cf".encode(), "\u00fcn\u00ef", True),  # non-ASCII letters, other case
    (rb"caf\u00e9 au lait", "caf\u00e9", False),
    (rb"emoji \ud83d\ude00!", "\U0001f600!", False),  # a surrogate pair
    (rb"\u0063ache miss", r"c\w+e miss", None),  # a regular expression
    (rb"INDEX \u0063ACHE", r"(?i)index (cache)", None),
    (rb"say \u0022hi\u0022", 'say "hi"', False),
]


@pytest.mark.parametrize(("raw", "text", "ignore_case"), REACHED_ONLY_DECODED)
def test_the_byte_filter_finds_what_only_decoding_shows(tmp_path, raw, text, ignore_case):
    """A file with a match that only decoding shows: one line holds the pattern as JSON
    writes it (so the file is read), another only the escaped form (a line the filter
    must keep); a second file holds only the escaped form (a file it must not skip)."""
    pattern = Pattern(text, ignore_case is None, bool(ignore_case))
    plain = pattern.text if not pattern.regex else "INDEX cache miss"
    for lines in (["PLACE", plain], ["PLACE"]):
        entries = [msg(f"u{k}", f"u{k - 1}" if k else None, "user", t) for k, t in enumerate(lines)]
        path = tmp_path / f"{len(lines)}.jsonl"
        path.write_bytes(jsonl(*entries).replace(b'"PLACE"', b'"' + raw + b'"'))
        expected = search_file(path, pattern, prefilter=False)
        assert expected and expected[0].id == "u0", (raw, text)  # the escaped line matches
        assert search_file(path, pattern) == expected
        assert search_folder([path], pattern, workers=1).hits == expected


@pytest.mark.parametrize("ignore_case", [False, True])
def test_escapes_of_other_characters_do_not_open_a_file(tmp_path, monkeypatch, ignore_case):
    """Terminal colours (``\\u001b``) and other escapes that cannot make the pattern's
    characters leave a file unread; one escaped pattern character opens it."""
    import pisession.engine.reader as reader

    readings = []
    read = reader.read_source
    monkeypatch.setattr(reader, "read_source", lambda *a: readings.append(a) or read(*a))
    path = tmp_path / "s.jsonl"
    other = rb"\u001b[32mok\u001b[0m caf\u00e9 \ud83d\ude00 \u0000 \/"
    pattern = Pattern("Index", ignore_case=ignore_case)
    for raw, opened, hits in ((other, 0, 0), (other + rb" \u0049ndex", 1, 1), (rb"\u006E", 1, 0)):
        path.write_bytes(jsonl(msg("u0", None, "user", "PLACE")).replace(b"PLACE", raw))
        readings.clear()
        found = search_file(path, pattern)
        assert (len(readings), len(found)) == (opened, hits), raw
        assert found == search_file(path, pattern, prefilter=False)


def test_workers_give_the_hits_in_the_order_of_the_files(tmp_path):
    names = ["tour.jsonl", "pi-0.87.1-a-print-multiturn-tools.jsonl"]
    paths = []
    for k in range(12):  # sizes in no order, so that the biggest-first batches reorder them
        name = names[k % 2]
        path = tmp_path / f"{k:02}-{name}"
        data = (ROOT / "data/samples" / name).read_bytes()
        path.write_bytes(data + b"\n" * (k * 7919 % 13))
        paths.append(path)
    pattern = Pattern("util", ignore_case=True)
    alone = search_folder(paths, pattern, workers=1)
    assert alone.hits and alone == search_folder(paths, pattern, workers=2)
    assert [h.file for h in alone.hits] == sorted(h.file for h in alone.hits)


@pytest.mark.parametrize("step", [1, 4, 5, 7, 1 << 24])
def test_ignoring_case_finds_the_text_across_the_stretches_made_small(monkeypatch, step):
    monkeypatch.setattr(prefilter, "_FOLD_STEP", step)
    data = b"xINDEXindex InDeX\nINDEindex" * 3
    every = [m.start() for m in re.finditer(b"(?=index)", data.lower())]
    found = list(prefilter._found_folded(data, b"index"))
    # one place per line is enough (and keeps memory flat); each line with one is found
    assert found == sorted(found) and set(found) <= set(every)
    assert {data.count(b"\n", 0, at) for at in found} == {data.count(b"\n", 0, at) for at in every}
    if step == 1 << 24:
        assert len(found) == data.count(b"\n") + 1  # one stretch: exactly one per line


def test_required_text_of_a_regular_expression():
    assert required_text("index (cache) leaf", True, False) == ("index cache leaf", False)
    assert required_text("(?i)Index", True, False) == ("Index", True)
    assert required_text("x(?i:abc)yz", True, False) == ("yz", False)  # own flags: not opened
    assert required_text("ab+cd", True, False) == ("cd", False)
    assert required_text("a|bc", True, False) is None  # no text every match holds
    assert required_text(r"\d+", True, True) is None
    assert Pattern("a|b", regex=True).byte_filter() is None
    assert Pattern("\ufffd").byte_filter() is None  # what a decoder puts for bad bytes


def _tmp_session(tmp_path, *entries) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*entries))
    return path


def test_message_text_is_searched_and_json_keys_are_not(tmp_path):
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "grep zeta"}}
    path = _tmp_session(
        tmp_path,
        msg("u1", None, "user", "alpha here"),
        msg("a1", "u1", "assistant", [{"type": "thinking", "thinking": "beta"}, call]),
        msg("t1", "a1", "toolResult", [{"type": "text", "text": "gamma out"}], toolCallId="c1"),
        entry(
            "message",
            "b1",
            "t1",
            message={
                "role": "bashExecution",
                "command": "echo delta",
                "output": "epsilon",
                "exitCode": 0,
            },
        ),
        compaction("c1", "b1", "u1", summary="eta summary"),
        entry("custom_message", "m1", "c1", customType="x", content="theta", display=True),
        entry("branch_summary", "s1", "u1", fromId="u1", summary="iota"),
    )
    found = {}
    for word in ("alpha", "beta", "zeta", "gamma", "delta", "epsilon", "eta", "theta", "iota"):
        hits = search_file(path, Pattern(word))
        found[word] = [(h.id, h.field) for h in hits]
    assert found["alpha"] == [("u1", "text")]
    assert found["beta"] == [("a1", "thinking")]
    assert found["zeta"] == [("a1", "tool call")]
    assert found["gamma"] == [("t1", "tool result")]
    assert found["delta"] == [("b1", "bash command")]
    assert found["epsilon"] == [("b1", "bash output")]
    assert ("c1", "summary") in found["eta"] and ("m1", "custom message") in found["theta"]
    assert found["iota"] == [("s1", "summary")]
    for key in ("parentId", "role", "toolCallId", "content", "command", "exitCode"):
        assert not search_file(path, Pattern(key)), key


def test_hits_count_matches_and_mark_the_first(tmp_path):
    path = _tmp_session(tmp_path, msg("u1", None, "user", "x" * 80 + " port port\nport"))
    (hit,) = search_file(path, Pattern("port"))
    assert hit.matches == 3
    assert hit.excerpt[hit.start : hit.end] == "port" and "\n" not in hit.excerpt
    assert hit.excerpt.startswith("…") and len(hit.excerpt) <= 2 * 30 + len("port") + 2


def _folder(tmp_path) -> Path:
    for name in ("tour.jsonl", "pi-0.87.1-a-print-multiturn-tools.jsonl"):
        shutil.copy(ROOT / "data/samples" / name, tmp_path / name)
    shutil.copy(ROOT / "data/damaged/binary-garbage.jsonl", tmp_path / "garbage.jsonl")
    return tmp_path


def test_search_json_reached_filters_and_skipped_files(tmp_path, capsys):
    folder = _folder(tmp_path)
    assert main(["search", "util", str(folder), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["skipped"] == 1 and out["files"] == 2
    assert "garbage.jsonl" in captured.err and captured.err.count("\n") == 1
    every = out["hits"]
    assert {h["fate"] for h in every} >= {"kept", "summarized"}
    assert main(["search", "util", str(folder), "--json", "--reached"]) == 0
    reached = json.loads(capsys.readouterr().out)["hits"]
    assert main(["search", "util", str(folder), "--json", "--not-reached"]) == 0
    not_reached = json.loads(capsys.readouterr().out)["hits"]
    assert reached == [h for h in every if h["reached"]]
    assert not_reached == [h for h in every if not h["reached"]]
    assert reached and not_reached


def test_search_text_is_escaped_fits_80_columns_and_exits_1_without_hits(tmp_path, capsys):
    evil = "\x1b[31mred\x1b[0m \u202eevil\u202c " + "long " * 40
    path = _tmp_session(tmp_path, msg("u1", None, "user", evil))
    assert main(["search", "evil", str(path), "--width", "80"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out
    assert all(len(line) <= 80 for line in out.splitlines())
    assert main(["search", "nowhere-to-be-found", str(path)]) == 1
    assert "no hits" in capsys.readouterr().out
    assert main(["search", "(", str(path), "--regex"]) == 2
    assert "not a regular expression" in capsys.readouterr().err


def test_to_records_are_plain_dicts():
    hits = search_file(ROOT / "data/samples/tour.jsonl", Pattern("util"))
    records = hits.to_records()
    assert records and all(type(r) is dict for r in records)
    assert all(v is None or type(v) in (str, int, bool) for r in records for v in r.values())
    assert json.loads(json.dumps(records)) == records


class _Terminal(io.StringIO):
    """stderr as a terminal (or not), its text kept."""

    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("command", ["search", "usage"])
@pytest.mark.parametrize("tty", [True, False])
def test_a_scan_longer_than_a_second_notes_its_progress_on_a_terminal(
    tmp_path, monkeypatch, capsys, command, tty
):
    folder = _folder(tmp_path)
    clock = iter(range(0, 1000, 2))  # each look at the clock: two seconds later
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(sys, "stderr", _Terminal(tty))
    args = [command, *(["util"] if command == "search" else []), str(folder), "--json"]
    assert main(args) == 0
    err = sys.stderr.getvalue()
    word = "searching" if command == "search" else "reading"
    if tty:
        assert f"\r\x1b[Kpisession: {word} 1/3 sessions ..." in err
        assert f"pisession: {word} 3/3 sessions ..." in err
        assert "\r\x1b[K" in err.rsplit("sessions ...", 1)[1]  # erased before the output
    else:
        assert word not in err and "\x1b" not in err
    assert json.loads(capsys.readouterr().out)


def test_no_progress_note_within_the_first_second(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(time, "monotonic", lambda: 5.0)  # the clock stands still
    monkeypatch.setattr(sys, "stderr", _Terminal(True))
    assert main(["search", "util", str(_folder(tmp_path)), "--json"]) == 0
    assert "searching" not in sys.stderr.getvalue()
    capsys.readouterr()
