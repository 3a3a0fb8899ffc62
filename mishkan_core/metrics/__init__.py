"""The D-009 sprint-close conformance report (``mishkan metrics``).

Reads the hook's telemetry or Claude Code transcripts and computes the
nudge-respect ratio and the pre-Read consultation rate, with the counts behind
them, per agent and per session, and the ADR's verdict.

Modules: ``telemetry`` and ``transcripts`` read, ``aggregate`` counts,
``report`` builds the dictionary, ``fmt_text``/``fmt_markdown``/``fmt_json``/
``fmt_html`` render it, ``cli`` is the command line.
"""
