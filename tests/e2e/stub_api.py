"""A scripted stand-in for the Anthropic Messages API, standard library only.

The real Claude Code CLI is pointed at it with ``ANTHROPIC_BASE_URL``. It answers
``HEAD /`` and ``POST /v1/messages`` (streaming SSE or plain JSON), and picks each
reply from a script by *who* is asking and *how far* the conversation has got:

* who: the subagent's requests carry the agent file's body in the system prompt
  (we look for :data:`SUBAGENT_MARKER`); the main agent's requests offer the
  ``Agent`` tool; anything else (side queries the CLI makes on its own) gets a
  short plain-text answer;
* how far: the number of ``tool_result`` blocks in the whole conversation.

Every request body is logged, so the tests can read exactly what the model
would have received (hook ``additionalContext`` arrives as a
``<system-reminder>``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A unique string placed in the body of ``.claude/agents/hizkiah.md``.
SUBAGENT_MARKER = "E2E-HIZKIAH-AGENT-BODY-7f3c"

MODEL = "claude-sonnet-4-5"


@dataclass(frozen=True)
class ToolUse:
    """One scripted tool call; ``key`` names it in the tests (ids are made up)."""

    key: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class Text:
    text: str


Script = list[Any]  # list of ToolUse | Text, one per turn


@dataclass
class LoggedRequest:
    seq: int
    method: str
    path: str
    role: str  # "main", "sub", "side" or "" for non-message endpoints
    tool_results: int
    body: Any
    reply: dict[str, Any] | None = None


def system_text(body: Any) -> str:
    """The system prompt of a request as one string (it may be a list of blocks)."""
    if not isinstance(body, dict):
        return ""
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(str(block.get("text", "")) for block in system if isinstance(block, dict))
    return ""


def tool_names(body: Any) -> list[str]:
    if not isinstance(body, dict) or not isinstance(body.get("tools"), list):
        return []
    return [str(t.get("name")) for t in body["tools"] if isinstance(t, dict)]


def iter_blocks(body: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every content block of every message, with the message's role."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return
    for message in body["messages"]:
        if not isinstance(message, dict):
            continue
        role = str(message.get("role"))
        content = message.get("content")
        if isinstance(content, str):
            yield role, {"type": "text", "text": content}
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict):
                    yield role, block


def count_tool_results(body: Any) -> int:
    return sum(1 for _, block in iter_blocks(body) if block.get("type") == "tool_result")


def classify(body: Any) -> str:
    if SUBAGENT_MARKER in system_text(body):
        return "sub"
    if "Agent" in tool_names(body):
        return "main"
    return "side"


@dataclass
class StubState:
    scripts: dict[str, Script]
    side_text: str = "ok"
    log: list[LoggedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    ids: dict[str, str] = field(default_factory=dict)  # tool_use_id -> ToolUse.key

    def next_seq(self) -> int:
        return len(self.log)


def _tool_use_id(role: str, turn: int) -> str:
    return f"toolu_e2e_{role}_{turn:02d}"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request log is the record; keep stderr quiet

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        state = self.server.state
        with state.lock:
            state.log.append(LoggedRequest(state.next_seq(), "HEAD", self.path, "", 0, None))
        self._send(200, b"")

    def do_GET(self) -> None:
        state = self.server.state
        with state.lock:
            state.log.append(LoggedRequest(state.next_seq(), "GET", self.path, "", 0, None))
        self._send(404, b'{"type":"error","error":{"type":"not_found_error","message":"stub"}}')

    def do_POST(self) -> None:
        state = self.server.state
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0]
        if path.endswith("/count_tokens"):
            with state.lock:
                state.log.append(LoggedRequest(state.next_seq(), "POST", self.path, "", 0, body))
            self._send(200, b'{"input_tokens":100}')
            return
        if not path.endswith("/v1/messages"):
            with state.lock:
                state.log.append(LoggedRequest(state.next_seq(), "POST", self.path, "", 0, body))
            self._send(404, b'{"type":"error","error":{"type":"not_found_error","message":"stub"}}')
            return
        role = classify(body)
        turn = count_tool_results(body)
        content = self._reply_content(role, turn)
        with state.lock:
            entry = LoggedRequest(state.next_seq(), "POST", self.path, role, turn, body)
            entry.reply = {"content": content}
            state.log.append(entry)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        message_id = f"msg_e2e_{entry.seq:04d}"
        if isinstance(body, dict) and body.get("stream"):
            self._stream(message_id, content, stop)
        else:
            message = {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 20},
            }
            self._send(200, json.dumps(message).encode("utf-8"))

    def _reply_content(self, role: str, turn: int) -> list[dict[str, Any]]:
        state = self.server.state
        script = state.scripts.get(role)
        if not script:
            return [{"type": "text", "text": state.side_text}]
        step = script[turn] if turn < len(script) else Text("done")
        if isinstance(step, ToolUse):
            tool_use_id = _tool_use_id(role, turn)
            with state.lock:
                state.ids[tool_use_id] = step.key
            return [{"type": "tool_use", "id": tool_use_id, "name": step.name, "input": step.input}]
        return [{"type": "text", "text": step.text}]

    def _stream(self, message_id: str, content: list[dict[str, Any]], stop: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def event(name: str, data: dict[str, Any]) -> None:
            payload = f"event: {name}\ndata: {json.dumps(data)}\n\n"
            self.wfile.write(payload.encode("utf-8"))

        event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": MODEL,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 100, "output_tokens": 1},
                },
            },
        )
        for index, block in enumerate(content):
            if block["type"] == "tool_use":
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
            event(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
            event("content_block_stop", {"type": "content_block_stop", "index": index})
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
        event("message_stop", {"type": "message_stop"})
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: StubState


class StubAPI:
    """Run the stub on 127.0.0.1 on a free port, in a background thread."""

    def __init__(self, scripts: dict[str, Script], side_text: str = "ok") -> None:
        self.state = StubState(scripts=scripts, side_text=side_text)
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = self.state
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> StubAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    # --- reading the log -------------------------------------------------

    def messages(self, role: str | None = None) -> list[LoggedRequest]:
        with self.state.lock:
            entries = list(self.state.log)
        return [e for e in entries if e.role and (role is None or e.role == role)]

    def key_of(self, tool_use_id: str) -> str | None:
        return self.state.ids.get(tool_use_id)

    def dump(self, path: str) -> None:
        with self.state.lock:
            entries = list(self.state.log)
        with open(path, "w", encoding="utf-8") as handle:
            for e in entries:
                handle.write(
                    json.dumps(
                        {
                            "seq": e.seq,
                            "method": e.method,
                            "path": e.path,
                            "role": e.role,
                            "tool_results": e.tool_results,
                            "reply": e.reply,
                            "body": e.body,
                        }
                    )
                    + "\n"
                )
