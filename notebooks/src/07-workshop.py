# ruff: noqa: E402, E501, F811
# variants: exercises, solutions
# title[exercises]: Workshop: exercises
# title[solutions]: Workshop: solutions
# summary[exercises]: Sixteen rules of the format to write yourself, from the file name to the
#   request pi-ai sends, in three parts of rising difficulty; each checker runs hidden cases drawn at
#   random and names your mistake.
# summary[solutions]: The same exercises solved, each with the common mistakes and what the
#   checker tells them; every checker says correct.

# %% [markdown] only=exercises
# Sixteen small functions, each one rule of chapter 27 (and the last, pi-ai's step before a request), in three parts of rising
# difficulty. Write them in plain Python over plain dicts (no pisession needed). After each
# one, a checker runs your function on the bundled samples (several leaves each), on small
# files made for the corners, and on cases **drawn at random for this run** that you have
# not seen; it compares every answer with pisession (which matches Pi 0.87.1) and tells you
# the first case that differs, what was expected, what came back, and a hint that names
# the mistake when it is a common one.
#
# Replace each `raise NotImplementedError` with your code, then run the cell. The answers,
# with the common mistakes of each exercise, are in `07-workshop-solutions`. Notebooks
# 01-06 teach every rule used here (the end of each has some of these exercises).

# %% [markdown] only=solutions
# The exercises of `07-workshop-exercises`, solved. After each solution: the mistakes
# people commonly make, and what the checker says about them. Every checker below says
# **correct**: it ran the function on the samples, on small files for the corners and on
# cases drawn at random for this run, and compared each answer with pisession (which
# matches Pi 0.87.1).

# %% [markdown]
# **The plan**
#
# | part | exercises | you practise |
# |---|---|---|
# | A. Warm-up | 1-4 | the file name, the default leaf, the folder name, labels |
# | B. The path and the context | 5-9 | the walk, the settings, a bash execution for the model, the kept range, the roles of a context |
# | C. The rest of the format | 10-16 | v2 -> v3, total tokens, context edits, the system prompt, v1 -> v2, the lines Pi keeps [fact: lines-pi-keeps], what the request carries |
#
# In a 90-minute session do parts A and B; part C is for a longer workshop or homework
# (`docs/workshop.md` has an instructor's plan).

# %% [setup]
import pisession  # noqa: I001

# %%
import json
import pprint

from pisession import workshop

tour = pisession.load(pisession.sample_path("tour"))
solved = {}

# %% [markdown]
# ## Part A. Warm-up
#
# ### 1. The file name
#
# Pi names a new session's file after the header's `timestamp` and `id`: the timestamp
# with every `:` and `.` replaced by `-`, then `_`, the session id and `.jsonl`
# [fact: file-name-timestamp-id]. `session_file_name("2026-11-30T02:48:34.392Z",
# "0b5e55ed")` is
# `"2026-11-30T02-48-34-392Z_0b5e55ed.jsonl"`.


# %% only=exercises
def session_file_name(timestamp, session_id):
    """The file name Pi gives a new session."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
import re


def session_file_name(timestamp, session_id):
    """The file name Pi gives a new session."""
    return re.sub(r"[:.]", "-", timestamp) + f"_{session_id}.jsonl"


# %%
solved["file name"] = workshop.check_session_file_name(session_file_name)

# %% [markdown] only=solutions
# **Common mistakes.** Replacing only the colons (the `.` before the milliseconds stays),
# or forgetting `.jsonl`; the checker's hint names either. `str.replace` twice works as
# well as a regular expression.

# %% [markdown]
# ### 2. The default leaf
#
# `default_leaf(entries)` gets a file's entries (dicts, file order, header excluded) and
# returns the id of the leaf Pi uses right after loading the file: the id of the **last
# entry in the file**, whatever its type and whatever that id is. Tools that pick the
# newest timestamp, or the last *message*, get it wrong, and so does skipping an entry
# whose id is null: Pi's `SessionManager` takes the last entry's id as it is, and a null
# leaf has no path (Pi then builds an empty context) [fact: default-leaf-last-entry]
# [fact: default-leaf-null-id].

# %%
for entry in tour.entries[-3:]:
    pprint.pp({k: entry[k] for k in ("type", "id", "parentId", "timestamp")}, width=88)


# %% only=exercises
def default_leaf(entries):
    """Id of the leaf Pi uses after loading."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def default_leaf(entries):
    """Id of the leaf Pi uses after loading."""
    return entries[-1]["id"]


# %%
solved["default leaf"] = workshop.check_default_leaf(default_leaf)

# %% [markdown] only=solutions
# **Common mistakes.** The newest timestamp (clocks skew, and a branch written later can
# carry older times), or the last `message` (the last line is often a label, a usage entry
# or a model change). Pi does neither: after loading, the leaf is whatever entry came last.
# Nor does it look at the id: a last entry whose id is null gives a null leaf and an empty
# context (`SessionManager` sets its leaf to the last entry's id); searching back for an
# entry with an id gets that file wrong. A last entry without an id is different: the leaf
# is undefined, and Pi walks from the last entry itself [fact: default-leaf-last-entry]
# [fact: default-leaf-null-id] [fact: default-leaf-missing-id].

# %% [markdown]
# ### 3. The folder name
#
# Pi stores a session in `~/.pi/agent/sessions/<folder>/`, where `<folder>` comes from the
# working directory: Pi resolves it (a trailing `/` or `\` is dropped; a drive's root such
# as `D:\` keeps its `\`), removes **one** leading `/` or `\`, replaces every `/`, `\` and
# `:` with `-`, and puts `--` before and after [fact: folder-name-rule].
# `session_dir_name(cwd)` returns the folder name, for Unix and Windows paths alike:
# `"/home/reader/projects/demo-app/"` gives
# `"--home-reader-projects-demo-app--"`.


