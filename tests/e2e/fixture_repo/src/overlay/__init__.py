"""A tiny package for the end-to-end test: graphify builds its graph from it."""

from .core import Overlay, apply_overlay

__all__ = ["Overlay", "apply_overlay"]
