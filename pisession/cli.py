"""The ``pisession`` command: real session folders from the terminal.

    pisession explain [FILE]          which entries reached the model, and why
    pisession context FILE            the model context as Pi builds it (JSON)
    pisession tree FILE               the entry tree (text, or --png/--svg)
    pisession migrate FILE -o OUT     write a version 3 copy of a legacy file
    pisession check FILE              damage and surprises, with an exit status
    pisession stats FILE              tokens, cost and message counts
    pisession ls [DIR]                the sessions Pi (or PiG) has stored

Also ``python -m pisession``. Files are only read, except by ``migrate`` (which writes
a new file atomically) and ``tree --png/--svg``. Session text is escaped before it
reaches the terminal; colours appear only on a terminal (never in a pipe) and never
when ``NO_COLOR`` is set. Errors are one line on stderr and exit status 2.

Importing this module stays light: matplotlib and networkx load only when needed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path

from . import jsjson
from .errors import PisessionError, UnknownLeafError
from .terminal import (
    can_draw_boxes,
    clean,
    end_note,
    note,
    output_width,
    pad,
    paint,
    text_width,
    truncate,
    truncate_left,
    use_color,
)

PROG = "pisession"

#: Files above this size get a "reading ..." note on stderr (when it is a terminal).
BIG_FILE = 8 * 1024 * 1024


class CommandError(Exception):
    """A usage problem found after parsing (exit status 2, one line on stderr)."""


# --- shared helpers -------------------------------------------------------------------


def _out(text: str) -> None:
    sys.stdout.write(text)


def _out_bytes(data: bytes) -> None:
    """Write bytes exactly (JSON output must not depend on the locale's encoding)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("utf-8"))
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()


def _load(path: str, deterministic: bool = True):
    """Read a session; legacy files get sequential ids (``m0000001``...) so read-only
    commands print the same thing on every run and ``--leaf`` ids stay valid."""
    import pisession

    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    if size > BIG_FILE:
        note(f"pisession: reading {path} ({size / 1e6:.0f} MB) ...")
    try:
        new_id = pisession.sequential_ids() if deterministic else None
        return pisession.load(path, new_id=new_id)
    finally:
        if size > BIG_FILE:
            end_note()


def _leaf(session, leaf: str | None):
    """The ``--leaf`` value checked against the session (a clear error if unknown)."""
    if leaf is None:
        return None
    try:
        session.position_of(leaf)
    except UnknownLeafError as exc:
        raise CommandError(f"{exc}{_leaf_hint(session)}") from None
    return leaf


def _leaf_hint(session) -> str:
    ids = []
    for position in reversed(session.leaves()):
        value = session.entry(position)
        ident = value.get("id") if isinstance(value, dict) else None
        if isinstance(ident, str):
            ids.append(ident)
        if len(ids) == 5:
            break
    return f" (leaves: {', '.join(ids)})" if ids else ""


def _color(args, stream=None) -> bool:
    return use_color(args.color, stream or sys.stdout)


def _width(args) -> int | None:
    return args.width if args.width else output_width(sys.stdout)


def _ascii(args) -> bool:
    return bool(args.ascii) or not can_draw_boxes(sys.stdout)


def _write(path: Path, data: bytes) -> None:
    """Write atomically (``files.atomic_write``); a new file gets the usual permissions
    (0666 minus the umask) rather than the temp file's 0600."""
    from .files import atomic_write

    existed = path.exists()
    atomic_write(path, data, overwrite=True)
    if not existed:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(path, 0o666 & ~mask)


# --- explain --------------------------------------------------------------------------


def cmd_explain(args) -> int:
    from .explain import explain_text
    from .samples import sample_path

    path = args.file if args.file is not None else str(sample_path("tour"))
    session = _load(path)
    leaf = _leaf(session, args.leaf)
    _out(explain_text(session, leaf, _color(args), _width(args), _ascii(args)))
    return 0


# --- context --------------------------------------------------------------------------


def cmd_context(args) -> int:
    session = _load(args.file)
    context = session.context(_leaf(session, args.leaf))
    value = context.to_llm() if args.llm else context.to_dict()
    indent = 0 if args.compact else args.indent
    _out_json(value, indent if indent > 0 else None)
    return 0


def _out_json(value: object, indent: int | None = 2) -> None:
    """Print JSON as Pi writes it, with terminal-steering characters as ``\\u`` escapes
    (C1 controls, DEL, bidi overrides: the JSON value is unchanged)."""
    text = jsjson.terminal_safe(jsjson.dumps(value, indent))
    _out_bytes(text.encode("utf-8") + b"\n")


# --- tree -----------------------------------------------------------------------------


def cmd_tree(args) -> int:
    from .errors import SessionFormatError
    from .explain import tree_text

    session = _load(args.file)
    leaf = _leaf(session, args.leaf)
    if args.png or args.svg:
        return _draw(session, leaf, args)
    options = dict(
        color=_color(args), width=_width(args), ascii=_ascii(args), collapse=args.collapse
    )
    try:
        text = tree_text(session, leaf, **options)
        status = 0
    except SessionFormatError as exc:  # a cycle or a file Pi itself fails on
        _warn(f"{exc}; the tree is drawn without fates")
        text = tree_text(session, leaf, with_fates=False, **options)
        status = 1
    _out(text)
    return status


def _draw(session, leaf, args) -> int:
    try:
        from .draw import draw_tree
    except ImportError as exc:
        raise CommandError(
            f"drawing needs matplotlib (pip install 'pisession[draw]'): {exc}"
        ) from None
    out = Path(args.png or args.svg)
    fig = draw_tree(session, leaf, orientation=args.orientation)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png" if args.png else "svg", bbox_inches="tight")
    try:
        import matplotlib.pyplot as plt

        plt.close(fig)
    except Exception:  # pragma: no cover - closing is a courtesy
        pass
    _write(out, buffer.getvalue())
    _out(f"wrote {clean(out)}\n")
    return 0


# --- migrate --------------------------------------------------------------------------


def cmd_migrate(args) -> int:
    import pisession

    source = Path(args.file)
    if args.in_place and args.output:
        raise CommandError("use either -o OUT or --in-place, not both")
    if not args.in_place and not args.output:
        raise CommandError("say where to write: -o OUT (or --in-place to replace FILE)")
    to_stdout = args.output == "-"  # `-o -`: the migrated file on standard output
    target = source if args.in_place else Path(args.output)
    if not args.in_place and not to_stdout and os.path.lexists(target):
        if os.path.exists(source) and os.path.samefile(source, target):
            raise CommandError(f"{target}: is the input file; use --in-place to replace it")
        if not args.force:
            raise CommandError(f"{target}: exists; pass --force to replace it")
    new_id = pisession.sequential_ids() if args.deterministic_ids else None
    session = pisession.load(source, new_id=new_id)
    if not session.migration_steps:
        say = sys.stderr.write if to_stdout else _out
        version = session.original_version
        if version == 3:
            say(f"{clean(source)}: already version 3, nothing to migrate\n")
        else:
            from .findings import version_text

            text = version_text(version)
            say(f"{clean(source)}: {clean(text)}: Pi runs no migration step, nothing to migrate\n")
        return 0
    if to_stdout:  # the file alone on stdout; the account on stderr
        _out_bytes(session.dumps())
        for step in session.migration_steps:
            sys.stderr.write(f"{clean(step.summary())}\n")
        return 0
    _write(target, session.dumps())
    for step in session.migration_steps:
        _out(f"{clean(step.summary())}\n")
    ids = "sequential ids (m0000001, ...)" if args.deterministic_ids else "random ids, as Pi"
    _out(f"wrote {clean(target)} (version 3, {len(session)} entries, {ids})\n")
    return 0


# --- check ----------------------------------------------------------------------------


def cmd_check(args) -> int:
    from .findings import check

    session = _load(args.file)
    color = _color(args)
    findings = check(session)
    for f in findings:
        where = f"{session.source}:{f.line}" if f.line is not None else session.source
        style = "dim" if f.note else "yellow"
        label = f"note: {f.kind}" if f.note else f.kind
        _out(f"{clean(where)}: {paint(label, style, color=color)}: {clean(f.message)}\n")
    count = sum(1 for f in findings if not f.note)
    if count:
        _out(f"{count} problem{'s' if count != 1 else ''} found in {clean(session.source)}\n")
        return 1
    _out(f"{clean(session.source)}: no problems found ({len(session)} entries)\n")
    return 0


# --- stats ----------------------------------------------------------------------------


def _number(value: float) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}"


