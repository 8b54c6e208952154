"""`parley listen` end to end: a recording, the real wake word model, the real google-genai client
against the fake Live server, the real SQLite store and journal."""

from __future__ import annotations

import asyncio
import json
import wave
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from app.cli.listen_command import require_microphone
from app.cli.main import main
from chats.journal import TurnJournal
from chats.models import Turn
from chats.sqlite.store import SqliteChatStore
from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AfterSpeech,
    AfterToolResponse,
    Audio,
    Call,
    CallTools,
    CompleteTurn,
    InputTranscript,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from voice.audio.devices import AudioDevice
from voice.audio.earcon import earcon
from voice.errors import NoAudioDevice

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"
VOICE = bytes(range(256)) * 30
"""160 ms of 24 kHz model voice."""


async def listen(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]]]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["listen", "--fast", "--events", *args])
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines()]


async def chat(capsys: pytest.CaptureFixture[str], chat_id: str) -> dict[str, Any]:
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["chats", "show", chat_id, "--json"]) == 0
    shown: dict[str, Any] = json.loads(capsys.readouterr().out)
    return shown


async def test_a_question_is_answered_aloud_and_saved(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # The service answers once the user has finished asking (its own voice activity detection): an answer
    # that came while they still spoke would be spoken over, and cut.
    gemini_live_server.script(
        script(
            (
                AfterSpeech(),
                (
                    InputTranscript("What's the weather like in Rome tomorrow?"),
                    OutputTranscript("Sunny and warm."),
                    Audio(VOICE),
                    CompleteTurn(),
                ),
            )
        )
    )
    out = environment / "reply.wav"
    code, events = await listen("--audio-in", str(ASSETS / "wake_weather.wav"), "--audio-out", str(out), capsys=capsys)
    assert code == 0
    kinds = [e["event"] for e in events]
    # The documented kinds only: microphone levels (ten a second) are the window's, not printed here.
    assert set(kinds) <= {"ready", "state", "wake", "transcript", "tool_call", "saved", "chat", "error"}
    assert "error" not in kinds
    [wake] = [e for e in events if e["event"] == "wake"]
    assert wake["model"] == "hey_jarvis" and 1400 <= wake["offset_ms"] <= 2200
    assert [(e["role"], e["text"]) for e in events if e["event"] == "transcript"] == [
        ("user", "What's the weather like in Rome tomorrow?"),
        ("model", "Sunny and warm."),
    ]
    saved = [e for e in events if e["event"] == "saved"]
    assert saved[0]["turns"] == 2
    assert kinds.index("wake") < kinds.index("transcript") < kinds.index("saved")
    states = [(e["old"], e["new"]) for e in events if e["event"] == "state"]
    assert states[:3] == [("sleeping", "connecting"), ("connecting", "listening"), ("listening", "responding")]
    assert states[-1] == ("sleeping", "stopped")
    shown = await chat(capsys, saved[0]["chat_id"])
    assert [t["parts"][0]["text"] for t in shown["full_history"]] == [
        "What's the weather like in Rome tomorrow?",
        "Sunny and warm.",
    ]
    with wave.open(str(out), "rb") as reply:
        assert reply.getframerate() == 24_000
        assert reply.readframes(reply.getnframes()) == earcon().pcm + VOICE
    # The words after the wake word reached the model.
    assert len((await gemini_live_server.connection(0)).audio) > 16_000


async def test_a_refused_key_is_said_in_one_line_and_fails_the_command(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "a-wrong-key")
    capsys.readouterr()
    code = await asyncio.to_thread(
        main, ["listen", "--fast", "--events", "--audio-in", str(ASSETS / "wake_weather.wav")]
    )
    out, err = capsys.readouterr()
    assert code == 1
    events = [json.loads(line) for line in out.splitlines()]
    [error] = [e for e in events if e["event"] == "error"]
    assert error["message"].startswith("Gemini Live refused the API key")
    assert error["message"] in err  # also said without --events
    assert "a-wrong-key" not in out + err
    assert [e for e in events if e["event"] == "state"][-1] == {"event": "state", "old": "sleeping", "new": "stopped"}


async def test_a_second_conversation_continues_the_chat_with_its_history(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = (InputTranscript("What's the weather?"), OutputTranscript("Sunny."), CompleteTurn())
    gemini_live_server.script(script((AfterAudio(16_000), answer)), script((AfterAudio(16_000), answer)))
    recording = str(ASSETS / "wake_weather.wav")
    _, first = await listen("--audio-in", recording, capsys=capsys)
    chat_id = next(e["chat_id"] for e in first if e["event"] == "saved")
    _, second = await listen("--audio-in", recording, "--chat", chat_id, capsys=capsys)
    assert next(e["chat_id"] for e in second if e["event"] == "saved") == chat_id
    seeded = await gemini_live_server.connection(1)
    assert seeded.history_in_client_content
    assert len((await chat(capsys, chat_id))["full_history"]) == 4


async def test_switching_chats_by_voice(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    kitchen = environment / "kitchen.json"
    kitchen.write_text(
        json.dumps(
            [
                {"role": "user", "parts": [{"text": "We are renovating the kitchen with oak cabinets."}]},
                {"role": "model", "parts": [{"text": "Oak is a fine choice."}]},
            ]
        ),
        encoding="utf-8",
    )
    assert await asyncio.to_thread(main, ["chats", "import", str(kitchen), "--json"]) == 0
    kitchen_id = json.loads(capsys.readouterr().out)[0]["id"]
    gemini_live_server.script(
        script(
            (
                AfterAudio(16_000),
                (
                    InputTranscript("Let's go back to the chat about the kitchen renovation."),
                    CallTools((Call("c-1", "switch_chat", {"query": "the kitchen renovation"}),)),
                ),
            ),
            (AfterToolResponse("c-1"), (OutputTranscript("Back to the kitchen."), CompleteTurn())),
        ),
        script(),
    )
    code, events = await listen("--audio-in", str(ASSETS / "wake_switch_chat.wav"), "--new-chat", capsys=capsys)
    assert code == 0
    [tool] = [e for e in events if e["event"] == "tool_call"]
    assert tool["result"] == {"outcome": "switched", "chat_id": kitchen_id, "title": tool["result"]["title"]}
    assert {"event": "chat", "chat_id": kitchen_id} in events
    resumed = await gemini_live_server.connection(1)
    assert "oak cabinets" in json.dumps(resumed.history)


async def test_turns_a_crash_left_in_the_journal_are_saved_at_the_next_start(
    environment: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_TEXT_MODEL", "offline")  # the Live fake writes no titles
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["chats", "new", "--json"]) == 0
    chat_id = json.loads(capsys.readouterr().out)["id"]
    journal = TurnJournal(environment / "data" / "journal.jsonl")
    said = await journal.record(UUID(chat_id), Turn(role="user", text="Remember the plumber on Tuesday."))
    # The crash came after the store took the turn but before the journal was trimmed: a duplicate waits.
    async with open_store(environment) as store:
        await store.append(UUID(chat_id), [said])
    await journal.record(UUID(chat_id), Turn(role="model", text="Noted: the plumber, Tuesday."))
    code, _ = await listen("--audio-in", str(ASSETS / "silence.wav"), capsys=capsys)
    assert code == 0
    recovered = await chat(capsys, chat_id)
    texts = [t["parts"][0]["text"] for t in recovered["full_history"]]
    assert texts == ["Remember the plumber on Tuesday.", "Noted: the plumber, Tuesday."]
    assert not journal.path.exists()
    assert recovered["title"], "a chat recovered from the journal is maintained (titled) as after a conversation"


@asynccontextmanager
async def open_store(environment: Path) -> AsyncIterator[SqliteChatStore]:
    store = await SqliteChatStore.open(environment / "data" / "chats.sqlite3", "local")
    try:
        yield store
    finally:
        await store.close()


async def test_a_model_the_service_does_not_know_is_said_in_one_line_naming_the_setting(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARLEY_GEMINI_LIVE_MODEL", "gemini-2.0-flash-live-001")  # shut down in December 2025
    capsys.readouterr()
    code = await asyncio.to_thread(
        main, ["listen", "--fast", "--events", "--audio-in", str(ASSETS / "wake_weather.wav")]
    )
    out, err = capsys.readouterr()
    assert code == 1
    events = [json.loads(line) for line in out.splitlines()]
    [error] = [e for e in events if e["event"] == "error"]
    assert error["message"] == (
        "Gemini Live does not know the model 'gemini-2.0-flash-live-001': set gemini_live_model to a current"
        " Live model (parley config)"
    )
    assert error["message"] in err and "\n" not in error["message"]
    # The service closed with its own code for it.
    assert (await gemini_live_server.connection(0)).close_code == 1008


async def listed_chats(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["chats", "list", "--json"]) == 0
    listed: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return listed


async def test_an_unreadable_recording_is_one_line_at_once_and_makes_no_chat(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = environment / "x.wav"
    junk.write_bytes(b"RIFF" + bytes(200))
    for _ in range(2):  # a retry leaves nothing behind either
        capsys.readouterr()
        code = await asyncio.to_thread(main, ["listen", "--fast", "--events", "--new-chat", "--audio-in", str(junk)])
        out, err = capsys.readouterr()
        # Refused before anything starts: no `ready`, no model loaded, no connection, no chat.
        assert (code, out) == (1, "")
        assert err == f"parley: cannot read audio from {junk}: format not recognised\n"
    assert gemini_live_server.connections == []
    assert await listed_chats(capsys) == []


async def test_a_new_chat_is_made_only_once_something_is_said_in_it(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events = await listen("--new-chat", "--audio-in", str(ASSETS / "silence.wav"), capsys=capsys)
    [ready] = [e for e in events if e["event"] == "ready"]
    assert code == 0
    assert await listed_chats(capsys) == []
    gemini_live_server.script(
        script((AfterSpeech(), (InputTranscript("Is it going to rain?"), OutputTranscript("No."), CompleteTurn())))
    )
    code, events = await listen("--new-chat", "--audio-in", str(ASSETS / "wake_weather.wav"), capsys=capsys)
    [ready] = [e for e in events if e["event"] == "ready"]
    assert code == 0
    assert [c["id"] for c in await listed_chats(capsys)] == [ready["chat_id"]]
    texts = [t["parts"][0]["text"] for t in (await chat(capsys, ready["chat_id"]))["full_history"]]
    assert texts == ["Is it going to rain?", "No."]


async def test_a_tool_in_a_new_chat_finds_the_chat_made(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # The model writes its notes for the chat on the first turn: the chat must exist for them.
    notes = Call("c-1", "update_working_memory", {"patch": json.dumps({"goal": "pick tiles"})})
    gemini_live_server.script(
        script(
            (AfterSpeech(), (InputTranscript("Let's plan the kitchen."), CallTools((notes,)))),
            (AfterToolResponse(), (OutputTranscript("Noted."), CompleteTurn())),
        )
    )
    code, events = await listen("--new-chat", "--audio-in", str(ASSETS / "wake_weather.wav"), capsys=capsys)
    [ready] = [e for e in events if e["event"] == "ready"]
    [used] = [e for e in events if e["event"] == "tool_call"]
    assert code == 0 and used["result"]["success"] is True
    [listed] = await listed_chats(capsys)
    assert listed["id"] == ready["chat_id"]
    texts = [t["parts"][0]["text"] for t in (await chat(capsys, ready["chat_id"]))["full_history"]]
    assert texts == ["Let's plan the kitchen.", "Noted."]


async def test_a_recording_cut_short_is_used_with_a_warning(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = (ASSETS / "silence.wav").read_bytes()
    cut = environment / "cut.wav"
    cut.write_bytes(whole[: len(whole) // 2])  # the header still announces the whole recording
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["listen", "--fast", "--audio-in", str(cut)])
    [line] = capsys.readouterr().err.splitlines()
    assert code == 0
    assert line.startswith(f"parley: warning: {cut} ends early: its header announces ")


async def test_a_transcript_with_half_an_emoji_is_saved_repaired(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # The service's transcription messages can split a surrogate pair, or carry half of one.
    gemini_live_server.script(
        script(
            (
                AfterSpeech(),
                (
                    InputTranscript("Will it rain \ud800?"),
                    OutputTranscript("Sunny \ud83d"),
                    OutputTranscript("\ude00 and warm."),
                    CompleteTurn(),
                ),
            )
        )
    )
    code, events = await listen("--new-chat", "--audio-in", str(ASSETS / "wake_weather.wav"), capsys=capsys)
    [saved] = [e for e in events if e["event"] == "saved" and e["turns"]]
    assert code == 0
    texts = [t["parts"][0]["text"] for t in (await chat(capsys, saved["chat_id"]))["full_history"]]
    assert texts == ["Will it rain \ufffd?", "Sunny \U0001f600 and warm."]


async def test_gemini_live_is_asked_to_speak_the_users_language(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARLEY_LANGUAGE", "it")
    answer = (InputTranscript("Che tempo fa?"), OutputTranscript("C'è il sole."), CompleteTurn())
    gemini_live_server.script(script((AfterAudio(16_000), answer)))
    code, _ = await listen("--audio-in", str(ASSETS / "wake_weather.wav"), capsys=capsys)
    assert code == 0
    setup = json.dumps((await gemini_live_server.connection(0)).setup)
    assert '"it-IT"' in setup  # speechConfig's language code, as the SDK spells it
    assert "The user speaks Italian" in setup


def _device(name: str, inputs: int, outputs: int) -> AudioDevice:
    return AudioDevice(0, name, "ALSA", inputs, outputs, 48_000.0, inputs > 0, outputs > 0)


def test_no_microphone_is_said_before_anything_loads() -> None:
    # `run` asks this before the chats open and the models load, which took 26 s to end in the same line.
    with pytest.raises(NoAudioDevice, match=r"^no microphone found: PortAudio sees no audio devices \(no sound card"):
        require_microphone(list)
    with pytest.raises(NoAudioDevice, match=r"^no microphone found: PortAudio sees no device that records "):
        require_microphone(lambda: [_device("HDMI", 0, 2)])
    require_microphone(lambda: [_device("HDMI", 0, 2), _device("USB headset", 1, 2)])  # one that records: go on
