"""A small project for the index tests: graphify 0.9.96 builds graph.json from it."""

from .core import Option, echo, option, parse

__all__ = ["Option", "echo", "option", "parse"]
