"""The function words that tell a sentence, shared by the line roles (``_roles``) and
the shape model's first look (``_gate``), which must not import ``re``."""

from __future__ import annotations

# Function words: the grammar of a sentence. Words that are also keywords in common
# languages (for, in, if, not, and, or, is, as, from, with, at) are left out, so
# "for x in xs" is not a sentence. Short ones that a line of code may hold as a
# name ("a", "it", "to", "on") count only in pairs, or beside two ordinary words
# ("connecting to nodejs.org using h1").
# fmt: off
FUNCTION_WORDS = frozenset((
    "the", "an", "of", "to", "we", "it", "this", "that", "be", "are", "was", "were", "has",
    "have", "will", "would", "should", "can", "could", "our", "they", "you", "which", "when",
    "because", "but", "than", "also", "only", "into", "been", "may", "must", "there", "these",
    "those", "its", "their", "your", "what", "how", "why", "on", "by", "a",
    "The", "An", "A", "We", "It", "This", "In", "To", "When", "If", "Our", "There", "These",
    "Those", "What", "How", "Why", "By", "On", "That", "Its", "Their", "Your", "They", "You",
    "Which", "Because", "But", "Also", "Only",
))
WEAK_WORDS = frozenset(
    ("a", "an", "it", "to", "on", "by", "be", "A", "An", "It", "To", "On", "By", "In")
)
# fmt: on
