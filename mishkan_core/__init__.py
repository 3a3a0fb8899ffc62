"""mishkan-core: D-008/D-009 tooling for the MISHKAN harness.

One module (or subpackage) per job: ``routing``, ``ingest_lint``, ``metrics``,
``install``; ``cli`` only parses arguments and dispatches. The hook itself is
the standalone ``graphify_nudge`` module, which never imports this package.
"""

import sys as _sys

__version__ = "0.1.0"


def _no_imports_from_the_working_directory() -> None:
    """`python -m mishkan_core ...` puts the working directory first on
    sys.path, and the commands run inside repositories strangers wrote: a
    `json.py` or `graphify_nudge.py` there would be imported instead of ours.
    Drop that entry before anything else is imported, unless this package was
    found there (a source checkout). The documented form, `python -I -m`,
    never adds it: only that also keeps the repository's own `mishkan_core/`
    from being the package run (docs/threat_model.md)."""
    import os  # loaded at start-up already, so never the working directory's

    if _sys.argv[:1] != ["-m"] or not _sys.path:
        return
    first = os.path.abspath(_sys.path[0] or os.curdir)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if first == os.path.abspath(os.getcwd()) and first != here:
        del _sys.path[0]


_no_imports_from_the_working_directory()
