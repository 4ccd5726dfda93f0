# ruff: noqa: E402
# title: Claim audit
# summary: Every format statement of chapter 27 and of PiG's session-format page, quoted and
#   checked against Pi 0.87.1 itself (its own code run on purpose-made files): holds, needs
#   nuance or wrong, with the evidence next to each verdict.

# %% [markdown]
# A chapter about a file format makes many small claims: where the files live, what an id
# looks like, how many entry types there are. So does PiG's session-format page (PiG is the
# Go port of Pi that the book describes). This notebook quotes each of those format
# statements and asks **Pi 0.87.1 itself** whether it holds. (Pi 0.87.1 to 1.6.0: same
# rules.)
#
# **You will learn**
#
# - which statements hold exactly, which need a nuance, and which are wrong for Pi 0.87.1;
# - what Pi actually does in each case, shown by Pi's own code;
# - how to turn a prose claim into a check that fails when the answer changes.
#
# **Where the evidence comes from.** `conformance/audit.mjs` runs Pi 0.87.1's own code
# through purpose-made scenarios: it creates sessions with Pi's `SessionManager` in a
# temporary folder (what is written, when and where), forks and clones them, opens torn and
# legacy files, and calls `buildSessionContext`, `convertToLlm` and `getCurrentSystemPrompt`
# on the small files in `data/audit/`. A few answers only exist in code that needs Pi's
# command line (which wants Node 22); those are quoted from Pi's files with their line
# numbers. Everything goes into `data/audit/evidence.json`, committed with the repository.
# pisession is shown alongside ("pisession agrees") but is never the evidence.
#
# Each claim below has: the quote and where it stands, the verdict, a short explanation, a
# cell with Pi's answer, and a **verdict cell that asserts** the facts the verdict rests
# on. If Pi's answer ever changes, that cell fails (and so does the test suite, which runs
# this notebook).

# %% [setup]
import pisession

REPOSITORY = ""  # the generated setup cell sets it from pyproject.toml

# %% [markdown]
# ## The verdicts at a glance
#
# Each row links to its section, where the claim is quoted and its verdict asserted on Pi's
# own answer (the last section checks that every verdict of this table was asserted).

# %%
import html

from IPython.display import display

STYLE = {
    "holds": ("🟢", "#1a7f37", "#dafbe1"),
    "needs nuance": ("🟡", "#7d4e00", "#fff8c5"),
    "wrong": ("🔴", "#cf222e", "#ffebe9"),
}
# Each claim: "key | where it stands | verdict" and, indented below, the claim in short.
# The verdicts are asserted further down, one section per claim.
CLAIM_TABLE = r"""
tree | chapter 27, The container | needs nuance
    entries form a tree; branching in place, no new files
append-only | chapter 27, The container | needs nuance
    an append-only line format
location | chapter 27, Location | holds
    ~/.pi/agent/sessions/--<path>--/<timestamp>_<session-id>.jsonl
folder-rule | chapter 27, Location | needs nuance
    the folder: leading separator removed, / \ : replaced by -
c-work-api | chapter 27, Location | wrong
    C:\work\api becomes --C-work-api--
session-dir | chapter 27, Location | holds
    sessionDir, PI_CODING_AGENT_SESSION_DIR, --session-dir; the CLI wins
deletion | chapter 27, Location | holds
    sessions are removed by deleting their .jsonl files
migration | chapter 27, Versions | holds
    three versions; sessions migrated to v3 when loaded
v3-rename | chapter 27, Versions | holds
    v3 renames message.role hookMessage, not the entry type
header | chapter 27, The header | holds
    the header has an id, no parentId, and is not in the tree
parent-session | chapter 27, The header | needs nuance
    parentSession is the only durable record of a fork's origin
id-length | chapter 27, The header | holds
    ids: usually 8 hex characters, may fall back to a full UUID
eleven | chapter 27, The entry types | holds
    there are eleven entry types
system-deltas | chapter 27, The entry types: message | holds
    system messages are prompt deltas; replaying them gives the prompt
model-change | chapter 27, The entry types: model_change | needs nuance
    model_change: written when the user switches models
thinking-change | chapter 27, The entry types: thinking_level_change | needs nuance
    thinking_level_change: the same idea for reasoning
usage | chapter 27, The entry types: usage | holds
    usage entries count in the totals, hidden from the tree; unknown kinds are normal
compaction-fields | chapter 27, The entry types: compaction | needs nuance
    required firstKeptEntryId; optional systemMessage, usage, details, fromHook
context-edit | chapter 27, The entry types: context_edit | holds
    edit targets and string normalisation
pig-header-id | PiG page, File location | wrong
    the first line has no id or parentId
pig-blocks | PiG page, Entry types: Message | wrong
    content blocks: image media_type, thinking signature, tool_use input
pig-roles | PiG page, Entry types: Message | needs nuance
    the message roles (system is not listed)
pig-compaction | PiG page, Compaction | needs nuance
    optional fields: details, fromHook, usage (no systemMessage)
pig-model | PiG page, Context construction | needs nuance
    the model comes from the latest model entries
pig-bash | PiG page, Context construction | needs nuance
    context construction excludes bash entries marked excludeFromContext
pig-context-edit | PiG page, Session file format | holds
    Pi's context_edit entries change an earlier entry's context
pig-null-label | PiG page, Label | holds
    a null label clears the target label
pig-retained-tail | PiG page, Compaction | holds
    the format does not define retainedTail
pig-clone | PiG page, File location | holds
    a cloned session can contain parentSession
"""
CLAIMS = {}
for head, text in zip(*[iter(CLAIM_TABLE.strip().splitlines())] * 2):
    key, where, verdict = (part.strip() for part in head.split(" | "))
    source, where = where.split(", ", 1)
    CLAIMS[key] = {"source": source, "where": where, "text": text.strip(), "verdict": verdict}


