"""The detectors: one module per rule, pyupgrade style.

Each module registers one check function with ``@register(code, name, family,
summary)``. A check reads a ``Document`` and yields ``Hit``s with line-level
evidence. The engine runs them in rule-code order: specific structural
formats first (graph dumps, parse trees, symbol tables), then listings, then
the proportion-based bulk-source checks, so a block is reported by the most
specific rule that recognises it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Callable

from mishkan_core.ingest_lint._model import Document, Hit, Rule

Check = Callable[[Document], Iterator[Hit]]


@dataclass(frozen=True)
class Detector:
    rule: Rule
    check: Check


_REGISTRY: dict[str, Detector] = {}
_LOADED: list[bool] = []
#: the registry in rule-code order (emptied by ``register``): the engine asks once per file
_ORDERED: list[Detector] = []


def register(code: str, name: str, family: str, summary: str) -> Callable[[Check], Check]:
    """Register the decorated function as the check for rule ``code``."""

    def decorate(check: Check) -> Check:
        if code in _REGISTRY and _REGISTRY[code].check is not check:
            raise ValueError(f"rule {code} registered twice")
        _REGISTRY[code] = Detector(Rule(code, name, family, summary), check)
        _ORDERED.clear()
        return check

    return decorate


def detectors() -> list[Detector]:
    """All detectors, in the order the engine runs them."""
    if not _LOADED:
        for module in pkgutil.iter_modules(__path__):
            if not module.name.startswith("_"):
                importlib.import_module(f"{__name__}.{module.name}")
        _LOADED.append(True)
    if not _ORDERED:
        _ORDERED[:] = [_REGISTRY[code] for code in sorted(_REGISTRY)]
    return _ORDERED[:]


def get(code: str) -> Detector:
    for detector in detectors():
        if detector.rule.code == code:
            return detector
    raise KeyError(code)
