"""How one ``mishkan`` command runs another in a child process, as a user would."""

from __future__ import annotations

import os
import sys


def mishkan_argv(*args: str) -> list[str]:
    """argv that runs ``mishkan ARGS`` in a child as this process runs it, and
    imports nothing from the child's working directory (a repository a
    stranger wrote): ``-I``, then this package's own directory put first on
    sys.path, wherever it is installed (``-I`` alone would lose a user-site
    install; ``python -m`` would put the working directory first). ``-B`` when this
    process writes no bytecode (``-I`` ignores ``PYTHONDONTWRITEBYTECODE``), so a run
    from a source checkout leaves no ``__pycache__`` there."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = (
        "import sys;sys.path.insert(0,sys.argv.pop(1));"
        "from mishkan_core.cli import main;raise SystemExit(main(sys.argv[1:]))"
    )
    flags = ["-I", "-B"] if sys.dont_write_bytecode else ["-I"]
    return [sys.executable, *flags, "-c", code, here, *args]
