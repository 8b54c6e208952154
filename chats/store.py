"""The `ChatStore` protocol every backend implements, and the values it trades in.

`ChatStore` is made of one protocol per concern: `Chats`, `Folders`, `RecallVectors` and
`WorkingMemories`. A store instance is bound to one user: it never returns or changes another user's
chats or folders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol, TypedDict, Unpack
from uuid import UUID

from chats.models import AssistantContext, Chat, ChatInfo, EmbeddedText, Folder, FolderFilter, Turn, Vector

EmbeddingKind = Literal["summary", "topic"]
"""A chat's vectors: its compaction summary, or before that its topic text."""


@dataclass(frozen=True, slots=True)
class AppendResult:
    version: int
    """The chat's version after the append."""
    assistant_turns: int
    """Length of `assistant_history` after the append: compaction is due past the window."""
    full_turns: int
    appended: int
    """Turns actually added: fewer than given when some ids were already there."""


class NewChat(TypedDict, total=False):
    """What `Chats.create` may be told of a new chat, as keyword arguments; what is left out is not there
    (no title, no turns, no folder) or, for the id, a new one."""

    title: str | None
    turns: Sequence[Turn]
    """What both `full_history` and `assistant_history` start as."""
    project_id: str | None
    """The folder to keep it in (which must exist), or None for none."""
    chat_id: UUID | None
    """The id to keep it under: a copy of a chat from another store keeps its id, so copying it again
    finds it."""


class HistorySwap(TypedDict):
    """What `Chats.replace_assistant_history` is told, as keyword arguments: a compaction's result."""

    expected_version: int
    """The chat's version the new history was made from."""
    assistant_history: Sequence[Turn]
    summary: EmbeddedText | None
    """The new summary, embedded; None keeps the chat's summary fields as they are."""


@dataclass(frozen=True, slots=True)
class SearchQuery:
    vector: Vector
    model: str
    """Only chats whose vectors were made by this model are compared by similarity."""
    text: str
    """The query words, for the lexical signal."""
    limit: int = 50


@dataclass(frozen=True, slots=True)
class SearchCandidate:
    """The raw signals a store reports for one chat; `chats.search` ranks and decides."""

    chat_id: UUID
    title: str | None
    similarity: float | None
    """Cosine similarity of the query to the chat's summary (or, before its first compaction,
    to its topic text); None when the chat has no vector of the query's model."""
    lexical: float
    """BM25 relevance of the chat's best-matching turn, title or summary (0 when no word matches)."""
    last_activity_at: datetime
    words_held: float = 1.0
    """The share of the request's telling words the chat holds anywhere (its turns, title, summary, topic;
    0..1): a chat holding one stray word of three is weaker lexical evidence than one holding all three
    (`chats.search.rank`). Words too common to tell chats apart are not counted (`chats.search.COMMON_SHARE`);
    1 when none of the request's words tells."""
    summary: str | None = None
    """The chat's compaction summary (None before its first): what it is about, read for the request's
    words as its title is (`chats.search.rank`). Not its topic text, which is its turns' own words."""


@dataclass(frozen=True, slots=True)
class PendingTurn:
    """A turn of `full_history` that has no vector of some embedding model yet."""

    chat_id: UUID
    index: int
    """Position in the chat's `full_history`, from 0."""
    text: str


@dataclass(frozen=True, slots=True)
class TurnVector:
    """A turn's embedding, addressed by its chat and its position in `full_history`."""

    chat_id: UUID
    index: int
    embedded: EmbeddedText
    """The text that was embedded (the turn's text), the vector, and the model."""


@dataclass(frozen=True, slots=True)
class HiddenTurns:
    """Turns recall leaves out because the model already has them verbatim: the last `count` turns of
    the chat's `full_history` (the non-summary tail of its `assistant_history`)."""

    chat_id: UUID
    count: int


