"""What a server offers and how it fails, in Parley's terms. No SDK here: importing `mcp` takes a second or
more, so `app.mcp.connection` is imported only when the first conversation starts the servers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

START_TIMEOUT_S = 10.0
"""Starting, initialising and listing tools; a server slower than this is left out, with one line (an
`npx`/`uvx` server installing itself the first time comes with a later start). A conversation waits
`DECLARE_WAIT_S` at most: a server still starting then comes with the next one."""
DECLARE_WAIT_S = 5.0
"""How long a conversation's opening waits for servers still starting."""
CLOSE_TIMEOUT_S = 5.0
"""For a server to stop when asked: the SDK closes its stdin, then terminates it (`connection.STOP_GRACE_S`)."""
CALL_TIMEOUT_S = 30.0
"""How long a tool may take before the model is told it did not answer."""
MAX_TEXT = 100_000
"""Characters of a tool's answer passed to the model (and printed): a long page would crowd out the
conversation, and a 5 MB one fills the terminal."""


class McpServerError(Exception):
    """A server could not be started or stopped answering; the message is one line for the user, then, when
    it failed at start, its last lines of error output (indented)."""

    def __init__(self, reason: str, logged: str | None = None) -> None:
        super().__init__(reason)
        self.logged = logged or reason
        """The first line without what the server said back (it may echo the user's words): for the log."""


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
