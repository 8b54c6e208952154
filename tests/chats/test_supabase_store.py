"""The Supabase store: the shared contract on real Postgres through the real `supabase` client, signed
in as test users of the local stack (each test has users of its own)."""

from __future__ import annotations

import pytest

from chats.errors import StoreUnavailable
from chats.store import ChatStore
from chats.supabase.connection import SupabaseConnection
from chats.supabase.errors import SignInRequired
from chats.supabase.store import SupabaseChatStore
from tests.chats.folder_contract import *  # noqa: F403 - the contracts' tests run here
from tests.chats.recall_contract import *  # noqa: F403
from tests.chats.search_contract import *  # noqa: F403
from tests.chats.store_contract import *  # noqa: F403
from tests.chats.store_contract import turns
from tests.chats.words_held_contract import *  # noqa: F403
from tests.fakes.supabase_stack import SignedInStores, SupabaseStack, TestUser

SupabaseFactory = SignedInStores[ChatStore]


@pytest.fixture
def make_store(supabase_stack: SupabaseStack) -> SupabaseFactory:
    return SignedInStores(supabase_stack, SupabaseChatStore.sign_in)


class DictSessionStorage:
    """A session kept in memory, where the app keeps it in the OS keyring."""

    def __init__(self) -> None:
        self.session: str | None = None

    async def load(self) -> str | None:
        return self.session

    async def save(self, session: str) -> None:
        self.session = session

    async def clear(self) -> None:
        self.session = None


async def sign_in(stack: SupabaseStack, user: TestUser, url: str | None = None) -> SupabaseChatStore:
    return await SupabaseChatStore.sign_in(url or stack.url, stack.anon_key, user.email, user.password)


async def test_a_token_about_to_expire_is_refreshed_and_the_new_one_used(
    supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tokens that live 5 s are inside the client's 10 s margin at once: every call must refresh first.
    monkeypatch.setattr(supabase_stack.auth, "access_token_seconds", 5)
    user = supabase_stack.new_user("alice")
    store = await sign_in(supabase_stack, user)
    for _ in range(2):
        await store.count()
        mine = [token for token in supabase_stack.auth.issued if token.user_id == user.id]
        last_call = [call for call in supabase_stack.postgrest.calls if call.subject == user.id][-1]
        assert mine[-1].grant == "refresh_token"
        assert last_call.token == mine[-1].access_token
    assert [token.grant for token in mine] == ["password"] + ["refresh_token"] * 3
    await store.close()


async def test_a_revoked_session_asks_to_sign_in_again(
    supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supabase_stack.auth, "access_token_seconds", 5)
    user = supabase_stack.new_user("alice")
    store = await sign_in(supabase_stack, user)
    supabase_stack.auth.revoke_sessions(user.id)
    with pytest.raises(SignInRequired, match="sign in again"):
        await store.count()
    await store.close()


async def test_wrong_credentials_are_refused_clearly(supabase_stack: SupabaseStack) -> None:
    user = supabase_stack.new_user("alice")
    with pytest.raises(SignInRequired, match=r"did not accept the sign-in .*Invalid login credentials"):
        await SupabaseChatStore.sign_in(supabase_stack.url, supabase_stack.anon_key, user.email, "wrong password")


async def test_a_kept_session_is_resumed_without_the_password(supabase_stack: SupabaseStack) -> None:
    user, storage = supabase_stack.new_user("alice"), DictSessionStorage()
    first = await SupabaseChatStore.open(
        await SupabaseConnection.sign_in(
            supabase_stack.url, supabase_stack.anon_key, user.email, user.password, storage=storage
        ),
        owns_connection=True,
    )
    chat = await first.create(title="Kept")
    await first.close()
    assert storage.session is not None
    again = await SupabaseChatStore.open(
        await SupabaseConnection.resume(supabase_stack.url, supabase_stack.anon_key, storage), owns_connection=True
    )
    assert again.user_id == user.id
    assert (await again.get(chat.id)).title == "Kept"
    await again.close()
    with pytest.raises(SignInRequired, match="not signed in"):
        await SupabaseConnection.resume(supabase_stack.url, supabase_stack.anon_key, DictSessionStorage())


async def test_a_server_error_is_reported_as_unavailable_and_passes(supabase_stack: SupabaseStack) -> None:
    store = await sign_in(supabase_stack, supabase_stack.new_user("alice"))
    supabase_stack.postgrest.fail_next(503)
    with pytest.raises(StoreUnavailable, match="Supabase is unavailable"):
        await store.count()
    assert await store.count() == 0
    await store.close()


async def test_a_lost_network_is_reported_as_unavailable(supabase_stack: SupabaseStack) -> None:
    front = supabase_stack.serve()
    store = await sign_in(supabase_stack, supabase_stack.new_user("alice"), url=front.url)
    chat = await store.create()
    front.stop()
    with pytest.raises(StoreUnavailable, match="unreachable"):
        await store.append(chat.id, turns("lost?"))
    await store.close()
    with pytest.raises(StoreUnavailable, match="cannot reach Supabase"):
        await sign_in(supabase_stack, supabase_stack.new_user("bob"), url=front.url)


async def test_a_closed_store_says_so(supabase_stack: SupabaseStack) -> None:
    store = await sign_in(supabase_stack, supabase_stack.new_user("alice"))
    await store.close()
    await store.close()  # closing twice is harmless
    with pytest.raises(StoreUnavailable, match="closed"):
        await store.count()


async def test_turns_are_stored_one_row_each_and_appends_never_rewrite_them(supabase_stack: SupabaseStack) -> None:
    store = await sign_in(supabase_stack, supabase_stack.new_user("alice"))
    chat = await store.create(turns=turns("one", "two"))
    before = supabase_stack.query("SELECT seq, xmin::text FROM chat_turns WHERE chat_id = %s ORDER BY seq", chat.id)
    await store.append(chat.id, turns("three"))
    after = supabase_stack.query("SELECT seq, xmin::text FROM chat_turns WHERE chat_id = %s ORDER BY seq", chat.id)
    assert after[:2] == before  # the older rows were not touched (same row versions)
    assert [seq for seq, _ in after] == [0, 1, 2]
    await store.close()
