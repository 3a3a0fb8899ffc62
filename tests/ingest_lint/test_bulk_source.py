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
