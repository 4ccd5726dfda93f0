# ruff: noqa: E402
# title: The entry tree and its branches
# summary: id/parentId make a tree: roots, leaves, the default leaf, the path to a leaf, labels and
#   the session name; what /clone, /fork and pi --fork write (files Pi wrote); drawing the tree.
#   Exercises: the walk, the default leaf, labels.

# %% [markdown]
# Entries do not simply follow each other: each one names its **parent** with
# `parentId`. Together they form a **tree**. When you go back in Pi and ask something
# else, the new entry gets an older parent and a **branch** starts; both branches stay
# in the same file.
#
# **You will learn**
#
# - roots, children and leaves, and the **leaf** Pi uses after loading a file (the last
#   entry in the file, whatever its type) [fact: default-leaf-last-entry];
# - the **path**: the entries from the root to a leaf, found by following `parentId`;
# - labels (bookmarks on entries) and the session name;
# - what `/clone`, `/fork` and `pi --fork` write: a new file, from files Pi 0.87.1 wrote;
# - how to draw the tree with `pisession.views.draw.draw_tree`.
#
# Three exercises at the end: the walk, the default leaf and labels.

# %% [setup]
import pisession

REPOSITORY = ""  # the generated setup cell sets it from pyproject.toml

# %% [markdown]
# ## Parents and children
#
# The tour is a small hand-made session built to show every feature in one picture.
# Here is each entry with its parent, in file order:

# %%
tour = pisession.load(pisession.sample_path("tour"))
for position, entry in enumerate(tour.entries):
    kind = entry["type"] + (f"/{entry['message']['role']}" if entry["type"] == "message" else "")
    print(f"line {tour.line_of(position):2}  {entry['id']}  parent={entry['parentId']!s:9}  {kind}")

# %% [markdown]
# Most entries point at the line just above them. Not all: `bs000001` (line 18) points
# back at `a2000001` (line 9), which already has a child (`lb000001`, line 10): a branch
# starts there. And `sys00002` (line 22) continues the first branch from `cu000001`
# (line 17): the lines of the two branches are interleaved in the file. pisession gives
# the tree's shape by **position** (0 = first entry), here with each entry's id and line:


# %%
def where(session, positions):
    """Each position with its entry's id and line, the names used above."""
    return ", ".join(
        f"{p} = {session.entry(p)['id']} (line {session.line_of(p)})" for p in positions
    )


print("roots:", where(tour, tour.roots()))
print("leaves (branch ends):", where(tour, tour.leaves()))
children = tour.children()
print("entries with more than one child:", {p: c for p, c in children.items() if len(c) > 1})

# %% [markdown]
# Entry 7 (`a2000001`, the assistant's first answer) has two children: the label that
# continues the original conversation, and the branch summary that opens the branch. A
# session can also have several **roots** (Pi's `resetLeaf()` starts a new root in the
# same file) [fact: new-root-in-same-file]; the tour has one.
#
# ## The leaf and the path
#
# After loading, Pi's **leaf** is the **last entry in file order**, whatever its type.
# It does not look at timestamps, and it does not skip labels or other non-message
# entries [fact: default-leaf-last-entry].

# %%
leaf = tour.default_leaf
print("default leaf: position", leaf, "id", tour.entry(leaf)["id"], "line", tour.line_of(leaf))

# %% [markdown]
# Strictly, Pi's `SessionManager` keeps the last entry's **id** as its leaf, without
# looking at it. Where that id is `null` (a hand-edited or damaged file), the leaf is
# null: there is no path, and Pi builds an **empty** context [fact: default-leaf-null-id].
# pisession does the same
# (`default_leaf` is `None`, and `explain` says why); a last entry with no `id` at all is
# different: the leaf is undefined, and Pi walks from the last entry itself
# [fact: default-leaf-missing-id].

# %%
null_id = pisession.loads(
    b'{"type":"session","version":3,"id":"s1","timestamp":"2026-02-01T10:00:00Z","cwd":"/"}\n'
    b'{"type":"message","id":"u1","parentId":null,"timestamp":"2026-02-01T10:00:01Z",'
    b'"message":{"role":"user","content":"hi"}}\n'
    b'{"type":"label","id":null,"parentId":"u1","timestamp":"2026-02-01T10:00:02Z",'
    b'"targetId":"u1","label":"start"}\n'
)
last = null_id.entry(len(null_id) - 1)
print("last entry:", last["type"], "with id", last["id"])
print("default leaf:", null_id.default_leaf, "; messages:", len(null_id.context().messages))

