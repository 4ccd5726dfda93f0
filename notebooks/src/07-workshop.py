# ruff: noqa: E402, F811
# variants: exercises, solutions
# title[exercises]: Workshop: exercises
# title[solutions]: Workshop: solutions
# summary[exercises]: Write the rules yourself (the walk, the default leaf, the kept range, the
#   session folder name, labels, a bash execution for the model); self-checking cells say what is
#   right or wrong.
# summary[solutions]: The same exercises solved; every checker says correct.

# %% [markdown] only=exercises
# Six small functions, each one rule of the chapter. Write them in plain Python over
# plain dicts (no pisession needed). After each one, a checker runs your function on the
# bundled samples (several leaves each) and on a few tiny hand-made files, compares
# every answer with pisession (which matches Pi 0.87.1), and tells you what is right or
# wrong: the first case that differs, and a hint.
#
# Replace each `raise NotImplementedError` with your code, then run the cell and the
# checker below it. The answers are in `07-workshop-solutions`.

# %% [markdown] only=solutions
# The exercises of `07-workshop-exercises`, solved. Every checker below says
# **correct**: it ran the function on the bundled samples and on tiny hand-made files
# and compared each answer with pisession (which matches Pi 0.87.1).

# %% [markdown]
# **You will practise**
#
# 1. the walk from a leaf to the root;
# 2. the default leaf after loading;
# 3. the kept range of a compaction;
# 4. the session folder name for a working directory;
# 5. label resolution;
# 6. turning a bash execution into the message the provider receives.

# %% [setup]
import pisession

# %%
from pisession import workshop

tour = pisession.load(pisession.sample_path("tour"))
solved = {}

# %% [markdown]
# ## 1. The walk from leaf to root
#
# `walk(entries, leaf_id)` gets the file's entries (dicts, file order, header excluded)
# and returns the ids from the root to the leaf, **root first**. Follow `parentId` from
# the leaf; stop when it is null, empty, or names no entry. (If two entries share an id,
# the later one counts.) The entries look like this:

# %%
for entry in tour.entries[:3]:
    print({k: entry[k] for k in ("type", "id", "parentId", "timestamp")})


# %% only=exercises
def walk(entries, leaf_id):
    """Ids from the root to ``leaf_id``, root first."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
def walk(entries, leaf_id):
    """Ids from the root to ``leaf_id``, root first."""
    by_id = {e["id"]: e for e in entries}
    path, entry = [], by_id[leaf_id]
    while entry is not None:
        path.append(entry["id"])
        parent = entry.get("parentId")
        entry = by_id.get(parent) if parent else None
    return path[::-1]


# %%
solved["walk"] = workshop.check_walk(walk)

# %% [markdown]
# ## 2. The default leaf
#
# `default_leaf(entries)` returns the id of the entry Pi treats as the leaf right after
# loading a file. (Notebook 02 says which one. Tools that pick the newest timestamp, or
# the last *message*, get it wrong.)


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

# %% [markdown]
# ## 3. The kept range
#
# `kept_range(path)` gets the entries of one path, root first, and returns the ids of
# the entries Pi **selects** for the context, in context order:
#
# - no compaction on the path: every entry;
# - otherwise, with C the **newest** compaction: C first; then the entries before C,
#   starting at the one whose id equals `C["firstKeptEntryId"]`, but **not** system
#   messages (`type == "message"` and `message.role == "system"`); then every entry
#   after C. If no entry before C has that id, none of them is kept.

# %%
path = tour.path()
print([(e["id"], e["type"]) for e in path[-6:]])


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

# %% [markdown]
# ## 4. The session folder name
#
# Pi stores a session under `~/.pi/agent/sessions/<folder>/`, where `<folder>` comes
# from the working directory: remove **one** leading `/` or `\`, replace every `/`, `\`
# and `:` with `-`, and put `--` before and after. `session_dir_name(cwd)` returns the
# folder name, for Unix and Windows paths alike
# (`"/home/reader/projects/demo-app"` -> `"--home-reader-projects-demo-app--"`).


# %% only=exercises
def session_dir_name(cwd):
    """The folder name Pi derives from a working directory."""
    # Your code here.
    raise NotImplementedError


# %% only=solutions
import re


def session_dir_name(cwd):
    """The folder name Pi derives from a working directory."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


# %%
solved["session folder"] = workshop.check_session_dir_name(session_dir_name)

# %% [markdown]
# ## 5. Labels
#
# `resolve_labels(entries)` returns `{target_id: label}`. Go through the `label` entries
# in file order: a non-empty `label` sets the label of `targetId`; an empty or missing
# one removes it.

# %%
print([e for e in tour.entries if e["type"] == "label"])


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

# %% [markdown]
# ## 6. A bash execution, as the model sees it
#
# When you run a shell command yourself in Pi (`!ls`), the file stores a message with
# role `bashExecution`. Before a request, Pi turns it into a **user** message with one
# text block, keeping the `timestamp`:
#
# - return `None` when `excludeFromContext` is true (commands run with `!!`);
# - the text is ``"Ran `COMMAND`\n"``, then the output inside a fence
#   ```` "```\n" + output + "\n```" ````, or `"(no output)"` when the output is empty;
# - then `"\n\n(command cancelled)"` if `cancelled`, otherwise
#   `"\n\nCommand exited with code N"` when `exitCode` is neither 0 nor None;
# - then `"\n\n[Output truncated. Full output: PATH]"` when `truncated` and
#   `fullOutputPath` are both set.

# %%
example = workshop.bash_cases()[1]
print(example.args[0])
print(example.expected)


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

# %% [markdown]
# ## Score

# %%
print(f"{sum(solved.values())} of {len(solved)} rules right:")
for name, ok in solved.items():
    print(f"  {'✓' if ok else '·'} {name}")

# %% [markdown] only=exercises
# ## Recap
#
# Each checker compared your function with pisession on many cases and named the first
# one that differed. When all six say **correct**, you have written the heart of the
# chapter: the path, the leaf, the kept range, the folder name, labels and one piece of
# `convertToLlm`. Compare with `07-workshop-solutions`.

# %% [markdown] only=solutions
# ## Recap
#
# Six rules, each a few lines of plain Python: the path (follow `parentId`, reverse),
# the leaf (the last entry), the kept range (newest compaction first, kept range without
# system messages, then the rest), the folder name (one leading separator removed,
# `/ \ :` to `-`), labels (file order, empty clears) and a bash execution (a user
# message in Pi's exact words). Next: auditing the chapter's claims.
