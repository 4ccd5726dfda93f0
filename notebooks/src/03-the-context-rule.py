# ruff: noqa: E402, E501, B018
# title: The context rule
# summary: From a leaf to the model context: the walk, the settings, what each entry type
#   contributes, the provenance of every message (projection, fates), what the provider
#   receives and what the request carries (pi-ai's last step, beside a request Pi sent);
#   try it on your own session. Exercises: the settings, a bash execution for the model.

# %% [markdown]
# The model never sees the file. Before each request Pi builds a **context**: a list of
# messages plus two settings (thinking level and model) [fact: settings-from-path]. This
# notebook follows Pi
# 0.87.1's rule step by step on the tour.
#
# **You will learn**
#
# - the walk from the leaf to the root, written in five lines of plain Python;
# - where the **thinking level** and the **model** come from (the whole path);
# - what each of the eleven entry types **contributes** (most contribute nothing);
# - the **projection**: every selected entry with the messages it produced, so each
#   context message has a known source; and the **fate** of every line;
# - `to_llm`: context messages turned into provider messages, including the shell
#   commands you ran yourself;
# - the very last step, **what the request carries**: pi-ai leaves failed and aborted
#   replies out and answers unanswered tool calls itself, shown beside a request Pi sent
#   [fact: request-leaves-out-failed-reply].
#
# Two exercises at the end: the settings of a path, and a bash execution for the model.

# %% [setup]
import pisession

REPOSITORY = ""  # the generated setup cell sets it from pyproject.toml

# %% [markdown]
# ## Step 1: walk from the leaf to the root
#
# The rule fits in a few lines. Entries are plain dicts; a later entry with the same
# id wins (that is how Pi's index behaves) [fact: duplicate-id-later-wins].

# %%
import pprint

tour = pisession.load(pisession.sample_path("tour"))


def walk(entries, leaf_id):
    by_id = {e["id"]: e for e in entries}
    path, entry = [], by_id[leaf_id]
    while entry is not None:
        path.append(entry)
        parent = entry.get("parentId")
        entry = by_id.get(parent) if parent else None
    return path[::-1]


mine = [e["id"] for e in walk(tour.entries, "cm000001")]
pprint.pp(mine, width=88, compact=True)
print("same as pisession:", mine == [e["id"] for e in tour.path("cm000001")])

# %% [markdown]
# ## Step 2: the settings
#
# The **thinking level** starts as `"off"` and each `thinking_level_change` on the path
# sets it. The **model** starts as none; each `model_change` sets it, and so does each
# assistant message (its `provider` and `model`) [fact: settings-from-path]. The whole
# path is scanned, even the part a compaction summarized: settings survive compaction.

# %%
for leaf_id in ("a6000001", "cm000001"):
    context = tour.context(leaf_id)
    print(f"{leaf_id}: thinking level {context.thinking_level!r}, model {context.model}")

# %% [markdown]
# The settings come **only from the path**. In this tiny file the user raised the
# thinking level to `"high"` on one branch; the other branch never saw that entry, so
# its context says `"off"`:

# %%
import json

from pisession.build import new_entry, tiny_session

branches = tiny_session(
    new_entry("message", "u1", None, 1, message={"role": "user", "content": "hi"}),
    new_entry("thinking_level_change", "t1", "u1", 2, thinkingLevel="high"),
    new_entry("message", "u2", "t1", 3, message={"role": "user", "content": "think hard"}),
    new_entry("message", "u3", "u1", 4, message={"role": "user", "content": "other branch"}),
    name="thinking-branches.jsonl",
)
print("leaf u2:", branches.context("u2").thinking_level)
print("leaf u3:", branches.context("u3").thinking_level)

