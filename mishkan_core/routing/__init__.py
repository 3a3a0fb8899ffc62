"""The D-008 routing matrix: ``routing check`` validates it against a harness,
``route`` answers which store a question goes to.

The matrix (``mishkan_core/data/routing_matrix.json`` or ``--matrix FILE``) is
checked on its own, then against whichever harness files are given. With
``--project DIR`` the harness is read the way Claude Code reads it: every
settings scope (managed, user, project, local), the project's, the user's and
the enabled plugins' agents, the agents' frontmatter hooks, ``.mcp.json``, and
the git hooks that refresh the graph (:mod:`mishkan_core.routing.harness`).
The hook's gate scope and trigger extensions are read from the hook itself
(``graphify_nudge.SCOPE_AGENTS`` and ``TRIGGER_EXTENSIONS``), never copied.
"""
