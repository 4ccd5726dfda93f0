# ruff: noqa: E402
# title: Context edits, usage and the system prompt
# summary: Context edits (replace or omit a message; a model of PiG, which ignores them), usage
#   entries and session totals, and the system prompt replayed from system-message deltas.
#   Exercises: context edits, total tokens, the system prompt.

# %% [markdown]
# Three more things decide what the model sees, or record what it cost.
#
# **You will learn**
#
# - **context edits**: a `context_edit` entry replaces the content of an earlier
#   message, or removes it from the context, without touching the file's history; and
#   why the same file gives PiG (the Go port, which does not apply them) a different
#   context;
# - **usage**: `usage` entries and the usage stored on messages and compactions, and
#   how Pi's session totals add them up (compacted history included);
# - the **system prompt**: real files store it as *deltas* (sections and tools added or
#   removed); pisession replays them to get the prompt in force at any leaf.
#
# Three exercises at the end: context edits, the session's total tokens, and the system
# prompt.

# %% [setup]
import pisession  # noqa: I001

# %% [markdown]
# ## Context edits
#
# In the tour, the assistant read a long file (`t2000001`, 40 helper functions). A
# later `context_edit` (`ce000001`) replaced that tool result with a one-line note, to
# save context:

# %%
import pprint
import textwrap

tour = pisession.load(pisession.sample_path("tour"))
edit = tour.entry(tour.position_of("ce000001"))
pprint.pp({k: v for k, v in edit.items() if k != "timestamp"}, width=88)

# %%
projection = tour.projection()
item = next(i for i in projection.entries if i.id == "t2000001")
stored = item.entry["message"]["content"][0]["text"]
sent = item.messages[0]["content"][0]["text"]
print(f"stored in the file: {len(stored)} characters, starting {stored[:30]!r}")
print(f"sent to the model:  {sent!r}")
print("edited by:", item.edit["id"])

# %% [markdown]
# The rules (Pi 0.87.1):
#
# - edits are collected from the **selected** entries only; a later edit of the same
#   target replaces an earlier one;
# - `replacement: null` removes the target's messages from the context (fate
#   `omitted`) [fact: context-edit-replaces-or-omits];
# - otherwise user, assistant, toolResult and custom messages get
#   `replacement.content` (a string becomes one text block for assistant and tool
#   results); everything else about the message is unchanged;
# - an edit that a compaction summarized away is not applied.
#
# Real Pi writes `replacement: null` edits itself: in sample **b**, after recovering
# from a context overflow, it removed the empty assistant reply of the failed attempt
# [fact: overflow-hides-failed-reply]:

# %%
b = pisession.load(pisession.sample_path("pi-0.87.1-b-rpc-compaction-manual-threshold-overflow"))
for fate in b.fates():
    if fate.type == "context_edit" or fate.fate == "omitted":
        print(f"line {fate.line}  {fate.id}  {fate.type:12}  {fate.fate:10}  {fate.reason}")

# %% [markdown]
# ### The PiG difference
#
# PiG, the Go port of Pi described in the book, reads the same files but, as its
# documentation says, does **not** apply `context_edit` entries yet. So the same file
# gives a different context. The function below is a **model of that documented
# behaviour**, built from the rule's own pieces (the selection, and what each selected
# entry contributes before any edit, `selected_messages`: only the first entry, the
# newest compaction, sends a summary): it is not PiG's output, which this notebook does
# not run.

# %%
from pisession.engine.context import selected_messages


def context_ignoring_edits(session, leaf_id=None):
    """A model of PiG's documented behaviour: Pi's selection, no messages edited."""
    projection = session.projection(leaf_id)
    messages = []
    for rank, item in enumerate(projection.entries):
        first = rank == 0
        messages.extend(selected_messages(session.index, item.position, item.entry, first))
    return messages


def size(messages):
    return sum(len(str(m.get("content", ""))) for m in messages)


for name, session in (("tour", tour), ("sample b", b)):
    pi = session.context().messages
    pig = context_ignoring_edits(session)
    print(f"{name}: Pi sends {len(pi)} messages ({size(pi)} characters of content);")
    print(f"    without edits (PiG's documented behaviour) {len(pig)} ({size(pig)} characters)")

# %% [markdown]
# Without the edits, the tour's context holds the whole 40-function file again, and
# sample b's the failed, empty assistant message that Pi had removed
# [fact: overflow-hides-failed-reply]: that is what a reader that ignores context edits,
# as PiG documents, would send.
#
# `pisession.views.explorers.context_without_edits` is the same view as a projection (the
# source entry of every message included):

# %%
from pisession.views.explorers import context_edit_toggle, context_without_edits

