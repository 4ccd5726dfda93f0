"""Tokens and cost by model, as Pi 1.6.0's ``getUsageCostBreakdown`` counts them, for one
session and over a whole sessions folder.

Pi's rule (``dist/core/usage-totals.js``, what its ``/session`` view shows): every entry
of the file counts, compacted and abandoned branches included (``branch=True`` counts the
default leaf's path instead). An assistant message counts under
``provider/(responseModel ?? model)``, a ``usage`` entry under its own provider and model,
and the ``usage`` of tool results, compactions and branch summaries under
``Tools/summaries``. A key's ``tokens`` is input + output + cacheRead + cacheWrite, its
``cost`` the sum of ``usage.cost.total``; keys with neither above 0 are left out, the rest
ordered by cost, highest first (a stable sort). Figures are added as JavaScript's ``+``
adds them (``js_plus``), so odd values give Pi's odd answers.

A folder is read session by session (two processes where the machine has two cores),
so memory stays that of the biggest session, whatever the folder's size. The breakdown's
rows and the JavaScript arithmetic they are added with live in ``folders.breakdown``
(re-exported here).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from functools import reduce
from itertools import compress, repeat
from operator import add, eq, is_not, itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..engine import context as engine
from ..engine.stats import (
    TIMESTAMP,
    TOOLS_KEY,  # noqa: F401 (re-exported: where tool results and summaries count)
    USAGE,
    UsageFigures,
    UsageThrows,
    every_row,
)
from ..errors import PisessionError, SessionFormatError
from ..headers import first_value, header_field
from ..js.value import UNDEFINED, js_string, truthy
from ..js.value import field as js_field
from .breakdown import (  # noqa: F401 (re-exported: the breakdown's rows and arithmetic)
    Breakdown,
    UsageRow,
    add_figures,
    breakdown_from_totals,
    breakdown_of,
    js_greater_than_zero,
    js_minus,
    js_number,
    js_plus,
    tokens_of,
)
from .forks import FileEntries, FileHeader, identity, left_out, may_hold_copies

if TYPE_CHECKING:
    from ..views.protocol import SessionLike

#: The figures summed per key, in this order.
FIGURES = ("input", "output", "cacheRead", "cacheWrite", "cost")

#: A session's counted columns (``stats.COLUMNS``: a column per figure, a row per entry
#: that can count: ``stats.Counted.columns``).
Columns = list[list[Any]]

#: Five figures (``FIGURES``) per key, and per (day, key).
Totals = dict[str, list[Any]]
DayTotals = dict[tuple[str, str], list[Any]]

#: Told ``(done, total)`` after each file.
Progress = Callable[[int, int], object]

T = TypeVar("T")

#: How ``scan_folder`` can group its rows.
GROUPS = ("day", "week", "month", "project", "session", "model")

_SAFE = 2**53


class UsageError(PisessionError):
    """Pi's ``getUsageCostBreakdown`` throws on this session (it names the line)."""


# --- the tally: the counted columns, added up as Pi adds ------------------------------------


class _Throws(Exception):
    """Pi's breakdown throws at the entry at ``position``."""

    def __init__(self, position: int, reason: str):
        super().__init__(reason)
        self.position, self.reason = position, reason


