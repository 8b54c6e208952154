"""The streamed import reader: the three shapes, fields in any order, what an export's model saw, and
errors that say where."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from datetime import UTC, datetime
from uuid import uuid4

import pytest

from chats.errors import InvalidTurn
from chats.import_events import InvalidJSON
from chats.import_reader import ImportedChat, read_import
from chats.models import Chat, Source
from chats.transfer import chat_to_markdown

USER = {"role": "user", "parts": [{"text": "Oak or walnut?"}]}
MODEL = {"role": "model", "parts": [{"text": "Oak."}]}
SUMMARY = {"role": "model", "parts": [{"text": "They chose oak."}], "summary": True}


WHEN = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
CHAT = Chat(uuid4(), "local", None, "Weather", (), (), None, WHEN, WHEN, 1)


def read(data: object) -> list[ImportedChat]:
    return list(read_import(io.BytesIO(json.dumps(data).encode())))


def test_a_chat_s_fields_may_come_in_any_order() -> None:
    [chat] = read({"full_history": [USER, MODEL], "project_id": "p1", "title": "Kitchen", "extra": [1, {"a": 2}]})
    assert (chat.title, chat.project_id, [t.text for t in chat.turns]) == ("Kitchen", "p1", ["Oak or walnut?", "Oak."])


def test_an_export_brings_what_its_model_saw() -> None:
    exported = {
        "chats": [
            {
                "title": None,
                "full_history": [USER, MODEL, USER],
                "assistant_history": [USER, SUMMARY, USER],
                "summary_text": "They chose oak.",
                "summary_embedding": [0.6, 0.8],
                "summary_embedding_model": "m",
            },
            {"full_history": [USER], "assistant_history": [USER]},
        ],
        "format": "parley.chats/1",
    }
    first, second = read(exported)
    assert [t.text for t in first.model_history] == ["Oak or walnut?", "They chose oak.", "Oak or walnut?"]
    assert first.summary is not None and first.summary.model == "m"
    assert first.summary.vector.tolist() == pytest.approx([0.6, 0.8])
    assert ([t.text for t in second.model_history], second.summary) == (["Oak or walnut?"], None)


def test_an_answer_brings_its_web_sources_and_a_markdown_export_links_them() -> None:
    sources = [{"title": "bbc.co.uk", "uri": "https://example.org/weather"}, {"uri": "https://example.net/x y"}]
    [chat] = read({"full_history": [USER, {**MODEL, "sources": sources, "searches": ["oak floors"]}]})
    assert chat.turns[1].searches == ("oak floors",)
    assert chat.turns[1].sources == (Source("bbc.co.uk", "https://example.org/weather"), Source("", sources[1]["uri"]))
    sources[1]["title"] = ""
    assert chat.turns[1].to_json() == {**MODEL, "sources": sources, "searches": ["oak floors"]}
    markdown = chat_to_markdown(replace(CHAT, full_history=chat.turns))
    assert "**Parley:** Oak.\n\nSources: [bbc.co.uk](<https://example.org/weather>), " in markdown
    assert "[https://example.net/x y](<https://example.net/x%20y>)" in markdown
    assert "Searched Google: [oak floors](<https://www.google.com/search?q=oak+floors>)" in markdown


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([{**MODEL, "sources": "bbc"}], "turn 1: a turn's 'sources' must be a list"),
        ([{**MODEL, "sources": [{"title": "no link"}]}], "turn 1: every source of a turn needs a 'uri' string"),
        ([{**MODEL, "sources": [{"title": 3, "uri": "https://a.org"}]}], "turn 1: a source's 'title' must be a string"),
        ([{**MODEL, "searches": "oak"}], "turn 1: a turn's 'searches' must be a list of strings"),
        (
            {"chats": [{"full_history": [USER]}, {"full_history": [USER, {"role": "x"}]}]},
            "chat 2, turn 2: a turn's role",
        ),
        ({"chats": [{"title": 3, "full_history": []}]}, "chat 1, a chat's 'title' must be a string"),
        ({"chats": [[USER]]}, "chat 1: every chat in an export must be an object"),
        ({"title": "no history"}, "expected a list of turns, a chat with 'full_history'"),
        ([USER, "text"], "turn 2: a turn must be an object, not str"),
    ],
)
def test_a_wrong_file_says_what_and_where(data: object, message: str) -> None:
    with pytest.raises(InvalidTurn) as raised:
        read(data)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"[{", "is not valid JSON (Incomplete JSON content)"),
        (b"\xff", "is not UTF-8 text"),
        (b"[] []", "is not valid JSON"),
    ],
)
def test_what_is_not_json_says_so(raw: bytes, message: str) -> None:
    with pytest.raises(InvalidJSON) as raised:
        list(read_import(io.BytesIO(raw)))
    assert str(raised.value).startswith(message)
