"""A timer or a reminder as it is kept on disk, and the pure questions asked of it."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID

Kind = Literal["timer", "reminder"]
State = Literal["pending", "rung", "missed", "cancelled"]


@dataclass(frozen=True, slots=True)
class Timer:
    id: str
    """Six hex digits: short enough to type (`parley timers cancel 3fa2c1`)."""
    kind: Kind
    label: str
    """What it is for ("pasta", "call the plumber"); may be empty for a plain timer."""
    due_at: datetime
    """When it rings (UTC, aware)."""
    created_at: datetime
    """When it was set (UTC, aware)."""
    chat_id: UUID | None = None
    """The chat it was set in: where the line saying it rang goes."""
    state: State = "pending"

    @property
    def pending(self) -> bool:
        return self.state == "pending"

    def seconds_left(self, now: datetime) -> int:
        """Whole seconds until it rings (rounded up, so "0" means now), never negative."""
        return max(0, math.ceil((self.due_at - now).total_seconds()))

    def with_state(self, state: State) -> Timer:
        return replace(self, state=state)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "label": self.label,
            "due_at": self.due_at.isoformat(),
            "created_at": self.created_at.isoformat(),
            "chat_id": None if self.chat_id is None else str(self.chat_id),
            "state": self.state,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Timer:
        kind = data["kind"]
        state = data["state"]
        if kind not in ("timer", "reminder") or state not in ("pending", "rung", "missed", "cancelled"):
            raise ValueError(f"unknown timer kind or state: {kind!r}, {state!r}")
        return Timer(
            id=str(data["id"]),
            kind=kind,
            label=str(data.get("label", "")),
            due_at=_utc(data["due_at"]),
            created_at=_utc(data["created_at"]),
            chat_id=None if data.get("chat_id") is None else UUID(data["chat_id"]),
            state=state,
        )


def _utc(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"a time without a zone: {text!r}")
    return moment.astimezone(UTC)
