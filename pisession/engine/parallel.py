"""A second core for big files: run one function in a forked child process.

Reading a big session is CPU work that splits cleanly in two (each half of the file is
parsed on its own). ``in_child`` forks, runs the function in the child and hands its
result back through a pipe; the parent meanwhile does the other half. Where forking is
not safe or not possible (no ``os.fork``, several threads running, as in a Jupyter
kernel, one CPU, or ``PISESSION_WORKERS=1``) the function simply runs in this process
when its result is asked for. A child that fails is replaced the same way: the answer
never depends on whether a second process helped.

>>> in_child(sum, [1, 2, 3]).result()
6
"""

from __future__ import annotations

import contextlib
import os
import pickle
import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast

#: What the function run in the child returns.
T = TypeVar("T")

#: Sessions with this many entries or more are worth a helper process for the drawing
#: of their tree (``pisession tree``, ``export``).
BIG_SESSION = 20_000


def can_fork() -> bool:
    """Whether a helper process may be forked here.

    >>> isinstance(can_fork(), bool)
    True
    """
    if os.environ.get("PISESSION_WORKERS", "") == "1" or not hasattr(os, "fork"):
        return False
    return (os.cpu_count() or 1) > 1 and threading.active_count() == 1


class _Pending(Generic[T]):
    """A result being computed in a child process (or, failing that, here)."""

    def __init__(
        self,
        function: Callable[..., T],
        args: tuple[object, ...],
        fork: bool,
        background: bool = False,
    ):
        self._function, self._args = function, args
        self._pid: int | None = None
        self._read: int | None = None
        self._parent = os.getpid()
        if fork and can_fork():
            self._start(background)

    def _start(self, background: bool) -> None:
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # the child: compute, send, vanish
            os.close(read)
            status = 0
            try:
                if background:  # run where no other work wants the core
                    _lowest_priority()
                data = pickle.dumps(self._function(*self._args), pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as out:
                    out.write(data)
            except BaseException:
                status = 1
            os._exit(status)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> T:
        """The function's return value (from the child, or computed now: also in a
        process forked since, which cannot wait for its parent's child)."""
        if self._pid is None or self._read is None or os.getpid() != self._parent:
            return self._function(*self._args)
        with os.fdopen(self._read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        if status != 0 or not data:
            return self._function(*self._args)
        return cast(T, pickle.loads(data))


def _lowest_priority() -> None:
    """This process's priority lowered to the least (where the OS lets it): niceness 19,
    and on Linux the idle class, whose process runs where a core would wait (a nice one
    still takes a share of a busy core: from the two halves of a file being read)."""
    with contextlib.suppress(OSError):
        os.nice(19)
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def in_child(
    function: Callable[..., T], *args: object, fork: bool = True, background: bool = False
) -> _Pending[T]:
    """Start ``function(*args)`` in a forked child; ``.result()`` returns its value.
    ``fork=False`` (work too small to be worth a process) computes it when asked;
    ``background``: the child runs at the lowest priority (``nice`` 19), on a core no
    other work of this command wants (work whose result is asked for late: it fills
    the moments a helper or this process waits).

    >>> in_child(sum, [1, 2], fork=False).result()
    3
    >>> in_child(sum, [1, 2], background=True).result()
    3
    """
    return _Pending(function, args, fork, background)