def tally(
    columns: Columns,
    positions: Sequence[int] | None = None,
    with_days: bool = False,
    fallback_time: str = "",
    zone: tzinfo | None = None,
) -> tuple[Totals, DayTotals]:
    """Pi's per-key totals (five figures, ``FIGURES``) of the entries at ``positions``
    (all by default), in that order, and (``with_days``) the same by (day in ``zone``, a
    ``tzinfo``, default this machine's, key):
    added from a session's counted columns (``stats.COLUMNS``: what each entry adds,
    read while its file was read; ``positions`` index their rows, which are the rows of
    ``stats.Counted``: the entries that can count), key by key in the entries' order,
    as Pi's ``+=`` adds. Raises ``_Throws`` at the first entry where Pi's function
    throws.

    >>> from pisession.engine.stats import COLUMNS, entry_contribution
    >>> u = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.1}}
    >>> rows = [entry_contribution({"type": "usage", "provider": "p", "model": "m",
    ...     "usage": u}) for _ in range(3)]
    >>> tally([list(c) for c in zip(*rows)])[0]
    {'p/m': [3, 6, 0, 0, 0.30000000000000004]}
    """
    records = columns[USAGE]
    if not with_days:
        quick = _by_few_keys(columns, positions)
        if quick is not None:
            return quick, {}
    if positions is None:
        keyed: Iterable[int] = compress(range(len(records)), map(is_not, records, repeat(None)))
    else:
        keyed = [p for p in positions if records[p] is not None]
    by_key: dict[str, list[int]] = {}
    by_day: dict[tuple[str, str], list[int]] = {}
    odd: set[str] = set()  # keys with figures that are not all numbers
    stamps, cache = columns[TIMESTAMP], cast(dict[str, str], {})
    for position in keyed:
        record = records[position]
        if type(record) is str:
            key = record
        elif type(record) is UsageFigures:
            key = record.key
            odd.add(key)
        else:
            raise _Throws(position, cast(UsageThrows, record).reason)
        rows = by_key.get(key)
        if rows is None:
            rows = by_key[key] = []
        rows.append(position)
        if with_days:
            stamp = stamps[position]
            day = local_day(stamp if isinstance(stamp, str) else fallback_time, cache, zone)
            by_day.setdefault((day, key), []).append(position)
    figures = columns[:5]
    totals = {key: _summed(figures, records, rows, key in odd) for key, rows in by_key.items()}
    days = {cell: _summed(figures, records, rows, cell[1] in odd) for cell, rows in by_day.items()}
    return totals, days


#: Up to this many keys, the rows of each are found in C, a pass over the records per key.
_FEW_KEYS = 16


def _by_few_keys(columns: Columns, positions: Sequence[int] | None) -> Totals | None:
    """``tally``'s totals where every record is a key or None and there are few keys
    (most sessions: one model or a few), each key's rows picked out in C; None otherwise."""
    records = columns[USAGE]
    if positions is not None:
        records = list(map(records.__getitem__, positions))
    try:
        distinct = set(records)
    except TypeError:  # figures that do not hash: the general way
        return None
    distinct.discard(None)
    if len(distinct) > _FEW_KEYS or not all(type(k) is str for k in distinct):
        return None
    rows_of = range(len(records)) if positions is None else positions
    first = {key: records.index(key) for key in distinct}
    figures = columns[:5]
    totals: Totals = {}
    for key in sorted(distinct, key=first.__getitem__):  # Pi's keys, in order of appearance
        rows = list(compress(rows_of, map(eq, records, repeat(key))))
        totals[key] = _summed(figures, columns[USAGE], rows, False)
    return totals


def _summed(figures: Columns, records: list[Any], rows: list[int], odd: bool) -> list[Any]:
    """The five figures of the entries at ``rows``, each added up in order from 0 as
    JavaScript's ``+=`` adds (``add_figures``); columns of plain doubles, or of small
    non-negative integers, in C."""
    if odd:
        totals: list[Any] = [0, 0, 0, 0, 0]
        for p in rows:
            record = records[p]
            if type(record) is UsageFigures:
                add_figures(totals, record.figures)
            else:
                add_figures(totals, tuple(column[p] for column in figures))
        return totals
    pick = itemgetter(*rows) if len(rows) > 1 else (lambda column: (column[rows[0]],))
    return [_column_total(pick(column)) for column in figures]


def _column_total(values: tuple[Any, ...]) -> object:
    """``0 + v1 + v2 + ...`` in JavaScript for numbers ``values`` (doubles, integers).

    >>> _column_total((0.1, 0.2)), _column_total((1, 2)), _column_total((2**53, 1, 1))
    (0.30000000000000004, 3, 9007199254740992)
    """
    kinds = set(map(type, values))
    if kinds == {float}:
        return reduce(add, values, 0.0)
    if kinds == {int}:
        total = sum(values)
        if total <= _SAFE and min(values) >= 0:  # every partial sum exact, as a double
            return total
    totals: list[Any] = [0]
    for value in values:
        add_figures(totals, (value,))
    return totals[0]


