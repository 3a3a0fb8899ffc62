from mini.core import parse


def test_parse() -> None:
    assert parse("a b") == ["a", "b"]
