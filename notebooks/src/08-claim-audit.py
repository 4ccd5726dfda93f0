# ruff: noqa: E402
# title: Claim audit
# summary: The format statements of chapter 27's excerpt and of PiG's session-format page,
#   quoted and checked against Pi 0.87.1 and 1.6.0 themselves (their own code run on
#   purpose-made files): holds, needs nuance or wrong, with the evidence next to each
#   verdict, and the audit report for the chapter's author.

# %% [markdown]
# A chapter about a file format makes many small claims: where the files live, what an id
# looks like, how many entry types there are. So does PiG's session-format page (PiG is the
# Go port of Pi that the book describes). This notebook quotes the format statements of the
# chapter's excerpt (it stops in the context_edit section) and of PiG's page, and asks
# **Pi 0.87.1 itself** whether each holds, then **Pi 1.6.0**: the two have the same format
# and context rules, but they write differently (when the file appears, what a fork writes
# at once), and each verdict says whether it depends on the version.
#
# **You will learn**
#
# - which statements hold exactly, which need a nuance, and which are wrong for Pi 0.87.1,
#   and which verdicts change in Pi 1.6.0;
# - what Pi actually does in each case, shown by Pi's own code;
# - how to turn a prose claim into a check that fails when the answer changes;
# - what the audit report for the chapter's author holds ([the report](#the-report) at the
#   end, also in `docs/chapter-27-audit.md`).
#
# **Where the evidence comes from.** `conformance/audit.mjs` runs Pi's own code (0.87.1,
# then 1.6.0) through purpose-made scenarios: it creates sessions with Pi's `SessionManager` in a
# temporary folder (what is written, when and where), forks and clones them, opens torn and
# legacy files, and calls `buildSessionContext`, `convertToLlm` and `getCurrentSystemPrompt`
# on the small files in `data/audit/`. A few answers only exist in code that needs Pi's
# command line (which wants Node >= 22.19); those are quoted from Pi's files with their line
# numbers. Everything goes into `data/audit/evidence.json` (0.87.1) and
# `data/audit/evidence-1.6.0.json`, committed with the repository.
# pisession is shown alongside ("pisession agrees") but is never the evidence.
#
# Each claim below has: the quote and where it stands, the verdict, a short explanation, a
# cell with Pi's answer, and a **verdict cell that asserts** the facts the verdict rests
# on, for Pi 1.6.0 too wherever its answer differs. If Pi's answer ever changes, that cell
# fails (and so does the test suite, which runs this notebook).

# %% [setup]
import pisession

REPOSITORY = ""  # the generated setup cell sets it from pyproject.toml

# %% [markdown]
# ## The verdicts at a glance
#
# Each row links to its section, where the claim is quoted and its verdict asserted on Pi's
# own answer; the last column is the response proposed to the chapter's author (correct,
# clarify, cite or leave alone). The sections are the detail: to read the outcome, go from
# this table to [the report](#the-report) for the chapter's author (near the end: one
# line per claim, each opening onto its quote, evidence and concern). The claims, with
# their quotes and proposed responses, are in `data/audit/claims.json`.

# %%
from IPython.display import display

from pisession.workshop import audit_report as report

claims = report.loads_claims(report.repository_file("data/audit/claims.json", REPOSITORY))
CLAIMS = {c["key"]: c for c in claims["claims"]}
display(report.summary(claims), raw=True)
counts = {v: sum(c["verdict"] == v for c in CLAIMS.values()) for v in report.VERDICTS}
print(", ".join(f"{n} {v}" for v, n in counts.items()), f"({len(CLAIMS)} claims)")

# %% [markdown]
# ## The evidence
#
# Pi's answers for two versions: 0.87.1, the version PiG pins and the chapter describes, and
# 1.6.0. In a checkout or on Binder they are read from the repository; on Colab the notebook
# is alone, so they are downloaded from the repository the setup cell installed pisession
# from (`REPOSITORY`, branch `main`).

# %%
import json


def repository_file(relative):
    return report.repository_file(relative, REPOSITORY)


evidence = json.loads(repository_file("data/audit/evidence.json"))
newer = json.loads(repository_file("data/audit/evidence-1.6.0.json"))
for e in (evidence, newer):
    print(
        f"Evidence recorded from Pi {e['pi']} by {e['generator']}: "
        f"{len(e['scenarios'])} scenarios, {len(e['files'])} audit files."
    )

# %% [markdown]
# When Node and Pi are installed (`PI_ORACLE_DIR`, `npm install` in `conformance/`, or
# `conformance/check.sh` for 1.6.0), the next cell runs every scenario again with each
# version and checks that Pi still gives exactly the recorded answers. Elsewhere it says
# that the recorded evidence is used.


# %% tags=nbval-ignore-output
import os
import shutil
import subprocess
import textwrap
from pathlib import Path


def rerun(version):
    """Pi ``version``'s answers recorded afresh here, or None without Node and that Pi."""
    node, script = shutil.which("node"), Path("..", "conformance", "audit.mjs")
    if node is None or not script.exists():
        return None
    env = dict(os.environ, TZ="UTC", PI_ORACLE_VERSION=version)
    where = [node, str(script.with_name("locate.mjs")), version]
    if subprocess.run(where, capture_output=True, env=env).returncode != 0:
        return None
    fresh = subprocess.run(
        [node, str(script), "--stdout"], capture_output=True, timeout=300, env=env
    )
    assert fresh.returncode == 0, fresh.stderr.decode()[-2000:]
    return json.loads(fresh.stdout)


for recorded in (evidence, newer):
    fresh = rerun(recorded["pi"])
    if fresh is None:
        print(
            f"Node and Pi {recorded['pi']} are not installed here: the recorded evidence is used."
        )
    else:
        assert fresh == recorded, (
            f"Pi {recorded['pi']}'s answers differ from the recorded evidence: re-record with "
            f"PI_ORACLE_VERSION={recorded['pi']} node conformance/audit.mjs and review the verdicts"
        )
        print(f"Pi {recorded['pi']} ran every scenario again here: same answers as recorded.")

# %% [markdown]
# The helpers the sections use: `pi(scenario, ...)` is Pi 0.87.1's recorded answer
# (`pi(..., version="1.6.0")` the newer one's), `show_code(scenario)` prints the lines of
# Pi's code a scenario quotes, and `verdict(key, fact=..., ...)` asserts every fact and shows
# the verdict. A verdict also records the scenarios its section read; when Pi 1.6.0 answered
# any of them differently, the section must assert the verdict for 1.6.0 too (`pi_1_6_0=`).

# %%
import html

asserted, _read = {}, []


def pi(name, *keys, version="0.87.1"):
    """Pi's recorded answer for a scenario (or a part of it)."""
    value = (evidence if version == evidence["pi"] else newer)["scenarios"][name]["result"]
    _read.append(name)
    for key in keys:
        value = value[key]
    return value


