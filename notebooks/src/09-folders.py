# ruff: noqa: E402
# title: A folder of sessions: forks and clones counted once
# summary: Usage over a sessions folder that holds a fork and a clone written by Pi: why
#   summing Pi's per-session figures counts the copied history twice, the rule that counts
#   every entry once (same id, timestamp and usage; in the session made first), and the
#   fork-safe total as a table.

# %% [markdown]
# Notebook 06 counted usage as Pi's `/session` view does, one file at a time. A folder is
# another matter: a **fork** (`/fork`, RPC `fork`, `pi --fork`) and a **clone** (`/clone`,
# RPC `clone`) copy their parent's entries, with their ids and their usage, into a new file
# (notebook 02 shows what each route writes). Add Pi's figures file by file and every copy
# is paid for again: the most reported bug of the usage tools Pi users run (ccusage issue
# 1634, "forked sessions replay parent token history and are double-counted").
#
# **You will learn**
#
# - how much a fork and a clone add when each file is counted as Pi counts it;
# - the rule `pisession usage` applies instead: an entry counts once, in the session that
#   wrote it first;
# - how to get the fork-safe total, and Pi's per-file figures when you want them.

# %% [setup]
import pisession

REPOSITORY = ""  # the generated setup cell sets it from pyproject.toml

# %% [markdown]
# ## A small folder: a session, a fork and a clone
#
# `conformance/record-forks.mjs` made Pi's own `SessionManager` fork and clone the tour
# sample the way Pi's commands do, then went on in each with one more question and a reply
# that used tokens (`data/forks/folder/`, `folder.json` names the routes). Three of those
# files make a folder here: the tour, its `pi --fork` copy and its `/clone` copy.

# %%
import json
import tempfile
from pathlib import Path

from pisession.workshop.repository import repository_file

routes = {
    f["file"]: f for f in json.loads(repository_file("data/forks/folder/folder.json"))["files"]
}
folder = Path(tempfile.mkdtemp()) / "sessions"
folder.mkdir()
for name in ("tour.jsonl", "1-cli-fork.jsonl", "3-clone.jsonl"):
    (folder / name).write_bytes(repository_file(f"data/forks/folder/{name}"))
    session = pisession.load(folder / name)
    made = routes[name]["route"] + " of the tour" if name in routes else "the original"
    parent = session.header.get("parentSession")
    parent = parent and Path(parent).name
    print(f"{name:18} {len(session):3} entries  {made}; parentSession: {parent}")

# %% [markdown]
# ## Counted file by file, as Pi's `/session` counts each
#
# `per_file=True` adds Pi's breakdown of each file (`getUsageCostBreakdown`, notebook 06),
# exactly what a tool that sums sessions reports:

# %%
from pisession.folders.usage import scan_folder

files = sorted(folder.glob("*.jsonl"))
per_file = scan_folder(files, by="session", per_file=True, workers=1)
once = scan_folder(files, by="session", workers=1)
print(f"file by file: {per_file.total.tokens:,} tokens, cost {per_file.total.cost:.4f}")
print(f"each entry once: {once.total.tokens:,} tokens, cost {once.total.cost:.4f}")
print(f"copied entries left out: {once.left_out} (in {once.files_with_copies} files)")

# %% [markdown]
# The fork holds every entry of the tour and the clone the entries of its default leaf's
# path, so file by file the tour's replies are paid for again in each copy. Counted once,
# the folder costs the tour plus the two new replies, and nothing more.
#
# ## The rule
#
# An entry that counts usage is **the same entry** in two files when its `id`, its
# `timestamp` and what it counts (the key and the five figures) are the same: Pi's fork
# routes copy all three as they are, while a `parentId` may change (a clone takes labels out
# of the path and writes them again at its end) and `pi --fork` rewrites numbers
# (`2e-05` becomes `0.00002`). It counts in the file that holds it first, files ordered by
# their header's `timestamp`: a session is made before the entries it writes, a fork after
# the entries it copies. So the rule needs no `parentSession` link: a fork whose parent has
# moved, or is not in the folder at all, still counts its copied part once.
# `pisession.folders.forks` is the rule (three short functions); the tests hold it against
# Pi's own breakdown over the distinct entries of folders made by every route Pi has
# (`data/forks/usage.json`, `conformance/record-fork-usage.mjs`).

# %%
from pisession.folders import forks
from pisession.folders.usage import file_header, session_usage

headers = [file_header(f) for f in files]
entries = [session_usage(str(f), identify=True).entries for f in files]
gone = forks.left_out(headers, entries)
for index in forks.file_order(headers):
    left = len(gone.get(index, []))
    counted = len(entries[index].digests)
    print(f"{files[index].name:18} {counted:3} entries with usage, {left:3} left out")

# %% [markdown]
# ## The fork-safe total as a table
#
# Per session, each counting what it wrote itself. `to_records()` gives one plain dict per
# row; `pisession.views.tables.table` shows them as a pandas data frame where pandas is
# installed, else as a plain HTML table (the stored output is whichever this notebook was
# built with). The printed lines under it are the same numbers as text.

# %% tags=nbval-ignore-output
from pisession.views.tables import table

names = {pisession.load(f).header["id"]: f.name for f in files}
records = [{**r, "group": names.get(r["group"], r["group"])} for r in once.to_records()]
table(records)

# %%
for r in records:
    print(f"{r['group']:18} {r['tokens']:>7,} tokens  {r['cost']:.4f}")
print(f"{'total':18} {once.total.tokens:>7,} tokens  {once.total.cost:.4f}")

# %% [markdown]
# On the command line: `pisession usage DIR` counts each entry once and says how many
# copied entries it left out; `pisession usage DIR --per-file` gives Pi's per-session
# figures. `docs/cli.md` shows both on this folder.
#
# **Recap**
#
# - Forks and clones copy entries with their ids, timestamps and usage; summing Pi's
#   per-file figures pays for every copy again.
# - `pisession usage` counts each entry once, in the session made first; a fork whose parent
#   is elsewhere still counts its copied part once.
# - `per_file=True` (`--per-file`) keeps Pi's own per-session numbers.
