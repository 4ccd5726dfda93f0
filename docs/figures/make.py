"""Redraw the figures of docs/visuals.md from the bundled samples (deterministic PNGs).

python docs/figures/make.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

import pisession  # noqa: E402
from pisession.views.draw import (  # noqa: E402
    draw_tree,
    edits_figure,
    migration_figure,
    pipeline_figure,
    save_figure,
)


def main() -> None:
    tour = pisession.load(pisession.sample_path("tour"))
    b = pisession.load(
        pisession.sample_path("pi-0.87.1-b-rpc-compaction-manual-threshold-overflow")
    )
    figures = {
        "tree-tour": draw_tree(tour),
        "tree-sample-b": draw_tree(b),
        "pipeline-tour": pipeline_figure(tour),
        "migration-legacy-v1": migration_figure(pisession.sample_path("legacy-v1")),
        "edits-tour": edits_figure(tour),
        "edits-sample-b": edits_figure(b),
    }
    for name, fig in figures.items():
        print("wrote", save_figure(fig, HERE / f"{name}.png").relative_to(HERE.parents[1]))


if __name__ == "__main__":
    main()
