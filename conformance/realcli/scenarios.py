"""What each recording does: Pi's real CLI driven in print, json and rpc modes against the
fake provider. Each scenario is a function of a ``Recorder``; the replies it pushes are
taken by Pi's requests in order (summaries and cache-warming requests are answered by the
provider without the queue).
"""

from __future__ import annotations

import base64

from recorder import Recorder, png

TEXT = {"text": "Done."}


def print_tools(rec: Recorder) -> None:
    """Print and json modes, one session continued four times (``-c``): ``--name``,
    parallel tool calls with one failing, a thinking block, an ``@file`` image, a read
    image, a tool-set change (``--tools``) and a reply naming another model."""
    p = rec.provider
    p.push(
        {
            "thinking": "The user wants the notes; read them and list the folder.",
            "text": "Reading the notes and listing the project.",
            "tools": [
                {"name": "read", "args": {"path": "notes.txt"}},
                {"name": "bash", "args": {"command": "ls"}},
                {"name": "read", "args": {"path": "missing.txt"}},
            ],
        },
        {"text": "The notes say the parser ships on Friday; missing.txt does not exist."},
    )
    rec.pi("-p", "--name", "Tools tour", "--thinking", "high", "What do the notes say?")
    p.push({"text": "A small red rectangle."})
    rec.pi("-c", "-p", "@screenshot.png", "What is in this picture?")
    p.push(
        {"tools": [{"name": "read", "args": {"path": "diagram.png"}}]},
        {"text": "A blue diagram."},
    )
    rec.pi("-c", "-p", "--tools", "read,ls", "Read diagram.png and describe it")
    p.push({"text": "Summary: notes read, two pictures seen.", "model": "fake-coder-2026-11"})
    rec.pi("-c", "--mode", "json", "Summarise the session in one line")


def long(text: str) -> str:
    """A message long enough for compaction to find something to summarise."""
    return text + " " + " ".join(f"detail-{n}" for n in range(60))


def rpc_compaction(rec: Recorder) -> None:
    """RPC: a manual compaction with instructions, a threshold compaction (reported
    prompt_tokens over the window less the reserve), an overflow recovery (a 400 with
    OpenAI's overflow text), and the extension's custom entry, custom message and context
    edits (one dropping a reply, one replacing it)."""
    p = rec.provider
    rpc = rec.rpc(*rec.ext())
    try:
        p.push(
            {"tools": [{"name": "read", "args": {"path": "src/app.py"}}]},
            {"text": long("greet() joins 'hi ' and a name.")},
        )
        rpc.prompt(long("What does src/app.py do?"))
        rpc.command("/rec-entry after-first-question")
        rpc.command("/rec-tools read,bash")  # the extension changes the tool set
        rpc.command("/rec-message Remember: the team prefers small functions.")
        p.push({"text": long("Add a docstring and a type hint.")})
        rpc.prompt(long("How would you improve it?"))
        rpc.send("compact", customInstructions="Keep the file names and the decisions.")
        p.push({"text": long("It is tested by 12 tests.")})
        rpc.prompt(long("How many tests pass?"))
        p.push({"text": long("Friday."), "usage": {"prompt_tokens": 26000}})
        rpc.prompt(long("When does it ship?"))  # over the threshold: compacted after it
        rpc.command("/rec-edit drop")
        p.push({"text": long("A first answer that the extension drops.")}, {"text": "Short."})
        rpc.prompt(long("Explain the plan"))
        rpc.command("/rec-edit replace")
        p.push({"text": long("Another answer, replaced.")}, {"text": "Shorter."})
        rpc.prompt(long("And the risks?"))
        p.push(
            {"status": 400, "error": "Your input exceeds the context window of this model."},
            {"text": long("After recovery: all good.")},
        )
        rpc.prompt(long("Anything else?"))  # overflow: compacted, then retried
    finally:
        rpc.close()