@dataclass(frozen=True, slots=True)
class RecallQuery:
    vector: Vector
    model: str
    """Only turn vectors made by this model are compared."""
    text: str
    """The query words, for the lexical signal."""
    limit: int = 50
    """Turns taken by each signal (similarity, words) before their neighbours are added."""
    context: int = 2
    """Turns on each side of a taken turn, in its chat, whose signals are reported as well."""
    hidden: HiddenTurns | None = None
    project_id: FolderFilter = None
    """Only chats of this folder, or with `NO_FOLDER` of none; None: every chat of the user."""


@dataclass(frozen=True, slots=True)
class TurnCandidate:
    """The raw signals a store reports for one turn; `chats.recall` ranks and decides."""

    chat_id: UUID
    index: int
    similarity: float | None
    """Cosine similarity of the query to the turn's vector; None when it has none of the query's model."""
    lexical: float
    """BM25 relevance of the turn's words (0 when no query word matches)."""


@dataclass(frozen=True, slots=True)
class TurnSpan:
    """Turns `first` to `last` (inclusive) of a chat's `full_history`."""

    chat_id: UUID
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class ChatExcerpt:
    """The turns of a `TurnSpan` that exist and are not hidden, with the chat they belong to."""

    chat_id: UUID
    title: str | None
    first: int
    """Position of `turns[0]` in `full_history`."""
    turns: tuple[Turn, ...]


@dataclass(frozen=True, slots=True)
class WorkingMemoryRecord:
    """A chat's working memory as stored: a JSON object and its own compare-and-swap version."""

    data: Mapping[str, Any]
    version: int
    """0 before the first write; each write adds 1. Independent of the chat's version."""


class Chats(Protocol):
    """Chats and their two histories, their vectors for chat search, and chat search itself."""

    async def create(self, **chat: Unpack[NewChat]) -> Chat:
        """A new chat as `chat` describes it (`NewChat`); raises `FolderNotFound` for a folder the user
        does not have."""
        ...

    async def get(self, chat_id: UUID) -> Chat:
        """The whole chat; raises `ChatNotFound`."""
        ...

    async def load_assistant_context(self, chat_id: UUID) -> AssistantContext:
        """Just what the model sees, cheaply; raises `ChatNotFound`."""
        ...

    async def list_chats(self, *, limit: int = 50, offset: int = 0, project_id: FolderFilter = None) -> list[ChatInfo]:
        """The user's chats, most recent activity first: all of them (None), those of one folder (raises
        `FolderNotFound`), or with `NO_FOLDER` those in no folder."""
        ...

    async def count(self) -> int: ...

    async def append(self, chat_id: UUID, turns: Sequence[Turn]) -> AppendResult:
        """Append to both histories in one transaction and bump `last_activity_at`.

        A turn whose `id` the chat already holds is skipped, so delivering a turn twice is harmless."""
        ...

    async def replace_assistant_history(self, chat_id: UUID, **swap: Unpack[HistorySwap]) -> int:
        """Compare-and-swap (`HistorySwap`): replace `assistant_history` (and the summary fields when
        given) only if the chat is still at `expected_version`; return the new version or raise
        `VersionConflict`."""
        ...

    async def set_embedding(self, chat_id: UUID, kind: EmbeddingKind, value: EmbeddedText) -> None:
        """Store a chat's topic (the searchable text of a chat with no summary yet) or re-embed its
        summary; neither bumps the version."""
        ...

    async def rename(self, chat_id: UUID, title: str, *, automatic: bool = False) -> bool:
        """Set the title. An automatic (generated) title never replaces one the user chose: then
        nothing changes and the answer is False."""
        ...

    async def move(self, chat_id: UUID, project_id: str | None) -> None:
        """Put the chat in the folder `project_id`, or in none; raises `ChatNotFound`, then `FolderNotFound`."""
        ...

    async def set_memory_enabled(self, chat_id: UUID, enabled: bool) -> None:
        """Switch long-term memory on or off in the chat (`AssistantContext.memory_enabled`); raises
        `ChatNotFound`."""
        ...

    async def delete(self, chat_id: UUID) -> None: ...

    async def search(self, query: SearchQuery) -> list[SearchCandidate]:
        """Every chat with a similarity or lexical signal for the query, in no particular order."""
        ...

    async def embedded_texts(self) -> list[tuple[UUID, EmbeddingKind, EmbeddedText]]:
        """Every stored embedding as (chat id, "summary" | "topic", text), for re-embedding."""
        ...


