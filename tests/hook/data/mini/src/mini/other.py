"""A second definition of parse, and a name defined only here."""


def parse(text: str) -> str:
    return text


def only_here() -> int:
    return 1
