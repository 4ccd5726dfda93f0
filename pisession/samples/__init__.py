"""Sample sessions shipped with pisession, so notebooks work on Colab and from a wheel.

- ``tour``: a small hand-made session where one picture shows a branch, a compaction
  with its kept range, a context edit, a label and state-only entries.
- ``pi-0.87.1-a-print-multiturn-tools``, ``pi-0.87.1-b-rpc-compaction-manual-threshold-overflow``:
  written byte for byte by the real Pi 0.87.1 CLI (see ``README.md`` here).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

REAL_PI_SAMPLES = (
    "pi-0.87.1-a-print-multiturn-tools",
    "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow",
)


def sample_names() -> list[str]:
    """Names of the bundled samples (without ``.jsonl``).

    >>> "tour" in sample_names()
    True
    """
    folder = resources.files(__name__)
    return sorted(p.name[: -len(".jsonl")] for p in folder.iterdir() if p.name.endswith(".jsonl"))


def sample_path(name: str = "tour") -> Path:
    """Path of a bundled sample, by name (``.jsonl`` optional).

    >>> sample_path("tour").name
    'tour.jsonl'
    """
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    if stem not in sample_names():
        raise FileNotFoundError(f"no bundled sample {name!r}; choose from {sample_names()}")
    return Path(str(resources.files(__name__) / f"{stem}.jsonl"))
