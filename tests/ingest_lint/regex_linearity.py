"""A static check that a regex runs in linear time on Python's backtracking engine.

Python's ``re`` backtracks. A pattern is super-linear when the engine can match
one stretch of input in more than one way and a later failure makes it try
them all. On the pattern's Thompson automaton (one state per character class;
groups, alternations and repeats become empty moves) that is one of two shapes
(Weideman et al., "Analyzing Matching Time Behavior of Backtracking Regular
Expression Matchers by Using Ambiguity of NFA", 2016):

* exponential (EDA): a state with two different paths back to itself that read
  the same word (``(a|a)*``, ``(a*)*``, ``(\\w+\\s?)+``);
* polynomial (IDA): two different loop states p and q with one word that loops
  on p, leads from p to q, and loops on q (``.*?[ \\t]*$``, ``\\w+_\\w+`` then a
  failure). ``search``, ``findall`` and friends retry the pattern from every
  position, which is a loop on any character in front of it: a leading
  ``[ \\t]*x`` is quadratic on a line of spaces.

Either shape is harmless when the match cannot fail after it (for two loops:
after the second, or after the first when it is greedy, since the engine tries
its longest run first): a loop from
which the end of the pattern is reachable without an assertion (``^``, ``$``,
``\\b``, a lookaround) ends in a match as soon as the input stops fitting. A
multiline ``$`` counts as no assertion after a loop that can read any character
but a newline (``[^\\n]*$``): that loop always reaches the end of the line.

Bounded repeats (``{0,30}``) do only bounded work per position, so they are
unrolled a few times, enough to expose ambiguity inside an unbounded loop, and
never counted as loops. Character classes become bit masks over a small
alphabet: ASCII, a few non-ASCII representatives of each category, and every
non-ASCII literal in the pattern.

``problems(pattern, usages)`` returns a description of each super-linear
shape found (empty when the pattern is linear for those usages).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

if sys.version_info >= (3, 11):
    from re import _constants as sre_c
    from re import _parser as sre_p
else:  # pragma: no cover - the names moved in 3.11
    import sre_constants as sre_c
    import sre_parse as sre_p

#: unrolled copies of a bounded repeat: enough to show ambiguity inside a loop
UNROLL = 3
SEARCH_METHODS = frozenset({"search", "findall", "finditer", "split", "sub", "subn"})
ANCHORED_METHODS = frozenset({"match", "fullmatch"})

# non-ASCII representatives: a letter, blanks, a digit, arrows, box drawing, dashes
_EXTRA = (
    "\u00e9\u00a0\u2028\u0663\u2192\u2500\u2502\u251c\u2514\u27f6\u21d2\u2013\u2014\u00b7\ufeff"
)


def _alphabet(pattern: str) -> str:
    extra = {ch for ch in pattern if ord(ch) > 127}
    return "".join(chr(i) for i in range(128)) + "".join(sorted(set(_EXTRA) | extra))


@dataclass
class _Nfa:
    alphabet: str
    ignore_case: bool
    dotall: bool
    multiline: bool
    eps: list[list[int]] = field(default_factory=list)
    assertion: list[bool] = field(default_factory=list)
    end_of_line: set[int] = field(default_factory=set)  # multiline "$" states
    lazy: dict[int, bool] = field(default_factory=dict)  # consuming state -> its loop is lazy
    consume: dict[int, tuple[int, int]] = field(default_factory=dict)  # state -> (mask, next)

    def state(self, assertion: bool = False) -> int:
        self.eps.append([])
        self.assertion.append(assertion)
        return len(self.eps) - 1

    # ---------------------------------------------------------------- char classes

    def _members(self, test: Any) -> int:
        mask = 0
        for i, ch in enumerate(self.alphabet):
            if test(ch):
                mask |= 1 << i
        return mask

    def _same(self, ch: str, code: int) -> bool:
        other = chr(code)
        if self.ignore_case:
            return ch.lower() == other.lower() or ch.upper() == other.upper()
        return ch == other

    def _category(self, ch: str, category: Any) -> bool:
        name = str(category)
        negated = "_NOT_" in name
        if "DIGIT" in name:
            found = ch.isdecimal()
        elif "SPACE" in name:
            found = ch.isspace()
        elif "WORD" in name:
            found = ch.isalnum() or ch == "_"
        elif "LINEBREAK" in name:
            found = ch == "\n"
        else:
            raise ValueError(f"unsupported category {name}")
        return found != negated

    def _in(self, ch: str, items: list[tuple[Any, Any]]) -> bool:
        negate = False
        found = False
        for op, arg in items:
            if op is sre_c.NEGATE:
                negate = True
            elif op is sre_c.LITERAL:
                found = found or self._same(ch, arg)
            elif op is sre_c.RANGE:
                lo, hi = arg
                low = ch.lower() if self.ignore_case else ch
                up = ch.upper() if self.ignore_case else ch
                found = found or any(lo <= ord(c) <= hi for c in {ch, low, up} if len(c) == 1)
            elif op is sre_c.CATEGORY:
                found = found or self._category(ch, arg)
            else:
                raise ValueError(f"unsupported class item {op}")
        return found != negate

    def mask(self, op: Any, arg: Any) -> int:
        if op is sre_c.LITERAL:
            return self._members(lambda ch: self._same(ch, arg))
        if op is sre_c.NOT_LITERAL:
            return self._members(lambda ch: not self._same(ch, arg))
        if op is sre_c.ANY:
            return self._members(lambda ch: self.dotall or ch != "\n")
        if op is sre_c.IN:
            return self._members(lambda ch: self._in(ch, arg))
        raise ValueError(f"unsupported op {op}")

    # ---------------------------------------------------------------- construction

    def build(self, items: Iterable[tuple[Any, Any]]) -> tuple[int, int]:
        """Thompson fragment for a sequence: (entry state, exit state)."""
        start = end = self.state()
        for op, arg in items:
            first, last = self.item(op, arg)
            self.eps[end].append(first)
            end = last
        return start, end

    def item(self, op: Any, arg: Any) -> tuple[int, int]:
        if op in (sre_c.LITERAL, sre_c.NOT_LITERAL, sre_c.ANY, sre_c.IN):
            here, after = self.state(), self.state()
            self.consume[here] = (self.mask(op, arg), after)
            return here, after
        if op is sre_c.SUBPATTERN:
            return self.build(arg[-1])
        if op is sre_c.BRANCH:
            start, end = self.state(), self.state()
            for alternative in arg[1]:
                first, last = self.build(alternative)
                self.eps[start].append(first)
                self.eps[last].append(end)
            return start, end
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            low, high, body = arg
            if high == sre_c.MAXREPEAT:
                return self._star(low, body, lazy=op is sre_c.MIN_REPEAT)
            return self._bounded(low, high, body)
        if op in (sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT):
            start, end = self.state(), self.state(assertion=True)
            self.eps[start].append(end)
            if op is sre_c.AT and arg is sre_c.AT_END and self.multiline:
                self.end_of_line.add(end)
            return start, end
        raise ValueError(f"unsupported op {op}")

    def _star(self, low: int, body: Any, lazy: bool) -> tuple[int, int]:
        start, end = self.state(), self.state()
        here = start
        for _ in range(min(low, 1)):  # x+ is x x*
            first, last = self.build(body)
            self.eps[here].append(first)
            here = last
        before = len(self.eps)
        loop_first, loop_last = self.build(body)
        for state in range(before, len(self.eps)):
            if state in self.consume:
                self.lazy.setdefault(state, lazy)  # an inner loop has set its own
        self.eps[here].extend((loop_first, end))
        self.eps[loop_last].extend((loop_first, end))
        return start, end

    def _bounded(self, low: int, high: int, body: Any) -> tuple[int, int]:
        start = end = self.state()
        copies = min(high, UNROLL)
        mandatory = min(low, copies)
        exits = []
        for k in range(copies):
            first, last = self.build(body)
            self.eps[end].append(first)
            if k >= mandatory:
                exits.append(end)
            end = last
        finish = self.state()
        self.eps[end].append(finish)
        for state in exits:
            self.eps[state].append(finish)
        return start, finish


# -------------------------------------------------------------------- the analysis


def _reach_eps(
    nfa: _Nfa, source: int, accept: int, to_line_end: bool = False
) -> tuple[dict[int, int], bool]:
    """From ``source`` over empty moves: {consuming state: paths (capped at 2)}, and
    whether ``accept`` is reachable without passing an assertion (``to_line_end``:
    the state before ``source`` can read on to the end of the line, so a multiline
    ``$`` holds)."""
    counts: dict[int, int] = {}
    free_accept = False
    # explicit DFS over (state, assertion seen); an empty-move cycle makes every
    # state reached through it ambiguous (the engine can go round it)
    stack: list[tuple[int, bool, frozenset[int]]] = [(source, False, frozenset())]
    steps = 0
    while stack:
        state, guarded, path = stack.pop()
        steps += 1
        if steps > 200_000:
            raise ValueError("automaton too large to analyse")
        if state in nfa.consume:
            counts[state] = min(2, counts.get(state, 0) + 1)
            continue
        if nfa.assertion[state] and not (to_line_end and state in nfa.end_of_line):
            guarded = True
        if state == accept and not guarded:
            free_accept = True
        path = path | {state}
        for nxt in nfa.eps[state]:
            if nxt in path:
                for reached in _closure(nfa, nxt):
                    counts[reached] = 2
                continue
            stack.append((nxt, guarded, path))
    return counts, free_accept


def _closure(nfa: _Nfa, state: int) -> set[int]:
    seen = {state}
    todo = [state]
    found: set[int] = set()
    while todo:
        here = todo.pop()
        if here in nfa.consume:
            found.add(here)
            continue
        for nxt in nfa.eps[here]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return found


@dataclass
class _Graph:
    """The automaton without empty moves: consuming states and labelled edges."""

    mask: dict[int, int]
    edges: dict[int, list[tuple[int, int]]]  # state -> [(next state, multiplicity)]
    accepting: set[int]  # states after which the pattern can end with no assertion
    greedy: set[int]  # states in a greedy loop (the engine tries the longest run first)


def _collapse(nfa: _Nfa, start: int, accept: int) -> tuple[_Graph, list[tuple[int, int]]]:
    graph = _Graph({}, {}, set(), {s for s, lazy in nfa.lazy.items() if not lazy})
    newline = nfa.mask(sre_c.LITERAL, ord("\n"))
    line = nfa.mask(sre_c.ANY, None) & ~newline
    for state, (mask, after) in nfa.consume.items():
        graph.mask[state] = mask
        loops_to_line_end = mask & line == line and state in _closure(nfa, after)
        counts, free = _reach_eps(nfa, after, accept, loops_to_line_end)
        graph.edges[state] = sorted(counts.items())
        if free:
            graph.accepting.add(state)
    initial, _ = _reach_eps(nfa, start, accept)
    return graph, sorted(initial.items())


def _sccs(nodes: list[int], succ: dict[int, list[int]]) -> list[set[int]]:
    """Tarjan, iteratively."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on: set[int] = set()
    stack: list[int] = []
    out: list[set[int]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on.add(node)
            children = succ.get(node, [])
            if i < len(children):
                work.append((node, i + 1))
                child = children[i]
                if child not in index:
                    work.append((child, 0))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            if low[node] == index[node]:
                component = set()
                while True:
                    top = stack.pop()
                    on.discard(top)
                    component.add(top)
                    if top == node:
                        break
                out.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return out


def _loop_components(graph: _Graph) -> list[set[int]]:
    succ = {s: [t for t, _ in graph.edges[s]] for s in graph.edges}
    components = _sccs(sorted(graph.edges), succ)
    return [c for c in components if len(c) > 1 or any(s in c for s in succ[next(iter(c))])]


def _escapes(graph: _Graph, component: set[int]) -> bool:
    return any(state in graph.accepting for state in component)


def _exponential(graph: _Graph, component: set[int]) -> bool:
    """Two different paths from a state back to itself reading the same word."""
    for state in component:
        for nxt, many in graph.edges[state]:
            if nxt in component and many > 1:
                return True
    # pair product restricted to the component: a cycle through a diagonal node and
    # an off-diagonal one means two paths with one label
    nodes = [(a, b) for a in component for b in component]
    succ: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for a, b in nodes:
        out = []
        for na, _ in graph.edges[a]:
            if na not in component:
                continue
            for nb, _ in graph.edges[b]:
                if nb in component and graph.mask[na] & graph.mask[nb]:
                    out.append((na, nb))
        succ[(a, b)] = out
    # a node's successors are entered by reading their character: the start pair needs
    # the same character too, so seed from pairs of states with overlapping masks
    keyed = {node: i for i, node in enumerate(nodes)}
    int_succ = {keyed[n]: [keyed[m] for m in succ[n]] for n in nodes}
    for comp in _sccs(sorted(int_succ), int_succ):
        pairs = [nodes[i] for i in comp]
        if len(pairs) < 2 and not any(keyed[p] in int_succ[keyed[p]] for p in pairs):
            continue
        if any(a == b for a, b in pairs) and any(a != b for a, b in pairs):
            return True
    return False


def _reachable(graph: _Graph, source: int) -> set[int]:
    seen = {source}
    todo = [source]
    while todo:
        here = todo.pop()
        for nxt, _ in graph.edges[here]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _pick(nfa_alphabet: str, mask: int) -> str:
    """A readable character of ``mask``: printable ASCII first."""
    for i in range(32, 127):
        if mask >> i & 1:
            return nfa_alphabet[i]
    low = (mask & -mask).bit_length() - 1
    return nfa_alphabet[low]


def _path_to(graph: _Graph, initial: list[int], target: int, alphabet: str) -> str | None:
    """A word that takes the automaton from its start to ``target``."""
    parents: dict[int, int | None] = dict.fromkeys(initial)
    todo = list(initial)
    while todo:
        here = todo.pop(0)
        if here == target:
            word = []
            node: int | None = here
            while node is not None:
                word.append(_pick(alphabet, graph.mask[node]))
                node = parents[node]
            return "".join(reversed(word))
        for nxt, _ in graph.edges[here]:
            if nxt not in parents:
                parents[nxt] = here
                todo.append(nxt)
    return None


def _polynomial(
    graph: _Graph, p_comp: set[int], q_comp: set[int], alphabet: str
) -> tuple[int, str] | None:
    """One word loops on a state of ``p_comp``, leads from it to a state of
    ``q_comp``, and loops there: the engine can split it between the two loops.
    Returns (p, the word) when there is one."""
    between = set()
    for p in p_comp:
        between |= _reachable(graph, p)
    for p in sorted(p_comp):
        for q in sorted(q_comp):
            if q not in between:
                continue
            start = (p, p, q)
            goal = (p, q, q)
            parents: dict[tuple[int, int, int], tuple[tuple[int, int, int], str] | None] = {
                start: None
            }
            todo = [start]
            while todo:
                a, b, c = todo.pop(0)
                for na, _ in graph.edges[a]:
                    if na not in p_comp:
                        continue
                    mask_a = graph.mask[na]
                    for nb, _ in graph.edges[b]:
                        mask_ab = mask_a & graph.mask[nb]
                        if not mask_ab or nb not in between:
                            continue
                        for nc, _ in graph.edges[c]:
                            common = mask_ab & graph.mask[nc]
                            if nc not in q_comp or not common:
                                continue
                            node = (na, nb, nc)
                            if node in parents:
                                continue
                            parents[node] = ((a, b, c), _pick(alphabet, common))
                            if node == goal:
                                word = []
                                step = parents[node]
                                while step is not None:
                                    word.append(step[1])
                                    step = parents[step[0]]
                                return p, "".join(reversed(word))
                            todo.append(node)
    return None


def _first_mask(nfa: _Nfa, items: list[tuple[Any, Any]]) -> int | None:
    """The characters the pattern's first consumed character can be, when that is
    a plain class after nothing but assertions."""
    for op, arg in items:
        if op in (sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT):
            continue
        if op in (sre_c.LITERAL, sre_c.NOT_LITERAL, sre_c.ANY, sre_c.IN):
            return nfa.mask(op, arg)
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT) and arg[0] >= 1:
            return _first_mask(nfa, list(arg[2]))
        if op is sre_c.SUBPATTERN:
            return _first_mask(nfa, list(arg[-1]))
        return None
    return None