# %% [markdown]
# The **path** to a leaf is found by following `parentId` from the leaf until there is
# no parent (null, empty, or an id that is not in the file), then reading it root first
# (a `null` and a missing `parentId` are the same to Pi [fact: null-or-missing-parent-root]).
# If two entries share an id (a damaged or hand-edited file), the **later** one in the
# file is the one found: Pi's index of ids is filled in file order. Every context is built
# from a path only: entries on other branches never reach the model.

# %%
import textwrap

for leaf_id in ("a6000001", "cm000001"):
    ids = [e["id"] for e in tour.path(leaf_id)]
    print(f"path to {leaf_id}: {len(ids)} entries")
    print(textwrap.fill(" > ".join(ids), 88, initial_indent="    ", subsequent_indent="    "))

# %% [markdown]
# Both paths share the first eight entries up to `a2000001`; then they part.
#
# ## Drawing the tree
#
# `draw_tree(session, leaf_id)` draws every entry as a box coloured by its fate for
# that leaf; the thick line is the path. The default leaf first:

# %%
from pisession.views.draw import draw_tree

draw_tree(tour)

# %% [markdown]
# The same file seen from the other branch's leaf: now the compaction and everything
# after the branch point are *off-path* (grey), and the branch is the path.

# %%
draw_tree(tour, "cm000001")

# %% [markdown]
# A real Pi session without branches is one straight line: one root, one leaf. With
# `collapse=True`, runs of entries with the same fate are drawn as one box; user
# messages stay visible, so the picture still shows where each turn starts:

# %%
a = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
print("roots:", where(a, a.roots()), " leaves:", where(a, a.leaves()))
draw_tree(a, collapse=True)

# %% [markdown]
# The tree is also available as a `networkx.DiGraph` (nodes are positions, edges go
# parent -> child) for your own analysis:

# %%
import networkx as nx

graph = tour.tree()
print(graph.number_of_nodes(), "nodes,", graph.number_of_edges(), "edges")
print("longest root-to-leaf chain:", nx.dag_longest_path_length(graph) + 1, "entries")
print("node 9:", graph.nodes[9])

# %% [markdown]
# ## Several roots
#
# A file may hold several trees. This tiny file, made in memory with two small helpers
# from `pisession.build`, has two roots; each leaf's path starts at its own root:

# %%
from pisession.build import new_entry, tiny_session

two_roots = tiny_session(
    new_entry("message", "u1", None, 1, message={"role": "user", "content": "first"}),
    new_entry("message", "a1", "u1", 2, message={"role": "assistant", "content": []}),
    new_entry("message", "u2", None, 3, message={"role": "user", "content": "fresh start"}),
    name="two-roots.jsonl",
)
print("roots:", [two_roots.entry(p)["id"] for p in two_roots.roots()])
for leaf in two_roots.leaves():
    leaf_id = two_roots.entry(leaf)["id"]
    print(leaf_id, "->", [e["id"] for e in two_roots.path(leaf_id)])

# %% [markdown]
# ## Labels and the session name
#
# A `label` entry puts a bookmark on another entry (`targetId`); a later label for the
# same target replaces it, and an empty, `null` or missing `label` removes it (to clear a
# label Pi itself writes a label entry without the field) [fact: labels-falsy-clears]. A
# `session_info` entry names the session; the latest one decides [fact: session-name-latest].
# Both are ordinary entries: Pi appends them as
# children of whatever was the leaf at the time, which need not be the entry they name
# (in the tour the label happens to follow its target).

# %%
print("labels:", tour.labels)
print("name:", tour.name)
label_entry = next(e for e in tour.entries if e["type"] == "label")
print(
    "the label entry's parent:", label_entry["parentId"], "- its target:", label_entry["targetId"]
)

# %% [markdown]
# The real samples were written by Pi's non-interactive modes and have neither:

# %%
print(a.labels, a.name)

# %% [markdown]
# ## What `/clone`, `/fork` and `pi --fork` write
#
# Branches live inside one file. Three commands start a **new file** from an old one
# instead, and the old file is left as it is. Each is a call of Pi's `SessionManager`:
#
# - `/clone`: `createBranchedSession(leaf)`; the new file holds the path to the current leaf;
# - `/fork` on a user message: `createBranchedSession(parentId of that message)`; the path up
#   to the message's parent (the message's text goes back into the editor);
# - `/fork` on a user message with no parent: `newSession({parentSession})`; a new, empty
#   session;
# - `pi --fork FILE`: `SessionManager.forkFrom(FILE, cwd, dir)`; every entry of every branch.
#
# (`fork` in `agent-session-runtime.js`, `handleCloneCommand` in `interactive-mode.js`,
# `forkSessionOrExit` in `main.js`.) Every new file starts with a new header: a new `id`
# and `timestamp`, and `parentSession`, the path of the file it came from.
#
# `conformance/record-forks.mjs` made Pi 0.87.1 do each of these in Node 20, on copies of
# the tour and of real sample **a**, and kept the files it wrote, byte for byte, in
# `data/forks/` (`forks.json` lists what was called). The cells read those files with
# `repository_file` (from the checkout, or downloaded from the repository on Colab):

