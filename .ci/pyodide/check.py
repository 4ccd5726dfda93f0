"""pisession in Pyodide (the JupyterLite kernel's Python), compared with CPython.

    python .ci/pyodide/check.py            # from .ci/run; prints SKIP without npm/PyPI

1. npm's ``pyodide`` package at the version the JupyterLite Pyodide kernel uses
   (``jupyterlite_pyodide_kernel.constants.PYODIDE_VERSION`` when that package is
   installed, else ``PYODIDE_VERSION`` below, which .ci/lite/requirements.txt's kernel
   pins) goes to ``.ci/pyodide/_cache/`` (ignored by git).
2. pisession's wheel is built (``pip wheel --no-deps .``) and its dependencies are
   chosen as micropip would choose them in Pyodide: the requirement's markers evaluated
   for emscripten, then Pyodide's own build when the lock's version satisfies it (that
   build is only on Pyodide's CDN: the same version's wheel is taken from PyPI, and a
   dependency with no such wheel fails the check: raise its floor for emscripten), else
   PyPI's newest wheel for the lock's Python and ABI (``pip download --platform``).
3. ``probe.py`` runs under CPython (pisession from the same wheel) and in Pyodide under
   Node (``run.mjs``, every request that is not a local file refused); the two JSON
   results must be equal, except the docstrings listed in ``EMSCRIPTEN_ONLY`` (with the
   reason) and those that stop at a missing display library (matplotlib, ipywidgets,
   IPython: not installed in this Pyodide). After the probe's ``python -m pisession``
   and ``__main__.run()`` the runtime must still run Python.

Without node, npm or the registries it prints ``SKIP pyodide check: <reason>`` and
exits 0; a difference exits 1. Closes with a plain ``N passed, N failed`` line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = HERE / "_cache"
#: jupyterlite-pyodide-kernel 0.8.7's Pyodide (used when that package is not installed)
PYODIDE_VERSION = "314.0.6"
DISPLAY = ("matplotlib", "ipywidgets", "IPython")
#: docstrings whose examples cannot run on Emscripten, and why (the first failure, exact)
EMSCRIPTEN_ONLY = {
    "pisession.engine.reader.open_input": (
        "AttributeError: module 'os' has no attribute 'mkfifo'",
        "Emscripten has no named pipes (a FIFO given as FILE exists only on a real OS)",
    ),
}


class Skip(Exception):
    """The check cannot run here (no Node, no npm, a registry out of reach)."""


class ToolFailed(Exception):
    """npm or pip failed for another reason than the network: the check fails."""


#: what npm and pip print when a registry cannot be reached (then: SKIP, not FAIL)
OFFLINE_MARKERS = (
    "ENOTFOUND", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "ENETUNREACH",
    "NewConnectionError", "Network is unreachable", "Temporary failure in name resolution",
    "Name or service not known", "ConnectTimeout", "ReadTimeout", "ProxyError",
    "Max retries exceeded", "Connection refused",
)  # fmt: skip


def pyodide_version() -> str:
    """The Pyodide the JupyterLite kernel loads."""
    try:
        from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION as kernel
    except ImportError:
        return PYODIDE_VERSION
    return kernel


def run(command: list[str], what: str, cwd: Path = ROOT) -> str:
    """Run a tool: Skip when it cannot reach its registry, else ToolFailed when it fails
    (with its last error line)."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode:
        text = f"{done.stderr}\n{done.stdout}"
        lines = (done.stderr or done.stdout).strip().splitlines() or ["(no output)"]
        offline = [line for line in text.splitlines() if any(m in line for m in OFFLINE_MARKERS)]
        if offline:
            raise Skip(f"{what}: the registry cannot be reached ({offline[0].strip()[:160]})")
        raise ToolFailed(f"{what} failed: {lines[-1][:300]}")
    return done.stdout


def install_pyodide(version: str) -> Path:
    """npm's pyodide package (the core only) under the cache; its folder."""
    if not shutil.which("node") or not shutil.which("npm"):
        raise Skip("node or npm is not installed")
    folder = CACHE / f"pyodide-{version}"
    package = folder / "node_modules" / "pyodide"
    if not (package / "pyodide-lock.json").exists():
        folder.mkdir(parents=True, exist_ok=True)
        run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder),
             f"pyodide@{version}"],
            f"npm install pyodide@{version}",
        )  # fmt: skip
    return package


