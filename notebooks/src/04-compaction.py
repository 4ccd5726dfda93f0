# ruff: noqa: E402
# title: Compaction
# summary: The kept range, retain-none compactions, three compactions in a real Pi file, the
#   optional system checkpoint and dropped system messages (a compaction without one, checked
#   against Pi); the compaction stepper. Exercises: the kept range, the roles of a context.

# %% [markdown]
# When a conversation grows too long for the model, Pi **compacts** it: a model writes
# a summary of the older part, and Pi appends a `compaction` entry. Nothing is deleted
# from the file. What changes is the rule that builds the context.
#
# **You will learn**
#
# - the **kept range**: which entries before a compaction still reach the model
#   (from `firstKeptEntryId` on), and that system messages inside it are **dropped**;
# - the compaction's own optional **system checkpoint** (`systemMessage`) and summary, and
#   what the context looks like without a checkpoint;
# - **retain-none** compactions, which keep nothing before them;
# - how several compactions stack up in a real Pi 0.87.1 file, where a later one keeps
#   entries from before an earlier one;
# - how to step through a file's compactions with the compaction stepper.
#
# Two exercises at the end: the kept range, and the roles of a context.

# %% [setup]
import pisession

REPOSITORY = ""  # the generated setup cell sets it from pyproject.toml

# %% [markdown]
# ## A compaction entry
#
# The tour has one compaction, `cp000001` on line 25:

# %%
tour = pisession.load(pisession.sample_path("tour"))
compaction = tour.entry(tour.position_of("cp000001"))
for key, value in compaction.items():
    shown = repr(value)
    print(f"{key:17} {shown[:90]}{'...' if len(shown) > 90 else ''}")

# %% [markdown]
# - `summary`: the text that replaces the older part of the conversation;
# - `firstKeptEntryId`: the first entry *before* the compaction that is still sent as is;
# - `tokensBefore`: the context size when it was compacted;
# - `systemMessage` (optional): a **checkpoint** of the system prompt and tools at
#   compaction time. Pi writes one only when the context it compacts has a system prompt.
#
# ## The rule
#
# Take the **newest** compaction C on the path. The selected entries are, in order:
#
# 1. C itself, which contributes its system checkpoint (if any) and a summary message;
# 2. the entries before C, starting at the one whose id is `C.firstKeptEntryId`,
#    **skipping every system message**: that is the **kept range**;
# 3. every entry after C.
#
# Everything before the kept range is **summarized**: it reached the model only through
# the summary.

# %%
projection = tour.projection()
for item in projection.entries:
    roles = [m["role"] for m in item.messages]
    print(f"line {item.line:2}  {item.id}  {item.why:30} -> {roles or 'nothing'}")

# %% [markdown]
# The compaction comes first although it sits on line 25: its summary has to open the
# context. The kept range runs from `u2000001` (line 11) to `a5000001` (line 24), but
# line 22 is missing: it is the system message `sys00002`.
#
# ## Dropped system messages and the system checkpoint
#
# Pi's `buildContextEntries` skips **every** system message in the kept range. It does not
# look at the compaction to decide: the rule is unconditional. What stands in for those
# messages is the compaction's own `systemMessage`, when it has one: the prompt and tools
# as they were at compaction time, replayed from the context that was compacted. That
# checkpoint opens the context. A system message *after* the compaction is kept.

# %%
for fate in tour.fates():
    if fate.fate in ("dropped-system", "compaction"):
        entry = tour.entry(fate.position)
        print(f"line {fate.line}  {fate.id}  {entry['type']:10}  {fate.fate}")

# %%
checkpoint = compaction["systemMessage"]
print("sections:", list(checkpoint["sections"]))
print("tools:   ", [t["name"] for t in checkpoint["toolsAdded"]])
print()
print(tour.system_prompt().text)

# %% [markdown]
# The dropped message `sys00002` had removed the `read` tool and added a rule; in the tour
# the checkpoint already reflects both, so the prompt survives the drop.
#
# ### A compaction without a checkpoint
#
# `systemMessage` is optional, and a file may hold a compaction without one (written by
# another tool, an older Pi, or by hand; Pi 0.87.1 itself omits it when the compacted
# context had no system prompt). Pi reads such a file by the same rule: the system
# messages of the kept range are still dropped, nothing carries the prompt, and the
# context has **no system prompt at all**: `[compactionSummary, ...]`.
#
# `data/audit/compaction-without-system.jsonl` is that case: a system message before the
# compaction, one inside the kept range, and a compaction without `systemMessage`. Pi
# 0.87.1's own reading of it is recorded in `data/audit/evidence.json` (by
# `conformance/audit.mjs`, see notebook 08). The cell reads both from the repository (on
# Colab it downloads them) and checks pisession against Pi:

# %%
import json
import urllib.request
from pathlib import Path


def repository_file(relative):
    """A file of this repository: from the checkout, or downloaded (Colab)."""
    local = Path("..", relative)
    if local.exists():
        return local.read_bytes()
    slug = REPOSITORY.removeprefix("https://github.com/").removesuffix(".git")
    url = f"https://raw.githubusercontent.com/{slug}/main/{relative}"
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


evidence = json.loads(repository_file("data/audit/evidence.json"))
pi = next(c for c in evidence["files"]["compaction-without-system"]["cases"] if c["leaf"] is None)
raw = repository_file("data/audit/compaction-without-system.jsonl")
no_checkpoint = pisession.loads(raw, "compaction-without-system.jsonl")
for fate in no_checkpoint.fates():
    entry = no_checkpoint.entry(fate.position)
    kind = entry["type"] + (f"/{entry['message']['role']}" if entry["type"] == "message" else "")
    print(f"line {fate.line:2}  {fate.id}  {kind:18} {fate.fate}")