# %% only=exercises
def session_dir_name(cwd):
    """The folder name Pi derives from a working directory."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def session_dir_name(cwd):
    """The folder name Pi derives from a working directory."""
    is_drive_root = re.fullmatch(r"[A-Za-z]:[/\\]", cwd)
    if len(cwd) > 1 and cwd[-1] in "/\\" and not is_drive_root:
        cwd = cwd[:-1]  # path.resolve drops a trailing separator
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


# %%
solved["folder name"] = workshop.check_session_dir_name(session_dir_name)

# %% [markdown] only=solutions
# **Common mistakes.**
#
# - Dropping the drive's colon, as the chapter's example does (`--C-work-api--`): Pi
#   replaces `:` like a slash and writes `--C--work-api--` (notebook 08 shows Pi doing it)
#   [fact: folder-name-rule].
# - `lstrip("/\\")` removes *all* leading separators; a network path `\\server\share`
#   keeps its second one as a dash (`---server-share--`).
# - Dropping the `\` of a drive's root: `D:\` stays `D:\` when Pi resolves it, so its
#   folder is `--D----`, not `--D---` [fact: folder-name-rule].
# - Forgetting that Pi resolves the directory first: `/home/reader/app/` and
#   `/home/reader/app` share one folder [fact: folder-name-rule]. (pisession's own
#   `files.session_dir_name` takes
#   an already resolved path, so it is refused here, and would fail this case anyway.)

# %% [markdown]
# ### 4. Labels
#
# `resolve_labels(entries)` returns `{target_id: label}` for the labels in force after the
# whole file. Go through the `label` entries in file order: a non-empty `label` sets the
# label of `targetId`; an empty, `null` or missing one removes it.

# %%
pprint.pp([e for e in tour.entries if e["type"] == "label"], width=88)


# %% only=exercises
def resolve_labels(entries):
    """Labels in force: target id -> label."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def resolve_labels(entries):
    """Labels in force: target id -> label."""
    labels = {}
    for entry in entries:
        if entry["type"] != "label":
            continue
        if entry.get("label"):
            labels[entry["targetId"]] = entry["label"]
        else:
            labels.pop(entry["targetId"], None)
    return labels


# %%
solved["labels"] = workshop.check_labels(resolve_labels)

# %% [markdown] only=solutions
# **Common mistakes.**
#
# - Keeping the *first* label of a target (`if target not in labels`): the later one wins.
# - Never clearing, or clearing only on `""`: `null` and a missing field clear too (Pi
#   itself clears with a label entry that has no `label` field, so `entry["label"]`
#   raises `KeyError`; the checker's hint says so) [fact: labels-falsy-clears].
# - Storing `None` or `""` for a cleared label instead of removing the key.

# %% [markdown]
# ## Part B. The path and the context
#
# ### 5. The walk from leaf to root
#
# `walk(entries, leaf_id)` returns the ids from the root to the leaf, **root first**.
# Follow `parentId` from the leaf; stop when it is null, empty, or names no entry. If two
# entries share an id, the later one in the file counts.


# %% only=exercises
def walk(entries, leaf_id):
    """Ids from the root to ``leaf_id``, root first."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def walk(entries, leaf_id):
    """Ids from the root to ``leaf_id``, root first."""
    by_id = {e["id"]: e for e in entries}  # a later duplicate replaces an earlier one
    path, entry = [], by_id[leaf_id]
    while entry is not None:
        path.append(entry["id"])
        parent = entry.get("parentId")
        entry = by_id.get(parent) if parent else None
    return path[::-1]


# %%
solved["walk"] = workshop.check_walk(walk)

# %% [markdown] only=solutions
# **Common mistakes.**
#
# - Walking by file order or by timestamp: branches interleave in the file, so entries of
#   another branch slip in. Only `parentId` says who is an ancestor.
# - Returning the ids leaf first (forgetting to reverse).
# - First-wins duplicates (`next(e for e in entries if e["id"] == parent)`, or
#   `setdefault`): Pi's index keeps the later entry [fact: duplicate-id-later-wins].

# %% [markdown]
# ### 6. The settings of a path
#
# `settings(path)` gets the entries of one path, root first, and returns
# `{"thinkingLevel": ..., "model": ...}` as Pi's context reports them. The thinking level
# starts as `"off"` and each `thinking_level_change` sets it (`entry["thinkingLevel"]`).
# The model starts as `None`; a `model_change` sets it to
# `{"provider": entry["provider"], "modelId": entry["modelId"]}`, and so does every
# assistant message, with `{"provider": message["provider"], "modelId": message["model"]}`
# [fact: settings-from-path].
# An assistant's `model` is the model Pi *requested*; `responseModel`, when present, is the
# model the provider reports answering (it can differ: a fallback model, a dated version
# behind an alias), and Pi's context does not read it. The whole path counts, the part a
# compaction summarized included.


# %% only=exercises
def settings(path):
    """The thinking level and model in force at the end of a path."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def settings(path):
    """The thinking level and model in force at the end of a path."""
    level, model = "off", None
    for entry in path:
        if entry["type"] == "thinking_level_change":
            level = entry["thinkingLevel"]
        elif entry["type"] == "model_change":
            model = {"provider": entry["provider"], "modelId": entry["modelId"]}
        elif entry["type"] == "message" and entry["message"]["role"] == "assistant":
            message = entry["message"]
            model = {"provider": message["provider"], "modelId": message["model"]}
    return {"thinkingLevel": level, "model": model}


