"""The HTTP front of the local Supabase stand-in: one address, as a Supabase project has, whose
`/auth/v1/...` requests go to the GoTrue double and `/rest/v1/...` requests to the PostgREST double.

The doubles are plain functions of a `Request` to a `Reply`; this module only speaks HTTP/1.1 for them
(keep-alive, so the client's connection pool behaves as against a real project).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    """Without the query string, e.g. `/rest/v1/rpc/get_chat`."""
    query: Mapping[str, str]
    headers: Mapping[str, str]
    """Header names in lower case."""
    body: bytes

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def bearer_token(self) -> str | None:
        value = self.header("authorization") or ""
        scheme, _, token = value.partition(" ")
        return token.strip() if scheme.lower() == "bearer" and token.strip() else None


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)


def json_reply(status: int, data: Any, headers: Mapping[str, str] | None = None) -> Reply:
    return Reply(status, json.dumps(data).encode(), {"Content-Type": "application/json", **(headers or {})})


Handler = Callable[[Request], Reply]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog of 5 resets connections when a test opens dozens at once (a busy
    # machine accepts slowly); a real server's is in the hundreds.
    request_queue_size = 128


class SupabaseHttpServer:
    """Serves `routes` (path prefix -> handler) on 127.0.0.1 at `port` (0: a free one), on its own threads.
    A server stopped and made again on its old port is a Supabase project back after an outage."""

    def __init__(self, routes: Mapping[str, Handler], port: int = 0) -> None:
        self._routes = dict(routes)
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", port), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, name="supabase-double", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop answering, close the port and cut the kept-alive connections, as a lost network would:
        clients see a refused or broken connection."""
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            for connection in self._open:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=5)

    def _dispatch(self, request: Request) -> Reply:
        for prefix, handler in self._routes.items():
            if request.path.startswith(prefix):
                return handler(request)
        return json_reply(404, {"message": "no route"})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        dispatch, lock, open_connections = self._dispatch, self._lock, self._open

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body leave in two writes; with Nagle's algorithm the body would wait for the
            # client's delayed ACK (about 40 ms a request).
            disable_nagle_algorithm = True

            def setup(self) -> None:
                super().setup()
                with lock:
                    open_connections.add(self.connection)

            def finish(self) -> None:
                with lock:
                    open_connections.discard(self.connection)
                super().finish()

            def _serve(self) -> None:
                url = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(
                    method=self.command,
                    path=url.path,
                    query=dict(parse_qsl(url.query, keep_blank_values=True)),
                    headers={name.lower(): value for name, value in self.headers.items()},
                    body=self.rfile.read(length) if length else b"",
                )
                reply = dispatch(request)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

            def log_message(self, format: str, *args: object) -> None:
                pass

        return _Handler
