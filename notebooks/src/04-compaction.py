# ruff: noqa: E402
# title: Compaction
# summary: The kept range, retain-none compactions, three compactions in a real Pi file, the
#   optional system checkpoint and dropped system messages (a compaction without one, checked
#   against Pi); why compaction fires, its token estimate and where it cuts
#   [fact: compaction-threshold]; the compaction stepper. Exercises: the kept range, the
#   roles of a context.

# %% [markdown]
# When a conversation grows too long for the model, Pi **compacts** it: a model writes
# a summary of the older part, and Pi appends a `compaction` entry. Nothing is deleted
# from the file [fact: entries-append-order]. What changes is the rule that builds the
# context.
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
# - why Pi compacts (manual, threshold, overflow), how it estimates `tokensBefore`, and
#   where it cuts (about `keepRecentTokens`, never at a tool result, split turns), checked
#   on the three compactions of a real file [fact: compaction-threshold]
#   [fact: compaction-cut-never-tool-result];
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
    print(f"{key:17} {shown[:70]}{'...' if len(shown) > 70 else ''}")

# %% [markdown]
# - `summary`: the text that replaces the older part of the conversation;
# - `firstKeptEntryId`: the first entry *before* the compaction that is still sent as is;
# - `tokensBefore`: Pi's **estimate** of the context size when it compacted, not a count
#   the provider made (how Pi estimates it: "Why compaction fired and where it cut" below)
#   [fact: tokens-before-is-estimate];
# - `systemMessage` (optional): a **checkpoint** of the system prompt and tools at
#   compaction time. Pi writes one when the context it compacts has a current system
#   message: when `getCurrentSystemMessage`, replaying the context's system messages,
#   returns one, that is when the context holds a system message that has a timestamp or
#   declares a tool (every system message Pi writes has a timestamp)
#   [fact: compaction-checkpoint-when-system-message].
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
# checkpoint opens the context. A system message *after* the compaction is kept
# [fact: compaction-without-checkpoint-no-prompt].

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
# context had no system message and no tool). Pi reads such a file by the same rule: the
# system messages of the kept range are still dropped, nothing carries the prompt, and the
# context has **no system prompt at all**: `[compactionSummary, ...]`
# [fact: compaction-without-checkpoint-no-prompt].
#
# `data/audit/compaction-without-system.jsonl` is that case: a system message before the
# compaction, one inside the kept range, and a compaction without `systemMessage`. Pi
# 0.87.1's own reading of it is recorded in `data/audit/evidence.json` (by
# `conformance/audit.mjs`, see notebook 08). The cell reads both from the repository (on
# Colab it downloads them) and checks pisession against Pi:

# %%
import json

from pisession.workshop.repository import repository_file

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
# That is the context **as read from the file**. When Pi itself goes on with such a session,
# the next request repairs it. Before each request Pi compares the prompt sections the
# context currently has (the replay of its system messages: here none) with the prompt it
# wants to send (`_preparePromptAndToolLoadout` in `agent-session.js`): every section
# differs, so it adds a system message holding **every section**, and the agent loop adds
# **every active tool** to it as `toolsAdded` (the tools the context declares: none).
# That message goes out after the summary, and Pi appends it to the file like any other
# message: from the next turn on the context has its full system prompt again. After a
# compaction *with* a checkpoint nothing is added while the prompt and tools stay the
# same. (`tests/test_compaction_lesson.py` runs Pi 0.87.1's own code for both cases; for
# 1.6.0 this paragraph is the author's explanation.)
#
# The summary message, as the provider finally sees it (back to the tour):

# %%
llm = tour.context().to_llm()
print(llm[1]["content"][0]["text"])