def pypi_reachable() -> None:
    """Skip unless the package index answers (pip's own lookup of setuptools, which the
    wheel's build needs): after it, a failing download is a real failure."""
    command = [sys.executable, "-m", "pip", "index", "versions", "setuptools"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["(no output)"]
        raise Skip(f"the package index cannot be reached ({lines[-1][:160]})")


def build_wheel() -> Path:
    """pisession's wheel, built from the checkout into a fresh folder."""
    out = CACHE / "pisession-wheel"
    shutil.rmtree(out, ignore_errors=True)
    run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), "."],
        "pip wheel .",
    )
    (wheel,) = out.glob("pisession-*.whl")
    return wheel


def requirements(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel (extras left out)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        lines = archive.read(name).decode().splitlines()
    return [line.split(":", 1)[1].strip() for line in lines if line.startswith("Requires-Dist:")]


def choose(wheel: Path, lock: dict) -> list[tuple[str, str, str]]:
    """What micropip installs in this Pyodide for pisession: (name, pin, where from)."""
    from packaging.markers import default_environment
    from packaging.requirements import Requirement

    python = lock["info"]["python"]
    environment = {
        **default_environment(),
        "sys_platform": "emscripten",
        "platform_system": "Emscripten",
        "platform_machine": "wasm32",
        "python_version": ".".join(python.split(".")[:2]),
        "python_full_version": python,
        "extra": "",
    }
    chosen = []
    for line in requirements(wheel):
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate(environment):
            continue
        locked = lock["packages"].get(req.name.lower())
        if locked and req.specifier.contains(locked["version"], prereleases=True):
            chosen.append((req.name, f"{req.name}=={locked['version']}", "Pyodide's lock"))
        else:
            chosen.append((req.name, str(req.name) + str(req.specifier), "PyPI"))
    return chosen


def download(pins: list[tuple[str, str, str]], lock: dict) -> list[Path]:
    """The wheels for Pyodide's Python and ABI from PyPI (pip download --platform)."""
    info = lock["info"]
    python = "".join(info["python"].split(".")[:2])
    platform = f"pyemscripten_{info['abi_version']}_{info['arch']}"
    out = CACHE / f"wheels-{platform}"
    out.mkdir(parents=True, exist_ok=True)
    wheels = []
    for name, pin, source in pins:
        try:
            run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--only-binary=:all:", "--platform", platform, "--python-version", python,
                 "--implementation", "cp", "-d", str(out), pin],
                f"pip download {pin}",
            )  # fmt: skip
        except ToolFailed as exc:
            if source == "Pyodide's lock" and "No matching distribution" in str(exc):
                raise ToolFailed(
                    f"in Pyodide micropip would install {pin} from {source}, "
                    f"a build PyPI does not have for {platform}: this check cannot test it; "
                    f"raise {name}'s floor for sys_platform == 'emscripten' in pyproject.toml"
                ) from None
            raise
        found = [w for w in out.glob("*.whl") if _wheel_matches(w, pin)]
        wheels.append(max(found, key=lambda w: _wheel_version(w)))
    return wheels


def _wheel_version(wheel: Path):
    from packaging.version import Version

    return Version(wheel.name.split("-")[1])


def _wheel_matches(wheel: Path, pin: str) -> bool:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    req = Requirement(pin)
    name = wheel.name.split("-")[0]
    return canonicalize_name(name) == canonicalize_name(req.name) and req.specifier.contains(
        wheel.name.split("-")[1], prereleases=True
    )


def cpython_result(wheel: Path) -> dict:
    """The probe under this Python, pisession from the same wheel."""
    with tempfile.TemporaryDirectory(prefix="pisession-cpython-") as folder:
        run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
             folder, str(wheel)],
            "pip install --target (the wheel)",
        )  # fmt: skip
        out = Path(folder) / "result.json"
        env = {**os.environ, "PYTHONPATH": folder}
        done = subprocess.run(
            [sys.executable, str(HERE / "probe.py"), str(out)], env=env, cwd=folder, check=False
        )
        if done.returncode:
            raise SystemExit("pyodide check: the probe failed under CPython")
        return json.loads(out.read_text(encoding="utf-8"))


def pyodide_result(package: Path, wheels: list[Path]) -> dict:
    out = CACHE / "pyodide-result.json"
    out.unlink(missing_ok=True)
    command = ["node", str(HERE / "run.mjs"), str(package), str(HERE / "probe.py"), str(out)]
    done = subprocess.run([*command, *map(str, wheels)], check=False)
    if done.returncode or not out.exists():
        raise SystemExit("pyodide check: the Node runner failed (its error is above)")
    return json.loads(out.read_text(encoding="utf-8"))


