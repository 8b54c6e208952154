"""The hand-written multilingual sets that bench/languages.py measures: complete, consistent, and the test
part written apart from the tuning part."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.languages import PARTS, load, parley_choice
from chats.language.words import detect
from languages.registry import SUPPORTED


@pytest.mark.parametrize("path", PARTS.values(), ids=PARTS.keys())
def test_every_language_has_six_chats_eight_requests_and_memory_questions(path: Path) -> None:
    languages = load(path)
    assert tuple(languages) == SUPPORTED
    english = languages["en"]
    for language in languages.values():
        assert set(language.chats) == set(english.chats) and len(language.chats) == 6
        assert all(len(turns) >= 4 for turns in language.chats.values())
        assert len(language.requests) == 8 and {topic for topic, _ in language.requests} <= set(language.chats)
        assert len({topic for topic, _ in language.requests}) >= 5
        assert set(language.memories) == set(english.memories)
        assert len(language.questions) == 8
        assert all(key in language.memories for key, _ in language.questions)


@pytest.mark.parametrize("path", PARTS.values(), ids=PARTS.keys())
def test_every_text_is_in_its_own_language(path: Path) -> None:
    for code, language in load(path).items():
        texts = [text for _, text in language.requests + language.questions]
        texts += [turn.text for turns in language.chats.values() for turn in turns]
        texts += list(language.memories.values())
        # A text too short to be sure of falls back to the hint, as the user's language does in Parley: none
        # may be surely another language.
        assert [text for text in texts if detect(text, hint=code) != code] == []


@pytest.mark.parametrize(("one", "other"), [("tuning", "test"), ("tuning", "test2"), ("test", "test2")])
def test_the_parts_share_no_topic_memory_or_text(one: str, other: str) -> None:
    first, second = load(PARTS[one]), load(PARTS[other])
    assert not set(first["en"].chats) & set(second["en"].chats)
    assert not set(first["en"].memories) & set(second["en"].memories)
    for code in SUPPORTED:
        texts = [
            {t for _, t in lang.requests + lang.questions} | set(lang.memories.values())
            for lang in (first[code], second[code])
        ]
        assert not texts[0] & texts[1]


def test_parley_uses_minilm_only_for_english() -> None:
    assert parley_choice("en") == "minilm"
    assert parley_choice("it") == parley_choice("de") == "use"
