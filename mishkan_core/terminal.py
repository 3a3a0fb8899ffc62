"""What the ``mishkan`` commands print is safe for a terminal.

They print text from the repository they check: hook commands from settings,
session ids from telemetry, file names, the lines of an ``install --dry-run``
diff. Raw, that text can drive the terminal: ``ESC ] 52`` writes the
clipboard, ``ESC [ 2K`` and ``CR`` erase a line and print a fake "routing
check: clean" over it, bidirectional overrides reorder what is shown. So
:func:`main <mishkan_core.cli.main>` wraps ``sys.stdout`` and ``sys.stderr``
in :class:`EscapingStream`: every string any command writes passes through
:func:`escape`, one function for every command, whatever the code path.

:func:`escape` keeps newlines and tabs (the layout of reports and diffs) and
writes every other C0 control, DEL, the C1 controls, the bidirectional
controls and lone surrogates (a file name that is not UTF-8) as ``\\uXXXX``.
That is also a JSON escape, so ``--format json`` output stays valid JSON with
the same values.
"""

from __future__ import annotations

import io

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import TextIO

_UNSAFE_CLASS = (
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_UNSAFE: list[re.Pattern[str]] = []
#: the ASCII characters _UNSAFE_CLASS lets through: tab, newline, and the printable ones
_SAFE_ASCII = bytes([9, 10, *range(0x20, 0x7F)])


def _unsafe() -> re.Pattern[str]:
    """The pattern, compiled on first use: a command whose output is plain ASCII (a
    one-file ``mishkan ingest-lint``, run on every commit) never imports ``re`` or
    ``typing`` for it (issue 24's start-up bar)."""
    if not _UNSAFE:
        import re

        _UNSAFE.append(re.compile(_UNSAFE_CLASS))
    return _UNSAFE[0]


def escape(text: str) -> str:
    """``text`` with everything that could control a terminal made visible."""
    # ASCII text is safe when nothing is left once its safe bytes are deleted (in C)
    if text.isascii() and not text.encode("ascii").translate(None, _SAFE_ASCII):
        return text
    unsafe = _unsafe()
    if unsafe.search(text) is None:
        return text
    return unsafe.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class EscapingStream(io.TextIOBase):
    """A text stream that writes :func:`escape` of whatever it is given."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(escape(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding
