"""The share of a request's telling words each chat holds (`SearchCandidate.words_held`), as every `ChatStore`
reports it. A backend's test module imports the tests: `from tests.chats.words_held_contract import *`,
beside `store_contract`'s (whose `store` fixture these use)."""

from __future__ import annotations

from chats.models import Turn
from chats.store import ChatStore, SearchQuery
from tests.chats.store_contract import turns, unit


async def held(store: ChatStore, request: str) -> dict[object, float]:
    found = await store.search(SearchQuery(vector=unit(1), model="m", text=request))
    return {chat.chat_id: chat.words_held for chat in found if chat.lexical > 0}


async def test_a_chat_holding_one_word_of_three_holds_a_third(store: ChatStore) -> None:
    subject = await store.create(turns=turns("The mortgage on the house", "Refinancing saves money"))
    stray = await store.create(turns=turns("We painted the house blue"))
    for filler in ("Sourdough starter", "Guitar chords", "Tax return", "Japan trip"):
        await store.create(title=filler, turns=turns(filler.lower()))
    shares = await held(store, "money mortgage house")
    assert shares[subject.id] == 1.0
    assert abs(shares[stray.id] - 1 / 3) < 1e-9


async def test_a_word_in_more_than_half_of_the_chats_is_not_counted(store: ChatStore) -> None:
    # "Caroline" is in every chat between two people: it tells none of them apart.
    adoption = await store.create(turns=turns("Caroline visited the adoption agency"))
    painting = await store.create(turns=turns("Caroline painted a sunrise"))
    await store.create(turns=turns("Caroline went hiking"))
    shares = await held(store, "Caroline adoption")
    assert shares[adoption.id] == 1.0
    assert shares[painting.id] == 0.0


async def test_with_no_telling_word_every_chat_holds_them_all(store: ChatStore) -> None:
    first = await store.create(turns=[Turn(role="user", text="Caroline went hiking")])
    second = await store.create(turns=[Turn(role="user", text="Caroline painted")])
    assert await held(store, "Caroline") == {first.id: 1.0, second.id: 1.0}
