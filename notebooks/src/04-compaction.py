# ruff: noqa: E402
# title: Compaction
# summary: The kept range, retain-none compactions, three compactions in a real Pi file, the system
#   checkpoint and dropped system messages; the compaction stepper.

# %% [markdown]
# When a conversation grows too long for the model, Pi **compacts** it: a model writes
# a summary of the older part, and Pi appends a `compaction` entry. Nothing is deleted
# from the file. What changes is the rule that builds the context.
#
# **You will learn**
#
# - the **kept range**: which entries before a compaction still reach the model
#   (from `firstKeptEntryId` on), and that system messages inside it are **dropped**;
# - the compaction's own **system checkpoint** (`systemMessage`) and summary;
# - **retain-none** compactions, which keep nothing before them;
# - how several compactions stack up in a real Pi 0.87.1 file, where a later one keeps
#   entries from before an earlier one;
# - how to step through a file's compactions with the compaction stepper.

# %% [setup]
import pisession

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
# - `systemMessage`: a **checkpoint** of the system prompt and tools at compaction time.
#
# ## The rule
#
# Take the **newest** compaction C on the path. The selected entries are, in order:
#
# 1. C itself, which contributes its system checkpoint (if any) and a summary message;
# 2. the entries before C, starting at the one whose id is `C.firstKeptEntryId`,
#    **skipping system messages**: that is the **kept range**;
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
# A system message in the kept range is **dropped**, because the compaction stored its
# own `systemMessage`: the system prompt and tools as they were when it compacted.
# Sending both would repeat the prompt. A system message *after* the compaction is kept.

# %%
for fate in tour.fates():
    if fate.fate in ("dropped-system", "compaction"):
        print(f"line {fate.line}  {fate.id}  {fate.fate}: {fate.reason}")

# %%
checkpoint = compaction["systemMessage"]
print("sections:", list(checkpoint["sections"]))
print("tools:   ", [t["name"] for t in checkpoint["toolsAdded"]])
print()
print(tour.system_prompt().text)

# %% [markdown]
# The dropped message `sys00002` had removed the `read` tool and added a rule; the
# checkpoint already reflects both, so nothing is lost.
#
# The summary message, as the provider finally sees it:

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
        first_kept = b.position_of(entry["firstKeptEntryId"])
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
#   compaction on the path) and skips system messages; everything after the compaction
#   is sent.
# - **Retain-none** compactions point at themselves and keep nothing before them.
# - Settings (thinking level, model) still come from the whole path, summarized part
#   included. Next: legacy files and their migration.
