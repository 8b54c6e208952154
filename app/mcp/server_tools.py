"""What a server offers and how it fails, in Parley's terms. No SDK here: importing `mcp` takes a second or
more, so `app.mcp.connection` is imported only when the first conversation starts the servers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

START_TIMEOUT_S = 60.0
"""Starting, initialising and listing tools; `npx`/`uvx` servers may install themselves the first time. A
conversation waits `DECLARE_WAIT_S` at most: a server still starting then comes with the next one."""
DECLARE_WAIT_S = 5.0
"""How long a conversation's opening waits for servers still starting."""
CLOSE_TIMEOUT_S = 10.0
"""For a server to stop when asked: the SDK closes its stdin, waits 2 s, terminates it, waits 2 s more."""
CALL_TIMEOUT_S = 30.0
"""How long a tool may take before the model is told it did not answer."""
MAX_TEXT = 8_000
"""Characters of a tool's text passed to the model: a long page would crowd out the conversation."""


class McpServerError(Exception):
    """A server could not be started or stopped answering; the message is one line for the user."""

    def __init__(self, reason: str, logged: str | None = None) -> None:
        super().__init__(reason)
        self.logged = logged or reason
        """The same line without what the server said back (it may echo the user's words): for the log."""


@dataclass(frozen=True, slots=True)
class McpTool:
    """A tool as its server lists it."""

    server: str
    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool | None
    """`annotations.readOnlyHint`; None when the server does not say."""
    destructive: bool | None
    """`annotations.destructiveHint`; None when the server does not say (the protocol's default is true)."""