def cmd_stats(args) -> int:
    session = _load(args.file)
    leaf = _leaf(session, args.leaf)
    whole = session.stats()
    branch = session.stats(leaf, branch=True)
    context = session.context(leaf)
    path = session.path_positions(leaf)
    leaf_value = session.entry(path[-1]) if path else None
    leaf_id = leaf_value.get("id") if isinstance(leaf_value, dict) else None
    if args.json:
        value = {
            "file": session.source,
            "id": session.id,
            "leaf": leaf_id,
            "session": whole.to_dict(),
            "branch": branch.to_dict(),
            "context": {"messages": len(context.messages), "pathEntries": len(path)},
        }
        _out_json(value)
        return 0
    color = _color(args)
    rows = [
        ("entries", len(session), len(path)),
        ("messages", whole.total_messages, branch.total_messages),
        ("  user", whole.user_messages, branch.user_messages),
        ("  assistant", whole.assistant_messages, branch.assistant_messages),
        ("  tool results", whole.tool_results, branch.tool_results),
        ("tool calls", whole.tool_calls, branch.tool_calls),
        ("tokens", whole.usage.total_tokens, branch.usage.total_tokens),
        ("  input", whole.usage.input, branch.usage.input),
        ("  output", whole.usage.output, branch.usage.output),
        ("  cache read", whole.usage.cacheRead, branch.usage.cacheRead),
        ("  cache write", whole.usage.cacheWrite, branch.usage.cacheWrite),
    ]
    cost = ("cost", f"${whole.usage.cost:,.4f}", f"${branch.usage.cost:,.4f}")
    leaf_text = "(no id)" if leaf_id is None else clean(leaf_id)
    heads = ("", "whole session", f"branch to {leaf_text}")
    cells = [(a, _number(b), _number(c)) for a, b, c in rows] + [cost]
    w0 = max(text_width(r[0]) for r in cells)
    w1 = max(text_width(heads[1]), *(text_width(r[1]) for r in cells))
    w2 = max(text_width(heads[2]), *(text_width(r[2]) for r in cells))
    name = f'  "{clean(session.name)}"' if session.name else ""
    _out(f"{clean(session.source)}\nsession {clean(session.id)}{name}\n\n")
    head = f"{pad('', w0)}  {pad(heads[1], w1, right=True)}  {pad(heads[2], w2, right=True)}"
    _out(paint(head, "bold", color=color) + "\n")
    for a, b, c in cells:
        _out(f"{pad(a, w0)}  {pad(b, w1, right=True)}  {pad(c, w2, right=True)}\n")
    _out(f"\ncontext at the leaf: {len(context.messages)} messages\n")
    missing = whole.assistant_without_usage
    if missing:
        _out(f"note: {missing} assistant messages carry no usage (Pi 0.87.1 would throw)\n")
    return 0