def pi_file(name, leaf=None):
    """Pi's reading of data/audit/<name>.jsonl at a leaf: context, llm, systemPrompt."""
    return next(c for c in evidence["files"][name]["cases"] if c["leaf"] == leaf)


def show_code(name, version="0.87.1"):
    for code in (evidence if version == evidence["pi"] else newer)["scenarios"][name].get(
        "code", []
    ):
        say(f"{code['file']}, line {code['line']}:")
        say(textwrap.indent(textwrap.dedent(code["text"]), "    "))


def roles(messages):
    return [m["role"] for m in messages]


def say(*values, width=88):
    """print, wrapped at spaces to fit the notebook's width (continued lines indented)."""
    for line in " ".join(str(v) for v in values).splitlines() or [""]:
        wrapped = textwrap.wrap(
            line, width, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False
        )
        print("\n".join(wrapped) if wrapped else "")


def _check(key, facts, version):
    failed = [name for name, holds in facts.items() if not holds]
    assert not failed, f"{key}: Pi {version}'s evidence no longer supports the verdict: {failed}"
    return [name.replace("_", " ") for name in facts]


def verdict(key, rests_on=(), pi_1_6_0=None, **facts):
    """Assert each fact taken from Pi's evidence, then show the claim's verdict.

    ``rests_on``: scenarios read in earlier sections; ``pi_1_6_0``: ``{"verdict": ...,
    fact: bool}`` asserted on Pi 1.6.0's answers where they differ from 0.87.1's."""
    c = CLAIMS[key]
    checked = _check(key, facts, "0.87.1")
    scenarios = list(dict.fromkeys([*_read, *rests_on]))
    _read.clear()
    assert scenarios, f"{key}: name the scenarios the verdict rests on (rests_on=...)"
    differs = [
        f"{s}: {d}" for s in scenarios for d in report.scenario_differences(evidence, newer, s)
    ]
    if differs and pi_1_6_0 is None:
        raise AssertionError(f"{key}: Pi 1.6.0 answers differently ({differs}): assert its verdict")
    later = None
    if pi_1_6_0 is not None:
        facts_1_6_0 = dict(pi_1_6_0)
        later = {"verdict": facts_1_6_0.pop("verdict"), "facts": _check(key, facts_1_6_0, "1.6.0")}
    asserted[key] = {
        "verdict": c["verdict"],
        "facts": checked,
        "scenarios": scenarios,
        "differs": differs,
        "newer": later,
    }
    on_newer = "" if not differs else f" (Pi 1.6.0: {later['verdict']})"
    display(
        {
            "text/html": f"<p>{report.badge(c['verdict'])}{html.escape(on_newer)} &nbsp;"
            f"{html.escape(c['short'])}<br><small>asserted on Pi's answer: "
            f"{html.escape(', '.join(checked))}</small></p>",
            "text/plain": textwrap.fill(
                f"{report.plain_mark(c['verdict'])} {c['verdict']}{on_newer}: {c['short']}", 88
            )
            + "\n"
            + textwrap.fill(f"asserted on Pi's answer: {', '.join(checked)}", 88),
        },
        raw=True,
    )


def pisession_agrees(name):
    """pisession's reading of an audit file, compared with Pi's, leaf by leaf."""
    raw = repository_file(f"data/audit/{name}.jsonl")
    session = pisession.loads(raw, f"{name}.jsonl", new_id=pisession.sequential_ids())
    cases = evidence["files"][name]["cases"]
    same = sum(json.loads(session.context(c["leaf"]).to_json()) == c["context"] for c in cases)
    say(f"pisession agrees with Pi on data/audit/{name}.jsonl: {same} of {len(cases)} leaves")


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
# older entry. But the other ways to branch make new files:
#
# - `/fork` and `/clone` call `createBranchedSession`, which writes the path to the chosen
#   entry into a **new session file**. Labels on that path are dropped from it, the entries
#   that followed a label are **re-linked** (their `parentId` changes), and the labels are
#   written again at the end with new ids. In Pi 0.87.1 nothing is written until the copied
#   path holds an assistant message (1.6.0: a user message is enough);
# - `/fork` on a user message branches at the entry *before* it. When that message is a
#   root (no entry before it), `/fork` calls `newSession({parentSession})`: a new, empty
#   session that copies nothing. In a file Pi's command line wrote, the first user message
#   follows the `model_change`, `thinking_level_change` and system message Pi writes at
#   start, so `/fork` on it copies those three (and, having no conversation yet, waits to
#   write the file);
# - `pi --fork FILE` (`SessionManager.forkFrom`) copies **every line of every branch**.

# %%
say("in place (/tree):", pi("branch-in-place"))
fork = pi("fork-and-clone", "createBranchedSession")
say("fork or clone: files in the folder", fork["filesInFolder"], "- new file:", fork["newFile"])
details = pi("fork-details")
say("original:", details["originalKinds"])
say("the fork:", details["forkKinds"], "- re-linked:", details["relinked"])
say("pi --fork:", details["forkFrom"])
say("/fork on the first user message of a Pi file:", details["forkBeforeFirstUserMessageOfPiFile"])
for version in ("0.87.1", "1.6.0"):
    early = pi("fork-details", "forkAtFirstUserMessage", version=version)
    say(
        f"Pi {version}: a fork whose copy holds a user message but no answer is written at once:",
        early["fileWritten"],
    )
show_code("fork-details")

# %%
early_1_6_0 = pi("fork-details", "forkAtFirstUserMessage", version="1.6.0")
verdict(
    "tree",
    branch_appends_to_the_same_file=pi("branch-in-place", "filesInFolder") == 1,
    branch_keeps_earlier_bytes=pi("branch-in-place", "earlierBytesUnchanged"),
    new_entry_is_a_child_of_an_older_one=pi("branch-in-place", "newEntryParentIsEarlierEntry"),
    fork_and_clone_write_a_new_file=fork["newFile"] and fork["filesInFolder"] == 2,
    fork_relinks_entries_after_a_label=len(details["relinked"]) == 1,
    labels_written_again_at_the_end=details["labelsLast"] and details["labelIdChanged"],
    fork_waits_for_an_answer=not details["forkAtFirstUserMessage"]["fileWritten"],
    fork_before_a_root_starts_an_empty_session="newSession({ parentSession: currentSessionFile })"
    in evidence["scenarios"]["fork-details"]["code"][1]["text"],
    fork_before_a_pi_files_first_question_copies_the_start=details[
        "forkBeforeFirstUserMessageOfPiFile"
    ]["kindsInMemory"]
    == ["model_change", "thinking_level_change", "message/system"],
    pi_fork_copies_every_branch=details["forkFrom"]["allBranchesCopied"],
    pi_1_6_0={
        "verdict": "needs nuance",
        "fork_written_with_a_user_message": early_1_6_0["fileWritten"],
    },
)

