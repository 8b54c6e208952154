"""The offline `LiveConnection` on the real models: the events a session sees for a spoken question, a
tool intent, typed text and a barge-in. The intent router is a scripted fake of the app's protocol."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Mapping, Sequence
from contextlib import aclosing, asynccontextmanager
from typing import Any

import numpy as np
import pytest

from tests.voice.fixtures import read_pcm, silence, split
from tests.voice.offline.models import AskedChatModel
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.echo.vad import load_session
from voice.live.connection import (
    HistoryTurn,
    Interrupted,
    LiveConfig,
    LiveConnectionLost,
    LiveEvent,
    ModelAudio,
    ModelTranscript,
    ToolCall,
    TurnComplete,
    UserTranscript,
)
from voice.offline.connection import NO_ANSWER, OfflineLiveConnection, connect
from voice.offline.engine import ENGLISH_ONLY_NOTICE, LoadedTranscriber, ModelFolders, OfflineVoice
from voice.offline.prompt import ChatMessage
from voice.offline.router import FromChat, ToolAnswer
from voice.offline.transcriber import WhisperTranscriber

CONFIG = LiveConfig(model="offline", system_prompt="You are Parley, a voice assistant. Answer briefly.")
PREROLL_START = 800 * 32
"""Bytes: the assistant's pre-roll starts 800 ms before the wake word fired, in the middle of the phrase."""


class ScriptedIntents:
    """An `IntentRouter` that calls `tool` when the words contain `trigger`, answers with `answer` whatever
    the result, and finds the chat model's words supported or not as told."""

    def __init__(
        self,
        trigger: str,
        tool: str,
        args: Mapping[str, Any],
        answer: ToolAnswer,
        *,
        supported: bool = True,
        unknown_to_user: bool = False,
    ) -> None:
        """`unknown_to_user`: every sentence of a free answer tells the user what they never said."""
        self.trigger, self.tool, self.args, self.answer, self.holds = trigger, tool, args, answer, supported
        self.unknown_to_user = unknown_to_user
        self.told: list[str] = []
        self.heard: list[str] = []
        self.checked: list[tuple[str, list[str], str]] = []

    async def match(self, text: str, tools: Collection[str]) -> tuple[ToolCall, ...]:
        self.heard.append(text)
        return (ToolCall("", self.tool, self.args),) if self.trigger in text.lower() else ()

    def reply(self, answered: Sequence[tuple[ToolCall, Mapping[str, Any]]]) -> ToolAnswer:
        return self.answer

    def supported(self, sentence: str, findings: Sequence[str], question: str) -> bool:
        self.checked.append((sentence, list(findings), question))
        return self.holds

    def beyond_offline(self, text: str) -> str | None:
        return None

    def from_chat(self, question: str, history: Sequence[tuple[str, str]], system: str) -> FromChat:
        return FromChat(None)

    def unfit(self, sentence: str, question: str, known: Sequence[str]) -> bool:
        self.told.append(sentence)
        return self.unknown_to_user

    def no_answer(self) -> str:
        return NOTHING_FIT


SWITCHED = ToolAnswer("Switching to Kitchen.")
NOTHING_FIT = "My small voice has nothing fit to say to that."
TILES = "Let's go with the white zellige tiles for the wall behind the sink."
RECALLED = ToolAnswer(f"In our chat Kitchen, you said: {TILES}", (TILES,))


async def feed(connection: OfflineLiveConnection, pcm: bytes) -> None:
    for chunk in split(pcm + silence(800)):
        await connection.send_audio(chunk)


async def events_until(
    events: AsyncIterator[LiveEvent], done: Callable[[LiveEvent], bool], seen: list[LiveEvent] | None = None
) -> list[LiveEvent]:
    """The events up to and including the first for which `done` holds (a time limit guards a hang)."""
    seen = [] if seen is None else seen
    async with asyncio.timeout(60):
        async for event in events:
            seen.append(event)
            if done(event):
                return seen
    raise AssertionError(f"the events ended first: {seen}")


def voice_of(events: list[LiveEvent]) -> bytes:
    return b"".join(e.chunk.pcm for e in events if isinstance(e, ModelAudio))


def said(events: list[LiveEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ModelTranscript))