def differences(cpython, pyodide, where: str = "", limit: int = 12) -> list[str]:
    """Where two JSON values differ (at most ``limit`` places)."""
    found: list[str] = []

    def walk(a, b, at):
        if len(found) >= limit:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                if key not in a or key not in b:
                    found.append(f"{at}/{key}: only in {'Pyodide' if key in b else 'CPython'}")
                else:
                    walk(a[key], b[key], f"{at}/{key}")
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, f"{at}[{i}]")
        elif a != b:
            found.append(f"{at}: CPython {str(a)[:160]!r} | Pyodide {str(b)[:160]!r}")

    walk(cpython, pyodide, where)
    return found


def doctest_verdicts(cpython: dict, pyodide: dict) -> tuple[list[str], list[str]]:
    """(problems, notes) for the docstrings' doctests."""
    problems, notes = [], []
    ours, theirs = cpython["tests"], pyodide["tests"]
    if cpython["left out (display)"] != pyodide["left out (display)"]:
        problems.append("the modules left out differ between CPython and Pyodide")
    for name in sorted(set(ours) | set(theirs)):
        a, b = ours.get(name), theirs.get(name)
        if a is None or b is None:
            problems.append(f"doctest {name}: only under {'Pyodide' if a is None else 'CPython'}")
        elif a["failed"]:
            problems.append(f"doctest {name} fails under CPython: {a['first failure']}")
        elif not b["failed"]:
            continue
        elif name in EMSCRIPTEN_ONLY and b["first failure"] == EMSCRIPTEN_ONLY[name][0]:
            notes.append(f"doctest {name}: not on Emscripten ({EMSCRIPTEN_ONLY[name][1]})")
        elif any(f"No module named '{m}'" in (b["first failure"] or "") for m in DISPLAY):
            notes.append(f"doctest {name}: needs {b['first failure'].split(': ', 1)[1]}")
        else:
            problems.append(f"doctest {name} fails in Pyodide: {b['first failure']}")
    return problems, notes


def main() -> int:
    try:
        return check()
    except ToolFailed as exc:
        print(f"FAIL pyodide check: {exc}")
        print("0 passed, 1 failed")
        return 1


def check() -> int:
    """The whole check; its exit status."""
    started = time.monotonic()
    version = pyodide_version()
    try:
        package = install_pyodide(version)
        lock = json.loads((package / "pyodide-lock.json").read_text(encoding="utf-8"))
        pypi_reachable()
        wheel = build_wheel()
        pins = choose(wheel, lock)
        wheels = download(pins, lock)
    except Skip as exc:
        print(f"SKIP pyodide check: {exc}")
        return 0
    print(f"Pyodide {version} (Python {lock['info']['python']}, ABI {lock['info']['abi_version']})")
    for (_, pin, source), path in zip(pins, wheels):
        print(f"  {pin:<22} as micropip chooses it ({source}): {path.name}")
    cpython = cpython_result(wheel)
    node = pyodide_result(package, [*wheels, wheel])
    print(f"  in Pyodide: {json.dumps(node['versions'], sort_keys=True)}")
    checks: dict[str, list[str]] = {}
    checks["offline (no request left Pyodide)"] = [f"refused {u}" for u in node["refused"]]
    checks["wheels loaded"] = node["loadErrors"]
    checks["probe ran"] = [node["error"]] if node["error"] else []
    checks["runtime alive after python -m pisession, run() and cli.main()"] = (
        [] if node["alive"] else ["the Pyodide runtime ended"]
    )
    theirs = node["result"] or {}
    notes: list[str] = []
    if theirs:
        for part in ("samples", "commands", "views", "cli", "entry points"):
            checks[f"{part} as under CPython"] = differences(cpython[part], theirs.get(part), part)
        checks["every command run"] = [f"no arguments for {c}" for c in cpython["cli"]["missing"]]
        checks["doctests"], notes = doctest_verdicts(cpython["doctests"], theirs["doctests"])
    passed = failed = 0
    for name, problems in checks.items():
        if problems:
            failed += 1
            print(f"FAIL {name}")
            for problem in problems:
                print(f"     {problem}")
        else:
            passed += 1
            print(f"ok   {name}")
    for note in notes:
        print(f"note {note}")
    if theirs:
        tests = theirs["doctests"]["tests"]
        print(
            f"  {len(cpython['samples'])} samples, {len(cpython['cli']['runs'])} command lines, "
            f"{len(tests)} docstrings ({sum(t['examples'] for t in tests.values())} examples)"
        )
    print(f"pyodide check took {time.monotonic() - started:.0f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
