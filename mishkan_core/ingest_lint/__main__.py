"""``python -m mishkan_core.ingest_lint PATH...``: the subcommand without the umbrella CLI."""

from __future__ import annotations

import argparse
import sys

from mishkan_core.ingest_lint import add_arguments, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="mishkan ingest-lint", description="reject AST-shaped content bound for Cognee work"
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