print(context_without_edits(tour).messages == context_ignoring_edits(tour))
print(context_without_edits(b).messages == context_ignoring_edits(b))

# %% [markdown]
# The context-edit toggle switches between the two views for any leaf: Pi's context, and
# the one without edits (labelled PiG: the same model of its documented behaviour).
# Interactive; not compared by the tests:

# %% tags=nbval-ignore-output

context_edit_toggle(tour)

# %% [markdown]
# Before and after as a picture (`pisession.views.draw.edits_figure`): the tour's messages with
# its context edit ignored and applied; the changed message is coloured.

# %%
from pisession.views.draw import edits_figure

edits_figure(tour)

# %% [markdown]
# ## Usage and totals
#
# Assistant messages carry a `usage` object (tokens and cost). A model call made outside
# the conversation is recorded in a `usage` entry with a `kind`. In Pi 0.87.1 the only
# such call is **cache warming** (kind `"cache_warm"`): a one-token request that keeps
# the provider's prompt cache alive while you think (notebook 08 shows that this is the
# only code in Pi that writes usage entries) [fact: usage-cache-warm-written]. Compactions
# and branch summaries carry the usage of the model call that wrote their summary. None of
# these reach the model: a `usage` entry is state only. The tour's usage entry is a cache warm:

# %%
usage_entry = tour.entry(tour.position_of("us000001"))
print("kind:", usage_entry["kind"], "| model:", usage_entry["model"], "| usage:")
pprint.pp(usage_entry["usage"], width=88)
print([(f.id, f.fate) for f in tour.fates() if f.type == "usage"])

# %% [markdown]
# `kind` is an **open set**: the format tells readers to treat unknown kinds as normal
# usage, and Pi counts every usage entry whatever its kind, so a kind written by an
# extension (or a later Pi) still adds to the totals [fact: usage-any-kind-counts]. Code
# that reads usage entries must accept kinds it does not know. `session.stats()` adds up what
# Pi's session statistics add up: usage entries, compactions, branch summaries,
# assistant messages and tool results, over **all** entries, compacted history and
# other branches included. `stats(leaf_id, branch=True)` counts one path only.

# %%
import json

print(json.dumps(tour.stats().to_dict(), indent=1))

# %%
for leaf in tour.leaves():
    leaf_id = tour.entry(leaf)["id"]
    stats = tour.stats(leaf_id, branch=True)
    usage = stats.usage
    print(f"branch ending at {leaf_id}: cost {usage.cost:.4f}, tokens {usage.total_tokens:.0f}")

# %% [markdown]
# For the real sample **b**, the totals include the compactions' own model calls:

# %%
totals = b.stats()
print(f"{totals.assistant_messages} assistant messages, {totals.tool_calls} tool calls")
usage = totals.usage
print(f"tokens {usage.total_tokens:,.0f} (input {usage.input:,.0f}), cost ${usage.cost:,.4f}")
compaction_cost = sum(e["usage"]["cost"]["total"] for e in b.entries if e["type"] == "compaction")
print(f"of which the three compactions cost ${compaction_cost:,.4f}")

# %% [markdown]
# ### By model, and over a whole folder
#
# Pi's `/session` view also breaks the totals down by model (its function
# `getUsageCostBreakdown`, the same in 0.87.1 and 1.6.0
# [fact: usage-cost-breakdown-in-both]): an assistant message counts under `provider/model`, where
# the model is the one that answered (`responseModel`, when a router such as
# OpenRouter's `auto` picked it); a usage entry under its own provider and model; the
# usage of tool results, compactions and branch summaries under `Tools/summaries`. Keys
# with no tokens and no cost are left out; the rest come by cost, highest first.
# `pisession.folders.usage.session_breakdown` counts the same way (the tests hold it equal to
# Pi's own function on every file of the corpus), and `to_records()` gives plain rows, one
# dict each, which `pandas.DataFrame(...)` or `polars.DataFrame(...)` take as they are:

# %%
from pisession.folders.usage import scan_folder, session_breakdown

records = session_breakdown(b).to_records()
print("each record:", ", ".join(records[0]))
for row in records:
    print(
        f"{row['key']:16} {row['tokens']:>8,} tokens (input {row['input']:,},"
        f" output {row['output']:,})  ${row['cost']:,.4f}"
    )

# %% [markdown]
# In sample b the compactions' own model calls are the `Tools/summaries` row: a tool that
# reads only assistant messages misses them. Over a folder of sessions (`pisession usage`
# on the command line) the same counting runs session by session, and rows group by day,
# week, month, project, session or model. Here: the bundled samples, by model.