def _tally(
    session: SessionLike,
    positions: Sequence[int] | None,
    with_days: bool,
    fallback_time: str = "",
    identities: FileEntries | None = None,
    zone: tzinfo | None = None,
) -> tuple[Totals, DayTotals]:
    """``tally`` of a loaded session's counted columns (days in ``zone``); ``identities``
    (a ``forks.FileEntries``) gets each counted entry's position and ``forks.identity``.
    Raises ``UsageError`` (naming the file and line) where Pi throws."""
    counted = session.counted  # the rows that can count, and their columns
    columns, rows = counted.columns, counted.rows
    local = None if positions is None else counted.local(positions)
    try:
        found = tally(columns, local, with_days, fallback_time, zone)
    except _Throws as exc:
        where = f"{session.source}:{session.line_of(rows[exc.position])}"
        raise UsageError(f"{where}: Pi's usage breakdown throws here: {exc.reason}") from None
    if identities is not None:
        _identify(session, columns, rows, local, identities)
    return found


def _identify(
    session: SessionLike,
    columns: Columns,
    rows: Sequence[int],
    local: Sequence[int] | None,
    identities: FileEntries,
) -> None:
    """Each counted entry's position and identity (id, timestamp, key, figures), in order
    (``columns``' rows are the entries at ``rows``; ``local``: those to look at)."""
    records, stamps, ids = columns[USAGE], columns[TIMESTAMP], session.index.ids
    every = range(len(records)) if local is None else local
    for k in every:
        record = records[k]
        if record is None:
            continue
        if type(record) is UsageFigures:
            key, figures = record.key, tuple(record.figures)
        else:
            key, figures = record, tuple(column[k] for column in columns[:5])
        position = rows[k]
        identities.positions.append(position)
        identities.digests.append(identity(ids[position], stamps[k], key, figures))


def session_breakdown(
    session: SessionLike, branch: bool = False, leaf_id: object = None
) -> Breakdown:
    """Pi's breakdown of a loaded session: every entry, or (``branch``) the path to the
    leaf (Pi's default leaf unless ``leaf_id``). Raises ``UsageError`` where Pi throws.

    >>> import pisession
    >>> [r.key for r in session_breakdown(pisession.load(pisession.sample_path("tour")))]
    ['fake/fake-coder', 'Tools/summaries']
    """
    positions = _branch(session, leaf_id) if branch else None
    if positions is not None and every_row(positions, len(session)):
        positions = None  # the branch is every entry: the same totals, in C
    return breakdown_from_totals(_tally(session, positions, False)[0])


def session_breakdowns(session: SessionLike, leaf_id: object = None) -> dict[str, Any]:
    """``session_breakdown``'s rows (``pi_rows``) of the whole session and of the branch
    to the leaf, as ``stats`` prints them: ``{"session": ..., "branch": ...}``, each an
    ``{"error": ...}`` where Pi's function throws. A branch that is every entry (a
    session without branches) is the session's rows, tallied once.

    >>> import pisession
    >>> found = session_breakdowns(pisession.load(pisession.sample_path("tour")))
    >>> list(found), found["session"] == found["branch"]
    (['session', 'branch'], False)
    """
    found: dict[str, Any] = {}
    for part, branch in (("session", False), ("branch", True)):
        try:
            if branch and every_row(_branch(session, leaf_id), len(session)):
                found[part] = found["session"]
            else:
                found[part] = session_breakdown(session, branch, leaf_id).pi_rows()
        except PisessionError as exc:
            found[part] = {"error": str(exc)}
    return found


def _branch(session: SessionLike, leaf_id: object = None) -> list[int]:
    """The entries Pi's ``/session`` counts for the branch: ``getBranch()``, the path to
    the leaf; after loading, the last entry's path, or none when its id is falsy
    (``getBranch`` looks a leaf id up only when it is truthy).

    >>> import pisession
    >>> len(_branch(pisession.load(pisession.sample_path("tour"))))
    22
    """
    if leaf_id is not None or not len(session):
        return session.path_positions(leaf_id)
    if not truthy(session.index.ids[len(session) - 1]):
        return []
    try:
        return engine.path(session.index, len(session) - 1)
    except SessionFormatError as exc:
        raise session.located(exc) from None


