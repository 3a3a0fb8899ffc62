"""The D-008 and D-009 invariants, checked against a matrix and a harness's files.

Every check returns :class:`Violation` records; each renders as one line that
names the invariant (D-008 or D-009), the rule, the file and the offending
value. Nothing here prints or exits: :mod:`mishkan_core.routing` does that.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mishkan_core.routing.matrix import STORE_NAMES, Matrix, Store

if TYPE_CHECKING:
    from mishkan_core.routing.harness import Agent

#: D-009 "Scope - exactly five agents"
D009_AGENTS = ("hizkiah", "salma", "oholiab", "nathan", "zadok")
#: D-008: the writer kind each store allows ("No agent writes to Graphify",
#: "No build process writes to Cognee work", "No project writes to Cognee curated")
WRITER_KIND = {"graphify": "build", "cognee-work": "agent", "cognee-curated": "curation"}
WRITER_RULE = {
    "graphify": "no agent writes to Graphify: only the graphify CLI (kind 'build')",
    "cognee-work": "no build process writes to Cognee work: only agents (kind 'agent')",
    "cognee-curated": (
        "no project writes to Cognee curated: only /sprint-close and the seed script "
        "(kind 'curation')"
    ),
}
#: D-008 citation discipline: the fields each store's citation must carry
CITATION_FIELDS = {
    "graphify": ("node_id", "file:line"),
    "cognee-work": ("artifact",),
    "cognee-curated": ("node_id",),
}
#: D-008 "Ambiguous questions decompose into a structure half (Graphify) and a
#: semantics half (Cognee work)"
HALVES = {"structure": "graphify", "semantics": "cognee-work"}
#: Cognee's Neo4j bolt port inside its container (D-008 Integration)
COGNEE_BOLT_PORT = 7687
ADR_ID = re.compile(r"^D-\d{3,}$")

_PORT_IN_TEXT = re.compile(
    r"(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\]|[\w.-]):([0-9]{2,5})\b", re.ASCII
)
_PORT_OPTION = re.compile(r"^--?port(?:=([0-9]{2,5}))?$", re.ASCII)
_PORT_ENV = re.compile(r"^[A-Z_]*PORT=([0-9]{2,5})$", re.ASCII)


class UnusableInput(ValueError):
    """A harness file holds a value no tool would accept (a port "²"): exit 2."""


def _required_port(text: str, where: str) -> int | None:
    """The port a field must hold; an empty field holds none."""
    if not text:
        return None
    port = _port(text)
    if port is None:
        shown = text if len(text) <= 20 else text[:20] + "..."
        raise UnusableInput(f"{where}: {shown!r} is not a port (1-65535)")
    return port


def _port(text: str) -> int | None:
    """A TCP port written in ASCII digits, else None. ``str.isdigit`` accepts
    "²" and ``int`` then raises; a 5000-digit number is not a port either."""
    if not (0 < len(text) <= 5 and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if 0 < value < 65536 else None


@dataclass(frozen=True)
class Violation:
    """One finding: ``D-009 hook-mode: .claude/settings.json [project] env.X: what; fix: how``."""

    invariant: str  # "D-008" or "D-009"
    rule: str
    file: str  # the file, with its settings scope in brackets when it has one
    value: str  # what is wrong
    where: str = ""  # where in the file: a JSON path such as hooks.PreToolUse[1].hooks[0]
    fix: str = ""  # what to do about it, as a linter's help line would say

    def line(self) -> str:
        location = f"{self.file} {self.where}" if self.where else self.file
        fix = f"; fix: {self.fix}" if self.fix else ""
        return f"{self.invariant} {self.rule}: {location}: {self.value}{fix}"


# ---------------------------------------------------------------------------
# The matrix on its own


def check_matrix(matrix: Matrix, label: str) -> list[Violation]:
    out: list[Violation] = []
    out += _three_stores(matrix, label)
    out += _write_authority(matrix, label)
    out += _routing(matrix, label)
    out += _citations(matrix, label)
    out += _matrix_ports(matrix, label)
    out += _matrix_neo4j(matrix, label)
    out += _matrix_gate(matrix, label)
    graphify = matrix.stores.get("graphify")
    if graphify is not None and graphify.code_extensions is None:
        out.append(
            Violation(
                "D-009",
                "trigger-extensions",
                label,
                "stores.graphify.extracts.code_extensions is missing: the matrix must record "
                "what Graphify can extract",
            )
        )
    return out


def _three_stores(matrix: Matrix, label: str) -> Iterator[Violation]:
    for name in STORE_NAMES:
        if name not in matrix.stores:
            yield Violation("D-008", "three-stores", label, f"store {name!r} is missing")
    for name in matrix.stores:
        if name not in STORE_NAMES:
            yield Violation(
                "D-008",
                "three-stores",
                label,
                f"unknown store {name!r} (D-008 has exactly {', '.join(STORE_NAMES)})",
            )


def _write_authority(matrix: Matrix, label: str) -> Iterator[Violation]:
    owners: dict[str, list[str]] = {}
    for name, store in matrix.stores.items():
        if len(store.writers) != 1:
            ids = ", ".join(w.id for w in store.writers) or "none"
            yield Violation(
                "D-008",
                "exclusive-write",
                label,
                f"store {name!r} has {len(store.writers)} writers ({ids}); each store has one",
            )
        for writer in store.writers:
            for key in {writer.id, *writer.processes}:
                owners.setdefault(key, []).append(name)
            expected = WRITER_KIND.get(name)
            if expected is not None and writer.kind != expected:
                yield Violation(
                    "D-008",
                    "exclusive-write",
                    label,
                    f"store {name!r} writer {writer.id!r} is kind {writer.kind!r}; "
                    f"{WRITER_RULE[name]}",
                )
    for key, names in owners.items():
        distinct = sorted(set(names), key=names.index)
        if len(distinct) > 1:
            yield Violation(
                "D-008",
                "exclusive-write",
                label,
                f"writer {key!r} writes to {' and '.join(distinct)}; no writer may write "
                "to two stores",
            )
    curated = matrix.stores.get("cognee-curated")
    if curated is not None and not curated.read_only_from_projects:
        yield Violation(
            "D-008",
            "exclusive-write",
            label,
            "stores.cognee-curated.read_only_from_projects is false; no project writes to "
            "Cognee curated",
        )


def _routing(matrix: Matrix, label: str) -> Iterator[Violation]:
    seen: set[str] = set()
    routed: set[str] = set()
    for qclass in matrix.classes:
        where = f"question class {qclass.id!r}"
        if qclass.id in seen:
            yield Violation("D-008", "routing", label, f"{where} is defined twice")
        seen.add(qclass.id)
        for store in qclass.stores:
            routed.add(store)
            if store not in matrix.stores:
                yield Violation(
                    "D-008", "routing", label, f"{where} routes to unknown store {store!r}"
                )
        if not qclass.ambiguous:
            if len(qclass.stores) != 1:
                yield Violation(
                    "D-008",
                    "routing",
                    label,
                    f"{where} routes to {len(qclass.stores)} stores "
                    f"[{', '.join(qclass.stores)}]; a class routes to exactly one store "
                    "unless it is ambiguous and split into halves",
                )
            if qclass.halves:
                yield Violation(
                    "D-008", "routing", label, f"{where} has halves but is not marked ambiguous"
                )
            continue
        got = [(h.half, h.store) for h in qclass.halves]
        if sorted(got) != sorted(HALVES.items()):
            shown = ", ".join(f"{h}->{s}" for h, s in got) or "none"
            yield Violation(
                "D-008",
                "routing",
                label,
                f"ambiguous {where} has halves [{shown}]; it must decompose into a structure "
                "half (graphify) and a semantics half (cognee-work)",
            )
        if sorted(qclass.stores) != sorted(h.store for h in qclass.halves):
            yield Violation(
                "D-008",
                "routing",
                label,
                f"ambiguous {where} lists stores [{', '.join(qclass.stores)}] that differ from "
                "its halves' stores",
            )
    for name in matrix.stores:
        if name in STORE_NAMES and name not in routed:
            yield Violation(
                "D-008", "routing", label, f"no question class routes to store {name!r}"
            )


def _citations(matrix: Matrix, label: str) -> Iterator[Violation]:
    for name, store in matrix.stores.items():
        for needed in CITATION_FIELDS.get(name, ()):
            if needed not in store.citation_fields:
                yield Violation(
                    "D-008",
                    "citation",
                    label,
                    f"store {name!r} citation fields [{', '.join(store.citation_fields)}] "
                    f"lack {needed!r}",
                )


def _matrix_ports(matrix: Matrix, label: str) -> Iterator[Violation]:
    port_owner: dict[int, str] = {}
    mcp_owner: dict[str, str] = {}
    for name, store in matrix.stores.items():
        for port in store.ports:
            if port in port_owner:
                yield Violation(
                    "D-008",
                    "mcp-ports",
                    label,
                    f"port {port} is given to both {port_owner[port]!r} and {name!r}",
                )
            port_owner.setdefault(port, name)
        if store.mcp_server:
            if store.mcp_server in mcp_owner:
                yield Violation(
                    "D-008",
                    "mcp-ports",
                    label,
                    f"MCP server {store.mcp_server!r} is given to both "
                    f"{mcp_owner[store.mcp_server]!r} and {name!r}",
                )
            mcp_owner.setdefault(store.mcp_server, name)


def _matrix_neo4j(matrix: Matrix, label: str) -> Iterator[Violation]:
    graphify = matrix.stores.get("graphify")
    cognee = matrix.stores.get("cognee-work")
    g = graphify.neo4j if graphify else None
    c = cognee.neo4j if cognee else None
    if g is None:
        return
    cognee_host_port = c.host_port if c is not None else COGNEE_BOLT_PORT
    if c is not None:
        for attr in ("container", "compose_service"):
            gv, cv = getattr(g, attr), getattr(c, attr)
            if gv and gv == cv:
                yield Violation(
                    "D-008",
                    "neo4j-isolation",
                    label,
                    f"graphify and cognee-work share the Neo4j {attr} {gv!r}",
                )
    if g.host_port is not None and g.host_port == cognee_host_port:
        yield Violation(
            "D-008",
            "neo4j-isolation",
            label,
            f"graphify Neo4j host port {g.host_port} is Cognee work's Neo4j port",
        )


def _matrix_gate(matrix: Matrix, label: str) -> Iterator[Violation]:
    adr = matrix.gate.adr
    if adr is not None and not ADR_ID.match(adr):
        yield Violation(
            "D-009", "gate-scope", label, f"gate.adr {adr!r} is not an ADR id like 'D-010'"
        )
    if adr:
        return
    agents = sorted(a.lower() for a in matrix.gate.agents)
    if agents != sorted(D009_AGENTS):
        yield Violation(
            "D-009",
            "gate-scope",
            label,
            f"gate.agents is [{', '.join(matrix.gate.agents)}]; D-009 names exactly "
            f"{', '.join(D009_AGENTS)} (a change needs gate.adr naming the amendment)",
        )


# ---------------------------------------------------------------------------
# The hook's own constants


@dataclass(frozen=True)
class HookFacts:
    file: str
    scope_agents: frozenset[str]
    trigger_extensions: frozenset[str]


def expected_agents(matrix: Matrix) -> tuple[str, ...]:
    if matrix.gate.adr:
        return tuple(a.lower() for a in matrix.gate.agents)
    return D009_AGENTS


def check_hook(matrix: Matrix, hook: HookFacts) -> list[Violation]:
    out: list[Violation] = []
    expected = set(expected_agents(matrix))
    scope = {a.lower() for a in hook.scope_agents}
    why = f"amended by {matrix.gate.adr}" if matrix.gate.adr else "D-009 names exactly five"
    for agent in sorted(scope - expected):
        out.append(
            Violation(
                "D-009",
                "gate-scope",
                hook.file,
                f"SCOPE_AGENTS includes {agent!r}, which is not in scope ({why})",
            )
        )
    for agent in sorted(expected - scope):
        out.append(
            Violation(
                "D-009",
                "gate-scope",
                hook.file,
                f"SCOPE_AGENTS lacks {agent!r} ({why})",
            )
        )
    graphify = matrix.stores.get("graphify")
    extractable = set(graphify.code_extensions or ()) if graphify else set()
    extractable_lower = {e.lower() for e in extractable}
    if graphify is not None and graphify.code_extensions is not None:
        for ext in sorted(hook.trigger_extensions):
            if ext not in extractable and ext.lower() not in extractable_lower:
                out.append(
                    Violation(
                        "D-009",
                        "trigger-extensions",
                        hook.file,
                        f"TRIGGER_EXTENSIONS has {ext!r}, which Graphify cannot extract",
                    )
                )
    return out


# ---------------------------------------------------------------------------
# .claude/agents


def check_agents(matrix: Matrix, agents: list[Agent], looked_in: str) -> list[Violation]:
    """Each in-scope agent has a definition Claude Code would load: a project
    or user agent file, or an enabled plugin's ``<plugin>:<name>`` agent."""
    names = {agent.name for agent in agents}
    return [
        Violation(
            "D-009",
            "gate-scope",
            looked_in,
            f"no agent file for in-scope agent {agent!r} (expected {agent}.md, or a plugin "
            f"agent named <plugin>:{agent})",
            fix=f"add .claude/agents/{agent}.md",
        )
        for agent in expected_agents(matrix)
        if agent not in names
    ]