context = no_checkpoint.context()
print("context:", [m["role"] for m in context.messages])
print("system prompt:", repr(no_checkpoint.system_prompt().text))
assert json.loads(context.to_json()) == pi["context"], "pisession differs from Pi 0.87.1"
assert pi["systemPrompt"] == "" and "system" not in [m["role"] for m in pi["context"]["messages"]]
print(f"Pi {evidence['pi']} builds the same context, with no system prompt either.")

# %% [markdown]
# The summary message, as the provider finally sees it (back to the tour):

# %%
llm = tour.context().to_llm()
print(llm[1]["content"][0]["text"])

# %% [markdown]
# ## Retain-none: keeping nothing before the compaction
#
# When a compaction keeps no earlier entry, Pi stores the compaction's **own id** in
# `firstKeptEntryId`. No entry *before* C has that id, so the kept range is empty. The
# same happens when the id names an entry on another branch, or nothing at all.

# %%
from pisession.build import new_entry, tiny_session

retain_none = tiny_session(
    new_entry("message", "u1", None, 1, message={"role": "user", "content": "old question"}),
    new_entry("message", "a1", "u1", 2, message={"role": "assistant", "content": []}),
    new_entry(
        "compaction",
        "c1",
        "a1",
        3,
        summary="An old question was answered.",
        firstKeptEntryId="c1",
        tokensBefore=900,
    ),
    new_entry("message", "u2", "c1", 4, message={"role": "user", "content": "new question"}),
    name="retain-none.jsonl",
)
print([m["role"] for m in retain_none.context().messages])
print([(f.id, f.fate) for f in retain_none.fates()])

# %% [markdown]
# ## Three compactions in a real Pi session
#
# Sample **b** was written by Pi 0.87.1 in RPC mode: a manual compaction, an automatic
# one at the context threshold, and one that recovered from a context overflow.

# %%
b = pisession.load(pisession.sample_path("pi-0.87.1-b-rpc-compaction-manual-threshold-overflow"))
for position, entry in enumerate(b.entries):
    if entry["type"] == "compaction":
        first_kept = b.selection(entry["id"]).first_kept  # the rule's kept range there
        print(
            f"line {b.line_of(position)}: compaction {entry['id']},",
            f"tokensBefore {entry['tokensBefore']:>6}, keeps from line {b.line_of(first_kept)}",
        )

# %% [markdown]
# Look at the second compaction (line 24): its kept range starts on line 16, **before**
# the first compaction (line 17). Only the newest compaction on the path counts; an
# older compaction that falls inside its kept range stays selected but contributes
# nothing (its summary was summarized again).
#
# What the model saw right after each compaction (the entry following it as leaf):

# %%
for position, entry in enumerate(b.entries):
    if entry["type"] == "compaction":
        leaf_id = b.entry(position + 1)["id"]
        projection = b.projection(leaf_id)
        kept_lines = [i.line for i in projection.entries if i.why.startswith("kept")]
        roles = [m["role"] for m in projection.messages]
        print(f"leaf {leaf_id} (after line {b.line_of(position)}): {len(roles)} messages")
        print(f"   kept lines {kept_lines}")
        print(f"   {roles}")

# %% [markdown]
# The drawing for the default leaf shows the cut (the dashed line) and the arrow from
# the newest compaction to the first kept entry:

# %%
from pisession.draw import draw_tree

draw_tree(b)

# %% [markdown]
# ## The compaction stepper
#
# `compaction_stepper(session)` lets you step through the compactions of a path and see,
# for each, the summarized part, the kept range and the context. (It is interactive:
# run the notebook to use it. The stored output is not compared by the tests.)

# %% tags=nbval-ignore-output
from pisession.explorers import compaction_stepper

compaction_stepper(b)

# %% [markdown]
# ## Recap
#
# - Only the **newest** compaction on the path matters. It comes first in the context
#   and contributes its system checkpoint and its summary.
# - The **kept range** starts at `firstKeptEntryId` (if that entry is before the
#   compaction on the path) and skips every system message; everything after the
#   compaction is sent, system messages included.
# - The compaction's optional `systemMessage` carries the prompt across; without it the
#   context has no system prompt until a later system message.
# - **Retain-none** compactions point at themselves and keep nothing before them.
# - Settings (thinking level, model) still come from the whole path, summarized part
#   included. Next: legacy files and their migration.

# %% [markdown]
# ## Exercises
#
# Write each rule in plain Python, then run the cell: the checker compares your function
# with pisession on the samples, on small files for the corners (a system message after
# the compaction, a compaction without a checkpoint, two compactions, ...) and on cases
# **drawn at random for each run**. Answers and the common mistakes:
# `07-workshop-solutions`.

# %%
from pisession import workshop

# %% [markdown]
# **1. The kept range.** `kept_range(path)` gets the entries of one path, root first, and
# returns the ids of the entries Pi **selects** for the context, in context order (the
# rule above).


# %%
def kept_range(path):
    """Ids of the selected entries, compaction first."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_kept_range(kept_range)

# %% [markdown]
# **2. The roles of a context.** `context_roles(path)` returns the roles of the context
# messages for a path (these paths have no context edits): a `message` entry gives its
# role, a `custom_message` gives `"custom"`, a `branch_summary` with a non-empty summary
# gives `"branchSummary"`, the newest compaction gives `"system"` (only if it has a
# `systemMessage`) and `"compactionSummary"`; everything else gives nothing.


# %%
def context_roles(path):
    """Roles of the context messages for a path, in order."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_context_roles(context_roles)