# %%
solved["settings"] = workshop.check_settings(settings)

# %% [markdown] only=solutions
# **Common mistakes.**
#
# - Looking only at `model_change` entries: every assistant message sets the model too,
#   from its `model`, the model Pi requested for that turn [fact: settings-from-path].
# - Reading `responseModel ?? model`: `responseModel` is the model the provider says
#   answered, and Pi's context ignores it (Pi 0.87.1 `session-manager.js` 157)
#   [fact: context-ignores-response-model]. The chapter
#   keeps three models apart: the selected one (`model_change`, possibly a virtual model),
#   the requested one (`model`) and the responding one (`responseModel`).
# - Stopping at the first change; starting the model as `{}`; reading settings from the
#   whole *file* (another branch's change does not count).

# %% [markdown]
# ### 7. A bash execution, as the model sees it
#
# When you run a shell command yourself in Pi (`!ls`), the file stores a message with role
# `bashExecution`. Before a request, Pi turns it into a **user** message with one text
# block, keeping the `timestamp` [fact: bash-execution-text]:
#
# - return `None` when `excludeFromContext` is true (commands run with `!!`);
# - the text is ``"Ran `COMMAND`\n"``, then the output inside a fence
#   ```` "```\n" + output + "\n```" ````, or `"(no output)"` when the output is empty;
# - then `"\n\n(command cancelled)"` if `cancelled`, **otherwise**
#   `"\n\nCommand exited with code N"` when `exitCode` is neither the number 0 nor None.
#   Pi tests with JavaScript's `!==`, where `false` is not 0: `exitCode: false` gives
#   `"Command exited with code false"` (lower case, as JavaScript prints it);
# - then `"\n\n[Output truncated. Full output: PATH]"` when `truncated` and
#   `fullOutputPath` are both set.

# %%
example = workshop.example("bash_to_llm", 1)
pprint.pp(example.args[0], width=88)
pprint.pp(example.expected, width=88)


# %% only=exercises
def bash_to_llm(message):
    """The provider message for a bashExecution message, or None."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def bash_to_llm(message):
    """The provider message for a bashExecution message, or None."""
    if message.get("excludeFromContext"):
        return None
    text = f"Ran `{message['command']}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(code, bool):  # false !== 0 in JavaScript (in Python False == 0)
        text += f"\n\nCommand exited with code {str(code).lower()}"
    elif code is not None and code != 0:
        text += f"\n\nCommand exited with code {code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return {
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "timestamp": message["timestamp"],
    }


# %%
solved["bash execution"] = workshop.check_bash_to_llm(bash_to_llm)

# %% [markdown] only=solutions
# **Common mistakes.**
#
# - Printing the exit code of a cancelled command: a cancelled `npm test` that exited with
#   130 shows only `(command cancelled)`. The code line is the `else` branch.
# - `code not in (None, 0)` or `code != 0`: Python's `False == 0` hides the line Pi writes
#   for `exitCode: false` (`Command exited with code false`).
# - `content` as a plain string instead of a list with one text block.
# - A fence around empty output instead of `(no output)`; the truncation note without a
#   path; `message["truncated"]` on a message that leaves the field out (`KeyError`).

# %% [markdown]
# ### 8. The kept range
#
# `kept_range(path)` gets the entries of one path, root first, and returns the ids of the
# entries Pi **selects** for the context, in context order:
#
# - no compaction on the path: every entry;
# - otherwise, with C the **newest** compaction: C first; then the entries before C,
#   starting at the one whose id equals `C["firstKeptEntryId"]`, but **not** system
#   messages (`type == "message"` and `message.role == "system"`); then every entry after
#   C, system messages included. If no entry before C has that id, none of them is kept.

# %%
path = tour.path()
pprint.pp([(e["id"], e["type"]) for e in path[-6:]], width=88, compact=True)


# %% only=exercises
def kept_range(path):
    """Ids of the selected entries, compaction first."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def kept_range(path):
    """Ids of the selected entries, compaction first."""
    compactions = [i for i, e in enumerate(path) if e["type"] == "compaction"]
    if not compactions:
        return [e["id"] for e in path]
    cut = compactions[-1]
    compaction = path[cut]
    selected, found = [compaction["id"]], False
    for entry in path[:cut]:
        if entry["id"] == compaction.get("firstKeptEntryId"):
            found = True
        is_system = entry["type"] == "message" and entry["message"]["role"] == "system"
        if found and not is_system:
            selected.append(entry["id"])
    return selected + [e["id"] for e in path[cut + 1 :]]


# %%
solved["kept range"] = workshop.check_kept_range(kept_range)

# %% [markdown] only=solutions
# **Common mistakes.**
#
# - Keeping the system messages of the kept range. Pi drops them always, whether or not the
#   compaction stored a `systemMessage`.
# - Dropping system messages *after* the compaction too, or on a path without any
#   compaction: only the kept range loses them.
# - Using the first compaction instead of the newest; putting the compaction in its file
#   position instead of first; keeping everything when `firstKeptEntryId` is not found
#   before the compaction (retain-none compactions point at themselves); leaving out an
#   older compaction that falls inside the kept range (it is selected, it just contributes
#   no message).

