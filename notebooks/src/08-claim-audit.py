# ruff: noqa: E402
# title: Claim audit
# summary: The chapter's claims checked against Pi 0.87.1's rules on real sample data and the
#   conformance corpus, with a verdict per claim (holds / wrong / needs nuance).

# %% [markdown]
# A chapter about a file format makes many small claims: how many entry types there are,
# what an id looks like, where the files live. This notebook checks each one by running
# pisession on real data: the files written by Pi 0.87.1, the bundled samples, and (in a
# repository checkout or on Binder) the conformance corpus, whose 441 files come with Pi
# 0.87.1's own reading of them ("goldens").
#
# **You will learn**
#
# - which of the chapter's statements hold exactly, which need a nuance, and which are
#   wrong for Pi 0.87.1;
# - how to turn a prose claim into a check that can fail.
#
# Each claim below is a short paraphrase of the chapter's statement. Every verdict is
# computed by the check next to it, never typed in.

# %% [setup]
import pisession  # noqa: I001

# %%
import json
import re
from pathlib import Path

from pisession.build import new_entry, tiny_session
from pisession.files import session_dir_name

HOLDS, NUANCE, WRONG, UNCHECKED = "holds", "needs nuance", "wrong", "not checked here"

samples = {
    name: pisession.load(pisession.sample_path(name), new_id=pisession.sequential_ids())
    for name in pisession.sample_names()
}
real = [
    samples[n]
    for n in (
        "pi-0.87.1-a-print-multiturn-tools",
        "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow",
    )
]
tour = samples["tour"]

corpus = Path("..", "data", "conformance")
if not corpus.is_dir():
    corpus = None  # Colab, or an installed package: only the bundled samples are used
print(
    "conformance corpus:",
    "found" if corpus else "not available (use a repository checkout or Binder)",
)


def pi_agrees(name):
    """(cases, agreeing) for one corpus file: pisession's context vs Pi's golden."""
    folder = "edge" if not name.startswith("gen-") else "generated"
    golden = json.loads((corpus / folder / f"{name}.golden.json").read_text())
    session = pisession.load(corpus / folder / f"{name}.jsonl")
    cases = [c for c in golden["cases"] if "context" in c]
    agree = sum(json.loads(session.context(c["leaf"]).to_json()) == c["context"] for c in cases)
    return len(cases), agree


def corpus_note(*names):
    if corpus is None:
        return ""
    results = [pi_agrees(n) for n in names]
    cases, agree = sum(r[0] for r in results), sum(r[1] for r in results)
    files = ", ".join(f"`{n}`" for n in names)
    return f" Corpus: pisession agrees with Pi on {agree}/{cases} contexts of {files}."


audit = []


def claim(text):
    def register(check):
        audit.append((text, check))
        return check

    return register


# %% [markdown]
# ## The claims and their checks

# %%
ELEVEN = {
    "message",
    "model_change",
    "thinking_level_change",
    "usage",
    "compaction",
    "context_edit",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
}


@claim("There are eleven entry types.")
def _():
    seen = {e["type"] for s in real for e in s.entries}
    if corpus:
        for f in sorted((corpus / "generated").glob("gen-v3-*.jsonl")):
            seen |= {e.get("type") for e in pisession.load(f).entries if isinstance(e, dict)}
    verdict = HOLDS if seen <= ELEVEN and (corpus is None or seen == ELEVEN) else WRONG
    where = (
        "the real samples and 300 sessions written by Pi's SessionManager"
        if corpus
        else "the real samples"
    )
    return verdict, (
        f"{len(ELEVEN)} types; {where} use {len(seen)} of them and no other. Unknown types "
        "are kept and contribute nothing." + corpus_note("unknown-entry-type-and-fields")
    )


HEX8 = re.compile(r"^[0-9a-f]{8}$")


