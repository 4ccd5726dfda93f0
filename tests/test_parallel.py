"""Helper processes (``pisession.engine.parallel``): a result is the function's whether a
child computed it or this process did, a helper of the lowest priority runs at it, and
a pending result that a later fork inherits is computed there, never waited for."""

from __future__ import annotations

import os

import pytest

from pisession.engine.parallel import can_fork, in_child

needs_fork = pytest.mark.skipif(not can_fork(), reason="no helper process here")


@needs_fork
def test_a_background_helper_runs_at_the_lowest_priority():
    # os.nice(0) answers the process's niceness
    assert in_child(os.nice, 0, background=True).result() == 19
    assert in_child(os.nice, 0).result() == os.nice(0)
    if hasattr(os, "SCHED_IDLE"):  # and, on Linux, in the idle class
        assert in_child(os.sched_getscheduler, 0, background=True).result() == os.SCHED_IDLE
        assert in_child(os.sched_getscheduler, 0).result() == os.sched_getscheduler(0)


@needs_fork
def test_a_pending_result_inherited_by_a_later_fork_is_computed_there():
    """A process forked while a result is pending cannot wait for its parent's child:
    it computes the result itself (its own pid, here), and the parent still reads its
    child's."""
    pending = in_child(os.getpid)
    got, pid = in_child(lambda: (pending.result(), os.getpid())).result()
    assert got == pid != os.getpid()
    assert pending.result() not in (os.getpid(), pid)


def test_without_helpers_the_function_runs_when_its_result_is_asked(monkeypatch):
    monkeypatch.setenv("PISESSION_WORKERS", "1")
    calls: list[int] = []
    pending = in_child(lambda: calls.append(1) or len(calls), background=True)
    assert calls == [] and pending.result() == 1


@needs_fork
def test_a_failing_child_is_replaced_by_this_process():
    parent = os.getpid()

    def only_here() -> int:
        if os.getpid() != parent:
            raise RuntimeError("not in a child")
        return 7

    assert in_child(only_here).result() == 7
