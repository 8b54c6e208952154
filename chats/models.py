"""Chat and turn values shared by every store, service and window.

The JSON shape of a turn is the spec's `ConversationTurn`:
`{"role": "user" | "model", "parts": [{"text": ...}], "thinking"?: ..., "at"?: ISO-8601, "summary"?: true,
"interrupted"?: true, "sources"?: [{"title": ..., "uri": ...}], "searches"?: [...]}`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, TypeAlias
from urllib.parse import urlencode
from uuid import UUID

from chats.errors import ChatsError, InvalidFolderName, InvalidTitle, InvalidTurn

if TYPE_CHECKING:  # numpy only names the type here: `parley --help` and the terminal's escaping read this module
    import numpy as np
    import numpy.typing as npt

Role = Literal["user", "model"]
Vector: TypeAlias = "npt.NDArray[np.float32]"
"""A 1-d float32 embedding, L2-normalised so that a dot product is the cosine similarity."""

ROLES: tuple[Role, ...] = ("user", "model")
FOLDER_NAME_MAX = 80
"""Longest folder name, in characters, once stripped."""
TITLE_MAX = 120
"""Longest chat title a user gives, in characters once stripped: a list row, read out in one breath."""
QUERY_MAX = 1000
"""Longest search request, in characters, that a search reads (the rest is cut off): a spoken request is a
sentence or two (a minute of speech is about 900 characters) and a typed one a few lines. The embedders read
only their first few hundred tokens anyway, while the words search does work for every word: a 130,000-character
memory search (a pasted document) took over a minute; cut, it takes as long as any other."""


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Source:
    """A web page a model answer was grounded on (a Google Search result), shown under the answer."""

    title: str
    """What the service calls the page (often its site's domain); the link itself when it gave none."""
    uri: str
    """An http(s) address to open in the browser (Google's grounding redirect, as the service gives it)."""

    def to_json(self) -> dict[str, str]:
        return {"title": self.title, "uri": self.uri}

    @classmethod
    def from_json(cls, data: object) -> Source:
        """Read `{"title", "uri"}`; raise `InvalidTurn` saying what is wrong."""
        if not isinstance(data, Mapping) or not isinstance(data.get("uri"), str):
            raise InvalidTurn("every source of a turn needs a 'uri' string")
        title = data.get("title", "")
        if not isinstance(title, str):
            raise InvalidTurn("a source's 'title' must be a string")
        return cls(title=title, uri=data["uri"])


def search_url(query: str) -> str:
    """The Google results page for `query`: where a search shown with a grounded answer leads."""
    return "https://www.google.com/search?" + urlencode({"q": query})


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of a conversation, as the model and the chat list see it."""

    role: Role
    text: str
    thinking: str | None = None
    """The model's thinking text, when the model exposed it; never sent back to the model."""
    at: datetime | None = None
    """When the turn ended (UTC); None for turns imported without a time."""
    summary: bool = False
    """True on the single turn that stands for compacted older turns."""
    interrupted: bool = False
    """True on a model turn the user spoke over: `text` is what was played before the voice stopped, not
    what the model had meant to say."""
    id: UUID | None = None
    """Set on turns that may be delivered more than once (a journal replay): a store keeps a turn id
    once per chat, so appending it again changes nothing."""
    navigation: bool = False
    """True on the turns of a request to go to another chat ("let's go back to the kitchen chat", the
    question which one, the answer): part of the conversation, not of what the chat is about."""
    sources: tuple[Source, ...] = ()
    """The web pages a model answer was grounded on, for the user to read; never sent back to the model."""
    searches: tuple[str, ...] = ()
    """What the model searched the web for to give this answer (shown with it, as Google's terms ask)."""
    note: bool = False
    """True on a line Parley wrote of what a tool did ("Looked at the screen at 14:02, 1280 x 800"), kept among
    the model's turns: history the model reads, never an answer it gave."""

    @property
    def searchable_text(self) -> str:
        """What a store's word index and the turn's recall vector hold of it: nothing for a navigation turn,
        whose words would otherwise make its chat a candidate for every later request that repeats them, nor
        for a tool's note, whose words are Parley's own."""
        return "" if self.navigation or self.note else self.text

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "parts": [{"text": self.text}]}
        if self.id is not None:
            data["id"] = str(self.id)
        if self.thinking is not None:
            data["thinking"] = self.thinking
        if self.at is not None:
            data["at"] = self.at.isoformat()
        if self.summary:
            data["summary"] = True
        if self.interrupted:
            data["interrupted"] = True
        if self.navigation:
            data["navigation"] = True
        if self.sources:
            data["sources"] = [source.to_json() for source in self.sources]
        if self.searches:
            data["searches"] = list(self.searches)
        if self.note:
            data["note"] = True
        return data

    @classmethod
    def from_json(cls, data: object) -> Turn:
        """Read the spec's turn shape; raise `InvalidTurn` saying what is wrong."""
        if not isinstance(data, Mapping):
            raise InvalidTurn(f"a turn must be an object, not {type(data).__name__}")
        role = data.get("role")
        if role not in ROLES:
            raise InvalidTurn(f"a turn's role must be 'user' or 'model', not {role!r}")
        parts = data.get("parts")
        if not isinstance(parts, Sequence) or isinstance(parts, str) or not parts:
            raise InvalidTurn("a turn needs a non-empty 'parts' list")
        texts = []
        for part in parts:
            if not isinstance(part, Mapping) or not isinstance(part.get("text"), str):
                raise InvalidTurn("every part of a turn needs a 'text' string")
            texts.append(part["text"])
        thinking = data.get("thinking")
        if thinking is not None and not isinstance(thinking, str):
            raise InvalidTurn("a turn's 'thinking' must be a string")
        return cls(
            role=role,
            text="".join(texts),
            thinking=thinking,
            at=_parse_time(data.get("at")),
            summary=data.get("summary") is True,
            interrupted=data.get("interrupted") is True,
            id=_parse_id(data.get("id")),
            navigation=data.get("navigation") is True,
            sources=_parse_sources(data.get("sources")),
            searches=_parse_searches(data.get("searches")),
            note=data.get("note") is True,
        )


