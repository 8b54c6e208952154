"""The generated switching test part (bench/switch_generated.py): the same set for the same seed, of the
shape its report claims, and requests that ask what they say they ask."""

from __future__ import annotations

from collections import Counter

from bench.switch_generated import (
    CHATS_PER_USER,
    DRIFTING_PER_USER,
    PAIRS_PER_USER,
    REQUEST_KINDS,
    STYLES,
    USERS,
    generate,
    said_elsewhere,
    shared_words,
)
from chats.language.words import stems


def test_the_same_seed_makes_the_same_set_and_another_seed_another() -> None:
    assert generate() == generate()
    assert generate(seed=1) != generate()


def test_each_user_has_near_duplicates_drifting_chats_and_three_requests_per_chat() -> None:
    users = generate()
    assert len(users) == USERS
    for user in users:
        assert len(user.chats) == CHATS_PER_USER and len({chat.key for chat in user.chats}) == CHATS_PER_USER
        kinds = Counter(chat.kind for chat in user.chats)
        assert sorted(kinds.values(), reverse=True)[:PAIRS_PER_USER] == [2] * PAIRS_PER_USER
        assert sum(chat.style == "drift" for chat in user.chats) == DRIFTING_PER_USER
        asked = Counter((request.chat, request.kind) for request in user.requests)
        assert set(asked) == {(chat.key, how) for chat in user.chats for how in REQUEST_KINDS}
        assert set(asked.values()) == {1}
        assert all(chat.turns[0].role == "user" and len(chat.turns) >= 4 for chat in user.chats)
    assert {chat.style for user in users for chat in user.chats} == set(STYLES)


def test_a_paraphrase_shares_no_word_with_its_chat() -> None:
    for user in generate():
        chats = {chat.key: chat for chat in user.chats}
        for request in user.requests:
            if request.kind == "paraphrase":
                assert shared_words(chats[request.chat], request) == set(), request.text


def test_a_detail_is_said_in_its_chat_and_in_no_other_of_the_users() -> None:
    for user in generate():
        chats = {chat.key: chat for chat in user.chats}
        for request in user.requests:
            if request.kind == "detail":
                said = {stem for turn in chats[request.chat].turns for stem in stems(turn.text, "en")}
                assert set(stems(request.wanted, "en")) <= said, request.text
                assert said_elsewhere(user, request) == [], request.text