# %% [markdown]
# <a id="claim-append-only"></a>
# ### 2. Append-only
#
# > “Append-only line format, typed objects, and a tree carried entirely in the file.”
# > (chapter 27, *The container*)
#
# **Needs nuance.** Appending never changes earlier bytes, and creating a branch does not
# rewrite earlier entries. But these are not appends:
#
# - **the file appears late**: Pi 0.87.1 keeps the header, the settings and the user's
#   message in memory and writes them all at once with the first *assistant* message; Pi
#   1.6.0 writes them with the first *user* message (`_hasConversation`). The format and the
#   context rules are the same in both versions; when the file appears is not;
# - **opening a version 1 or 2 file rewrites it** (the migration, claim 8), with new ids for
#   a version 1 file. The rewrite is **in place and not atomic**: `_rewriteFile` opens the
#   same file with `"w"` (truncating it) and writes the entries again, so a crash in between
#   leaves a short file;
# - **opening an existing empty file writes a header** into it (a non-empty file that is
#   not a session is refused: "not a valid pi session");
# - **a torn last line is repaired**: when the last line has no newline (a crash mid-write),
#   loading appends `"\n"`, so the next entry starts on a line of its own. The torn fragment
#   stays in the file as a line Pi skips.
#
# Pi 1.6.0 also has more to write than 0.87.1 (found in its code and types, not run here:
# that code needs Pi's command line): its `AssistantMessage` type declares `thinkingLevel`
# ("Pi thinking level the agent loop requested") and `durationMs` (claim 39), and a virtual
# model's router state is stored as `custom` entries of type `pi.virtual-model-state`
# (claim 25).

# %%
for version in ("0.87.1", "1.6.0"):
    say(f"Pi {version}:")
    for step in pi("first-write", "steps", version=version):
        say(f"  after {step['after']}: file exists {step['fileExists']}, lines {step['lines']}")
say()
migration = pi("migration-rewrites-file")
say({name: m["fileRewritten"] for name, m in migration.items()}, "<- file rewritten on open")
opened = pi("open-in-place")
say("opening an empty file leaves:", opened["emptyFileAfterOpen"])
say("the migration rewrote the same file (same inode):", opened["migrationKeepsTheSameFile"])
say("a file that is not a session:", opened["notASession"])
show_code("open-in-place")
torn = pi("torn-last-line", "tornLine")
say(
    "torn last line: load appended",
    repr(torn["bytesAppendedByLoad"]),
    "- lines after the next append:",
    torn["lineKindsAfterAppend"],
)

