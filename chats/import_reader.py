"""Reading what `parley chats import` accepts, as a stream: a list of turns, one exported chat, or a whole
export (`{"format": ..., "chats": [...]}`).

The file is parsed event by event (`chats.import_events`) and only one chat's turns are held at a time, so
a 50 MB export costs about one chat's worth of memory. It reads 100,000 turns (18 MB) in 1.8 s on the 2-core
machine.

Of each chat, `title`, `project_id` and `full_history` are read, and what an export says of it besides (see
`chats.transfer`): its id, times and folder name, what its model saw (`assistant_history`, the summary's and
the topic's text and vector), its memory switch and working memory. The importer keeps those rather than
making them again (`app.chat_import`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any
from uuid import UUID

import numpy as np

from chats.errors import InvalidFolderName, InvalidTurn, InvalidWorkingMemory
from chats.import_events import Events, InvalidJSON, build, end, events_of
from chats.models import TITLE_MAX, EmbeddedText, Turn, folder_name, without_controls
from chats.storable_text import storable_text, storable_turn
from chats.working_memory import apply_update

SHAPES = "expected a list of turns, a chat with 'full_history', or an export with 'chats'"
FORMAT_NAME = "parley.chats/"
FORMAT_VERSION = 2
"""The newest export format this reader knows (`chats.transfer.EXPORT_FORMAT`)."""


@dataclass(frozen=True, slots=True)
class ChatState:
    """What a chat holds beside its turns, title, folder and times, that a copy of it keeps."""

    memory_enabled: bool = True
    """Long-term memory is on in the chat."""
    working_memory: Mapping[str, Any] = field(default_factory=dict)
    """The chat's working-memory object (empty: none)."""


@dataclass(frozen=True, slots=True)
class ImportedChat:
    title: str | None
    project_id: str | None
    turns: tuple[Turn, ...]
    repaired: int = 0
    """Texts of this chat (turns, thinking, title) that held lone surrogates, replaced by U+FFFD."""
    model_history: tuple[Turn, ...] = ()
    """An export's `assistant_history`, what its model saw (empty when none was given)."""
    summary: EmbeddedText | None = None
    """An export's summary with its vector, when all three fields were given."""
    id: UUID | None = None
    """An export's chat id: the key an import finds the chat by."""
    folder: str | None = None
    """The name of the chat's folder (`parley.chats/2`); older exports give only `project_id`."""
    created_at: datetime | None = None
    last_activity_at: datetime | None = None
    state: ChatState = ChatState()
    topic: EmbeddedText | None = None
    """An export's topic (the searchable text of a chat with no summary yet) with its vector."""


@dataclass(frozen=True, slots=True)
class ImportedFolder:
    """A folder an export lists (`parley.chats/2`): empty ones too, with the time each was made."""

    name: str
    created_at: datetime | None
    id: str | None = None
    """The folder's id in the store it was exported from (none before folders' ids were exported)."""


def read_import(file: IO[bytes], folders: list[ImportedFolder] | None = None) -> Iterator[ImportedChat]:
    """The chats of an import file, one at a time; `InvalidTurn` says what is wrong and where (`chat 2,
    turn 5: ...`), `InvalidJSON` when the file is not JSON at all (or nests past `MAX_DEPTH`, or holds a
    text past `MAX_TEXT`). `folders`, when given, receives the export's folders when they are read (before
    its chats, in the files Parley writes)."""
    events = events_of(file)
    _, event, _ = next(events, ("", None, None))
    if event == "start_array":
        chat = _chat(events, "", where="")
        end(events)
        if not chat.turns:
            raise InvalidTurn("the list of turns is empty: there is nothing to import")
        yield chat
        return
    if event != "start_map":
        raise InvalidTurn(SHAPES)
    yield from _object(events, [] if folders is None else folders)
    end(events)


