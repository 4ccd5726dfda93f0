"""The workshop checkers' expected answers are Pi's own, on every case of 40 draws.

The checkers compare a reader's function with pisession. Here the same cases (fixed and
drawn, seeds 0-39) go through Pi 0.87.1's code in Node 20 (``conformance/pi.mjs`` loads
it): ``buildSessionContext`` for the settings and the context edits, ``loadEntriesFromFile``
for the lines Pi keeps, ``convertToLlm`` for a bash execution, ``getCurrentSystemPrompt``
and ``getCurrentTools`` for the system prompt, ``AgentSession.getSessionStats`` for total
tokens, ``migrateSessionEntries`` for v1 -> v2 (it goes on to v3, and so does the
comparison) and ``conformance/session-dirs.mjs`` for
the folder name. Skipped when Node or Pi is not installed.
"""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from pisession import workshop
from pisession.migration import migrate_v2_to_v3

REPO = Path(__file__).resolve().parent.parent
SEEDS = range(40)

PI_SCRIPT = r"""
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const pi = await import(pathToFileURL(process.argv[1]).href);
const { AgentSession } = await import(
  pathToFileURL(join(pi.PI_PATHS.agent, "dist", "core", "agent-session.js")).href
);
const sm = pi.sessionManager;
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));

const dir = mkdtempSync(join(tmpdir(), "workshop-pi-"));
const last = (list) => list[list.length - 1];
const out = {
  settings: cases.settings.map((path) => {
    const { thinkingLevel, model } = sm.buildSessionContext(path, last(path).id);
    return { thinkingLevel, model };
  }),
  context_edits: cases.context_edits.map(
    (entries) => sm.buildSessionContext(entries, last(entries).id).messages,
  ),
  read_values: cases.read_values.map((raw, i) => {
    const file = join(dir, `case-${i}.jsonl`);
    writeFileSync(file, Buffer.from(raw, "base64"));
    return sm.loadEntriesFromFile(file);
  }),
  bash_to_llm: cases.bash_to_llm.map((m) => pi.messages.convertToLlm([m])[0] ?? null),
  system_prompt: cases.system_prompt.map((messages) => ({
    text: pi.transcript.getCurrentSystemPrompt(messages),
    tools: pi.transcript.getCurrentTools(messages).map((tool) => tool.name),
  })),
  total_tokens: cases.total_tokens.map(
    (entries) =>
      AgentSession.prototype.getSessionStats.call({
        sessionManager: { getEntries: () => entries },
        getContextUsage: () => undefined,
      }).tokens.total,
  ),
  v1_to_v2: cases.v1_to_v2.map((values) => {
    sm.migrateSessionEntries(values);
    return values;
  }),
};
rmSync(dir, { recursive: true, force: true });
process.stdout.write(JSON.stringify(out));
"""


def _pi_ready() -> str | None:
    """Why the comparison cannot run (None: it can)."""
    if shutil.which("node") is None:
        return "node is not installed"
    found = subprocess.run(
        ["node", "conformance/locate.mjs", "--primary"], cwd=REPO, capture_output=True, text=True
    )
    version = found.stdout.strip()
    located = subprocess.run(
        ["node", "conformance/locate.mjs", version], cwd=REPO, capture_output=True
    )
    return None if located.returncode == 0 else "Pi is not installed (npm ci in conformance/)"


_NOT_READY = _pi_ready()
pytestmark = pytest.mark.skipif(_NOT_READY is not None, reason=str(_NOT_READY))


def _cases(exercise: str) -> list:
    """The fixed cases once, and the drawn cases of every seed."""
    ex = workshop.EXERCISES[exercise]
    cases = list(ex.fixed())
    for seed in SEEDS:
        cases += ex.drawn(random.Random(seed))
    return cases


def _v1_normalized(values: list) -> list:
    """Pi's random ids made ``m0000001``, ``m0000002``, ... in file order (the ids
    pisession's checker gives), wherever they appear."""
    names, counter = {}, 0
    for value in values:
        if value.get("type") != "session":
            counter += 1
            names[value["id"]] = f"m{counter:07d}"
    return [
        {
            k: names.get(v, v) if k in ("id", "parentId", "firstKeptEntryId") else v
            for k, v in value.items()
        }
        for value in values
    ]


@pytest.fixture(scope="module")
def pi_answers(tmp_path_factory):
    cases = {
        name: _cases(name)
        for name in (
            "settings",
            "context_edits",
            "read_values",
            "bash_to_llm",
            "system_prompt",
            "total_tokens",
            "v1_to_v2",
        )
    }
    payload = {
        name: [
            base64.b64encode(c.args[0]).decode() if name == "read_values" else c.args[0]
            for c in found
        ]
        for name, found in cases.items()
    }
    cases_file = tmp_path_factory.mktemp("workshop-pi") / "cases.json"
    cases_file.write_text(json.dumps(payload), encoding="utf-8")
    result = subprocess.run(
        [
            "node",
            "--input-type=module",
            "-e",
            PI_SCRIPT,
            str(REPO / "conformance" / "pi.mjs"),
            str(cases_file),
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPO,
        env={**os.environ, "TZ": "UTC"},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return cases, json.loads(result.stdout)


@pytest.mark.parametrize(
    "exercise",
    [
        "settings",
        "context_edits",
        "read_values",
        "bash_to_llm",
        "system_prompt",
        "total_tokens",
        "v1_to_v2",
    ],
)
def test_expected_answers_are_pis(exercise, pi_answers):
    cases, answers = pi_answers
    pi = answers[exercise]
    expected = [case.expected for case in cases[exercise]]
    if exercise == "v1_to_v2":  # Pi's migrateSessionEntries goes on to v3
        pi = [_v1_normalized(values) for values in pi]
        expected = [migrate_v2_to_v3(values)[0] for values in expected]
    assert len(pi) == len(expected)
    wrong = [
        (case.name, case.args, want, got)
        for case, want, got in zip(cases[exercise], expected, pi)
        if json.loads(json.dumps(want)) != got
    ]
    assert not wrong[:3]


def test_folder_names_are_pis():
    cases = _cases("session_dir_name")
    cwds = [c.args[0] for c in cases]
    table = [
        ["win32", "C:\\", "C:\\Users\\reader", cwd]
        if cwd[1:2] == ":" or cwd.startswith("\\\\")
        else ["posix", "/", "/home/reader", cwd]
        for cwd in cwds
    ]
    result = subprocess.run(
        ["node", "conformance/session-dirs.mjs", "--eval"],
        input=json.dumps({"cases": table}),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    pi = json.loads(result.stdout)
    wrong = [(c.args[0], c.expected, got) for c, got in zip(cases, pi) if c.expected != got]
    assert not wrong[:5]
    assert "--D----" in pi  # the drive's root of the fixed cases
