"""``python -m mishkan_core.metrics``: the same as ``mishkan metrics``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mishkan_core.metrics import add_arguments, run


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="mishkan metrics", description=__doc__)
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
