"""mishkan_core.metrics.files: regular files only, no links below the top, bounded lines."""

from __future__ import annotations

import os
import socket
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mishkan_core.metrics import files
from tests.metrics.helpers import no_hang


def _lines(data: bytes, limit: int, tmp_path: Path) -> tuple[list[bytes], files.Lines]:
    path = tmp_path / "f"
    path.write_bytes(data)
    reader = files.Lines(os.open(path, os.O_RDONLY), limit)
    return list(reader), reader


def _expected(data: bytes, limit: int) -> tuple[list[bytes], int, bytes | None]:
    *complete, last = data.split(b"\n")
    kept = [line for line in complete if len(line) <= limit]
    oversized = len(complete) - len(kept)
    if len(last) > limit:
        return kept, oversized + 1, None
    return kept, oversized, last


_line_bytes = st.one_of(
    st.binary(max_size=40),
    st.builds(
        lambda c, n: c * n, st.sampled_from([b"a", b"[", b"{", b" ", b"\0"]), st.integers(0, 90)
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_line_bytes, max_size=12),
    st.booleans(),
    st.integers(1, 64),
    st.integers(1, 17),
)
def test_lines_are_the_split_lines_within_the_limit(
    pieces: list[bytes], trailing_newline: bool, limit: int, chunk: int
) -> None:
    """Whatever the chunk boundaries: the complete lines within the limit,
    the longer ones counted, the last line without newline kept apart."""
    import tempfile

    data = b"\n".join(pieces) + (b"\n" if trailing_newline and pieces else b"")
    saved = files.CHUNK
    files.CHUNK = chunk
    try:
        with tempfile.TemporaryDirectory() as tmp:
            got, reader = _lines(data, limit, Path(tmp))
    finally:
        files.CHUNK = saved
    kept, oversized, tail = _expected(data, limit)
    assert got == kept
    assert reader.oversized == oversized
    assert reader.tail == tail
    assert reader.error is None


def _peak(data_path: Path, limit: int) -> tuple[int, files.Lines, int]:
    tracemalloc.start()
    try:
        reader = files.Lines(os.open(data_path, os.O_RDONLY), limit)
        count = sum(1 for _ in reader)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, reader, count


@pytest.mark.parametrize("newline", [False, True])
def test_a_sparse_gigabyte_is_one_oversized_line_in_flat_memory(
    tmp_path: Path, newline: bool
) -> None:
    """`truncate -s 1G d/a.jsonl` (issue 11 item 7): never held, never read whole."""
    path = tmp_path / "a.jsonl"
    with path.open("wb") as fh:
        fh.truncate(1 << 30)
    if newline:
        with path.open("ab") as fh:
            fh.write(b"\n")
    peak, reader, count = _peak(path, 1 << 20)
    assert count == 0 and reader.oversized == 1 and reader.tail == (b"" if newline else None)
    assert peak < 4 << 20, f"peak {peak} bytes"


def test_a_long_run_of_one_character_is_skipped_in_flat_memory(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    with path.open("wb") as fh:
        fh.write(b"ok\n")
        for _ in range(32):
            fh.write(b"a" * (1 << 20))
        fh.write(b"\nok\n")
    peak, reader, count = _peak(path, 1 << 20)
    assert count == 2 and reader.oversized == 1
    assert peak < 4 << 20, f"peak {peak} bytes"


def _dir_fd(path: Path) -> int:
    return files.open_top(str(path))


def test_only_regular_files_are_opened_and_nothing_blocks(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x\n")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "file")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "tty").symlink_to("/dev/tty")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    top = _dir_fd(tmp_path)
    try:
        with no_hang():
            fd = files.open_regular("file", top)
            assert fd is not None
            os.close(fd)
            for name in ("fifo", "dir", "link", "dangling", "tty", "sock"):
                assert files.open_regular(name, top) is None, name
            with pytest.raises(FileNotFoundError):
                files.open_regular("missing", top)
            assert files.read_small("fifo", top, 100) is None
            assert files.read_small("link", top, 100) is None
            assert files.read_small("file", top, 100) == b"x\n"
            assert files.read_small("file", top, 1) is None  # over its bound
    finally:
        os.close(top)
        sock.close()


def test_no_link_is_followed_below_the_top_but_the_top_may_be_one(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (real / "out").symlink_to(tmp_path / "outside")
    (tmp_path / "top-link").symlink_to(real)
    top = files.open_top(str(tmp_path / "top-link"))  # the user's own choice
    try:
        sub = files.open_subdir("sub", top)
        assert sub is not None
        os.close(sub)
        assert files.open_subdir("out", top) is None
        assert files.open_subdir("missing", top) is None
    finally:
        os.close(top)
    with pytest.raises(NotADirectoryError):
        (tmp_path / "f").write_text("")
        files.open_top(str(tmp_path / "f"))
