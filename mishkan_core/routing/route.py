"""``mishkan route "<question>"``: say which D-008 store answers a question.

Deterministic and standard-library only. The rules are data
(``mishkan_core/data/route_rules.json``): each rule is a set of regular
expressions that adds a weight to one question class; the class with the
highest score wins (ties by ``tie_order``). The classes, their stores, the
halves of the ambiguous class and the citation shapes come from the routing
matrix, so the router and ``mishkan routing check`` read the same truth.

Output (``--format json``)::

    {"stores": [...], "halves": [{"store": ..., "asks": ..., "cite": ...}],
     "cite": {store: citation shape}, "class": ..., "confident": bool, "matched": [...]}

``halves`` is empty unless the question is the ambiguous "why does this code
do Y" kind, which is answered by a structure half and a semantics half.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mishkan_core.routing.matrix import Matrix, MatrixError, load_matrix, loads_strict, read_json

_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z_]*)\}")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


class RulesError(Exception):
    """The rules file cannot be used."""


@dataclass(frozen=True)
class Rule:
    id: str
    cls: str
    weight: int
    all: tuple[re.Pattern[str], ...]
    any: tuple[re.Pattern[str], ...]
    none: tuple[re.Pattern[str], ...]

    def matches(self, text: str) -> bool:
        if not all(p.search(text) for p in self.all):
            return False
        if self.any and not any(p.search(text) for p in self.any):
            return False
        return not any(p.search(text) for p in self.none)


@dataclass(frozen=True)
class Rules:
    rules: tuple[Rule, ...]
    tie_order: tuple[str, ...]
    fallback_code: str
    fallback_other: str
    code_ref: re.Pattern[str]
    min_confident: int = 2


def _expand(pattern: str, lexicon: dict[str, str], where: str) -> str:
    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in lexicon:
            raise RulesError(f"{where}: unknown lexicon entry {{{name}}}")
        return lexicon[name]

    return _PLACEHOLDER.sub(sub, pattern)


def _compile(pattern: str, lexicon: dict[str, str], where: str) -> re.Pattern[str]:
    try:
        return re.compile(_expand(pattern, lexicon, where), re.IGNORECASE)
    except re.error as exc:
        raise RulesError(f"{where}: bad regular expression: {exc}") from None


def parse_rules(data: Any, label: str) -> Rules:
    if not isinstance(data, dict):
        raise RulesError(f"{label}: expected an object")
    lexicon = data.get("lexicon", {})
    if not isinstance(lexicon, dict) or not all(isinstance(v, str) for v in lexicon.values()):
        raise RulesError(f"{label}: lexicon must map names to patterns")
    raw_rules = data.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules:
        raise RulesError(f"{label}: rules must be a non-empty list")
    rules: list[Rule] = []
    for i, raw in enumerate(raw_rules):
        where = f"{label}: rules[{i}]"
        if not isinstance(raw, dict):
            raise RulesError(f"{where}: expected an object")
        rid, cls, weight = raw.get("id"), raw.get("class"), raw.get("weight", 1)
        if not isinstance(rid, str) or not isinstance(cls, str):
            raise RulesError(f"{where}: id and class must be strings")
        if not isinstance(weight, int) or isinstance(weight, bool):
            raise RulesError(f"{where}: weight must be an integer")
        groups: dict[str, tuple[re.Pattern[str], ...]] = {}
        for key in ("all", "any", "none"):
            patterns = raw.get(key, [])
            if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
                raise RulesError(f"{where}.{key}: expected a list of patterns")
            groups[key] = tuple(_compile(p, lexicon, f"{where}.{key}") for p in patterns)
        if not groups["all"] and not groups["any"]:
            raise RulesError(f"{where}: needs `all` or `any` patterns")
        rules.append(Rule(rid, cls, weight, groups["all"], groups["any"], groups["none"]))
    tie_order = data.get("tie_order", [])
    fallback = data.get("fallback", {})
    if not isinstance(tie_order, list) or not isinstance(fallback, dict):
        raise RulesError(f"{label}: tie_order must be a list and fallback an object")
    code_ref = _compile(lexicon.get("CODE_REF", r"`[^`]+`"), lexicon, f"{label}: CODE_REF")
    return Rules(
        rules=tuple(rules),
        tie_order=tuple(str(t) for t in tie_order),
        fallback_code=str(fallback.get("when_code", "structure")),
        fallback_other=str(fallback.get("otherwise", "rationale")),
        code_ref=code_ref,
        min_confident=int(data.get("min_confident_score", 2)),
    )


def load_rules(path: Path | None = None) -> Rules:
    if path is None:
        from importlib import resources

        label = "mishkan_core/data/route_rules.json"
        text = (resources.files("mishkan_core") / "data" / "route_rules.json").read_text(
            encoding="utf-8"
        )
        return parse_rules(loads_strict(text), label)
    try:
        data = read_json(path, "rules")
    except MatrixError as exc:
        raise RulesError(str(exc)) from None
    return parse_rules(data, str(path))


@dataclass(frozen=True)
class Routing:
    question: str
    cls: str
    stores: tuple[str, ...]
    halves: tuple[dict[str, str], ...]
    cite: dict[str, str]
    confident: bool
    matched: tuple[str, ...]
    scores: dict[str, int]

    def as_json(self) -> dict[str, Any]:
        return {
            "stores": list(self.stores),
            "halves": [dict(h) for h in self.halves],
            "cite": dict(self.cite),
            "class": self.cls,
            "confident": self.confident,
            "matched": list(self.matched),
        }


def normalise(question: str) -> str:
    return " ".join(question.translate(_QUOTES).split())


def classify(question: str, rules: Rules) -> tuple[str, bool, tuple[str, ...], dict[str, int]]:
    """Return (class, confident, matched rule ids, scores)."""
    text = normalise(question)
    scores: dict[str, int] = {}
    matched: list[str] = []
    for rule in rules.rules:
        if rule.matches(text):
            scores[rule.cls] = scores.get(rule.cls, 0) + rule.weight
            matched.append(rule.id)
    positive = {c: s for c, s in scores.items() if s > 0}
    if not positive:
        cls = rules.fallback_code if rules.code_ref.search(text) else rules.fallback_other
        return cls, False, tuple(matched), scores
    order = {c: i for i, c in enumerate(rules.tie_order)}
    best = max(positive.items(), key=lambda kv: (kv[1], -order.get(kv[0], len(order))))
    return best[0], best[1] >= rules.min_confident, tuple(matched), scores


def route(question: str, matrix: Matrix, rules: Rules) -> Routing:
    cls, confident, matched, scores = classify(question, rules)
    qclass = matrix.store_for_class(cls)
    if qclass is None:
        raise RulesError(f"rules route to class {cls!r}, which the matrix does not define")
    shapes = {name: store.citation_shape for name, store in matrix.stores.items()}
    halves = tuple(
        {"half": h.half, "store": h.store, "asks": h.asks, "cite": shapes.get(h.store, "")}
        for h in qclass.halves
    )
    return Routing(
        question=question,
        cls=cls,
        stores=qclass.stores,
        halves=halves,
        cite={s: shapes.get(s, "") for s in qclass.stores},
        confident=confident,
        matched=matched,
        scores=scores,
    )


def render_text(result: Routing) -> str:
    lines = [
        f"{' + '.join(result.stores)}  ({result.cls}{'' if result.confident else ', guessed'})"
    ]
    if result.halves:
        lines.append("  answer both halves; never fuse them:")
        for half in result.halves:
            lines.append(f"  {half['half']} half -> {half['store']}: {half['asks']}")
            lines.append(f"    cite: {half['cite']}")
    else:
        for store, shape in result.cite.items():
            lines.append(f"  cite ({store}): {shape}")
    lines.append(f"  matched: {', '.join(result.matched) or 'nothing (fallback)'}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", help="the question to route, in quotes")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--matrix", type=Path, help="matrix JSON (default: the packaged one)")
    parser.add_argument("--rules", type=Path, help="router rules JSON (default: the packaged one)")


def run(args: argparse.Namespace) -> int:
    question = normalise(args.question)
    if not question:
        print("mishkan route: error: the question is empty", file=sys.stderr)
        return 2
    try:
        matrix, _label = load_matrix(args.matrix)
        rules = load_rules(args.rules)
        result = route(question, matrix, rules)
    except (MatrixError, RulesError) as exc:
        print(f"mishkan route: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(result.as_json()))
    else:
        print(render_text(result))
    return 0
