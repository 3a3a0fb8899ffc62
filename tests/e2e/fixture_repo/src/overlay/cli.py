"""Command line front end that calls apply_overlay."""

from __future__ import annotations

import sys

from .core import Overlay, apply_overlay


def parse_pairs(argv: list[str]) -> dict[str, str]:
    pairs = {}
    for item in argv:
        key, _, value = item.partition("=")
        pairs[key] = value
    return pairs


def main(argv: list[str]) -> int:
    layer = Overlay("cli", parse_pairs(argv))
    merged = apply_overlay({"mode": "default"}, [layer])
    for key in sorted(merged):
        print(f"{key}={merged[key]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
