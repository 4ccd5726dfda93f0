"""How session text appears in an export: escaped for HTML (``esc``, ``content_html``,
``message_html``), folded when long, pictures as ``data:`` URIs only when well formed, and
made safe for Markdown (``md_cell``, ``fence``, ``message_plain``). Used by the HTML page
(``pisession.views.export_page``) and the Markdown file (``pisession.views.export_markdown``).

>>> esc("<b>\\x1b[31m")
'&lt;b&gt;'
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from typing import TYPE_CHECKING

from ..js.json import dumps
from ..js.value import UNDEFINED, plain
from ..js.value import field as js_field
from ..message_text import TextMode, message_text
from ..piversions import pi_versions
from .provenance import FATE
from .text import one_line, strip_unsafe

if TYPE_CHECKING:
    pass

#: Pictures shown inline (others are named, not shown), and the largest one shown.
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
IMAGE_BYTES = 4_000_000

#: Text longer than this many lines (or characters) is folded under its first line.
FOLD_LINES, FOLD_CHARS = 24, 4000


_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}\Z")

# --- pieces of text ------------------------------------------------------------------------


def rules_text() -> str:
    """Which Pi's rules an export follows: the primary version and the newest one checked
    (``pisession/pi_versions.json``).

    >>> rules_text()
    'the rules of Pi 0.87.1 (the same through 1.6.0)'
    """
    versions = pi_versions()
    newest = max(versions["checked"], key=lambda v: tuple(int(n) for n in v.split(".")))
    return f"the rules of Pi {versions['primary']} (the same through {newest})"


def esc(value: object) -> str:
    """Session text for HTML: terminal escapes and bidi controls left out, escaped.

    >>> esc('<img src=x onerror="alert(1)">\\x1b[31m\\u202e')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return html.escape(strip_unsafe(value), quote=True)


def image_uri(block: object) -> str | None:
    """A ``data:`` URI for an image block, or None when it is not a well-formed picture
    of a known type (then the page names it instead of showing it).

    >>> image_uri({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="})
    'data:image/png;base64,iVBORw0KGgo='
    >>> image_uri({"type": "image", "mimeType": "text/html", "data": "PGI+"}) is None
    True
    """
    kind, data = js_field(block, "mimeType"), js_field(block, "data")
    if kind not in IMAGE_TYPES or not isinstance(data, str) or len(data) > IMAGE_BYTES * 4 // 3:
        return None
    data = "".join(data.split())
    if not _BASE64.match(data) or len(data) % 4:
        return None
    try:
        base64.b64decode(data[:64].ljust(4, "="), validate=True)
    except (binascii.Error, ValueError):
        return None
    return f"data:{kind};base64,{data}"


def _size(block: object) -> str:
    data = js_field(block, "data")
    size = len(data) * 3 // 4 if isinstance(data, str) else 0
    return f"{plain(js_field(block, 'mimeType')) or 'image'}, {size / 1000:,.0f} kB"


def chip(fate: str | None, text: str | None = None) -> str:
    """A fate as a small coloured label (the fate names are pisession's own words).

    >>> chip("kept")
    '<span class="chip f-kept">kept</span>'
    """
    name = fate if fate in FATE else "unknown"
    return f'<span class="chip f-{name}">{html.escape(text or fate or "?")}</span>'


#: The most characters of one text an export shows (HTML, Markdown); the rest is named.
HTML_CHARS, MARKDOWN_CHARS = 20_000, 1_500


