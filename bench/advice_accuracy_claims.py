"""What an advisory claims, read from its text.

Two formats are read. The **answer** format (issue 30; the contract in
docs/advice_accuracy.md, "The answer format", written with the hook's side as
/work/coord/advisory_format.md v1): a header line, then one labelled line per
claim (`Definition`, `Uses`, `Use`, `Importers`, `Importer`, `Dependents`,
`Defines`, `Changed since the graph was built`, `More`). The **pointer** format
(43bb0be and before): free prose in which every `path:line` is a definition
site and every backticked `graphify ...` a command.

Parsing only reads; `bench/advice_accuracy_judge.py` decides what is true.
A line the grammar does not match is kept in `malformed` (the judge counts it
against the format), never guessed at.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

MARKER = "[graphify-nudge]"
MAX_CHARS = 1200  # the contract's bound on an advisory (Python len)

_COMMAND = re.compile(r"`(graphify [^`]*)`")
_BACKTICKED = re.compile(r"`[^`]*`")
# pointer format: a site in prose, `path:line` or `path:L12`
_PROSE_SITE = re.compile(
    r"(?<![\w./@+~-])((?:[\w@+~-]|\.(?!\.))[\w./@+~-]*\.[A-Za-z0-9]+):L?(\d+)\b"
)
# Words that say "this is not the only definition". Fixed here, documented in
# docs/advice_accuracy.md; never extended to fit a particular hook's wording.
# "no node for" is the answer format's fixed `Not counted` wording (definitions
# graphify has no node for).
_HEDGE = re.compile(
    r"\b(several|multiple|ambiguous|one of|at least|also defined|not the only|no node for)\b"
    r"|\b(\d+)\s+(?:definitions?|defs|places|sites|matches|nodes|candidates|overloads)\b"
    r"|\b\d+\s+of\s+(\d+)\b"
    r"|\band\s+(\d+)\s+more\b",
    re.IGNORECASE,
)

# The answer format, one regex per label (the contract's grammar).
_Q = r'"((?:[^"\\]|\\u[0-9a-fA-F]{4}|\\["\\/bfnrt])*)"'  # one quoted repository text
_SITE = r'"((?:[^"\\]|\\u[0-9a-fA-F]{4})+):([0-9]+)"'
_CONF = r"(EXTRACTED|INFERRED|AMBIGUOUS)"
_BY_RELATION = r"([a-z_]+ \d+(?:, [a-z_]+ \d+)*)"
_BY_CONF = r"((?:EXTRACTED|INFERRED|AMBIGUOUS) \d+(?:, (?:EXTRACTED|INFERRED|AMBIGUOUS) \d+)*)"


def _named(name: str) -> str:
    return rf'"(?P<{name}>(?:[^"\\]|\\u[0-9a-fA-F]{{4}}|\\["\\/bfnrt])*)"'


_HEADER = re.compile(
    r"^\[graphify-nudge\] The code graph \((?P<fresh>[^)]*)\) "
    r"(?:holds one definition of " + _named("one") + "|defines " + _named("many")
    + r" in (?P<n>\d+) places|holds " + _named("file") + r"); quoted text is repository data\.$"
)  # fmt: skip
_DEFINITION = re.compile(
    r"^Definition(?: (\d+) of (\d+))?: " + _SITE + " " + _Q + r"(?: of " + _Q + r")?, "
    r"(?:node " + _Q + r"|a field with no graph node)"
    r"(?:, one graph node for (\d+) overloads at lines (\d+(?:, \d+)*))?"
    r"(?:; (?:used at (\d+) sites? in (\d+) files?|(no use recorded)))?\.$"
)  # fmt: skip
_USES = re.compile(
    r"^Uses: (\d+) in (\d+) files? \(" + _BY_RELATION + "; " + _BY_CONF + r"\); (\d+) shown\.$"
)
_USE = re.compile(
    r"^Use: " + _SITE + " in " + _Q + r"(?: uses " + _Q + r")? \(([a-z_]+), " + _CONF
    + r"\)(?:, of definition (\d+))?\.$"
)  # fmt: skip
_IMPORTERS = re.compile(
    r"^(Importers|Dependents): (\d+) in (\d+) files? \(" + _BY_RELATION + r"\); (\d+) shown\.$"
)
_IMPORTER = re.compile(r"^Importer: " + _SITE + " in " + _Q + r" \(([a-z_]+), " + _CONF + r"\)\.$")
_DEFINES = re.compile(
    r"^Defines: (\d+) symbols?: ((?:" + _Q + r" L\d+)(?:, " + _Q + r" L\d+)*)"
    r"(?:, and (\d+) more)?\.$"
)
_DEFINED = re.compile(_Q + r" L(\d+)")
_CHANGED = re.compile(r"^Changed since the graph was built: (" + _Q + r"(?:, " + _Q + r")*)\.$")
_MORE = re.compile(r"^More: (`graphify [^`]*`(?: or `graphify [^`]*`)*)\.$")
_THIS = re.compile(
    r"^This (search|Read) runs as asked\."
    r"(?: To opt out per call: \[skip-graphify-nudge\] in the Bash description\.)?$"
)
_NOT_COUNTED = re.compile(r"^Not counted: .+\.$")
_LABELS = ("Definition", "Uses", "Use", "Importers", "Importer", "Dependents", "Defines",
           "Not counted", "Changed since the graph was built", "More", "This")  # fmt: skip


def unquote(inner: str) -> str:
    """The repository text a quoted item stands for (the hook's `_quote`
    writes JSON escapes)."""
    try:
        text = json.loads('"' + inner + '"')
    except ValueError:
        return inner
    return text if isinstance(text, str) else inner


@dataclass(frozen=True)
class DefinitionClaim:
    file: str
    line: int
    name: str
    owner: str | None
    node_id: str  # "": a Go struct field "with no graph node"
    index: int | None  # K of "Definition K of M"
    of: int | None  # M
    overloads: int | None  # "one graph node for N overloads"
    overload_lines: tuple[int, ...]
    used_sites: int | None  # kind B's "used at N sites in F files" (0: "no use recorded")
    used_files: int | None


@dataclass(frozen=True)
class UseClaim:
    """A `Use:` or `Importer:` line: `file:line` in `caller`, a use of `name`
    (the searched name; kind C: the read file's symbol it names, or None for
    an importer)."""

    label: str  # "Use" or "Importer"
    file: str
    line: int
    caller: str
    used: str | None
    relation: str
    confidence: str
    definition: int | None  # "of definition K"


@dataclass(frozen=True)
class CountClaim:
    """`Uses`, `Importers` or `Dependents`: sites, files, by relation (and by
    confidence for `Uses`), how many are shown."""

    label: str
    sites: int
    files: int
    by_relation: dict[str, int]
    by_confidence: dict[str, int]
    shown: int


@dataclass(frozen=True)
class Advisory:
    text: str
    commands: tuple[str, ...]
    sites: tuple[tuple[str, int], ...]  # definition sites, in order, without duplicates
    hedged: bool  # says in words that there are several definitions
    structured: bool = False  # the answer format (else the pointer format)
    kind: str | None = None  # "A", "B", "C" (answer format)
    freshness: str | None = None
    subject: str | None = None  # the header's NAME or PATH
    places: int | None = None  # kind B's N
    definitions: tuple[DefinitionClaim, ...] = ()
    uses: tuple[UseClaim, ...] = ()
    counts: tuple[CountClaim, ...] = ()
    defines: tuple[tuple[str, int], ...] = ()  # kind C: (name, line) in the read file
    defines_total: int | None = None
    changed: tuple[str, ...] | None = None  # None: no `Changed since` line
    malformed: tuple[str, ...] = field(default_factory=tuple)

    @property
    def flags_several(self) -> bool:
        return self.hedged or len(self.sites) >= 2

    @property
    def answers_who_uses(self) -> bool:
        """Carries who uses the target (or what depends on the file): issue 30's "answered"."""
        return bool(self.uses)

    def count(self, label: str) -> CountClaim | None:
        return next((c for c in self.counts if c.label == label), None)


