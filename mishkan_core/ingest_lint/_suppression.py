"""The one regular expression of the front matter: a ``mishkan-lint`` entry, ``allow
<RULE>[, <RULE>...] -- <reason>``. Imported only when a file has such an entry, so a
run over files without one never imports ``re`` (see ``_reader``)."""

from __future__ import annotations

import re

# The reason runs from its first to its last non-blank character; the greedy ".*"
# reaches the end at once (a lazy one made a long reason quadratic, issue 11).
SUPPRESSION = re.compile(
    r"^allow[ \t]+(?P<rules>[A-Za-z]+[0-9]+(?:[ \t]*,[ \t]*[A-Za-z]+[0-9]+)*)"
    r"(?:[ \t]+--(?:[ \t]+(?P<reason>[^ \t](?:.*[^ \t])?))?)?[ \t]*$"
)
