"""The fast engine: the same answers as ``pisession.rule``, for files of any size.

- ``context``: the index (one column per field the rule reads) and the rule's steps
  over it (path, settings, selection, edits, projection);
- ``reader``: chunked reading of a file into the index, decoding only what is selected;
- ``opening``: the rest of ``load`` (the header checked, a legacy file migrated in memory,
  the index made) and ``SessionFile``, the file as read, which a ``pisession.Session``
  holds;
- ``shapes``, ``stream``: the context written as JSON a block at a time;
- ``stats``: Pi's ``/session`` statistics counted over the index;
- ``parallel``: the helper process for the second half of a big file.

The tests compare every answer with ``pisession.rule`` (tests/test_projection_reference.py).
"""
