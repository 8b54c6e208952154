"""The streamed import reader: the three shapes, fields in any order, what an export's model saw, and
errors that say where."""

from __future__ import annotations

import io
import json

import pytest

from chats.errors import InvalidTurn
from chats.import_reader import ImportedChat, InvalidJSON, read_import

USER = {"role": "user", "parts": [{"text": "Oak or walnut?"}]}
MODEL = {"role": "model", "parts": [{"text": "Oak."}]}
SUMMARY = {"role": "model", "parts": [{"text": "They chose oak."}], "summary": True}


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


@pytest.mark.parametrize(
    ("data", "message"),
    [
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
