"""Reading what `parley chats import` accepts, as a stream: a list of turns, one exported chat, or a whole
export (`{"format": ..., "chats": [...]}`).

The file is parsed event by event (ijson) and only one chat's turns are held at a time, so a 50 MB export
costs about one chat's worth of memory. ijson's pure-Python backend, not its C one: the C backend turns a
lone surrogate (`"\\ud800"`) into "?" without a word, where this one hands it over for `storable_text` to
repair and count. It reads 100,000 turns (18 MB) in 1.8 s on the 2-core machine.

Of each chat, `title`, `project_id` and `full_history` are read, and what the model saw of an exported one
(`assistant_history` from its last summary turn on, the summary's text and vector): the importer keeps that
rather than summarising the chat again (`app.chat_import`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Any

import ijson
import numpy as np

from chats.errors import InvalidTurn
from chats.models import EmbeddedText, Turn
from chats.storable_text import storable_text, storable_turn

_PARSER = ijson.get_backend("python")
SHAPES = "expected a list of turns, a chat with 'full_history', or an export with 'chats'"


@dataclass(frozen=True, slots=True)
class ImportedChat:
    title: str | None
    project_id: str | None
    turns: tuple[Turn, ...]
    repaired: int = 0
    """Texts of this chat (turns, thinking, title) that held lone surrogates, replaced by U+FFFD."""
    model_history: tuple[Turn, ...] = ()
    """An export's `assistant_history` from its last summary turn on: what the model saw (empty when it
    holds no summary turn, or no `assistant_history` was given)."""
    summary: EmbeddedText | None = None
    """An export's summary with its vector, when all three fields were given."""


class InvalidJSON(InvalidTurn):
    """The file is not JSON, or not UTF-8; the message follows the file's name ("is not valid JSON ...")."""


def read_import(file: IO[bytes]) -> Iterator[ImportedChat]:
    """The chats of an import file, one at a time; `InvalidTurn` says what is wrong and where (`chat 2,
    turn 5: ...`), `InvalidJSON` when the file is not JSON at all."""
    events = _events(file)
    _, event, _ = next(events, ("", None, None))
    if event == "start_array":
        yield _chat(events, "", where="")
    elif event == "start_map":
        yield from _object(events)
    else:
        raise InvalidTurn(SHAPES)
    if next(events, None) is not None:
        raise InvalidJSON("is not valid JSON (more than one value)")


def _events(file: IO[bytes]) -> Iterator[tuple[str, str, Any]]:
    try:
        yield from _PARSER.parse(file)
    except ijson.JSONError as error:
        cause = error.args[0] if error.args else error
        if isinstance(cause, UnicodeDecodeError):
            raise InvalidJSON("is not UTF-8 text") from None
        raise InvalidJSON(f"is not valid JSON ({cause})") from None


def _object(events: Iterator[tuple[str, str, Any]]) -> Iterator[ImportedChat]:
    """A top-level object: one chat (its fields may come in any order) or an export."""
    chat = _ChatParts(where="")
    for prefix, event, value in events:
        if prefix == "" and event == "end_map":
            if chat.turns is None:
                raise InvalidTurn(SHAPES)
            yield chat.finish()
            return
        if prefix == "chats":
            if event != "start_array":
                raise InvalidTurn("an export's 'chats' must be a list")
            yield from _export(events)
            _skip_to_end(events, "")
            return
        chat.take(events, prefix, event, value, "")


def _export(events: Iterator[tuple[str, str, Any]]) -> Iterator[ImportedChat]:
    for number, (prefix, event, _) in enumerate(events, start=1):
        if prefix == "chats" and event == "end_array":
            return
        if event != "start_map":
            raise InvalidTurn(f"chat {number}: every chat in an export must be an object")
        yield _chat(events, "chats.item", where=f"chat {number}, ")


def _chat(events: Iterator[tuple[str, str, Any]], chat: str, *, where: str) -> ImportedChat:
    """The chat whose object (or, for a bare list, whose list) has just started at prefix `chat`."""
    parts = _ChatParts(where)
    if chat == "":  # a bare list of turns: the list is the chat
        parts.turns = []
        parts.read_turns(events, "", parts.turns)
        return parts.finish()
    for prefix, event, value in events:
        if prefix == chat and event == "end_map":
            if parts.turns is None:
                raise InvalidTurn(f"{where}expected a list of turns")
            return parts.finish()
        parts.take(events, prefix, event, value, chat + ".")
    raise InvalidJSON("is not valid JSON (it ends inside a chat)")