# %%
folder = scan_folder([pisession.sample_path(n) for n in pisession.sample_names()], by="model")
records = folder.to_records()
print(f"{folder.sessions} sessions ({len(folder.skipped)} skipped), {len(records)} models")
print(f"total: {folder.total.tokens:,} tokens, cost ${folder.total.cost:,.4f}")

# %% [markdown]
# `pisession.views.tables.table(records)` shows them as a data frame when pandas is installed
# (Colab and Binder have it), else as a plain HTML table (the stored output is whichever
# this notebook was built with):

# %% tags=nbval-ignore-output
from pisession.views.tables import table

table(records)

# %% [markdown]
# ## The system prompt, replayed
#
# Real Pi files keep the system prompt in **system messages** whose `content` is empty:
# the text sits in named `sections`, and tools come as `toolsAdded` / `toolsRemoved`
# deltas. The first one of a file is complete: every non-empty section and every active
# tool, in what both checked versions' CLI wrote [fact: cli-first-system-message-complete].
# Sample **a** has three system messages: the full prompt, then a delta that adds the
# `ls` tool and rewrites two sections, then one that removes `ls` again.

# %%
a = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
for entry in a.entries:
    message = entry.get("message", {})
    if message.get("role") == "system":
        added = [t["name"] for t in message.get("toolsAdded", [])]
        removed = [t["name"] for t in message.get("toolsRemoved", [])]
        print(f"{entry['id']}: content {message['content']!r}, tools +{added} -{removed}")
        print(f"    sections {list(message['sections'])}")

# %% [markdown]
# Replaying means: go through the context's system messages in order; append non-empty
# content; patch sections by name (a section keeps its place when replaced, a new one
# goes last, `null` deletes); remove `toolsRemoved`, then add or replace `toolsAdded`.
# `session.system_prompt(leaf_id)` does this for the context at a leaf:

# %%
for leaf_id in ("4eb3863d", "51cccdb6", "ba97286b"):
    prompt = a.system_prompt(leaf_id)
    print(f"at {leaf_id}: tools {list(prompt.tools)}, {len(prompt.text)} characters")

# %%
for line in a.system_prompt().text[:700].splitlines():
    print(textwrap.fill(line, 88, subsequent_indent="  ") if line else "")
print("...")

# %% [markdown]
# The system prompt view steps through every system message on the path to a leaf (in
# sample a the `ls` tool is added, then removed) and shows the prompt and the tools each
# one leaves in force (interactive; not compared by the tests):

# %% tags=nbval-ignore-output
from pisession.views.explorers import system_prompt_view

system_prompt_view(a)

# %% [markdown]
# ## Recap
#
# - A **context edit** rewrites (or, with `replacement: null`, removes) a selected
#   entry's messages in the context; the file keeps the original. PiG does not apply
#   them yet, so it sends more.
# - **Usage** lives on assistant messages, tool results, compactions, branch summaries
#   and `usage` entries (Pi writes `cache_warm` [fact: usage-cache-warm-written]; any other
#   kind counts too [fact: usage-any-kind-counts]); the totals count all of them, over the
#   whole file; by model, as Pi's `/session` breaks them down
#   [fact: usage-cost-breakdown-in-both], with `session_breakdown`, and over a folder with
#   `scan_folder`; `to_records()` makes rows for a data frame.
# - The **system prompt** is replayed from system-message deltas; a compaction's
#   checkpoint (notebook 04) restarts it.
# - Next: the workshop.

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
# **1. Context edits.** `apply_context_edits(entries)` gets the selected entries of a path
# (`message` and `context_edit` entries, in order) and returns the messages Pi builds from
# them, edits applied: each `message` entry's `message`, edited as the rules above say,
# and nothing for the `context_edit` entries [fact: context-edit-replaces-or-omits]. Build
# new dicts for edited messages.


# %%
def apply_context_edits(entries):
    """The messages of the selected entries, context edits applied."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_context_edits(apply_context_edits)

# %% [markdown]
# **2. Total tokens.** `total_tokens(entries)` gets all the entries of a file and returns
# the session's total tokens as Pi's statistics count them: input + output + cacheRead +
# cacheWrite of every usage Pi counts [fact: usage-any-kind-counts].


# %%
def total_tokens(entries):
    """The session's total tokens, as Pi's session statistics."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_total_tokens(total_tokens)

# %% [markdown]
# **3. The system prompt.** `replay_system_prompt(messages)` replays a context's messages
# and returns `{"text": the rendered prompt, "tools": [tool names in order]}`. The text is
# the non-empty contents joined with a blank line, then each section's value, empty parts
# left out, all joined with `"\n\n"`.


# %%
def replay_system_prompt(messages):
    """The system prompt and tools in force after these messages."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_system_prompt(replay_system_prompt)