def badge(verdict):
    mark, colour, background = STYLE[verdict]
    return (
        f'<span style="background:{background};color:{colour};font-weight:bold;'
        f'padding:1px 6px;border-radius:4px;white-space:nowrap">{mark} {verdict}</span>'
    )


def summary_table():
    rows, text = [], []
    for number, (key, c) in enumerate(CLAIMS.items(), start=1):
        link = f'<a href="#claim-{key}">{html.escape(c["text"])}</a>'
        where = html.escape(f"{c['source']}, {c['where']}")
        rows.append(
            f"<tr><td>{number}</td><td style='text-align:left'>{link}</td>"
            f"<td style='text-align:left'>{where}</td><td>{badge(c['verdict'])}</td></tr>"
        )
        text.append(f"{number:2}. {STYLE[c['verdict']][0]} {c['verdict']:12}  {c['text']}")
    table = (
        "<table><thead><tr><th>#</th><th style='text-align:left'>claim</th>"
        "<th style='text-align:left'>where</th><th>verdict</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    display({"text/html": table, "text/plain": "\n".join(text)}, raw=True)


summary_table()
counts = {v: sum(c["verdict"] == v for c in CLAIMS.values()) for v in STYLE}
print(", ".join(f"{n} {v}" for v, n in counts.items()), f"({len(CLAIMS)} claims)")

# %% [markdown]
# ## The evidence
#
# In a checkout or on Binder the evidence is read from the repository. On Colab the notebook
# is alone, so it is downloaded from the repository the setup cell installed pisession from
# (`REPOSITORY`, branch `main`).

# %%
import json
import os
import shutil
import subprocess
import textwrap
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
print(
    f"Evidence recorded from Pi {evidence['pi']} by {evidence['generator']}: "
    f"{len(evidence['scenarios'])} scenarios, {len(evidence['files'])} audit files."
)

# %% [markdown]
# When Node and Pi 0.87.1 are installed (`PI_ORACLE_DIR`, or `npm install` in
# `conformance/`), the next cell runs every scenario again and checks that Pi still gives
# exactly the recorded answers. Elsewhere it says that the recorded evidence is used.


# %% tags=nbval-ignore-output
def pi_oracle():
    """``(node, audit.mjs)`` when Node and Pi 0.87.1 can run the scenarios here, else None."""
    node, script = shutil.which("node"), Path("..", "conformance", "audit.mjs")
    if node is None or not script.exists():
        return None
    oracle = os.environ.get("PI_ORACLE_DIR")
    modules = Path(oracle, "node_modules") if oracle else Path("..", "conformance", "node_modules")
    package = modules / "@earendil-works" / "pi-coding-agent" / "package.json"
    if not package.exists() or json.loads(package.read_text())["version"] != evidence["pi"]:
        return None
    return node, script


found = pi_oracle()
if found is None:
    print("Node and Pi 0.87.1 are not installed here: the verdicts use the recorded evidence.")
else:
    node, script = found
    fresh = subprocess.run(
        [node, str(script), "--stdout"],
        capture_output=True,
        timeout=300,
        env=dict(os.environ, TZ="UTC"),
    )
    assert fresh.returncode == 0, fresh.stderr.decode()[-2000:]
    assert json.loads(fresh.stdout) == evidence, (
        "Pi's answers differ from data/audit/evidence.json: re-record with "
        "node conformance/audit.mjs and review the verdicts"
    )
    print(f"Pi {evidence['pi']} ran every scenario again here: same answers as recorded.")

# %% [markdown]
# The helpers the sections use: `pi(scenario, ...)` is Pi's recorded answer,
# `show_code(scenario)` prints the lines of Pi's code a scenario quotes, and
# `verdict(key, fact=..., ...)` asserts every fact and shows the verdict.

# %%
confirmed = {}


def pi(name, *keys):
    """Pi's recorded answer for a scenario (or a part of it)."""
    value = evidence["scenarios"][name]["result"]
    for key in keys:
        value = value[key]
    return value


def pi_file(name, leaf=None):
    """Pi's reading of data/audit/<name>.jsonl at a leaf: context, llm, systemPrompt."""
    return next(c for c in evidence["files"][name]["cases"] if c["leaf"] == leaf)


def show_code(name):
    for code in evidence["scenarios"][name].get("code", []):
        print(f"{code['file']}, line {code['line']}:")
        print(textwrap.indent(textwrap.dedent(code["text"]), "    "))


def roles(messages):
    return [m["role"] for m in messages]


def verdict(key, **facts):
    """Assert each fact taken from Pi's evidence, then show the claim's verdict."""
    failed = [name for name, holds in facts.items() if not holds]
    assert not failed, f"{key}: Pi's evidence no longer supports the verdict: {failed}"
    c = CLAIMS[key]
    confirmed[key] = c["verdict"]
    checked = ", ".join(name.replace("_", " ") for name in facts)
    display(
        {
            "text/html": f"<p>{badge(c['verdict'])} &nbsp;{html.escape(c['text'])}"
            f"<br><small>asserted on Pi's answer: {html.escape(checked)}</small></p>",
            "text/plain": f"{STYLE[c['verdict']][0]} {c['verdict']}: {c['text']}\n"
            f"asserted on Pi's answer: {checked}",
        },
        raw=True,
    )


def pisession_agrees(name):
    """pisession's reading of an audit file, compared with Pi's, leaf by leaf."""
    raw = repository_file(f"data/audit/{name}.jsonl")
    session = pisession.loads(raw, f"{name}.jsonl", new_id=pisession.sequential_ids())
    cases = evidence["files"][name]["cases"]
    same = sum(json.loads(session.context(c["leaf"]).to_json()) == c["context"] for c in cases)
    print(f"pisession agrees with Pi on data/audit/{name}.jsonl: {same} of {len(cases)} leaves")


# %% [markdown]
# ## Chapter 27
#
# <a id="claim-tree"></a>
# ### 1. A tree, branching in place
#
# > “Session entries form a tree structure via id/parentId fields, enabling in-place
# > branching without creating new files.” (chapter 27, *The container*, quoting Pi's
# > format document)
#
# **Needs nuance.** Branching *inside* a session is in place: `/tree` moves the leaf
# (`SessionManager.branch`) and the next entry is appended to the same file as a child of an
# older entry. But `/fork` and `/clone` do create new files: both call
# `createBranchedSession`, which writes the path to the chosen entry into a new session
# file.

# %%
print("in place (/tree):", pi("branch-in-place"))
fork = pi("fork-and-clone", "createBranchedSession")
print(
    "fork or clone (createBranchedSession): files in the folder:",
    fork["filesInFolder"],
    "- new file:",
    fork["newFile"],
)
show_code("fork-and-clone")

# %%
verdict(
    "tree",
    branch_appends_to_the_same_file=pi("branch-in-place", "filesInFolder") == 1,
    branch_keeps_earlier_bytes=pi("branch-in-place", "earlierBytesUnchanged"),
    new_entry_is_a_child_of_an_older_one=pi("branch-in-place", "newEntryParentIsEarlierEntry"),
    fork_and_clone_write_a_new_file=fork["newFile"] and fork["filesInFolder"] == 2,
)

# %% [markdown]
# <a id="claim-append-only"></a>
# ### 2. Append-only
#
# > “Append-only line format, typed objects, and a tree carried entirely in the file.”
# > (chapter 27, *The container*)
#
# **Needs nuance.** Appending never changes earlier bytes, and creating a branch does not
# rewrite earlier entries. But three things are not appends:
#
# - **nothing is written before the first assistant message**: Pi keeps the header, the
#   settings and the user's message in memory and writes them all at once when the first
#   answer arrives;
# - **opening a version 1 or 2 file rewrites it** (the migration, claim 8), with new ids for
#   a version 1 file;
# - **a torn last line is repaired**: when the last line has no newline (a crash mid-write),
#   loading appends `"\n"`, so the next entry starts on a line of its own. The torn fragment
#   stays in the file as a line Pi skips.

# %%
for step in pi("first-write", "steps"):
    print(f"after {step['after']}: file exists {step['fileExists']}, lines {step['lines']}")
print()
migration = pi("migration-rewrites-file")
print({name: m["fileRewritten"] for name, m in migration.items()}, "<- file rewritten on open")
torn = pi("torn-last-line", "tornLine")
print(
    "torn last line: load appended",
    repr(torn["bytesAppendedByLoad"]),
    "- lines after the next append:",
    torn["lineKindsAfterAppend"],
)

# %%
steps = pi("first-write", "steps")
verdict(
    "append-only",
    no_file_before_the_first_assistant_message=not steps[1]["fileExists"]
    and steps[2]["fileExists"],
    later_appends_keep_earlier_bytes=steps[3]["earlierBytesUnchanged"],
    migration_rewrites_v1_and_v2=migration["v1-session"]["fileRewritten"]
    and migration["v2-hook"]["fileRewritten"],
    v3_file_not_rewritten=not migration["compaction-with-system"]["fileRewritten"],
    torn_line_gets_a_newline=torn["bytesAppendedByLoad"] == "\n"
    and torn["lineKindsAfterAppend"][-2:] == ["malformed", "message/user"],
)

# %% [markdown]
# <a id="claim-location"></a>
# ### 3. Where sessions live
#
# > “`~/.pi/agent/sessions/--<path>--/<timestamp>_<session-id>.jsonl`” (chapter 27,
# > *Location*)
#
# **Holds.** `~/.pi/agent` is Pi's agent folder (`PI_CODING_AGENT_DIR` replaces it); the
# file name is the header's timestamp with `:` and `.` made `-`, then `_` and the session
# id. Here Pi created a session for `/home/reader/projects/demo-app` with
# `PI_CODING_AGENT_DIR` pointing at a temporary folder:

# %%
location = pi("location")
for key in (
    "defaultAgentDir",
    "agentDirFromEnvironment",
    "sessionFile",
    "header",
    "fileNameIsTimestampAndId",
):
    print(f"{key:25} {location[key]}")

# %%
verdict(
    "location",
    default_agent_folder_is_home_pi_agent=location["defaultAgentDir"] == "~/.pi/agent",
    sessions_below_the_agent_folder=location["sessionFile"].startswith(
        "sessions/--home-reader-projects-demo-app--/"
    ),
    name_is_timestamp_and_session_id=location["fileNameIsTimestampAndId"],
)

# %% [markdown]
# <a id="claim-folder-rule"></a>
# ### 4. The folder name
#
# > “For &lt;path&gt;, Pi removes the leading path separator and replaces /, \\, and : with -.”
# > (chapter 27, *Location*, quoting Pi's document)
#
# **Needs nuance.** That is the rule, but it is applied to the working directory *as
# resolved*: a trailing separator is gone first (`/home/reader/projects/demo-app/` gets the
# same folder as without the slash), and only **one** leading separator is removed (the
# network path `\\server\share\repo` starts with three dashes). Pi's `getDefaultSessionDir`,
# with Node's POSIX paths and with `path.win32` as on Windows:

# %%
folders = pi("folder-names")
for style in ("posix", "windows"):
    for cwd, folder in folders[style].items():
        print(f"{style:8} {cwd!r:36} -> {folder}")
show_code("folder-names")

# %%
from pisession.workshop import pi_folder_name

print(
    "pisession agrees:", all(pi_folder_name(c) == f for s in folders.values() for c, f in s.items())
)

# %%
verdict(
    "folder-rule",
    trailing_separator_dropped=folders["posix"]["/home/reader/projects/demo-app/"]
    == folders["posix"]["/home/reader/projects/demo-app"],
    windows_trailing_separator_dropped=folders["windows"]["C:\\work\\api\\"]
    == folders["windows"]["C:\\work\\api"],
    only_one_leading_separator_removed=folders["windows"]["\\\\server\\share\\repo"]
    == "---server-share-repo--",
    colon_replaced=folders["posix"]["/srv/data:2026/app"] == "--srv-data-2026-app--",
)

# %% [markdown]
# <a id="claim-c-work-api"></a>
# ### 5. `C:\work\api`
#
# > “So C:\work\api becomes --C-work-api--.” (chapter 27, *Location*)
#
# **Wrong.** The rule just quoted replaces `:` as well: the drive letter is followed by the
# colon's dash and the backslash's dash. Pi gives `--C--work-api--`.

# %%
print(repr("C:\\work\\api"), "->", folders["windows"]["C:\\work\\api"])

# %%
verdict(
    "c-work-api",
    pi_gives_two_dashes_after_the_drive=folders["windows"]["C:\\work\\api"] == "--C--work-api--",
    not_the_chapters_name=folders["windows"]["C:\\work\\api"] != "--C-work-api--",
)

# %% [markdown]
# <a id="claim-session-dir"></a>
# ### 6. Choosing the sessions folder
#
# > “sessionDir, PI_CODING_AGENT_SESSION_DIR and --session-dir change the root, with the CLI
# > option winning.” (chapter 27, *Location*)
#
# **Holds**, and the order is complete: `--session-dir`, then `PI_CODING_AGENT_SESSION_DIR`,
# then the `sessionDir` setting; with none of them, the per-folder default of claim 3. This
# choice is made in Pi's command-line entry point, which needs Node 22; the audit evaluates
# that expression exactly as written in Pi's `main.js`, for every combination:

# %%
show_code("session-dir-precedence")
for case in pi("session-dir-precedence", "cases"):
    given = {k: v for k, v in case.items() if k != "chosen" and v}
    print(f"given {given or 'nothing'}: {case['chosen']}")

# %%
cases = pi("session-dir-precedence", "cases")
verdict(
    "session-dir",
    cli_wins=all(c["chosen"] == c["cli"] for c in cases if c["cli"]),
    environment_beats_the_setting=all(
        c["chosen"] == c["env"] for c in cases if c["env"] and not c["cli"]
    ),
    setting_used_last=all(
        c["chosen"] == c["setting"] for c in cases if not c["cli"] and not c["env"]
    ),
    variable_name=pi("session-dir-precedence", "environmentVariable")
    == "PI_CODING_AGENT_SESSION_DIR",
)

# %% [markdown]
# <a id="claim-deletion"></a>
# ### 7. Deleting a session
#
# > “Sessions can be removed by deleting their .jsonl files,” (chapter 27, *Location*)
#
# **Holds.** Pi keeps no index: its session list reads the folder. Two sessions were
# created, one file deleted, and `SessionManager.list` (what `/resume` shows) asked before
# and after. The picker's delete tries the `trash` command first:

# %%
print("listed before:", pi("deletion", "listedBefore"))
print("listed after: ", pi("deletion", "listedAfter"))
show_code("deletion")

# %%
verdict(
    "deletion",
    gone_from_the_list=pi("deletion", "listedAfter") == ["second session"],
    both_listed_before=pi("deletion", "listedBefore") == ["first session", "second session"],
    picker_tries_trash_first="trash" in evidence["scenarios"]["deletion"]["code"][0]["text"],
)

# %% [markdown]
# <a id="claim-migration"></a>
# ### 8. Three versions, migrated on load
#
# > “Existing sessions are automatically migrated to the current version (v3) when loaded.”
# > (chapter 27, *Versions*)
#
# **Holds.** The current version is 3; Pi migrates a version 1 or 2 file when it loads it.
# (It also writes the migrated file back, which claim 2 counts; notebook 05 shows the steps.)

# %%
versions = pi("versions")
print("current version:", versions["currentVersion"])
for name in ("v1-session", "v2-hook", "v3-stray-hook"):
    after = versions[name]
    print(f"{name:14} -> version {after['versionAfter']}, changed: {after['changed']}")

# %%
verdict(
    "migration",
    current_version_is_3=versions["currentVersion"] == 3,
    v1_and_v2_reach_3=versions["v1-session"]["versionAfter"]
    == versions["v2-hook"]["versionAfter"]
    == 3,
    v3_left_alone=not versions["v3-stray-hook"]["changed"],
)

# %% [markdown]
# <a id="claim-v3-rename"></a>
# ### 9. What version 3 renamed
#
# > “It renames message.role: "hookMessage" to message.role: "custom" inside a message entry.
# > It does not rename the entry itself to type: "custom"” (chapter 27, *Versions*)
#
# **Holds.** In `data/audit/v2-hook.jsonl` the hook's message becomes a `custom` message; the
# file's `custom` entry (extension state) is untouched. A version 3 file is not migrated, so
# a stray `hookMessage` there stays, and `convertToLlm` drops it.

# %%
print("before:", pi("migration-rewrites-file", "v2-hook", "kindsBefore"))
print("after: ", pi("migration-rewrites-file", "v2-hook", "kindsAfter"))
stray = pi_file("v3-stray-hook")
print(
    "v3 file with a stray hookMessage: context",
    roles(stray["context"]["messages"]),
    "-> provider",
    roles(stray["llm"]),
)
pisession_agrees("v2-hook")

# %%
v2 = pi("migration-rewrites-file", "v2-hook")
verdict(
    "v3-rename",
    role_renamed_inside_the_message=v2["kindsBefore"][2] == "message/hookMessage"
    and v2["kindsAfter"][2] == "message/custom",
    custom_entry_untouched=v2["kindsBefore"][3] == v2["kindsAfter"][3] == "custom",
    stray_role_dropped_for_the_provider="hookMessage" in roles(stray["context"]["messages"])
    and "hookMessage" not in roles(stray["llm"]),
)

# %% [markdown]
# <a id="claim-header"></a>
# ### 10. The header
#
# > “It does have an id — the session identifier shown above — but it has no parentId and
# > does not participate in the entry tree.” (chapter 27, *The header*)
#
# **Holds.** The first line of a file Pi writes, and what its tree starts with:

# %%
header = pi("header")
for key in (
    "headerKeys",
    "headerIdIsUuidV7",
    "headerHasParentId",
    "headerAmongEntries",
    "treeRoots",
    "firstEntryParentId",
):
    print(f"{key:20} {header[key]}")

# %%
verdict(
    "header",
    header_has_an_id="id" in header["headerKeys"] and header["headerIdIsUuidV7"],
    no_parent_id=not header["headerHasParentId"],
    not_an_entry=not header["headerAmongEntries"] and header["firstEntryParentId"] is None,
)

# %% [markdown]
# <a id="claim-parent-session"></a>
# ### 11. `parentSession`
#
# > “This is the only durable record of where a forked session came from” (chapter 27,
# > *The header*)
#
# **Needs nuance.** `parentSession` is written as the chapter says (for `/fork`, `/clone`
# and `newSession({ parentSession })`, and by `pi --fork`), and it is the parent's **file
# path**, as the chapter's example shows. But it is not the only link: a fork or a clone
# copies the path's entries **with their ids** (the labels are re-created with new ids),
# and `pi --fork` copies every entry line byte for byte. Matching entry ids connect a fork
# to its origin even when the path in `parentSession` no longer exists.

# %%
forks = pi("fork-and-clone")
print("fork/clone header:", forks["createBranchedSession"]["header"])
print("entries copied:", forks["createBranchedSession"]["entryKinds"])
print("of which keep their original id:", forks["createBranchedSession"]["entryIdsReused"])
print("pi --fork: entry lines identical to the original:", forks["forkFrom"]["entryLinesIdentical"])
print("newSession({parentSession}):", forks["newSessionWithParent"]["header"])

# %%
branched, copied = forks["createBranchedSession"], forks["forkFrom"]
verdict(
    "parent-session",
    parent_session_is_the_original_path=branched["parentSessionIsOriginalPath"],
    also_for_pi_fork=copied["parentSessionIsOriginalPath"],
    fork_reuses_entry_ids=branched["entryIdsReused"] == branched["entries"] - 1,
    fork_from_copies_lines=copied["entryLinesIdentical"],
)

# %% [markdown]
# <a id="claim-id-length"></a>
# ### 12. Id length
#
# > “Usually an 8-char hex ID; may fall back to a full UUID.” (chapter 27, *The header*,
# > quoting Pi's type)
#
# **Holds.** Pi's ids are the first 8 characters of a random UUID; after 100 collisions with
# existing ids it uses the whole UUID. The audit forced the collisions by making the random
# source repeat one value:

# %%
ids = pi("entry-ids")
print("usual ids:", ids["usualIds"])
print("after 100 collisions:", ids["afterCollisions"])
show_code("entry-ids")

# %%
verdict(
    "id-length",
    usually_8_hex=ids["usualAre8Hex"],
    falls_back_to_a_full_uuid=ids["fallbackIsFullUuid"],
)

# %% [markdown]
# <a id="claim-eleven"></a>
# ### 13. Eleven entry types
#
# > “There are eleven.” (chapter 27, *The entry types*)
#
# **Holds.** Calling each of `SessionManager`'s append methods once writes eleven types,
# the same eleven as Pi's `SessionEntry` type:

# %%
types = pi("entry-types")
print(len(types["written"]), "written:", types["written"])
print(len(types["declared"]), "declared:", types["declared"])

# %%
verdict(
    "eleven",
    eleven_written=len(types["written"]) == 11,
    same_as_declared=sorted(types["written"]) == sorted(types["declared"]),
)

# %% [markdown]
# <a id="claim-system-deltas"></a>
# ### 14. System messages carry the prompt
#
# > “Replaying them in order yields the current prompt and tools; there is no separate
# > prompt state entry.” (chapter 27, *The entry types*, message)
#
# **Holds.** In a file Pi's CLI wrote, system messages have empty `content` and named
# `sections`, then deltas; no other entry holds the prompt. Pi's `getCurrentSystemPrompt` on
# `data/audit/system-deltas.jsonl`: the `env` section deleted by `null` and set again comes
# last, `ls` was removed and `edit` added.

# %%
replay = pi("system-prompt-replay")
for message in replay["piFileSystemMessages"]:
    print("Pi's file:", message)
print("entry types in that file:", replay["piFileEntryTypes"])
print("replayed sections:", list(replay["sections"]), "tools:", replay["tools"])
print(replay["prompt"])
pisession_agrees("system-deltas")

# %%
verdict(
    "system-deltas",
    pi_files_store_sections_not_content=all(
        m["content"] == "" for m in replay["piFileSystemMessages"]
    ),
    no_prompt_entry_type=replay["piFileEntryTypes"]
    == ["message", "model_change", "thinking_level_change"],
    null_deletes_and_readding_goes_last=list(replay["sections"]) == ["preamble", "rules", "env"],
    tools_removed_then_added=replay["tools"] == ["read", "bash", "edit"],
)

# %% [markdown]
# <a id="claim-model-change"></a>
# ### 15. `model_change`
#
# > “model_change — emitted when the user switches models mid-session. The latest such
# > entry records the selected model” (chapter 27, *The entry types*)
#
# **Needs nuance.** Pi also writes one when a session starts (both files Pi's CLI wrote
# begin with it; `sdk.js` below). And for the model the context reports, assistant messages
# count as well: in `data/audit/settings.jsonl` the model chosen was `audit/selected-model`,
# then an assistant answered as `other-provider/responding-model`, and Pi's context at that
# answer names the latter.

# %%
print("files Pi wrote start with:", pi("settings-written-by-pi", "firstEntries"))
show_code("settings-written-by-pi")
for leaf, settings in pi("settings-sources").items():
    print(f"context at {leaf}: {settings}")
pisession_agrees("settings")

# %%
first = pi("settings-written-by-pi", "firstEntries")
settings = pi("settings-sources")
verdict(
    "model-change",
    written_at_session_start=all(kinds[0] == "model_change" for kinds in first.values()),
    assistant_message_sets_the_model=settings["a1"]["model"]
    == {"provider": "other-provider", "modelId": "responding-model"},
    model_change_alone=settings["u1"]["model"]
    == {"provider": "audit", "modelId": "selected-model"},
)

# %% [markdown]
# <a id="claim-thinking-change"></a>
# ### 16. `thinking_level_change`
#
# > “thinking_level_change — same idea for reasoning level.” (chapter 27, *The entry types*)
#
# **Needs nuance.** It is also written at session start, and when a session that has none
# is resumed (the `sdk.js` lines above). And it counts only on its own path: the branch
# `u2`, which never saw the change to `"high"`, reports `"off"`.

# %%
verdict(
    "thinking-change",
    written_at_session_start=all(kinds[1] == "thinking_level_change" for kinds in first.values()),
    written_on_resume_without_one="if (!hasThinkingEntry)"
    in evidence["scenarios"]["settings-written-by-pi"]["code"][0]["text"],
    only_its_own_path=settings["u1"]["thinkingLevel"] == "high"
    and settings["u2"]["thinkingLevel"] == "off",
)

# %% [markdown]
# <a id="claim-usage"></a>
# ### 17. Usage entries
#
# > “Usage entries contribute to session token and cost totals. Pi hides them from the
# > conversation tree.” … “Consumers should treat unknown kind values as normal usage rather
# > than rejecting them.” (chapter 27, *The entry types*, usage)
#
# **Holds.** In Pi 0.87.1 the only code that writes usage entries is cache warming (kind
# `"cache_warm"`, in `cache-warmer.js` and in the bundled copy of the same code); the audit
# ran a cache-warming refresh and got one. Pi's
# `getSessionStats` over `data/audit/usage-kinds.jsonl` counts both usage entries, the one
# with an invented kind included (its 50 tokens); the tree selector filters usage entries
# out; and they add no message to the context.

# %%
usage = pi("usage")
print(
    "code that writes usage entries:",
    [(c["file"].split("/")[-1], c["kind"]) for c in usage["appendUsageCalls"]],
)
print("a cache-warming refresh wrote:", usage["cacheWarmingWrote"])
print("getSessionStats:", usage["totals"])
print("without the invented kind:", usage["totalsWithoutTheUnknownKind"])
print("context roles:", usage["contextRoles"])
show_code("usage")
stats = pisession.loads(repository_file("data/audit/usage-kinds.jsonl")).stats()
print("pisession agrees:", stats.usage.total_tokens == usage["totals"]["tokens"]["total"])

# %%
verdict(
    "usage",
    only_cache_warming_writes_them=all(
        c["kind"] == '"cache_warm"' for c in usage["appendUsageCalls"]
    ),
    unknown_kind_counted=usage["totals"]["tokens"]["total"]
    - usage["totalsWithoutTheUnknownKind"]["tokens"]["total"]
    == 50,
    not_in_the_context=usage["contextRoles"] == ["user", "assistant"],
    hidden_from_the_tree='entry.type === "usage"'
    in evidence["scenarios"]["usage"]["code"][0]["text"],
)

# %% [markdown]
# <a id="claim-compaction-fields"></a>
# ### 18. A compaction's fields
#
# > “Required firstKeptEntryId, plus optional systemMessage, usage, details, fromHook.”
# > (chapter 27, *The entry types*, compaction)
#
# **Needs nuance.** `summary` and `tokensBefore` are required too (Pi's `CompactionEntry`
# type, and `appendCompaction` always writes them). `systemMessage` is written only when the
# context being compacted has a system prompt to checkpoint.

# %%
fields = pi("compaction-fields")
print("required:", [f["name"] for f in fields["declared"] if not f["optional"]])
print("optional:", [f["name"] for f in fields["declared"] if f["optional"]])
print("written without a system prompt:", fields["noSystemMessageInContext"]["keys"])
print("written with one:               ", fields["systemMessageInContext"]["keys"])

# %%
required = {f["name"] for f in fields["declared"] if not f["optional"]}
verdict(
    "compaction-fields",
    summary_and_tokens_before_required={"summary", "firstKeptEntryId", "tokensBefore"} <= required,
    optional_as_quoted={f["name"] for f in fields["declared"] if f["optional"]}
    == {"systemMessage", "usage", "details", "fromHook"},
    system_message_only_with_a_prompt="systemMessage"
    not in fields["noSystemMessageInContext"]["keys"]
    and "systemMessage" in fields["systemMessageInContext"]["keys"],
)

# %% [markdown]
# <a id="claim-context-edit"></a>
# ### 19. Context edits
#
# > “Targets may be user, assistant, tool-result, or custom-message entries.” “String
# > replacements for assistant and tool-result entries are normalized to one text block”
# > (chapter 27, *The entry types*, context_edit)
#
# **Holds.** `appendContextEdit` on each kind of target: strings are kept for user and
# custom-message targets and become one text block for assistant and tool results; a system
# message is refused, and so is an entry off the active branch. The edited entries are
# unchanged; only the context differs. In `data/audit/context-edits.jsonl` the later of two
# edits of one tool result wins and `replacement: null` removes the answer.

# %%
edits = pi("context-edits")
for target, stored in edits["storedReplacement"].items():
    print(f"{target:15} stored replacement {stored}")
print("refused:", edits["refused"])
print("context roles before/after:", edits["rolesBefore"], edits["rolesAfter"])
print("file:", edits["file"]["contents"][2], "| roles", edits["file"]["roles"])
pisession_agrees("context-edits")

# %%
stored = {target: r["content"] for target, r in edits["storedReplacement"].items()}
verdict(
    "context-edit",
    assistant_string_made_a_block=stored["assistant"]
    == [{"type": "text", "text": "shorter assistant"}],
    tool_result_string_made_a_block=stored["toolResult"]
    == [{"type": "text", "text": "shorter toolResult"}],
    user_and_custom_keep_strings=stored["user"] == "shorter user"
    and stored["custom_message"] == "shorter custom_message",
    other_targets_refused="system" in edits["refused"],
    targets_unchanged=edits["targetsUnchanged"],
)

# %% [markdown]
# ## PiG's session-format page
#
# <a id="claim-pig-header-id"></a>
# ### 20. "The first line has no id"
#
# > “The first line has no id or parentId:” (PiG page, *File location*)
#
# **Wrong** for Pi: the header has an `id`, the session id (claim 10). PiG's own example
# right below the sentence shows one.

# %%
print("keys of the first line Pi writes:", header["headerKeys"])

# %%
verdict(
    "pig-header-id",
    header_has_an_id="id" in header["headerKeys"],
    but_no_parent_id=not header["headerHasParentId"],
)

# %% [markdown]
# <a id="claim-pig-blocks"></a>
# ### 21. Content block fields
#
# > “image with media_type and either data or url; thinking with thinking and an optional
# > signature; tool_use with id, name, and input.” (PiG page, *Entry types*, Message)
#
# **Wrong** field names for Pi: an image block has `data` and `mimeType` (no URL form), a
# thinking block's signature is `thinkingSignature`, and a tool call is
# `{"type": "toolCall", "id", "name", "arguments"}`. In the files Pi's CLI wrote, and in
# pi-ai's type declarations:

# %%
blocks = pi("content-blocks")
for kind, keys in blocks["inPiFiles"].items():
    print(f"{kind:20} {keys}")
for name in ("ImageContent", "ThinkingContent", "ToolCall"):
    print(name, [f["name"] + ("?" if f["optional"] else "") for f in blocks["declared"][name]])

# %%
verdict(
    "pig-blocks",
    image_has_mime_type=blocks["inPiFiles"]["user: image"] == ["data", "mimeType", "type"],
    thinking_signature_field=blocks["inPiFiles"]["assistant: thinking"]
    == ["thinking", "thinkingSignature", "type"],
    tool_call_arguments=blocks["inPiFiles"]["assistant: toolCall"]
    == ["arguments", "id", "name", "type"],
    no_url_images=[f["name"] for f in blocks["declared"]["ImageContent"]]
    == ["type", "data", "mimeType"],
)

# %% [markdown]
# <a id="claim-pig-roles"></a>
# ### 22. Message roles
#
# > “Supported message roles include: user; assistant; toolResult; bashExecution; custom;
# > branchSummary; compactionSummary.” (PiG page, *Entry types*, Message)
#
# **Needs nuance.** Pi 0.87.1 also stores `system` messages (every file it writes has them:
# the prompt and its deltas, claim 14), and `convertToLlm` passes them through. What each
# role becomes for the provider:

# %%
for item in pi("roles", "messages"):
    becomes = item["becomes"]["role"] if item["becomes"] else "dropped"
    note = ", excludeFromContext" if item["input"].get("excludeFromContext") else ""
    print(f"{item['input']['role'] + note:35} -> {becomes}")

# %%
converted = {item["input"]["role"]: item["becomes"] for item in pi("roles", "messages")}
verdict(
    "pig-roles",
    system_stored_by_pi=all(kinds[2] == "message/system" for kinds in first.values()),
    system_passes_to_the_provider=converted["system"]["role"] == "system",
)

# %% [markdown]
# <a id="claim-pig-compaction"></a>
# ### 23. A compaction's optional fields
#
# > “Optional fields include details, fromHook, and summary-generation usage.” (PiG page,
# > *Compaction*)
#
# **Needs nuance.** The list leaves out `systemMessage`, the checkpoint of the prompt and
# tools that opens the context after a compaction. It matters: Pi drops system messages in
# the kept range **whether or not** the compaction stored one, so a compaction without it
# leaves the context with no system prompt at all (notebook 04). Pi on three files:

# %%
for name, result in pi("compaction-system-messages").items():
    print(f"{name:26} {result['roles']}  prompt: {result['systemPrompt']!r}")
show_code("compaction-system-messages")
for name in ("compaction-with-system", "compaction-without-system", "compaction-system-after"):
    pisession_agrees(name)

# %%
compactions = pi("compaction-system-messages")
optional = {f["name"] for f in fields["declared"] if f["optional"]}
with_it, without, after = (
    compactions[f"compaction-{n}"] for n in ("with-system", "without-system", "system-after")
)
verdict(
    "pig-compaction",
    system_message_is_an_optional_field="systemMessage" in optional,
    it_opens_the_context=with_it["roles"][:2] == ["system", "compactionSummary"],
    without_it_no_system_prompt=without["systemPrompt"] == "" and "system" not in without["roles"],
    later_system_messages_kept=after["systemPrompt"] == "Keep answers short.",
)

# %% [markdown]
# <a id="claim-pig-model"></a>
# ### 24. Where the model comes from
#
# > “It applies the latest model and thinking-level entries.” (PiG page, *Context
# > construction*)
#
# **Needs nuance.** For the model, the latest assistant message counts too (claim 15): at
# `a1` Pi reports the answering model, not the `model_change` before it.

# %%
verdict(
    "pig-model",
    assistant_message_wins_when_later=settings["a1"]["model"]["modelId"] == "responding-model",
    thinking_from_entries_only=settings["a1"]["thinkingLevel"] == "high",
)

# %% [markdown]
# <a id="claim-pig-bash"></a>
# ### 25. Excluded bash commands
#
# > “It excludes custom state entries and Bash entries marked excludeFromContext.” (PiG
# > page, *Context construction*)
#
# **Needs nuance.** Custom entries contribute nothing, as said. But Pi keeps a
# `bashExecution` message marked `excludeFromContext` (a `!!` command) *in the context*:
# `buildSessionContext` returns it, and only `convertToLlm`, just before the request, drops
# it. Code that reads the context (extensions, exports) still sees it.

# %%
bash = pi("bash-exclusion")
print("context:", bash["contextRoles"], "- marked excludeFromContext:", bash["excludedInContext"])
print("provider:", bash["llmRoles"])
for text in bash["llmTexts"][1:]:
    print(textwrap.indent(text, "    "))
show_code("bash-exclusion")
pisession_agrees("bash-exclusion")

# %%
verdict(
    "pig-bash",
    kept_in_the_context=bash["contextRoles"].count("bashExecution") == 3
    and bash["excludedInContext"] == 1,
    dropped_by_convert_to_llm=len(bash["llmRoles"]) == len(bash["contextRoles"]) - 1,
)

# %% [markdown]
# <a id="claim-pig-context-edit"></a>
# ### 26. Context edits change the context
#
# > “Pi 0.87.1 also writes context_edit entries, which change the context an earlier entry
# > contributes.” (PiG page, introduction)
#
# **Holds** (claim 19). PiG does not apply them yet; notebook 06 builds that view.

# %%
verdict(
    "pig-context-edit",
    edit_changes_the_context=edits["rolesBefore"] != edits["rolesAfter"]
    and edits["contentAfter"]["user"] == ["shorter user"],
)

# %% [markdown]
# <a id="claim-pig-null-label"></a>
# ### 27. A null label
#
# > “A null label clears the target label.” (PiG page, *Label*)
#
# **Holds**, and so do an empty string and a missing `label` (any falsy label). To clear a
# label Pi itself writes a label entry *without* a `label` field. `getLabel` after loading
# `data/audit/labels.jsonl`:

# %%
labels = pi("labels")
print("labels:", labels["labels"])
print("Pi's clearing entry has the keys", labels["clearingEntryKeys"])
show_code("labels")

# %%
verdict(
    "pig-null-label",
    null_clears=labels["labels"]["u1"] is None,
    empty_clears=labels["labels"]["u2"] is None,
    missing_clears_and_later_wins=labels["labels"]["a1"] == "kept",
    pi_clears_without_the_field="label" not in labels["clearingEntryKeys"],
)

# %% [markdown]
# <a id="claim-pig-retained-tail"></a>
# ### 28. No `retainedTail`
#
# > “The current format does not define a retainedTail field.” (PiG page, *Compaction*)
#
# **Holds.** Pi's types do not mention it, and a compaction carrying one gives exactly the
# same context as without it.

# %%
print(pi("retained-tail"))

# %%
verdict(
    "pig-retained-tail",
    not_declared=not pi("retained-tail", "declaredAnywhere"),
    ignored=pi("retained-tail", "contextsEqual") and pi("retained-tail", "llmEqual"),
)

# %% [markdown]
# <a id="claim-pig-clone"></a>
# ### 29. A clone's `parentSession`
#
# > “A cloned Session can also contain parentSession.” (PiG page, *File location*)
#
# **Holds**, for forks as well (claim 11).

# %%
verdict(
    "pig-clone",
    clone_header_names_its_parent="parentSession" in forks["createBranchedSession"]["header"],
)

# %% [markdown]
# ## Every verdict asserted
#
# The table at the top and the sections agree: each claim's verdict was asserted on Pi's
# answer exactly once.

# %%
assert confirmed == {key: c["verdict"] for key, c in CLAIMS.items()}, set(CLAIMS) ^ set(confirmed)
print(f"{len(confirmed)} verdicts asserted on Pi {evidence['pi']}'s own answers.")

# %% [markdown]
# ## pisession against the whole corpus
#
# Beyond single claims: pisession's context for every leaf Pi recorded in the conformance
# corpus (`data/conformance`: hand-written edge cases and sessions generated with Pi's own
# `SessionManager`), compared with Pi 0.87.1's `buildSessionContext`. The corpus is part of
# the repository (checkout, Binder), not of the installed package.

# %%
corpus = Path("..", "data", "conformance")
if not corpus.is_dir():
    print("The corpus is not here: run this notebook in a repository checkout or on Binder.")
else:
    goldens = sorted(corpus.glob("*/*.golden.json"))
    files = cases = agree = 0
    for golden_path in goldens:
        golden = json.loads(golden_path.read_text())
        recorded = [c for c in golden["cases"] if "context" in c]
        if not recorded:
            continue  # no valid header, or a migration Pi itself cannot do
        session = pisession.load(
            golden_path.with_name(golden_path.name.replace(".golden.json", ".jsonl"))
        )
        files += 1
        for case in recorded:
            cases += 1
            agree += json.loads(session.context(case["leaf"]).to_json()) == case["context"]
    print(f"{len(goldens)} files recorded from Pi; {files} have contexts Pi could build.")
    print(f"{cases} contexts: pisession agrees with Pi 0.87.1 on {agree}.")

# %% [markdown]
# ## Recap
#
# - Most statements hold for Pi 0.87.1: the location, the session-folder precedence,
#   deletion, the versions and the v3 rename, the header, the id length, the eleven types,
#   system messages as prompt deltas, usage, context edits; on PiG's page the null label,
#   `retainedTail`, `parentSession` on clones.
# - Several need a nuance: branching in place is `/tree`'s (forks and clones write new
#   files); "append-only" has three exceptions (nothing before the first answer, migration,
#   the torn-line newline); the folder rule works on the resolved directory; forks keep
#   entry ids; `model_change` and `thinking_level_change` are also written at start;
#   compactions require `summary` and `tokensBefore`; PiG's role list omits `system`, its
#   compaction fields omit `systemMessage`, assistant messages set the model, and
#   excluded bash messages are dropped by `convertToLlm`, not by the context.
# - Wrong: `C:\work\api` becomes `--C--work-api--`; PiG's "the first line has no id" and its
#   content block field names.
# - Each verdict rests on Pi's own answer, asserted in the notebook; with Node and Pi
#   installed the answers are re-recorded and compared as the notebook runs.
