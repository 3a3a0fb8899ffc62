# graphify-nudge.sh: starts the graphify-nudge hook (graphify_nudge.py, beside
# this file) for Claude Code, on any machine. `mishkan install` registers it as
#
#   mode=advise hooks="$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"; command . "$hooks/graphify-nudge.sh" 2>/dev/null || true
#
# the same line for every teammate: no path of one machine. Claude Code runs it
# with /bin/sh -c, and that shell reads this file (`.`) rather than starting
# another one: a process fewer on every tool call (docs/install.md, "What it
# costs"). So this file sets only the lower-case variables below, and starts
# Python as a child: whatever fails here or in Python, `command .` (a missing
# or broken file is an error, not the end of the shell) and `2>/dev/null ||
# true` give Claude Code exit 0 and nothing on stdout or stderr.
#
# What differs per machine it reads from a file outside the repository that
# `mishkan install` writes on each machine:
#
#   ${XDG_CONFIG_HOME:-$HOME/.config}/mishkan/graphify-nudge.conf
#   python=/abs/path/to/python3.X   the interpreter (never a version-manager shim)
#   pycache=/abs/path               where the hook's bytecode is (outside every repository)
#
# Without that file (a teammate who has not run `mishkan install`): the first
# python3 on PATH that is not a shim, and the user's cache directory; it works,
# and its first call compiles the hook there.

python=
pycache=
conf=${XDG_CONFIG_HOME:-$HOME/.config}/mishkan/graphify-nudge.conf
if [ -f "$conf" ]; then
    while IFS= read -r line; do
        case $line in
            python=/*) python=${line#python=} ;;
            pycache=/*) pycache=${line#pycache=} ;;
        esac
    done <"$conf"
fi

if [ ! -x "$python" ]; then
    # No interpreter recorded on this machine: the first python3 on PATH, skipping
    # relative entries (they resolve in the project) and shims (pyenv, asdf, mise:
    # ~50 ms a call, and the project's version files would choose the interpreter).
    python=
    set -f
    IFS=:
    for dir in $PATH; do
        case $dir in
            /*/shims | /*/shims/*) ;;
            /*) if [ -x "$dir/python3" ]; then python=$dir/python3; break; fi ;;
        esac
    done
    unset IFS
    [ -n "$python" ] || exit 0
fi
[ -n "$pycache" ] || pycache=${XDG_CACHE_HOME:-$HOME/.cache}/mishkan/pycache

# -I -S: no site-packages, no environment variables, no working directory on
# sys.path; -B: no module writes bytecode, but for the hook's own, below. The
# Python loads the hook by its path (never by name through sys.path, where a
# graphify_nudge/ package, a .so or a json.py beside it would be found first)
# with its bytecode from $pycache, outside the repository, never from the
# hooks directory's __pycache__ (which a clone or a PR can ship). It is
# graphify_nudge.load_code("graphify_nudge"), the loader the hook also spawns
# its index builder with (tests/install/test_shim.py holds the two equal).
"$python" -I -S -B -c '
import sys, _frozen_importlib as bootstrap, _frozen_importlib_external as external
cache = sys.argv.pop(2) if sys.argv[2:3] and sys.argv[2][:2] != "--" else ""
sys.pycache_prefix = cache or "/dev/null"
writes = sys.dont_write_bytecode
sys.dont_write_bytecode = not cache
spec = external.spec_from_file_location("graphify_nudge", sys.argv[1] + "/graphify_nudge.py")
module = bootstrap.module_from_spec(spec)
sys.modules["graphify_nudge"] = module
spec.loader.exec_module(module)
module._pycache = cache
sys.pycache_prefix = None
sys.dont_write_bytecode = writes
module.main()
' "$hooks" "$pycache" --mode="$mode"