# %% [markdown]
# ## Retain-none: keeping nothing before the compaction
#
# When a compaction keeps no earlier entry, Pi stores the compaction's **own id** in
# `firstKeptEntryId` [fact: compaction-checkpoint-when-system-message]. No entry *before* C
# has that id, so the kept range is empty. The
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
# What the model saw in the first request after each compaction. The rule: the request
# that produced a reply carried the context at the reply's **parent**, never at the reply
# itself (the reply was not written yet). After an overflow recovery the retried reply's
# parent is the compaction itself (here line 31's parent is line 30), so its request is
# the context at the compaction: the summary and the kept range, without the hidden failed
# reply. In a real-CLI recording whose compaction kept nothing, the request Pi sent for
# the retry held the system prompt and the summary only [fact: request-is-context-at-parent]:

# %%
import textwrap

for position, entry in enumerate(b.entries):
    if entry["type"] == "compaction":
        reply = next(
            e
            for e in b.entries[position + 1 :]
            if e["type"] == "message" and e["message"]["role"] == "assistant"
        )
        projection = b.projection(reply["parentId"])  # the request: the context at the parent
        kept_lines = [i.line for i in projection.entries if i.why.startswith("kept")]
        roles = [m["role"] for m in projection.messages]
        print(
            f"reply {reply['id']} (after line {b.line_of(position)}),",
            f"parent {reply['parentId']}: {len(roles)} messages",
        )
        print(f"   kept lines {kept_lines}")
        print(textwrap.fill(str(roles), 88, initial_indent="   ", subsequent_indent="    "))

# %% [markdown]
# The drawing for the default leaf shows the cut (the dashed line) and the arrow from
# the newest compaction to the first kept entry:

# %%
from pisession.views.draw import draw_tree

draw_tree(b)

# %% [markdown]
# ## Why compaction fired and where it cut
#
# Pi compacts in three cases (`agent-session.js`: `compact`, `_checkCompaction`; the list is
# the author's explanation of that code, its rules are facts below):
#
# - **manual**: `/compact` (or RPC `compact`): no test, Pi compacts now (the author's
#   explanation, from `compact`);
# - **threshold**: when `contextTokens > contextWindow - reserveTokens` (`shouldCompact` in
#   `compaction.js`) [fact: compaction-threshold]. `contextWindow` is the model's;
#   `reserveTokens` is 16384 unless the settings say otherwise (`compaction.reserveTokens`,
#   or per model in `compaction.modelOverrides`). Pi tests it after a reply, with that
#   reply's usage as
#   `contextTokens` (an estimate instead when the context holds a context edit or the reply
#   has no usage), before sending a new prompt, and before each further request of a turn
#   (with the estimate below). The reply is kept; nothing is retried;
# - **overflow**: the reply failed because the context was too long (a
#   `context_length_exceeded` error, for instance). Pi hides the failed reply with a
#   `context_edit` whose `replacement` is `null`, compacts, and sends the same request
#   again, **once**: if that fails too, it gives up with an error. A reply
#   that ended normally (`stop`) but reports more tokens than the window is compacted
#   without a retry. A reply that stopped on output **length** (`stopReason` `"length"`)
#   with fewer output tokens than the model's `maxTokens` is recovered the same way:
#   hidden, compacted, retried once (pi-ai's `isRecoverableLength`)
#   [fact: overflow-retry-after-length].
#
# ### How Pi estimates the context size
#
# Pi has no tokenizer. It takes the **last valid assistant usage** on the context (not
# aborted, not an error, and not zero: `totalTokens`, else `input + output + cacheRead +
# cacheWrite`) and adds an estimate for every message after it: `ceil(characters / 4)`
# [fact: compaction-threshold]
# (JavaScript characters, UTF-16 code units; an image counts 4800 characters; a tool call
# its name and its arguments as JSON; a system message its content, sections and tools as
# JSON). If a `context_edit` or a `compaction` comes after that assistant message on the
# path, the usage no longer describes the context, and Pi estimates **every** message by
# `ceil(characters / 4)` instead (the current system prompt counted once). That estimate is
# what a compaction stores as `tokensBefore` (`estimateProjectedContextTokens`).
#
# The same rule in a few lines of Python, over pisession's projection:

