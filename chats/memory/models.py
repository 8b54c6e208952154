"""Long-term memory values: facts about the user, their categories and the scope rules.

Scope. Every memory belongs to one user and records the folder ("project") it was saved in, or none.
Spec 000 makes memories folder-scoped pools (`tag:project:{id}`, or `tag:project:none` outside folders);
spec 001 and issue 5 pre-load identity, preference and relationship memories "in every conversation".
Both hold here, by category:

- *personal* categories (identity, preference, relationship) are facts about the user, true in every
  folder: they are visible from every scope, whatever folder they were said in;
- *project* and *context* memories stay in the pool of the folder they were saved in (or the
  unfoldered pool): a chat in another folder never sees them.

`visible_in` is that rule; every store applies it to search, duplicate lookups, get, update and delete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from chats.errors import InvalidMemory
from chats.memory.category_names import CATEGORIES as CATEGORIES  # noqa: PLC0414 (re-exported)
from chats.memory.category_names import Category as Category  # noqa: PLC0414 (re-exported)
from chats.models import NO_FOLDER, EmbeddedText, FolderFilter

PERSONAL_CATEGORIES: frozenset[Category] = frozenset(("identity", "preference", "relationship"))
"""About the user everywhere: visible in every folder and pre-loaded into the system prompt."""

CONTENT_MIN = 10
CONTENT_MAX = 500
"""Content length limits, in characters once stripped (spec 001)."""
TITLE_MAX = 120
"""Longest title, in characters once stripped."""
TAG_MAX = 40
"""Longest tag, in characters once stripped."""
TAGS_MAX = 20
"""Most tags one memory may carry."""


@dataclass(frozen=True, slots=True)
class Memory:
    """One durable fact about the user, in the third person ("User prefers TypeScript")."""

    id: UUID
    user_id: str
    content: str
    """The fact, third person, `CONTENT_MIN`..`CONTENT_MAX` characters."""
    title: str | None
    category: Category
    tags: tuple[str, ...]
    """Free labels, stripped, without repeats, in the order given."""
    importance: int
    """`IMPORTANCE_MIN`..`IMPORTANCE_MAX` (see `chats.memory.importance`); higher is pre-loaded first."""
    project_id: str | None
    """The folder the memory was saved in; None outside folders. Only binds project and context
    memories (see the module docstring)."""
    embedding: EmbeddedText
    """The embedding of `content`, with its plain text (== `content`) and the model's name."""
    source_chat_id: UUID | None
    """The chat the user said it in, when known."""
    created_at: datetime
    """UTC."""
    updated_at: datetime
    """UTC; equals `created_at` until the memory is edited."""
    superseded_by: UUID | None = None
    """The newer memory that contradicted this one; reads skip superseded memories unless asked."""

    @property
    def personal(self) -> bool:
        return self.category in PERSONAL_CATEGORIES

    @property
    def scope_tags(self) -> tuple[str, ...]:
        return scope_tags(self.user_id, self.project_id, self.category, self.tags)

    def to_json(self) -> dict[str, Any]:
        """The export shape: everything but the vector itself."""
        return {
            "id": str(self.id),
            "content": self.content,
            "title": self.title,
            "category": self.category,
            "tags": list(self.tags),
            "importance": self.importance,
            "projectId": self.project_id,
            "sourceChatId": None if self.source_chat_id is None else str(self.source_chat_id),
            "embeddingModel": self.embedding.model,
            "createdAt": self.created_at.isoformat(),
            "updatedAt": self.updated_at.isoformat(),
            "supersededBy": None if self.superseded_by is None else str(self.superseded_by),
            "containerTags": list(self.scope_tags),
        }


@dataclass(frozen=True, slots=True)
class MemoryHit:
    memory: Memory
    score: float
    """The fused ranking score (cosine + weighted signals, see `chats.memory.ranking`); comparable
    within one search only. For `find_similar` it is the plain cosine similarity."""
    similarity: float
    """Cosine similarity of the query to the memory's embedding (-1..1)."""


@dataclass(frozen=True, slots=True)
class Preload:
    """The block of personal memories the system prompt carries."""

    text: str
    """Empty when the user has no personal memories."""
    memories: tuple[Memory, ...]
    """The memories in the block, in the block's order."""
    tokens: int
    """Estimated tokens of `text` (see `chats.memory.preload.estimate_tokens`)."""
    left_out: int
    """Personal memories that did not fit the budget (the least important ones)."""