# %%
import json

from pisession.workshop.repository import repository_file

forks = json.loads(repository_file("data/forks/forks.json"))
cases = {case["name"]: case for case in forks["cases"]}
for case in forks["cases"]:
    written = "a file at once" if case["writtenAtOnce"] else "no file yet"
    print(f"{case['command']}\n    {case['call']}: {written}")
print("the files forked from left unchanged:", forks["sourcesUnchanged"])


def fork_file(name):
    """One file Pi wrote, read with pisession."""
    return pisession.loads(repository_file(f"data/forks/{name}"), name)


# %% [markdown]
# ### `/clone`: one path, labels moved to the end
#
# The tour's default leaf is `a6000001`. The clone holds its path and nothing of the other
# branch. Compare it with the source, entry by entry:

# %%
clone = fork_file(cases["clone-tour"]["file"])
source_path = tour.path("a6000001")
by_id = {e["id"]: e for e in source_path}
for position, entry in enumerate(clone.entries):
    old = by_id.get(entry["id"])
    if old is None:
        change = "new entry"
    elif old == entry:
        change = "copied unchanged"
    else:
        change = f"copied, parentId {old['parentId']} -> {entry['parentId']}"
    print(f"line {clone.line_of(position):2}  {entry['id']}  {entry['type']:21}  {change}")
missing = [e["id"] for e in source_path if e["id"] not in {x["id"] for x in clone.entries}]
print("on the path but not copied:", missing)
for key in ("cwd", "parentSession"):
    print(f"header {key}: {clone.header[key]}")

# %% [markdown]
# So a clone is not a plain copy of the path's lines:
#
# - the **label** `lb000001` is dropped from its place, and the entry that followed it,
#   `u2000001`, is **re-linked** to the label's parent: an earlier entry is rewritten;
# - the labels in force for entries of the path are written again **at the end**, as new
#   entries with **new ids**, chained after the last entry, keeping the target, the text
#   and the old timestamp;
# - everything else is copied as it was, the compaction included.
#
# The model sees the same context from the clone as from the source, and the label still
# marks the same entry:

# %%
new_label = clone.entries[-1]
old_label = tour.entry(tour.position_of("lb000001"))
same = {k: new_label[k] == old_label[k] for k in ("id", "targetId", "label", "timestamp")}
print("new label vs old:", same)
print("new label's parent:", new_label["parentId"])
print("labels:", clone.labels)
same_context = clone.context().to_json() == tour.context("a6000001").to_json()
print("same context as the source:", same_context)
assert same_context
assert same == {"id": False, "targetId": True, "label": True, "timestamp": True}
assert clone.entry(clone.position_of("u2000001"))["parentId"] == "a2000001"

# %% [markdown]
# ### `/fork` on a user message
#
# `/fork` on `u4000001` ("Run the tests.") copies the path up to that message's parent, the
# compaction `cp000001`: the message itself is not copied [fact: fork-copies-path-to-parent]
# (Pi puts its text back into the editor, to be sent again or changed: the author's
# explanation, from `interactive-mode.js`). The label is rewritten at the end here too:

# %%
fork = fork_file(cases["fork-tour-u4000001"]["file"])
print([e["id"] for e in fork.entries][-4:])
print("u4000001 copied:", "u4000001" in {e["id"] for e in fork.entries})

# %% [markdown]
# ### `/fork` on the first user message
#
# In a file Pi wrote, the first user message is not a root: Pi puts the model, the
# thinking level and the system message before it. So `/fork` on it still calls
# `createBranchedSession`, with the system message's id, and copies those three entries.
# Pi 0.87.1 writes **no file** while the copied path holds no assistant message, and 1.6.0
# none either, since the copy holds no user message
# [fact: fork-before-first-user-message-not-written]; the file appears with the first
# reply (1.6.0: the next prompt), the copied entries and the new turn in it:

# %%
first = cases["fork-real-first-user"]
print("written at once:", first["writtenAtOnce"], "- entries in memory:", first["entriesInMemory"])
after = fork_file(first["file"])
for position, entry in enumerate(after.entries):
    kind = entry["type"] + (f"/{entry['message']['role']}" if entry["type"] == "message" else "")
    print(f"line {after.line_of(position)}  {entry['id']}  parent={entry['parentId']!s:9}  {kind}")

# %% [markdown]
# Only a user message with **no parent** (a file another tool wrote, or a new root made
# after going back to the very start) makes `/fork` begin an empty session: no entry is
# copied and nothing is written; the header, held in memory, names the old file.

# %%
root = cases["fork-root-user"]
print("written:", root["writtenAtOnce"], "- entries:", root["entriesInMemory"])
for key in ("cwd", "parentSession"):
    print(f"header {key}: {root['header'][key]}")

# %% [markdown]
# ### `pi --fork`: every branch, for another folder
#
# `pi --fork FILE` (run in another project) keeps the whole tree: every entry of every
# branch, in file order, with the same ids and parents, under a header whose `cwd` is the
# new project [fact: fork-from-keeps-whole-tree]. Pi parses each line and writes it again
# with `JSON.stringify`: the values are the same, the bytes need not be (a line Pi cannot
# parse is not copied) [fact: lines-pi-keeps].

# %%
forked_raw = repository_file(f"data/forks/{cases['pi-fork-tour']['file']}")
forked = pisession.loads(forked_raw, "pi-fork-tour.jsonl")
print("same entries as the source:", forked.entries == tour.entries)
for key in ("cwd", "parentSession"):
    print(f"header {key}: {forked.header[key]}")
tour_lines = repository_file("data/samples/tour.jsonl").splitlines()[1:]
for old, new in zip(tour_lines, forked_raw.splitlines()[1:], strict=True):
    if old != new:
        at = next(i for i, (a, b) in enumerate(zip(old, new)) if a != b)
        print("a line with other bytes:", old[at - 20 : at + 10])
        print("                     now:", new[at - 20 : at + 12])
assert forked.entries == tour.entries

# %% [markdown]
# ## Explore the branches yourself
#
# `branch_explorer(session)` lets you pick any leaf from a list; it shows that leaf's
# drawing, and below it the context the leaf sends. (Interactive: run the notebook to use
# it. The stored output is not compared by the tests.)

# %% tags=nbval-ignore-output
from pisession.views.explorers import branch_explorer

branch_explorer(tour)

# %% [markdown]
# ## Recap
#
# - `parentId` links entries into a tree; a file can hold several roots and many
#   branches.
# - The leaf Pi uses after loading is the **last entry in the file** (its id: a null id
#   is no leaf, and an empty context) [fact: default-leaf-last-entry]
#   [fact: default-leaf-null-id]; the **path** is
#   found by walking `parentId` from the leaf to a root, then read root first.
# - Labels and the session name are entries too, resolved over the whole file.
# - `/clone` and `/fork` write a **new file** holding one path (labels rewritten at its
#   end); `pi --fork` copies every entry of every branch. The old file is not touched.
# - `draw_tree(session, leaf_id)` draws the tree with the path and the fate of each
#   entry. Next: which entries of a path become the context, and what each contributes.

# %% [markdown]
# ## Exercises
#
# Write each rule in plain Python over plain dicts, then run the cell: the checker runs
# your function on the samples, on small files made for the corners (duplicate ids, a
# label as the last line, ...) and on cases **drawn at random for each run**, and says
# what differs, with a hint. Answers and the common mistakes: `07-workshop-solutions`.

# %%
from pisession import workshop

# %% [markdown]
# **1. The walk.** `walk(entries, leaf_id)` gets the file's entries (dicts, file order,
# header excluded) and returns the ids from the root to the leaf, **root first**.


# %%
def walk(entries, leaf_id):
    """Ids from the root to ``leaf_id``, root first."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_walk(walk)

# %% [markdown]
# **2. The default leaf.** `default_leaf(entries)` returns the id of the entry Pi treats
# as the leaf right after loading a file [fact: default-leaf-last-entry].


# %%
def default_leaf(entries):
    """Id of the leaf Pi uses after loading."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_default_leaf(default_leaf)

# %% [markdown]
# **3. Labels.** `resolve_labels(entries)` returns `{target_id: label}` for the labels in
# force after reading the whole file.


# %%
def resolve_labels(entries):
    """Labels in force: target id -> label."""
    # Your code here.
    raise NotImplementedError


ok = workshop.check_labels(resolve_labels)
