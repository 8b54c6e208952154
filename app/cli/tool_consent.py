"""How `parley ask` answers a tool that asks first (one of the user's MCP tools that may change things): it
has no second turn for a spoken yes, so the one who typed the command is asked at once, on the terminal
("Run delete_note on notes? [y/N]"); `--yes` allows every such tool without asking; with no terminal to ask
on (a script, a pipe) the tool is refused, and one line says which flag allows it. The same holds when the
question goes to a running Parley: its tool asks back over the socket (`app.asks`), and is answered here."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Mapping
from typing import Any, TextIO

YES_FLAG = "--yes"


def question(server: str, tool: str, args: Mapping[str, Any]) -> str:
    """The prompt for one call: the tool, its server and what it is given."""
    given = f" with {json.dumps(dict(args), ensure_ascii=False)}" if args else ""
    return f"Run {tool} on {server}{given}? [y/N] "


def approves(reply: str) -> bool:
    """Whether a typed reply says yes: only y or yes (any case); anything else, or nothing, is no."""
    return reply.strip().lower() in {"y", "yes"}


class TerminalConsent:
    """An `Asker` (`app.core.toolkit`) for `parley ask`: `--yes` allows, a terminal is asked, anything else
    refuses (`refused` keeps the line to print). `stdin` and `prompt_to` are read when asked (default: the
    process's own)."""

    def __init__(self, allow_all: bool, stdin: TextIO | None = None, prompt_to: TextIO | None = None) -> None:
        self._allow_all = allow_all
        self._stdin = stdin
        self._prompt_to = prompt_to
        self.refused: list[str] = []
        """One line for each tool refused because nobody could be asked."""

    async def __call__(self, server: str, tool: str, args: Mapping[str, Any]) -> bool:
        if self._allow_all:
            return True
        stdin = self._stdin or sys.stdin
        if stdin is None or stdin.closed or not stdin.isatty():  # None: started with standard input closed
            self.refused.append(
                f"did not run {tool} on {server}: it asks before it runs and there is no terminal to ask on; "
                f"pass {YES_FLAG} to allow tools that ask first"
            )
            return False
        prompt_to = self._prompt_to or sys.stderr
        prompt_to.write(question(server, tool, args))
        prompt_to.flush()
        return approves(await _line_from(stdin.fileno()))


async def _line_from(fd: int) -> str:
    """One line typed on the terminal `fd`, read when it is ready: a Ctrl-C meanwhile cancels the wait, where a
    blocked read in a thread would hold the process open."""
    events = asyncio.get_running_loop()
    typed: asyncio.Future[bytes] = events.create_future()

    def readable() -> None:
        if not typed.done():
            typed.set_result(os.read(fd, 4096))  # a terminal in canonical mode hands over one line

    events.add_reader(fd, readable)
    try:
        return (await typed).decode(errors="replace")
    finally:
        events.remove_reader(fd)
