"""``Array.prototype.sort`` as V8 runs it (Node 20): its TimSort, step for step.

Pi orders siblings (``SessionManager.getTree``), session files and usage rows with
``Array.prototype.sort`` and a comparator that is not always consistent (timestamps
that do not parse give NaN); V8's answer then depends on the exact comparisons its
TimSort makes. ``v8_sort`` makes the same ones in the same order (Torque source
``third_party/v8/builtins/array-sort.tq``; names as there), so the result is Node's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, cast

T = TypeVar("T")

#: ``kMinGallopWins``: wins in a row that switch a merge to galloping
_MIN_GALLOP_WINS = 7


def v8_sort(items: list[T], compare: Callable[[T, T], float]) -> list[T]:
    """``items`` sorted as V8's ``Array.prototype.sort`` sorts them with ``compare``
    (Node 20; Torque source ``third_party/v8/builtins/array-sort.tq``), also when
    ``compare`` is not consistent: the same TimSort, step for step, so the same
    comparisons in the same order and the same result. A NaN result counts as +0, as
    in V8's ``SortCompareUserFn``.

    >>> v8_sort([3, 1, 2], lambda a, b: a - b)
    [1, 2, 3]
    >>> v8_sort([2, float("nan"), 1], lambda a, b: a - b)
    [2, nan, 1]
    >>> v8_sort([2, 1, float("nan")], lambda a, b: a - b)  # the run ends at the NaN
    [1, 2, nan]
    """
    work = list(items)
    if len(work) >= 2:
        _TimSort(
            cast("list[object]", work), cast(Callable[[object, object], float], compare)
        ).sort()
    return work


@dataclass
class _Cursors:
    """Where a merge stands: the next place written (``dest``), the next element of the
    run copied aside (``temp``) and of the run left in place (``other``), and how many
    elements of runs A and B are left; ``base_a`` is where run A starts (``MergeHigh``
    gallops over it)."""

    dest: int
    temp: int
    other: int
    length_a: int
    length_b: int
    base_a: int = 0


class _TimSort:
    """V8's ``ArrayTimSort`` on one work array (names as in ``array-sort.tq``)."""

    def __init__(self, work: list[object], compare: Callable[[object, object], float]):
        self.work = work
        self.user_compare = compare
        self.min_gallop = _MIN_GALLOP_WINS
        self.runs: list[list[int]] = []  # pending runs: [base, length]

    def compare(self, a: object, b: object) -> float:
        value = self.user_compare(a, b)
        return 0 if value != value else value  # SortCompareUserFn: NaN is +0

    def sort(self) -> None:
        """``ArrayTimSortImpl``: runs found (or made by binary insertion up to the
        minimum run length), pushed, and merged while the stack invariant fails."""
        remaining, low = len(self.work), 0
        min_run = _min_run_length(remaining)
        while remaining:
            run = self.count_and_make_run(low, low + remaining)
            if run < min_run:
                forced = min(min_run, remaining)
                self.binary_insertion_sort(low, low + run, low + forced)
                run = forced
            self.runs.append([low, run])
            self.merge_collapse()
            low += run
            remaining -= run
        self.merge_force_collapse()

    def count_and_make_run(self, low_arg: int, high: int) -> int:
        work, low = self.work, low_arg + 1
        if low == high:
            return 1
        length = 2
        descending = self.compare(work[low], work[low - 1]) < 0
        previous = work[low]
        for index in range(low + 1, high):
            current = work[index]
            order = self.compare(current, previous)
            if (order >= 0) if descending else (order < 0):
                break
            previous = current
            length += 1
        if descending:
            work[low_arg : low_arg + length] = work[low_arg : low_arg + length][::-1]
        return length

    def binary_insertion_sort(self, low: int, start: int, high: int) -> None:
        work = self.work
        first = start + 1 if low == start else start
        for start in range(first, high):
            left, right, pivot = low, start, work[start]
            while left < right:
                middle = left + ((right - left) >> 1)
                if self.compare(pivot, work[middle]) < 0:
                    right = middle
                else:
                    left = middle + 1
            work[left + 1 : start + 1] = work[left:start]
            work[left] = pivot

    def _invariant(self, n: int) -> bool:  # RunInvariantEstablished
        if n < 2:
            return True
        runs = self.runs
        return runs[n - 2][1] > runs[n][1] + runs[n - 1][1]

    def merge_collapse(self) -> None:
        runs = self.runs
        while len(runs) > 1:
            n = len(runs) - 2
            if not self._invariant(n + 1) or not self._invariant(n):
                if runs[n - 1][1] < runs[n + 1][1]:
                    n -= 1
                self.merge_at(n)
            elif runs[n][1] <= runs[n + 1][1]:
                self.merge_at(n)
            else:
                break

    def merge_force_collapse(self) -> None:
        runs = self.runs
        while len(runs) > 1:
            n = len(runs) - 2
            if n > 0 and runs[n - 1][1] < runs[n + 1][1]:
                n -= 1
            self.merge_at(n)

    def merge_at(self, i: int) -> None:
        runs, work = self.runs, self.work
        base_a, length_a = runs[i]
        base_b, length_b = runs[i + 1]
        runs[i][1] = length_a + length_b
        del runs[i + 1]
        k = self.gallop_right(work, work[base_b], base_a, length_a, 0)
        base_a += k
        length_a -= k
        if length_a == 0:
            return
        length_b = self.gallop_left(
            work, work[base_a + length_a - 1], base_b, length_b, length_b - 1
        )
        if length_b == 0:
            return
        if length_a <= length_b:
            self.merge_low(base_a, length_a, base_b, length_b)
        else:
            self.merge_high(base_a, length_a, base_b, length_b)

    def gallop_left(
        self, array: list[object], key: object, base: int, length: int, hint: int
    ) -> int:
        """Where ``key`` goes in the sorted ``array[base:base+length]``, leftmost of
        equal elements, searched from ``hint`` outward."""
        last, offset = 0, 1
        if self.compare(array[base + hint], key) < 0:
            most = length - hint
            while offset < most:
                if self.compare(array[base + hint + offset], key) >= 0:
                    break
                last, offset = offset, (offset << 1) + 1
            offset = min(offset, most)
            last, offset = last + hint, offset + hint
        else:
            most = hint + 1
            while offset < most:
                if self.compare(array[base + hint - offset], key) < 0:
                    break
                last, offset = offset, (offset << 1) + 1
            offset = min(offset, most)
            last, offset = hint - offset, hint - last
        last += 1
        while last < offset:
            middle = last + ((offset - last) >> 1)
            if self.compare(array[base + middle], key) < 0:
                last = middle + 1
            else:
                offset = middle
        return offset

    def gallop_right(
        self, array: list[object], key: object, base: int, length: int, hint: int
    ) -> int:
        """As ``gallop_left``, but rightmost of equal elements."""
        last, offset = 0, 1
        if self.compare(key, array[base + hint]) < 0:
            most = hint + 1
            while offset < most:
                if self.compare(key, array[base + hint - offset]) >= 0:
                    break
                last, offset = offset, (offset << 1) + 1
            offset = min(offset, most)
            last, offset = hint - offset, hint - last
        else:
            most = length - hint
            while offset < most:
                if self.compare(key, array[base + hint + offset]) < 0:
                    break
                last, offset = offset, (offset << 1) + 1
            offset = min(offset, most)
            last, offset = last + hint, offset + hint
        last += 1
        while last < offset:
            middle = last + ((offset - last) >> 1)
            if self.compare(key, array[base + middle]) < 0:
                offset = middle
            else:
                last = middle + 1
        return offset

    # -- MergeLow: run A (the shorter) copied aside, merged front to back -------------

    def merge_low(self, base_a: int, length_a: int, base_b: int, length_b: int) -> None:
        """Merge run A (copied aside, the shorter) and run B, front to back."""
        work = self.work
        temp = work[base_a : base_a + length_a]
        at = _Cursors(base_a + 1, 0, base_b + 1, length_a, length_b - 1)
        work[base_a] = work[base_b]
        copy_b = False
        if at.length_b == 0:
            pass
        elif at.length_a == 1:
            copy_b = True
        else:
            copy_b = self._merge_low_loop(temp, at)
        if copy_b:  # the last element of run A belongs at the end of the merge
            work[at.dest : at.dest + at.length_b] = work[at.other : at.other + at.length_b]
            work[at.dest + at.length_b] = temp[at.temp]
        elif at.length_a > 0:
            work[at.dest : at.dest + at.length_a] = temp[at.temp : at.temp + at.length_a]

    def _merge_low_loop(self, temp: list[object], at: _Cursors) -> bool:
        """The body of ``MergeLow``: one element at a time until one run wins
        ``min_gallop`` times in a row, then galloping while it pays; True where it ends
        at ``CopyB``."""
        while True:
            ended, wins_a, wins_b = self._low_one_at_a_time(temp, at)
            if ended is None:
                self.min_gallop += 1
                ended = self._low_galloping(temp, at, wins_a, wins_b)
            if ended is not None:
                return ended
            self.min_gallop += 1  # a penalty for leaving galloping mode

    def _low_one_at_a_time(self, temp: list[object], at: _Cursors) -> tuple[bool | None, int, int]:
        """Elements taken one at a time; (how the merge ended or None, wins of A, wins
        of B) when it ends or one run has won ``min_gallop`` times in a row."""
        work, wins_a, wins_b = self.work, 0, 0
        while True:
            if self.compare(work[at.other], temp[at.temp]) < 0:
                work[at.dest] = work[at.other]
                at.dest, at.other, at.length_b = at.dest + 1, at.other + 1, at.length_b - 1
                wins_b, wins_a = wins_b + 1, 0
                if at.length_b == 0:
                    return False, wins_a, wins_b
                if wins_b >= self.min_gallop:
                    return None, wins_a, wins_b
            else:
                work[at.dest] = temp[at.temp]
                at.dest, at.temp, at.length_a = at.dest + 1, at.temp + 1, at.length_a - 1
                wins_a, wins_b = wins_a + 1, 0
                if at.length_a == 1:
                    return True, wins_a, wins_b
                if wins_a >= self.min_gallop:
                    return None, wins_a, wins_b

    def _low_galloping(
        self, temp: list[object], at: _Cursors, wins_a: int, wins_b: int
    ) -> bool | None:
        """Galloping: runs of elements found by ``gallop_right``/``gallop_left`` and moved
        together, while either run wins ``_MIN_GALLOP_WINS`` or more (None: back to one
        at a time)."""
        work, first = self.work, True
        while wins_a >= _MIN_GALLOP_WINS or wins_b >= _MIN_GALLOP_WINS or first:
            first = False
            self.min_gallop = max(1, self.min_gallop - 1)
            wins_a = self.gallop_right(temp, work[at.other], at.temp, at.length_a, 0)
            if wins_a > 0:
                work[at.dest : at.dest + wins_a] = temp[at.temp : at.temp + wins_a]
                at.dest, at.temp, at.length_a = (
                    at.dest + wins_a,
                    at.temp + wins_a,
                    at.length_a - wins_a,
                )
                if at.length_a == 1:
                    return True
                if at.length_a == 0:  # possible with an inconsistent comparator
                    return False
            work[at.dest] = work[at.other]
            at.dest, at.other, at.length_b = at.dest + 1, at.other + 1, at.length_b - 1
            if at.length_b == 0:
                return False
            wins_b = self.gallop_left(work, temp[at.temp], at.other, at.length_b, 0)
            if wins_b > 0:
                work[at.dest : at.dest + wins_b] = work[at.other : at.other + wins_b]
                at.dest, at.other, at.length_b = (
                    at.dest + wins_b,
                    at.other + wins_b,
                    at.length_b - wins_b,
                )
                if at.length_b == 0:
                    return False
            work[at.dest] = temp[at.temp]
            at.dest, at.temp, at.length_a = at.dest + 1, at.temp + 1, at.length_a - 1
            if at.length_a == 1:
                return True
        return None

    # -- MergeHigh: run B (the shorter) copied aside, merged back to front ------------

    def merge_high(self, base_a: int, length_a: int, base_b: int, length_b: int) -> None:
        """Merge run A and run B (copied aside, the shorter), back to front."""
        work = self.work
        temp = work[base_b : base_b + length_b]
        last_a, dest = base_a + length_a - 1, base_b + length_b - 1
        at = _Cursors(dest - 1, length_b - 1, last_a - 1, length_a - 1, length_b, base_a)
        work[dest] = work[last_a]
        copy_a = False
        if at.length_a == 0:
            pass
        elif at.length_b == 1:
            copy_a = True
        else:
            copy_a = self._merge_high_loop(temp, at)
        if copy_a:  # the first element of run B belongs at the front of the merge
            dest, other, length = at.dest - at.length_a, at.other - at.length_a, at.length_a
            work[dest + 1 : dest + 1 + length] = work[other + 1 : other + 1 + length]
            work[dest] = temp[at.temp]
        elif at.length_b > 0:
            start = at.dest - (at.length_b - 1)
            work[start : start + at.length_b] = temp[: at.length_b]

    def _merge_high_loop(self, temp: list[object], at: _Cursors) -> bool:
        """The body of ``MergeHigh`` (as ``_merge_low_loop``, back to front); True where
        it ends at ``CopyA``."""
        while True:
            ended, wins_a, wins_b = self._high_one_at_a_time(temp, at)
            if ended is None:
                self.min_gallop += 1
                ended = self._high_galloping(temp, at, wins_a, wins_b)
            if ended is not None:
                return ended
            self.min_gallop += 1  # a penalty for leaving galloping mode

    def _high_one_at_a_time(self, temp: list[object], at: _Cursors) -> tuple[bool | None, int, int]:
        """As ``_low_one_at_a_time``, back to front."""
        work, wins_a, wins_b = self.work, 0, 0
        while True:
            if self.compare(temp[at.temp], work[at.other]) < 0:
                work[at.dest] = work[at.other]
                at.dest, at.other, at.length_a = at.dest - 1, at.other - 1, at.length_a - 1
                wins_a, wins_b = wins_a + 1, 0
                if at.length_a == 0:
                    return False, wins_a, wins_b
                if wins_a >= self.min_gallop:
                    return None, wins_a, wins_b
            else:
                work[at.dest] = temp[at.temp]
                at.dest, at.temp, at.length_b = at.dest - 1, at.temp - 1, at.length_b - 1
                wins_b, wins_a = wins_b + 1, 0
                if at.length_b == 1:
                    return True, wins_a, wins_b
                if wins_b >= self.min_gallop:
                    return None, wins_a, wins_b

    def _high_galloping(
        self, temp: list[object], at: _Cursors, wins_a: int, wins_b: int
    ) -> bool | None:
        """As ``_low_galloping``, back to front."""
        work, first = self.work, True
        while wins_a >= _MIN_GALLOP_WINS or wins_b >= _MIN_GALLOP_WINS or first:
            first = False
            self.min_gallop = max(1, self.min_gallop - 1)
            k = self.gallop_right(work, temp[at.temp], at.base_a, at.length_a, at.length_a - 1)
            wins_a = at.length_a - k
            if wins_a > 0:
                at.dest, at.other = at.dest - wins_a, at.other - wins_a
                work[at.dest + 1 : at.dest + 1 + wins_a] = work[
                    at.other + 1 : at.other + 1 + wins_a
                ]
                at.length_a -= wins_a
                if at.length_a == 0:
                    return False
            work[at.dest] = temp[at.temp]
            at.dest, at.temp, at.length_b = at.dest - 1, at.temp - 1, at.length_b - 1
            if at.length_b == 1:
                return True
            k = self.gallop_left(temp, work[at.other], 0, at.length_b, at.length_b - 1)
            wins_b = at.length_b - k
            if wins_b > 0:
                at.dest, at.temp = at.dest - wins_b, at.temp - wins_b
                work[at.dest + 1 : at.dest + 1 + wins_b] = temp[at.temp + 1 : at.temp + 1 + wins_b]
                at.length_b -= wins_b
                if at.length_b == 1:
                    return True
                if at.length_b == 0:  # possible with an inconsistent comparator
                    return False
            work[at.dest] = work[at.other]
            at.dest, at.other, at.length_a = at.dest - 1, at.other - 1, at.length_a - 1
            if at.length_a == 0:
                return False
        return None


def _min_run_length(n: int) -> int:
    """V8's ``ComputeMinRunLength``: ``n`` below 64, else between 32 and 64.

    >>> _min_run_length(63), _min_run_length(64), _min_run_length(128), _min_run_length(600)
    (63, 32, 32, 38)
    """
    r = 0
    while n >= 64:
        r |= n & 1
        n >>= 1
    return n + r