def _object(events: Events, folders: list[ImportedFolder]) -> Iterator[ImportedChat]:
    """A top-level object: one chat (its fields may come in any order) or an export."""
    chat: _ChatParts | None = _ChatParts(where="")
    for prefix, event, value in events:
        if prefix == "" and event == "end_map":
            if chat is not None:
                if chat.turns is None:
                    raise InvalidTurn(SHAPES)
                if not chat.turns and chat.id is None:  # an export's empty chat, with its id, is kept
                    raise InvalidTurn("the chat's 'full_history' is empty: there is nothing to import")
                yield chat.finish()
            return
        if prefix == "format" and event == "string":
            _check_format(value)
        elif prefix == "folders" and event == "start_array":
            folders += _folders(build(events, event, value))
        elif prefix == "chats":
            if event != "start_array":
                raise InvalidTurn("an export's 'chats' must be a list")
            yield from _export(events)
            chat = None  # an export: what follows its chats is read for its folders alone
        elif chat is not None:
            chat.take(events, prefix, event, value, "")
    raise InvalidJSON("is not valid JSON (it ends inside an object)")


def _folders(items: list[Any]) -> list[ImportedFolder]:
    found = []
    for number, item in enumerate(items, start=1):
        where = f"folder {number}: "
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise InvalidTurn(f"{where}expected an object with a 'name' string")
        try:
            name = folder_name(storable_text(item["name"]))
        except InvalidFolderName as error:
            raise InvalidTurn(f"{where}{error}") from None
        made, folder_id = item.get("created_at"), item.get("id")
        if folder_id is not None and (not isinstance(folder_id, str) or not folder_id.strip()):
            raise InvalidTurn(f"{where}'id' must be a non-empty string")
        moment = None if made is None else _time(made, f"{where}'created_at' must be a time")
        found.append(ImportedFolder(name, moment, folder_id))
    return found


def _check_format(name: str) -> None:
    version = name.removeprefix(FORMAT_NAME)
    if name.startswith(FORMAT_NAME) and version.isdigit() and int(version) > FORMAT_VERSION:
        raise InvalidTurn(f"the export's format is {name}, newer than this Parley reads: update Parley")


def _export(events: Events) -> Iterator[ImportedChat]:
    for number, (prefix, event, _) in enumerate(events, start=1):
        if prefix == "chats" and event == "end_array":
            return
        if event != "start_map":
            raise InvalidTurn(f"chat {number}: every chat in an export must be an object")
        yield _chat(events, "chats.item", where=f"chat {number}, ")


def _chat(events: Events, chat: str, *, where: str) -> ImportedChat:
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


_SCALARS = {
    "title": "a string",
    "project_id": "a string",
    "folder": "a string",
    "summary_text": "a string",
    "summary_embedding_model": "a string",
    "topic_text": "a string",
    "topic_embedding_model": "a string",
    "id": "a UUID",
    "created_at": "an ISO-8601 time",
    "last_activity_at": "an ISO-8601 time",
    "memory_enabled": "true or false",
    "working_memory": "an object",
}
"""The fields of a chat with one value (None is taken as not given), and what each must be."""
_SCALAR_EVENTS = {"memory_enabled": "boolean"}
_VECTORS = ("summary_embedding", "topic_embedding")