def _leading_guard(nfa: _Nfa, items: list[tuple[Any, Any]], everything: int) -> int:
    """What the character before a match may be, from the assertions that open the
    pattern: a multiline ``^`` (a newline), a one-character lookbehind, or ``\\b``
    before a word character (a non-word character)."""
    guard = everything
    word = nfa.mask(sre_c.IN, [(sre_c.CATEGORY, sre_c.CATEGORY_WORD)])
    for op, arg in items:
        if op is sre_c.AT and arg is sre_c.AT_BEGINNING:
            guard &= nfa.mask(sre_c.LITERAL, ord("\n"))
        elif op is sre_c.AT and arg is sre_c.AT_BOUNDARY:
            first = _first_mask(nfa, items)
            if first is not None and first & ~word == 0:
                guard &= ~word
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT) and arg[0] == -1:
            inner = list(arg[1])
            if len(inner) == 1 and inner[0][0] in (sre_c.LITERAL, sre_c.IN, sre_c.ANY):
                allowed = nfa.mask(*inner[0])
                guard &= allowed if op is sre_c.ASSERT else ~allowed
        elif op is not sre_c.AT and op not in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            break
    return guard & everything


def _lookbehind_first(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """``c(?<!Xc)`` as the equivalent ``(?<!X)c``: a pattern may put its guard after
    its first character, so that every alternative opens with a literal (which the
    engine scans for), and the guard still tells what may precede a match."""
    if len(items) >= 2 and items[0][0] is sre_c.LITERAL and items[1][0] is sre_c.ASSERT_NOT:
        direction, inner = items[1][1]
        inner = list(inner)
        if direction == -1 and len(inner) == 2 and inner[1] == items[0]:
            return [(sre_c.ASSERT_NOT, (-1, inner[:1])), items[0], *items[2:]]
    return items


def problems(pattern: re.Pattern[str], usages: Iterable[str]) -> list[str]:
    """The super-linear shapes of ``pattern`` under the given methods (``search``,
    ``match``, ``fullmatch``...); an empty list when it is linear."""
    usages = set(usages)
    flags = pattern.flags
    parsed = sre_p.parse(pattern.pattern, flags)
    items: list[tuple[Any, Any]] = list(parsed.data)
    found: list[str] = []
    for mode in sorted(usages):
        nfa = _Nfa(
            _alphabet(pattern.pattern),
            ignore_case=bool(flags & re.IGNORECASE),
            dotall=bool(flags & re.DOTALL),
            multiline=bool(flags & re.MULTILINE),
        )
        anchored = mode in ANCHORED_METHODS
        lead = items[0] if items else None
        if (
            lead is not None
            and lead[0] is sre_c.AT
            and (
                lead[1] is sre_c.AT_BEGINNING_STRING
                or (lead[1] is sre_c.AT_BEGINNING and not flags & re.MULTILINE)
            )
        ):
            anchored = True
        # a top-level alternation (in a group or not) is entered alternative by
        # alternative, so each one's leading assertions guard its own entry
        alternatives = [items]
        while len(items) == 1 and items[0][0] is sre_c.SUBPATTERN and not any(items[0][1][1:3]):
            items = list(items[0][1][-1])
        if len(items) == 1 and items[0][0] is sre_c.BRANCH:
            alternatives = [_lookbehind_first(list(alt)) for alt in items[0][1][1]]
        accept = nfa.state(assertion=mode == "fullmatch")
        final = nfa.state()
        nfa.eps[accept].append(final)
        start = nfa.state()
        if not anchored:
            # search retries from every position: a loop on any character in front of
            # the pattern, entered only after a character its leading assertions allow
            everything = nfa.mask(sre_c.ANY, None) | nfa.mask(sre_c.LITERAL, ord("\n"))
            skip, skipped = nfa.state(), nfa.state()
            nfa.consume[skip] = (everything, skipped)
            nfa.eps[start].append(skip)
            nfa.eps[skipped].append(skip)
        for alternative in alternatives:
            body_start, body_end = nfa.build(alternative)
            nfa.eps[body_end].append(accept)
            nfa.eps[start].append(body_start)
            if anchored:
                continue
            guard = _leading_guard(nfa, alternative, everything)
            if guard == everything:
                nfa.eps[skipped].append(body_start)
            else:
                entry = nfa.state()
                nfa.consume[entry] = (guard, body_start)
                nfa.eps[skipped].append(entry)
                nfa.eps[start].append(entry)
        graph, initial = _collapse(nfa, start, final)
        first_states = [state for state, _ in initial]
        components = _loop_components(graph)
        for component in components:
            if not _escapes(graph, component) and _exponential(graph, component):
                state = min(component)
                prefix = _path_to(graph, first_states, state, nfa.alphabet)
                found.append(
                    f"{mode}: exponential: a loop can read one word two ways (after {prefix!r})"
                )
        for p_comp in components:
            for q_comp in components:
                if p_comp is q_comp or _escapes(graph, q_comp):
                    continue
                if p_comp <= graph.greedy and _escapes(graph, p_comp):
                    continue  # the longest run of p ends the match: q never gets a try
                witness = _polynomial(graph, p_comp, q_comp, nfa.alphabet)
                if witness is not None:
                    p, word = witness
                    prefix = _path_to(graph, first_states, p, nfa.alphabet)
                    found.append(
                        f"{mode}: polynomial: two loops share {word!r} * n, then a failure "
                        f"(after {prefix!r})"
                    )
                    break
            else:
                continue
            break
    return found