# --- a sessions folder ------------------------------------------------------------------


def local_day(timestamp: object, cache: dict[str, str], zone: tzinfo | None = None) -> str:
    """The calendar day (``YYYY-MM-DD``) of an ISO timestamp in ``zone`` (a ``tzinfo``;
    None: this machine's zone); ``"unknown"`` when it is none.

    >>> from zoneinfo import ZoneInfo
    >>> local_day("not a date", {})
    'unknown'
    >>> [local_day("2026-03-08T04:30:00.000Z", {}, ZoneInfo(z)) for z in ("UTC",
    ...     "America/New_York", "Asia/Kolkata")]
    ['2026-03-08', '2026-03-07', '2026-03-08']
    """
    if not isinstance(timestamp, str):
        return "unknown"
    # a minute's timestamps share a day (zone offsets are whole minutes since 1972)
    probe = timestamp[:16] if len(timestamp) == 24 and timestamp.endswith("Z") else timestamp
    day = cache.get(probe)
    if day is None:
        try:
            text = timestamp.replace("Z", "+00:00") if probe is not timestamp else timestamp
            moment = datetime.fromisoformat(text)
            day = (moment.astimezone(zone) if moment.tzinfo else moment).date().isoformat()
        except ValueError:
            day = "unknown"
        cache[probe] = day
    return day


@dataclass
class SessionUsage:
    """One session file's usage: Pi's breakdown, and the same figures by local day and
    key (``days``, for grouping by day, week or month); ``problem`` when it was skipped."""

    path: str
    id: str = ""
    name: str | None = None
    cwd: str = ""
    started: str = ""
    breakdown: Breakdown = field(default_factory=Breakdown)
    days: DayTotals = field(default_factory=dict)  # (day, key) -> five figures
    problem: str | None = None
    entries: FileEntries | None = None  # with ``identify``: what forks.left_out compares
    left_out: int = 0  # entries not counted here: an earlier file holds them (forks.py)


def session_usage(
    path: str,
    branch: bool = False,
    identify: bool = False,
    leave_out: Iterable[int] = (),
    zone: tzinfo | None = None,
) -> SessionUsage:
    """Read one session file for ``scan_folder``: never raises for a bad file (its
    ``problem`` says file, line and reason). ``identify`` keeps each counted entry's
    identity (``forks.identity``); the entries at the positions ``leave_out`` are not
    counted (an earlier file holds them); days are days in ``zone`` (None: this
    machine's).

    >>> from pisession.samples import sample_path
    >>> u = session_usage(str(sample_path("tour")))
    >>> u.breakdown[0].key, sorted({day for day, _ in u.days}) != []
    ('fake/fake-coder', True)
    """
    from ..session import load

    out = SessionUsage(path)
    try:
        session = load(path, counting=True)
        header = session.header
        out.id = js_string(js_field(header, "id"))
        cwd, started = js_field(header, "cwd"), js_field(header, "timestamp")
        out.cwd = cwd if isinstance(cwd, str) else ""
        out.started = started if isinstance(started, str) else ""
        out.name = session_name(session)
        positions = _branch(session) if branch else None
        skip = set(leave_out)
        if skip:
            everything = range(len(session)) if positions is None else positions
            positions = [p for p in everything if p not in skip]
            out.left_out = len(skip)
        out.entries = FileEntries() if identify else None
        totals, out.days = _tally(session, positions, True, out.started, out.entries, zone)
        out.breakdown = breakdown_from_totals(totals)
    except PisessionError as exc:
        out.problem = str(exc)
    except OSError as exc:
        out.problem = f"{path}: {exc.strerror or exc}"
    except (RecursionError, MemoryError, ValueError) as exc:
        out.problem = f"{path}: cannot be read ({type(exc).__name__})"
    return out


def _week(day: str) -> str:
    """The Monday of a ``YYYY-MM-DD`` day's ISO week."""
    if day == "unknown":
        return day
    d = date.fromisoformat(day)
    return (d - timedelta(days=d.weekday())).isoformat()