# --- ls -------------------------------------------------------------------------------


def _sessions(root: Path) -> list:
    """The sessions under ``root``, newest first (with a progress note when many)."""
    from .files import list_sessions

    def progress(done: int, total: int) -> None:
        if total > 200 and done % 50 == 0:
            note(f"pisession: scanning {done}/{total} files ...")

    infos = list_sessions(root, progress=progress)
    end_note()
    return infos


def _same_dir(a: str, b: str) -> bool:
    norm = [os.path.normcase(os.path.normpath(x)) for x in (a, b)]
    return norm[0] == norm[1]


def cmd_ls(args) -> int:
    from .files import sessions_root, to_jsonable

    agent = "pig" if args.pig else "pi"
    root = Path(args.dir).expanduser() if args.dir else sessions_root(agent)
    if not root.is_dir():
        raise CommandError(f"{root}: no such folder (no sessions stored yet?)")
    cwd = None
    if args.cwd is not None:
        cwd = os.path.abspath(os.path.expanduser(args.cwd))
    elif not args.all and not args.dir:
        cwd = os.getcwd()
    infos = _sessions(root)
    if cwd is not None:
        infos = [i for i in infos if _same_dir(i.cwd, cwd)]
    if args.name:
        needle = args.name.casefold()
        infos = [
            i
            for i in infos
            if needle in (i.name or "").casefold() or needle in i.first_message.casefold()
        ]
    if args.json:
        _out_json([to_jsonable(i) for i in infos])
        return 0
    if not infos:
        where = f" for {cwd}" if cwd else ""
        hint = " (--all lists every folder)" if cwd and not args.cwd else ""
        _out(f"no sessions in {clean(root)}{clean(where)}{hint}\n")
        return 0
    _out(_ls_table(infos, _width(args), _color(args)))
    return 0


