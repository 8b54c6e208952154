"""The fake Gemini Live server behaves like the service in time, seen through the real `google-genai` client
(and `voice.live.gemini`): answers generated faster than real time, `turnComplete` when generation ends,
`interrupted` only while generating, `goAway` then a close at the connection limit, and the service's
refusals. Times are the event loop's, as the fake records them; nothing here sleeps."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, aclosing

import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from tests.fakes.gemini_live_scenario import (
    AfterSpeech,
    AfterText,
    AtOnce,
    Speak,
    script,
    speak_chunks,
)
from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.live.connection import (
    GoAway,
    Interrupted,
    LiveConfig,
    LiveConnectionLost,
    LiveConnectionRefused,
    LiveEvent,
    ModelAudio,
    ModelTranscript,
    TurnComplete,
)
from voice.live.gemini import GeminiLiveConnection, connect

MODEL = "gemini-3.8-live"
EPSILON_S = 0.005
"""The event loop may run a timer callback a clock tick early."""


def voice(seconds: float, rate: int = 24_000) -> bytes:
    """Model voice: a 220 Hz tone, `seconds` long (mono int16)."""
    return b"".join(
        int(8000 * math.sin(2 * math.pi * 220 * n / rate)).to_bytes(2, "little", signed=True)
        for n in range(int(seconds * rate))
    )


def mic(seconds: float, amplitude: int) -> list[AudioChunk]:
    """Microphone audio at 16 kHz in 100 ms chunks: a 300 Hz tone of `amplitude` (int16 peak)."""
    pcm = b"".join(
        int(amplitude * math.sin(2 * math.pi * 300 * n / MIC_FORMAT.rate)).to_bytes(2, "little", signed=True)
        for n in range(int(seconds * MIC_FORMAT.rate))
    )
    size = MIC_FORMAT.rate // 10 * 2
    return [
        AudioChunk(MIC_FORMAT, pcm[start : start + size], MIC_FORMAT.duration_ms(start))
        for start in range(0, len(pcm), size)
    ]


SPEECH_S = 0.4
LOUD = 6000
"""A voice at the microphone: RMS about 4,200, far above the fake's detection level."""
QUIET = 100
"""A quiet room: RMS about 70."""


def open_live(server: FakeGeminiLiveServer, model: str = MODEL) -> AbstractAsyncContextManager[GeminiLiveConnection]:
    return connect(
        LiveConfig(model, "Be brief."),
        api_key=server.api_key,
        base_url=server.base_url,
        ssl_context=server.ssl_context,
        open_timeout_s=WAIT_S,
    )


async def until(events: AsyncIterator[LiveEvent], kind: type[LiveEvent]) -> list[LiveEvent]:
    """Every event up to and including the first `kind`."""
    seen: list[LiveEvent] = []
    while not seen or not isinstance(seen[-1], kind):
        seen.append(await anext(events))
    return seen


