# ruff: noqa: E402, B018
# title: The file
# summary: Header, lines and entries of a real Pi session file; what pisession reports about damaged
#   lines; which lines reached the model.

# %% [markdown]
# Pi, the coding agent, writes every conversation to a **session file**: one JSON object
# per line (JSON Lines). The first line is a **header**; every later line is an
# **entry** (a message, a model change, a compaction, ...). This notebook opens real
# files written by Pi 0.87.1 and answers the chapter's question for each of them:
# *which lines reached the model?*
#
# **You will learn**
#
# - what the header and an entry look like, and how entries are numbered (file lines
#   count from 1, the header is line 1);
# - which entry types exist, and that a file may hold lines Pi silently skips;
# - how `pisession` answers "which lines reached the model, and why?" for a whole file.

# %% [setup]
import pisession

# %% [markdown]
# ## The raw lines
#
# `pisession` ships two files written byte for byte by the real Pi 0.87.1 command-line
# agent, and a small hand-made **tour**. `pisession.sample_path(name)` finds them inside
# the installed package, so this works on Colab too.

# %%
print(pisession.sample_names())

# %%
path = pisession.sample_path("pi-0.87.1-a-print-multiturn-tools")
raw = path.read_bytes()
lines = raw.split(b"\n")
print(path.name, "-", len(raw), "bytes,", raw.count(b"\n"), "lines")
for number, line in enumerate(lines[:3], start=1):
    print(f"line {number}: {line[:110].decode()}...")

# %% [markdown]
# Line 1 is the header: `type` is `"session"`, `version` is 3 (the current format),
# `id` is the session id, and `cwd` the folder Pi was started in. The next lines are
# entries. Every entry has a `type`, an `id`, a `parentId` (the entry it follows) and
# an ISO `timestamp`.
#
# ## Loading: header and entries
#
# `pisession.load` reads the file without ever writing to it and keeps every entry as
# the plain dictionary it was in the file.

# %%
session = pisession.load(path)
session.header

# %%
print("entries:", len(session), "(the header is not an entry)")
print("first entry is on line", session.line_of(0))
session.entry(3)

# %% [markdown]
# The entries come back in file order. A user message's `content` is always a list of
# blocks in real files (`{"type": "text", ...}`, images, ...), and the message carries its
# own epoch-millisecond `timestamp` next to the entry's ISO one.
#
# What kinds of entries does this file hold? Entry `type` first, then the message `role`
# for `message` entries:

# %%
from collections import Counter

kinds = Counter(
    e["type"] + (f" ({e['message']['role']})" if e["type"] == "message" else "")
    for e in session.entries
)
for kind, count in sorted(kinds.items()):
    print(f"{count:3}  {kind}")

# %% [markdown]
# Pi 0.87.1 knows eleven entry types: `message`, `model_change`,
# `thinking_level_change`, `usage`, `compaction`, `context_edit`, `branch_summary`,
# `custom`, `custom_message`, `label` and `session_info`. Unknown types are kept and
# contribute nothing. The hand-made tour uses ten of them in 26 entries:

# %%
tour = pisession.load(pisession.sample_path("tour"))
print(sorted(Counter(e["type"] for e in tour.entries).items()))

# %% [markdown]
# ## Lines Pi skips: diagnostics
#
# Pi is lenient: blank lines, lines that are not valid JSON (JavaScript's `JSON.parse`
# rejects `NaN`, which Python's `json` would accept) and lines that parse to `null` are
# skipped **silently**. `pisession` reads exactly like Pi, but records each skipped or odd
# line in `session.diagnostics`, with its line number. Here is a small damaged file made
# in memory:

# %%
damaged = b"\n".join(
    [
        b'{"type":"session","version":3,"id":"demo","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}',
        b'{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:01:00Z",'
        b'"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}',
        b"",
        b'{"type":"message","id":"a1", "parentId":"u1", oops',
        b'{"type":"usage","id":"x1","parentId":"u1","cost":NaN}',
        b"null",
        b'{"type":"label","id":"l1","parentId":"u1","timestamp":"2026-01-01T00:02:00Z",'
        b'"targetId":"u1","label":"start"}',
    ]
)
broken = pisession.loads(damaged, "damaged.jsonl")
print(len(broken), "entries survive")
for d in broken.diagnostics:
    print(f"line {d.line}: {d.kind}: {d.message}")

# %% [markdown]
# ## Four hundred lines: which reached the model?
#
# The chapter opens with a long session file and one question: of all those lines,
# which ones did the model actually see? The answer is not "all of them": branches,
# compactions and context edits decide. Sample **b** is a real Pi session with three
# compactions. `session.fates()` gives every entry one *fate* for the current leaf:

# %%
b = pisession.load(pisession.sample_path("pi-0.87.1-b-rpc-compaction-manual-threshold-overflow"))
fates = b.fates()
reached = [f for f in fates if f.reached_model]
print(f"{len(b)} entries; {len(reached)} reached the model")
print("lines that reached it:", [f.line for f in reached])
print(Counter(f.fate for f in fates))

# %% [markdown]
# `pisession.explain.explain_text` prints the whole account: one line per entry, its
# fate and the reason. (The command line shows the same text with
# `pisession explain FILE`.)

# %%
from pisession.explain import explain_text

print(explain_text(b, width=120))

# %% [markdown]
# Seventeen lines were **summarized**: a compaction replaced them with a summary. One
# assistant message was **omitted** by a context edit. An older compaction sits inside
# the kept range but is only **state**. The later notebooks take each rule in turn.
#
# The same question for the tour, shown as a table (in Jupyter, a `Session` displays as
# HTML):

# %%
tour

# %% [markdown]
# ## Recap
#
# - A session file is JSON Lines: a header (`type: "session"`, `version`, `id`, `cwd`),
#   then one entry per line with `type`, `id`, `parentId`, `timestamp`.
# - `pisession.load(path)` reads it as Pi does (never writing), keeps entries as plain
#   dicts, and lists skipped or odd lines in `session.diagnostics`.
# - `session.fates()` (and `explain_text`) say, for every line, whether it reached the
#   model and why. Next: the tree that `parentId` builds.