@dataclass
class FolderRow:
    """One group of a folder's usage: the group's value, how many sessions count in it,
    the summed figures and Pi's breakdown by key within the group."""

    group: str
    sessions: int
    input: Any
    output: Any
    cacheRead: Any
    cacheWrite: Any
    tokens: Any
    cost: Any
    models: Breakdown

    def to_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "sessions": self.sessions,
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cacheRead,
            "cacheWrite": self.cacheWrite,
            "tokens": self.tokens,
            "cost": self.cost,
            "models": self.models.pi_rows(),
        }


@dataclass
class FolderUsage:
    """``scan_folder``'s answer: a row per group, the totals, what was read and skipped."""

    by: str
    rows: list[FolderRow]
    total: FolderRow
    sessions: int
    skipped: list[str]
    branch: bool = False
    per_file: bool = False  # every file counted as Pi's /session counts it, copies too
    left_out: int = 0  # copied entries not counted again (forks.py)
    files_with_copies: int = 0  # files that lost entries to an earlier file
    zone: str = ""  # the time zone of the days (an IANA name)
    dated: bool = False  # --since or --until kept some days only

    def to_records(self) -> list[dict[str, Any]]:
        """One plain dict per group (the models' breakdown left out), for a data frame.

        >>> from pisession.samples import sample_path
        >>> usage = scan_folder([sample_path("tour")], by="model", workers=1)
        >>> sorted(usage.to_records()[0])
        ['cacheRead', 'cacheWrite', 'cost', 'group', 'input', 'output', 'sessions', 'tokens']
        """
        return [{k: v for k, v in r.to_dict().items() if k != "models"} for r in self.rows]

    def to_dict(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "counts": "the default leaf's path" if self.branch else "every entry",
            "perFile": self.per_file,
            "copiesLeftOut": self.left_out,
            "filesWithCopies": self.files_with_copies,
            "timezone": self.zone,
            "sessions": self.sessions,
            "skipped": len(self.skipped),
            "problems": self.skipped,
            "rows": [r.to_dict() for r in self.rows],
            "total": self.total.to_dict(),
        }


def _project(usage: SessionUsage) -> str:
    return usage.cwd or Path(usage.path).parent.name


def _cells(usage: SessionUsage, by: str) -> Iterator[tuple[str, str, list[Any]]]:
    """(group, key, figures) of one session: Pi's own rows where the group is the
    session, its project or the key; the day cells otherwise."""
    if by in ("day", "week", "month"):
        for (day, key), figures in usage.days.items():
            group = day if by == "day" else _week(day) if by == "week" else day[:7]
            yield group, key, figures
        return
    for row in usage.breakdown:
        figures = [row.input, row.output, row.cacheRead, row.cacheWrite, row.cost]
        if by == "model":
            yield row.key, row.key, figures
        elif by == "session":
            yield usage.id or usage.path, row.key, figures
        else:
            yield _project(usage), row.key, figures


class _Group:
    """One group's per-key sums, and the sessions in it."""

    def __init__(self) -> None:
        self.keys: Totals = {}
        self.sessions: set[str] = set()


def summarize(
    usages: Iterable[SessionUsage], by: str = "model", branch: bool = False
) -> FolderUsage:
    """Group the sessions' usage (in the order given) by ``by``; each figure is summed
    session by session as JavaScript adds, so a key's folder total is the sum of Pi's
    per-session figures.

    >>> from pisession.samples import sample_path
    >>> u = session_usage(str(sample_path("tour")))
    >>> summarize([u, u]).total.tokens == 2 * summarize([u]).total.tokens
    True
    """
    if by not in GROUPS:
        raise ValueError(f"--by takes one of {', '.join(GROUPS)}, not {by!r}")
    groups: dict[str, _Group] = {}
    whole = _Group()
    sessions, skipped = 0, []
    for usage in usages:
        if usage.problem is not None:
            skipped.append(usage.problem)
            continue
        sessions += 1
        for group, key, figures in _cells(usage, by):
            g = groups.setdefault(group, _Group())
            add_figures(g.keys.setdefault(key, [0, 0, 0, 0, 0]), tuple(figures))
            g.sessions.add(usage.path)
            add_figures(whole.keys.setdefault(key, [0, 0, 0, 0, 0]), tuple(figures))
            whole.sessions.add(usage.path)
    order = sorted(groups) if by in ("day", "week", "month") else list(groups)
    rows = [_row(name, groups[name]) for name in order]
    rows = [r for r in rows if js_greater_than_zero(r.cost) or js_greater_than_zero(r.tokens)]
    if by not in ("day", "week", "month"):
        rows.sort(key=lambda r: -js_number(r.cost))
    return FolderUsage(by, rows, _row("total", whole), sessions, skipped, branch)