def _ls_table(infos: list, width: int | None, color: bool) -> str:
    """Rows: modified, messages, short id, name (or first message), cwd, file."""
    rows = []
    for i in infos:
        title = clean(i.name) if i.name else clean(i.first_message)
        rows.append(
            (
                i.modified.astimezone().strftime("%Y-%m-%d %H:%M"),
                str(i.message_count),
                clean(i.id)[:8],
                title,
                clean(i.cwd),
                clean(i.path),
                bool(i.name),
            )
        )
    heads = ("modified", "msgs", "id", "name / first message", "cwd", "file")
    fixed = [max(len(heads[k]), *(text_width(r[k]) for r in rows)) for k in range(3)]
    title_w = min(max(len(heads[3]), *(text_width(r[3]) for r in rows)), 40)
    cwd_w = min(max(len(heads[4]), *(text_width(r[4]) for r in rows)), 30)
    file_w = None
    if width is not None:
        # give the file column at least 36 columns, taking from the title, then the cwd
        spare = width - (sum(fixed) + title_w + cwd_w + 2 * 5) - 36
        if spare < 0:
            cut = min(-spare, title_w - 20) if title_w > 20 else 0
            title_w -= max(cut, 0)
            spare += max(cut, 0)
        if spare < 0:
            cut = min(-spare, cwd_w - 16) if cwd_w > 16 else 0
            cwd_w -= max(cut, 0)
        file_w = max(width - (sum(fixed) + title_w + cwd_w + 2 * 5), 12)
    lines = []
    for k, r in enumerate([heads, *rows]):
        title = truncate(r[3], title_w)
        if k > 0 and not r[6]:
            title_cell = paint(pad(title, title_w), "dim", color=color)
        else:
            title_cell = pad(title, title_w)
        text = (
            f"{pad(r[0], fixed[0])}  {pad(r[1], fixed[1], right=True)}  {pad(r[2], fixed[2])}  "
            f"{title_cell}  {pad(truncate_left(r[4], cwd_w), cwd_w)}  "
            f"{truncate_left(r[5], file_w)}"
        )
        lines.append(paint(text, "bold", color=color) if k == 0 else text)
    return "\n".join(lines) + "\n"


# --- the parser -----------------------------------------------------------------------

_EXPLAIN_EPILOG = """\
examples:
  pisession explain                       the bundled tour sample
  pisession explain session.jsonl         Pi's default leaf (the last entry)
  pisession explain session.jsonl --leaf a7000001
  pisession explain s.jsonl --no-color | less

fates: sent, kept (in the compaction's kept range), compaction (sends its summary),
edited / omitted (context edit), summarized (before the kept range), dropped-system
(system message in the kept range), state-only (no message), off-path (other branch).
"""

