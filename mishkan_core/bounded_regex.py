"""Regular expressions from a settings file, searched in bounded time.

A hook matcher is a JavaScript regular expression Claude Code searches in
every tool name. ``re.search`` on one a clone wrote, ``(\\w|\\w|\\w)*!``,
takes about 3^26 steps on ``mcp__graphify__query_graph``: ``routing check``
never finished. Here the pattern is parsed (by Python's own parser, which
agrees with JavaScript on the syntax hook matchers use) and run on a small
backtracking machine that counts its steps: past :data:`BUDGET` steps the
search stops with :class:`TooCostly`, which is itself worth reporting, since
the CLI's engine backtracks too and would pay the same at every tool call.
Within the budget the answer is exact.

Semantics are JavaScript's where they differ from Python's: ``\\d``, ``\\w``
and ``\\b`` are ASCII, ``$`` is the end of the input, ``.`` is anything but a
line terminator. Backreferences, conditionals, atomic groups, possessive
repeats and inline flags raise :class:`Unsupported`: they cannot be checked
here (and most are not JavaScript). Lookahead and lookbehind are supported.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

if sys.version_info >= (3, 11):
    from re import _constants as sre_c
    from re import _parser as sre_p
else:  # pragma: no cover - the names moved in 3.11
    import sre_constants as sre_c
    import sre_parse as sre_p

#: machine steps one search may take (a matcher that needs more would make
#: the CLI's own backtracking engine crawl on that tool name)
BUDGET = 1_000_000
#: longer patterns are not parsed at all
MAX_PATTERN = 4096
#: instructions a pattern may compile to (``a{1000}{1000}`` would not fit)
MAX_PROGRAM = 20_000


class MatcherError(ValueError):
    """A pattern this module will not decide: one line for a finding."""


class Unsupported(MatcherError):
    """A construct (or size) the bounded search does not evaluate."""


class TooCostly(MatcherError):
    """The search needed more than :data:`BUDGET` steps: catastrophic backtracking."""


class InvalidPattern(MatcherError):
    """Not a regular expression at all (the CLI matches nothing with it)."""


# -- the machine ---------------------------------------------------------------

_CHAR, _SPLIT, _JMP, _AT, _MARK, _PROGRESS, _LOOK, _MATCH = range(8)
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_DIGIT = frozenset("0123456789")
_LINE_END = frozenset("\n\r\u2028\u2029")
_SPACE = frozenset(
    " \t\n\r\v\f\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_CATEGORIES: dict[str, Callable[[str], bool]] = {
    "CATEGORY_DIGIT": lambda ch: ch in _DIGIT,
    "CATEGORY_NOT_DIGIT": lambda ch: ch not in _DIGIT,
    "CATEGORY_WORD": lambda ch: ch in _WORD,
    "CATEGORY_NOT_WORD": lambda ch: ch not in _WORD,
    "CATEGORY_SPACE": lambda ch: ch in _SPACE,
    "CATEGORY_NOT_SPACE": lambda ch: ch not in _SPACE,
}
_UNSUPPORTED = {
    "GROUPREF": "a backreference",
    "GROUPREF_EXISTS": "a conditional group",
    "ATOMIC_GROUP": "an atomic group",
    "POSSESSIVE_REPEAT": "a possessive repeat",
}
Program = list[tuple[Any, ...]]


class _Compiler:
    def __init__(self) -> None:
        self.slots = 0

    def program(self, tree: Any) -> Program:
        code: Program = []
        self._sequence(tree, code)
        code.append((_MATCH,))
        return code

    def _emit(self, code: Program, instruction: tuple[Any, ...]) -> int:
        if len(code) >= MAX_PROGRAM:
            raise Unsupported(f"a pattern that compiles to more than {MAX_PROGRAM} steps")
        code.append(instruction)
        return len(code) - 1

    def _sequence(self, items: Any, code: Program) -> None:
        for op, av in items:
            self._node(op.name, av, code)

    def _node(self, name: str, av: Any, code: Program) -> None:
        if name == "LITERAL":
            self._emit(code, (_CHAR, _equals(chr(av))))
        elif name == "NOT_LITERAL":
            self._emit(code, (_CHAR, _differs(chr(av))))
        elif name == "ANY":
            self._emit(code, (_CHAR, lambda c: c not in _LINE_END))
        elif name == "IN":
            self._emit(code, (_CHAR, _class(av)))
        elif name == "AT":
            self._emit(code, (_AT, av.name))
        elif name == "BRANCH":
            self._branch(av[1], code)
        elif name == "SUBPATTERN":
            _group, add_flags, del_flags, inner = av
            if add_flags or del_flags:
                raise Unsupported("an inline flag")
            self._sequence(inner, code)
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, inner = av
            self._repeat(low, high, inner, greedy=name == "MAX_REPEAT", code=code)
        elif name in ("ASSERT", "ASSERT_NOT"):
            direction, inner = av
            width = 0
            if direction < 0:
                low, high = inner.getwidth()
                if low != high:
                    raise Unsupported("a lookbehind of varying width")
                width = low
            self._emit(code, (_LOOK, self.program(inner), direction > 0, width, name == "ASSERT"))
        elif name in _UNSUPPORTED:
            raise Unsupported(_UNSUPPORTED[name])
        else:
            raise Unsupported(f"the construct {name}")

    def _branch(self, alternatives: list[Any], code: Program) -> None:
        jumps = []
        for i, alternative in enumerate(alternatives):
            if i < len(alternatives) - 1:
                split = self._emit(code, (_SPLIT, 0, 0))
                self._sequence(alternative, code)
                jumps.append(self._emit(code, (_JMP, 0)))
                code[split] = (_SPLIT, split + 1, len(code))
            else:
                self._sequence(alternative, code)
        for at in jumps:
            code[at] = (_JMP, len(code))

    def _repeat(self, low: int, high: int, inner: Any, *, greedy: bool, code: Program) -> None:
        unbounded = high == sre_c.MAXREPEAT
        if low > MAX_PROGRAM or (not unbounded and high > MAX_PROGRAM):
            raise Unsupported(f"a repeat of more than {MAX_PROGRAM}")
        for _ in range(low):
            self._sequence(inner, code)
        if unbounded:
            # L: split body, out; body: mark; <inner>; progress; jmp L
            # (an iteration that reads nothing ends the loop, as in JS)
            slot = self.slots
            self.slots += 1
            top = self._emit(code, (_SPLIT, 0, 0))
            self._emit(code, (_MARK, slot))
            self._sequence(inner, code)
            self._emit(code, (_PROGRESS, slot))
            self._emit(code, (_JMP, top))
            body, out = top + 1, len(code)
            code[top] = (_SPLIT, body, out) if greedy else (_SPLIT, out, body)
            return
        splits = []
        for _ in range(high - low):
            split = self._emit(code, (_SPLIT, 0, 0))
            splits.append(split)
            self._sequence(inner, code)
        for split in splits:
            body, out = split + 1, len(code)
            code[split] = (_SPLIT, body, out) if greedy else (_SPLIT, out, body)


def _equals(ch: str) -> Callable[[str], bool]:
    return lambda c: c == ch


def _differs(ch: str) -> Callable[[str], bool]:
    return lambda c: c != ch


def _between(low: str, high: str) -> Callable[[str], bool]:
    return lambda c: low <= c <= high


def _class(items: list[Any]) -> Callable[[str], bool]:
    """One character class (``[a-z\\d]``, ``[^_]``) as a predicate."""
    negate = False
    tests: list[Callable[[str], bool]] = []
    for op, av in items:
        name = op.name
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            tests.append(_equals(chr(av)))
        elif name == "RANGE":
            tests.append(_between(chr(av[0]), chr(av[1])))
        elif name == "CATEGORY" and av.name in _CATEGORIES:
            tests.append(_CATEGORIES[av.name])
        else:
            raise Unsupported(f"the class item {name}")
    if negate:
        return lambda c: not any(test(c) for test in tests)
    return lambda c: any(test(c) for test in tests)


def _at(kind: str, text: str, pos: int) -> bool:
    if kind in ("AT_BEGINNING", "AT_BEGINNING_STRING"):
        return pos == 0
    if kind in ("AT_END", "AT_END_STRING"):
        return pos == len(text)
    before = pos > 0 and text[pos - 1] in _WORD
    after = pos < len(text) and text[pos] in _WORD
    if kind == "AT_BOUNDARY":
        return before != after
    if kind == "AT_NON_BOUNDARY":
        return before == after
    raise Unsupported(f"the assertion {kind}")  # pragma: no cover - parser rejects others


class _Search:
    """One search: the text, the loop-mark slots, the steps left."""

    def __init__(self, text: str, slots: int, budget: int) -> None:
        self.text, self.slots, self.left, self.budget = text, slots, budget, budget


def _run(code: Program, search: _Search, start: int, end: int | None) -> bool:
    """Does ``code`` match at ``start`` (ending at ``end``, when given)?
    Backtracking with an explicit stack; every instruction is a step."""
    text, steps = search.text, search
    n = len(text)
    stack: list[tuple[int, int, tuple[int, ...]]] = [(0, start, (-1,) * search.slots)]
    while stack:
        pc, pos, marks = stack.pop()
        while True:
            steps.left -= 1
            if steps.left < 0:
                raise TooCostly(f"more than {search.budget} backtracking steps on {text!r}")
            instruction = code[pc]
            op = instruction[0]
            if op == _CHAR:
                if pos < n and instruction[1](text[pos]):
                    pc, pos = pc + 1, pos + 1
                    continue
                break
            if op == _SPLIT:
                stack.append((instruction[2], pos, marks))
                pc = instruction[1]
            elif op == _JMP:
                pc = instruction[1]
            elif op == _AT:
                if not _at(instruction[1], text, pos):
                    break
                pc += 1
            elif op == _MARK:
                slot = instruction[1]
                marks = (*marks[:slot], pos, *marks[slot + 1 :])
                pc += 1
            elif op == _PROGRESS:
                if marks[instruction[1]] == pos:
                    break
                pc += 1
            elif op == _LOOK:
                _op, sub, ahead, width, positive = instruction
                if ahead:
                    found = _run(sub, search, pos, None)
                else:
                    found = pos >= width and _run(sub, search, pos - width, pos)
                if found != positive:
                    break
                pc += 1
            else:  # _MATCH
                if end is None or pos == end:
                    return True
                break
    return False


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> tuple[Program, int]:
    if len(pattern) > MAX_PATTERN:
        raise Unsupported(f"a pattern longer than {MAX_PATTERN} characters")
    try:
        tree = sre_p.parse(pattern, 0)
    except RecursionError:
        raise Unsupported("groups nested deeper than the parser allows") from None
    except (sre_c.error, ValueError, OverflowError) as exc:
        raise InvalidPattern(str(exc)) from None
    flags = tree.state.flags & ~(sre_c.SRE_FLAG_UNICODE)
    if flags:
        raise Unsupported("an inline flag")
    compiler = _Compiler()
    try:
        code = compiler.program(tree)
    except RecursionError:
        raise Unsupported("groups nested deeper than the parser allows") from None
    return code, compiler.slots


def search(pattern: str, text: str, budget: int = BUDGET) -> bool:
    """Whether ``pattern`` occurs anywhere in ``text``, as JavaScript's
    ``RegExp.prototype.test`` answers it. Raises :class:`InvalidPattern`,
    :class:`Unsupported` or :class:`TooCostly`, never runs unbounded."""
    code, slots = _compiled(pattern)
    state = _Search(text, slots, budget)
    return any(_run(code, state, start, None) for start in range(len(text) + 1))
