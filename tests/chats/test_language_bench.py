"""The hand-written multilingual set that bench/languages.py measures: complete and consistent."""

from __future__ import annotations

from bench.languages import load, parley_choice
from chats.language.words import SUPPORTED, detect


def test_every_language_has_six_chats_eight_requests_and_memory_questions() -> None:
    languages = load()
    assert tuple(languages) == SUPPORTED
    english = languages["en"]
    for language in languages.values():
        assert set(language.chats) == set(english.chats) and len(language.chats) == 6
        assert all(len(turns) >= 4 for turns in language.chats.values())
        assert [topic for topic, _ in language.requests] == [topic for topic, _ in english.requests]
        assert len(language.requests) == 8
        assert set(language.memories) == set(english.memories)
        assert len(language.questions) == 8
        assert all(key in language.memories for key, _ in language.questions)


def test_every_text_is_in_its_own_language() -> None:
    for code, language in load().items():
        texts = [text for _, text in language.requests + language.questions]
        texts += [turn.text for turns in language.chats.values() for turn in turns]
        texts += list(language.memories.values())
        assert [text for text in texts if detect(text) != code] == []


def test_parley_uses_minilm_only_where_everything_is_english() -> None:
    assert parley_choice("en") == parley_choice("en", "en") == "minilm"
    assert parley_choice("it") == parley_choice("en", "de") == "use"
