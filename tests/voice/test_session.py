"""One conversation: the real session and the real google-genai client against the fake Live server. Its
connection (resumption, reconnection with backoff, giving up) is tested in test_session_connection.py."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from tests.fakes.gemini_live_scenario import (
    Action,
    AfterAudio,
    AfterText,
    AfterToolResponse,
    AtOnce,
    Audio,
    Call,
    CallTools,
    CompleteTurn,
    InputTranscript,
    Interrupt,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from tests.voice.fixtures import read_pcm, split
from tests.voice.session_harness import CONFIG, SPEECH, VOICE, Harness, S, answer
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.audio.preroll import PrerollStream
from voice.echo.barge_in import SpeechOverPlaybackFactory, speech_over_playback
from voice.session_events import EndReason, SpokenTurn, ToolReply, ToolUsed

NATIVE_AUDIO_25 = "gemini-2.5-flash-native-audio-preview-09-2025"
"""A model that takes typed text as `client_content` turns."""


async def test_a_question_and_its_answer_become_two_turns_then_idle(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(script((AfterAudio(len(SPEECH)), answer("Sunny ", "in Rome."))))
    harness = Harness(gemini_live_server)
    session = harness.start()
    await harness.until_turns(2)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert harness.turns() == [("user", "What's the weather?", False), ("model", "Sunny in Rome.", False)]
    assert harness.sink.played == [VOICE]
    assert [(c.old, c.new) for c in harness.changes] == [
        (S.CONNECTING, S.LISTENING),
        (S.LISTENING, S.RESPONDING),
        (S.RESPONDING, S.LISTENING),
    ]
    sent = await gemini_live_server.connection(0)
    assert bytes(sent.audio) == SPEECH * 3


async def test_barge_in_silences_the_speaker_and_keeps_what_was_said(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.script(
        script(
            (
                AfterAudio(len(SPEECH)),
                (InputTranscript("Tell me a story."), OutputTranscript("Once upon"), Audio(VOICE), Interrupt()),
            ),
            (AtOnce(), (InputTranscript("Stop, a shorter one."), OutputTranscript("Sure."), CompleteTurn())),
        )
    )
    harness = Harness(gemini_live_server)
    session = harness.start()
    await harness.until_turns(4)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert harness.sink.clears == 1
    assert harness.turns() == [
        ("user", "Tell me a story.", False),
        ("model", "Once upon", True),
        ("user", "Stop, a shorter one.", False),
        ("model", "Sure.", False),
    ]


async def test_the_turn_complete_that_follows_an_interruption_leaves_the_users_words_whole(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    # The service ends an interrupted turn with `interrupted`, then `turnComplete`, while the user speaks on.
    gemini_live_server.script(
        script(
            (
                AfterAudio(len(SPEECH)),
                (
                    *story(Interrupt()),
                    InputTranscript("Stop, "),
                    CompleteTurn(),
                ),
            ),
            (AtOnce(), (InputTranscript("a shorter one."), OutputTranscript("Sure."), CompleteTurn())),
        )
    )
    harness = Harness(gemini_live_server)
    session = harness.start()
    await harness.until_turns(4)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert harness.turns() == [
        ("user", "Tell me a story.", False),
        ("model", "Once upon a time,", True),
        ("user", "Stop, a shorter one.", False),
        ("model", "Sure.", False),
    ]


async def test_a_tool_call_is_answered_with_its_id_and_can_end_the_session(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.script(
        script(
            (
                AfterAudio(len(SPEECH)),
                (
                    InputTranscript("Back to the kitchen chat."),
                    CallTools((Call("c-1", "switch_chat", {"query": "kitchen"}),)),
                ),
            ),
            (AfterToolResponse("c-1"), (OutputTranscript("Switching."), CompleteTurn())),
        )
    )
    harness = Harness(gemini_live_server, end_with=ToolReply({"outcome": "switched"}, end_conversation=True))
    async with asyncio.timeout(WAIT_S):
        reason = await harness.start()
    assert reason is EndReason.ENDED_BY_TOOL
    assert [(c.id, c.name, dict(c.args)) for c in harness.calls] == [("c-1", "switch_chat", {"query": "kitchen"})]
    sent = await gemini_live_server.connection(0)
    assert [(r["id"], r["response"]) for r in sent.tool_responses] == [("c-1", {"outcome": "switched"})]
    assert next(e for e in harness.events if isinstance(e, ToolUsed)).reply.end_conversation
    assert harness.turns() == [("user", "Back to the kitchen chat.", False), ("model", "Switching.", False)]
    # The user's words reach the chat before the tool runs (a tool may act on them).
    kinds = [(type(e).__name__, getattr(e, "role", None)) for e in harness.events]
    assert kinds.index(("SpokenTurn", "user")) < kinds.index(("ToolUsed", None))
    # While the tool runs the model is thinking; it speaks once it has the answer.
    moves = [(c.old, c.new) for c in harness.changes]
    assert (S.LISTENING, S.THINKING) in moves
    assert (S.THINKING, S.RESPONDING) in moves


# -- typed text ----------------------------------------------------------------------------------------


async def test_text_typed_before_the_connection_opens_goes_once_it_is_ready_and_is_answered(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Paris."), Audio(VOICE), CompleteTurn()))))
    harness = Harness(gemini_live_server, config=replace(CONFIG, model=NATIVE_AUDIO_25))
    harness.typed.put("What is the capital of France?")
    session = harness.start(chunks=0)
    await harness.until_turns(2)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert [(e.role, e.text, e.typed) for e in harness.events if isinstance(e, SpokenTurn)] == [
        ("user", "What is the capital of France?", True),
        ("model", "Paris.", False),
    ]
    assert harness.sink.played == [VOICE]
    assert harness.typed.pending == 0
    assert [c.new for c in harness.changes][:3] == [S.LISTENING, S.THINKING, S.RESPONDING]
    sent = await gemini_live_server.connection(0)
    assert sent.texts == ["What is the capital of France?"]
    assert sent.frame_kinds == ["client_content"]


async def test_text_typed_while_the_model_speaks_follows_its_turn_in_the_chat(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.script(
        script(
            (AfterAudio(len(SPEECH)), (InputTranscript("Tell me a story."), OutputTranscript("Once upon"))),
            (AfterText(), (OutputTranscript(" a time."), CompleteTurn())),
            (AfterText(), (OutputTranscript("Fine."), CompleteTurn())),
        )
    )
    harness = Harness(gemini_live_server, config=replace(CONFIG, model=NATIVE_AUDIO_25))
    session = harness.start(chunks=1)
    await harness.until_state(S.RESPONDING)
    harness.typed.put("Make it short.")
    await harness.until_turns(3)
    harness.typed.put("And another.")
    await harness.until_turns(5)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert [(e.role, e.text, e.typed) for e in harness.events if isinstance(e, SpokenTurn)] == [
        ("user", "Tell me a story.", False),
        ("model", "Once upon a time.", False),
        ("user", "Make it short.", True),
        ("user", "And another.", True),
        ("model", "Fine.", False),
    ]


# -- barge-in on Parley's own voice detector -----------------------------------------------------------

HELLO = read_pcm("speech_hello")
"""A dry voice saying "hello there, how are you today?" (16 kHz), 0.6 s and more of silence first."""


@pytest.fixture(scope="module")
def barge_in() -> SpeechOverPlaybackFactory:
    return speech_over_playback()


def story(*steps: Action) -> tuple[Action, ...]:
    return (InputTranscript("Tell me a story."), OutputTranscript("Once upon a time,"), Audio(VOICE), *steps)


async def speak(microphone: PrerollStream, pcm: bytes) -> None:
    for chunk in split(pcm):
        microphone.append(chunk)


async def test_speaking_over_the_voice_after_the_turn_is_complete_stops_it_and_keeps_what_was_heard(
    gemini_live_server: FakeGeminiLiveServer, barge_in: SpeechOverPlaybackFactory
) -> None:
    # The service has finished generating (turnComplete); the speaker still holds most of the answer.
    gemini_live_server.script(
        script(
            (AfterAudio(len(SPEECH)), story(OutputTranscript(" a dragon."), Audio(VOICE), CompleteTurn())),
            (AfterAudio(len(HELLO)), (InputTranscript("Hello?"), OutputTranscript("Hi."), CompleteTurn())),
        )
    )
    harness = Harness(gemini_live_server, barge_in=barge_in)
    microphone, session = harness.open()
    microphone.append(AudioChunk(MIC_FORMAT, SPEECH, 0.0))
    await harness.until_turns(1)  # the user's turn; the model's waits for its voice to play out
    assert harness.turns() == [("user", "Tell me a story.", False)]
    harness.sink.play(60)  # of 160 ms: the first words were heard, the second fragment's voice was not
    await speak(microphone, HELLO)
    await harness.until_turns(4)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert harness.sink.clears == 1
    assert harness.turns() == [
        ("user", "Tell me a story.", False),
        ("model", "Once upon a time,", True),
        ("user", "Hello?", False),
        ("model", "Hi.", False),
    ]


async def test_speaking_over_a_turn_still_generated_drops_the_rest_of_it(
    gemini_live_server: FakeGeminiLiveServer, barge_in: SpeechOverPlaybackFactory
) -> None:
    # The user is heard here before the service stops generating: what it still sends of the old answer
    # is not played, and its `interrupted` then ends nothing more.
    gemini_live_server.script(
        script(
            (AfterAudio(len(SPEECH)), story()),
            (
                AfterAudio(len(HELLO)),
                (OutputTranscript(" a dragon."), Audio(VOICE), Interrupt(), InputTranscript("Hello?")),
            ),
            (AtOnce(), (OutputTranscript("Hi."), CompleteTurn())),
        )
    )
    harness = Harness(gemini_live_server, barge_in=barge_in)
    microphone, session = harness.open()
    microphone.append(AudioChunk(MIC_FORMAT, SPEECH, 0.0))
    await harness.until_state(S.RESPONDING)
    harness.sink.play(40)  # half of the first fragment's voice
    await speak(microphone, HELLO)
    await harness.until_turns(4)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert harness.sink.played == [VOICE]  # the rest of the old answer never reached the speaker
    assert harness.turns() == [
        ("user", "Tell me a story.", False),
        ("model", "Once upon a time,", True),
        ("user", "Hello?", False),
        ("model", "Hi.", False),
    ]


async def test_noise_over_the_voice_stops_nothing_and_the_turn_is_kept_whole_once_played(
    gemini_live_server: FakeGeminiLiveServer, barge_in: SpeechOverPlaybackFactory
) -> None:
    gemini_live_server.script(script((AfterAudio(len(SPEECH)), story(OutputTranscript(" a dragon."), CompleteTurn()))))
    harness = Harness(gemini_live_server, barge_in=barge_in)
    microphone, session = harness.open()
    microphone.append(AudioChunk(MIC_FORMAT, SPEECH, 0.0))
    await harness.until_turns(1)
    await speak(microphone, read_pcm("pink_noise") + read_pcm("white_noise"))
    harness.sink.play(80)  # played out: the next microphone chunk finds it so
    await speak(microphone, bytes(2_560))
    await harness.until_turns(2)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert harness.sink.clears == 0
    assert harness.turns() == [("user", "Tell me a story.", False), ("model", "Once upon a time, a dragon.", False)]


async def test_the_idle_countdown_starts_once_the_voice_has_played_out(
    gemini_live_server: FakeGeminiLiveServer, barge_in: SpeechOverPlaybackFactory
) -> None:
    gemini_live_server.script(script((AfterAudio(len(SPEECH)), story(CompleteTurn()))))
    harness = Harness(gemini_live_server, barge_in=barge_in)
    microphone, session = harness.open()
    microphone.append(AudioChunk(MIC_FORMAT, SPEECH, 0.0))
    await harness.until_turns(1)
    harness.sink.queued_ms = 30_000.0  # a long answer, nearly all of it still to play
    assert await harness.idle_end(session) is EndReason.IDLE
    # 10 s of idle time pass while 30 s of voice play: the session waits for the other 20, then idles.
    assert harness.waits == [10.0, 20.0, 10.0]
    assert harness.turns()[-1] == ("model", "Once upon a time,", False)