# %% [markdown]
# ### 9. The roles of a context
#
# `context_roles(path)` returns the roles of the context messages for a path (these paths
# have no context edits). Take the kept range of exercise 8, then each selected entry
# contributes: a `message` entry its message's role; a `custom_message` entry `"custom"`; a
# `branch_summary` with a non-empty `summary` `"branchSummary"`; the newest compaction (the
# first selected entry) `"system"` if it has a `systemMessage`, then `"compactionSummary"`;
# every other entry (an older compaction included) nothing.


# %% only=exercises
def context_roles(path):
    """Roles of the context messages for a path, in order."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def context_roles(path):
    """Roles of the context messages for a path, in order."""
    by_id = {e["id"]: e for e in path}
    roles = []
    for rank, entry_id in enumerate(kept_range(path)):
        entry = by_id[entry_id]
        if entry["type"] == "message":
            roles.append(entry["message"]["role"])
        elif entry["type"] == "custom_message":
            roles.append("custom")
        elif entry["type"] == "branch_summary" and entry.get("summary"):
            roles.append("branchSummary")
        elif entry["type"] == "compaction" and rank == 0:
            if entry.get("systemMessage"):
                roles.append("system")
            roles.append("compactionSummary")
    return roles


# %%
solved["context roles"] = workshop.check_context_roles(context_roles)

# %% [markdown] only=solutions
# **Common mistakes.** Assuming every compaction carries a `systemMessage` (without one the
# context has no system prompt at all: notebook 04); letting an older compaction in the
# kept range add its summary again; counting a branch summary with an empty summary;
# treating a `custom` entry (extension state) like a `custom_message`.

# %% [markdown]
# ## Part C. The rest of the format
#
# ### 10. Version 2 to 3
#
# `v2_to_v3(values)` gets a version 2 file's parsed values (header first) and returns them
# at version 3: the header's `version` becomes 3, and in every `message` entry whose
# `message.role` is `"hookMessage"` the role becomes `"custom"`. Nothing else changes.


# %% only=exercises
def v2_to_v3(values):
    """A version 2 file's values brought to version 3."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def v2_to_v3(values):
    """A version 2 file's values brought to version 3."""
    out = []
    for value in values:
        value = dict(value)
        if value["type"] == "session":
            value["version"] = 3
        elif value["type"] == "message" and value["message"].get("role") == "hookMessage":
            value["message"] = {**value["message"], "role": "custom"}
        out.append(value)
    return out


# %%
solved["v2 -> v3"] = workshop.check_v2_to_v3(v2_to_v3)

# %% [markdown] only=solutions
# **Common mistakes.** Forgetting the header's version; renaming `hookMessage` wherever it
# appears (a `custom` entry's `data` is extension state, not a message); renaming entry
# *types*. Code that checks the old nested role misses messages in migrated files.

# %% [markdown]
# ### 11. Total tokens
#
# `total_tokens(entries)` gets **all** the entries of a file (every branch, compacted
# history included) and returns the session's total tokens as Pi's statistics count them:
# for every usage Pi counts, `input + output + cacheRead + cacheWrite` (not the usage's own
# `totalTokens`, which a provider may count differently). Pi counts the
# `usage` of assistant messages, of tool results that have one, of compactions and branch
# summaries that have one, and of every `usage` entry, whatever its `kind` (Pi writes
# `"cache_warm"`; unknown kinds are normal usage).


# %% only=exercises
def total_tokens(entries):
    """The session's total tokens, as Pi's session statistics."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def total_tokens(entries):
    """The session's total tokens, as Pi's session statistics."""
    total = 0
    for entry in entries:
        usage = None
        if entry["type"] == "message" and entry["message"]["role"] in ("assistant", "toolResult"):
            usage = entry["message"].get("usage")
        elif entry["type"] in ("usage", "compaction", "branch_summary"):
            usage = entry.get("usage")
        if usage:
            total += usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
    return total


# %%
solved["total tokens"] = workshop.check_total_tokens(total_tokens)

# %% [markdown] only=solutions
# **Common mistakes.** Counting assistant messages only (Pi's HTML export does that);
# keeping only known usage kinds (the format says unknown kinds are normal usage);
# skipping the usage of compactions and branch summaries; adding input and output but not
# the cache tokens; adding up `totalTokens` (Pi never reads it, and the checker's cases
# hold usages whose `totalTokens` is not the sum of the four).

# %% [markdown]
# ### 12. Context edits
#
# `apply_context_edits(entries)` gets the selected entries of a path (`message` and
# `context_edit` entries, in order) and returns the messages Pi builds from them: each
# `message` entry's `message`, edited, and nothing for the `context_edit` entries.
#
# - Collect the edits first, then build the messages: for each target keep the **last**
#   edit (`targetId`, `replacement`), wherever it stands (an edit placed before its
#   target applies too).
# - `replacement` is `None`: the target contributes no message, whatever its role.
# - Otherwise a `user`, `assistant`, `toolResult` or `custom` message gets
#   `replacement["content"]`; a string becomes `[{"type": "text", "text": ...}]` for
#   assistant and toolResult messages only. Other roles are left alone.
# - Build new dicts: the entries stay as they were.


# %% only=exercises
def apply_context_edits(entries):
    """The messages of the selected entries, context edits applied."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def apply_context_edits(entries):
    """The messages of the selected entries, context edits applied."""
    edits = {e["targetId"]: e["replacement"] for e in entries if e["type"] == "context_edit"}
    messages = []
    for entry in entries:
        if entry["type"] != "message":
            continue
        message = entry["message"]
        if entry["id"] in edits:
            replacement = edits[entry["id"]]
            if replacement is None:
                continue
            if message["role"] in ("user", "assistant", "toolResult", "custom"):
                content = replacement["content"]
                if isinstance(content, str) and message["role"] in ("assistant", "toolResult"):
                    content = [{"type": "text", "text": content}]
                message = {**message, "content": content}
        messages.append(message)
    return messages


