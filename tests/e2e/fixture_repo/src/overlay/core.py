"""Overlay a set of key/value layers onto a base mapping."""

from __future__ import annotations


class Overlay:
    """One named layer of settings."""

    def __init__(self, name: str, values: dict[str, str]) -> None:
        self.name = name
        self.values = dict(values)

    def keys(self) -> list[str]:
        return sorted(self.values)


def merge_layer(base: dict[str, str], layer: Overlay) -> dict[str, str]:
    merged = dict(base)
    merged.update(layer.values)
    return merged


def apply_overlay(base: dict[str, str], layers: list[Overlay]) -> dict[str, str]:
    """Apply every layer in order; later layers win."""
    result = dict(base)
    for layer in layers:
        result = merge_layer(result, layer)
    return result