# ---------------------------------------------------------------------------
# .mcp.json


def _server_ports(name: str, server: dict[str, Any]) -> set[int]:
    ports: set[int] = set()
    url = server.get("url")
    if isinstance(url, str):
        try:
            port = urlsplit(url).port
        except ValueError:
            port = None
        if port is not None:
            ports.add(port)
    texts: list[str] = []
    for key in ("command", "args"):
        value = server.get(key)
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list):
            texts.extend(v for v in value if isinstance(v, str))
    env = server.get("env")
    if isinstance(env, dict):
        texts.extend(f"{k}={v}" for k, v in env.items() if isinstance(v, (str, int)))
    previous = ""
    found: list[int | None] = []
    for text in texts:
        found += [_port(p) for p in _PORT_IN_TEXT.findall(text)]  # a guess: skip non-ports
        option = _PORT_OPTION.match(text)
        if option and option.group(1):
            found.append(_port(option.group(1)))
        if _PORT_OPTION.match(previous):
            found.append(_required_port(text, f"MCP server {name!r} {previous}"))
        env_port = _PORT_ENV.match(text)
        if env_port:
            found.append(_port(env_port.group(1)))
        previous = text
    ports.update(p for p in found if p is not None)
    return ports


def check_mcp(matrix: Matrix, mcp: Any, label: str) -> list[Violation]:
    out: list[Violation] = []
    servers = mcp.get("mcpServers") if isinstance(mcp, dict) else None
    if not isinstance(servers, dict):
        return [Violation("D-008", "mcp-ports", label, "no 'mcpServers' object")]
    server_ports = {
        name: _server_ports(name, cfg) for name, cfg in servers.items() if isinstance(cfg, dict)
    }
    for name, store in matrix.stores.items():
        if not store.mcp_server:
            continue
        if store.mcp_server not in server_ports:
            out.append(
                Violation(
                    "D-008",
                    "mcp-ports",
                    label,
                    f"MCP server {store.mcp_server!r} for store {name!r} is not configured",
                )
            )
            continue
        found = server_ports[store.mcp_server]
        if store.ports and not (found & set(store.ports)):
            shown = ", ".join(str(p) for p in sorted(found)) or "no port"
            out.append(
                Violation(
                    "D-008",
                    "mcp-ports",
                    label,
                    f"MCP server {store.mcp_server!r} uses {shown}; the matrix gives store "
                    f"{name!r} port {', '.join(str(p) for p in store.ports)}",
                )
            )
    for server, found in server_ports.items():
        for name, store in matrix.stores.items():
            if store.mcp_server == server:
                continue
            clash = found & set(store.ports)
            if clash:
                out.append(
                    Violation(
                        "D-008",
                        "mcp-ports",
                        label,
                        f"MCP server {server!r} uses port {min(clash)}, which the matrix gives "
                        f"to store {name!r} (MCP {store.mcp_server!r})",
                    )
                )
    return out


