"""Open the reader's own session in a notebook (01 and 03): a path, Colab's upload
dialog, or an ipywidgets ``FileUpload``; the bundled sample a when nothing is chosen.
The file is read in the notebook's Python process only; nothing is sent anywhere."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pisession

if TYPE_CHECKING:
    import ipywidgets

#: The sample opened when the reader chooses nothing.
FALLBACK = "pi-0.87.1-a-print-multiturn-tools"


def colab_upload() -> tuple[str, bytes] | None:
    """(name, bytes) of a file chosen in Colab's upload dialog, or None off Colab."""
    try:
        from google.colab import files as colab_files  # type: ignore[import-not-found]
    except ImportError:
        return None
    return next(iter(colab_files.upload().items()), None)


#: The upload button's tooltip (ipywidgets shows "null" when a widget has none); short,
#: so the widget's text form stays within a notebook's width.
UPLOAD_TOOLTIP = "Open a Pi session (.jsonl)"


def upload_picker() -> ipywidgets.FileUpload | None:
    """A FileUpload widget for a .jsonl file, or None where ipywidgets is missing.

    >>> picker = upload_picker()
    >>> picker is None or picker.tooltip == UPLOAD_TOOLTIP
    True
    """
    try:
        import ipywidgets
    except ImportError:
        return None
    picker = ipywidgets.FileUpload(accept=".jsonl", multiple=False)
    # ipywidgets 8 names it ``tooltip``; 7 (Colab) ``description_tooltip``
    name = "tooltip" if picker.has_trait("tooltip") else "description_tooltip"
    setattr(picker, name, UPLOAD_TOOLTIP)
    return picker


def picked_file(picker: ipywidgets.FileUpload | None) -> tuple[str, bytes] | None:
    """(name, bytes) of the file chosen in a FileUpload widget (ipywidgets 7 or 8), or None.

    >>> picked_file(None)
    """
    value = picker.value if picker is not None else ()
    if isinstance(value, dict):  # ipywidgets 7: {name: {"content": ...}}
        value = [{"name": name, **item} for name, item in value.items()]
    return (value[0]["name"], bytes(value[0]["content"])) if value else None


def own_session(
    choice: str,
    uploaded: tuple[str, bytes] | None = None,
    picker: ipywidgets.FileUpload | None = None,
) -> pisession.Session:
    """The session ``choice`` names (a path; "upload": the ``uploaded`` file; "": the
    file chosen in ``picker``), else bundled sample a.

    >>> len(own_session(""))
    25
    """
    if choice and choice != "upload":
        return pisession.load(Path(choice).expanduser())
    chosen = uploaded or picked_file(picker)
    if chosen:
        return pisession.loads(chosen[1], chosen[0])
    return pisession.load(pisession.sample_path(FALLBACK))
