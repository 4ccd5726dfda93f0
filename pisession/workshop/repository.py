"""Files of pisession's repository that the notebooks read but the package does not ship
(``data/forks``: files Pi wrote for /clone and /fork; ``data/audit``: Pi's recorded
answers): from the checkout next to the notebook, else downloaded from the repository's
``main`` branch (Colab opens a notebook alone, without the repository around it).

>>> raw_url("data/forks/forks.json", "https://github.com/pi-agents/pisession")
'https://raw.githubusercontent.com/pi-agents/pisession/main/data/forks/forks.json'
"""

from __future__ import annotations

import urllib.error
import urllib.request
from importlib import metadata
from pathlib import Path

#: The branch files are downloaded from.
BRANCH = "main"


def project_repository() -> str:
    """pisession's repository, as its installed metadata names it (``[project.urls]
    Repository`` in pyproject.toml); empty when pisession is not installed.

    >>> project_repository().startswith("https://github.com/") or project_repository() == ""
    True
    """
    try:
        urls = metadata.metadata("pisession").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return ""
    found = [url.partition(",")[2].strip() for url in urls if url.startswith("Repository,")]
    return found[0] if found else ""


def raw_url(relative: str, repository: str) -> str:
    """Where GitHub serves a file of ``repository``'s main branch as it is.

    >>> raw_url("data/audit/evidence.json", "https://github.com/me/pisession.git")
    'https://raw.githubusercontent.com/me/pisession/main/data/audit/evidence.json'
    """
    slug = repository.removeprefix("https://github.com/").removesuffix(".git").strip("/")
    return f"https://raw.githubusercontent.com/{slug}/{BRANCH}/{relative}"


def repository_file(relative: str, repository: str = "", base: Path = Path("..")) -> bytes:
    """The bytes of the repository file ``relative`` (``data/forks/forks.json``): read from
    the checkout (``base``: the notebooks run in ``notebooks/``, one level down), else
    downloaded from ``repository`` (default: ``project_repository()``). A file found in
    neither place raises ``FileNotFoundError`` naming both.

    >>> repository_file("samples/tour.jsonl", base=Path(__file__).parents[1])[:9]
    b'{"type":"'
    """
    local = base / relative
    if local.exists():
        return local.read_bytes()
    repository = repository or project_repository()
    if not repository:
        raise FileNotFoundError(
            f"{relative}: not in a checkout ({local}) and no repository to download it from"
        )
    url = raw_url(relative, repository)
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return bytes(response.read())
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise FileNotFoundError(
            f"{relative}: not in a checkout ({local}) and not downloaded from {url}: {reason}"
        ) from None
