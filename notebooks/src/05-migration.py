# ruff: noqa: E402
# title: Migration: version 1 and 2 files
# summary: Legacy files brought to version 3 step by step with deterministic ids: v1 ids and
#   parents, firstKeptEntryIndex counting the header, the hookMessage rename; the migration stepper.
#   Exercises: v2 -> v3, v1 -> v2.

# %% [markdown]
# The format has changed twice. **Version 1** files have no ids at all: entries simply
# follow each other. **Version 2** added `id`/`parentId` (the tree). **Version 3**
# renamed one message role. Pi migrates old files when it opens them, in memory, and
# then rewrites the file in place [fact: open-rewrites-in-place]. pisession migrates in
# memory only, step by step, and
# writes only when you ask.
#
# **You will learn**
#
# - what v1 -> v2 does: fresh ids, a parent chain in file order, and the translation of
#   a compaction's `firstKeptEntryIndex` (which counts the **header as index 0**, and
#   is read when Pi reaches the compaction) [fact: v1-compaction-index];
# - what v2 -> v3 does: the `hookMessage` role becomes `custom` **inside message
#   entries** (the `custom` entry type is something else and is not touched);
# - how to get deterministic ids for teaching and tests, and how to step through a
#   migration with the migration stepper.
#
# Two exercises at the end: each migration step, written by you.

# %% [setup]
import pisession  # noqa: I001

# %% [markdown]
# ## A version 1 file
#
# `legacy-v1` is a small hand-written v1 session (checked against Pi 0.87.1's own
# reading). Its entries have no `id` and no `parentId`; the compaction on line 11 says
# which entries it kept with an **index**:

# %%
import json

v1_path = pisession.sample_path("legacy-v1")
lines = v1_path.read_text().splitlines()
for number, line in enumerate(lines, start=1):
    value = json.loads(line)
    if value["type"] == "message":
        what = f"message/{value['message']['role']}"
    elif value["type"] == "compaction":
        what = f"compaction firstKeptEntryIndex={value['firstKeptEntryIndex']}"
    else:
        what = f"{value['type']} version={value.get('version')}"
    print(f"line {number:2}  index {number - 1:2}  {what:40} id={value.get('id')}")

# %% [markdown]
# `firstKeptEntryIndex` is an index into the list of **parsed values with the header at
# index 0**. Index 5 is therefore line 6 (the user's second question), the fifth entry,
# not the sixth. (Blank or malformed lines are not parsed values and do not count.)
#
# ## Step 1: v1 -> v2
#
# `pisession.migrate_v1_to_v2(values, new_id=...)` takes the parsed values (header
# first) and returns new values plus a report of every change. Pi uses random ids (the
# first 8 hex characters of a UUID [fact: entry-ids-8-hex]); `pisession.sequential_ids()`
# gives `m0000001`, `m0000002`, ... so this notebook prints the same ids every time.

# %%
values = [json.loads(line) for line in lines]
v2_values, step = pisession.migrate_v1_to_v2(values, new_id=pisession.sequential_ids())
print(step.summary())
for value in v2_values[1:7]:
    print(f"  id={value['id']}  parentId={value['parentId']!s:9}  {value['type']}")
print("  ...")

# %% [markdown]
# Every entry got an id and is chained to the entry before it in file order (the first
# gets `parentId: null`). Any ids a v1 file already had would be overwritten. The
# compaction's index became an id:

# %%
for change in step.changes:
    if change.field.startswith("firstKept"):
        print(f"value {change.index}: {change.field}: {change.before!r} -> {change.after!r}")
        print(f"   ({change.note})")
compaction = v2_values[10]
print(
    "the kept range now starts at",
    compaction["firstKeptEntryId"],
    "=",
    v2_values[5]["message"]["content"][0]["text"],
)

# %% [markdown]
# Pi migrates entries one at a time, in file order, and reads `values[index]` at the
# moment it reaches the compaction, so what the index names decides what it becomes
# [fact: v1-compaction-index]:
#
# - an earlier entry: that entry's new id (the case above);
# - the compaction itself: the compaction's own new id, so the kept range keeps nothing
#   before it;
# - a later entry that already had an `id` in the file: that old id, which names nothing
#   once the later entry gets its new id;
# - the header, a later entry without an id, or no value at all (past the end, `1.5`,
#   `-1`): no `firstKeptEntryId`, and nothing before the compaction is kept.
#
# In all these cases the index is deleted. Only a **number** is translated (JavaScript's
# `typeof`): a string such as `"1"` or `true` stays in place as `firstKeptEntryIndex`,
# and no `firstKeptEntryId` is added [fact: v1-compaction-index-number-only].
# `tests/test_notebook_facts.py` checks every row against Pi's `migrateSessionEntries`.
#
# ## Step 2: v2 -> v3
#
# Version 3 renamed the `hookMessage` role to `custom`, **inside `message` entries**
# only: a `message` field of any other entry type keeps its role
# [fact: hookmessage-rename-message-entries-only]. The v1 file has one such message (line 9):

# %%
v3_values, step2 = pisession.migrate_v2_to_v3(v2_values)
print(step2.summary())
for change in step2.changes:
    print(f"value {change.index}: {change.field}: {change.before!r} -> {change.after!r}")
