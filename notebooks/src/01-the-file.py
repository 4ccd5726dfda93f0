# ruff: noqa: E402, B018
# title: The file
# summary: Header, lines and entries of a real Pi session file; the lines Pi skips; where session
#   files live; when Pi writes them (0.87.1 and 1.6.0) [fact: file-appears-when]; which lines
#   reached the model; try it on your own session. Exercises: the file name, the folder name,
#   the lines Pi keeps [fact: lines-pi-keeps].

# %% [markdown]
# Pi, the coding agent, writes every conversation to a **session file**: one JSON object
# per line (JSON Lines). The first line is a **header**; every later line is an
# **entry** (a message, a model change, a compaction, ...). This notebook opens real
# files written by Pi 0.87.1 and answers the chapter's question for each of them:
# *which lines reached the model?* (Pi 0.87.1 to 1.6.0: the same format and context
# rules; they differ in *when* they write, see *A file being written*.)
#
# **You will learn**
#
# - what the header and an entry look like, and how entries are numbered (file lines
#   count from 1, the header is line 1);
# - which entry types exist, and that a file may hold lines Pi silently skips
#   [fact: entry-types-unknown-kept] [fact: lines-pi-keeps];
# - where session files live, and how the folder and file names are made;
# - how `pisession` answers "which lines reached the model, and why?" for a whole file.
#
# The notebook ends with three exercises, checked against Pi's rules.

# %% [setup]
import pisession

# %% [markdown]
# ## The raw lines
#
# `pisession` ships sample sessions: files written byte for byte by the real Pi
# command-line agent (named `pi-` and the Pi version that wrote them), a small hand-made
# **tour**, and two legacy files (version 1 and 2, notebook 05). `pisession.sample_names()`
# lists them and `pisession.sample_path(name)` finds one inside the installed package, so
# this works on Colab too.

# %%
print("\n".join(pisession.sample_names()))

# %%
path = pisession.sample_path("pi-0.87.1-a-print-multiturn-tools")
raw = path.read_bytes()
lines = raw.split(b"\n")
print(path.name, "-", len(raw), "bytes,", raw.count(b"\n"), "lines")
for number, line in enumerate(lines[:3], start=1):
    print(f"line {number}: {line[:80].decode()}...")

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
# The entries come back in file order. In the files Pi writes, a user message's `content`
# is a list of blocks (`{"type": "text", ...}`, images, ...); Pi's own message type also
# allows a plain string, and Pi reads such a message the same way, so code that reads
# session files must accept both [fact: user-string-content]. The message carries its own
# epoch-millisecond `timestamp` next to the entry's ISO one.
#
# What kinds of entries does this file hold? Entry `type` first, then the message `role`
# for `message` entries. (Every file Pi's CLI writes starts, after the header and an
# optional `session_info` name, with a `model_change` and a `thinking_level_change`
# [fact: cli-writes-settings-at-start].)

# %%
from collections import Counter

kinds = Counter(
    e["type"] + (f" ({e['message']['role']})" if e["type"] == "message" else "")
    for e in session.entries
)
for kind, count in sorted(kinds.items()):
    print(f"{count:3}  {kind}")

# %% [markdown]
# Pi 0.87.1 (and 1.6.0) knows eleven entry types: `message`, `model_change`,
# `thinking_level_change`, `usage`, `compaction`, `context_edit`, `branch_summary`,
# `custom`, `custom_message`, `label` and `session_info`. Unknown types are kept and
# contribute nothing [fact: entry-types-unknown-kept]. The hand-made tour uses ten of them
# in 26 entries:

# %%
tour = pisession.load(pisession.sample_path("tour"))
for kind, count in sorted(Counter(e["type"] for e in tour.entries).items()):
    print(f"{count:3}  {kind}")

# %% [markdown]
# ## Lines Pi skips: diagnostics
#
# Pi is lenient. It splits the file on `"\n"` only (a U+2028 character inside a string is
# not a line break), and skips **silently** [fact: lines-pi-keeps]:
#
# - blank lines: what JavaScript's `trim()` empties (spaces, tabs, a CR, a no-break
#   space, a BOM, ...);
# - lines that are not valid JSON for JavaScript's `JSON.parse`, which rejects `NaN` and
#   `Infinity` (Python's `json` accepts them);
# - lines whose value is *falsy* in JavaScript: `null`, `false`, `0`, `""`.
#
# Any other value is kept, even a list or a number [fact: lines-pi-keeps]. And the first
# value kept must be the header (`"type": "session"` with a string `id`); otherwise Pi's
# reader returns no entries, and `SessionManager.open` refuses the file ("Session file is
# not a valid pi session") without touching it.
# `pisession` reads exactly like Pi, but records each skipped or odd line in
# `session.diagnostics`, with its line number. Here is a small damaged file made in
# memory:

# %%
import textwrap

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
    print(f"line {d.line}: {d.kind}")
    print(textwrap.fill(d.message, 88, initial_indent="    ", subsequent_indent="    "))

