"""In Pyodide (``sys.platform == "emscripten"``) ``python -m pisession`` must not end the
runtime: ``__main__.run`` returns the status there instead of calling ``os._exit``."""

from __future__ import annotations

import os
import sys

from pisession import __main__ as entry


def test_run_returns_in_pyodide(monkeypatch, capsys):
    def refuse(status):
        raise AssertionError(f"os._exit({status}) would end the Pyodide runtime")

    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setattr(os, "_exit", refuse)
    monkeypatch.setattr(sys, "argv", ["pisession", "stats", "tour"])
    assert entry.run() == 0
    assert capsys.readouterr().out  # the command ran and printed


def test_run_exits_elsewhere(monkeypatch, capsys):
    exits = []
    monkeypatch.setattr(os, "_exit", exits.append)
    monkeypatch.setattr(sys, "argv", ["pisession", "stats", "tour"])
    entry.run()
    assert exits == [0]
