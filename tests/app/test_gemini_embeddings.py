"""`parley` with a Gemini key and no OpenAI key: chats embedded by Gemini through the real `google-genai`
client against the local fake, and a store moved over from the local model with `parley chats reembed`."""

from __future__ import annotations

import pytest

from tests.app.conftest import Parley
from tests.app.test_cli import JAPAN, kitchen_turns
from tests.fakes.gemini_server import FAKE_GEMINI_KEY, FakeGeminiServer

GEMINI = "gemini-embedding-2@768"


def use_gemini(monkeypatch: pytest.MonkeyPatch, server: FakeGeminiServer, key: str = FAKE_GEMINI_KEY) -> None:
    """A Gemini key and no OpenAI key, as most users have; summaries stay offline, so that every Gemini
    call the fake sees is an embedding."""
    monkeypatch.setenv("GEMINI_API_KEY", key)
    monkeypatch.setenv("PARLEY_GEMINI_BASE_URL", server.base_url)
    monkeypatch.setenv("PARLEY_TEXT_MODEL", "offline")


def test_with_a_gemini_key_chats_are_embedded_and_found_by_gemini(
    parley: Parley, gemini_server: FakeGeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_gemini(monkeypatch, gemini_server)
    [japan] = parley.json("chats", "import", parley.write("japan.json", JAPAN))
    [kitchen] = parley.json("chats", "import", parley.write("kitchen.json", kitchen_turns(20)))

    shown = parley.json("chats", "show", kitchen["id"])
    assert shown["summary_embedding_model"] == GEMINI
    assert len(shown["summary_embedding"]) == 768
    match = parley.json("chats", "search", "the chat about my vacation in Tokyo")
    assert match["outcome"] == "switch"
    assert match["chats"][0]["id"] == japan["id"]
    assert match["chats"][0]["similarity"] is not None
    assert parley.json("chats", "search", "kitchen cabinets")["chats"][0]["id"] == kitchen["id"]
    requests = gemini_server.embedding_requests
    assert requests and {r.method for r in gemini_server.requests} == {"batchEmbedContents"}
    assert all(sent["outputDimensionality"] == 768 for r in requests for sent in r.body["requests"])


def test_reembed_moves_a_local_store_to_gemini(
    parley: Parley, gemini_server: FakeGeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    [report] = parley.json("chats", "import", parley.write("turns.json", kitchen_turns(20)))
    parley.json("chats", "import", parley.write("japan.json", JAPAN))
    assert parley.json("chats", "show", report["id"])["summary_embedding_model"] == "all-MiniLM-L6-v2"

    use_gemini(monkeypatch, gemini_server)
    before = parley.json("chats", "search", "kitchen cabinets")
    assert before["chats"][0]["similarity"] is None  # MiniLM's vectors are never compared with Gemini's
    rebuilt = parley.json("chats", "reembed")
    assert rebuilt == {
        "model": GEMINI,
        "vectors": 2,
        "topics_added": 0,
        "memories": 0,
    }  # a summary and a young chat's topic
    shown = parley.json("chats", "show", report["id"])
    assert (shown["summary_embedding_model"], len(shown["summary_embedding"])) == (GEMINI, 768)
    after = parley.json("chats", "search", "kitchen cabinets")
    assert after["chats"][0]["id"] == report["id"]
    assert after["chats"][0]["similarity"] is not None
    assert parley.json("chats", "reembed")["vectors"] == 0


def test_reembed_moves_memories_to_gemini(
    parley: Parley, gemini_server: FakeGeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea = parley.json("memories", "add", "I prefer green tea to coffee", "--category", "preference")
    use_gemini(monkeypatch, gemini_server)
    assert parley.json("chats", "reembed")["memories"] == 1

    hits = parley.json("memories", "search", "does the user prefer tea or coffee")
    assert [hit["id"] for hit in hits][:1] == [tea["id"]]


def test_a_wrong_gemini_key_is_one_line_without_the_key(
    parley: Parley, gemini_server: FakeGeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    parley.json("chats", "import", parley.write("japan.json", JAPAN))
    use_gemini(monkeypatch, gemini_server, key="AIzaNotTheRightKey")

    code, out = parley("chats", "search", "holiday in Japan")

    assert (code, out) == (1, "")
    assert parley.err == "parley: the Gemini API key was refused\n"


def test_gemini_chosen_without_a_key_says_which_key(parley: Parley, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_EMBEDDER", "gemini")

    code, out = parley("chats", "search", "anything")

    assert (code, out) == (1, "")
    assert parley.err == "parley: the Gemini embedder is chosen but no key is set: set GEMINI_API_KEY\n"
