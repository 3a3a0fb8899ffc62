"""`mishkan graph-index`: build the graph index the hook reads, now.

The hook builds its index of graph.json lazily, in a detached background
process, the first time a trigger finds it missing or outdated. This command
builds it synchronously, for the graph the hook would pick
in the project and with the same environment (MISHKAN_TELEMETRY_DIR,
MISHKAN_GRAPHIFY_GRAPH, GRAPHIFY_OUT). The builder is the hook's companion
module graphify_nudge_index (the process the hook spawns runs the same code).

Exit codes: 0 built or already current, 2 no graph or a graph that cannot be read.
"""

from __future__ import annotations

import argparse
import os
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project",
        default=None,
        help="the project root (default: $CLAUDE_PROJECT_DIR, else the current directory)",
    )


def run(args: argparse.Namespace) -> int:
    import graphify_nudge
    import graphify_nudge_index

    project = args.project or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    root = os.path.abspath(project)
    try:
        outcome = graphify_nudge_index.build_graph_index(os.environ, root)
    except (graphify_nudge_index.GraphIndexError, OSError) as exc:
        print(f"mishkan graph-index: {exc}", file=sys.stderr)
        return 2
    graph = graphify_nudge.find_graph(os.environ, root)
    print(f"graph index {outcome}: {graph.display}")
    return 0