# %%
steps, steps_1_6_0 = pi("first-write", "steps"), pi("first-write", "steps", version="1.6.0")
verdict(
    "append-only",
    no_file_before_the_first_assistant_message=not steps[1]["fileExists"]
    and steps[2]["fileExists"],
    later_appends_keep_earlier_bytes=steps[3]["earlierBytesUnchanged"],
    migration_rewrites_v1_and_v2=migration["v1-session"]["fileRewritten"]
    and migration["v2-hook"]["fileRewritten"],
    v3_file_not_rewritten=not migration["compaction-with-system"]["fileRewritten"],
    migration_rewrite_truncates_in_place=opened["migrationKeepsTheSameFile"]
    and opened["rewriteOpensWithTruncation"],
    empty_file_gets_a_header=opened["emptyFileAfterOpen"] == ["session"],
    torn_line_gets_a_newline=torn["bytesAppendedByLoad"] == "\n"
    and torn["lineKindsAfterAppend"][-2:] == ["malformed", "message/user"],
    pi_1_6_0={
        "verdict": "needs nuance",
        "file_written_with_the_first_user_message": steps_1_6_0[1]["fileExists"]
        and steps_1_6_0[1]["lines"][-1] == "message/user",
        "later_appends_keep_earlier_bytes": steps_1_6_0[3]["earlierBytesUnchanged"],
    },
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
    value = str(location[key])
    if key == "sessionFile":  # a folder and a file name: one line each
        folder, _, value = value.rpartition("/")
        say(f"{key:25} {folder}/")
        key = ""
    say(f"{key:25} {value}")

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
        say(f"{style:8} {cwd!r:36} -> {folder}")
show_code("folder-names")

# %%
from pisession.workshop import pi_folder_name

say(
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
say(repr("C:\\work\\api"), "->", folders["windows"]["C:\\work\\api"])

# %%
verdict(
    "c-work-api",
    rests_on=("folder-names",),
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
# **Needs nuance.** The order is right and complete: `--session-dir`, then
# `PI_CODING_AGENT_SESSION_DIR`, then the `sessionDir` setting; with none of them, the
# per-folder default of claim 3. This choice is made in Pi's command-line entry point, which
# needs Node >= 22.19; the audit evaluates that expression exactly as written in Pi's
# `main.js`, for every combination:

# %%
show_code("session-dir-precedence")
for case in pi("session-dir-precedence", "cases"):
    given = {k: v for k, v in case.items() if k != "chosen" and v}
    say(f"given {given or 'nothing'}: {case['chosen']}")

# %% [markdown]
# But the folder chosen is not a new *root* of per-project folders: Pi uses it as **the
# session folder itself**. `SessionManager.create(cwd, sessionDir)` puts the file straight
# into it, with no `--<path>--` subfolder, so the sessions of every project lie together in
# one folder; `list` and `continueRecent` then keep the files whose header's `cwd` is the
# project's.
# Two projects' sessions created with one custom folder:

# %%
custom = pi("custom-session-dir")
say("files in the custom folder:", custom["filesInCustomFolder"])
say("each session's file, relative to the folder:", custom["sessionFileRelativeToFolder"])
say("SessionManager.list for project-a:", custom["listedForProjectA"])
say("continueRecent for project-b:", custom["continueRecentForProjectB"])
show_code("custom-session-dir")

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
    files_straight_in_the_folder=all(
        "/" not in f for f in custom["sessionFileRelativeToFolder"].values()
    )
    and len(custom["filesInCustomFolder"]) == 2,
    listed_by_the_header_cwd=custom["listedForProjectA"] == ["question in project-a"],
    resumed_by_the_header_cwd=custom["continueRecentForProjectB"]["firstMessage"]
    == "question in project-b",
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
say("listed before:", pi("deletion", "listedBefore"))
say("listed after: ", pi("deletion", "listedAfter"))
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
say("current version:", versions["currentVersion"])
for name in ("v1-session", "v2-hook", "v3-stray-hook"):
    after = versions[name]
    say(f"{name:14} -> version {after['versionAfter']}, changed: {after['changed']}")

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
say("before:", pi("migration-rewrites-file", "v2-hook", "kindsBefore"))
say("after: ", pi("migration-rewrites-file", "v2-hook", "kindsAfter"))
stray = pi_file("v3-stray-hook")
say(
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
    say(f"{key:20} {header[key]}")

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
# copies the path's entries **with their ids**; only the labels get new ids (they are
# written again after the copied path, and an entry that followed a label gets a new
# `parentId`, claim 1), and `pi --fork` copies every entry line of every branch byte for
# byte. Matching entry ids connect a fork to its origin even when the path in
# `parentSession` no longer exists. (A `/fork` before a root user message is a
# `newSession({parentSession})` that copies nothing: its `parentSession` is then the only
# link.)

# %%
forks = pi("fork-and-clone")
say("fork/clone header:", forks["createBranchedSession"]["header"])
say("entries copied:", forks["createBranchedSession"]["entryKinds"])
say("of which keep their original id:", forks["createBranchedSession"]["entryIdsReused"])
say("pi --fork: entry lines identical to the original:", forks["forkFrom"]["entryLinesIdentical"])
say("newSession({parentSession}):", forks["newSessionWithParent"]["header"])

# %%
branched, copied = forks["createBranchedSession"], forks["forkFrom"]
verdict(
    "parent-session",
    parent_session_is_the_original_path=branched["parentSessionIsOriginalPath"],
    also_for_pi_fork=copied["parentSessionIsOriginalPath"],
    fork_reuses_entry_ids=branched["entryIdsReused"] == branched["entries"] - 1,
    fork_from_copies_lines=copied["entryLinesIdentical"],
    every_branch_copied_by_pi_fork=details["forkFrom"]["allBranchesCopied"],
    only_the_label_gets_a_new_id=details["labelIdChanged"]
    and len(details["forkKinds"]) - 1 == sum(k != "label" for k in details["forkKinds"]),
    rests_on=("fork-details",),
    pi_1_6_0={
        "verdict": "needs nuance",
        "entries_keep_their_ids": pi("fork-details", "forkFrom", version="1.6.0")[
            "allBranchesCopied"
        ],
    },
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
say("usual ids:", ids["usualIds"])
say("after 100 collisions:", ids["afterCollisions"])
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
say(len(types["written"]), "written:", types["written"])
say(len(types["declared"]), "declared:", types["declared"])

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
    say("Pi's file:", message)
say("entry types in that file:", replay["piFileEntryTypes"])
say("replayed sections:", list(replay["sections"]), "tools:", replay["tools"])
say(replay["prompt"])
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
# count as well. An assistant message records two models (pi-ai's `AssistantMessage`,
# claim 25): `model`, the model Pi **requested**, and, only when the provider reports
# another one, `responseModel`, the model that **answered**. Pi's context reads `model` and
# ignores `responseModel`. In `data/audit/settings.jsonl` the model chosen was
# `audit/selected-model`; then an assistant message requested
# `other-provider/requested-model` and was answered by `concrete-model-2026-01`: Pi's
# context at that message names the requested model.

# %%
say("files Pi wrote start with:", pi("settings-written-by-pi", "firstEntries"))
show_code("settings-written-by-pi")
for leaf, settings in pi("settings-sources").items():
    say(f"context at {leaf}: {settings}")
pisession_agrees("settings")

# %%
first = pi("settings-written-by-pi", "firstEntries")
settings = pi("settings-sources")
verdict(
    "model-change",
    written_at_session_start=all(kinds[0] == "model_change" for kinds in first.values()),
    assistant_message_sets_the_model=settings["a1"]["model"]
    == {"provider": "other-provider", "modelId": "requested-model"},
    its_requested_model_not_the_response_model=pi("response-model", "assistant", "responseModel")
    == "concrete-model-2026-01"
    and pi("response-model", "contextModel")["modelId"] == "requested-model",
    model_change_alone=settings["u1"]["model"]
    == {"provider": "audit", "modelId": "selected-model"},
    pi_1_6_0={
        "verdict": "needs nuance",
        "context_reads_the_requested_model": pi("response-model", "contextModel", version="1.6.0")
        == {"provider": "other-provider", "modelId": "requested-model"},
    },
)

# %% [markdown]
# <a id="claim-thinking-change"></a>
# ### 16. `thinking_level_change`
#
# > “thinking_level_change — same idea for reasoning level.” (chapter 27, *The entry types*)
#
# **Needs nuance.** It is also written at session start, and when a session that has none
# is resumed (the `sdk.js` lines above). And it counts only on its own path: the branch
# `u2`, which never saw the change to `"high"`, reports `"off"`. Pi 1.6.0 writes it in one
# more place: when a run starts on a branch whose recorded level differs from the live one
# (after a move in the tree), it appends one with the live level
# (`AgentSession._recordSelection`, `agent-session.js` 1517 and 354-366; a `model_change`
# likewise for a virtual model). A real 1.6.0 recording of the same tree moves holds 8
# `thinking_level_change` entries where 0.87.1's holds 4, and Pi's context at the main
# file's default leaf says `"high"` where 0.87.1's says `"medium"`
# (`data/facts/facts.json`: `record-selection-at-run-start`, `thinking-level-after-tree-moves`,
# checked by `tests/test_facts.py`).

# %%
verdict(
    "thinking-change",
    rests_on=("settings-written-by-pi", "settings-sources"),
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
say(
    "code that writes usage entries:",
    [(c["file"].split("/")[-1], c["kind"]) for c in usage["appendUsageCalls"]],
)
say("a cache-warming refresh wrote:", usage["cacheWarmingWrote"])
say("getSessionStats:", usage["totals"])
say("without the invented kind:", usage["totalsWithoutTheUnknownKind"])
say("context roles:", usage["contextRoles"])
show_code("usage")
stats = pisession.loads(repository_file("data/audit/usage-kinds.jsonl")).stats()
say("pisession agrees:", stats.usage.total_tokens == usage["totals"]["tokens"]["total"])

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
say("required:", [f["name"] for f in fields["declared"] if not f["optional"]])
say("optional:", [f["name"] for f in fields["declared"] if f["optional"]])
say("written without a system prompt:", fields["noSystemMessageInContext"]["keys"])
say("written with one:               ", fields["systemMessageInContext"]["keys"])

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
    say(f"{target:15} stored replacement {stored}")
say("refused:", edits["refused"])
say("context roles before/after:", edits["rolesBefore"], edits["rolesAfter"])
say("file:", edits["file"]["contents"][2], "| roles", edits["file"]["roles"])
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
# <a id="claim-line-type"></a>
# ### 20. A type field on every line
#
# > “Each line is a JSON object with a type field.” (chapter 27, *The container*, quoting
# > Pi's format document)
#
# **Needs nuance.** Every line Pi *writes* is. What Pi *reads* is wider: `loadEntriesFromFile`
# skips a line only when it is blank (what JavaScript's `trim()` empties) or does not parse,
# or when its value is falsy in JavaScript (`0`, `false`, `null`, `""`). Every other value is
# kept as an entry, `[]` and `{}` included (in Python both are falsy: a reader that tests
# `if value:` drops them), and so is an object without `type`. A header followed by one line
# of each:

# %%
values = pi("line-values")
say("lines:", values["lines"])
say("kept: ", values["kept"])
say("SessionManager.open:", values["opened"])
show_code("line-values")

# %%
verdict(
    "line-type",
    empty_list_and_object_kept={"[]", "{}"} <= set(values["kept"]),
    non_objects_kept={'"text"', "1", "true", "[1,2]"} <= set(values["kept"]),
    object_without_type_kept='{"no":"type"}' in values["kept"],
    falsy_values_skipped=not {"0", "false", "null", '""'} & set(values["kept"]),
    blank_and_malformed_skipped=len(values["kept"]) == len(values["lines"]) - 6,
)

# %% [markdown]
# <a id="claim-no-index"></a>
# ### 21. No index on disk
#
# > “No separate on-disk index is needed to represent the branches” (chapter 27, *The
# > container*)
#
# **Holds.** Two projects, each with a branched session, listed (`list`, `listAll`) and
# resumed (`continueRecent`) with the agent folder in a temporary place: the only files Pi
# left there are the two session files.

# %%
index = pi("no-index")
say("files in the agent folder:", index["filesInAgentFolder"])
say("listed for one project:", index["listed"], "- across projects:", index["listedAll"])

# %%
verdict(
    "no-index",
    only_session_files=all(f.endswith(".jsonl") for f in index["filesInAgentFolder"])
    and len(index["filesInAgentFolder"]) == 2,
    still_listed=index["listed"] == 1 and index["listedAll"] == 2,
)

# %% [markdown]
# <a id="claim-grouped"></a>
# ### 22. Grouped by working directory
#
# > “grouped by working directory” (chapter 27, *Location*, quoting Pi's `sessions.md`)
#
# **Needs nuance.** In the default location each working directory has its folder (claims 3
# and 4). With a custom session folder (claim 6) there are no per-directory folders: the
# files of every project lie together in one folder, and Pi groups them only when it lists
# them, by the `cwd` in each header.

# %%
say("default location:", pi("no-index", "filesInAgentFolder"))
say("custom folder:   ", pi("custom-session-dir", "filesInCustomFolder"))

# %%
verdict(
    "grouped",
    one_folder_per_directory_by_default=len(
        {f.split("/")[1] for f in pi("no-index", "filesInAgentFolder")}
    )
    == 2,
    flat_in_a_custom_folder=all(
        "/" not in f for f in pi("custom-session-dir", "filesInCustomFolder")
    ),
    listed_by_header_cwd=pi("custom-session-dir", "listedForProjectA") == ["question in project-a"],
)

# %% [markdown]
# <a id="claim-fork-branch-summary"></a>
# ### 23. A fork has no branch summary
#
# > “the fork’s branch summary does not exist there, because the new session has no record
# > of what it left.” (chapter 27, *The header*)
#
# **Holds.** `createBranchedSession` writes no `branch_summary` entry, in the fork or in the
# original; the branch that was not copied is simply absent from the fork.

# %%
say("fork:", details["forkKinds"])
say("branch summary in the fork:", details["branchSummaryInFork"])
say("in the original:", details["branchSummaryInOriginal"])

# %%
verdict(
    "fork-branch-summary",
    rests_on=("fork-details",),
    no_branch_summary_in_the_fork=not details["branchSummaryInFork"],
    none_in_the_original=not details["branchSummaryInOriginal"],
    other_branch_not_copied=details["uncopiedBranchLeft"],
    pi_1_6_0={
        "verdict": "holds",
        "no_branch_summary_in_the_fork": not pi(
            "fork-details", "branchSummaryInFork", version="1.6.0"
        ),
    },
)

# %% [markdown]
# <a id="claim-first-request-prompt"></a>
# ### 24. The first request's system message
#
# > “the first request of a session persists one with every prompt section and tool
# > declaration” (chapter 27, *The entry types*, message, quoting Pi's format document)
#
# **Holds** in the file Pi 0.87.1's command line wrote: its first system message has every
# section and declares every tool, and the later ones patch sections by name and add or
# remove tools. (No file from Pi 1.6.0's command line was recorded: it needs Node >=
# 22.19.)

# %%
for message in pi("system-prompt-replay", "piFileSystemMessages"):
    say(message)

# %%
first_prompt, *later_prompts = pi("system-prompt-replay", "piFileSystemMessages")
verdict(
    "first-request-prompt",
    first_has_every_section=all(
        set(m["sections"]) <= set(first_prompt["sections"]) for m in later_prompts
    )
    and len(first_prompt["sections"]) == 6,
    first_declares_the_tools=first_prompt["toolsAdded"] == ["read", "bash", "edit", "write"],
    later_ones_are_deltas=all(
        len(m["sections"]) < len(first_prompt["sections"]) for m in later_prompts
    ),
)

# %% [markdown]
# <a id="claim-response-model"></a>
# ### 25. Requested model and `responseModel`
#
# > “assistant messages separately record their provider and requested model, and may
# > provide responseModel when the concrete response model differs.” (chapter 27, *The entry
# > types*, model_change)
#
# **Holds.** pi-ai's providers set `responseModel` only when the model that answered is not
# the one requested (Anthropic: `if (responseModel !== model.id)`); `model` stays the
# requested one. Pi's context reads `model` (claim 15); the cost breakdown by model
# (`getUsageCostBreakdown`) keys by `provider/(responseModel ?? model)`, in 0.87.1 and 1.6.0
# alike. Only Pi 1.6.0 has virtual models, whose router state it stores as `custom` entries
# (`pi.virtual-model-state`; code below, not run here).

# %%
model = pi("response-model")
say("the assistant message:", model["assistant"])
say("Pi's context model:", model["contextModel"])
say("cost breakdown keys:", model["costBreakdownKeys"])
show_code("response-model")
for code in pi("response-model", "virtualModelStateWriters", version="1.6.0"):
    say(f"Pi 1.6.0 {code['file']}, line {code['line']}: {code['text']}")

# %%
verdict(
    "response-model",
    set_only_when_it_differs="if (responseModel !== model.id)"
    in [c["text"] for c in evidence["scenarios"]["response-model"]["code"]],
    declared_optional=any(
        f["name"] == "responseModel" and f["optional"] for f in pi("assistant-fields", "declared")
    ),
    context_reads_model=model["contextModel"]["modelId"] == model["assistant"]["model"],
    costs_key_by_the_answering_model=model["costBreakdownKeys"]
    == ["other-provider/concrete-model-2026-01"],
    no_virtual_model_state_in_the_older_pi=model["virtualModelStateWriters"] == [],
    pi_1_6_0={
        "verdict": "holds",
        "set_only_when_it_differs": "if (responseModel !== model.id)"
        in [c["text"] for c in newer["scenarios"]["response-model"]["code"]],
        "declared_optional": any(
            f["name"] == "responseModel" and f["optional"]
            for f in pi("assistant-fields", "declared", version="1.6.0")
        ),
        "context_reads_model": pi("response-model", "contextModel", version="1.6.0")["modelId"]
        == "requested-model",
        "virtual_model_state_written": len(
            pi("response-model", "virtualModelStateWriters", version="1.6.0")
        )
        > 0,
    },
)

# %% [markdown]
# <a id="claim-edit-views"></a>
# ### 26. What a context edit leaves alone
#
# > “the target entry and its metadata remain unchanged in raw history, UI, exports, and
# > session accounting.” (chapter 27, *The entry types*, context_edit, quoting Pi's format
# > document)
#
# **Holds.** An assistant answer replaced by a context edit: only the model context shows the
# edited text. The chat view renders `buildContextEntries` (the entries, not the edited
# messages), the JSONL export (`serializeSessionBranch`) and the HTML export
# (`exportFromFile`, its embedded data) hold the original answer and the edit as an entry
# of its own, and Pi's session totals (`getSessionStats`) are the same before and after.

# %%
views = pi("edits-leave-views")
for key in ("modelContextAssistantText", "chatViewAssistantText", "htmlExportAssistantText"):
    say(f"{key:27} {views[key]}")
say("JSONL export:", views["jsonlExport"])
say("totals before:", views["statsBefore"])
say("totals after: ", views["statsAfter"])
show_code("edits-leave-views")

# %%
verdict(
    "edit-views",
    model_context_edited=views["modelContextAssistantText"] == ["the edited answer"],
    chat_view_unchanged=views["chatViewAssistantText"] == ["the original answer"],
    exports_unchanged=views["jsonlExport"]["assistantText"]
    == views["htmlExportAssistantText"]
    == ["the original answer"],
    exports_keep_the_edit_entry=views["htmlExportHasTheEdit"]
    and views["jsonlExport"]["kinds"][-1] == "context_edit",
    totals_unchanged=views["statsBefore"] == views["statsAfter"],
)

# %% [markdown]
# ## PiG's session-format page
#
# <a id="claim-pig-header-id"></a>
# ### 27. "The first line has no id"
#
# > “The first line has no id or parentId:” (PiG page, *File location*)
#
# **Wrong** for Pi: the header has an `id`, the session id (claim 10). PiG's own example
# right below the sentence shows one.

# %%
say("keys of the first line Pi writes:", header["headerKeys"])

# %%
verdict(
    "pig-header-id",
    rests_on=("header",),
    header_has_an_id="id" in header["headerKeys"],
    but_no_parent_id=not header["headerHasParentId"],
)

# %% [markdown]
# <a id="claim-pig-blocks"></a>
# ### 28. Content block fields
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
    say(f"{kind:20} {keys}")
for name in ("ImageContent", "ThinkingContent", "ToolCall"):
    say(name, [f["name"] + ("?" if f["optional"] else "") for f in blocks["declared"][name]])

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
    pi_1_6_0={
        "verdict": "wrong",
        "same_image_fields": pi("content-blocks", "declared", "ImageContent", version="1.6.0")
        == blocks["declared"]["ImageContent"],
        "tool_call_still_has_arguments": "arguments"
        in [f["name"] for f in pi("content-blocks", "declared", "ToolCall", version="1.6.0")],
    },
)

# %% [markdown]
# <a id="claim-pig-roles"></a>
# ### 29. Message roles
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
    say(f"{item['input']['role'] + note:35} -> {becomes}")

# %%
converted = {item["input"]["role"]: item["becomes"] for item in pi("roles", "messages")}
verdict(
    "pig-roles",
    rests_on=("settings-written-by-pi",),
    system_stored_by_pi=all(kinds[2] == "message/system" for kinds in first.values()),
    system_passes_to_the_provider=converted["system"]["role"] == "system",
)

# %% [markdown]
# <a id="claim-pig-compaction"></a>
# ### 30. A compaction's optional fields
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
    say(f"{name:26} {result['roles']}  prompt: {result['systemPrompt']!r}")
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
    rests_on=("compaction-fields",),
    system_message_is_an_optional_field="systemMessage" in optional,
    it_opens_the_context=with_it["roles"][:2] == ["system", "compactionSummary"],
    without_it_no_system_prompt=without["systemPrompt"] == "" and "system" not in without["roles"],
    later_system_messages_kept=after["systemPrompt"] == "Keep answers short.",
)

# %% [markdown]
# <a id="claim-pig-model"></a>
# ### 31. Where the model comes from
#
# > “It applies the latest model and thinking-level entries.” (PiG page, *Context
# > construction*)
#
# **Needs nuance.** For the model, the latest assistant message counts too (claim 15): at
# `a1` Pi reports the model that message *requested* (its `model`), not the `model_change`
# before it, and not the model that answered (its `responseModel`).

# %%
verdict(
    "pig-model",
    rests_on=("settings-sources",),
    assistant_message_wins_when_later=settings["a1"]["model"]["modelId"] == "requested-model",
    not_its_response_model=settings["a1"]["model"]["modelId"]
    != pi("response-model", "assistant", "responseModel"),
    pi_1_6_0={
        "verdict": "needs nuance",
        "assistant_message_wins_when_later": pi("settings-sources", "a1", version="1.6.0")["model"][
            "modelId"
        ]
        == "requested-model",
    },
    thinking_from_entries_only=settings["a1"]["thinkingLevel"] == "high",
)

# %% [markdown]
# <a id="claim-pig-bash"></a>
# ### 32. Excluded bash commands
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
say("context:", bash["contextRoles"], "- marked excludeFromContext:", bash["excludedInContext"])
say("provider:", bash["llmRoles"])
for text in bash["llmTexts"][1:]:
    say(textwrap.indent(text, "    "))
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
# ### 33. Context edits change the context
#
# > “Pi 0.87.1 also writes context_edit entries, which change the context an earlier entry
# > contributes.” (PiG page, introduction)
#
# **Holds** (claim 19). PiG does not apply them yet; notebook 06 builds that view.

# %%
verdict(
    "pig-context-edit",
    rests_on=("context-edits",),
    edit_changes_the_context=edits["rolesBefore"] != edits["rolesAfter"]
    and edits["contentAfter"]["user"] == ["shorter user"],
)

# %% [markdown]
# <a id="claim-pig-null-label"></a>
# ### 34. A null label
#
# > “A null label clears the target label.” (PiG page, *Label*)
#
# **Holds**, and so do an empty string and a missing `label` (any falsy label). To clear a
# label Pi itself writes a label entry *without* a `label` field. `getLabel` after loading
# `data/audit/labels.jsonl`:

# %%
labels = pi("labels")
say("labels:", labels["labels"])
say("Pi's clearing entry has the keys", labels["clearingEntryKeys"])
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
# ### 35. No `retainedTail`
#
# > “The current format does not define a retainedTail field.” (PiG page, *Compaction*)
#
# **Holds.** Pi's types do not mention it, and a compaction carrying one gives exactly the
# same context as without it.

# %%
say(pi("retained-tail"))

# %%
verdict(
    "pig-retained-tail",
    not_declared=not pi("retained-tail", "declaredAnywhere"),
    ignored=pi("retained-tail", "contextsEqual") and pi("retained-tail", "llmEqual"),
)

# %% [markdown]
# <a id="claim-pig-clone"></a>
# ### 36. A clone's `parentSession`
#
# > “A cloned Session can also contain parentSession.” (PiG page, *File location*)
#
# **Holds**, for forks as well (claim 11).

# %%
verdict(
    "pig-clone",
    rests_on=("fork-and-clone",),
    clone_header_names_its_parent="parentSession" in forks["createBranchedSession"]["header"],
)

# %% [markdown]
# <a id="claim-pig-append-order"></a>
# ### 37. Append order
#
# > “Entries stay in append order in the file.” (PiG page, *Entry tree*)
#
# **Holds.** Pi adds each entry at the end and never moves a line; its migration rewrite keeps
# the order. Two things a reader may take for a reordering: Pi's tree view sorts siblings
# by **timestamp**, not by their place in the file, and a fork writes its labels after the
# copied path (claim 1). Two children of `u1`, appended `late` then `early`:

# %%
order = pi("entry-order")
say("file order:", order["fileOrder"], "- tree view (getTree):", order["treeChildrenOrder"])
show_code("entry-order")

# %%
verdict(
    "pig-append-order",
    appends_go_last=pi("first-write", "steps")[3]["earlierBytesUnchanged"],
    tree_view_sorts_by_timestamp=order["treeChildrenOrder"] == ["early", "late"]
    and order["fileOrder"] == ["late", "early"],
    pi_1_6_0={
        "verdict": "holds",
        "appends_go_last": pi("first-write", "steps", version="1.6.0")[3]["earlierBytesUnchanged"],
    },
)

# %% [markdown]
# <a id="claim-pig-parent-previous"></a>
# ### 38. `parentId`
#
# > “parentId points to the previous entry on that branch.” (PiG page, *Entry tree*)
#
# **Holds**: the previous entry *on the branch*, which is not always the previous line.
# After `branch(u1)` the next entry's parent is `u1`; after `resetLeaf()` the next entry is a
# second root (`parentId: null`).

# %%
for line in order["order"]:
    say(line)
say("roots:", order["roots"])

# %%
verdict(
    "pig-parent-previous",
    rests_on=("entry-order",),
    branched_entry_points_to_the_branch_point=order["branchedEntryParent"],
    not_always_the_previous_line=[o["parentIsPreviousLine"] for o in order["order"]]
    == [True, True, True, False, False],
    a_new_root_has_null=order["secondRootParent"] is None and order["roots"] == 2,
)

# %% [markdown]
# <a id="claim-pig-assistant-fields"></a>
# ### 39. The assistant message's fields
#
# > “A completed assistant message can contain provider, model, API, usage, diagnostics,
# > response identity, stopReason, and errorMessage fields.” (PiG page, *Entry types*,
# > Message)
#
# **Needs nuance.** Every field named is there (response identity is `responseId`). But the
# list leaves out `responseModel`, the model that answered (claim 25; `model` is the one
# requested), and `content` and `timestamp`, which every assistant message has. Pi 1.6.0's
# type adds `thinkingLevel` and `durationMs`.

# %%
for version in ("0.87.1", "1.6.0"):
    fields = pi("assistant-fields", "declared", version=version)
    say(f"Pi {version}:", [f["name"] + ("?" if f["optional"] else "") for f in fields])
say("in the files Pi 0.87.1 wrote:", pi("assistant-fields", "inPiFiles"))


# %%
def assistant_fields(version="0.87.1"):
    return {f["name"]: f["optional"] for f in pi("assistant-fields", "declared", version=version)}


named = {
    "provider",
    "model",
    "api",
    "usage",
    "diagnostics",
    "responseId",
    "stopReason",
    "errorMessage",
}
verdict(
    "pig-assistant-fields",
    every_named_field_declared=named <= set(assistant_fields()),
    response_model_not_named=assistant_fields()["responseModel"] is True,
    content_and_timestamp_required=assistant_fields()["content"] is False
    and assistant_fields()["timestamp"] is False,
    pi_1_6_0={
        "verdict": "needs nuance",
        "adds_thinking_level_and_duration": {"thinkingLevel", "durationMs"}
        <= set(assistant_fields("1.6.0")) - set(assistant_fields()),
    },
)

# %% [markdown]
# <a id="claim-pig-latest-name"></a>
# ### 40. The latest name
#
# > “PiG shows the latest Session name in /resume.” (PiG page, *Session information*)
#
# **Needs nuance.** Pi's `getSessionName` takes the latest `session_info` entry and stops
# there: an empty (or blank) latest name **clears** the name, it does not fall back to an
# older one. `appendSessionInfo` trims names and turns line breaks into spaces.

# %%
for step in pi("session-name", "steps"):
    say(step)
show_code("session-name")

# %%
names = pi("session-name", "steps")
verdict(
    "pig-latest-name",
    latest_wins=names[1]["getSessionName"] == "Latest name",
    empty_name_clears=names[2]["getSessionName"] is None,
    blank_name_clears=names[3]["stored"] == "" and names[3]["getSessionName"] is None,
    line_breaks_become_spaces=names[4]["stored"] == "Line one line two",
)

# %% [markdown]
# <a id="claim-pig-context-steps"></a>
# ### 41. The context steps
#
# > “It applies compaction at firstKeptEntryId.” (PiG page, *Context construction*)
#
# **Needs nuance.** The page's five steps leave out two that change what the model sees:
# system messages in the kept range are **dropped** (the compaction's `systemMessage` opens
# the context instead, claim 30), and **context edits** replace or remove their targets
# (claim 19; PiG says elsewhere that it does not apply them yet).

# %%
for name, result in pi("compaction-system-messages").items():
    say(f"{name:26} {result['roles']}")
say("context edits: roles before", edits["rolesBefore"], "after", edits["rolesAfter"])

# %%
verdict(
    "pig-context-steps",
    rests_on=("context-edits",),
    kept_system_messages_dropped="system" not in compactions["compaction-without-system"]["roles"],
    checkpoint_opens_the_context=compactions["compaction-with-system"]["roles"][0] == "system",
    edits_change_the_context=edits["rolesBefore"] != edits["rolesAfter"],
)

# %% [markdown]
# <a id="claim-pig-null-parent"></a>
# ### 42. `null` or no `parentId`
#
# > “Preserve null versus a missing parentId.” (PiG page, *Compatibility rules*)
#
# **Needs nuance.** Good advice for a program that copies a file, and Pi's `pi --fork` does
# keep a missing `parentId` missing. But the difference means nothing to Pi: both entries
# are roots of its tree and end the walk to the root, and its own `/fork`
# (`createBranchedSession`) writes `null` for either.

# %%
parents = pi("null-versus-missing-parent")
say(parents)
show_code("null-versus-missing-parent")

# %%
verdict(
    "pig-null-parent",
    both_are_roots=parents["roots"] == ["nullroot", "missing"],
    walk_ends_at_either=parents["contextAtA1"] == ["user", "assistant"],
    pi_fork_keeps_it_missing=parents["forkFromKeepsMissing"],
    fork_writes_null=parents["createBranchedSessionWrites"] is None,
)

# %% [markdown]
# ## The chapter's question, once more
#
# <a id="claim-reached-the-model"></a>
# ### 43. Which lines reached the model
#
# > “Which of those reached the model is not obvious from the file. This chapter is about
# > the file and the rule that decides.” (chapter 27, *the opening*)
#
# **Needs nuance.** The rule decides what the **context** holds (`buildSessionContext`,
# then `convertToLlm`). One more step runs before every request, in pi-ai:
# `transformMessages`, called by every provider API, leaves out every failed or aborted
# reply and answers each tool call left without a result with a result of its own. On
# `data/audit/aborted-reply.jsonl` (a reply stopped with Escape after starting a tool
# call, then a reply whose tool call never got a result), Pi's context holds the aborted
# reply; the request does not, and it carries a tool result that is in no line of the file.
# (Notebook 03 shows the same beside a request Pi's real CLI sent; pisession's fates call
# such a reply `left-out`.)

# %%
request_step = pi("request-step")
say("context:", request_step["contextRoles"])
say("sent:   ", request_step["sentRoles"], "(from provider messages", request_step["sentFrom"], ")")
say("written by pi-ai:", request_step["written"])
show_code("request-step")
aborted = pisession.loads(repository_file("data/audit/aborted-reply.jsonl"), "aborted-reply.jsonl")
say(
    "pisession:",
    [m["role"] for m in aborted.sent(now=0).messages],
    [f.fate for f in aborted.fates() if f.fate == "left-out"],
)

# %%
verdict(
    "reached-the-model",
    aborted_reply_in_the_context=request_step["contextRoles"][1] == "assistant",
    left_out_of_the_request=request_step["leftOut"] == [1],
    a_result_no_line_holds=request_step["written"][0]["content"][0]["text"] == "No result provided",
    pisession_sends_the_same=[m["role"] for m in aborted.sent(now=0).messages]
    == request_step["sentRoles"],
)

# %% [markdown]
# ## Every verdict asserted
#
# The table at the top and the sections agree: each claim's verdict was asserted on Pi's
# answer exactly once.

# %%
assert {k: a["verdict"] for k, a in asserted.items()} == {
    k: c["verdict"] for k, c in CLAIMS.items()
}
assert list(asserted) == list(CLAIMS), "the sections follow the claims file's order"
later = {k: a for k, a in asserted.items() if a["differs"]}
say(f"{len(asserted)} verdicts asserted on Pi {evidence['pi']}'s own answers;")
say(f"Pi {newer['pi']} answered differently for {len(later)} of them, each asserted on its answer:")
for key, a in later.items():
    say(f"  {key}: {a['verdict']} -> {a['newer']['verdict']} ({'; '.join(a['differs'])})")

# %% [markdown]
# <a id="the-report"></a>
# ## The report
#
# What the chapter's author asked for, rendered from the claims file and the verdicts just
# asserted: context and provenance, the claim audit (a table with one row per claim: its
# verdict, whether Pi 1.6.0 answers the same, priority and proposed response; below it,
# one line per claim that opens onto its quote, evidence and concern), the source ledger,
# the findings, the upgrade proposal, the experiments (with those not run marked UNRUN)
# and the review checklist. `docs/chapter-27-audit.md` is the same text (a test keeps
# the two equal).

# %%
audit_text = report.report(claims, asserted, evidence, newer)
display({"text/markdown": audit_text}, raw=True)

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
    say("The corpus is not here: run this notebook in a repository checkout or on Binder.")
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
    say(f"{len(goldens)} files recorded from Pi; {files} have contexts Pi could build.")
    say(f"{cases} contexts: pisession agrees with Pi 0.87.1 on {agree}.")
    assert agree == cases, f"pisession differs from Pi on {cases - agree} contexts"

# %% [markdown]
# ## Recap
#
# - Most statements hold for Pi 0.87.1: the location, deletion, the versions and the v3
#   rename, the header, the id length, the eleven types, system messages as prompt deltas
#   (the first one complete), usage, context edits and what they leave alone, no index on
#   disk, no branch summary in a fork, `model` as the requested model beside
#   `responseModel`; on PiG's page the null label, `retainedTail`, `parentSession` on
#   clones, append order, `parentId` as the previous entry on the branch.
# - Several need a nuance: branching in place is `/tree`'s (forks and clones write new
#   files, re-linking entries after labels); "append-only" has exceptions (the late first
#   write, the in-place migration rewrite, the header written into an empty file, the
#   torn-line newline); Pi keeps any truthy line, `[]` and `{}` included; the folder rule
#   works on the resolved directory; a custom session folder is flat, not a new root;
#   `model_change` and `thinking_level_change` are also written at start and the model comes
#   from assistant messages too (their requested `model`); compactions require `summary` and
#   `tokensBefore`; PiG's role list omits `system`, its compaction fields `systemMessage`,
#   its assistant fields `responseModel`, its context steps the system-message drop; an
#   empty name clears the name; `null` and a missing `parentId` are the same to Pi.
# - Wrong: `C:\work\api` becomes `--C--work-api--`; PiG's "the first line has no id" and
#   its content block field names.
# - The chapter's own question needs a nuance too: the rule decides what the context holds,
#   and pi-ai's last step before each request leaves failed and aborted replies out and
#   answers tool calls left without a result.
# - Pi 1.6.0 reads and builds contexts exactly as 0.87.1 does; it writes the file at the
#   first user message, so a fork whose copy holds a user message but no answer yet is
#   written at once (not `/fork` on the first user message of a Pi-written file: that copy
#   holds no user message, and neither version writes it at once); its types add
#   assistant fields, and when a run starts it records the live thinking level (and a
#   virtual model) on a branch whose recorded one differs. Every verdict stands in 1.6.0;
#   the ones resting on files 0.87.1's CLI wrote are UNVERIFIED for 1.6.0's CLI unless its
#   recordings back them (the 1.6.0 column says which).
# - Each verdict rests on Pi's own answer, asserted in the notebook; with Node and Pi
#   installed the answers are re-recorded and compared as the notebook runs.
