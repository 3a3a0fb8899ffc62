"""graphify's releases (graphify_nudge_index, section 5) and the dialect of the advice.

The table's values are measured by bench/graphify_versions.py and proven with
the real releases in tests/e2e (test_e2e_advice.py, test_e2e_freshness.py);
here: its reading, the release read from a distribution's metadata, the
explain arguments chosen for a release without `path::name` (on a graph the
real graphify 0.8.31 built), and what the hook says when it has no index hit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import graphify_nudge
import graphify_nudge_index as gi
from tests.graphify_layout import dist_info
from tests.graphify_layout import script as make_script

DATA = Path(__file__).resolve().parent / "data"
#: built by the real graphify 0.8.31 (`graphify update .`) from data/mini;
#: tests/e2e/test_e2e_advice.py checks it is what that release builds
MINI_OLD = DATA / "mini-0.8.31.graph.json"
MINI_NEW = DATA / "mini.graph.json"  # graphify 0.9.96's
MINI = DATA / "mini"  # the project both graphs are of


# -- the table ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["", " 0.9.96", "0.9.96rc1", "0.9", "1.2.3.4.5", "9" * 40, "0.9.-1", "\u0660.\u0669", None, 96],
)
def test_a_version_is_one_to_four_plain_numbers(text: object) -> None:
    assert gi.version_tuple(text) == (None if text != "0.9" else (0, 9))


def test_the_oldest_release_accepts_nothing_the_newest_accepts_all() -> None:
    assert gi.capabilities(gi.GRAPHIFY_OLDEST) == frozenset()
    assert gi.capabilities(gi.GRAPHIFY_NEWEST) == frozenset(gi.GRAPHIFY_SINCE)
    # an unknown or hostile version never selects anything but the newest's templates
    for unknown in (None, "", "latest", "0.9.96; rm -rf /"):
        assert gi.capabilities(unknown) == gi.capabilities(gi.GRAPHIFY_NEWEST)


def test_each_capability_holds_from_its_first_release_on() -> None:
    for name, since in gi.GRAPHIFY_SINCE.items():
        first = gi.version_tuple(since)
        assert first is not None
        before = ".".join(map(str, (*first[:-1], first[-1] - 1))) if first[-1] else "0.8.31"
        assert name in gi.capabilities(since)
        assert name in gi.capabilities(gi.GRAPHIFY_NEWEST)
        if gi.version_tuple(before) != first:
            assert name not in gi.capabilities(before), (name, before)


def test_the_supported_range() -> None:
    assert gi.is_supported(gi.GRAPHIFY_OLDEST) and gi.is_supported(gi.GRAPHIFY_NEWEST)
    assert gi.is_supported("0.8.30") is False and gi.is_supported("0.9.97") is False
    assert gi.is_supported("1.0") is False and gi.is_supported("nope") is None


# -- the release of a `graphify` on PATH, from its metadata ---------------------------------


def test_a_venv_script(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    dist_info(venv / "lib" / "python3.11" / "site-packages", "0.8.31")
    script = make_script(venv / "bin" / "graphify", str(venv / "bin" / "python3.11"))
    assert gi.graphify_version_of(str(script)) == "0.8.31"
    assert gi.graphify_release(f"{tmp_path}/nothing::{venv / 'bin'}") == (str(script), "0.8.31")


def test_a_pipx_or_uv_link_is_followed_to_its_venv(tmp_path: Path) -> None:
    venv = tmp_path / "pipx" / "venvs" / "graphifyy"
    dist_info(venv / "lib" / "python3.12" / "site-packages", "0.9.96")
    real = make_script(venv / "bin" / "graphify", str(venv / "bin" / "python"))
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "graphify").symlink_to(real)
    assert gi.graphify_version_of(str(tmp_path / "bin" / "graphify")) == "0.9.96"


def test_pip_user_with_two_pythons_takes_the_shebangs(tmp_path: Path) -> None:
    local = tmp_path / ".local"
    dist_info(local / "lib" / "python3.10" / "site-packages", "0.8.31")
    dist_info(local / "lib" / "python3.11" / "site-packages", "0.9.96")
    script = make_script(local / "bin" / "graphify", "/usr/bin/python3.11")
    assert gi.graphify_version_of(str(script)) == "0.9.96"
    plain = make_script(local / "bin" / "graphify2", "/usr/bin/env python3")
    assert gi.graphify_version_of(str(plain)) is None  # two releases, no way to tell


@pytest.mark.parametrize(
    "make",
    ["no dist-info", "another distribution", "a hostile version", "a FIFO as the script"],
)
def test_no_release_is_guessed(tmp_path: Path, make: str) -> None:
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    if make == "another distribution":
        dist_info(site, "0.9.96", name="graphify")
    elif make == "a hostile version":
        dist_info(site, "0.9.96`; touch pwned`")
    script = venv / "bin" / "graphify"
    if make == "a FIFO as the script":
        script.parent.mkdir()
        os.mkfifo(script)
    else:
        make_script(script, str(venv / "bin" / "python"))
    assert gi.graphify_version_of(str(script)) is None  # a FIFO never blocks: O_NONBLOCK


def test_path_lookup_skips_what_a_shell_would_not_run(tmp_path: Path) -> None:
    (tmp_path / "dir" / "graphify").mkdir(parents=True)
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "graphify").write_text("#!/bin/sh\n")  # not executable
    good = make_script(tmp_path / "good" / "graphify", "/usr/bin/python3")
    path = f":{tmp_path / 'dir'}:{plain}:{good.parent}"
    assert gi.find_graphify_script(path) == str(good)
    assert gi.find_graphify_script("") is None and gi.find_graphify_script(None) is None


def test_the_dialect_comes_from_path_then_the_graph_then_the_oldest(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    dist_info(venv / "lib" / "python3.11" / "site-packages", "0.9.50")
    make_script(venv / "bin" / "graphify", str(venv / "bin" / "python"))
    assert gi.graphify_dialect(str(venv / "bin"), "0.9.96") == "0.9.50"
    assert gi.graphify_dialect(None, "0.9.96") == "0.9.96"
    # no release recorded (0.8.31 records none) or a hostile one: the oldest's rules,
    # whose choices resolve on every supported release
    for recorded in (None, "", "0.9.96\tx", ["0.9.96"]):
        assert gi.graphify_dialect(None, recorded) == gi.GRAPHIFY_OLDEST


# -- the explain arguments of a release without `path::name` ---------------------------------


def _lines(graph: Path, version: str) -> dict[str, Any]:
    """key -> a file's explain argument, or a name's definition rows."""
    nodes, links, _ = gi._load_graph(str(graph))
    out: dict[str, Any] = {}
    lines = gi._index_lines(nodes, links, str(graph), gi.capabilities(version), root=str(MINI))
    for line in lines:
        kind, key, payload = line.decode().split("\t", 2)
        out[f"{kind}:{key}"] = json.loads(payload)[0 if kind == "f" else 1]
    return out


def test_on_0_8_31_a_unique_bare_name_else_the_node_id_never_path_forms() -> None:
    lines = _lines(MINI_OLD, "0.8.31")
    args = {key: [row[3] for row in rows] for key, rows in lines.items() if key[0] == "s"}
    assert args["s:apply_overlay"] == ["apply_overlay"]  # one node of that name
    assert args["s:echo"] == ["mini_core_echo"]  # `_echo` shares its tokens on 0.9.96
    assert args["s:parse"] == [  # the one with a recorded use first
        "mini_core_parse", "mini_core_option_parse", "mini_core_reader_parse",
        "mini_other_parse", "web_schema_schema_parse",
    ]  # fmt: skip
    assert lines["f:src/mini/core.py"] == "mini_core"  # 0.8.31's explain takes no path
    # 0.8.31 keeps the `str` and `int` of the annotations as nodes at the referring
    # lines, with only `references` edges into them: they define nothing
    assert "s:str" not in lines and "s:int" not in lines
    assert not [a for rows in args.values() for a in rows if "::" in a or "/" in a]


def test_the_newest_release_keeps_its_path_forms() -> None:
    lines = _lines(MINI_NEW, gi.GRAPHIFY_NEWEST)
    assert lines["f:src/mini/core.py"] == "src/mini/core.py"
    assert lines["s:apply_overlay"][0][3] == "src/mini/core.py::apply_overlay"


def test_a_name_that_reads_as_a_file_path_is_never_chosen(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_text("\n\ndef pkg_core_py():\n")
    nodes: list[dict[str, Any]] = [
        {"id": "pkg_core", "label": "core.py", "source_file": "pkg/core.py",
         "source_location": "L1", "file_type": "code"},
        {"id": "pkg_core_py", "label": "pkg_core_py()", "source_file": "pkg/core.py",
         "source_location": "L3", "file_type": "code"},
    ]  # fmt: skip
    built = gi._index_lines(nodes, [], "", gi.capabilities("0.8.31"), root=str(tmp_path))
    (line,) = [line.decode() for line in built if line.startswith(b"s\tpkg_core_py")]
    # `pkg_core_py` is also the tokens of the path pkg/core.py: the source tier would
    # win, so no explain argument is chosen (the answer has no `More:` command)
    assert json.loads(line.split("\t", 2)[2])[1][0][3] is None


# -- the hook: the absent graph's advice, the index header ---------------------------------


def _graph(state: str = "fresh") -> graphify_nudge.Graph:
    graph = graphify_nudge.Graph()
    graph.state, graph.head, graph.path = state, "a" * 40, "/p/.graphify/graph.json"
    return graph


def _read(target: str = "src/app.py") -> graphify_nudge.Call:
    return graphify_nudge.Call("read", True, "Read", target)


def test_the_absent_graph_advice_builds_on_every_supported_release() -> None:
    text = graphify_nudge.advisory(_read(), _graph("absent"))
    assert text is not None and "`graphify update .`" in text and "extract" not in text


def test_the_index_header_carries_the_dialect(tmp_path: Path) -> None:
    """The builder records the dialect it wrote the explain arguments in (for
    people and `mishkan`); the hook reads the key and where the entries start,
    and takes a header of another format for an index to rebuild."""
    index = tmp_path / "g.idx"
    magic = graphify_nudge.INDEX_MAGIC.encode()
    header = magic + b"\tkey\t3\texplain-path,graph-version\t0.9.50\n"
    index.write_bytes(header + b"f\tx\t[]\n")
    fd = os.open(index, os.O_RDONLY)
    try:
        assert graphify_nudge._index_header(fd) == ("key", len(header), len(header) + 7)
    finally:
        os.close(fd)
    index.write_bytes(magic[:-1] + b"2\tkey\t3\texplain-path\t0.9.50\n")  # format 2
    fd = os.open(index, os.O_RDONLY)
    try:
        assert graphify_nudge._index_header(fd) == (None, 0, 1)
    finally:
        os.close(fd)
