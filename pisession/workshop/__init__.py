"""Self-checking exercises for the notebooks (the end of 01-06, and the 07 workshop).

Each ``check_...`` function takes a function the reader wrote, runs it on cases, compares
every answer with what pisession gives (pisession matches Pi 0.87.1, and the tests pin it
to Pi's own output), prints a short verdict and returns True when every case matches.

The cases come from two places:

- the bundled samples (several leaves each) and small hand-made files for the corners
  real files show (duplicate ids, a system message after a compaction, a cancelled
  command with an exit code, a working directory with a trailing slash, ...);
- cases **drawn at random for each run** (random trees, paths, commands, folders),
  which the reader never sees before running: an answer that looks the cases up, or
  that was fitted to the examples shown in the notebook, fails them.

When an answer differs, the verdict names the first case that differs, what was expected
and what came back, and a hint. Hints come from *mistake models*: each exercise knows the
common wrong answers (first-wins labels, a fence around a string, the exit code of a
cancelled command, ...), and the hint is the one whose model gives exactly the reader's
answers on every case (failing that, on the case that differs). An exception gets a hint
too (a ``KeyError`` names the missing field). A function from pisession itself is
refused: write the rule yourself.

The reader's function gets deep copies of its inputs, so it may modify them freely.

The exercises live in one module per notebook (``the_file``, ``entry_tree``,
``context_rule``, ``compaction``, ``migration``, ``edits_usage_prompt``, ``request_step``);
``_checking``
runs a function on the cases and tells the verdict, ``_sessions`` makes the samples, tiny
files and random sessions the cases are built on. Every name is importable from here.

>>> from pisession.workshop import check_session_file_name
>>> def file_name(timestamp, session_id):
...     return timestamp.replace(":", "-") + "_" + session_id + ".jsonl"
>>> check_session_file_name(file_name, seed=1)  # doctest: +ELLIPSIS
session file name: not yet. ...
First case that differs: ...
...
Hint: the '.' before the milliseconds becomes '-' as well ...
False
"""

from __future__ import annotations

from ._checking import DRAWN, Case, Exercise, FreshIds, Mistake
from ._sessions import SAMPLES
from .compaction import CONTEXT_ROLES, KEPT_RANGE, check_context_roles, check_kept_range
from .context_rule import (
    BASH,
    BASH_MESSAGES,
    SETTINGS,
    bash_cases,
    check_bash_to_llm,
    check_settings,
)
from .edits_usage_prompt import (
    CONTEXT_EDITS,
    SYSTEM_PROMPT,
    TOTAL_TOKENS,
    check_context_edits,
    check_system_prompt,
    check_total_tokens,
)
from .entry_tree import DEFAULT_LEAF, LABELS, WALK, check_default_leaf, check_labels, check_walk
from .migration import V1_TO_V2, V2_TO_V3, check_v1_to_v2, check_v2_to_v3
from .request_step import REQUEST, check_request_messages
from .the_file import (
    DIR_NAME_INPUTS,
    READ_VALUES,
    SESSION_DIR_NAME,
    SESSION_FILE_NAME,
    check_read_values,
    check_session_dir_name,
    check_session_file_name,
    pi_folder_name,
    pi_resolved,
)

# --- examples for the notebooks -----------------------------------------------------------

EXERCISES = {
    "session_file_name": SESSION_FILE_NAME,
    "session_dir_name": SESSION_DIR_NAME,
    "read_values": READ_VALUES,
    "walk": WALK,
    "default_leaf": DEFAULT_LEAF,
    "labels": LABELS,
    "settings": SETTINGS,
    "bash_to_llm": BASH,
    "kept_range": KEPT_RANGE,
    "context_roles": CONTEXT_ROLES,
    "v2_to_v3": V2_TO_V3,
    "v1_to_v2": V1_TO_V2,
    "context_edits": CONTEXT_EDITS,
    "total_tokens": TOTAL_TOKENS,
    "system_prompt": SYSTEM_PROMPT,
    "request_messages": REQUEST,
}


def example(exercise: str, index: int = 0) -> Case:
    """One of an exercise's fixed cases (input and expected answer), to show in a notebook.

    >>> example("session_dir_name", 4).args, example("session_dir_name", 4).expected
    (('C:\\\\work\\\\api',), '--C--work-api--')
    """
    return EXERCISES[exercise].fixed()[index]


__all__ = [
    "BASH_MESSAGES",
    "DIR_NAME_INPUTS",
    "DRAWN",
    "EXERCISES",
    "SAMPLES",
    "Case",
    "Exercise",
    "FreshIds",
    "Mistake",
    "bash_cases",
    "check_bash_to_llm",
    "check_context_edits",
    "check_context_roles",
    "check_default_leaf",
    "check_kept_range",
    "check_labels",
    "check_read_values",
    "check_request_messages",
    "check_session_dir_name",
    "check_session_file_name",
    "check_settings",
    "check_system_prompt",
    "check_total_tokens",
    "check_v1_to_v2",
    "check_v2_to_v3",
    "check_walk",
    "example",
    "pi_folder_name",
    "pi_resolved",
]