# %% [markdown]
# ## Where session files live
#
# By default Pi keeps one folder per working directory [fact: folder-name-rule]:
#
#     ~/.pi/agent/sessions/--<folder>--/<timestamp>_<session id>.jsonl
#
# - `~/.pi/agent` is Pi's agent folder (`PI_CODING_AGENT_DIR` replaces it).
# - A custom session directory (`--session-dir`, else `PI_CODING_AGENT_SESSION_DIR`, else
#   the `sessionDir` setting) is **not** a new root: Pi writes the files into that folder
#   itself, with no `--<folder>--` subfolder, so every project's sessions sit side by
#   side, and Pi's session list and `--continue` pick out this project's by the header's
#   `cwd` [fact: custom-session-dir-flat].
# - `<folder>` comes from the working directory (the header's `cwd`): Pi resolves it (so
#   a trailing `/` or `\` is gone), removes **one** leading `/` or `\`, and turns every
#   `/`, `\` and `:` into `-`. So `C:\work\api` gives `--C--work-api--` (the chapter
#   prints `--C-work-api--`; notebook 08 shows what Pi itself does) [fact: folder-name-rule].
# - `<timestamp>` is the header's `timestamp` with every `:` and `.` made `-`, followed by
#   `_` and the session id [fact: file-name-timestamp-id].
#
# For sample **a**:

# %%
from pisession import files

header = session.header
print("cwd:      ", header["cwd"])
print("timestamp:", header["timestamp"], " id:", header["id"])
folder = files.session_dir_name(header["cwd"])
file_name = files.session_file_name(header["timestamp"], header["id"])
print(f"stored in  ~/.pi/agent/sessions/{folder}/")
print(f"as        {file_name}")

# %% [markdown]
# ## A file being written
#
# Pi does not write the file when a session starts. Pi 0.87.1 creates it at the first
# **assistant** message: until a reply arrives, the header and the user's prompt exist
# only in memory. Pi 1.6.0 creates it at the first **user** message [fact: file-appears-when].
# A first turn that fails or is aborted still leaves a file in 0.87.1 too: the turn ends in
# an assistant message with `stopReason` `"error"` or `"aborted"`, and Pi saves it like
# any reply [fact: failed-turn-saves-assistant] (sample b, line 28, is one). Only a
# prompt that never reached the point of a reply (Pi killed before it) leaves no 0.87.1 file
# (the author's inference from the two facts). (1.6.0 also writes `pi.virtual-model-state`
# custom entries for virtual models, which 0.87.1 never does; both versions read the same
# format.)
#
# Once the file exists, Pi appends **one line per entry**, as it happens. So a file can be
# read while Pi writes it, and a crash can leave a **torn** last line (half an entry,
# no newline). Pi skips that line when it reads the file, and repairs the end: it appends
# a newline so the next entry starts on a line of its own (the torn text stays). Appending
# has exceptions: opening an existing *empty* file writes a header into it, and opening
# an old-version file **rewrites it in place** with the migrated entries (truncate, then
# write; not atomic, so a crash in between loses the file) [fact: torn-last-line]
# [fact: open-rewrites-in-place]. `pisession` never writes.
# `tests/test_notebook_facts.py` asks Pi 0.87.1 and 1.6.0 themselves each of these facts;
# `[fact: NAME]` names a fact of `data/facts/facts.json`, checked on Pi's recorded answers
# for each checked Pi version (`tests/test_facts.py`).

# %% [markdown]
# ## What current Pi writes
#
# Sample **c** was written by the real Pi 1.6.0 (driven by `conformance/realcli`, which
# records every checked Pi version's CLI). Same format, version 3, but newer messages
# carry more fields: assistant messages and tool results their `durationMs`, an
# assistant message the `thinkingLevel` it ran with and `usage.cost.totalFromProvider`.
# And when a run starts on a branch whose recorded thinking level differs from the live
# one (after a move in the tree, typically), 1.6.0 first appends a `thinking_level_change`
# with the live level, and a `model_change` when the live model is a virtual one
# [fact: record-selection-at-run-start]; 0.87.1 writes neither. Here that is lines 16 and 21.
# The context changes with it: in the same recorded scenario, Pi's context at the file's
# default leaf says `thinkingLevel` `"high"` under 1.6.0 and `"medium"` under 0.87.1
# [fact: thinking-level-after-tree-moves].

# %%
c = pisession.load(pisession.sample_path("pi-1.6.0-c-rpc-tree-thinking-labels"))
for position, entry in enumerate(c.entries):
    message = entry.get("message", {})
    what = message.get("role", entry["type"])
    new = {k: message[k] for k in ("durationMs", "thinkingLevel") if k in message}
    if "usage" in message:
        new["totalFromProvider"] = message["usage"]["cost"]["totalFromProvider"]
    if entry["type"] == "thinking_level_change":
        new["thinkingLevel"] = entry["thinkingLevel"]
    if new:
        fields = ", ".join(f"{key}={value}" for key, value in new.items())
        print(f"line {c.line_of(position):2}  {what:21}  {fields}")

