"""Ways a remote service fails, for the fake REST servers (`gemini_server`, `openai_server`) to play: the
failures a user's Parley meets, each as the service sends it. A refused connection needs no server: point
the client at `closed_port_url` (`tests.fakes.openai_server`).

- `quota`: HTTP 429; Gemini says RESOURCE_EXHAUSTED with a `google.rpc.RetryInfo` `retryDelay`, OpenAI
  `insufficient_quota`, and both send `Retry-After` (`RETRY_AFTER_SECONDS`).
- `server_error`: HTTP 500 (Gemini: INTERNAL, its documented wording; OpenAI: `server_error`).
- `hang`: the request is read and never answered, until the outage ends or the server stops: the client's
  timeout is what ends it.
- `malformed`: HTTP 200 with an HTML page where JSON should be, as a captive portal or a broken proxy sends.
"""

from __future__ import annotations

import threading
from typing import Literal, get_args

Outage = Literal["quota", "server_error", "hang", "malformed"]
OUTAGES: tuple[Outage, ...] = get_args(Outage)
RETRY_AFTER_SECONDS = 42
"""The wait a quota refusal asks for."""
MALFORMED_PAGE = b"<html><body><h1>Sign in to the network</h1></body></html>"


class Hold:
    """Where a `hang` holds its requests: `release` lets them all go (their clients have given up by then)."""

    def __init__(self) -> None:
        self._released = threading.Event()

    def hang(self) -> None:
        """Hold the calling (server) thread until `release`."""
        self._released.wait()

    def release(self) -> None:
        self._released.set()

    def renew(self) -> None:
        """Hold again after a `release`."""
        self._released.clear()