def rpc_retries(rec: Recorder) -> None:
    """RPC: retries (429, 500, a stream cut mid-message), an error without a retry (a
    400), an aborted reply, an aborted reply that had made tool calls, a model and a
    thinking change, a switch to another provider after thinking blocks, an image sent to
    a text-only model, and an RPC ``bash``."""
    p = rec.provider
    rpc = rec.rpc("--thinking", "medium")
    image = {"type": "image", "data": base64.b64encode(png()).decode(), "mimeType": "image/png"}
    try:
        p.push(
            {"status": 429, "error": "Rate limit reached, retry later."},
            {"text": "Hello after a 429."},
        )
        rpc.prompt("Hello")
        p.push({"status": 500, "error": "Internal server error"}, {"text": "Hello after a 500."})
        rpc.prompt("Hello again")
        p.push(
            {"text": "This stream is cut in the midd", "cut": True}, {"text": "Complete this time."}
        )
        rpc.prompt("Tell me a story")
        p.push({"status": 400, "error": "Invalid value for 'temperature'."})
        rpc.prompt("Bad request please")
        mark = rpc.mark()
        p.push({"text": "A slow answer that will be aborted", "hang": True})
        rpc.prompt("Answer slowly", wait=False)
        rpc.abort_when("message_update", mark)
        mark = rpc.mark()
        p.push(
            {
                "text": "Running two commands.",
                "tools": [
                    {"name": "bash", "args": {"command": "echo one"}},
                    {"name": "bash", "args": {"command": "echo two"}},
                ],
                "hang": True,
            }
        )
        rpc.prompt("Run two commands", wait=False)
        rpc.abort_when("message_update", mark, tool_calls=2)
        p.push({"thinking": "Weighing the options carefully.", "text": "Option B."})
        rpc.prompt("Which option?")
        rpc.send("set_thinking_level", level="high")
        rpc.send("set_model", provider="other", modelId="other-thinker")
        p.push({"thinking": "Another provider thinks too.", "text": "Still option B."})
        rpc.prompt("Are you sure?")
        rpc.send("bash", command="echo from-rpc-bash && printf 'two lines\\n'")
        rpc.send("set_model", provider="fake", modelId="fake-text")
        p.push({"text": "I cannot see images, but I read your text."})
        rpc.prompt("What is in this image?", images=[image])
        rpc.send("cycle_thinking_level")
        p.push({"text": "Done."})
        rpc.prompt("Thanks")
    finally:
        rpc.close()


def rpc_tree(rec: Recorder) -> None:
    """RPC: labels, tree navigation without and with a branch summary (several leaves),
    RPC ``fork`` and ``clone``, a session name set over RPC."""
    p = rec.provider
    rpc = rec.rpc("--thinking", "medium", *rec.ext())
    try:
        p.push({"thinking": "Start with the grammar.", "text": "Step 1: a plan."})
        rpc.prompt("Plan the parser")
        p.push(
            {"tools": [{"name": "bash", "args": {"command": "ls src"}}]},
            {"text": "Step 2: a tokenizer."},
        )
        rpc.prompt("Write the tokenizer")
        rpc.send("set_thinking_level", level="high")
        p.push({"thinking": "Precedence first.", "text": "Step 3: a grammar."})
        rpc.prompt("Write the grammar")
        rpc.command("/rec-label user:2 tokenizer-start")
        rpc.command("/rec-label assistant:3 grammar-done")
        # back before the tokenizer, no summary (1.6.0 records the live thinking level
        # again: the branch it lands on says medium)
        rpc.command("/rec-tree user:2")
        p.push({"text": "A different tokenizer."})
        rpc.prompt("Write the tokenizer with regexes instead")
        rpc.command("/rec-tree assistant:1 summary branch-point")  # with a summary
        p.push({"text": "A third approach."})
        rpc.prompt("Try a hand-written lexer")
        rpc.command("/rec-label assistant:1 -")
        rpc.send("set_session_name", name="Parser experiments")
        forks = rpc.send("get_fork_messages")["messages"]
        rpc.send("clone")
        p.push({"text": "In the clone."})
        rpc.prompt("Continue in the clone")
        rpc.send("fork", entryId=forks[0]["entryId"])
        p.push({"text": "In the fork."})
        rpc.prompt("Start over in the fork")
    finally:
        rpc.close()