def _parse_time(value: object) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidTurn("a turn's 'at' must be an ISO-8601 string")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as error:
        raise InvalidTurn(f"a turn's 'at' is not an ISO-8601 time: {value!r}") from error
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _parse_sources(value: object) -> tuple[Source, ...]:
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise InvalidTurn("a turn's 'sources' must be a list")
    return tuple(Source.from_json(item) for item in value)


def _parse_searches(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence) or not all(isinstance(q, str) for q in value):
        raise InvalidTurn("a turn's 'searches' must be a list of strings")
    return tuple(value)


def _parse_id(value: object) -> UUID | None:
    if value is None:
        return None
    try:
        return UUID(str(value))
    except ValueError as error:
        raise InvalidTurn(f"a turn's 'id' must be a UUID, not {value!r}") from error


def turns_from_json(data: object) -> tuple[Turn, ...]:
    if not isinstance(data, Sequence) or isinstance(data, str):
        raise InvalidTurn("expected a list of turns")
    return tuple(Turn.from_json(item) for item in data)


def turns_to_json(turns: Sequence[Turn]) -> list[dict[str, Any]]:
    return [turn.to_json() for turn in turns]


@dataclass(frozen=True, slots=True)
class EmbeddedText:
    """A text and its embedding: nothing is stored as a vector without its plain-text twin."""

    text: str
    vector: Vector = field(repr=False, compare=False)
    model: str
    """Name of the embedding model that made `vector`; vectors of different models never meet."""


@dataclass(frozen=True, slots=True)
class ChatInfo:
    """A chat as the chat list shows it: no histories."""

    id: UUID
    title: str | None
    project_id: str | None
    summary_text: str | None
    turn_count: int
    """Turns in `full_history`."""
    last_activity_at: datetime
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Folder:
    """A folder ("project") the user groups chats in; a chat's `project_id` is a folder's `id`."""

    id: str
    """A UUID string; memory scopes name it as `tag:project:{id}`. Databases that held chats in
    folders before folders had rows keep those older ids, whatever their text."""
    name: str
    """Stripped, 1 to `FOLDER_NAME_MAX` characters, unique among the user's folders ignoring case."""
    created_at: datetime
    """UTC."""
    chats: int
    """How many of the user's chats are in the folder when it was read."""


