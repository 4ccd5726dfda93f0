"""The ``pisession`` command: real session folders from the terminal.

    pisession explain [FILE]          which entries reached the model, and why
    pisession context [FILE]          the model context as Pi builds it (JSON)
    pisession tree [FILE]             the entry tree (text, or -o tree.png/.svg)
    pisession export [FILE] -o OUT    one HTML or Markdown file to share
    pisession diff FILE A B           two leaves' contexts side by side
    pisession migrate [FILE] -o OUT   write a version 3 copy of a legacy file
    pisession check [FILE]            damage and surprises, with an exit status
    pisession stats [FILE]            tokens, cost and message counts
    pisession ls [DIR]                the sessions Pi (or PiG) has stored
    pisession usage [DIR]             tokens and cost over a sessions folder
    pisession search PATTERN [DIR]    text across sessions, and each hit's fate

Also ``python -m pisession``. FILE is a path, ``-`` (standard input), a bundled sample
(``tour``, the default) or a stored session's id (whole, a unique prefix, or as ``ls``
shows it).
Files are only read, except by ``migrate``, ``export`` and ``tree -o`` (which write a
new file atomically, and replace one only with ``--force``). Session text is escaped
before it reaches the terminal; colours appear only on a terminal (never in a pipe) and
never when ``NO_COLOR`` is set. Errors are one line on stderr (broken at spaces to a
terminal's width) and exit status 2.

Importing this package stays light: matplotlib and networkx load only when needed, and
each command loads the views that render its output only when it runs
(``pisession --help`` loads none of them: ``tests/test_cli_package.py``).

The package, one module per command (its arguments, ``add_parser``, and what it does,
``run``), and the parts they share:

    app        ``main``: parse, run, one-line errors and the exit status
    parser     ``build_parser`` and ``short_help`` (``pisession`` alone)
    options    the options several commands share, their value types, the parser class
    report     errors, warnings and notes on stderr (``CommandError``, exit 2)
    output     stdout: text, exact bytes, JSON as Pi writes it, files written atomically
    loading    FILE (path, -, sample, stored session id) and ``--leaf``
    folder     what ``ls``, ``usage`` and ``search`` share: the sessions folder

What the commands print is made in ``pisession.views`` and ``pisession.folders.text``.

>>> main(["check", "tour"])
pisession/samples/tour.jsonl: no problems found (26 entries)
0
"""

from .app import main
from .parser import build_parser, short_help
from .report import CommandError

__all__ = ["CommandError", "build_parser", "main", "short_help"]