@claim("An entry id is 8 hexadecimal characters.")
def _():
    entry_ids = [e["id"] for s in real for e in s.entries]
    session_ids = [s.id for s in real]
    all_hex = all(HEX8.match(i) for i in entry_ids)
    uuid7 = all(
        re.match(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", i)
        for i in session_ids
    )
    verdict = WRONG if not all_hex else NUANCE if uuid7 or corpus else HOLDS
    return verdict, (
        f"All {len(entry_ids)} entry ids in the real files are 8 hex characters, but the session "
        f"id in the header is a full UUID (version 7: {session_ids[0]}), and entries with full "
        "UUID ids work the same: never assume a length." + corpus_note("full-uuid-ids")
    )


@claim("Version 3 renamed the `hookMessage` role to `custom`.")
def _():
    v2 = samples["legacy-v2"]
    changes = [c for step in v2.migration_steps for c in step.changes if c.field != "version"]
    renamed = all(
        (c.field, c.before, c.after) == ("message.role", "hookMessage", "custom") for c in changes
    )
    custom_entry_untouched = any(e["type"] == "custom" for e in v2.entries)
    verdict = HOLDS if changes and renamed and custom_entry_untouched else WRONG
    return verdict, (
        f"Migrating `legacy-v2` changes {len(changes)} field(s), all `message.role` "
        "hookMessage -> custom; the `custom` entry type (extension state) is a different thing "
        "and is left alone. A file already at version 3 is not migrated."
        + corpus_note("v2-hookmessage-renamed", "v3-stray-hookmessage-dropped-by-llm")
    )


@claim("A usage entry's `kind` is an open set: any kind counts.")
def _():
    usage = {"input": 5, "output": 1, "cost": {"total": 0.5}}
    kinds = ("session-title", "invented-by-an-extension")
    costs = {
        kind: tiny_session(new_entry("usage", "u", None, 1, kind=kind, usage=usage))
        .stats()
        .usage.cost
        for kind in kinds
    }
    verdict = HOLDS if len(set(costs.values())) == 1 and 0.5 in costs.values() else WRONG
    used = sorted({e.get("kind") for e in tour.entries if e["type"] == "usage"})
    return verdict, (
        f"A usage entry counts in the totals whatever its kind ({' and '.join(map(repr, costs))} "
        f"both add 0.5). The tour uses {used}."
    )


@claim("The header's `parentSession` names the session a file was forked from.")
def _():
    if corpus is None:
        return UNCHECKED, "Needs the corpus (repository checkout or Binder)."
    header = pisession.load(corpus / "edge" / "header-parent-session.jsonl").header
    value = header["parentSession"]
    is_path = value.endswith(".jsonl") and "/" in value
    return (NUANCE if is_path else HOLDS), (
        f"It is the parent's **file path** (`{value}`), not its id: Pi 0.87.1 "
        "writes the previous session file there. It does not affect the context."
        + corpus_note("header-parent-session")
    )


@claim("Sessions started in `C:\\work\\api` are stored under `--C-work-api--`.")
def _():
    computed = session_dir_name("C:\\work\\api")
    unix = session_dir_name(real[0].header["cwd"])
    verdict = HOLDS if computed == "--C-work-api--" else WRONG
    return verdict, (
        f"Pi's rule (remove one leading `/` or `\\`, turn every `/`, `\\` and `:` into `-`) gives "
        f"`{computed}`: the drive colon becomes a dash too. For the real sample's cwd it "
        f"gives `{unix}`."
    )


@claim("System messages in the kept range are dropped.")
def _():
    dropped = [f.id for f in tour.fates() if f.fate == "dropped-system"]
    verdict = HOLDS if dropped else WRONG
    return verdict, (
        f"In the tour `{', '.join(dropped)}` lies in the kept range and is not sent; the "
        "compaction's stored system message stands in for it. A system message after the "
        "compaction is sent."
        + corpus_note("compaction-drops-system-in-kept-range", "compaction-first-kept-is-system")
    )


@claim("The thinking level comes from the path only.")
def _():
    s = tiny_session(
        new_entry("message", "u1", None, 1, message={"role": "user", "content": "hi"}),
        new_entry("thinking_level_change", "t1", "u1", 2, thinkingLevel="high"),
        new_entry("message", "u2", "u1", 3, message={"role": "user", "content": "other branch"}),
    )
    levels = (s.context("t1").thinking_level, s.context("u2").thinking_level)
    verdict = HOLDS if levels == ("high", "off") else WRONG
    return verdict, (
        f"A branch that never saw the change reports {levels[1]!r} while the other reports "
        f"{levels[0]!r}; the summarized part of the path still counts."
        + corpus_note("thinking-level-off-on-other-branch", "settings-from-summarized-part")
    )


@claim("After loading, the leaf is the last entry of the file.")
def _():
    note = ""
    verdict = HOLDS if all(s.default_leaf == len(s) - 1 for s in samples.values()) else WRONG
    if corpus:
        total = agree = 0
        for golden_path in sorted(corpus.glob("*/*.golden.json")):
            golden = json.loads(golden_path.read_text())
            case = next((c for c in golden["cases"] if c["leaf"] is None and "context" in c), None)
            if case is None or golden.get("headerVersion") in (1, None):
                continue  # no default case, or ids re-generated by the v1 migration
            session = pisession.load(
                golden_path.with_name(golden_path.name.replace(".golden.json", ".jsonl"))
            )
            if len(session) == 0:
                continue
            last = session.entry(len(session) - 1)
            if not isinstance(last, dict) or "id" not in last:
                continue
            total += 1
            agree += json.loads(session.context(last["id"]).to_json()) == case["context"]
        verdict = verdict if agree == total else WRONG
        note = (
            f" Corpus: in {agree}/{total} files Pi's default context equals pisession's "
            "context at the last entry."
        )
    return verdict, (
        "Whatever its type (a label, a usage entry, ...) and whatever the timestamps say."
        + note
        + corpus_note("default-leaf-is-last-entry-any-type")
    )


@claim("A compaction keeps the entries from `firstKeptEntryId` on.")
def _():
    entry = tour.entry(tour.projection().compaction)
    path = tour.path()
    start = [e["id"] for e in path].index(entry["firstKeptEntryId"])
    naive = [e["id"] for e in path[start:] if e["type"] != "compaction"]
    kept = [i.id for i in tour.projection().entries[1:]]
    verdict = HOLDS if kept == naive else NUANCE
    return verdict, (
        "Only entries *before* the compaction on the path are looked up; system messages "
        f"among them are skipped (tour: {len(naive)} entries from the first kept one to the "
        f"leaf, {len(kept)} selected). When no earlier entry has that id (retain-none "
        "compactions store their own id) nothing before it is kept, and an older compaction "
        "inside the range contributes nothing."
        + corpus_note(
            "compaction-retain-none",
            "compaction-first-kept-not-found",
            "older-compaction-in-kept-range-contributes-nothing",
        )
    )


@claim("In a version 1 file, `firstKeptEntryIndex` counts the header as index 0.")
def _():
    v1 = samples["legacy-v1"]
    compaction = next(e for e in v1.entries if e["type"] == "compaction")
    raw = [json.loads(line) for line in pisession.sample_path("legacy-v1").read_text().splitlines()]
    index = next(v["firstKeptEntryIndex"] for v in raw if v["type"] == "compaction")
    first_kept = v1.entries[v1.position_of(compaction["firstKeptEntryId"])]
    verdict = HOLDS if first_kept["message"] == raw[index]["message"] else WRONG
    return verdict, (
        f"`legacy-v1`: index {index} resolves to line {index + 1}, the entry at list position "
        f"{index - 1}."
        + corpus_note("v1-first-kept-entry-index-counts-header", "v1-skipped-lines-not-counted")
        + (" (v1 goldens compare contexts only: ids are random.)" if corpus else "")
    )


@claim("Settings survive compaction.")
def _():
    fates = {f.id: f.fate for f in tour.fates()}
    change = next(e for e in tour.entries if e["type"] == "thinking_level_change")
    level = tour.context().thinking_level
    summarized = fates[change["id"]] == "summarized"
    verdict = HOLDS if summarized and level == change["thinkingLevel"] != "off" else WRONG
    return verdict, (
        f"In the tour the entry `{change['id']}` that set {change['thinkingLevel']!r} was "
        f"summarized by the compaction, yet the context still reports {level!r}: settings are "
        "read from the whole path." + corpus_note("settings-from-summarized-part")
    )


# %% [markdown]
# ## The verdicts

# %%
from IPython.display import Markdown, display

rows = ["| # | claim (paraphrased) | verdict | evidence |", "|---|---|---|---|"]
counts = {}
for number, (text, check) in enumerate(audit, start=1):
    verdict, evidence = check()
    counts[verdict] = counts.get(verdict, 0) + 1
    rows.append(f"| {number} | {text} | **{verdict}** | {evidence} |")
display(Markdown("\n".join(rows)))
print(", ".join(f"{n} {v}" for v, n in counts.items()))

# %% [markdown]
# ## The whole corpus
#
# Beyond single claims: pisession's context for every leaf recorded in the corpus,
# compared with Pi 0.87.1's own `buildSessionContext` output.

# %%
if corpus is None:
    print(
        "The corpus is not available here: run this notebook in a repository checkout or on Binder."
    )
else:
    files = cases = agree = 0
    for golden_path in sorted(corpus.glob("*/*.golden.json")):
        golden = json.loads(golden_path.read_text())
        recorded = [c for c in golden["cases"] if "context" in c]
        if not recorded:
            continue
        session = pisession.load(
            golden_path.with_name(golden_path.name.replace(".golden.json", ".jsonl"))
        )
        files += 1
        for case in recorded:
            cases += 1
            agree += json.loads(session.context(case["leaf"]).to_json()) == case["context"]
    print(f"{files} files, {cases} contexts: pisession agrees with Pi 0.87.1 on {agree}.")

# %% [markdown]
# ## Recap
#
# - Most of the chapter's rules hold exactly for Pi 0.87.1.
# - Several need a nuance: ids are *usually* 8 hex characters; `parentSession` is a path;
#   the kept range skips system messages and can be empty.
# - One example is wrong: `C:\work\api` becomes `--C--work-api--`, because the drive's
#   colon is replaced like a slash.
# - Each verdict comes from a check that could fail, run on real files; the corpus
#   section compares pisession with Pi's own output on every recorded leaf.
