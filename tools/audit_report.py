"""Write docs/chapter-27-audit.md from notebook 08's stored report (the repository's
copy of it; run from a checkout, never needed by an installed pisession):

    python tools/audit_report.py notebooks/08-claim-audit.ipynb docs/chapter-27-audit.md

Notebook 08 renders the report with ``pisession.workshop.audit_report.report`` (it runs
on Colab, where only the package is installed) and stores it as an output; this script
copies that output into the document, atomically. ``tests/test_audit_report.py`` keeps
the two equal.

>>> cell = {"cell_type": "code", "outputs": [{"output_type": "display_data",
...     "data": {"text/markdown": ["# Chapter 27 audit: x\\n", "text\\n"]}}]}
>>> stored_report({"cells": [cell]})
'# Chapter 27 audit: x\\ntext\\n'
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from pisession.workshop.audit_report import TITLE

USAGE = "usage: python tools/audit_report.py NOTEBOOK.ipynb DOC.md"


def stored_report(notebook: dict[str, Any]) -> str:
    """The report notebook 08 stored: the one Markdown output that starts with the title."""
    found = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            text = output.get("data", {}).get("text/markdown")
            if text is not None:
                text = "".join(text) if isinstance(text, list) else text
                if text.startswith(TITLE):
                    found.append(text)
    if len(found) != 1:
        raise ValueError(f"expected one stored report in the notebook, found {len(found)}")
    return str(found[0])


def main(argv: list[str]) -> int:
    """Write the report NOTEBOOK stored (notebooks/08-claim-audit.ipynb, built by
    notebooks/build.py) to DOC, atomically."""
    if len(argv) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    source, target = Path(argv[0]), Path(argv[1])
    try:
        text = stored_report(json.loads(source.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError) as error:
        print(f"{source}: cannot read the stored report: {error}", file=sys.stderr)
        return 1
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
        out.write(text)
    os.replace(temporary, target)
    print(f"wrote {target} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
