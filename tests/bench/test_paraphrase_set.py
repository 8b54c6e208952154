"""The paraphrase set that bench/paraphrase.py measures: no request shares a content word with its chat."""

from __future__ import annotations

from bench.paraphrase_set import PARTS, Target, distractors, load, problems
from chats.language.words import detect
from chats.models import Turn
from languages.registry import SUPPORTED


def test_no_request_shares_a_content_word_with_its_chat() -> None:
    assert [line for part in PARTS for line in problems(part)] == []


def test_each_part_has_sixteen_requests_per_language_among_thirty_chats() -> None:
    for part in PARTS:
        sets = load(part)
        assert tuple(sets) == SUPPORTED
        for code, targets in sets.items():
            assert len(targets) == 16 and len({t.key for t in targets}) == 16
            assert len(targets) + len(distractors(code)) >= 30


def test_the_parts_have_different_chats_and_requests() -> None:
    tuning, test = load("tuning"), load("test")
    for code in SUPPORTED:
        assert not {t.key for t in tuning[code]} & {t.key for t in test[code]}
        assert not {t.request for t in tuning[code]} & {t.request for t in test[code]}


def test_every_chat_is_in_its_own_language() -> None:
    for part in PARTS:
        for code, targets in load(part).items():
            texts = [turn.text for t in targets for turn in t.turns]
            assert [text for text in texts if detect(text, hint=code) != code] == []


def test_a_request_that_shares_a_word_is_named() -> None:
    chat = (Turn(role="user", text="My dog keeps scratching his ears."), Turn(role="model", text="See a vet."))
    found = problems("tuning", {"en": [Target("dog", chat, "the vet visit for my pet")]})
    assert any("dog" in line and "'vet'" in line for line in found)


def test_runs_made_side_by_side_merge_into_one_result() -> None:
    from bench.paraphrase import merged, summary

    run = {"chats": 32, "hit@1": 0.5, "hit@3": 1.0, "vectors_alone": {"hit@1": 0.75, "hit@3": 1.0}, "misses": []}
    one = {"loadavg_after": [3.0, 2.0, 1.0], "tuning": {"minilm": {"en": run}}, "costs": {"minilm": {}}}
    two = {"loadavg_after": [9.0, 2.0, 1.0], "tuning": {"use": {"it": run}}}
    joined = merged([one, two])
    assert set(joined["tuning"]) == {"minilm", "use"} and joined["loadavg_after"] == [9.0, 2.0, 1.0]
    assert joined["costs"] == {"minilm": {}}
    assert any("minilm" in line and "en 0.50/1.00" in line and "en 0.75" in line for line in summary(joined))