# %% [markdown]
# ## Which lines reached the model?
#
# The chapter opens with a session file of four hundred lines and one question: of all
# those lines, which ones did the model actually see? The answer is not "all of them":
# branches, compactions and context edits decide. Sample **b** is much shorter (31 lines)
# but it is a real Pi session with three compactions. `session.fates()` gives every entry
# one *fate* for the current leaf:

# %%
b = pisession.load(pisession.sample_path("pi-0.87.1-b-rpc-compaction-manual-threshold-overflow"))
fates = b.fates()
reached = [f for f in fates if f.reached_model]
print(f"{len(b)} entries; {len(reached)} reached the model")
print("lines that reached it:", [f.line for f in reached])
print(Counter(f.fate for f in fates))

# %% [markdown]
# `pisession.views.explain.explain_text` prints the whole account: one line per entry, its
# fate and the reason. (The command line shows the same text with
# `pisession explain FILE`.)

# %%
from pisession.views.explain import explain_text

print(explain_text(b, width=100))

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
# ## Try it on your own session
#
# Everything above works on any file Pi wrote. To open one of yours, either set
# `MY_SESSION` below to its path (for example a file under `~/.pi/agent/sessions/`) and
# run the cell again, or pick the file with the upload button (on Colab, a file dialog
# opens when `MY_SESSION` is `"upload"`; in Jupyter, choose the file in the widget, then
# run the next cell). With nothing chosen, the cells use bundled sample **a**.
#
# **Session files hold secrets**: your prompts, every tool's output (file contents,
# command output, environment variables), paths. This notebook reads the file in this
# Python process only; nothing is sent anywhere. On Colab, "upload" copies the file to
# your Colab machine, so prefer a local Jupyter for sensitive sessions.

# %%
from pathlib import Path

from pisession.workshop.own_session import colab_upload, own_session, upload_picker

MY_SESSION = ""  # a path to your .jsonl file, or "upload" on Colab; "" = the sample

uploaded = colab_upload() if MY_SESSION == "upload" else None
picker = upload_picker() if not MY_SESSION else None
picker  # shows the widget


# %%
mine = own_session(MY_SESSION, uploaded, picker)
mine_fates = mine.fates()
print(f"{Path(str(mine.source)).name}: {len(mine)} entries")
print(len(mine.diagnostics), "lines skipped or odd")
print("entry types:", dict(Counter(e["type"] for e in mine.entries)))
print(sum(f.reached_model for f in mine_fates), "entries reached the model")
print(Counter(f.fate for f in mine_fates))

# %% [markdown]
# ## Recap
#
# - A session file is JSON Lines: a header (`type: "session"`, `version`, `id`, `cwd`),
#   then one entry per line with `type`, `id`, `parentId`, `timestamp`.
# - `pisession.load(path)` reads it as Pi does (never writing), keeps entries as plain
#   dicts, and lists skipped or odd lines in `session.diagnostics`.
# - By default files live in `~/.pi/agent/sessions/--<folder>--/` (a custom session
#   directory holds them flat), named after the header's timestamp and session id. Pi
#   0.87.1 creates the file at the first assistant message, 1.6.0 at the first user
#   message [fact: file-appears-when]; then it appends one line per entry
#   [fact: entries-append-order].
# - `session.fates()` (and `explain_text`) say, for every line, whether it reached the
#   model and why. Next: the tree that `parentId` builds.

# %% [markdown]
# ## Exercises
#
# Write each rule in plain Python, then run the checker below it. A checker runs your
# function on the bundled samples, on small files made for the corners, and on cases
# **drawn at random for each run**, compares every answer with pisession (which matches
# Pi 0.87.1) and says what differs, with a hint. Replace each `raise NotImplementedError`
# with your code. Answers and the common mistakes: `07-workshop-solutions`.

# %%
from pisession import workshop

# %% [markdown]
# **1. The file name.** `session_file_name(timestamp, session_id)` returns the name of a
# new session's file: `"2026-11-30T02:48:34.392Z"` and `"0b5e55ed"` give
# `"2026-11-30T02-48-34-392Z_0b5e55ed.jsonl"`.


# %%
def session_file_name(timestamp, session_id):
    """The file name Pi gives a new session."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_session_file_name(session_file_name)

# %% [markdown]
# **2. The folder name.** `session_dir_name(cwd)` returns the folder name for a working
# directory, for Unix and Windows paths alike (`"/home/reader/projects/demo-app/"` ->
# `"--home-reader-projects-demo-app--"`). Resolving only has to drop a trailing separator
# (keep the `\` of a drive's root such as `D:\`).


# %%
def session_dir_name(cwd):
    """The folder name Pi derives from a working directory."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_session_dir_name(session_dir_name)

# %% [markdown]
# **3. The lines Pi keeps (a challenge).** `read_values(raw)` gets a file's bytes and
# returns the parsed values Pi keeps [fact: lines-pi-keeps], header first, following the
# rules of *Lines Pi skips* above (or `[]` when the first value kept is not a header).


# %%
def read_values(raw):
    """The values Pi keeps from a session file's bytes, header first."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_read_values(read_values)