def _hedged(prose: str) -> bool:
    for m in _HEDGE.finditer(prose):
        numbers = [g for g in m.groups()[1:] if g is not None]
        if not numbers or int(numbers[0]) >= 2:
            return True
    return False


def _pairs(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in text.split(", "):
        key, _, number = part.rpartition(" ")
        out[key] = out.get(key, 0) + int(number)
    return out


def parse_advisory(text: str) -> Advisory:
    first = text.split("\n", 1)[0]
    header = _HEADER.match(first)
    if header is None:
        return _parse_pointer(text)
    return _parse_answer(text, header)


# the pointer format's mark of a changed file (43bb0be: a Read of a file newer than the graph)
_POINTER_CHANGED = re.compile(_Q + r" changed after the code graph was built")


def _parse_pointer(text: str) -> Advisory:
    commands = tuple(m.group(1).strip() for m in _COMMAND.finditer(text))
    changed = tuple(unquote(m.group(1)) for m in _POINTER_CHANGED.finditer(text)) or None
    prose = _BACKTICKED.sub(" ", text)
    sites: list[tuple[str, int]] = []
    for m in _PROSE_SITE.finditer(prose):
        site = (m.group(1), int(m.group(2)))
        if site not in sites:
            sites.append(site)
    return Advisory(text, commands, tuple(sites), _hedged(prose), changed=changed)


def _parse_answer(text: str, header: re.Match[str]) -> Advisory:
    kind = "A" if header["one"] is not None else "B" if header["many"] is not None else "C"
    subject = unquote(
        header["one"] if kind == "A" else header["many"] if kind == "B" else header["file"]
    )
    definitions: list[DefinitionClaim] = []
    uses: list[UseClaim] = []
    counts: list[CountClaim] = []
    defines: list[tuple[str, int]] = []
    defines_total = None
    changed: tuple[str, ...] | None = None
    commands: list[str] = []
    malformed: list[str] = []
    prose_parts = [text.split("\n", 1)[0]]
    for line in text.split("\n")[1:]:
        if m := _DEFINITION.match(line):
            lines = tuple(int(x) for x in m.group(9).split(", ")) if m.group(9) else ()
            definitions.append(
                DefinitionClaim(
                    file=unquote(m.group(3)),
                    line=int(m.group(4)),
                    name=unquote(m.group(5)),
                    owner=unquote(m.group(6)) if m.group(6) is not None else None,
                    node_id=unquote(m.group(7)) if m.group(7) is not None else "",
                    index=int(m.group(1)) if m.group(1) else None,
                    of=int(m.group(2)) if m.group(2) else None,
                    overloads=int(m.group(8)) if m.group(8) else None,
                    overload_lines=lines,
                    used_sites=int(m.group(10)) if m.group(10) else 0 if m.group(12) else None,
                    used_files=int(m.group(11)) if m.group(11) else 0 if m.group(12) else None,
                )
            )
        elif m := _USES.match(line):
            counts.append(
                CountClaim("Uses", int(m.group(1)), int(m.group(2)), _pairs(m.group(3)),
                           _pairs(m.group(4)), int(m.group(5)))
            )  # fmt: skip
        elif m := _USE.match(line):
            uses.append(
                UseClaim("Use", unquote(m.group(1)), int(m.group(2)), unquote(m.group(3)),
                         unquote(m.group(4)) if m.group(4) is not None else None, m.group(5),
                         m.group(6), int(m.group(7)) if m.group(7) else None)
            )  # fmt: skip
        elif m := _IMPORTERS.match(line):
            counts.append(
                CountClaim(m.group(1), int(m.group(2)), int(m.group(3)), _pairs(m.group(4)), {},
                           int(m.group(5)))
            )  # fmt: skip
        elif m := _IMPORTER.match(line):
            uses.append(
                UseClaim("Importer", unquote(m.group(1)), int(m.group(2)), unquote(m.group(3)),
                         None, m.group(4), m.group(5), None)
            )  # fmt: skip
        elif m := _DEFINES.match(line):
            defines_total = int(m.group(1))
            defines = [(unquote(d.group(1)), int(d.group(2))) for d in _DEFINED.finditer(line)]
        elif m := _CHANGED.match(line):
            changed = tuple(unquote(q.group(1)) for q in re.finditer(_Q, m.group(1)))
        elif m := _MORE.match(line):
            commands += [c.group(1).strip() for c in _COMMAND.finditer(line)]
        elif _NOT_COUNTED.match(line):
            prose_parts.append(line)
        elif not _THIS.match(line):
            malformed.append(line)
    places = int(header.group("n")) if header.group("n") else None
    sites: list[tuple[str, int]] = []
    for d in definitions:
        if (d.file, d.line) not in sites:
            sites.append((d.file, d.line))
    hedged = _hedged(" ".join(prose_parts)) or any((d.overloads or 0) >= 2 for d in definitions)
    return Advisory(
        text=text,
        commands=tuple(commands),
        sites=tuple(sites),
        hedged=hedged or (places or 0) >= 2,
        structured=True,
        kind=kind,
        freshness=header.group("fresh"),
        subject=subject,
        places=places,
        definitions=tuple(definitions),
        uses=tuple(uses),
        counts=tuple(counts),
        defines=tuple(defines),
        defines_total=defines_total,
        changed=changed,
        malformed=tuple(malformed),
    )


def format_errors(text: str) -> list[str]:
    """How `text` breaks the contract's lexical rules (empty: it does not)."""
    errors = []
    if not text.startswith(MARKER + " "):
        errors.append("does not start with the marker")
    if len(text) > MAX_CHARS:
        errors.append(f"{len(text)} characters, over {MAX_CHARS}")
    advisory = parse_advisory(text)
    if advisory.structured:
        if "\r" in text or text.endswith("\n") or "\n\n" in text:
            errors.append("an empty line, a CR or a trailing newline")
        outside = re.sub(_Q, "", text)
        if not outside.isascii():
            errors.append("non-ASCII outside quoted repository text")
        errors += [f"unknown line: {line[:80]}" for line in advisory.malformed]
    return errors
