"""``mishkan metrics``: the D-009 sprint-close conformance report.

Reads the hook's telemetry (``--telemetry-dir``, default the hook's own
directory) or Claude Code transcripts (``--from-transcripts``) and prints the
nudge-respect ratio and the pre-Read consultation rate, with the counts behind
them, per agent and per session, and the ADR's verdict.

Modules: ``telemetry`` and ``transcripts`` read, ``aggregate`` counts,
``report`` builds the dictionary, ``fmt_text``/``fmt_markdown``/``fmt_json``/
``fmt_html`` render it.

Exit codes: 0 a report was printed (whatever it says: neither number is a
gate); 2 usage error or unusable input: the directory is missing, not a
directory or unreadable, or not one valid event (telemetry) / no transcript
(backfill) could be read from it. Damaged lines are counted, never fatal.
"""
