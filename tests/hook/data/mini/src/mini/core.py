"""Names defined once, twice in one file, across files, and differing only in case."""

from __future__ import annotations

import shutil


class Option:
    """A command line option."""

    def __init__(self, name: str) -> None:
        self.name = name

    def parse(self, text: str) -> str:
        return text.strip()


class Reader:
    def parse(self, text: str) -> list[str]:
        return text.split()


def option(name: str) -> Option:
    return Option(name)


def parse(text: str) -> list[str]:
    return Reader().parse(text)


def echo(text: str) -> None:
    print(text, shutil.get_terminal_size().columns)


class Stream:
    def _echo(self, text: str) -> str:
        return text


def apply_overlay(base: dict[str, str], layer: dict[str, str]) -> dict[str, str]:
    merged = dict(base)
    merged.update(layer)
    return merged
