"""pisession.workshop.repository: the repository files the notebooks read (data/forks,
data/audit) come from the checkout, else from the repository's main branch; a file in
neither place is one clear error."""

from __future__ import annotations

import io
import urllib.error
from pathlib import Path

import pytest

from pisession.workshop import repository

ROOT = Path(__file__).resolve().parents[1]


def test_reads_the_checkout_first(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("no download when the checkout has the file")

    monkeypatch.setattr(repository.urllib.request, "urlopen", refuse)
    got = repository.repository_file("data/forks/forks.json", "https://github.com/x/y", ROOT)
    assert got == (ROOT / "data" / "forks" / "forks.json").read_bytes()


def test_downloads_from_the_main_branch_without_a_checkout(monkeypatch, tmp_path):
    asked = []

    def urlopen(url, timeout):
        asked.append(url)
        return io.BytesIO(b"{}")

    monkeypatch.setattr(repository.urllib.request, "urlopen", urlopen)
    got = repository.repository_file(
        "data/audit/evidence.json", "https://github.com/me/p.git", tmp_path
    )
    assert got == b"{}"
    assert asked == ["https://raw.githubusercontent.com/me/p/main/data/audit/evidence.json"]


def test_the_default_repository_is_the_project_url(monkeypatch, tmp_path):
    asked = []
    monkeypatch.setattr(
        repository.urllib.request,
        "urlopen",
        lambda url, timeout: asked.append(url) or io.BytesIO(b""),
    )
    monkeypatch.setattr(
        repository, "project_repository", lambda: "https://github.com/pi-agents/pisession"
    )
    repository.repository_file("data/forks/forks.json", base=tmp_path)
    assert asked == [
        "https://raw.githubusercontent.com/pi-agents/pisession/main/data/forks/forks.json"
    ]


def test_a_file_found_nowhere_is_one_clear_error(monkeypatch, tmp_path):
    def urlopen(url, timeout):
        raise urllib.error.HTTPError(url, 404, "Not Found", None, None)

    monkeypatch.setattr(repository.urllib.request, "urlopen", urlopen)
    with pytest.raises(FileNotFoundError) as error:
        repository.repository_file("data/forks/none.json", "https://github.com/me/p", tmp_path)
    message = str(error.value)
    assert "\n" not in message and "data/forks/none.json" in message
    assert str(tmp_path / "data/forks/none.json") in message and "raw.githubusercontent" in message
    monkeypatch.setattr(repository, "project_repository", lambda: "")
    with pytest.raises(FileNotFoundError, match="no repository to download it from"):
        repository.repository_file("data/forks/none.json", base=tmp_path)