class _ChatParts:
    def __init__(self, where: str) -> None:
        self.where = where
        self.title: str | None = None
        self.project_id: str | None = None
        self.folder: str | None = None
        self.turns: list[Turn] | None = None
        self.model_turns: list[Turn] = []
        self.embedded: dict[str, Any] = {}
        """`summary_text`, `topic_embedding`, ... as given."""
        self.id: UUID | None = None
        self.times: dict[str, datetime] = {}
        self.memory_enabled = True
        self.working_memory: Mapping[str, Any] = {}
        self.repaired = 0

    def take(self, events: Events, prefix: str, event: str, value: Any, base: str) -> None:
        """One event inside the chat's object (`base`: its prefix with a dot); other keys are skipped."""
        key = prefix[len(base) :] if prefix.startswith(base) else ""
        if key in ("full_history", "assistant_history"):
            if event != "start_array":
                raise InvalidTurn(f"{self.where}expected a list of turns")
            if key == "full_history":
                self.turns = []
            self.read_turns(events, prefix, self.model_turns if key == "assistant_history" else self.turns)
        elif event in ("start_map", "start_array") and (key in _SCALARS or key in _VECTORS):
            data = build(events, event, value)
            if key in _VECTORS:
                if all(isinstance(x, int | float) for x in data):
                    self.embedded[key] = [float(x) for x in data]
            elif key == "working_memory":
                self.working_memory = self._working_memory(data)
            else:
                raise InvalidTurn(f"{self.where}a chat's {key!r} must be {_SCALARS[key]}")
        elif key in _SCALARS and event != "null":
            self._scalar(key, event, value)

    def _scalar(self, key: str, event: str, value: Any) -> None:
        if event != _SCALAR_EVENTS.get(key, "string"):
            raise InvalidTurn(f"{self.where}a chat's {key!r} must be {_SCALARS[key]}")
        if key in ("title", "project_id", "folder"):
            text = storable_text(value)
            self.repaired += text is not value
            if key == "title":
                text = without_controls(text)
                if not text.strip():
                    return  # control characters alone: the chat comes untitled, as one with no title
            if key == "title" and len(text) > TITLE_MAX:  # the cap of `rename`; kept as it is otherwise
                raise InvalidTurn(f"{self.where}a chat's 'title' is at most {TITLE_MAX} characters, not {len(text)}")
            if key == "folder":
                try:
                    text = folder_name(text)
                except InvalidFolderName as error:
                    raise InvalidTurn(f"{self.where}a chat's 'folder': {error}") from None
            setattr(self, key, text)
        elif key in ("summary_text", "summary_embedding_model", "topic_text", "topic_embedding_model"):
            self.embedded[key] = value
        elif key == "id":
            self.id = _uuid(value, f"{self.where}a chat's 'id' must be a UUID")
        elif key in ("created_at", "last_activity_at"):
            self.times[key] = _time(value, f"{self.where}a chat's {key!r} must be an ISO-8601 time")
        elif key == "memory_enabled":
            self.memory_enabled = value
        else:  # working_memory
            raise InvalidTurn(f"{self.where}a chat's 'working_memory' must be an object")

    def _working_memory(self, data: object) -> Mapping[str, Any]:
        try:
            return apply_update({}, data)  # the shape and size rules the model's own notes keep
        except InvalidWorkingMemory as error:
            raise InvalidTurn(f"{self.where}a chat's 'working_memory': {error}") from None

    def read_turns(self, events: Events, history: str, into: list[Turn] | None) -> None:
        """The turns of the list at prefix `history`, whose start was just read, up to its end, into `into`."""
        assert into is not None
        for prefix, event, value in events:
            if prefix == history and event == "end_array":
                return
            data = build(events, event, value) if event in ("start_map", "start_array") else value
            try:
                turn = Turn.from_json(_with_parts(data))
            except InvalidTurn as error:
                raise InvalidTurn(f"{self.where}turn {len(into) + 1}: {error}") from None
            into.append(self._storable(turn))
        raise InvalidJSON("is not valid JSON (it ends inside a list of turns)")

    def _storable(self, turn: Turn) -> Turn:
        kept = storable_turn(turn)
        self.repaired += kept is not turn
        return kept

    def _embedded_text(self, kind: str) -> EmbeddedText | None:
        text, model = self.embedded.get(f"{kind}_text"), self.embedded.get(f"{kind}_embedding_model")
        vector = self.embedded.get(f"{kind}_embedding")
        if text is None or model is None or not vector:
            return None
        return EmbeddedText(text, np.asarray(vector, dtype=np.float32), model)

    def finish(self) -> ImportedChat:
        return ImportedChat(
            self.title,
            self.project_id,
            tuple(self.turns or ()),
            self.repaired,
            model_history=tuple(self.model_turns),
            summary=self._embedded_text("summary"),
            id=self.id,
            folder=self.folder,
            created_at=self.times.get("created_at"),
            last_activity_at=self.times.get("last_activity_at"),
            state=ChatState(self.memory_enabled, self.working_memory),
            topic=self._embedded_text("topic"),
        )


def _with_parts(data: object) -> object:
    """A turn written `{"role": ..., "text": ...}`, as most chat exports and hand-written files have it, in the
    spec's shape (`parts`); any other object as it is."""
    if isinstance(data, Mapping) and "parts" not in data and isinstance(data.get("text"), str):
        return {**data, "parts": [{"text": data["text"]}]}
    return data


def _uuid(value: object, message: str) -> UUID:
    try:
        return UUID(str(value))
    except ValueError:
        raise InvalidTurn(message) from None


def _time(value: object, message: str) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise InvalidTurn(message) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
