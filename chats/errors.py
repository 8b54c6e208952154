"""Domain errors of the chats package. Each message is one line a user can read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from uuid import UUID


class ChatsError(Exception):
    """Base of every error the chats package raises on purpose."""


class InvalidTurn(ChatsError, ValueError):
    """A turn (or list of turns) does not have the spec's shape."""


class ChatNotFound(ChatsError, LookupError):
    def __init__(self, chat_id: UUID | str) -> None:
        super().__init__(f"no chat with id {chat_id}")
        self.chat_id = chat_id


class FolderNotFound(ChatsError, LookupError):
    def __init__(self, folder_id: str) -> None:
        super().__init__(f"no folder with id {folder_id}")
        self.folder_id = folder_id


class InvalidFolderName(ChatsError, ValueError):
    """A folder name that is blank or too long once stripped."""


class InvalidTitle(ChatsError, ValueError):
    """A chat title that is blank or too long once stripped."""


class DuplicateFolderName(InvalidFolderName):
    """Another folder of the same user already has this name (ignoring case)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"a folder named {name!r} already exists")
        self.name = name


class VersionConflict(ChatsError):
    """A compare-and-swap update lost the race: the chat changed since it was read."""

    def __init__(self, chat_id: UUID, expected: int, actual: int) -> None:
        super().__init__(f"chat {chat_id} is at version {actual}, not {expected}")
        self.chat_id = chat_id
        self.expected = expected
        self.actual = actual


class StoreUnavailable(ChatsError):
    """The store cannot be opened or reached (corrupt file, locked, network down)."""


class StoreDamaged(StoreUnavailable):
    """The SQLite file fails its health check: Parley writes nothing into it until it is repaired."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"the chat database {path} is damaged ({problem}) and was left as it is:"
            " run `parley chats repair` to rebuild what can be read in a fresh file (the damaged one is kept"
            " beside it as a copy)"
        )
        self.path = path
        self.problem = problem


@dataclass(frozen=True, slots=True)
class QuotaRefusal:
    """A service refused a call for quota (HTTP 429, RESOURCE_EXHAUSTED): asking again at once is refused too."""

    retry_after_seconds: float | None
    """How long the service asked to wait (`Retry-After`, Google's `RetryInfo`); None when it did not say."""


class EmbeddingError(ChatsError):
    """The embedding model could not embed (missing weights, bad key, service down). `outage`: the service
    failed (unreachable, a hang, a server error, a quota refusal, an answer that is not one), not the request
    (a refused key, an unknown model), so a local twin may answer instead; `quota`: it refused for quota."""

    def __init__(self, message: str, *, outage: bool = False, quota: QuotaRefusal | None = None) -> None:
        super().__init__(message)
        self.outage = outage or quota is not None
        self.quota = quota


class TextModelError(ChatsError):
    """The text model could not produce a summary or a title; `outage` and `quota` as for `EmbeddingError`."""

    def __init__(self, message: str, *, outage: bool = False, quota: QuotaRefusal | None = None) -> None:
        super().__init__(message)
        self.outage = outage or quota is not None
        self.quota = quota


class MemoryNotFound(ChatsError, LookupError):
    """No memory with this id for this user (or none visible in the asked folder)."""

    def __init__(self, memory_id: UUID | str) -> None:
        super().__init__(f"no memory with id {memory_id}")
        self.memory_id = memory_id


class InvalidMemory(ChatsError, ValueError):
    """A memory's content, category, title or tags break the spec's rules; the message says which, in
    words a tool can pass back to the model."""


class InvalidRecallQuery(ChatsError, ValueError):
    """Recall over past messages was asked for too many hits or neighbours."""


class InvalidWorkingMemory(ChatsError, ValueError):
    """A working-memory update that is not a JSON object of JSON values; the message says what is wrong."""


class WorkingMemoryTooLarge(ChatsError, ValueError):
    """The working memory would outgrow its size cap once the update is applied; nothing was stored."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            f"working memory would take {size} bytes, over its limit of {limit}:"
            " shorten or remove entries (a key set to null is removed)"
        )
        self.size = size
        self.limit = limit
