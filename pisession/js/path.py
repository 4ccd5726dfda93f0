"""Node.js path rules in Python: ``path.posix`` and ``path.win32`` ``resolve``, ``join``,
``normalize`` and ``isAbsolute``, step for step as Node 20 does them.

Pi names a session folder after ``resolvePath(cwd)``, which uses the running platform's
``node:path``. Python's ``posixpath`` and ``ntpath`` differ from Node in small ways
(``//x`` stays ``//x`` in ``posixpath``; ``ntpath`` has no notion of Node's per-drive
current directory), so pisession carries Node's own algorithm. ``cwd`` stands for
``process.cwd()``; Windows' hidden per-drive directories (``=D:`` variables) are not
modelled: a relative path on another drive resolves from that drive's root, as Node does
when the variable is unset.

>>> posix_resolve("/home/x/", "../y", cwd="/w")
'/home/y'
>>> win32_resolve("D:foo", cwd="C:\\\\Users\\\\reader")
'D:\\\\foo'
"""

from __future__ import annotations

from collections.abc import Callable

#: Device names ``path.win32.normalize`` keeps from being read as a drive (Node 20).
_WINDOWS_RESERVED_NAMES = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"COM{i}" for i in range(1, 10)]
    + [f"LPT{i}" for i in range(1, 10)]
    + ["COM\xb9", "COM\xb2", "COM\xb3", "LPT\xb9", "LPT\xb2", "LPT\xb3"]
)


def _is_sep(ch: str) -> bool:
    return ch in ("/", "\\")


def _is_posix_sep(ch: str) -> bool:
    return ch == "/"


def _is_drive_letter(ch: str) -> bool:
    return ("A" <= ch <= "Z") or ("a" <= ch <= "z")


def _char(text: str, index: int) -> str:
    """``charCodeAt`` as a character: ``""`` past either end (JavaScript gives NaN)."""
    return text[index] if 0 <= index < len(text) else ""


def normalize_string(
    path: str, allow_above_root: bool, separator: str, is_sep: Callable[[str], bool]
) -> str:
    """Node's ``normalizeString``: drop empty and ``.`` segments, apply ``..``.

    >>> normalize_string("a//b/./c/../d", False, "/", _is_posix_sep)
    'a/b/d'
    >>> [normalize_string("../../a", above, "/", _is_posix_sep) for above in (True, False)]
    ['../../a', 'a']
    """
    res = ""
    last_segment_length = 0
    last_slash = -1
    dots = 0
    code = ""
    for i in range(len(path) + 1):
        if i < len(path):
            code = path[i]
        elif is_sep(code):
            break
        else:
            code = "/"
        if is_sep(code):
            if last_slash == i - 1 or dots == 1:
                pass
            elif dots == 2:
                if len(res) < 2 or last_segment_length != 2 or res[-1] != "." or res[-2] != ".":
                    if len(res) > 2:
                        last_slash_index = res.rfind(separator)
                        if last_slash_index == -1:
                            res = ""
                            last_segment_length = 0
                        else:
                            res = res[:last_slash_index]
                            last_segment_length = len(res) - 1 - res.rfind(separator)
                        last_slash = i
                        dots = 0
                        continue
                    if len(res) != 0:
                        res = ""
                        last_segment_length = 0
                        last_slash = i
                        dots = 0
                        continue
                if allow_above_root:
                    res += f"{separator}.." if res else ".."
                    last_segment_length = 2
            else:
                segment = path[last_slash + 1 : i]
                res = f"{res}{separator}{segment}" if res else segment
                last_segment_length = i - last_slash - 1
            last_slash = i
            dots = 0
        elif code == "." and dots != -1:
            dots += 1
        else:
            dots = -1
    return res


# --- POSIX ------------------------------------------------------------------------


def posix_is_absolute(path: str) -> bool:
    """``path.posix.isAbsolute``.

    >>> posix_is_absolute("/a"), posix_is_absolute("C:\\\\a")
    (True, False)
    """
    return path.startswith("/")


