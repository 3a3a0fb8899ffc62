"""IL502 bulk-source."""

from __future__ import annotations

from tests.ingest_lint.helpers import PROSE, fence, hits, intro

PY = '''
import hashlib
import hmac


class Signer:
    """Signs values."""

    def __init__(self, key: bytes, salt: bytes = b"signer") -> None:
        self.key = key
        self.salt = salt

    def derive(self) -> bytes:
        mac = hmac.new(self.key, digestmod=hashlib.sha256)
        mac.update(self.salt)
        return mac.digest()

    def sign(self, value: bytes) -> bytes:
        sig = hmac.new(self.derive(), value, hashlib.sha256).hexdigest()
        return value + b"." + sig.encode()

    def verify(self, signed: bytes) -> bool:
        value, _, sig = signed.rpartition(b".")
        return hmac.compare_digest(self.sign(value), signed)
'''

GO = """
package flags

import "fmt"

type Flag struct {
\tName  string
\tUsage string
}

func (f *Flag) String() string {
\treturn fmt.Sprintf("%s: %s", f.Name, f.Usage)
}
"""


def test_pasted_source_file_fires() -> None:
    found = hits("IL502", intro("Signer implementation, for reference.") + fence(PY * 3, "python"))
    assert len(found) == 1
    assert "are code" in found[0].message


def test_learning_that_is_mostly_pasted_code_fires() -> None:
    bullets = "\n".join(f"- lesson {i}: keep a strong reference to receivers" for i in range(6))
    assert hits(
        "IL502", intro() + bullets + "\n\nThe relevant code:\n\n" + fence(PY * 3 + GO * 3, "python")
    )


def test_unfenced_source_fires() -> None:
    assert hits("IL502", "# core\n\n" + PY * 3)


def test_several_files_in_several_blocks_fire() -> None:
    body = (
        intro()
        + fence(PY, "python")
        + "and the Go side:\n\n"
        + fence(GO * 2, "go")
        + fence(PY, "python")
    )
    assert hits("IL502", body)


def test_design_doc_with_snippets_passes() -> None:
    body = PROSE * 4 + fence(PY[:300], "python") + PROSE * 4 + fence(GO, "go") + PROSE * 4
    assert not hits("IL502", body)


def test_runbook_of_cli_commands_passes() -> None:
    steps = "".join(
        f"Step {i}: check the node, then drain it if the disk is still filling up.\n\n"
        + fence(
            f"kubectl get node worker-{i} -o wide\nkubectl drain worker-{i} --ignore-daemonsets",
            "bash",
        )
        for i in range(8)
    )
    assert not hits("IL502", intro() + steps)


RUBY = "".join(
    f"    # Returns the {name} header.\n    def {name}\n      @{name} ||= fetch('{name}')\n"
    "      super\n    end\n\n"
    for name in ("host", "port", "path", "query", "scheme", "user", "agent", "referer", "ip")
)


def test_ruby_in_an_unlabelled_fence_fires() -> None:
    assert hits("IL502", intro() + fence("module App\n  class Req\n" + RUBY + "  end\nend"))


def test_api_doc_of_many_short_snippets_passes() -> None:
    snippet = "const ch = diagnostics.channel('undici:request')\nch.subscribe((m) => log(m))\n"
    body = "".join(
        f"Step {i}: subscribe to the channel.\n\n" + fence(snippet * 2, "js") for i in range(20)
    )
    assert not hits("IL502", "# Channels\n\n" + body)


def test_spec_with_a_json_example_passes() -> None:
    record = '  {"name": "pkg", "requested": true, "url": "https://example.org/p.whl"},\n'
    body = PROSE + fence("[\n" + record * 60 + "]", "json") + PROSE
    assert not hits("IL502", body)


def test_stack_frames_in_a_console_block_are_not_code() -> None:
    frames = "\n".join(
        f"==41==    by 0x{0x12F2279 + i:X}: run (in /usr/bin/node)" for i in range(60)
    )
    assert not hits("IL502", PROSE + fence(frames, "console") + PROSE)