# %%
solved["context edits"] = workshop.check_context_edits(apply_context_edits)

# %% [markdown] only=solutions
# **Common mistakes.** Applying the first edit of a target instead of the last; applying
# edits as you go, so that one placed before its target is missed; wrapping a string for
# every role (user and custom messages keep the string) or for none (assistant and tool
# results need blocks); giving a system or bash message new content; checking the role
# before the `None` test, so that a `None` edit of a system or bash message keeps it;
# keeping an omitted message with empty content instead of leaving it out.

# %% [markdown]
# ### 13. The system prompt
#
# `replay_system_prompt(messages)` replays a context's messages and returns
# `{"text": ..., "tools": [names]}`. Only `system` messages count, in order: a non-empty
# `content` string is appended to the content parts; each entry of `sections` sets that
# section (a new name goes last, a known one keeps its place) or, when `None`, deletes it;
# then the names in `toolsRemoved` are removed and the tools in `toolsAdded` added (by
# `name`, same ordering rule). The text is the content parts joined with `"\n\n"`, then each
# section's value, empty parts left out, all joined with `"\n\n"`.


# %% only=exercises
def replay_system_prompt(messages):
    """The system prompt and tools in force after these messages."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def replay_system_prompt(messages):
    """The system prompt and tools in force after these messages."""
    content, sections, tools = [], {}, {}
    for message in messages:
        if message["role"] != "system":
            continue
        if message.get("content"):
            content.append(message["content"])
        for name, value in (message.get("sections") or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
        for tool in message.get("toolsRemoved") or []:
            tools.pop(tool["name"], None)
        for tool in message.get("toolsAdded") or []:
            tools[tool["name"]] = tool
    parts = ["\n\n".join(content), *sections.values()]
    return {"text": "\n\n".join(p for p in parts if p), "tools": list(tools)}


# %%
solved["system prompt"] = workshop.check_system_prompt(replay_system_prompt)

# %% [markdown] only=solutions
# **Common mistakes.** Keeping a section set to `None` in the dict (`sections.update(...)`):
# Pi deletes it, so set again later it goes last, after the sections set meanwhile (a
# Python dict does exactly what Pi's `Map` does if you `pop` it); adding
# `toolsAdded` before removing `toolsRemoved`; forgetting the `content` strings; joining
# with one newline.

# %% [markdown]
# ### 14. Version 1 to 2
#
# `v1_to_v2(values, new_id)` gets a version 1 file's parsed values (header first; entries
# have no ids) and returns them at version 2:
#
# - the header's `version` becomes 2;
# - every other value gets `id = new_id()` and, as `parentId`, the previous entry's id
#   (`None` for the first one);
# - a compaction whose `firstKeptEntryIndex` is a **number** (JavaScript's `typeof`: not
#   a string such as `"1"`, not `true`) looks up `values[index]`, the header being index 0,
#   **as the list stands at that moment**: an earlier entry and the compaction itself
#   already have their new ids, a later entry still has the id it had in the file, if any.
#   Unless that value is the header or has no id (or the index is past the end), the
#   compaction gets `firstKeptEntryId` = that id; then the index is deleted. So an index
#   naming the compaction itself gives its own id (it keeps nothing), and one naming a
#   later entry that already had an id gives that old id;
# - any other `firstKeptEntryIndex` (a string, a boolean) stays as it is, and no
#   `firstKeptEntryId` is set (Pi 0.87.1, `session-manager.js` 39-51).


# %% only=exercises
def v1_to_v2(values, new_id):
    """A version 1 file's values brought to version 2."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def v1_to_v2(values, new_id):
    """A version 1 file's values brought to version 2."""
    out = [dict(v) for v in values]
    previous = None
    for entry in out:
        if entry["type"] == "session":
            entry["version"] = 2
            continue
        entry["id"], entry["parentId"] = new_id(), previous
        previous = entry["id"]
        index = entry.get("firstKeptEntryIndex")
        if entry["type"] == "compaction" and type(index) in (int, float):  # not True, not "1"
            del entry["firstKeptEntryIndex"]
            target = out[int(index)] if index in range(len(out)) else None  # as it stands
            if target is not None and target["type"] != "session" and "id" in target:
                entry["firstKeptEntryId"] = target["id"]
    return out


# %%
solved["v1 -> v2"] = workshop.check_v1_to_v2(v1_to_v2)

# %% [markdown] only=solutions
# **Common mistakes.**
#
# - Counting the index from the first *entry* (`values[index + 1]`): Pi reads
#   `values[index]` from the list that still holds the header.
# - Resolving only indexes of *earlier* entries: the compaction itself gives its own id,
#   and a later entry that had an id in the file gives that id.
# - `isinstance(index, int)`: `True` is an `int` in Python, not a number in JavaScript;
#   converting or deleting a string index: Pi leaves a non-number index in place.
# - Keeping a numeric `firstKeptEntryIndex`; setting `firstKeptEntryId` to `None` instead
#   of leaving it out; forgetting the header's version.

# %% [markdown]
# ### 15. The lines Pi keeps
#
# `read_values(raw)` gets a file's bytes and returns the parsed values Pi keeps, header
# first. Decode as UTF-8 and split on `"\n"` only; skip lines that are blank, that
# JavaScript's `JSON.parse` rejects (it has no `NaN` or `Infinity`, which Python's `json`
# accepts), and whose value is falsy in JavaScript (`null`, `false`, `0`, `""`); keep every
# other value (`[]` and `{}` too: JavaScript holds them truthy). If the first value kept is not a header (`"type": "session"` with a string
# `id`), Pi reads nothing: return `[]`.