def _row(name: str, group: _Group) -> FolderRow:
    sums = [0, 0, 0, 0, 0]
    for figures in group.keys.values():
        add_figures(sums, tuple(figures))
    models = breakdown_from_totals(group.keys)
    counted = len(group.sessions)
    return FolderRow(
        name, counted, sums[0], sums[1], sums[2], sums[3], tokens_of(sums), sums[4], models
    )


def worker_count(workers: int | None, files: int) -> int:
    """How many worker processes read ``files`` session files: ``workers`` if given,
    else one per core (at most four) when there are eight files or more and forking is
    possible (``parallel.can_fork``), else one.

    >>> worker_count(3, 100), worker_count(None, 2)
    (3, 1)
    """
    from ..engine.parallel import can_fork

    if workers is not None:
        return max(1, workers)
    if files < 8 or not can_fork():
        return 1
    return min(os.cpu_count() or 1, 4)


def map_sessions(
    function: Callable[[Any], T],
    paths: Sequence[Any],
    workers: int | None = None,
    progress: Progress | None = None,
    chunksize: int = 4,
) -> Iterator[T]:
    """``function(path)`` for every path, in order, spread over forked worker processes
    (``worker_count``), ``chunksize`` paths handed to a worker at a time;
    ``progress(done, total)`` after each."""
    count = worker_count(workers, len(paths))
    total = len(paths)
    if count == 1:
        for done, path in enumerate(paths, 1):
            yield function(path)
            if progress:
                progress(done, total)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(count) as pool:
        for done, result in enumerate(pool.imap(function, paths, chunksize=chunksize), 1):
            yield result
            if progress:
                progress(done, total)


def scan_folder(
    paths: Iterable[str | os.PathLike[str]],
    by: str = "model",
    branch: bool = False,
    since: str | None = None,
    until: str | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    per_file: bool = False,
    zone: tzinfo | None = None,
) -> FolderUsage:
    """Pi's usage breakdown over session files, grouped ``by`` one of ``GROUPS``;
    ``since``/``until`` (``YYYY-MM-DD``, both included) keep the usage of those days in
    ``zone`` (a ``ZoneInfo``; None: this machine's zone) only.

    An entry that forks and clones copied into several files counts once, in the file
    that holds it first (``forks.py``: same id, timestamp and usage; files ordered by
    their header's time), because summing Pi's per-file breakdowns counts a fork's
    copied history again for every copy (ccusage issue 1634); ``per_file`` counts every
    file as Pi's ``/session`` does, copies included.

    >>> from pisession.samples import sample_path
    >>> usage = scan_folder([sample_path("tour")], by="day", workers=1)
    >>> usage.sessions, usage.skipped, len(usage.rows)
    (1, [], 1)
    >>> import pathlib, shutil, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())  # the same session found twice
    >>> copies = [shutil.copy(sample_path("tour"), folder / n) for n in ("a.jsonl", "b.jsonl")]
    >>> twice = scan_folder(copies, workers=1)
    >>> twice.total.tokens == usage.total.tokens, twice.left_out
    (True, 9)
    """
    from functools import partial

    files = [str(p) for p in paths]
    headers = [] if per_file else [file_header(f) for f in files]
    identify = bool(may_hold_copies(headers))
    reader = partial(session_usage, branch=branch, identify=identify, zone=zone)
    usages: Iterable[SessionUsage] = map_sessions(reader, files, workers, progress)
    copies = 0
    files_with_copies = 0
    if identify:
        usages = list(usages)
        found = left_out(headers, [u.entries for u in usages])
        jobs = sorted(found.items())
        again = partial(_recount, branch=branch, zone=zone)
        recounted = map_sessions(again, [(files[i], gone) for i, gone in jobs], workers)
        for (index, _), usage in zip(jobs, recounted):
            usages[index] = usage
        copies, files_with_copies = sum(map(len, found.values())), len(found)
    if since or until:
        usages = (_between(u, since, until) for u in usages)
    out = summarize(usages, by, branch)
    out.per_file, out.left_out, out.files_with_copies = per_file, copies, files_with_copies
    out.zone, out.dated = zone_name(zone), bool(since or until)
    return out


