"""Commands over a folder of sessions (``pisession usage``, ``pisession search``), built
on the facade (``pisession.session``): each file is loaded as a ``Session``.
"""