# %% only=exercises
def read_values(raw):
    """The values Pi keeps from a session file's bytes, header first."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def no_constants(name):
    raise ValueError(f"JSON.parse rejects {name}")


def js_falsy(value):
    if value is None or value is False or value == "":
        return True
    return type(value) in (int, float) and value == 0


def read_values(raw):
    """The values Pi keeps from a session file's bytes, header first."""
    values = []
    for line in raw.decode("utf-8", "replace").split("\n"):
        if not line.strip():
            continue
        try:
            value = json.loads(line, parse_constant=no_constants)
        except ValueError:
            continue
        if not js_falsy(value):
            values.append(value)
    header = values[0] if values else None
    if not (isinstance(header, dict) and header.get("type") == "session"):
        return []
    return values if isinstance(header.get("id"), str) else []


# %%
solved["lines Pi keeps"] = workshop.check_read_values(read_values)

# %% [markdown] only=solutions
# **Common mistakes.** `json.loads` as it comes accepts `NaN` and `Infinity` (use
# `parse_constant` to refuse them); `str.splitlines()` also splits on U+2028 inside a
# string; Python's `not value` treats `[]` and `{}` as false while JavaScript keeps them;
# dropping lists, strings and numbers (Pi keeps any truthy value); forgetting that a file
# without a header as its first value has no entries at all.

# %% [markdown]
# ### 16. What the request carries
#
# `request_messages(messages, now)` gets provider messages (what `convertToLlm` gives;
# every reply comes from the model being asked) and returns what pi-ai's
# `transformMessages` sends: leave out every assistant message whose `stopReason` is
# `"error"` or `"aborted"`; keep the tool calls of the last reply sent, and before the
# next assistant or user message (and at the end) add, for each call no `toolResult`
# answered, `{"role": "toolResult", "toolCallId": ..., "toolName": ..., "content":
# [{"type": "text", "text": "No result provided"}], "isError": True, "timestamp": now}`;
# a `system` message that comes while calls are open waits until after their results.


