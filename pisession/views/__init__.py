"""Views: what a reader sees of a session, as text, terminal output, HTML, pictures and
widgets. Views read the engine's answers (``pisession.engine``) and never decide a rule.
"""