def capped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out.

    >>> print(capped("abcdef", 4))
    abcd
    [... 2 more characters: pisession context has them all]
    """
    if len(text) <= limit:
        return text
    more = len(text) - limit
    return f"{text[:limit]}\n[... {more:,} more characters: pisession context has them all]"


def _fold(text: str, label: str) -> str:
    """Preformatted text, folded under its first line when it is long (nothing for
    empty text)."""
    if not text:
        return ""
    text = capped(text, HTML_CHARS)
    body = f"<pre>{esc(text)}</pre>"
    lines = text.count("\n") + 1
    if lines <= FOLD_LINES and len(text) <= FOLD_CHARS:
        return body
    first = esc(one_line(text, 80))
    return f"<details><summary>{label} ({lines:,} lines): {first}</summary>{body}</details>"


def _block_html(block: object) -> str:
    kind = js_field(block, "type")
    if kind == "text":
        return _fold(plain(js_field(block, "text")), "text")
    if kind == "thinking":
        text = esc(plain(js_field(block, "thinking")))
        return f"<details><summary>thinking</summary><pre>{text}</pre></details>"
    if kind == "toolCall":
        arguments = (
            dumps(js_field(block, "arguments"), 2)
            if isinstance(js_field(block, "arguments"), (dict, list))
            else plain(js_field(block, "arguments"))
        )
        name = esc(js_field(block, "name"))
        return f'<div class="mono">call <b>{name}</b></div>{_fold(arguments, "arguments")}'
    if kind == "image":
        uri = image_uri(block)
        if uri is None:
            return f"<p><i>[picture not shown: {esc(_size(block))}]</i></p>"
        return f'<img alt="{esc(_size(block))}" src="{uri}">'
    return f"<pre>{esc(dumps(block, 2) if isinstance(block, dict) else plain(block))}</pre>"


def content_html(content: object) -> str:
    """Message content (a string or a list of blocks) as HTML.

    >>> content_html([{"type": "text", "text": "<b>hi</b>"}])
    '<pre>&lt;b&gt;hi&lt;/b&gt;</pre>'
    """
    if isinstance(content, list):
        return "".join(_block_html(b) for b in content)
    if content is UNDEFINED or content is None:
        return ""
    return _fold(plain(content), "text")


def message_html(message: object) -> str:
    """One context message's body (by role).

    >>> message_html({"role": "bashExecution", "command": "ls", "output": "a"})
    '<div class="mono">$ ls</div><pre>a</pre>'
    """
    role = js_field(message, "role")
    if role in ("compactionSummary", "branchSummary"):
        return _fold(plain(js_field(message, "summary")), "summary")
    if role == "bashExecution":
        command = esc(js_field(message, "command"))
        output = plain(js_field(message, "output"))
        return f'<div class="mono">$ {command}</div>{_fold(output, "output")}'
    if role == "system":
        return _system_html(message)
    return content_html(js_field(message, "content"))


def _system_html(message: object) -> str:
    parts = [content_html(js_field(message, "content"))]
    sections = js_field(message, "sections")
    if isinstance(sections, dict):
        for name, value in sections.items():
            body = "<i>(removed)</i>" if value is None else _fold(plain(value), "section")
            parts.append(f"<div><b>{esc(name)}</b>{body}</div>")
    for key, sign in (("toolsAdded", "+"), ("toolsRemoved", "-")):
        tools = js_field(message, key)
        if isinstance(tools, list) and tools:
            names = ", ".join(esc(js_field(t, "name") if isinstance(t, dict) else t) for t in tools)
            parts.append(f'<div class="mono">{sign} tools: {names}</div>')
    return "".join(parts)


#: Markdown's own characters in session text; and what a GitHub-flavoured renderer
#: would turn into a link by itself: the ``:`` of ``http://``, the ``.`` of ``www.``
#: (``@`` of an address is written as ``&#64;`` anyway).
_MD_SPECIAL = re.compile(r"[\\`*_\[\]|#!~]|(?<=[A-Za-z]):(?=//)|(?<=\b[Ww]{3})\.")


def html_text(value: object) -> str:
    """Session text for one line of HTML that Markdown passes through (a ``<summary>``):
    one line, escaped, ``@`` kept from mentioning anyone.

    >>> html_text("<b>a_b</b> @team")
    '&lt;b&gt;a_b&lt;/b&gt; &#64;team'
    """
    return _html_line(one_line(value, None))


def _html_line(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("@", "&#64;")


def md_cell(value: object) -> str:
    """Session text for one Markdown line or table cell: one line, HTML and Markdown
    characters escaped, ``@`` kept from mentioning anyone, no URL made a link.

    >>> md_cell("<b>hi</b> | *x* @team")
    '&lt;b&gt;hi&lt;/b&gt; \\\\| \\\\*x\\\\* &#64;team'
    >>> print(md_cell("https://x.org www.x.org"))
    https\\://x.org www\\.x.org
    """
    return _html_line(_MD_SPECIAL.sub(lambda m: "\\" + m.group(), one_line(value, None)))


def fence(text: object, info: str = "text", limit: int | None = MARKDOWN_CHARS) -> str:
    """Text in a code fence longer than any run of backticks inside it (cut to
    ``limit`` characters).

    >>> print(fence("a ``` b"))
    ````text
    a ``` b
    ````
    """
    body = strip_unsafe(text if limit is None else capped(plain(text), limit))
    runs = [len(m) for m in re.findall(r"`+", body)]
    ticks = "`" * max(3, max(runs, default=0) + 1)
    return f"{ticks}{info}\n{body}\n{ticks}"


def _details(summary: str, body: str) -> str:
    """``body`` folded under ``summary``, which is HTML (``html_text`` for session text)."""
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


def message_plain(message: object) -> str:
    """A context message's full text for Markdown (blocks one after another):
    ``pisession.message_text`` in the ``FULL`` mode.

    >>> message_plain({"role": "assistant", "content": [{"type": "text", "text": "ok"},
    ...     {"type": "toolCall", "name": "read", "arguments": {"path": "a"}}]})
    'ok\\n[call] read {"path":"a"}'
    """
    return message_text(message, FULL)


def _blocks_plain(parts: list[str], content: object) -> str:
    """``parts``, then the text of each block of ``content`` (a string: one text block),
    the empty ones left out, one a line."""
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    for block in blocks:
        kind = js_field(block, "type")
        if kind == "text":
            parts.append(plain(js_field(block, "text")))
        elif kind == "thinking":
            parts.append("[thinking] " + plain(js_field(block, "thinking")))
        elif kind == "toolCall":
            arguments = js_field(block, "arguments")  # may be missing: Pi shows no text
            shown = "" if arguments is UNDEFINED else " " + dumps(arguments)
            parts.append(f"[call] {plain(js_field(block, 'name'))}{shown}")
        elif kind == "image":
            parts.append(f"[picture: {_size(block)}]")
        else:
            parts.append(plain(block))
    return "\n".join(p for p in parts if p)


#: ``message_plain``'s mode: a message's whole text, a block a line.
FULL: TextMode[str] = TextMode(
    summary=lambda m: plain(js_field(m, "summary")),
    bash=lambda m: f"$ {plain(js_field(m, 'command'))}\n{plain(js_field(m, 'output'))}",
    system=lambda m: _blocks_plain(_system_plain(m), js_field(m, "content")),
    content=lambda m: _blocks_plain([], js_field(m, "content")),
)


def _system_plain(message: object) -> list[str]:
    out = []
    sections = js_field(message, "sections")
    if isinstance(sections, dict):
        out += [f"[{k}] {'(removed)' if v is None else plain(v)}" for k, v in sections.items()]
    for key, sign in (("toolsAdded", "+"), ("toolsRemoved", "-")):
        tools = js_field(message, key)
        if isinstance(tools, list) and tools:
            out.append(f"{sign} tools: " + ", ".join(plain(js_field(t, "name")) for t in tools))
    return out