def project_tag(project_id: str | None) -> str:
    return f"tag:project:{project_id}" if project_id is not None else "tag:project:none"


def scope_tags(
    user_id: str, project_id: str | None, category: str | None = None, tags: Sequence[str] = ()
) -> tuple[str, ...]:
    """Spec 000's container tags: the user id, the project tag, then `category:` and `tag:` entries."""
    found = [user_id, project_tag(project_id)]
    if category is not None:
        found.append(f"category:{category}")
    found += [f"tag:{tag}" for tag in tags]
    return tuple(found)


def visible_in(category: Category, project_id: str | None, scope: FolderFilter) -> bool:
    """Whether a memory of `category` saved in `project_id` is seen from `scope`: a folder id, `NO_FOLDER`
    (the unfoldered pool) or None (every folder: the Memory page and export)."""
    if scope is None or category in PERSONAL_CATEGORIES:
        return True
    if scope is NO_FOLDER:
        return project_id is None
    return project_id == scope


def scope_of(project_id: str | None) -> FolderFilter:
    """The scope of a chat in the folder `project_id` (None: in no folder)."""
    return NO_FOLDER if project_id is None else project_id


CATEGORY_TAG = "category:"
"""Spec 000 scopes memories by `category:<name>` entries beside `tag:` ones, with any name ("incident");
the five categories are kinds that decide importance and pre-loading. A name outside them is kept as a
`category:<name>` tag on a context memory."""


def spec_category(category: str | None, tags: Sequence[str] = ()) -> tuple[Category | None, tuple[str, ...]]:
    """Spec 000's `category` as this store keeps it: one of the five kinds as the category; any other name
    as a `category:<name>` tag added to `tags` (and no kind: the caller's default applies)."""
    if category is None or category in CATEGORIES:
        return category_of(category) if category is not None else None, tuple(tags)
    name = " ".join(category.split()).casefold()
    if not name:
        raise InvalidMemory("category must not be blank")
    return None, (*tags, f"{CATEGORY_TAG}{name}")


def shown_category(memory: Memory) -> tuple[str, tuple[str, ...]]:
    """The category and tags as spec 000 shows them: the name of a `category:<name>` tag when there is one,
    else the memory's kind; the other tags."""
    named = [tag[len(CATEGORY_TAG) :] for tag in memory.tags if tag.casefold().startswith(CATEGORY_TAG)]
    others = tuple(tag for tag in memory.tags if not tag.casefold().startswith(CATEGORY_TAG))
    return (named[0] if named else memory.category), others


def category_of(value: object) -> Category:
    if value not in CATEGORIES:
        raise InvalidMemory(f"category must be one of {', '.join(CATEGORIES)}, not {value!r}")
    return value  # narrowed by the membership test


def clean_content(content: EmbeddedText) -> str:
    """The content of a memory to keep: `content.text`, which must be stripped and of a fact's length."""
    text = content.text.strip()
    if not CONTENT_MIN <= len(text) <= CONTENT_MAX:
        raise InvalidMemory(f"a memory is {CONTENT_MIN} to {CONTENT_MAX} characters, not {len(text)}")
    if text != content.text:
        raise InvalidMemory("a memory's embedding must be of its stripped content")
    return text


def clean_title(title: str | None) -> str | None:
    if title is None or not title.strip():
        return None
    title = " ".join(title.split())
    if len(title) > TITLE_MAX:
        raise InvalidMemory(f"a memory title is at most {TITLE_MAX} characters, not {len(title)}")
    return title


def clean_tags(tags: Sequence[str]) -> tuple[str, ...]:
    """Stripped, without blanks or repeats (ignoring case), in order; raise `InvalidMemory` past the limits."""
    if isinstance(tags, str):
        raise InvalidMemory("tags must be a list of strings")
    seen: dict[str, str] = {}
    for given in tags:
        if not isinstance(given, str):
            raise InvalidMemory("tags must be a list of strings")
        tag = " ".join(given.split())
        if len(tag) > TAG_MAX:
            raise InvalidMemory(f"a tag is at most {TAG_MAX} characters: {tag[:TAG_MAX]!r}…")
        if tag and tag.casefold() not in seen:
            seen[tag.casefold()] = tag
    if len(seen) > TAGS_MAX:
        raise InvalidMemory(f"a memory carries at most {TAGS_MAX} tags, not {len(seen)}")
    return tuple(seen.values())
