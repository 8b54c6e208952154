"""Importing chats: an export's chats as they were, anything else as new chats compacted as far as the
model sees them.

A chat of an export (`chats.transfer`) comes with its id, and that id is the key: the chat is made with it,
its times, title, folder (found or made by name), memory switch and working memory, then its turns, what its
model saw and its topic, as `parley sync` copies a chat between stores (`app.account.sync`). Importing the
file again finds every chat and changes nothing. A chat here with the same id keeps what it has: when the
file holds turns it lacks (known by their ids, or by position), those are appended, as `sync` does; a file
with fewer turns takes none away. With `as_new` an export's chats are copies, under ids derived from their
content as below, so a second `--as-new` import finds the first copies.

A chat without an id (a list of turns, a chat object of another tool) is created with its turns in one
`create` (one transaction), dated by its first turn's time; when its last turn has a later time, that turn is
appended after, dated by it, so that the chat begins and was last active when its messages say. Its id is
derived from its content, so importing the same chat again, after a stop or by mistake, finds it instead of
making a copy, and gives it any turn a stop left out.

The model only ever sees `assistant_history`: a summary turn and what follows it, at most a window. An
exported chat brings what its model saw (its summary turn and the turns after it), which is kept as it is,
with the summary's vector when this embedder made it. Any other chat's history starts at its last summary
turn and keeps at most `MODEL_VIEW_TURNS` turns after it; compaction then summarises at most those, and only
the summary (or a young chat's topic) is embedded: the work is bounded by what the model will see, not by
the chat's length. The turns' recall
vectors are left to the maintenance backfill, which runs in the background of the window and the voice
loop (`MaintenanceWorker.request_backfill`), and so is everything else of a large import (`MAINTAINED_INLINE`).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from uuid import UUID

from app.account.sync import StampClock, copy_folders, create_copy, extend_copy, missing_turns
from app.wiring import ChatServices
from chats.compaction import SUMMARY_WINDOW_SIZE
from chats.embedders.embedding import embed_one
from chats.errors import ChatNotFound, EmbeddingError, TextModelError
from chats.import_reader import ImportedChat, ImportedFolder
from chats.models import FOLDER_NAME_MAX, Chat, EmbeddedText, Folder, Turn, folder_name_key, utc_now

MODEL_VIEW_TURNS = 4 * SUMMARY_WINDOW_SIZE
"""The most turns an imported chat's first summary and tail are made from: a chat of a few windows is
summarised whole, as if it had been spoken; past that the summary covers the latest of them. (The offline
summariser takes about as long for 120 turns as for 30; for 100,000 it took minutes.)"""
MAINTAINED_INLINE = 100
"""An import of at most this many chats makes their summaries, topics and titles as it goes, so that they
are found by meaning at once; a larger one writes the chats only, and the maintenance backfill of the window
or `parley listen` makes the rest in the background (their turns have no recall vectors yet, which is what
it looks for). Maintained one by one, 5,000 small chats took 28 minutes (a topic vector and a title each)."""
IMPORT_NAMESPACE = UUID("5b0e7c52-5f0c-4d2a-9a39-51d1a3f0c615")
"""Of the ids of imported chats (UUID version 5 of the user and the chat's content)."""


@dataclass(frozen=True, slots=True)
class ImportReport:
    chat_id: UUID
    turns: int
    compactions: int
    new: bool = True
    """False when the chat was here already (imported before, or the export's own)."""
    added: int = 0
    """Turns written: all of a new chat's, or those the chat here lacked."""
    unmaintained: str | None = None
    """Why the chat's summary and title are still to be made (the text model could not be reached): the
    chat is imported whole all the same, and maintained when it is next used."""


class ChatImporter:
    """Imports chats one at a time into `services.store`. `clock` must be the clock that store was built
    with, for exported chats to keep their times (without one they take the time of the import)."""

    def __init__(self, services: ChatServices, clock: StampClock | None = None, *, as_new: bool = False) -> None:
        self._s = services
        self._clock = clock or StampClock()
        self._as_new = as_new
        self._folders: list[Folder] | None = None

    async def import_folders(self, folders: Sequence[ImportedFolder]) -> int:
        """Make the folders of an export this store lacks (by name, or by id: `copy_folders`), with their ids
        and times; how many were made."""
        now = utc_now()
        wanted = [
            Folder(folder.id or str(uuid.uuid4()), folder.name, folder.created_at or now, 0) for folder in folders
        ]
        _, made = await copy_folders(self._s.store, self._clock, wanted)
        self._folders = None  # read again when next needed
        return made

    async def import_chat(
        self, imported: ImportedChat, saving: Callable[[], None] = lambda: None, *, maintain: bool = True
    ) -> ImportReport:
        """Import one chat; `saving` is called just before its turns are written. `maintain` False: its
        summary, topic and title are left to the maintenance backfill (see `MAINTAINED_INLINE`)."""
        if imported.id is None:
            return await self._import_turns(imported, saving, maintain)
        if self._as_new:
            chat_id = imported_chat_id(self._s.installation, self._s.store.user_id, imported)
            return await self._copy(imported, chat_id, saving, maintain)
        return await self._copy(imported, imported.id, saving, maintain)

    async def _copy(
        self, imported: ImportedChat, chat_id: UUID, saving: Callable[[], None], maintain: bool
    ) -> ImportReport:
        """An exported chat, under `chat_id`: its own, or as a copy one derived from its content."""
        store = self._s.store
        view = exported_view(imported) or model_view(imported.turns)
        now = utc_now()
        chat = Chat(
            id=chat_id,
            user_id=store.user_id,
            project_id=None,
            title=imported.title,
            full_history=imported.turns,
            assistant_history=view,
            summary=await self._summary(imported, view),
            last_activity_at=imported.last_activity_at or imported.created_at or now,
            created_at=imported.created_at or now,
            version=0,
        )
        try:
            copy = await store.get(chat_id)
        except ChatNotFound:
            folder_id = await self._folder_for_import(imported)
            saving()
            copy = await create_copy(store, self._clock, chat, folder_id, imported.state)
            new = True
        else:
            saving()
            new = False
        topic = imported.topic
        if topic is not None and topic.model != self._s.embedder.model_name:
            topic = await embed_one(self._s.embedder, topic.text)
        added = await extend_copy(store, self._clock, chat, copy, topic)
        restored = new and view == imported.model_history and (chat.summary or topic) is not None
        report = ImportReport(chat_id, len(imported.turns), 0, new, added)
        if not added or restored or not maintain:  # as the export had it (nothing to make again), or later
            return report
        return await self._maintain(report)

    async def _import_turns(self, imported: ImportedChat, saving: Callable[[], None], maintain: bool) -> ImportReport:
        """A chat without an id, under an id derived from its content, dated by its turns (`chat_times`)."""
        store = self._s.store
        chat_id = imported_chat_id(self._s.installation, store.user_id, imported)
        began, ended = chat_times(imported)
        # All its turns but the last, dated by its start; then the last, dated by its end (a store stamps a
        # new chat's two times alike). A stop between the two is completed by the next import.
        first = imported.turns[:-1] if ended is not None and ended != began else imported.turns
        try:
            held = await store.get(chat_id)
        except ChatNotFound:
            folder_id = await self._folder_for_import(imported)
            saving()
            with self._clock.at(began or self._clock()):
                held = await store.create(title=imported.title, turns=first, project_id=folder_id, chat_id=chat_id)
            new = True
        else:  # imported before, perhaps by an import stopped before it compacted the chat
            new = False
        version, history = held.version, held.assistant_history
        rest = missing_turns(imported.turns, held.full_history)
        if rest:
            with self._clock.at(ended or self._clock()):
                version = (await store.append(chat_id, rest)).version
            history = (*history, *rest)
        view = exported_view(imported) or model_view(history)
        if view != history:
            summary = await self._summary(imported, view) if new else None
            await store.replace_assistant_history(
                chat_id, expected_version=version, assistant_history=view, summary=summary
            )
        report = ImportReport(chat_id, len(imported.turns), 0, new, len(imported.turns) if new else len(rest))
        return await self._maintain(report) if maintain else report

    async def _maintain(self, report: ImportReport) -> ImportReport:
        try:
            maintained = await self._s.maintainer.maintain(report.chat_id, embed_turns=False)
        except (TextModelError, EmbeddingError) as error:
            return replace(report, unmaintained=str(error))
        return replace(report, compactions=maintained.compactions)

    async def _summary(self, imported: ImportedChat, view: Sequence[Turn]) -> EmbeddedText | None:
        """The summary vector of an exported summary turn that `view` starts with: the export's own when
        it was made by this embedder, else the summary embedded again (one short text)."""
        if not view or not view[0].summary:
            return None
        given, embedder = imported.summary, self._s.embedder
        if given is not None and given.text == view[0].text and given.model == embedder.model_name:
            return given
        return await embed_one(embedder, view[0].text)

    async def _folder_for_import(self, imported: ImportedChat) -> str | None:
        return await self.folder(imported.folder, imported.project_id)

    async def folder(self, name: str | None, project_id: str | None) -> str | None:
        """The folder here for something imported, making it on first use: the one called `name` (an
        export's folder name), else the one with the id `project_id` (an older export of this store) or
        named after it; None for no folder."""
        wanted = name or imported_folder_name(project_id)
        if not wanted:
            return None
        if self._folders is None:
            self._folders = await self._s.store.list_folders()
        found = imported_folder_id(None if name else project_id, wanted, self._folders)
        if found is None:
            folder = await self._s.store.create_folder(wanted)
            self._folders.append(folder)
            found = folder.id
        return found


def model_view(turns: Sequence[Turn], limit: int = MODEL_VIEW_TURNS) -> tuple[Turn, ...]:
    """What the model is to see of `turns`: from the last summary turn on, that summary and at most
    `limit` turns after it (compaction then makes a summary and the tail of them)."""
    start = max((i for i, turn in enumerate(turns) if turn.summary), default=None)
    if start is None:
        return tuple(turns[-limit:])
    return (turns[start], *turns[start + 1 :][-limit:])


def exported_view(imported: ImportedChat) -> tuple[Turn, ...]:
    """What the model saw of an exported chat, when the export says it and it agrees with the turns: from
    its last summary turn on, that summary, then turns that are the last of `full_history` (empty otherwise)."""
    start = max((i for i, turn in enumerate(imported.model_history) if turn.summary), default=None)
    if start is None:
        return ()
    history = imported.model_history[start:]
    tail = history[1:]
    if tail and tail != imported.turns[-len(tail) :]:
        return ()
    return model_view(history)


def imported_chat_id(installation: UUID, user_id: str, imported: ImportedChat) -> UUID:
    """The same for the same installation, user, title, folder and turns: a second import of a chat finds
    the first. Another installation's import of the same file gets another id: a Supabase project that both
    sync into holds each chat id once, whoever's it is."""
    digest = hashlib.sha256()
    digest.update(json.dumps([str(installation), user_id, imported.title, imported.project_id]).encode())
    for turn in imported.turns:
        digest.update(json.dumps(turn.to_json(), sort_keys=True).encode())
        digest.update(b"\n")
    return uuid.uuid5(IMPORT_NAMESPACE, digest.hexdigest())


def imported_folder_name(project_id: str | None) -> str:
    """The name of the folder an imported chat's `project_id` lands in, as migration 0003 names the folders
    it makes: the id itself, cut to a folder name's length; empty when there is no folder to keep."""
    return (project_id or "").strip()[:FOLDER_NAME_MAX].strip()


def imported_folder_id(project_id: str | None, name: str, folders: Sequence[Folder]) -> str | None:
    """The folder here an imported chat belongs in: the one with its `project_id` (an export of this
    store), else the one named after that id (made by an earlier import); None when there is none yet.

    Going by name as well keeps the chats of one folder together however often they are imported."""
    by_id = [folder.id for folder in folders if folder.id == project_id]
    by_name = [folder.id for folder in folders if folder_name_key(folder.name) == folder_name_key(name)]
    return next(iter(by_id + by_name), None)


def chat_times(imported: ImportedChat) -> tuple[datetime | None, datetime | None]:
    """When a chat without an id began and when it was last active: as the file says, else the times of its
    first and last turns that carry one; None where neither tells."""
    moments = [turn.at for turn in imported.turns if turn.at is not None]
    began = imported.created_at or (moments[0] if moments else None)
    ended = imported.last_activity_at or (moments[-1] if moments else None)
    return began, ended
