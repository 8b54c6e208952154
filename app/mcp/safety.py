"""Which MCP tools ask the user first, and the yes that lets one run.

A tool runs at once only when its server marks it read-only (`annotations.readOnlyHint`); any other (marked
destructive, or not marked at all) is answered with `needs_confirmation` and a confirmation id. The model
must ask the user; the call runs when the model then calls `confirm_action` with that id AND the user has
spoken since the question AND those words say yes. The model alone cannot approve: the user's own turn does,
or the user's click on Allow (or Deny) for that very call in the window (`decide`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from languages.registry import SUPPORTED, table, words
from voice.live.connection import ToolDeclaration

CONFIRM_ACTION = ToolDeclaration(
    name="confirm_action",
    description=(
        "Run an action the user approved. Call it only after a tool answered `needs_confirmation`: ask the user "
        "that question first, and call this with its `confirmation` id only once they have said yes."
    ),
    parameters={
        "type": "object",
        "properties": {"confirmation": {"type": "string", "description": "The id from `needs_confirmation`."}},
        "required": ["confirmation"],
    },
)

_YES = frozenset(word for code in SUPPORTED for word in words(table(code)["confirmation"]["yes"]))
"""Every language's words that say yes (`languages/<code>/requests.toml`, `[confirmation]`)."""
_NO = frozenset(word for code in SUPPORTED for word in words(table(code)["confirmation"]["no"]))
_WORD = re.compile(r"[\w'\u2019-]+", re.UNICODE)


def needs_confirmation(read_only: bool | None, destructive: bool | None) -> bool:
    """Whether a tool must wait for the user's yes: all but those marked read-only (and not destructive)."""
    return read_only is not True or destructive is True


def said_yes(text: str) -> bool:
    """Whether the user's words approve: a yes word in any language Parley speaks, and no word of refusal."""
    words = [w.lower().replace("\u2019", "'") for w in _WORD.findall(text)]
    return any(w in _YES for w in words) and not any(w in _NO for w in words)


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A call held until the user says yes."""

    name: str
    args: dict[str, Any]
    asked_after_turn: int
    """How many user turns had been heard when the question was put."""


class Confirmations:
    """The calls waiting for a yes, and what the user said since."""

    def __init__(self) -> None:
        self._pending: dict[str, PendingCall] = {}
        self._ids = itertools.count(1)
        self._turns = 0
        self._last_words = ""
        self._decisions: dict[str, bool] = {}
        """Held calls the user answered in a front end: allowed (True) or refused."""

    def heard(self, text: str) -> None:
        """The user finished a turn (spoken or typed)."""
        self._turns += 1
        self._last_words = text

    def hold(self, name: str, args: dict[str, Any]) -> str:
        """Keep a call until the user approves; its confirmation id."""
        confirmation = f"c{next(self._ids)}"
        self._pending[confirmation] = PendingCall(name, args, self._turns)
        return confirmation

    def holds(self, confirmation: str) -> bool:
        """Whether the call is still held (not yet released nor refused)."""
        return confirmation in self._pending

    def decide(self, confirmation: str, allowed: bool) -> PendingCall | None:
        """The user's own answer for this one call, given outside the conversation (a click): the model's
        `confirm_action` then runs it (allowed) or is refused, whatever was said. The call, or None when it is
        not held or already answered."""
        if confirmation not in self._pending or confirmation in self._decisions:
            return None
        self._decisions[confirmation] = allowed
        return self._pending[confirmation]

    def release(self, confirmation: str) -> PendingCall | str:
        """The approved call, or why it may not run (a line for the model). An id is used once, approved or
        refused; an unanswered one stays until the user speaks."""
        pending = self._pending.get(confirmation)
        if pending is None:
            return "unknown or already used confirmation id: call the tool again"
        decision = self._decisions.pop(confirmation, None)
        if decision is not None:
            del self._pending[confirmation]
            return pending if decision else "the user refused it in the window: the action was not run"
        if self._turns <= pending.asked_after_turn:
            return "the user has not answered yet: ask them and wait for their yes"
        del self._pending[confirmation]
        if not said_yes(self._last_words):
            return "the user did not say yes: the action was not run"
        return pending