print(v3_values[8]["message"]["role"], "-", v3_values[8]["message"]["content"])

# %% [markdown]
# The inputs were not modified: each step returns new values.

# %%
print(
    values[8]["message"]["role"], v2_values[8]["message"]["role"], v3_values[8]["message"]["role"]
)

# %% [markdown]
# ## A version 2 file: the role, not the entry type
#
# `legacy-v2` already has ids and a branch. It holds a `hookMessage` *message* and a
# `custom` *entry* (extension state, which never reaches the model). Only the first is
# renamed:

# %%
v2 = pisession.load(pisession.sample_path("legacy-v2"))
print("original version:", v2.original_version, "-> migrated in memory:", v2.migrated)
print([s.summary() for s in v2.migration_steps])
for fate in v2.fates():
    entry = v2.entry(fate.position)
    role = entry.get("message", {}).get("role", "")
    print(f"line {fate.line:2}  {fate.id}  {entry['type']:12} {role:10} {fate.fate}")

# %% [markdown]
# After the rename the hook's message reaches the model as a `custom` message, which
# `to_llm` turns into a user message. In a file that already says version 3 nothing is
# migrated: a stray `hookMessage` role would stay, and `to_llm` would drop it.

# %%
context = v2.context()
print([m["role"] for m in context.messages])
print([m["role"] for m in context.to_llm()])

# %% [markdown]
# ## Loading does it all
#
# `pisession.load` runs the steps the header's version asks for (a missing version
# means 1). Pass `new_id` for predictable ids; by default ids are random, as in Pi.

# %%
import textwrap

v1 = pisession.load(v1_path, new_id=pisession.sequential_ids())
print("version", v1.original_version, "->", v1.header["version"])
for s in v1.migration_steps:
    print(" ", s.summary())
print(textwrap.fill(str([f.fate for f in v1.fates()]), 88))
print(textwrap.fill(str([m["role"] for m in v1.context().to_llm()]), 88))

# %% [markdown]
# The file itself is untouched. `v1.dumps()` gives the migrated bytes (changed lines
# re-serialised, the rest byte for byte) and `v1.save(path)` writes them atomically, never
# over an existing file unless you pass `overwrite=True`.

# %%
print(v1_path.read_bytes() == "\n".join(lines).encode() + b"\n", "- the sample is unchanged")
migrated_line = v1.dumps().decode().splitlines()[1]
print("line 2 after migration ends with:", migrated_line[-40:])

# %% [markdown]
# The same migration as a picture (`pisession.views.draw.migration_figure`): each row is one
# line of the v1 sample; highlighted rows are what a step changed.

# %%
from pisession.views.draw import migration_figure

migration_figure(v1_path)

# %% [markdown]
# ## The migration stepper
#
# `migration_stepper(path_or_bytes)` shows the file one step at a time (as read, after
# v1 -> v2, after v2 -> v3; a slider moves between them), with the changed fields
# highlighted. (Interactive; the stored output is not compared by the tests.)

# %% tags=nbval-ignore-output
from pisession.views.explorers import migration_stepper

migration_stepper(v1_path)

# %% [markdown]
# ## Recap
#
# - **v1 -> v2**: every entry gets a fresh id and the previous entry as parent;
#   a numeric `firstKeptEntryIndex` (header = index 0) becomes the id of the value it
#   names at that moment (the compaction's own, an old id of a later entry), or nothing,
#   and is deleted; any other `firstKeptEntryIndex` stays.
# - **v2 -> v3**: `hookMessage` -> `custom` inside `message` entries only.
# - pisession migrates in memory, reports every change, takes an id factory
#   (`sequential_ids()`) for reproducible output, and writes only on request.
# - Next: context edits, usage and the system prompt.

# %% [markdown]
# ## Exercises
#
# Write each step in plain Python over the list of parsed values (header first), then run
# the cell: the checker compares your function with pisession on the legacy samples and on
# files **drawn at random for each run**. Return new values (the inputs are copies, so
# changing them is allowed too). Answers and the common mistakes: `07-workshop-solutions`.

# %%
from pisession import workshop

# %% [markdown]
# **1. v2 -> v3.** `v2_to_v3(values)` sets the header's `version` to 3 and renames the
# role `hookMessage` to `custom` in `message` entries.


# %%
def v2_to_v3(values):
    """A version 2 file's values brought to version 3."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_v2_to_v3(v2_to_v3)

# %% [markdown]
# **2. v1 -> v2.** `v1_to_v2(values, new_id)` gives each entry `id = new_id()` and the
# previous entry's id as `parentId` (`None` for the first), sets the header's `version` to
# 2, and turns a compaction's `firstKeptEntryIndex` into `firstKeptEntryId` as in the
# table above: for a number, `values[index].id` as it is when you reach the compaction
# (its own new id, an earlier entry's new id, a later entry's old id), left out when that
# value is the header, missing or has no id, and the index deleted; a non-number index
# is left as it is.


# %%
def v1_to_v2(values, new_id):
    """A version 1 file's values brought to version 2."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_v1_to_v2(v1_to_v2)
