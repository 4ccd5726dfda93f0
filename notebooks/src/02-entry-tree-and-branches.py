# ruff: noqa: E402
# title: The entry tree and its branches
# summary: id/parentId make a tree: roots, leaves, the default leaf, the path to a leaf, labels and
#   the session name; drawing the tree. Exercises: the walk, the default leaf, labels.

# %% [markdown]
# Entries do not simply follow each other: each one names its **parent** with
# `parentId`. Together they form a **tree**. When you go back in Pi and ask something
# else, the new entry gets an older parent and a **branch** starts; both branches stay
# in the same file.
#
# **You will learn**
#
# - roots, children and leaves, and the **leaf** Pi uses after loading a file (the last
#   entry in the file, whatever its type);
# - the **path**: the entries from the root to a leaf, found by following `parentId`;
# - labels (bookmarks on entries) and the session name;
# - how to draw the tree with `pisession.draw.draw_tree`.
#
# Three exercises at the end: the walk, the default leaf and labels.

# %% [setup]
import pisession

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
# the tree's shape by **position** (0 = first entry):

# %%
print("roots:", tour.roots())
print("leaves (branch ends):", tour.leaves())
children = tour.children()
print("entries with more than one child:", {p: c for p, c in children.items() if len(c) > 1})

# %% [markdown]
# Entry 7 (`a2000001`, the assistant's first answer) has two children: the label that
# continues the original conversation, and the branch summary that opens the branch. A
# session can also have several **roots** (Pi's `resetLeaf()` starts a new root in the
# same file); the tour has one.
#
# ## The leaf and the path
#
# After loading, Pi's **leaf** is the **last entry in file order**, whatever its type.
# It does not look at timestamps, and it does not skip labels or other non-message
# entries.

# %%
leaf = tour.default_leaf
print("default leaf: position", leaf, "id", tour.entry(leaf)["id"], "line", tour.line_of(leaf))

# %% [markdown]
# The **path** to a leaf is found by following `parentId` from the leaf until there is
# no parent (null, empty, or an id that is not in the file), then reading it root first.
# If two entries share an id (a damaged or hand-edited file), the **later** one in the
# file is the one found: Pi's index of ids is filled in file order. Every context is built
# from a path only: entries on other branches never reach the model.

# %%
for leaf_id in ("a6000001", "cm000001"):
    ids = [e["id"] for e in tour.path(leaf_id)]
    print(f"path to {leaf_id}: {len(ids)} entries")
    print("   ", " > ".join(ids))

# %% [markdown]
# Both paths share the first eight entries up to `a2000001`; then they part.
#
# ## Drawing the tree
#
# `draw_tree(session, leaf_id)` draws every entry as a box coloured by its fate for
# that leaf; the thick line is the path. The default leaf first:

# %%
from pisession.draw import draw_tree

draw_tree(tour)

# %% [markdown]
# The same file seen from the other branch's leaf: now the compaction and everything
# after the branch point are *off-path* (grey), and the branch is the path.

# %%
draw_tree(tour, "cm000001")

# %% [markdown]
# A real Pi session without branches is one straight line. Long runs of entries with
# the same fate are collapsed into one box:

# %%
a = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
print("roots:", a.roots(), "leaves:", a.leaves())
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
# label Pi itself writes a label entry without the field). A `session_info` entry names
# the session; the latest one decides. Both are ordinary entries: Pi appends them as
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
# ## Explore the branches yourself
#
# `branch_explorer(session)` lets you pick any leaf from a list; it shows that leaf's
# drawing, and below it the context the leaf sends. (Interactive: run the notebook to use
# it. The stored output is not compared by the tests.)

# %% tags=nbval-ignore-output
from pisession.explorers import branch_explorer

branch_explorer(tour)

# %% [markdown]
# ## Recap
#
# - `parentId` links entries into a tree; a file can hold several roots and many
#   branches.
# - The leaf Pi uses after loading is the **last entry in the file**; the **path** is
#   found by walking `parentId` from the leaf to a root, then read root first.
# - Labels and the session name are entries too, resolved over the whole file.
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
# as the leaf right after loading a file.


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
