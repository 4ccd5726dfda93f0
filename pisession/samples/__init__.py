"""Sample sessions shipped with pisession, so notebooks work on Colab and from a wheel.

- ``tour``: a small hand-made session where one picture shows a branch, a compaction
  with its kept range, a context edit, a label and state-only entries.
- ``pi-0.87.1-a-print-multiturn-tools``, ``pi-0.87.1-b-rpc-compaction-manual-threshold-overflow``:
  written byte for byte by the real Pi 0.87.1 CLI (see ``README.md`` here).
- ``pi-1.6.0-c-rpc-tree-thinking-labels``: written by the real Pi 1.6.0 CLI
  (``conformance/realcli``): what current Pi writes (``durationMs``, ``thinkingLevel`` on
  assistant messages, ``usage.cost.totalFromProvider``, a ``thinking_level_change`` after
  each tree navigation).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

REAL_PI_SAMPLES = (
    "pi-0.87.1-a-print-multiturn-tools",
    "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow",
    "pi-1.6.0-c-rpc-tree-thinking-labels",
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


#: The samples ``store_samples`` stores: the ones that look like a real user's sessions.
STORED = ("tour", *REAL_PI_SAMPLES[:2])


def store_samples(agent_dir: str | Path) -> list[Path]:
    """Store the bundled samples under ``agent_dir`` as Pi stores sessions
    (``sessions/--<cwd>--/<time>_<id>.jsonl``, folder and file named by Pi's own rules
    from each header), for trying ``pisession ls`` and session ids on a folder of your
    own: ``python -m pisession.samples demo/agent``, then
    ``PI_CODING_AGENT_DIR=demo/agent pisession ls --all``. Files already there with the
    same bytes are left alone; a different file in the way is an error (nothing is
    replaced). Returns the stored files.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     sorted({p.parent.name for p in store_samples(tmp)})
    ['--home-reader-projects-compaction-demo--', '--home-reader-projects-demo-app--']
    """
    import json

    from ..files import atomic_write, session_dir_name, session_file_name

    stored = []
    for name in STORED:
        data = sample_path(name).read_bytes()
        header = json.loads(data.split(b"\n", 1)[0])
        folder = Path(agent_dir) / "sessions" / session_dir_name(header["cwd"], "posix")
        target = folder / session_file_name(header["timestamp"], header["id"])
        if not (target.exists() and target.read_bytes() == data):
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write(target, data)
        stored.append(target)
    return stored
