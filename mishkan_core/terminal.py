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
import re
from typing import TextIO

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def escape(text: str) -> str:
    """``text`` with everything that could control a terminal made visible."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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