# %%
import math

from pisession.js import json as jsjson


def js_length(text):
    """Length of a string as JavaScript counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def content_chars(content):
    """Characters of a text-and-image content (a string or a list of blocks)."""
    if isinstance(content, str):
        return js_length(content)
    chars = 0
    for block in content:
        if block.get("type") == "text" and block.get("text"):
            chars += js_length(block["text"])
        elif block.get("type") == "image":
            chars += 4800
    return chars


def estimate_tokens(message):
    """Pi's estimate for one context message: ceil(characters / 4)."""
    role = message["role"]
    if role == "system":
        chars = content_chars(message["content"])
        chars += sum(js_length(s) for s in (message.get("sections") or {}).values() if s)
        if message.get("toolsAdded"):
            chars += js_length(jsjson.dumps(message["toolsAdded"]))
    elif role in ("user", "custom", "toolResult"):
        chars = content_chars(message["content"])
    elif role == "assistant":
        chars = 0
        for block in message["content"]:
            if block["type"] == "text":
                chars += js_length(block["text"])
            elif block["type"] == "thinking":
                chars += js_length(block["thinking"])
            elif block["type"] == "toolCall":
                chars += js_length(block["name"]) + js_length(jsjson.dumps(block["arguments"]))
    elif role == "bashExecution":
        chars = js_length(message["command"]) + js_length(message["output"])
    elif role in ("branchSummary", "compactionSummary"):
        chars = js_length(message["summary"])
    else:
        return 0
    return math.ceil(chars / 4)


def usage_tokens(message):
    """The context size an assistant reply reports, 0 when it is not valid."""
    if message["role"] != "assistant" or message.get("stopReason") in ("aborted", "error"):
        return 0
    usage = message.get("usage") or {}
    parts = ("input", "output", "cacheRead", "cacheWrite")
    return usage.get("totalTokens") or sum(usage.get(k, 0) for k in parts)


def context_estimate(session, leaf_id):
    """Pi's estimate of the context at a leaf, and how it was made."""
    projection = session.projection(leaf_id)
    messages = projection.messages
    owners = [item.id for item in projection.entries for _ in item.messages]
    path = session.path(leaf_id)
    ids = [e["id"] for e in path]
    valid = [i for i, m in enumerate(messages) if usage_tokens(m) > 0]
    if valid:
        last = valid[-1]
        edited = [i for i, e in enumerate(path) if e["type"] in ("context_edit", "compaction")]
        if ids.index(owners[last]) > max(edited, default=-1):
            after = sum(estimate_tokens(m) for m in messages[last + 1 :])
            return usage_tokens(messages[last]) + after, "last usage + chars/4 after it"
    system = session.system_prompt(leaf_id).to_message()
    tokens = estimate_tokens(system) if system else 0
    tokens += sum(estimate_tokens(m) for m in messages if m["role"] != "system")
    return tokens, "chars/4 of every message"


compactions = [e for e in b.entries if e["type"] == "compaction"]
for entry in compactions:
    tokens, how = context_estimate(b, entry["parentId"])
    print(f"{entry['id']}: tokensBefore {entry['tokensBefore']:>6}, estimate {tokens:>6} ({how})")
    assert tokens == entry["tokensBefore"]

# %% [markdown]
# ### Where Pi cuts
#
# Pi keeps roughly the newest `keepRecentTokens` (20000 unless the settings say otherwise)
# and summarizes the rest (`findProjectedCutPoint`). It walks back over the entries of the
# current context (after the previous compaction's summary: its kept range and what
# follows), from the newest, adding each one's estimate, until the sum reaches
# `keepRecentTokens`; then it cuts at the nearest **cut point** at or after that entry. A
# cut point is an entry with a user, assistant, bash, custom, branch-summary or
# compaction-summary message, **never a tool result**: a result must follow its tool call.
# (Entries without messages just before the cut, like a model change, are kept too.)
# [fact: compaction-cut-never-tool-result] [fact: compaction-threshold]
#
# If the cut falls on an assistant message, the turn is **split**: the turn's beginning
# (from the user message that started it up to the cut) is summarized on its own and added
# to the summary under "Turn Context (split turn)" [fact: compaction-cut-never-tool-result].
# If everything fits in `keepRecentTokens`, there is nothing to summarize and Pi does not
# compact (`/compact` says "Nothing to compact"; the author's explanation).
# Pi has one more rule, for a failed attempt hidden at the very end of the path, that this
# sketch leaves out.

# %%
CUT_ROLES = {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
TURN_ROLES = CUT_ROLES - {"assistant"}


def has_role(item, roles):
    """Does a projected entry (not a compaction) contribute a message with one of roles?"""
    return item.entry["type"] != "compaction" and any(m["role"] in roles for m in item.messages)


def find_cut(session, leaf_id, keep_recent_tokens):
    """(first kept id, split turn?) as Pi would cut at leaf_id; None: nothing to compact."""
    entries = session.projection(leaf_id).entries
    start = next(
        (i + 1 for i, it in enumerate(entries) if it.entry["type"] == "compaction" and it.messages),
        0,
    )
    cut_points = [i for i in range(start, len(entries)) if has_role(entries[i], CUT_ROLES)]
    if not cut_points:
        return None
    cut, total = cut_points[0], 0
    for i in range(len(entries) - 1, start - 1, -1):
        tokens = sum(estimate_tokens(m) for m in entries[i].messages)
        total += tokens
        if tokens and total >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut_points[-1])
            break
    while cut > start and entries[cut - 1].entry["type"] != "compaction":
        if entries[cut - 1].messages:
            break
        cut -= 1
    turn = None
    if not has_role(entries[cut], TURN_ROLES):
        turn = next(
            (i for i in range(cut, start - 1, -1) if has_role(entries[i], TURN_ROLES)), None
        )
    summarized = entries[start : turn if turn is not None else cut]
    if turn is None and not any(m["role"] != "system" for it in summarized for m in it.messages):
        return None
    return entries[cut].id, turn is not None


for entry in compactions:
    print(entry["id"], "default 20000:", find_cut(b, entry["parentId"], 20000))

# %% [markdown]
# With the default of 20000, Pi would not have compacted sample b at all: the messages on
# its paths add up to far fewer estimated tokens. The file was recorded with a small
# `keepRecentTokens`: every value from 95 to 105 gives all three cuts Pi stored, each a
# split turn (Pi's `prepareCompaction` run for these values) [fact: sample-b-cuts], and
# every summary holds a "Turn Context (split turn)" part:

# %%
for entry in compactions:
    cut = find_cut(b, entry["parentId"], 100)
    line = b.line_of(b.position_of(cut[0]))
    split = "(split turn)" in entry["summary"]
    print(
        f"{entry['id']}: cut at {cut[0]} (line {line}), split turn {cut[1]}; summary says {split}"
    )
    assert cut == (entry["firstKeptEntryId"], split)

# %% [markdown]
# ### Sample b's three compactions
#
# - **line 17, `tokensBefore` 1883: manual.** 1883 is far below any threshold and no reply
#   failed: the RPC client asked. The estimate is the usage of the reply on line 16, with
#   nothing after it. Cut at the assistant message on line 10: the turn of line 9 is split.
# - **line 24, 121007: threshold.** The reply on line 23 reports 121007 tokens (the canned
#   server says so), more than 128000 - 16384 = 111616 for a model with the 128000-token
#   window that the error on line 28 names. The usage is trusted: it comes after the
#   compaction of line 17. Cut at line 16, before that compaction: the turn of line 13 is
#   split.
# - **line 30, 1809: overflow.** The reply on line 28 is an error,
#   `context_length_exceeded`; line 29 hides it (`replacement: null`); line 31 is the one
#   retry, a child of the compaction, with no new user message. The edit on line 29 comes
#   after the last valid usage (line 26), so the estimate is chars/4 of every message. Cut
#   at line 19: the turn of line 18 is split.

