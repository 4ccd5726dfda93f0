"""The style sheet of an exported page (``pisession export``): one ``<style>`` block, no
file loaded (the page's Content-Security-Policy forbids it), a colour per fate.

>>> page_css().lstrip().startswith(".pe{font:")
True
"""

from __future__ import annotations

from .provenance import FATES


def page_css() -> str:
    """The exported page's style sheet: its layout, then a colour per fate (``FATES``).

    >>> ".pe .f-sent{" in page_css()
    True
    """
    fates = "".join(
        f".pe .f-{k.name}{{background:{k.colour};color:{k.ink}}}"
        f".pe .m-{k.name}{{border-left-color:{k.colour}}}"
        for k in FATES
    )
    return _CSS + fates


_CSS = """
.pe{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;
max-width:60rem;margin:0 auto;padding:0 .8rem 3rem}
.pe h1{font-size:1.5rem;margin:1rem 0 .2rem;overflow-wrap:anywhere}
.pe h2{font-size:1.2rem;margin:2rem 0 .5rem;border-bottom:1px solid #ccc}
.pe code,.pe pre,.pe .mono{font-family:ui-monospace,"SF Mono",Menlo,Consolas,monospace;
font-size:13px}
.pe pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3rem 0;background:#f6f6f6;
padding:.4rem .6rem;border-radius:4px}
.pe dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.5rem 0}
.pe dt{font-weight:600}.pe dd{margin:0;overflow-wrap:anywhere}
.pe .chip{border-radius:3px;padding:0 .3rem;border:1px solid rgba(0,0,0,.25);
white-space:nowrap;font-size:12px;print-color-adjust:exact;-webkit-print-color-adjust:exact}
.pe .legend .chip{margin-right:.3rem;display:inline-block;margin-bottom:.2rem}
.pe .tree{overflow-x:auto;background:#fafafa;border:1px solid #e4e4e4;border-radius:4px;
padding:.4rem .6rem;line-height:1.35;white-space:pre}
.pe .tree .n{color:#777}.pe .tree .off{color:#777}.pe .tree .leaf{font-weight:700}
.pe .gap{color:#666;font-style:italic}
.pe .msg{border-left:5px solid #ccc;padding:.2rem .6rem;margin:.6rem 0;
break-inside:avoid;page-break-inside:avoid}
.pe .msg header{font-size:13px;color:#444}.pe .msg header b{color:#000}
.pe .band{margin:1rem 0 .4rem;padding:.3rem .6rem;background:#eaf4fb;border-radius:4px;
font-size:14px}
.pe .edit{display:grid;grid-template-columns:1fr 1fr;gap:.6rem}
.pe .edit>div{min-width:0}.pe .was{opacity:.75}
@media (max-width:40rem){.pe .edit{grid-template-columns:1fr}.pe{font-size:14px}}
.pe table{border-collapse:collapse;width:100%;font-size:13px}
.pe td,.pe th{text-align:left;vertical-align:top;padding:.15rem .4rem;
border-bottom:1px solid #eee;overflow-wrap:anywhere}
.pe td.num,.pe th.num{text-align:right;white-space:nowrap}
.pe td.key{white-space:nowrap;overflow-wrap:normal}.pe td.key b{white-space:normal}
.pe td.why{min-width:12rem}
@media (max-width:40rem){.pe table.entries,.pe .entries tbody{display:block}
.pe .entries thead{display:none}.pe .entries tr{display:flex;flex-wrap:wrap;
border-bottom:1px solid #eee}.pe .entries td{border:0}
.pe .entries td.why,.pe .entries td.gap{flex-basis:100%;min-width:0;padding-left:2.2rem}}
.pe .scroll{overflow-x:auto}
.pe img{max-width:100%;height:auto;border:1px solid #ddd}
.pe footer{margin-top:2rem;color:#666;font-size:12px}
.pe summary{cursor:pointer}
@media print{.pe{max-width:none;font-size:11pt}.pe nav{display:none}
.pe .tree{white-space:pre-wrap}.pe h2{break-after:avoid}}
"""
