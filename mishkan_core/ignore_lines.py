"""Lines ``mishkan install`` adds to an ignore file, and takes back exactly.

Two files take the same treatment: ``.gitignore`` (D-008's artifacts are not
committed) and ``.graphifyignore`` (the hook's own files are not the
project's code, so graphify leaves them out of the graph). A line is added
only when no line already says the same; the file's newline style is kept;
uninstall removes the recorded lines, and the newline it had to add before
them, and nothing else.
"""

from __future__ import annotations

import re

#: characters a pattern cannot carry literally for both git (wildmatch) and
#: graphify (fnmatch, which has no backslash escape): written as [c]
_GLOB = re.compile(r"([*?\[])")


def covered(lines: list[str], entry: str) -> bool:
    """A line already ignores what ``entry`` ignores. A directory entry
    (``.graphify/``) is met by its bare form too; a bare entry (the link
    ``graphify-out``) only by a bare form: git sees a symlink as a file, which
    ``graphify-out/`` does not match."""
    bare = entry.strip("/")
    forms = {bare, f"/{bare}"}
    if entry.endswith("/"):
        forms |= {f"{bare}/", f"/{bare}/"}
    return any(line.strip() in forms for line in lines)


def add(old: bytes | None, entries: tuple[str, ...]) -> tuple[bytes, list[str], bool]:
    """The new file, the lines added, and whether the old last line needed a
    newline first (uninstall takes that back too)."""
    text = (old or b"").decode("utf-8", "surrogateescape")
    lines = text.splitlines()
    added = [entry for entry in entries if not covered(lines, entry)]
    if not added:
        return old if old is not None else b"", [], False
    newline = "\r\n" if "\r\n" in text else "\n"
    terminated = bool(text) and not text.endswith(("\n", "\r"))
    if terminated:
        text += newline
    text += "".join(entry + newline for entry in added)
    return text.encode("utf-8", "surrogateescape"), added, terminated


def remove(old: bytes, added: list[str], terminated: bool) -> bytes:
    """``old`` without the lines install added (the last copy of each)."""
    lines = old.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    for entry in added:
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].rstrip("\r\n") == entry:
                del lines[i]
                break
    text = "".join(lines)
    if terminated and lines and len(lines[-1].rstrip("\r\n")) < len(lines[-1]):
        text = text[: len(text) - (len(lines[-1]) - len(lines[-1].rstrip("\r\n")))]
    return text.encode("utf-8", "surrogateescape")


def anchored(path: str) -> str | None:
    """An ignore line for exactly the project-relative ``path`` (``/``-separated)
    that git and every supported graphify read the same way, or None when no
    such line exists (a newline, a backslash, a space at either end or
    before a ``#``: graphify's parser strips them or reads a comment)."""
    if not path or any(c in path for c in "\n\r\\") or path != path.strip():
        return None
    if re.search(r"\s#", path):
        return None
    return "/" + _GLOB.sub(r"[\1]", path)