class _ChatParts:
    def __init__(self, where: str) -> None:
        self.where = where
        self.title: str | None = None
        self.project_id: str | None = None
        self.turns: list[Turn] | None = None
        self.model_turns: list[Turn] = []
        self.summary_text: str | None = None
        self.summary_model: str | None = None
        self.summary_vector: list[float] | None = None
        self.repaired = 0

    def take(self, events: Iterator[tuple[str, str, Any]], prefix: str, event: str, value: Any, base: str) -> None:
        """One event inside the chat's object (`base`: its prefix with a dot); other keys are skipped."""
        if prefix in (base + "title", base + "project_id"):
            field = prefix[len(base) :]
            if value is not None and event != "string":
                raise InvalidTurn(f"{self.where}a chat's {field!r} must be a string")
            if event == "string":
                text = storable_text(value)
                self.repaired += text is not value
                setattr(self, field, text)
            elif event in ("start_map", "start_array"):
                raise InvalidTurn(f"{self.where}a chat's {field!r} must be a string")
        elif prefix in (base + "full_history", base + "assistant_history"):
            if event != "start_array":
                raise InvalidTurn(f"{self.where}expected a list of turns")
            if prefix.endswith("full_history"):
                self.turns = []
            self.read_turns(events, prefix, self.model_turns if prefix.endswith("assistant_history") else self.turns)
        elif prefix in (base + "summary_text", base + "summary_embedding_model") and event == "string":
            setattr(self, prefix[len(base) :].replace("embedding_", ""), value)
        elif prefix == base + "summary_embedding" and event == "start_array":
            numbers = _build(events, event, value)
            if all(isinstance(x, int | float | Decimal) for x in numbers):
                self.summary_vector = [float(x) for x in numbers]

    def read_turns(self, events: Iterator[tuple[str, str, Any]], history: str, into: list[Turn] | None) -> None:
        """The turns of the list at prefix `history`, whose start was just read, up to its end, into `into`."""
        assert into is not None
        for prefix, event, value in events:
            if prefix == history and event == "end_array":
                return
            data = _build(events, event, value) if event in ("start_map", "start_array") else value
            try:
                turn = Turn.from_json(data)
            except InvalidTurn as error:
                raise InvalidTurn(f"{self.where}turn {len(into) + 1}: {error}") from None
            into.append(self._storable(turn))
        raise InvalidJSON("is not valid JSON (it ends inside a list of turns)")

    def _storable(self, turn: Turn) -> Turn:
        kept = storable_turn(turn)
        self.repaired += kept is not turn
        return kept

    def finish(self) -> ImportedChat:
        summary_at = max((i for i, turn in enumerate(self.model_turns) if turn.summary), default=None)
        summary = None
        if self.summary_text is not None and self.summary_model is not None and self.summary_vector:
            vector = np.asarray(self.summary_vector, dtype=np.float32)
            summary = EmbeddedText(self.summary_text, vector, self.summary_model)
        return ImportedChat(
            self.title,
            self.project_id,
            tuple(self.turns or ()),
            self.repaired,
            model_history=() if summary_at is None else tuple(self.model_turns[summary_at:]),
            summary=summary,
        )


def _build(events: Iterator[tuple[str, str, Any]], event: str, value: Any) -> Any:
    """The whole JSON value that starts with `event`, read from `events`."""
    builder = ijson.ObjectBuilder()
    builder.event(event, value)
    depth = 1
    for _, inner, inner_value in events:
        builder.event(inner, inner_value)
        depth += inner in ("start_map", "start_array")
        depth -= inner in ("end_map", "end_array")
        if depth == 0:
            return builder.value
    raise InvalidJSON("is not valid JSON (it ends inside a turn)")


def _skip_to_end(events: Iterator[tuple[str, str, Any]], prefix: str) -> None:
    for event_prefix, event, _ in events:
        if event_prefix == prefix and event == "end_map":
            return