def cli_fork(rec: Recorder) -> None:
    """``pi --fork FILE`` into another project, then continued there."""
    p = rec.provider
    p.push({"text": "The app greets people."})
    rec.pi("-p", "--name", "Source session", "Describe the app")
    source = rec.sessions()[0]
    p.push({"text": "Ported to the other app."})
    rec.pi("--fork", str(source), "-p", "Port this to the other app", cwd=rec.other)
    p.push({"text": "Still in the other app."})
    rec.pi("-c", "-p", "And the README?", cwd=rec.other)


def tool_without_result(rec: Recorder) -> None:
    """A tool call left without a result: Pi is killed (SIGKILL) while its bash tool runs,
    then the session is continued in print mode (``-c``)."""
    p = rec.provider
    rpc = rec.rpc()
    p.push({"text": "First answer."})
    rpc.prompt("Start")
    mark = rpc.mark()
    p.push({"tools": [{"name": "bash", "args": {"command": "sleep 30"}}]})
    rpc.prompt("Run the long job", wait=False)
    rpc.wait("tool_execution_start", mark)
    import time

    time.sleep(0.5)  # the assistant message is on disk before the tool starts
    rpc.kill()
    p.push({"text": "Continuing without that result."})
    rec.pi("-c", "-p", "Go on")  # the next request carries the call without its result


def cache_warm(rec: Recorder) -> None:
    """Cache warming (1.6.0 ``cacheWarming: idle``, a model with an 11 s prompt-cache
    lifetime): Pi re-sends the last request with a one-token cap about a second later and
    writes a ``usage`` entry of kind ``cache_warm``."""
    import time

    p = rec.provider
    rpc = rec.rpc()
    try:
        p.push({"text": "Warm me.", "usage": {"prompt_tokens": 30000, "cached_tokens": 0}})
        rpc.prompt("A question with a long prompt")
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            if any(b'"type":"usage"' in s.read_bytes() for s in rec.sessions()):
                break
            time.sleep(0.2)
        p.push(
            {
                "text": "Answered from a warm cache.",
                "usage": {"prompt_tokens": 30100, "cached_tokens": 30000},
            }
        )
        rpc.prompt("The follow-up")
    finally:
        rpc.close()


def rpc_queue(rec: Recorder) -> None:
    """RPC: a steering message and a follow-up sent while a reply streams slowly, a
    ``new_session`` (a second file in the folder, naming its parent) and a
    ``switch_session`` back to the first file, continued there."""
    p = rec.provider
    rpc = rec.rpc()
    try:
        p.push(
            {"text": "Working on it, slowly, one step after another.", "slow": 0.4},
            {"text": "Steered: the tests first."},
            {"text": "Followed up: a summary."},
        )
        mark = rpc.mark()
        rpc.prompt("Start a long task", wait=False)
        rpc.wait("message_update", mark)
        rpc.send("steer", message="Focus on the tests")
        rpc.send("follow_up", message="Then summarise")
        rpc.wait("agent_settled", mark, timeout=60)
        first = rpc.send("get_state")["sessionFile"]
        rpc.send("new_session", parentSession=first)
        p.push({"text": "A new session."})
        rpc.prompt("Hello in a new session")
        rpc.send("switch_session", sessionPath=first)
        p.push({"text": "Back in the first session."})
        rpc.prompt("Back again")
    finally:
        rpc.close()


SCENARIOS = {
    "print-tools": (print_tools, {}),
    "rpc-compaction": (rpc_compaction, {}),
    "rpc-retries": (rpc_retries, {}),
    "rpc-tree": (rpc_tree, {}),
    "cli-fork": (cli_fork, {}),
    "tool-without-result": (tool_without_result, {}),
    "cache-warm": (cache_warm, {"cache_ttl": 11}),
    "rpc-queue": (rpc_queue, {}),
}
