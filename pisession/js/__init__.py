"""JavaScript semantics that Pi's code relies on, in Python: the lowest layer.

- ``value``: property reads, truthiness, ``String(x)``, ``==``/``===``, ``Map`` keys;
- ``json``: ``JSON.parse`` and ``JSON.stringify``, byte for byte;
- ``date``: V8's ``Date`` parsing and ``toISOString``;
- ``path``: Node's ``path`` module (``resolve``, ``normalize``) for session folders.

Nothing here knows about sessions; everything above imports from here.
"""