# %% only=exercises
def request_messages(messages, now):
    """The messages the request carries."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def request_messages(messages, now):
    """The messages the request carries."""
    out, pending, answered, held = [], [], set(), []

    def close():
        nonlocal pending, answered
        for call in pending:
            if call["id"] not in answered:
                text = [{"type": "text", "text": "No result provided"}]
                out.append(
                    {
                        "role": "toolResult",
                        "toolCallId": call["id"],
                        "toolName": call["name"],
                        "content": text,
                        "isError": True,
                        "timestamp": now,
                    }
                )
        pending, answered = [], set()
        out.extend(held)
        held.clear()

    for message in messages:
        role = message["role"]
        if role == "assistant":
            close()
            if message.get("stopReason") in ("error", "aborted"):
                continue  # an incomplete turn is never replayed
            calls = [b for b in message["content"] if b["type"] == "toolCall"]
            if calls:
                pending, answered = calls, set()
        elif role == "toolResult":
            answered.add(message["toolCallId"])
        elif role == "system" and pending:
            held.append(message)
            continue
        elif role == "user":
            close()
        out.append(message)
    close()
    return out


# %%
solved["what the request carries"] = workshop.check_request_messages(request_messages)

# %% [markdown] only=solutions
# **Common mistakes.** Leaving out aborted replies but keeping failed ones (`"error"`
# counts too); answering the tool calls of a reply that is itself left out; writing the
# missing results only at the end instead of before the next assistant or user message;
# sending a system message where it stood between a call and its results; forgetting
# `isError: True`. The `timestamp` is `Date.now()` at the request: no file can tell it,
# so the checker gives it as `now`.

# %% [markdown]
# ## Score

# %%
print(f"{sum(solved.values())} of {len(solved)} rules right:")
for name, ok in solved.items():
    print(f"  {'✓' if ok else '·'} {name}")

# %% [markdown] only=exercises
# ## Recap
#
# Each checker compared your function with pisession on visible cases and on cases drawn
# at random for this run, and named the first one that differed. When all sixteen say
# **correct**, you have written the chapter's format: the file's name and folder, the
# lines Pi keeps, the leaf, the path, the settings, the kept range and what each entry
# contributes, context edits, the system prompt, usage totals, both migrations and one
# piece of `convertToLlm`, and what pi-ai does before each request. Compare with
# `07-workshop-solutions`.

# %% [markdown] only=solutions
# ## Recap
#
# Sixteen rules, each a few lines of plain Python. The ones people get wrong most often:
# the leaf (the last entry's id, not the newest, even null), the kept range (system messages dropped only
# before the compaction, always), the settings (assistant messages set the model), labels
# (the last one wins, any falsy label clears), a cancelled command (no exit code), and the
# folder name (`C:\work\api` is `--C--work-api--`). Next: auditing the chapter's claims
# against Pi itself.

# %% [markdown]
# ## Part D. Six lessons readers miss
#
# Six short questions that come up when you read **your own** files, each with a
# self-check: write the function, run the check cell. These are not counted in the score
# above. A `[fact: NAME]` names a fact of `data/facts/facts.json`, checked on Pi's own
# recorded answers for every checked Pi version (`tests/test_facts.py`).

# %%
a = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
b = pisession.load(pisession.sample_path("pi-0.87.1-b-rpc-compaction-manual-threshold-overflow"))
c = pisession.load(pisession.sample_path("pi-1.6.0-c-rpc-tree-thinking-labels"))


def self_check(name, answer, cases):
    """Run ``answer(*args)`` on each ``(label, args, test)``; ``test(result)`` returns
    None when the result is right, else what is wrong."""
    try:
        for label, args, test in cases:
            problem = test(answer(*args))
            if problem:
                print(f"{name}: not yet. {label}: {problem}")
                return False
    except NotImplementedError:
        print(f"{name}: not yet (raises NotImplementedError)")
        return False
    print(f"{name}: correct on {len(cases)} cases")
    return True


# %% [markdown]
# ### D1. Why did this compaction fire?
#
# Each cause leaves its own trace. **Overflow**: the reply failed on the context's size;
# Pi hides it with a `context_edit` whose `replacement` is `null`, and the compaction is
# that edit's child (`04`, *Why compaction fired*). **Threshold**: the last reply before
# the compaction reports more tokens (`usage.totalTokens`) than `contextWindow -
# reserveTokens`. **Extension**: an extension produced the summary; the compaction has
# `fromHook: true`. **Manual** (`/compact`): none of these. (A reply cut on output length
# below the model's `maxTokens` is recovered like an overflow
# [fact: overflow-retry-after-length].) Write `compaction_cause(entries, compaction_id,
# window, reserve)` returning `"overflow"`, `"threshold"`, `"extension"` or `"manual"`.


# %% only=exercises
def compaction_cause(entries, compaction_id, window=128000, reserve=16384):
    raise NotImplementedError


# %% only=solutions
def compaction_cause(entries, compaction_id, window=128000, reserve=16384):
    by_id = {e.get("id"): e for e in entries}
    compaction = by_id[compaction_id]
    if compaction.get("fromHook"):
        return "extension"
    parent = by_id.get(compaction["parentId"], {})
    if parent.get("type") == "context_edit" and parent.get("replacement") is None:
        return "overflow"
    entry = parent
    while entry and not (entry["type"] == "message" and entry["message"]["role"] == "assistant"):
        entry = by_id.get(entry.get("parentId"))
    if entry and entry["message"]["usage"]["totalTokens"] > window - reserve:
        return "threshold"
    return "manual"


# %%
# Sample b's three compactions (04 explains each, checked against Pi's _checkCompaction by
# tests/test_compaction_lesson.py), and the same file with the first one marked fromHook.
line_cause = {17: "manual", 24: "threshold", 30: "overflow"}
at_line = {b.line_of(position): entry for position, entry in enumerate(b.entries)}
hooked = [dict(e, fromHook=True) if e["type"] == "compaction" else e for e in b.entries]
first_compaction = next(e["id"] for e in b.entries if e["type"] == "compaction")
cases = [
    (
        f"sample b, line {line}",
        (b.entries, at_line[line]["id"]),
        lambda got, want=want: None if got == want else f"expected {want!r}, got {got!r}",
    )
    for line, want in line_cause.items()
] + [
    (
        "a compaction with fromHook: true",
        (hooked, first_compaction),
        lambda got: None if got == "extension" else f"expected 'extension', got {got!r}",
    )
]
solved_d = {"compaction cause": self_check("compaction cause", compaction_cause, cases)}

# %% [markdown]
# ### D2. Which context produced this reply?
#
# The request that produced a reply carried the context at the reply's **parent**: the
# reply itself did not exist yet. After an overflow recovery the retried reply's parent is
# the compaction, so its request is the context at the compaction: summary and kept range,
# without the failed reply [fact: request-is-context-at-parent]. Write `request_leaf(entries, reply_id)`: the id of
# the leaf whose context Pi sent for that reply.


# %% only=exercises
def request_leaf(entries, reply_id):
    raise NotImplementedError


# %% only=solutions
def request_leaf(entries, reply_id):
    return next(e for e in entries if e.get("id") == reply_id)["parentId"]


# %%
def sent_for(session, reply):
    def test(got):
        if got != reply["parentId"]:
            return f"expected the parent {reply['parentId']!r}, got {got!r}"
        return None

    return (f"reply {reply['id']}", (session.entries, reply["id"]), test)


replies = [
    (s, e)
    for s in (a, b, c)
    for e in s.entries
    if e["type"] == "message" and e["message"]["role"] == "assistant"
]
solved_d["request leaf"] = self_check(
    "request leaf", request_leaf, [sent_for(s, e) for s, e in replies]
)
retry = [e for _, e in replies if _ is b][-1]
request = b.context(retry["parentId"]).to_llm()
print(f"sample b's retried reply {retry['id']}: parent {retry['parentId']} (the compaction)")
print(f"its request: {len(request)} messages, first {[m['role'] for m in request[:2]]}")

# %% [markdown]
# ### D3. Following a file while Pi writes it
#
# Pi appends one line per entry; a reader that looks while Pi writes can see a **torn**
# last line (no newline yet). Pi itself skips a torn line and later appends a newline after
# it [fact: torn-last-line]; a follower should simply wait for the rest.
# `pisession.load(data, complete_lines_only=True)` reads only up to the last `"\n"`.
# Write `complete_part(data)`: the bytes of `data` up to and including its last newline.


# %% only=exercises
def complete_part(data):
    raise NotImplementedError


# %% only=solutions
def complete_part(data):
    return data[: data.rfind(b"\n") + 1]


# %%
raw = pisession.sample_path("pi-0.87.1-a-print-multiturn-tools").read_bytes()


def torn_case(cut):
    def test(got):
        if not raw[:cut].startswith(got) or (got and not got.endswith(b"\n")):
            return "not a prefix ending with a newline"
        want = len(pisession.load(raw[:cut], complete_lines_only=True).entries)
        have = len(pisession.load(got).entries) if got else 0
        return None if have == want else f"{have} entries, complete_lines_only gives {want}"

    return (f"sample a cut at byte {cut}", (raw[:cut],), test)


solved_d["complete lines"] = self_check(
    "complete lines", complete_part, [torn_case(cut) for cut in (400, 3000, 9000, len(raw))]
)

# %% [markdown]
# ### D4. Pairing a tool result with its call
#
# A `toolResult` message names its call by `toolCallId`: the `id` of a `toolCall` block in
# an earlier assistant message (parallel calls put several in one message). Write
# `calls_of_results(entries)`: `{toolCallId: id of the assistant entry that made the
# call}` for every tool result of the file.


# %% only=exercises
def calls_of_results(entries):
    raise NotImplementedError


# %% only=solutions
def calls_of_results(entries):
    made = {}
    for entry in entries:
        message = entry.get("message") or {}
        if entry["type"] == "message" and message.get("role") == "assistant":
            for block in message.get("content") or []:
                if block.get("type") == "toolCall":
                    made[block["id"]] = entry["id"]
    return {
        e["message"]["toolCallId"]: made.get(e["message"]["toolCallId"])
        for e in entries
        if e["type"] == "message" and e["message"]["role"] == "toolResult"
    }


# %%
def pairing(name, session):
    results = [
        e["message"]["toolCallId"]
        for e in session.entries
        if e["type"] == "message" and e["message"]["role"] == "toolResult"
    ]
    by_id = {e.get("id"): e for e in session.entries}

    def test(got):
        if sorted(got) != sorted(set(results)):
            return f"keys {sorted(got)}, the tool results name {sorted(set(results))}"
        for call_id, entry_id in got.items():
            blocks = by_id.get(entry_id, {}).get("message", {}).get("content") or []
            if not any(b.get("type") == "toolCall" and b.get("id") == call_id for b in blocks):
                return f"{call_id}: entry {entry_id!r} made no such call"
        return None

    return (name, (session.entries,), test)


solved_d["tool pairs"] = self_check(
    "tool pairs", calls_of_results, [pairing("sample a", a), pairing("sample c", c)]
)

# %% [markdown]
# ### D5. Diagnosing a damaged tree
#
# A file edited by hand or by another tool can have a `parentId` that names no entry (the
# walk stops there), two entries with one id (the later one wins) or a cycle.
# `session.problems()` lists all three, by position. Write `dangling_parents(entries)`: the
# positions of the entries whose `parentId` is set (not `null`, not `""`) but names no
# entry of the file.


# %% only=exercises
def dangling_parents(entries):
    raise NotImplementedError


# %% only=solutions
def dangling_parents(entries):
    ids = {e.get("id") for e in entries}
    return [i for i, e in enumerate(entries) if e.get("parentId") and e["parentId"] not in ids]


# %%
def damaged(parents):
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "s",
            "timestamp": "2026-01-05T12:00:00Z",
            "cwd": "/w",
        }
    ]
    for i, parent in enumerate(parents):
        lines.append(
            {
                "type": "message",
                "id": f"e{i}",
                "parentId": parent,
                "timestamp": "2026-01-05T12:00:01Z",
                "message": {"role": "user", "content": "x", "timestamp": i},
            }
        )
    session = pisession.load("".join(json.dumps(line) + "\n" for line in lines).encode())
    want = session.problems()["dangling_parents"]
    return (
        f"parents {parents}",
        (session.entries,),
        lambda got: None if list(got) == want else f"expected {want}, got {list(got)}",
    )


solved_d["dangling parents"] = self_check(
    "dangling parents",
    dangling_parents,
    [damaged([None, "e0", "gone", "e2"]), damaged([None, "", "e9", "e1"]), damaged([None, "e0"])],
)
print("sample b:", b.problems())

# %% [markdown]
# ### D6. Reading a file Pi 1.6.0 wrote
#
# Sample c was written by Pi 1.6.0's CLI. Same format; newer fields: `durationMs` on
# assistant messages and tool results, `thinkingLevel` on assistant messages (the level the
# reply ran with), `usage.cost.totalFromProvider`. And when a run starts on a branch whose
# recorded level differs from the live one, 1.6.0 first appends a `thinking_level_change`
# [fact: record-selection-at-run-start], so the level a reply ran with is the context's
# `thinkingLevel` at its parent (on this file; the author's observation, checked below).
# Write `reply_levels(entries)`: `{assistant entry id: the thinkingLevel it ran with}`.


# %% only=exercises
def reply_levels(entries):
    raise NotImplementedError


# %% only=solutions
def reply_levels(entries):
    return {
        e["id"]: e["message"].get("thinkingLevel")
        for e in entries
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    }


# %%
def levels_case():
    def test(got):
        for entry in c.entries:
            if entry["type"] == "message" and entry["message"]["role"] == "assistant":
                at_parent = c.context(entry["parentId"]).to_dict()["thinkingLevel"]
                if got.get(entry["id"]) != at_parent:
                    return (
                        f"{entry['id']}: got {got.get(entry['id'])!r}, context says {at_parent!r}"
                    )
        return None

    return ("sample c", (c.entries,), test)


solved_d["1.6.0 levels"] = self_check("1.6.0 levels", reply_levels, [levels_case()])
print(f"Part D: {sum(solved_d.values())} of {len(solved_d)}")