def _recount(job: tuple[str, list[int]], branch: bool, zone: tzinfo | None) -> SessionUsage:
    """A file read again without the entries an earlier file holds (``scan_folder``)."""
    path, gone = job
    return session_usage(path, branch, False, gone, zone)


def zone_name(zone: tzinfo | None = None) -> str:
    """The IANA name of ``zone`` (a ``ZoneInfo``), or of this machine's zone when None
    (``$TZ``, else where ``/etc/localtime`` points; its abbreviation when neither says).

    >>> from zoneinfo import ZoneInfo
    >>> zone_name(ZoneInfo("Europe/Paris"))
    'Europe/Paris'
    """
    if zone is not None:
        return str(getattr(zone, "key", None) or zone)
    configured = os.environ.get("TZ", "").lstrip(":")
    if configured:
        return configured
    try:
        target = os.path.realpath("/etc/localtime")
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        return target.split("zoneinfo/", 1)[1]
    return datetime.now().astimezone().tzname() or "local"


def file_header(path: str | os.PathLike[str]) -> FileHeader | None:
    """What ``forks.py`` reads of a session file's header (its first line only); None
    when the first line is not a session header.

    >>> from pisession.samples import sample_path
    >>> file_header(sample_path("tour")).id
    '0b5e55ed-7011-4a2c-9d2e-70a15e55104e'
    """
    from ..js.date import DateConversionError, js_time_ms

    header = first_value(path, bom=True)
    if js_field(header, "type") != "session":
        return None
    header_id, parent = js_field(header, "id"), js_field(header, "parentSession")
    try:
        time = js_time_ms(js_field(header, "timestamp"))
    except DateConversionError:
        time = float("nan")
    return FileHeader(
        header_id if isinstance(header_id, str) else None,
        time if js_field(header, "timestamp") is not UNDEFINED else float("nan"),
        parent if isinstance(parent, str) and parent else None,
    )


def _between(usage: SessionUsage, since: str | None, until: str | None) -> SessionUsage:
    """The usage of the days from ``since`` to ``until`` only (Pi's breakdown re-made
    from those days' figures)."""
    if usage.problem is not None:
        return usage
    days = {
        (day, key): f
        for (day, key), f in usage.days.items()
        if (not since or day >= since) and (not until or day <= until) and day != "unknown"
    }
    totals: Totals = {}
    for (_, key), figures in days.items():
        add_figures(totals.setdefault(key, [0, 0, 0, 0, 0]), tuple(figures))
    return SessionUsage(
        usage.path, usage.id, usage.name, usage.cwd, usage.started,
        breakdown_from_totals(totals), days,
    )  # fmt: skip


def header_cwd(path: str | os.PathLike[str]) -> str:
    """The ``cwd`` of a session file's header line ("" when it has none), read from its
    first line only.

    >>> from pisession.samples import sample_path
    >>> header_cwd(sample_path("tour"))
    '/home/reader/projects/demo-app'
    """
    cwd = header_field(path, "cwd", bom=True)
    return cwd if isinstance(cwd, str) else ""


def session_name(session: SessionLike) -> str | None:
    """The session's name, or None where Pi's ``getSessionName`` would throw on it (the
    hits and the usage are still counted).

    >>> import pisession
    >>> session_name(pisession.load(pisession.sample_path("tour")))
    'Tour of the session format'
    """
    try:
        return session.name
    except PisessionError:
        return None