async def test_a_spoken_question_is_transcribed_answered_and_spoken(offline_voice: OfflineVoice) -> None:
    intents = ScriptedIntents("kitchen", "switch_chat", {}, SWITCHED)
    async with (
        connect(CONFIG, voice=offline_voice, intents=intents, wake_phrase="hey jarvis") as connection,
        aclosing(connection.events()) as events,
    ):
        await feed(connection, read_pcm("wake_weather")[PREROLL_START:])
        seen = await events_until(events, lambda e: isinstance(e, TurnComplete))
    heard = [e for e in seen if isinstance(e, UserTranscript)]
    assert heard[0] == UserTranscript("")  # "the user is talking", as soon as they are
    assert heard[-1].final and heard[-1].text.startswith("What") and "Rome" in heard[-1].text
    assert intents.heard == [heard[-1].text]  # the wake phrase's tail was not heard as words
    assert said(seen).strip()
    voice = voice_of(seen)
    assert all(e.chunk.format == MODEL_VOICE_FORMAT for e in seen if isinstance(e, ModelAudio))
    assert len(voice) > MODEL_VOICE_FORMAT.bytes_per_second  # more than a second of speech
    assert np.abs(np.frombuffer(voice, dtype="<i2")).max() > 3000
    kinds = [type(e) for e in seen]
    assert kinds.index(ModelTranscript) < kinds.index(ModelAudio) and kinds[-1] is TurnComplete


class WatchedTranscriber(LoadedTranscriber):
    """The real Whisper, counting when the voice expects speech (`prepare`: the app's Whisper starts loading)
    and when it transcribes."""

    def __init__(self, transcriber: WhisperTranscriber) -> None:
        super().__init__(transcriber)
        self.prepared = 0
        self.leased = 0

    def prepare(self) -> None:
        self.prepared += 1

    @asynccontextmanager
    async def lease(self) -> AsyncIterator[WhisperTranscriber]:
        self.leased += 1
        async with super().lease() as transcriber:
            yield transcriber


@pytest.fixture
def watched_whisper(loaded_whisper: WhisperTranscriber) -> WatchedTranscriber:
    return WatchedTranscriber(loaded_whisper)


@pytest.fixture
def watched_voice(watched_whisper: WatchedTranscriber, asked_model: AskedChatModel) -> Iterator[OfflineVoice]:
    voice = OfflineVoice(transcribers=watched_whisper, chat=asked_model, vad=load_session())
    yield voice
    voice.close()


async def test_a_typed_question_a_tool_answers_needs_neither_whisper_nor_the_chat_models_warm_up(
    watched_voice: OfflineVoice, watched_whisper: WatchedTranscriber, asked_model: AskedChatModel
) -> None:
    intents = ScriptedIntents("kitchen", "switch_chat", {}, SWITCHED)
    warmed = len(asked_model.warmed)
    async with (
        connect(CONFIG, voice=watched_voice, intents=intents) as connection,
        aclosing(connection.events()) as events,
    ):
        await connection.send_text("Let's go back to the kitchen chat.")
        call = (await events_until(events, lambda e: isinstance(e, ToolCall)))[-1]
        assert isinstance(call, ToolCall)
        await connection.send_tool_result(call.id, call.name, {"outcome": "switched", "title": "Kitchen"})
        seen = await events_until(events, lambda e: isinstance(e, TurnComplete))
    assert said(seen) == "Switching to Kitchen."
    assert (watched_whisper.prepared, watched_whisper.leased) == (0, 0)
    assert len(asked_model.warmed) == warmed  # the models' thread stayed idle: closing waits for nothing


async def test_speech_warms_the_chat_model_and_loads_whisper_before_it_ends(
    watched_voice: OfflineVoice, watched_whisper: WatchedTranscriber, asked_model: AskedChatModel
) -> None:
    intents = ScriptedIntents("kitchen", "switch_chat", {}, SWITCHED)
    warmed = len(asked_model.warmed)
    async with (
        connect(CONFIG, voice=watched_voice, intents=intents, wake_phrase="hey jarvis") as connection,
        aclosing(connection.events()) as events,
    ):
        pcm = read_pcm("wake_weather")[PREROLL_START:]
        chunks = split(pcm + silence(800))
        await connection.send_audio(chunks[0])
        assert asked_model.warmed[warmed:] == [CONFIG.system_prompt]  # from the first chunk of sound
        for chunk in chunks[1:]:
            await connection.send_audio(chunk)
        await events_until(events, lambda e: isinstance(e, TurnComplete))
    assert watched_whisper.prepared >= 1 and watched_whisper.leased == 1