# %% [markdown]
# ## Step 3: what each entry contributes
#
# Without a compaction every entry of the path is **selected** (notebook 04 covers the
# compaction case). Each selected entry then contributes zero, one or two messages:
#
# | entry type | contributes |
# |---|---|
# | `message` | its stored message (role user, assistant, toolResult, system, bashExecution, custom, ...; Pi's CLI stores `system` too [fact: cli-message-roles]); a null or missing `content` becomes `""` for a system message and `[]` for user, assistant and toolResult |
# | `custom_message` | a message with role `custom` (extension text meant for the model) |
# | `branch_summary` | a `branchSummary` message, if its summary is not empty |
# | `compaction` (the newest) | its stored system message, if any, then a `compactionSummary` message |
# | `model_change`, `thinking_level_change`, `usage`, `context_edit`, `custom`, `label`, `session_info` | nothing (state only) |
#
# `pisession.rule.entry_messages` is that table as a function. On the path to the
# branch leaf `cm000001`:

# %%
from pisession.rule import entry_messages

for entry in tour.path("cm000001"):
    roles = [m["role"] for m in entry_messages(entry)]
    print(f"{entry['id']}  {entry['type']:22} -> {roles or 'nothing'}")

# %% [markdown]
# ## Step 4: the projection
#
# Pi 0.87.1 (and 1.6.0) has a function for exactly the chapter's question,
# `buildSessionProjection`: every selected entry paired with the messages it contributed
# (after context edits) [fact: session-projection-exported].
# `session.projection(leaf_id)` is the same, plus *why* each entry was selected.

# %%
projection = tour.projection("cm000001")
for item in projection.entries:
    roles = [m["role"] for m in item.messages]
    print(f"line {item.line:2}  {item.id}  {item.why:12}  -> {roles or 'nothing'}")

# %% [markdown]
# So every message of the context has a known source line. Message 8 of the context,
# for example:

# %%
source = projection.source_of(8)
print(
    "message 8 is a",
    projection.messages[8]["role"],
    "message from line",
    source.line,
    f"({source.id})",
)

# %% [markdown]
# In Jupyter a projection displays as a table (here asked for explicitly, as HTML only):

# %%
from IPython.display import display

display(projection, include=["text/html"])

# %% [markdown]
# The whole rule in one picture, drawn from the tour by `pisession.views.draw.pipeline_figure`:
# every entry of the file, the path to the leaf, the selection, the messages after
# context edits, and what `convertToLlm` hands the provider. Colours are fates.

# %%
from pisession.views.draw import pipeline_figure

pipeline_figure(tour)

# %% [markdown]
# ## The fate of every line
#
# The projection lists what was selected. `session.fates(leaf_id)` covers **every**
# entry of the file, selected or not, with one of nine fates: `sent`, `kept`,
# `compaction`, `summarized`, `dropped-system`, `edited`, `omitted`, `state-only`,
# `off-path`.

# %%
for fate in tour.fates("cm000001"):
    mark = "reached" if fate.reached_model else "-      "
    print(f"line {fate.line:2}  {fate.id}  {mark}  {fate.fate:10}  {fate.reason}")

# %% [markdown]
# ## Step 5: to the provider
#
# The context is still in Pi's own message types. Just before a request, Pi's
# `convertToLlm` turns them into what a provider understands [fact: convert-to-llm-roles]:
#
# - `system`, `user`, `assistant` and `toolResult` pass through unchanged
#   [fact: convert-to-llm-roles] [fact: user-string-content];
# - a `custom` message becomes a **user** message with its content as written (a string
#   becomes one text block) [fact: convert-to-llm-roles];
# - a branch summary and a compaction summary become user messages that wrap the summary
#   in Pi's fixed words [fact: convert-to-llm-roles];
# - a `bashExecution` message (a command you ran yourself with `!`) becomes a user message
#   describing the command and its output, or is **dropped** when `excludeFromContext` is
#   set (a command run with `!!`) [fact: bash-excluded-dropped];
# - any other role is dropped [fact: convert-to-llm-roles].
#
# `system` messages pass through `convertToLlm`, but that is not yet what the model sees:
# pi-ai, the provider layer, asks whether the model accepts system messages in the middle
# of a conversation. If it does not (Google and Bedrock never; OpenAI-compatible and
# Anthropic models by their `supportsMidConvoSystemMessages` setting), every system
# message is merged into **one leading system prompt** (their texts joined by a blank
# line, sections patched by name) and the later ones are removed from the conversation.
# `tests/test_notebook_facts.py` checks this with pi-ai's own `resolveTranscript`.
#
# For the tour's branch leaf:

# %%
context = tour.context("cm000001")
llm = context.to_llm()
pprint.pp([m["role"] for m in context.messages], width=88, compact=True)
pprint.pp([m["role"] for m in llm], width=88, compact=True)
print()
print(llm[5]["content"][0]["text"])

# %% [markdown]
# ### Bash executions
#
# The tour has no shell command of yours, so here are two messages as Pi stores them. The
# user message Pi makes says `Ran` and the command, then the output in a code fence (or
# `(no output)`), then `(command cancelled)` for a cancelled command or `Command exited
# with code N` for a non-zero code (never both), then a note with the full output's path
# when the output was truncated [fact: bash-execution-text].

# %%
from pisession import to_llm
from pisession.workshop import bash_cases

examples = bash_cases()
for case in (examples[1], examples[4], examples[-1]):
    (message,) = case.args
    pprint.pp({k: v for k, v in message.items() if k != "timestamp"}, width=88)
    print("  ->", end=" ")
    pprint.pp(to_llm([message]) or "dropped", width=88)

# %% [markdown]
# ## Step 6: what the request carries
#
# One more step runs before every request, inside pi-ai: each provider API (Anthropic,
# OpenAI's two APIs, Google, Bedrock, Mistral) passes the provider messages through
# `transformMessages` for the **target model**, the one being asked. It
#
# - **leaves out every failed or aborted reply** (`stopReason` `"error"` or `"aborted"`):
#   an incomplete turn is never replayed, although Pi's projection keeps it
#   [fact: request-leaves-out-failed-reply];
# - **answers every tool call left without a result** with a tool result of its own,
#   `"No result provided"` (`isError: true`) [fact: request-leaves-out-failed-reply],
#   before the next assistant or user message
#   or at the end (a system message between a call and its results waits until after
#   them); its `timestamp` is `Date.now()` at the moment of the request, the one value no
#   reader of the file can know (`now=` gives it);
# - rewrites **replies from another model** (another provider, API or model id): thinking
#   signatures, redacted thinking and tool-call `thoughtSignature`s go; readable thinking is
#   sent as text (Pi 0.87.1) or dropped (Pi 1.6.0); tool-call ids take the target API's
#   shape;
# - replaces **images** with a placeholder text for a model that cannot see them.
#
# `pisession.request` is this step as one readable module, checked against pi-ai's own
# code of both versions on the whole conformance corpus; `session.sent(leaf)` answers it
# (the model in force at the leaf, unless you name another). So "which lines reached the
# model" has a nuance: a reply the projection keeps may never be sent.
#
# Here is a session written by Pi 1.6.0's real CLI against a fake provider that kept
# every request it received (`data/realcli`, recorded by `conformance/realcli`). One
# request failed (an HTTP 400, not retried), then the user pressed Escape twice (two
# aborted replies, one of them after starting two tool calls) and asked "Which option?".
# Beside the messages of Pi's projection at that point: pisession's answer, and the
# request Pi sent (system messages left out of all three):

# %%
from pathlib import Path

from pisession.workshop.repository import repository_file

REALCLI = "data/realcli/1.6.0/rpc-retries"
RECORDED = (  # the file's name when this notebook was built
    "sessions/--home-reader-projects-demo-app--/"
    "2026-12-06T01-28-35-596Z_01a248f7-980b-775d-b9a2-0197a3aa8184.jsonl"
)

found = sorted(Path("..", REALCLI, "sessions").rglob("*.jsonl"))  # in a checkout
session_file = found[0].relative_to(Path("..", REALCLI)).as_posix() if found else RECORDED
recorded = pisession.loads(repository_file(f"{REALCLI}/{session_file}"), "rpc-retries.jsonl")
requests = [
    json.loads(line)["body"] for line in repository_file(f"{REALCLI}.requests.jsonl").splitlines()
]
asked = next(
    e
    for e in recorded.entries
    if e.get("message", {}).get("content") == [{"type": "text", "text": "Which option?"}]
)
reply = next(e for e in recorded.entries if e.get("parentId") == asked["id"])  # the answer to it
before = reply["parentId"]  # the request was made at the reply's parent
request = next(r for r in requests if r["messages"][-1]["content"][0]["text"] == "Which option?")


