"""Run one subcommand module the way ``mishkan_core.cli`` does, in process."""

from __future__ import annotations

import importlib

import pytest

from mishkan_core.cli import _ArgumentParser


def run_cli(
    module: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """Return (exit code, stdout, stderr) of ``mishkan <module> argv``."""
    mod = importlib.import_module(module)
    parser = _ArgumentParser(prog=f"mishkan {module.rsplit('.', 1)[-1]}")
    mod.add_arguments(parser)
    capsys.readouterr()
    try:
        args = parser.parse_args(argv)
        code = int(mod.run(args))
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
