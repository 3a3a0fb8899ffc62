"""Small string helpers; nothing here touches apply_overlay."""

from __future__ import annotations


def slugify(text: str) -> str:
    return "-".join(part for part in text.lower().split() if part)