async def test_a_tool_intent_is_called_and_its_result_spoken(offline_voice: OfflineVoice) -> None:
    intents = ScriptedIntents("kitchen", "switch_chat", {"query": "the kitchen renovation"}, SWITCHED)
    async with (
        connect(CONFIG, voice=offline_voice, intents=intents, wake_phrase="hey jarvis") as connection,
        aclosing(connection.events()) as events,
    ):
        await feed(connection, read_pcm("wake_switch_chat")[PREROLL_START:])
        seen = await events_until(events, lambda e: isinstance(e, ToolCall))
        call = seen[-1]
        assert isinstance(call, ToolCall) and call.name == "switch_chat" and call.id
        await connection.send_tool_result(call.id, call.name, {"outcome": "switched", "title": "Kitchen"})
        seen = await events_until(events, lambda e: isinstance(e, TurnComplete))
    assert said(seen) == "Switching to Kitchen."
    assert voice_of(seen)


async def test_a_free_answer_says_nothing_that_tells_the_user_what_they_never_said(
    offline_voice: OfflineVoice,
) -> None:
    intents = ScriptedIntents("never", "switch_chat", {}, SWITCHED, unknown_to_user=True)
    async with (
        connect(CONFIG, voice=offline_voice, intents=intents) as connection,
        aclosing(connection.events()) as events,
    ):
        await connection.send_text("Tell me something about myself.")
        answer = said(await events_until(events, lambda e: isinstance(e, TurnComplete)))
    assert intents.told, "the model's sentences were checked"
    assert answer == NOTHING_FIT  # every one was refused: none was said, and the router's limit is


@pytest.fixture
def spanish_voice(model_folders: ModelFolders) -> Iterator[OfflineVoice]:
    """A voice of its own for each test: whether the notice that the model writes English was given is its state."""
    whisper = LoadedTranscriber(WhisperTranscriber(model_folders.whisper))
    voice = OfflineVoice.load_sync(model_folders.whisper.parent, whisper, language="es")
    yield voice
    voice.close()


async def free_answer(voice: OfflineVoice, intents: ScriptedIntents, text: str) -> str:
    async with (
        connect(CONFIG, voice=voice, intents=intents) as connection,
        aclosing(connection.events()) as events,
    ):
        await connection.send_text(text)
        return said(await events_until(events, lambda e: isinstance(e, TurnComplete)))


async def test_in_another_language_the_models_first_sentence_said_comes_after_the_notice_once(
    spanish_voice: OfflineVoice,
) -> None:
    intents = ScriptedIntents("never", "switch_chat", {}, SWITCHED)
    first = await free_answer(spanish_voice, intents, "Tell me a short joke.")
    assert first.startswith(ENGLISH_ONLY_NOTICE["es"]) and len(first) > len(ENGLISH_ONLY_NOTICE["es"]) + 5
    second = await free_answer(spanish_voice, intents, "Tell me another one.")
    assert second.strip() and ENGLISH_ONLY_NOTICE["es"] not in second


async def test_when_no_sentence_of_the_model_is_fit_only_the_routers_limit_is_said_and_no_notice(
    spanish_voice: OfflineVoice,
) -> None:
    intents = ScriptedIntents("never", "switch_chat", {}, SWITCHED, unknown_to_user=True)
    assert await free_answer(spanish_voice, intents, "Tell me something about myself.") == NOTHING_FIT
    # Still due: nothing of the model's was said.
    assert spanish_voice.english_only_notice() == ENGLISH_ONLY_NOTICE["es"]


async def recalled_answer(intents: ScriptedIntents, offline_voice: OfflineVoice) -> list[LiveEvent]:
    """The events of a typed recall question, its tool answered with a hit about the kitchen tiles."""
    async with (
        connect(CONFIG, voice=offline_voice, intents=intents) as connection,
        aclosing(connection.events()) as events,
    ):
        await connection.send_text("What did we decide about the kitchen tiles?")
        call = (await events_until(events, lambda e: isinstance(e, ToolCall)))[-1]
        assert isinstance(call, ToolCall)
        await connection.send_tool_result(call.id, call.name, {"success": True, "results": [{"text": TILES}]})
        return await events_until(events, lambda e: isinstance(e, TurnComplete))


async def test_what_a_tool_found_is_put_in_words_by_the_model(offline_voice: OfflineVoice) -> None:
    intents = ScriptedIntents("tiles", "recall_conversations", {"query": "the kitchen tiles"}, RECALLED)
    seen = await recalled_answer(intents, offline_voice)
    answer = said(seen)
    assert answer != RECALLED.template  # the model's words...
    assert "sink" in answer.lower()  # ...from the finding: the question never named the sink
    question = "What did we decide about the kitchen tiles?"
    assert [given for _, *given in intents.checked] == [[[TILES], question]] * len(intents.checked)
    assert "".join(sentence for sentence, *_ in intents.checked).replace(" ", "") == answer.replace(" ", "")
    assert voice_of(seen)


