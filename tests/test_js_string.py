"""JavaScript's ToString of JSON values (``jsvalue.js_string``), the one conversion every
place where Pi turns a value into text goes through: values as Node converts them, and
the one-line ``PiFailure`` where Pi throws (issue 31, item 1)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import pisession
from pisession.cli import main
from pisession.js.date import DateConversionError, js_time_ms
from pisession.js.value import ToPrimitiveError, js_string
from pisession.projection import PiFailure

CORPUS = Path(__file__).resolve().parents[1] / "data" / "conformance" / "jsvalues"

THROWS = "throws"
#: (JSON text, what String(value) gives in Node 20, or THROWS)
CASES = [
    ('{"toString":1}', THROWS),
    ('{"toString":null,"valueOf":2}', THROWS),
    ('{"valueOf":1}', "[object Object]"),
    ('{"toString":{}}', THROWS),
    ('[1,{"toString":1}]', THROWS),
    ('[[[{"toString":"x"}]]]', THROWS),
    ("[1,{}]", "1,[object Object]"),
    ('[[{"valueOf":1}]]', "[object Object]"),
    ("[null,[null],[1,[2,[3]]],true]", ",,1,2,3,true"),
    ('{"__proto__":{"toString":1}}', "[object Object]"),
    ('{"length":2,"join":1}', "[object Object]"),
    ("[]", ""),
    ("[[]]", ""),
    ("-0", "0"),
    ("1e21", "1e+21"),
    ("123456789012345678901", "123456789012345680000"),
    ("0.000001", "0.000001"),
    ("1e-7", "1e-7"),
    ("1e400", "Infinity"),
    ("null", "null"),
    ("false", "false"),
]

IN_NODE = """
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((text) => {
  try { return String(JSON.parse(text)); } catch (e) { return "throws"; }
})));
"""


def converted(text: str) -> str:
    try:
        return js_string(json.loads(text))
    except ToPrimitiveError:
        return THROWS


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_to_string_as_javascript(text, expected):
    assert converted(text) == expected


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_table_is_nodes_own():
    texts = [text for text, _ in CASES]
    done = subprocess.run(
        ["node", "-e", IN_NODE], input=json.dumps(texts), capture_output=True, text=True
    )
    assert json.loads(done.stdout) == [expected for _, expected in CASES]


def test_dates_convert_through_the_same_function():
    with pytest.raises(DateConversionError):
        js_time_ms([1, {"toString": 1}])
    assert js_time_ms([2026, {"valueOf": 1}]) != js_time_ms([2026, {"valueOf": 1}])  # NaN


def test_a_bash_command_without_a_primitive_names_its_line():
    session = pisession.load(CORPUS / "tostring-bash-command-object.jsonl")
    session.context().to_dict()  # the context is built, as Pi builds it
    with pytest.raises(PiFailure, match=r"tostring-bash-command-object\.jsonl:3: entry 'b1'"):
        session.context().to_llm()


def test_a_section_without_a_primitive_names_the_message_that_set_it():
    session = pisession.load(CORPUS / "tostring-system-section-array.jsonl")
    prompt = session.system_prompt()
    assert prompt.to_message()["sections"]["a"] == "A"
    with pytest.raises(PiFailure, match=r"section-array\.jsonl:2: .*section 'b'.*TypeError"):
        prompt.text  # noqa: B018 (the property is what throws)


def test_siblings_with_an_unconvertible_timestamp_stop_the_tree(capsys):
    path = CORPUS / "tostring-sibling-timestamp.jsonl"
    assert main(["tree", str(path)]) != 0
    error = capsys.readouterr().err.strip().splitlines()[-1]  # (tree warns once before)
    assert error.startswith("pisession: error: ")
    assert "tostring-sibling-timestamp.jsonl:4:" in error and "getTree throws" in error
    assert main(["context", str(path)]) == 0  # Pi's context does not sort siblings


def test_the_cli_says_what_pi_does_in_one_line(capsys):
    assert main(["context", "--llm", str(CORPUS / "tostring-bash-output-array.jsonl")]) != 0
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.strip().splitlines()
    assert "tostring-bash-output-array.jsonl:3:" in line
    assert "convertToLlm throws TypeError: Cannot convert object to primitive value" in line
