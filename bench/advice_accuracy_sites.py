"""Checking a cited line against the source: does it name what it is cited for?

An advisory's use sites (`Use:`, `Importer:`) are judged by the name on the
cited line, of the file at the project's commit (`git show COMMIT:PATH`, so an
edit made after the commit changes nothing): the name must stand there as a
word, not as part of a longer identifier (`get` is not on a line that only
says `get_terminal_size` or `key?`). docs/advice_accuracy.md, "Use sites".
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from bench.advice_accuracy_defs import source_lines

# What may continue an identifier, in the bench's languages: `$` (JS, PHP),
# Ruby's `?`/`!` suffixes (so `key` is not named by `key?`).
_WORD_CHAR = r"A-Za-z0-9_$"
# Constructors are called by their class's name: `Option(...)`, `new Foo(`,
# `Foo.new`, `Foo::new` (Rust's `new` is a plain name and needs no entry).
CONSTRUCTORS = frozenset({"__init__", "__new__", "constructor", "initialize", "__construct"})
# A file whose module is its directory: `pkg/__init__.py` is imported as `pkg`.
_PACKAGE_FILES = frozenset({"__init__", "index", "mod", "lib", "main"})


def names(text: str, name: str) -> bool:
    """`name` stands on `text` as a word (a PHP property `$x` also as `->x`)."""
    bare = name[1:] if name.startswith("$") and len(name) > 1 else name
    for word in {name, bare}:
        tail = "" if word.endswith(("?", "!")) else "?!"
        pattern = rf"(?<![{_WORD_CHAR}]){re.escape(word)}(?![{_WORD_CHAR}{tail}])"
        if re.search(pattern, text):
            return True
    return False


def module_names(path: str) -> tuple[str, ...]:
    """The names an import of the file `path` is written with: its stem
    (`sender` for `lib/sender.js`, `Logger` for `src/Monolog/Logger.php`), and
    its directory's name for a package file (`click` for `src/click/__init__.py`)."""
    parts = path.split("/")
    stem = parts[-1].split(".", 1)[0]
    out = [stem]
    if stem in _PACKAGE_FILES and len(parts) > 1:
        out.append(parts[-2])
    return tuple(out)


class SourceAt:
    """The project's files at one commit, read once each, by line (numbered as
    `grep -n` and graphify number them: `source_lines`)."""

    def __init__(self, root: Path, commit: str) -> None:
        self.root = root
        self.commit = commit
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self._lines[path] = self._read(path)
        return self._lines[path]

    def _read(self, path: str) -> list[str] | None:
        if not path or path.startswith(("/", "-")) or ".." in path.split("/"):
            return None
        try:
            done = subprocess.run(
                ["git", "-C", str(self.root), "show", f"{self.commit}:{path}"],
                capture_output=True,
                check=False,
                timeout=60,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode != 0:
            return None
        return source_lines(done.stdout.decode(errors="replace"))

    def line(self, path: str, number: int) -> str | None:
        """Line `number` (1-based) of `path` at the commit, or None when there is none."""
        text = self.lines(path)
        if text is None or not 1 <= number <= len(text):
            return None
        return text[number - 1]

    def names_at(self, path: str, number: int, *candidates: str) -> bool:
        """The cited line exists and names one of `candidates` as a word."""
        text = self.line(path, number)
        return text is not None and any(names(text, c) for c in candidates if c)