_CONTEXT_EPILOG = """\
examples:
  pisession context session.jsonl                  Pi's buildSessionContext, indent 2
  pisession context session.jsonl --compact        one line, as JSON.stringify(ctx)
  pisession context session.jsonl --leaf a7000001 --llm   provider messages

The JSON is written exactly as JavaScript's JSON.stringify writes it (key order, number
text, lone surrogates escaped), in UTF-8, ending with one newline. With the default
--indent 2 it matches `JSON.stringify(ctx, null, 2)` byte for byte.
"""

_TREE_EPILOG = """\
examples:
  pisession tree session.jsonl
  pisession tree session.jsonl --leaf a7000001 --collapse 0
  pisession tree session.jsonl --png tree.png      (needs matplotlib)

marks: ● on the path to the leaf, ○ elsewhere, ◀ leaf; [fate] as in `pisession explain`;
#label for labelled entries. Straight runs of more than --collapse unremarkable entries
are shortened to their first and last two.
"""

_MIGRATE_EPILOG = """\
examples:
  pisession migrate old.jsonl -o old-v3.jsonl
  pisession migrate old.jsonl -o old-v3.jsonl --deterministic-ids --force
  pisession migrate old.jsonl --in-place

The input file is never touched unless --in-place is given; the output is written to a
temporary file in the same folder, synced, then renamed over the target. Lines the
migration does not change (skipped ones included) are kept byte for byte.
"""

_CHECK_EPILOG = """\
examples:
  pisession check session.jsonl && echo clean

reports: skipped lines, a legacy version, dangling parents, duplicate ids, parent cycles,
compactions whose firstKeptEntryId is not on their path, context edits with no effect,
and leaves on which Pi 0.87.1 itself fails. Exit status: 0 no problems, 1 problems
found, 2 the file cannot be read as a session.
"""

_STATS_EPILOG = """\
examples:
  pisession stats session.jsonl
  pisession stats session.jsonl --leaf a7000001 --json

Counts as Pi's /session statistics do: every entry for the whole session (compacted
history included), the entries of the path from the root to the leaf for the branch.
"""

_LS_EPILOG = """\
examples:
  pisession ls                    sessions started in the current directory
  pisession ls --all              every session, newest first
  pisession ls --all --name api   names or first messages containing "api"
  pisession ls --pig --all        PiG's sessions
  pisession ls ~/backup/sessions --json

Where: DIR if given, else $PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions,
else ~/.pi/agent/sessions (PiG: the PIG_ variables and ~/.pig/agent/sessions).
"""


def _common() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("output")
    colors = group.add_mutually_exclusive_group()
    colors.add_argument(
        "--color",
        dest="color",
        action="store_const",
        const=True,
        default=None,
        help="colour even when stdout is not a terminal",
    )
    colors.add_argument(
        "--no-color",
        dest="color",
        action="store_const",
        const=False,
        help="no colour (also: NO_COLOR set, or stdout not a terminal)",
    )
    group.add_argument(
        "--width",
        type=int,
        default=None,
        metavar="N",
        help="fit lines into N columns (default: the terminal's width; no limit in a pipe)",
    )
    group.add_argument(
        "--ascii", action="store_true", help="ASCII marks instead of box drawing and ✓/✗"
    )
    return parent