async def test_an_answer_arrives_faster_than_real_time_with_its_words_and_completes_when_generated(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    speak = Speak(voice(2.0), "Tomorrow in Rome: sunny, twenty-four degrees, a light breeze.")
    gemini_live_server.script(script((AtOnce(), (speak,))))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        seen = await until(events, TurnComplete)
    sent = await gemini_live_server.connection(0)
    [reply] = sent.replies
    # Everything, in order: the audio chunk by chunk, each followed by its words.
    assert b"".join(e.chunk.pcm for e in seen if isinstance(e, ModelAudio)) == speak.pcm
    assert "".join(e.text for e in seen if isinstance(e, ModelTranscript)) == speak.transcript
    # The words come with their audio (nine words over fifty chunks), the last with the last chunk.
    kinds = [type(e).__name__ for e in seen]
    assert kinds.index("ModelTranscript") < kinds.index("ModelAudio", 10)
    assert kinds[-3:] == ["ModelAudio", "ModelTranscript", "TurnComplete"]
    assert sent.sent_kinds[-2:] == ["generationComplete", "turnComplete"]
    assert sent.sent_kinds.count("modelTurn") == len(speak_chunks(speak)) == 50
    # Generated at 4 times real time: each chunk is sent once generated, and the turn completes when the
    # last one is, long before its 2 s could have played.
    assert gemini_live_server.speed == 4
    assert reply.ended_at is not None and not reply.interrupted
    chunk_times = sent.sent_at("modelTurn")
    for index, at in enumerate(chunk_times):
        assert at >= reply.started_at + (index + 1) * 0.040 / 4 - EPSILON_S
    assert reply.ended_at - reply.started_at >= speak.duration_s / 4 - EPSILON_S
    [turn_complete] = sent.sent_at("turnComplete")
    assert turn_complete - reply.started_at < speak.duration_s
    assert reply.sent_transcript == speak.transcript and reply.sent_ms == 2000


async def test_speech_while_generating_interrupts_and_nothing_more_of_the_answer_comes(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    speak = Speak(voice(4.0), "A long answer about the weather in every city of Italy, one by one.")
    gemini_live_server.script(script((AtOnce(), (speak,))))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        await until(events, ModelAudio)  # it is generating
        for chunk in mic(SPEECH_S, LOUD):
            await live.send_audio(chunk)
        seen = await until(events, TurnComplete)
    sent = await gemini_live_server.connection(0)
    [reply] = sent.replies
    assert reply.interrupted
    assert [type(e) for e in seen[-2:]] == [Interrupted, TurnComplete]
    assert sent.sent_kinds[-2:] == ["interrupted", "turnComplete"]
    assert "generationComplete" not in sent.sent_kinds
    # Heard after 200 ms of speech: the generation stopped there, with most of the answer never sent.
    [heard] = sent.speech_heard_at
    assert reply.ended_at == heard
    assert reply.started_at < heard < reply.started_at + speak.duration_s / 4
    assert 0 < reply.sent_ms < 4000


async def test_quiet_audio_while_generating_and_speech_after_it_interrupt_nothing(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    speak = Speak(voice(4.0), "Sunny.")
    gemini_live_server.script(script((AtOnce(), (speak,))))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        await until(events, ModelAudio)
        for chunk in mic(SPEECH_S, QUIET):  # a quiet room while it generates
            await live.send_audio(chunk)
        seen = await until(events, TurnComplete)
        for chunk in mic(SPEECH_S, LOUD):  # the user speaks while the answer still plays
            await live.send_audio(chunk)
        sent = await gemini_live_server.connection(0)
        await gemini_live_server.wait_until(lambda: len(sent.speech_heard_at) == 1)
    [reply] = sent.replies
    assert reply.ended_at is not None
    quiet_arrived = sent.received_at[: len(mic(SPEECH_S, QUIET))]
    assert max(quiet_arrived) < reply.ended_at  # the quiet audio did arrive during generation
    assert not any(isinstance(e, Interrupted) for e in seen)
    assert not reply.interrupted and reply.sent_ms == 4000
    assert sent.speech_heard_at[0] > reply.ended_at  # heard, but nothing was being generated
    assert "interrupted" not in sent.sent_kinds


async def test_a_typed_turn_while_generating_interrupts(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(script((AtOnce(), (Speak(voice(4.0), "A long answer."),))))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        await until(events, ModelAudio)
        await live.send_text("Stop, tell me about Milan instead.")
        seen = await until(events, TurnComplete)
    assert isinstance(seen[-2], Interrupted)
    assert (await gemini_live_server.connection(0)).replies[0].interrupted


async def test_the_end_of_speech_fires_the_answer_and_actions_after_it_wait_for_its_generation(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    first, second = Speak(voice(0.4), "First."), Speak(voice(0.4), "Second.")
    gemini_live_server.script(script((AfterSpeech(), (first, second)), (AfterText(), (Speak(voice(0.2), "Third."),))))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        for chunk in mic(SPEECH_S, LOUD):
            await live.send_audio(chunk)
        sent = await gemini_live_server.connection(0)
        await gemini_live_server.wait_until(lambda: len(sent.speech_heard_at) == 1)
        assert sent.replies == []  # still speaking: no answer yet
        for chunk in mic(0.6, 0):  # a pause ends the utterance
            await live.send_audio(chunk)
        await until(events, TurnComplete)
        await until(events, TurnComplete)
        await live.send_text("And a third?")
        await until(events, TurnComplete)
    assert [r.speak.transcript for r in sent.replies] == ["First.", "Second.", "Third."]
    assert sent.speech_ended_at[0] <= sent.replies[0].started_at
    # One answer at a time: each begins once the one before it is generated.
    for before, after in zip(sent.replies, sent.replies[1:], strict=False):
        assert before.ended_at is not None and before.ended_at <= after.started_at


async def test_go_away_comes_before_the_connection_limit_and_the_connection_closes_at_it(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.connection_limit_s = 0.4
    gemini_live_server.go_away_before_s = 0.15
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        [go_away] = await until(events, GoAway)
        with pytest.raises(LiveConnectionLost) as lost:
            await anext(events)
    assert isinstance(go_away, GoAway) and go_away.time_left_ms == 150
    assert lost.value.code == 1011
    sent = await gemini_live_server.connection(0)
    await gemini_live_server.wait_until(lambda: sent.closed)
    [go_away_at] = sent.sent_at("goAway")
    assert go_away_at - sent.opened_at >= 0.4 - 0.15 - EPSILON_S
    assert sent.closed_at is not None and sent.closed_at - sent.opened_at >= 0.4 - EPSILON_S
    assert sent.close_code == 1011


@pytest.mark.parametrize(
    "model",
    [
        "gemini-2.0-flash-live-001",  # shut down in December 2025
        "gemini-3.5-flash-lite",  # a text model: no bidiGenerateContent
    ],
)
async def test_a_model_the_service_does_not_know_for_live_is_refused_with_1008(
    gemini_live_server: FakeGeminiLiveServer, model: str
) -> None:
    with pytest.raises(LiveConnectionRefused) as refused:
        async with open_live(gemini_live_server, model):
            pass
    assert refused.value.code == 1008
    assert str(refused.value) == (
        f"Gemini Live does not know the model '{model}': set gemini_live_model to a current Live model (parley config)"
    )
    cause = refused.value.__cause__
    assert isinstance(cause, genai_errors.APIError) and isinstance(cause.details, str)
    # The service's own words, cut to what a close frame holds.
    assert cause.details.startswith(
        f"models/{model} is not found for API version v1, or is not supported for bidiGenerateContent."
    )
    assert len(cause.details.encode()) <= 123
    assert (await gemini_live_server.connection(0)).close_code == 1008


async def test_a_history_sent_without_its_config_is_refused_by_a_model_that_needs_it(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    # What a client that forgets `history_config` sends: the SDK's own calls, no Parley in between.
    client = genai.Client(
        api_key=gemini_live_server.api_key,
        http_options=types.HttpOptions(
            base_url=gemini_live_server.base_url, async_client_args={"ssl": gemini_live_server.ssl_context}
        ),
    )
    config = types.LiveConnectConfig(response_modalities=[types.Modality.AUDIO])
    history: list[types.Content | types.ContentDict] = [
        types.Content(role="user", parts=[types.Part(text="Book a table for Friday.")]),
        types.Content(role="model", parts=[types.Part(text="Done.")]),
    ]
    async with client.aio.live.connect(model="gemini-3.1-flash-live-preview", config=config) as session:
        await session.send_client_content(turns=history, turn_complete=True)
        with pytest.raises(genai_errors.APIError) as closed:
            async for _ in session.receive():
                pass
    await client.aio.aclose()
    assert closed.value.code == 1007
    assert closed.value.details == "Request contains an invalid argument."
    sent = await gemini_live_server.connection(0)
    assert not sent.history_in_client_content and sent.close_code == 1007
