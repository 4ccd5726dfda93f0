"""A session as one file to share: a self-contained HTML page (for a browser, a phone or
a printer) or Markdown (to paste into an issue).

What it shows, for one leaf: the entry tree coloured by fate; the context exactly as
the model saw it (the system prompt replayed, the compaction summary in place, the kept
range marked, context edits applied with the original beside them); usage and cost;
and every entry with its fate and reason. Everything is read off the rule's outputs
(``Session.fates``, ``context.contributions``); nothing here decides what reaches the
model.

Three modules, by concern: ``export_page`` (what an export shows of a leaf,
``Export``, and the HTML page, built a piece at a time), ``export_markdown`` (the
Markdown file) and ``export_text`` (session text made safe: escaped, folded, fenced).
This module gathers their public names.

The page is self-contained: inline CSS, pictures as ``data:`` URIs, no script, no font
or stylesheet to fetch, and a Content-Security-Policy that forbids any request. All
session text is stripped of terminal escapes and bidirectional controls
(``text.strip_unsafe``) and HTML-escaped; Markdown puts it in code fences longer than
any backtick run it holds. Long sessions stay small: runs of entries are collapsed as
``pisession explain`` collapses them, and a long context shows its first and last
``limit`` messages.

>>> import pisession
>>> page = export_html(pisession.load(pisession.sample_path("tour")))
>>> page.startswith("<!DOCTYPE html>") and "<script" not in page
True
"""

from __future__ import annotations

from .export_markdown import export_markdown
from .export_page import (
    CSP,
    ISSUE_CHARS,
    LIMITS,
    Export,
    Shown,
    context_html,
    entries_html,
    export_html,
    export_html_chunks,
    fragment_chunks,
    html_fragment,
    shown_context,
    summary_html,
    tree_items,
    tree_lines,
    tree_section,
    usage_html,
)
from .export_text import (
    FOLD_CHARS,
    FOLD_LINES,
    HTML_CHARS,
    IMAGE_BYTES,
    IMAGE_TYPES,
    MARKDOWN_CHARS,
    capped,
    chip,
    content_html,
    esc,
    fence,
    html_text,
    image_uri,
    md_cell,
    message_html,
    message_plain,
)
from .export_usage import usage_rows
from .tree_text import TREE_BLOCK

__all__ = [
    "CSP",
    "FOLD_CHARS",
    "FOLD_LINES",
    "HTML_CHARS",
    "IMAGE_BYTES",
    "IMAGE_TYPES",
    "ISSUE_CHARS",
    "LIMITS",
    "MARKDOWN_CHARS",
    "TREE_BLOCK",
    "Export",
    "Shown",
    "capped",
    "chip",
    "content_html",
    "context_html",
    "entries_html",
    "esc",
    "export_html",
    "export_html_chunks",
    "export_markdown",
    "fence",
    "fragment_chunks",
    "html_fragment",
    "html_text",
    "image_uri",
    "md_cell",
    "message_html",
    "message_plain",
    "shown_context",
    "summary_html",
    "tree_items",
    "tree_lines",
    "tree_section",
    "usage_html",
    "usage_rows",
]