def _positive(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``pisession`` command."""
    from . import __version__
    from .piversions import version_text

    common = _common()
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Read Pi session files: which lines reached the model, and why.",
        epilog="Run `pisession COMMAND --help` for examples. Start with `pisession explain`.",
        formatter_class=raw,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} {version_text()}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def add(name, help_text, epilog, func):
        p = sub.add_parser(
            name,
            help=help_text,
            description=help_text[0].upper() + help_text[1:] + ".",
            epilog=epilog,
            parents=[common],
            formatter_class=raw,
        )
        p.set_defaults(func=func)
        return p

    leaf_help = "entry id of the leaf (default: Pi's, the last entry in file order)"

    p = add(
        "explain",
        "which entries reached the model for a leaf, and why the others did not",
        _EXPLAIN_EPILOG,
        cmd_explain,
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="session file (default: tour sample)")
    p.add_argument("--leaf", metavar="ID", help=leaf_help)

    p = add(
        "context", "print the model context as Pi builds it (JSON)", _CONTEXT_EPILOG, cmd_context
    )
    p.add_argument("file", metavar="FILE", help="session file")
    p.add_argument("--leaf", metavar="ID", help=leaf_help)
    p.add_argument("--llm", action="store_true", help="print the provider messages (convertToLlm)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--indent", type=_positive, default=2, metavar="N", help="indent (default 2; 0: one line)"
    )
    fmt.add_argument("--compact", action="store_true", help="one line (same as --indent 0)")

    p = add("tree", "draw the entry tree (text, or an image file)", _TREE_EPILOG, cmd_tree)
    p.add_argument("file", metavar="FILE", help="session file")
    p.add_argument("--leaf", metavar="ID", help=leaf_help)
    image = p.add_mutually_exclusive_group()
    image.add_argument("--png", metavar="OUT", help="draw to a PNG file (needs matplotlib)")
    image.add_argument("--svg", metavar="OUT", help="draw to an SVG file (needs matplotlib)")
    p.add_argument(
        "--orientation", choices=("TB", "LR"), default="TB", help="image layout (default TB)"
    )
    p.add_argument(
        "--collapse",
        type=_positive,
        default=12,
        metavar="N",
        help="shorten straight runs longer than N entries (default 12; 0: never)",
    )

    p = add(
        "migrate", "write a version 3 copy of a legacy (v1/v2) file", _MIGRATE_EPILOG, cmd_migrate
    )
    p.add_argument("file", metavar="FILE", help="session file to migrate (never modified)")
    p.add_argument(
        "-o", "--output", metavar="OUT", help="where to write the migrated file (- for stdout)"
    )
    p.add_argument("--in-place", action="store_true", help="replace FILE (atomically)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument(
        "--deterministic-ids",
        action="store_true",
        help="v1 files: ids m0000001, m0000002, ... instead of random ones",
    )

    p = add(
        "check",
        "report damage and surprises; exit 0 clean, 1 problems, 2 unreadable",
        _CHECK_EPILOG,
        cmd_check,
    )
    p.add_argument("file", metavar="FILE", help="session file")

    p = add(
        "stats", "tokens, cost and message counts (session and branch)", _STATS_EPILOG, cmd_stats
    )
    p.add_argument("file", metavar="FILE", help="session file")
    p.add_argument("--leaf", metavar="ID", help=leaf_help)
    p.add_argument("--json", action="store_true", help="JSON instead of a table")

    p = add("ls", "list stored sessions, newest first", _LS_EPILOG, cmd_ls)
    p.add_argument("dir", nargs="?", metavar="DIR", help="sessions folder (default: Pi's)")
    p.add_argument("--pig", action="store_true", help="PiG's sessions instead of Pi's")
    p.add_argument("--cwd", metavar="PATH", help="only sessions started in PATH")
    p.add_argument("--all", action="store_true", help="every working directory (default: cwd)")
    p.add_argument("--name", metavar="TEXT", help="name or first message contains TEXT")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")
    return parser


# --- main -----------------------------------------------------------------------------


def _warn(message: str) -> None:
    sys.stderr.write(f"{PROG}: warning: {clean(message)}\n")


def _fail(message: str) -> int:
    sys.stderr.write(f"{PROG}: error: {clean(message)}\n")
    return 2


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        where = exc.filename if exc.filename is not None else ""
        reason = exc.strerror or str(exc)
        return f"{where}: {reason}" if where else reason
    return str(exc)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 problems, 2 error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    stdout = sys.stdout
    if hasattr(stdout, "reconfigure"):
        with contextlib.suppress(ValueError, OSError):
            stdout.reconfigure(errors="backslashreplace")
    try:
        status = args.func(args)
        sys.stdout.flush()
        return status
    except BrokenPipeError:  # pisession ... | head
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):
            pass
        return 1
    except (PisessionError, OSError, CommandError) as exc:
        return _fail(_message(exc))
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