def short(message):
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(b.get("text") or f"[{b.get('type')}]" for b in content)
    return f"{message['role']}: {(content or '')[:20]}"


projected = [m for m in recorded.context(before).to_llm() if m["role"] != "system"]
sent = [m for m in recorded.sent(before, now=0).messages if m["role"] != "system"]
on_the_wire = [m for m in request["messages"] if m["role"] not in ("system", "developer")]
print(f"{'Pi projection (to_llm)':34}{'pisession: sent':34}request Pi sent")
for i in range(max(len(projected), len(sent))):
    cells = [short(col[i]) if i < len(col) else "" for col in (projected, sent, on_the_wire)]
    print(f"{cells[0]:34}{cells[1]:34}{cells[2]}")
print(
    len(projected),
    "messages in the projection;",
    len(sent),
    "sent;",
    len(on_the_wire),
    "in the request",
)
assert [short(m) for m in sent] == [short(m) for m in on_the_wire], (
    "pisession differs from Pi's request"
)

# %% [markdown]
# The fates say it too: the failed and the two aborted replies are `left-out` (in the
# projection, not in the request), and they do not count among the entries that reached
# the model. (`tests/test_sent_requests.py` compares every request of these recordings,
# both Pi versions, message by message; `pisession context FILE --sent` prints them.)

# %%
import textwrap

for fate in recorded.fates(before):
    if fate.fate == "left-out":
        print(f"line {fate.line:2}  {fate.id}  {fate.fate}")
        print(textwrap.fill(fate.reason, 88, initial_indent="    ", subsequent_indent="    "))
print(recorded.fates(before).reached(), "entries reached the model")

# %% [markdown]
# (Pi may still change this list at request time through extension hooks, the `context`
# event of `emitContext` in `core/extensions/runner.js`: the author's explanation, from
# Pi's code; pisession reconstructs what the file determines.)
#
# `context.to_dict()` has exactly the JSON shape of Pi's `buildSessionContext`. The
# repository keeps Pi's own output for the real sample **a** next to it; the two agree:

# %%
a = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
ours = json.loads(a.context().to_json())
pi_output = pisession.sample_path("pi-0.87.1-a-print-multiturn-tools").with_suffix(".context.json")
if pi_output.exists():
    print("identical to Pi's buildSessionContext:", ours == json.loads(pi_output.read_text()))
else:
    print("(Pi's recorded output is only in a repository checkout)")
print(len(ours["messages"]), "messages;", {k: v for k, v in ours.items() if k != "messages"})

# %% [markdown]
# ## The whole rule, in one module
#
# Everything above is one short module of the package, `pisession.rule`: the five steps
# as functions over a plain list of entries, in about the length of Pi's own
# `buildSessionContext`, with no cache and no shortcut. Here is each step's source, run
# on the tour at its default leaf (the last entry in file order: `leaf=None`).

# %%
import inspect

from pisession import rule

entries = rule.load_entries(pisession.sample_path("tour"))
leaf = None


def show(function):
    """A function of pisession.rule without its docstring, as it is written."""
    source = inspect.getsource(function)
    doc = function.__doc__
    print(source.replace(f'    """{doc}"""\n', "") if doc else source)


show(rule.path)
walked = rule.path(entries, leaf)
print("path:")
pprint.pp([entries[p]["id"] for p in walked], width=88, compact=True)

# %%
show(rule.settings)
print(rule.settings(entries, walked))

# %% [markdown]
# Step 3, the selection, is where compaction acts: the compaction, its kept range (system
# messages dropped) and what follows. Notebook 04 is about it.

# %%
show(rule.selection)
chosen = rule.selection(entries, walked)
print("selected:")
pprint.pp([entries[p]["id"] for p in chosen.positions], width=88, compact=True)

# %%
show(rule.context_edits)
print("edited:", list(rule.context_edits(entries, chosen)))

# %%
show(rule.project)
projected = rule.project(entries, leaf)
print(len(projected.messages), "messages, from")
pprint.pp([entries[p]["id"] for p in projected.selection.positions], width=88, compact=True)

