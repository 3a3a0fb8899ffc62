"""mishkan-core: D-008/D-009 tooling for the MISHKAN harness.

One module (or subpackage) per job: ``routing``, ``ingest_lint``, ``metrics``,
``install``; ``cli`` only parses arguments and dispatches. The hook itself is
the standalone ``graphify_nudge`` module, which never imports this package.
"""

__version__ = "0.1.0"