def posix_resolve(*paths: str, cwd: str) -> str:
    """``path.posix.resolve(...paths)`` with ``process.cwd()`` = ``cwd``.

    >>> posix_resolve("//srv//data/", cwd="/w"), posix_resolve("..", cwd="/w/x")
    ('/srv/data', '/w')
    """
    resolved = ""
    absolute = False
    for path in reversed(paths):
        if absolute:
            break
        if not path:
            continue
        resolved = f"{path}/{resolved}"
        absolute = path[0] == "/"
    if not absolute:
        resolved = f"{cwd}/{resolved}"
        absolute = cwd.startswith("/")
    resolved = normalize_string(resolved, not absolute, "/", _is_posix_sep)
    if absolute:
        return f"/{resolved}"
    return resolved or "."


def posix_normalize(path: str) -> str:
    """``path.posix.normalize``.

    >>> posix_normalize("/a//b/../c/"), posix_normalize("")
    ('/a/c/', '.')
    """
    if not path:
        return "."
    absolute = path[0] == "/"
    trailing = path[-1] == "/"
    path = normalize_string(path, not absolute, "/", _is_posix_sep)
    if not path:
        if absolute:
            return "/"
        return "./" if trailing else "."
    if trailing:
        path += "/"
    return f"/{path}" if absolute else path


def posix_join(*paths: str) -> str:
    """``path.posix.join``.

    >>> posix_join("/home/reader", ""), posix_join("/home/reader", "../x")
    ('/home/reader', '/home/x')
    """
    parts = [p for p in paths if p]
    return posix_normalize("/".join(parts)) if parts else "."


# --- Windows ----------------------------------------------------------------------


def win32_is_absolute(path: str) -> bool:
    """``path.win32.isAbsolute``: a leading separator, or a drive letter, colon, separator.

    >>> win32_is_absolute("\\\\work"), win32_is_absolute("C:work"), win32_is_absolute("C:/w")
    (True, False, True)
    """
    if not path:
        return False
    return _is_sep(path[0]) or (
        len(path) > 2 and _is_drive_letter(path[0]) and path[1] == ":" and _is_sep(path[2])
    )


def _win32_root(path: str, normalize: bool) -> tuple[str | None, int, bool, str | None]:
    """Root of a Windows path as Node's ``resolve`` (``normalize=False``) and ``normalize``
    read it: ``(device, rootEnd, isAbsolute, whole)``; ``whole`` is set only when
    ``normalize`` meets a bare UNC root (its result is then final)."""
    length = len(path)
    device: str | None = None
    root_end = 0
    absolute = False
    code = path[0]
    if length == 1:
        if _is_sep(code):
            root_end, absolute = 1, True
        return device, root_end, absolute, None
    if _is_sep(code):
        absolute = True
        if _is_sep(path[1]):
            j = 2
            last = j
            while j < length and not _is_sep(path[j]):
                j += 1
            if j < length and j != last:
                first_part = path[last:j]
                last = j
                while j < length and _is_sep(path[j]):
                    j += 1
                if j < length and j != last:
                    last = j
                    while j < length and not _is_sep(path[j]):
                        j += 1
                    if j == length or j != last:
                        if first_part in (".", "?"):
                            device, root_end = f"\\\\{first_part}", 4
                        elif normalize and j == length:
                            return None, 0, True, f"\\\\{first_part}\\{path[last:]}\\"
                        else:
                            device, root_end = f"\\\\{first_part}\\{path[last:j]}", j
        else:
            root_end = 1
    elif not normalize:
        if _is_drive_letter(code) and path[1] == ":":
            device, root_end = path[:2], 2
            if length > 2 and _is_sep(path[2]):
                absolute, root_end = True, 3
    else:
        colon = path.find(":")
        if colon > 0:
            if _is_drive_letter(code) and colon == 1:
                device, root_end = path[:2], 2
                if length > 2 and _is_sep(path[2]):
                    absolute, root_end = True, 3
            elif _is_reserved(path, colon):
                device, root_end = path[: colon + 1], colon + 1
    return device, root_end, absolute, None