# %%
show(rule.projected_entry)

# %% [markdown]
# `session.context()` answers the same through pisession's fast engine
# (`pisession.engine.context`), which reads a 290 MB file in a few seconds by decoding only the
# entries that decide the answer. The tests hold the two equal on every file of the
# conformance corpus and on thousands of generated sessions; here, on the tour:

# %%
fast = tour.projection()
print("same as the fast engine:", fast.selection == projected.selection)
print("same messages:", fast.messages == projected.messages)

# %% [markdown]
# ## Try it on your own session
#
# Set `MY_SESSION` to the path of one of your own session files (for example one under
# `~/.pi/agent/sessions/`), or choose one with the upload widget and run the next cell
# (on Colab, set `MY_SESSION = "upload"` for Colab's file dialog). With nothing chosen,
# the cells use bundled sample **a**. Session files hold secrets (prompts, tool output,
# environment variables): the file is read by this Python process only and nothing is
# sent anywhere; on Colab, "upload" copies it to your Colab machine.

# %%
from pisession.workshop.own_session import colab_upload, own_session, upload_picker

MY_SESSION = ""  # a path to your .jsonl file, or "upload" on Colab; "" = the sample

uploaded = colab_upload() if MY_SESSION == "upload" else None
picker = upload_picker() if not MY_SESSION else None
picker  # shows the widget


# %%
from collections import Counter

mine = own_session(MY_SESSION, uploaded, picker)
mine_context = mine.context()
print(len(mine), "entries;", len(mine_context.messages), "messages in the context at the leaf")
print("roles sent to the provider:")
pprint.pp([m["role"] for m in mine_context.to_llm()], width=88, compact=True)
print(Counter(f.fate for f in mine.fates()))

# %% [markdown]
# ## Recap
#
# - **Path**: follow `parentId` from the leaf; read it root first.
# - **Settings**: thinking level and model from the whole path, later entries win.
# - **Contribution**: messages, custom messages, non-empty branch summaries and the
#   newest compaction contribute; the other seven types are state only.
# - **Projection** (`session.projection`) pairs each selected entry with its messages;
#   **fates** (`session.fates`) explain every line; `to_llm()` is the provider view, where
#   bash executions become user messages (or are dropped when excluded).
# - **The request** (`session.sent`) is pi-ai's last step: failed and aborted replies left
#   out (fate `left-out`), unanswered tool calls answered with `"No result provided"`.
# - Next: what a compaction changes.

# %% [markdown]
# ## Exercises
#
# Write each rule in plain Python, then run the cell: the checker compares your function
# with pisession on the samples, on small files for the corners and on cases **drawn at
# random for each run**, and says what differs, with a hint. Answers and the common
# mistakes: `07-workshop-solutions`.

# %%
from pisession import workshop

# %% [markdown]
# **1. The settings.** `settings(path)` gets the entries of one path, root first, and
# returns `{"thinkingLevel": ..., "model": ...}` as Pi's context reports them: the level
# starts as `"off"`, the model as `None`; `model` is `{"provider": ..., "modelId": ...}`
# [fact: settings-from-path].


# %%
def settings(path):
    """The thinking level and model in force at the end of a path."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_settings(settings)

# %% [markdown]
# **2. A bash execution for the model.** `bash_to_llm(message)` gets a `bashExecution`
# message and returns the provider message (`{"role": "user", "content": [one text
# block], "timestamp": ...}`), or `None` when Pi drops it [fact: bash-excluded-dropped].
# The text is
# ``"Ran `COMMAND`\n"`` and then, in order: ```` "```\n" + output + "\n```" ```` or
# `"(no output)"`; `"\n\n(command cancelled)"` if cancelled, otherwise
# `"\n\nCommand exited with code N"` for a code that is neither 0 nor None;
# `"\n\n[Output truncated. Full output: PATH]"` when `truncated` and `fullOutputPath`
# are both set [fact: bash-execution-text].


# %%
def bash_to_llm(message):
    """The provider message for a bashExecution message, or None."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_bash_to_llm(bash_to_llm)