class Folders(Protocol):
    """Folders (projects) that chats are kept in."""

    async def create_folder(self, name: str, folder_id: str | None = None) -> Folder:
        """A new empty folder. The name is stripped; raises `InvalidFolderName` when it is blank or too
        long and `DuplicateFolderName` when another folder of the user has it, ignoring case. Its id is
        `folder_id` when given (a copy of a folder from another store keeps its id, so that the chats and
        memories naming it find it), which no folder of the user may have yet; else a new one."""
        ...

    async def list_folders(self) -> list[Folder]:
        """The user's folders by name, ignoring case, each with its number of chats."""
        ...

    async def rename_folder(self, folder_id: str, name: str) -> Folder:
        """Rename under the rules of `create_folder` (a folder may change the case of its own name);
        raises `FolderNotFound`."""
        ...

    async def delete_folder(self, folder_id: str) -> None:
        """Delete the folder; in the same transaction its chats move to no folder (they are kept).
        Raises `FolderNotFound`."""
        ...


class RecallVectors(Protocol):
    """Vectors of single turns, and recall over past messages with them."""

    async def chats_without_turn_vectors(self, model: str) -> list[UUID]:
        """The user's chats holding turns with no vector of `model`, most recent activity first."""
        ...

    async def turns_without_vectors(self, chat_id: UUID, model: str, *, limit: int = 32) -> list[PendingTurn]:
        """Up to `limit` of the chat's turns with no vector of `model`, oldest first; raises `ChatNotFound`."""
        ...

    async def set_turn_vectors(self, vectors: Sequence[TurnVector]) -> None:
        """Store each turn's vector (replacing one of the same model); neither bumps a version. Raises
        `ChatNotFound` for a chat that is not the user's, `InvalidTurn` for a position past its end."""
        ...

    async def recall_candidates(self, query: RecallQuery) -> list[TurnCandidate]:
        """Turns of the user's chats for recall over past messages, in no particular order: the
        `query.limit` most similar, the `query.limit` best lexical matches, and every existing turn within
        `query.context` positions of those in the same chat, each with both signals. Hidden turns are
        never reported."""
        ...

    async def excerpts(self, spans: Sequence[TurnSpan], *, hidden: HiddenTurns | None = None) -> list[ChatExcerpt]:
        """The turns of each span that exist and are not hidden, in the order asked; a span of a chat that
        is not the user's, or that holds no such turn, is left out."""
        ...


class WorkingMemories(Protocol):
    """Each chat's working memory: a small JSON object the model keeps notes in."""

    async def get_working_memory(self, chat_id: UUID) -> WorkingMemoryRecord:
        """The chat's working memory (an empty object at version 0 before the first write); raises
        `ChatNotFound`."""
        ...

    async def put_working_memory(self, chat_id: UUID, data: Mapping[str, Any], *, expected_version: int) -> int:
        """Compare-and-swap: store `data` only if the working memory is still at `expected_version`;
        return the new version or raise `VersionConflict`. Raises `ChatNotFound`. Size and shape rules
        live in `chats.working_memory`."""
        ...


class ChatStore(Chats, Folders, RecallVectors, WorkingMemories, Protocol):
    """Every concern of a user's chats, in one store: what the app is given. A caller that needs one
    concern only takes that protocol."""

    @property
    def user_id(self) -> str: ...

    async def close(self) -> None: ...