async def test_the_template_is_said_when_the_models_words_do_not_hold(offline_voice: OfflineVoice) -> None:
    intents = ScriptedIntents("tiles", "recall_conversations", {"query": "tiles"}, RECALLED, supported=False)
    seen = await recalled_answer(intents, offline_voice)
    assert len(intents.checked) == 1  # the first sentence did not hold: the model's answer stopped there
    assert said(seen) == RECALLED.template
    assert voice_of(seen)


async def test_typed_text_is_answered_without_a_transcript(
    offline_voice: OfflineVoice, asked_model: AskedChatModel
) -> None:
    config = LiveConfig(
        model="offline",
        system_prompt=CONFIG.system_prompt,
        history=(HistoryTurn("user", "I am planning a trip to Lisbon."), HistoryTurn("model", "Lovely.")),
    )
    question = "Which city am I travelling to?"
    async with connect(config, voice=offline_voice) as connection, aclosing(connection.events()) as events:
        await connection.send_text(question)
        seen = await events_until(events, lambda e: isinstance(e, TurnComplete))
    assert not [e for e in seen if isinstance(e, UserTranscript)]
    assert said(seen) and NO_ANSWER not in said(seen) and voice_of(seen)  # the model answered, aloud
    # The chat's history was seeded: the model was asked with it. Whether its answer then names Lisbon is
    # the 135M model's luck: its first token is a near tie ("Est" -2.0, "Port" -2.3, "L" -2.4, "B" -2.4
    # in float32) that CTranslate2's int8 kernels order differently on each CPU (AVX2, AVX-512, VNNI).
    assert asked_model.asked[-1] == (
        CONFIG.system_prompt,
        [
            ChatMessage("user", "I am planning a trip to Lisbon."),
            ChatMessage("assistant", "Lovely."),
            ChatMessage("user", question),
        ],
    )


async def test_speaking_while_the_answer_is_being_written_interrupts_it(offline_voice: OfflineVoice) -> None:
    # The answer waits on a tool the test never answers: it is still being written when the user speaks.
    intents = ScriptedIntents("kitchen", "switch_chat", {}, SWITCHED)
    async with (
        connect(CONFIG, voice=offline_voice, intents=intents) as connection,
        aclosing(connection.events()) as events,
    ):
        await connection.send_text("Let's go back to the kitchen chat.")
        await events_until(events, lambda e: isinstance(e, ToolCall))
        await feed(connection, read_pcm("speech_hello"))
        after = await events_until(events, lambda e: isinstance(e, UserTranscript) and e.final)
    interrupted = next(i for i, e in enumerate(after) if isinstance(e, Interrupted))
    assert after[interrupted + 1] == UserTranscript("")  # the barge-in, then "the user is talking"
    assert not [e for e in after[interrupted:] if isinstance(e, ModelAudio | ModelTranscript)]
    last = after[-1]
    assert isinstance(last, UserTranscript) and "hello" in last.text.lower()  # heard, to be answered next


async def test_speaking_once_the_answer_is_written_is_heard_without_an_interruption(
    offline_voice: OfflineVoice,
) -> None:
    # As Gemini Live: once the answer is complete the connection does not say `Interrupted`; its voice may
    # still be playing, and stopping it is the session's (voice.echo.barge_in).
    async with connect(CONFIG, voice=offline_voice) as connection, aclosing(connection.events()) as events:
        await connection.send_text("Say hello.")
        await events_until(events, lambda e: isinstance(e, TurnComplete))
        await feed(connection, read_pcm("speech_hello"))
        after = await events_until(events, lambda e: isinstance(e, UserTranscript) and e.final)
    assert not [e for e in after if isinstance(e, Interrupted)]
    assert after[0] == UserTranscript("")
    last = after[-1]
    assert isinstance(last, UserTranscript) and "hello" in last.text.lower()


async def test_a_closed_connection_refuses_audio_and_ends_its_events(offline_voice: OfflineVoice) -> None:
    async with connect(CONFIG, voice=offline_voice) as connection:
        pass
    with pytest.raises(LiveConnectionLost):
        await connection.send_audio(split(silence(80))[0])
    assert [e async for e in connection.events()] == []


async def test_a_name_the_models_words_leave_out_is_read_out_after_them(offline_voice: OfflineVoice) -> None:
    named = ToolAnswer(f"In our chat Kitchen, Ottoline said: {TILES}", (TILES,), ("Ottoline",))
    intents = ScriptedIntents("tiles", "recall_conversations", {"query": "tiles"}, named)
    seen = await recalled_answer(intents, offline_voice)
    answer = said(seen)
    assert intents.checked and answer.endswith(named.template) and answer != named.template
