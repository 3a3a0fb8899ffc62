"""Settings for every test."""

from hypothesis import settings

# The unit envs run two at a time (scripts/dev test) on shared 2-core machines:
# hypothesis' default 200 ms per-example deadline would measure the machine's
# load, not the code. Tests that bound time do it in their own terms.
settings.register_profile("mishkan", deadline=None)
settings.load_profile("mishkan")