def _is_reserved(path: str, colon_index: int) -> bool:
    # JavaScript's slice(0, -1) when there is no colon: all but the last character.
    return path[0:colon_index].upper() in _WINDOWS_RESERVED_NAMES


def win32_resolve(*paths: str, cwd: str) -> str:
    """``path.win32.resolve(...paths)`` with ``process.cwd()`` = ``cwd``.

    >>> win32_resolve("/work", cwd="C:\\\\Users\\\\reader")
    'C:\\\\work'
    >>> win32_resolve("C:", cwd="C:\\\\Users\\\\reader"), win32_resolve("D:", cwd="C:\\\\Users")
    ('C:\\\\Users\\\\reader', 'D:\\\\')
    """
    resolved_device = ""
    resolved_tail = ""
    resolved_absolute = False
    for i in range(len(paths) - 1, -2, -1):
        if i >= 0:
            path = paths[i]
            if not path:
                continue
        elif not resolved_device:
            path = cwd
        else:
            path = cwd  # no per-drive current directory (=D:) is known
            if path[:2].lower() != resolved_device.lower() and _char(path, 2) == "\\":
                path = f"{resolved_device}\\"
        if not path:
            device, root_end, absolute = None, 0, False
        else:
            device, root_end, absolute, _ = _win32_root(path, normalize=False)
        if device:
            if resolved_device:
                if device.lower() != resolved_device.lower():
                    continue
            else:
                resolved_device = device
        if resolved_absolute:
            if resolved_device:
                break
        else:
            resolved_tail = f"{path[root_end:]}\\{resolved_tail}"
            resolved_absolute = absolute
            if absolute and resolved_device:
                break
    resolved_tail = normalize_string(resolved_tail, not resolved_absolute, "\\", _is_sep)
    if resolved_absolute:
        return f"{resolved_device}\\{resolved_tail}"
    return f"{resolved_device}{resolved_tail}" or "."


def win32_normalize(path: str) -> str:
    """``path.win32.normalize`` (Node 20, with its guard against drive-like tails).

    >>> win32_normalize("C:/a//b/../c/"), win32_normalize("//server/share")
    ('C:\\\\a\\\\c\\\\', '\\\\\\\\server\\\\share\\\\')
    """
    length = len(path)
    if length == 0:
        return "."
    if length == 1:
        return "\\" if _is_posix_sep(path) else path
    device, root_end, absolute, whole = _win32_root(path, normalize=True)
    if whole is not None:
        return whole
    tail = (
        normalize_string(path[root_end:], not absolute, "\\", _is_sep) if root_end < length else ""
    )
    if not tail and not absolute:
        tail = "."
    if tail and _is_sep(path[-1]):
        tail += "\\"
    if not absolute and device is None and ":" in path:
        if len(tail) >= 2 and _is_drive_letter(tail[0]) and tail[1] == ":":
            return f".\\{tail}"
        index = path.find(":")
        while index != -1:
            if index == length - 1 or _is_sep(path[index + 1]):
                return f".\\{tail}"
            index = path.find(":", index + 1)
    if _is_reserved(path, path.find(":")):
        return f".\\{device or ''}{tail}"
    if device is None:
        return f"\\{tail}" if absolute else tail
    return f"{device}\\{tail}" if absolute else f"{device}{tail}"


def win32_join(*paths: str) -> str:
    """``path.win32.join``.

    >>> win32_join("C:\\\\Users\\\\reader", "proj/x")
    'C:\\\\Users\\\\reader\\\\proj\\\\x'
    """
    parts = [p for p in paths if p]
    if not parts:
        return "."
    joined = "\\".join(parts)
    first = parts[0]
    needs_replace = True
    slashes = 0
    if _is_sep(first[0]):
        slashes += 1
        if len(first) > 1 and _is_sep(first[1]):
            slashes += 1
            if len(first) > 2:
                if _is_sep(first[2]):
                    slashes += 1
                else:
                    needs_replace = False
    if needs_replace:
        while slashes < len(joined) and _is_sep(joined[slashes]):
            slashes += 1
        if slashes >= 2:
            joined = f"\\{joined[slashes:]}"
    return win32_normalize(joined)