# ---------------------------------------------------------------------------
# docker compose config --format json


def _published_ports(name: str, service: dict[str, Any]) -> set[int]:
    ports: set[int] = set()
    raw = service.get("ports")
    if not isinstance(raw, list):
        return ports
    for i, entry in enumerate(raw):
        where = f"service {name!r} ports[{i}]"
        if isinstance(entry, dict):
            published = entry.get("published")
            if published is None:
                continue
            text = published if isinstance(published, str) else str(published)[:6]
            port = _required_port(text.split("-", 1)[0], where)
        elif isinstance(entry, (str, int)):
            parts = (entry if isinstance(entry, str) else str(entry)[:6]).split("/", 1)[0]
            fields = parts.split(":")
            port = _required_port(fields[-2].split("-", 1)[0], where) if len(fields) >= 2 else None
        else:
            port = None
        if port is not None:
            ports.add(port)
    return ports


def _data_volumes(service: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    raw = service.get("volumes")
    if not isinstance(raw, list):
        return names
    for entry in raw:
        if isinstance(entry, dict) and entry.get("type") in ("volume", "bind"):
            source = entry.get("source")
            if isinstance(source, str) and source:
                names.add(source)
        elif isinstance(entry, str) and ":" in entry:
            names.add(entry.split(":", 1)[0])
    return names


def _find_service(services: dict[str, Any], store: Store) -> tuple[str, dict[str, Any]] | None:
    n = store.neo4j
    if n is None:
        return None
    for name, svc in services.items():
        if not isinstance(svc, dict):
            continue
        if name == n.compose_service or (n.container and svc.get("container_name") == n.container):
            return name, svc
    return None


def check_compose(matrix: Matrix, compose: Any, label: str) -> list[Violation]:
    services = compose.get("services") if isinstance(compose, dict) else None
    if not isinstance(services, dict):
        return [Violation("D-008", "neo4j-isolation", label, "no 'services' object")]
    graphify = matrix.stores.get("graphify")
    cognee = matrix.stores.get("cognee-work")
    if graphify is None or cognee is None:
        return []
    g = _find_service(services, graphify)
    c = _find_service(services, cognee)
    if g is None:
        return []  # the Graphify Neo4j is opt-in; nothing to collide
    out: list[Violation] = []
    g_name, g_svc = g
    cognee_ports = set()
    if cognee.neo4j is not None and cognee.neo4j.host_port is not None:
        cognee_ports.add(cognee.neo4j.host_port)
    if c is not None:
        c_name, c_svc = c
        if c_name == g_name:
            out.append(
                Violation(
                    "D-008",
                    "neo4j-isolation",
                    label,
                    f"service {g_name!r} is both the Graphify and the Cognee work Neo4j",
                )
            )
            return out
        cognee_ports |= _published_ports(c_name, c_svc)
        g_container = g_svc.get("container_name")
        if g_container and g_container == c_svc.get("container_name"):
            out.append(
                Violation(
                    "D-008",
                    "neo4j-isolation",
                    label,
                    f"services {g_name!r} and {c_name!r} share container_name {g_container!r}",
                )
            )
        shared = _data_volumes(g_svc) & _data_volumes(c_svc)
        for volume in sorted(shared):
            out.append(
                Violation(
                    "D-008",
                    "neo4j-isolation",
                    label,
                    f"services {g_name!r} and {c_name!r} share the volume {volume!r}",
                )
            )
    for port in sorted(_published_ports(g_name, g_svc) & cognee_ports):
        out.append(
            Violation(
                "D-008",
                "neo4j-isolation",
                label,
                f"service {g_name!r} publishes host port {port}, Cognee work's Neo4j port",
            )
        )
    return out


def all_lines(violations: Iterable[Violation]) -> list[str]:
    return [v.line() for v in violations]
