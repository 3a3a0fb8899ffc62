"""``python -I -m mishkan_core.ingest_lint``: the same as ``mishkan ingest-lint`` (``-I``:
nothing is imported from the working directory, which may be a stranger's repository)."""

from __future__ import annotations

import sys

from mishkan_core import cli

TYPE_CHECKING = False
if TYPE_CHECKING:  # (collections.abc: an import a one-file run need not pay)
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    return cli.main(["ingest-lint", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
