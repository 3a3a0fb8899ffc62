"""Cold-start benchmark of the graphify nudge hook (run `tox -e bench`)."""
