"""The Supabase chat store while Supabase cannot be reached (chats/supabase/outage_store.py): a chat begun
meanwhile is listed, shown and kept across a restart, and reaches Supabase, once, before its turns; the
window hears when Supabase goes and comes back. Real Postgres, the real client, the HTTP front stopped."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

import pytest

from app.account.supabase_reachability import BACK, UNREACHABLE, report_reachability
from chats.models import NO_FOLDER, Turn
from chats.supabase.connection import SupabaseConnection
from chats.supabase.errors import SupabaseUnreachable
from chats.supabase.outage_store import OutageTolerantChatStore
from chats.supabase.started_chats import StartedChats
from chats.supabase.store import SupabaseChatStore
from tests.fakes.supabase_http import SupabaseHttpServer
from tests.fakes.supabase_stack import SupabaseStack, TestUser

BEGUN = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


@dataclass
class Outage:
    stack: SupabaseStack
    front: SupabaseHttpServer
    user: TestUser
    started: Path

    async def store(self) -> OutageTolerantChatStore:
        """A store as the app opens it: on the kept session, whether Supabase answers or not."""
        connection = await SupabaseConnection.sign_in(self.front.url, self.stack.anon_key, self.user.email, PASSWORD)
        return OutageTolerantChatStore(connection, StartedChats(self.started), clock=lambda: BEGUN)

    def down(self) -> None:
        self.front.stop()

    def up(self) -> None:
        self.front = self.stack.serve(self.front.port)

    def stored_chats(self) -> list[tuple[object, ...]]:
        return self.stack.query(
            "SELECT id, title, project_id, created_at FROM chats WHERE user_id = %s ORDER BY created_at", self.user.id
        )


PASSWORD = "correct horse battery staple"


@pytest.fixture
async def outage(supabase_stack: SupabaseStack, tmp_path: Path) -> AsyncIterator[Outage]:
    situation = Outage(supabase_stack, supabase_stack.serve(), supabase_stack.new_user("alice"), tmp_path / "started")
    yield situation
    situation.front.stop()


async def test_a_chat_begun_while_unreachable_is_kept_and_reaches_supabase_once_before_its_turns(
    outage: Outage,
) -> None:
    store = await outage.store()
    folder = await store.create_folder("Trips")
    outage.down()
    chat = await store.create(title="Lisbon", project_id=folder.id)
    assert chat.created_at == BEGUN and chat.full_history == ()
    assert [c.id for c in await store.list_chats()] == [chat.id]
    assert [c.id for c in await store.list_chats(project_id=folder.id)] == [chat.id]
    assert await store.list_chats(project_id=NO_FOLDER) == []
    assert (await store.get(chat.id)).title == "Lisbon"
    context = await store.load_assistant_context(chat.id)
    assert (context.assistant_history, context.memory_enabled) == ((), False)
    turn = Turn(role="user", text="a trip to Lisbon", id=uuid4())
    with pytest.raises(SupabaseUnreachable):
        await store.append(chat.id, [turn])
    await store.close()
    # Parley restarts; Supabase is back.
    outage.up()
    again = await outage.store()
    assert (await again.append(chat.id, [turn])).appended == 1
    assert (await again.append(chat.id, [turn])).appended == 0  # a repeated delivery adds nothing
    assert outage.stored_chats() == [(chat.id, "Lisbon", folder.id, BEGUN)]
    assert [t.text for t in (await again.get(chat.id)).full_history] == ["a trip to Lisbon"]
    assert await StartedChats(outage.started).newest_first() == []
    await again.close()


async def test_a_creation_whose_answer_was_lost_is_not_repeated_and_a_deleted_folder_is_left(
    outage: Outage,
) -> None:
    store = await outage.store()
    folder = await store.create_folder("Gone soon")
    outage.down()
    in_folder = await store.create(project_id=folder.id)
    lost_answer = await store.create()
    outage.up()
    other = await SupabaseChatStore.sign_in(outage.front.url, outage.stack.anon_key, outage.user.email, PASSWORD)
    await other.delete_folder(folder.id)
    await other.create(chat_id=lost_answer.id)  # what a creation that never heard back left behind
    await other.close()
    await store.append(in_folder.id, [Turn(role="user", text="one", id=uuid4())])
    await store.append(lost_answer.id, [Turn(role="user", text="two", id=uuid4())])
    assert {(row[0], row[2]) for row in outage.stored_chats()} == {(in_folder.id, None), (lost_answer.id, None)}
    assert await store.list_chats() != []
    await store.close()


async def test_a_chat_with_turns_is_not_begun_while_unreachable(outage: Outage) -> None:
    store = await outage.store()
    outage.down()
    with pytest.raises(SupabaseUnreachable):
        await store.create(turns=[Turn(role="user", text="hello")])
    assert await store.list_chats() == []
    await store.close()


async def test_the_window_hears_when_supabase_goes_and_comes_back(outage: Outage) -> None:
    store = await outage.store()
    said: list[str] = []
    report_reachability(
        store, error=said.append, resolved=lambda gone: said.append(f"resolved: {gone}"), notice=said.append
    )
    await store.count()
    assert said == []  # reachable from the start: nothing to say
    outage.down()
    with pytest.raises(SupabaseUnreachable):
        await store.count()
    await store.list_chats()  # answered locally, still unreachable: said once
    assert said == [UNREACHABLE]
    late: list[str] = []
    report_reachability(store, error=late.append, resolved=late.append, notice=late.append)
    assert late == [UNREACHABLE]  # a listener that comes late hears it at once
    outage.up()
    await store.count()
    assert said == [UNREACHABLE, f"resolved: {UNREACHABLE}", BACK]
    await store.close()