class NoFolder(Enum):
    """The type of `NO_FOLDER`, so that it is one value a type checker can narrow on."""

    NO_FOLDER = "no folder"


NO_FOLDER = NoFolder.NO_FOLDER
"""As a chat-list filter: only the chats that are in no folder."""

FolderFilter: TypeAlias = str | NoFolder | None
"""Which chats a list shows: one folder's (its id), those in `NO_FOLDER`, or all of them (None)."""


CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters that act on what shows a text instead of showing: C0 (a line break, a tab, ESC), DEL, C1, and
the bidirectional marks, embeddings, overrides and isolates (a right-to-left override shows "evil.exe" as
"exe.live"). A name on one line holds none; every surface escapes or isolates them (`app.cli.terminal`)."""


def folder_name(text: str) -> str:
    """`text` as a folder name: stripped; raise `InvalidFolderName` if blank, too long or holding a control
    character (`CONTROLS`), which would break every list that shows it."""
    name = _bounded(text.strip(), "a folder name", FOLDER_NAME_MAX, InvalidFolderName)
    if control := CONTROLS.search(name):
        raise InvalidFolderName(f"a folder name is one line, without control characters (it holds {control.group()!r})")
    return name


def chat_title(text: str) -> str:
    """`text` as a chat title a user gives: on one line, stripped; raise `InvalidTitle` if blank, too long or
    holding a control character (`CONTROLS`) other than white space."""
    title = _bounded(" ".join(text.split()), "a chat title", TITLE_MAX, InvalidTitle)
    if control := CONTROLS.search(title):
        raise InvalidTitle(f"a chat title is one line, without control characters (it holds {control.group()!r})")
    return title


def search_query(text: str) -> str:
    """`text` as a search reads it: its first `QUERY_MAX` characters."""
    return text[:QUERY_MAX]


def without_controls(text: str) -> str:
    """`text` with each `CONTROLS` character taken out, as an imported title is kept."""
    return CONTROLS.sub("", text)


def _bounded(text: str, what: str, most: int, error: type[ChatsError]) -> str:
    if not text:
        raise error(f"{what} cannot be blank")
    if len(text) > most:
        raise error(f"{what} is at most {most} characters, not {len(text)}")
    return text


def folder_name_key(name: str) -> str:
    """What two folder names are compared and sorted by: case and Unicode composition do not count."""
    return unicodedata.normalize("NFC", name).casefold()


@dataclass(frozen=True, slots=True)
class Chat:
    """A whole chat. The model only ever sees `assistant_history`; the window shows `full_history`."""

    id: UUID
    user_id: str
    project_id: str | None
    title: str | None
    full_history: tuple[Turn, ...]
    assistant_history: tuple[Turn, ...]
    summary: EmbeddedText | None
    """`summary_text` + `summary_embedding` (+ its model), set by the first compaction."""
    last_activity_at: datetime
    created_at: datetime
    version: int
    """Bumped by every change; compare-and-swap updates name the version they were planned on."""

    @property
    def summary_text(self) -> str | None:
        return self.summary.text if self.summary else None


@dataclass(frozen=True, slots=True)
class AssistantContext:
    """A chat without its `full_history`: what a voice session seeds the model with, and what
    maintenance decides on, with the version it was read at."""

    chat_id: UUID
    title: str | None
    project_id: str | None
    """The chat's folder (None: in no folder): the pool its project memories live in."""
    memory_enabled: bool
    """Long-term memory is on in this chat: its conversations see the pre-loaded memories and the tools."""
    assistant_history: tuple[Turn, ...]
    summary: EmbeddedText | None
    topic: EmbeddedText | None
    """The searchable text of a chat that has no summary yet, with its embedding."""
    version: int