# %%
for position in [p for p in range(len(b.entries)) if b.line_of(p) >= 28]:
    entry = b.entry(position)
    message = entry.get("message", {})
    error = message.get("errorMessage", "")
    what = entry["type"] + (f"/{message['role']}" if message else "")
    detail = "context_length_exceeded" if "context_length_exceeded" in error else ""
    if entry["type"] == "context_edit":
        detail = f"target {entry['targetId']}, replacement {entry['replacement']}"
    print(
        f"line {b.line_of(position)}  {entry['id']}  parent {entry['parentId']}  {what}  {detail}"
    )

# %% [markdown]
# ### A failed reply is kept in the file, not sent
#
# The failed reply of line 28 stays in the file, and Pi's projection at its own leaf still
# holds it. It never reaches the model again all the same: before every request pi-ai's
# last step (`transformMessages`, notebook 03) **leaves out every failed or aborted reply**
# (`stopReason` `"error"` or `"aborted"`), hidden by a context edit or not. The same
# goes for an automatic retry after a 429 or a 500, and for a reply you stopped with
# Escape. The fates name it `left-out`:

# %%
failed = next(p for p in range(len(b.entries)) if b.line_of(p) == 28)
at_failure = b.fates(b.entry(failed)["id"])
print(f"line 28: {at_failure[failed].fate}:")
print(textwrap.fill(at_failure[failed].reason, 88, initial_indent="    ", subsequent_indent="    "))
print(
    "the request at that leaf carries",
    len(b.sent(b.entry(failed)["id"], now=0).messages),
    "of the",
    len(b.context(b.entry(failed)["id"]).to_llm()),
    "provider messages",
)

# %% [markdown]
# ## The compaction stepper
#
# `compaction_stepper(session)` lets you step through the compactions of a path and see,
# for each, the summarized part, the kept range and the context. (It is interactive:
# run the notebook to use it. The stored output is not compared by the tests.)

# %% tags=nbval-ignore-output
from pisession.views.explorers import compaction_stepper

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
#   context has no system prompt until a later system message, which Pi adds, with every
#   section and tool, at its next request (the author's explanation, checked on Pi
#   0.87.1 by `tests/test_compaction_lesson.py`).
# - **Retain-none** compactions point at themselves and keep nothing before them.
# - Pi compacts on request, at `contextWindow - reserveTokens`, or after a context overflow
#   or after a reply cut by the output limit below the model's `maxTokens` (hide the failed
#   reply, compact, retry once). `tokensBefore` is its estimate: the last
#   valid usage plus chars/4, or chars/4 of everything after a context edit or compaction.
#   The cut keeps about `keepRecentTokens`, never starts at a tool result, and may split a
#   turn [fact: compaction-threshold] [fact: overflow-retry-after-length]
#   [fact: compaction-cut-never-tool-result].
# - The request that produced a reply is the context at the reply's **parent**.
# - A failed or aborted reply stays in the file and in Pi's projection, but pi-ai leaves
#   it out of every request (fate `left-out`), and answers any tool call left without a
#   result itself.
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

# %% [markdown]
# **3. What the request carries.** `request_messages(messages, now)` gets provider
# messages (what `to_llm()` gives; every reply comes from the model being asked) and
# returns what pi-ai sends: leave out every assistant message whose `stopReason` is
# `"error"` or `"aborted"`; keep the tool calls of the last reply sent, and before the
# next assistant or user message (and at the end) add, for each call no `toolResult`
# answered, `{"role": "toolResult", "toolCallId": ..., "toolName": ..., "content":
# [{"type": "text", "text": "No result provided"}], "isError": True, "timestamp": now}`;
# a `system` message that comes while calls are open waits until after their results.


# %%
def request_messages(messages, now):
    """The messages the request carries."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_request_messages(request_messages)
