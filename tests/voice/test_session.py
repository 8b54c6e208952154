"""One conversation: the real session and the real google-genai client against the fake Live server."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace

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
    Drop,
    GoAwaySoon,
    InputTranscript,
    Interrupt,
    NewHandle,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from tests.voice.fixtures import read_pcm, split
from voice.audio import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.barge_in import SpeechOverPlaybackFactory, speech_over_playback
from voice.gemini_live import connect
from voice.live import HistoryTurn, LiveConfig, ToolCall, ToolDeclaration
from voice.preroll import PrerollStream
from voice.session import (
    RECONNECT_ATTEMPTS,
    RECONNECT_BACKOFF,
    ConnectionFailed,
    EndReason,
    SessionEvent,
    SpokenTurn,
    ToolReply,
    ToolUsed,
    VoiceSession,
)
from voice.state import AssistantState, StateChanged, StateMachine
from voice.typed import TypedText

S = AssistantState
CONFIG = LiveConfig(
    model="gemini-test-live",
    system_prompt="You are Parley.",
    tools=(ToolDeclaration("switch_chat", "Switch chats.", {"type": "object", "properties": {}}),),
)
NATIVE_AUDIO_25 = "gemini-2.5-flash-native-audio-preview-09-2025"
"""A model that takes typed text as `client_content` turns."""
SPEECH = bytes(3_200)
"""100 ms of 16 kHz silence: what the microphone sends."""
VOICE = bytes(range(256)) * 15
"""80 ms of 24 kHz model voice."""


@dataclass
class RecordingSink:
    """An `AudioSink` that keeps what it was asked to play, and counts barge-ins. It plays everything at
    once, or with `holds` it holds what is written as queued until the test plays it (`play`)."""

    format: AudioFormat = MODEL_VOICE_FORMAT
    holds: bool = False
    played: list[bytes] = field(default_factory=list)
    clears: int = 0
    queued_ms: float = 0.0

    async def write(self, chunk: AudioChunk) -> None:
        self.played.append(chunk.pcm)
        if self.holds:
            self.queued_ms += chunk.duration_ms

    def play(self, ms: float) -> None:
        """`ms` of what is queued plays."""
        self.queued_ms = max(0.0, self.queued_ms - ms)

    def clear(self) -> None:
        self.clears += 1
        self.queued_ms = 0.0

    async def drain(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class Harness:
    def __init__(
        self,
        server: FakeGeminiLiveServer | None,
        end_with: ToolReply | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        config: LiveConfig = CONFIG,
        barge_in: SpeechOverPlaybackFactory | None = None,
    ) -> None:
        self.sink = RecordingSink(holds=barge_in is not None)
        self.typed = TypedText()
        self.states = StateMachine(S.CONNECTING)
        self.changes: list[StateChanged] = []
        self.states.subscribe(self.changes.append)
        self.events: list[SessionEvent] = []
        self.calls: list[ToolCall] = []
        self.idle_elapses = asyncio.Event()
        self.waits: list[float] = []
        """What the session waited for, in seconds, in order."""
        self.pauses: list[float] = []
        """The waits between reconnections (seconds), in order; they pass at once."""
        self.on_pause: Callable[[], None] = lambda: None
        self._changed = asyncio.Condition()
        self._reply = end_with or ToolReply({"outcome": "ok"})
        self.session_config = config
        self.session = VoiceSession(
            config=config,
            connect=functools.partial(
                connect,
                api_key=api_key or (server.api_key if server else "key"),
                base_url=server.base_url if server else base_url,
                ssl_context=server.ssl_context if server else None,
                open_timeout_s=WAIT_S,
            ),
            sink=self.sink,
            tools=self.tool,
            states=self.states,
            on_event=self.record,
            wait=self.wait,
            barge_in=barge_in,
            history=self.history,
            pause=self.pause,
        )

    async def tool(self, call: ToolCall) -> ToolReply:
        self.calls.append(call)
        return self._reply

    async def record(self, event: SessionEvent) -> None:
        async with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    async def until_turns(self, count: int) -> None:
        async with asyncio.timeout(WAIT_S), self._changed:
            await self._changed.wait_for(lambda: len(self.turns()) >= count)

    def history(self) -> list[HistoryTurn]:
        """The session's owner's record: the config's history, then each turn as it was recorded."""
        return [
            *self.session_config.history,
            *(HistoryTurn(e.role, e.text) for e in self.events if isinstance(e, SpokenTurn)),
        ]

    async def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.on_pause()

    async def wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        await self.idle_elapses.wait()
        self.sink.play(1000.0 * seconds)  # the voice plays on while the session waits

    def open(self) -> tuple[PrerollStream, asyncio.Task[EndReason]]:
        """The session on a microphone the test feeds."""
        microphone = PrerollStream()
        return microphone, asyncio.create_task(self.session.run(microphone.since(), self.typed))

    def start(self, chunks: int = 3) -> asyncio.Task[EndReason]:
        microphone = PrerollStream()
        for i in range(chunks):
            microphone.append(AudioChunk(MIC_FORMAT, SPEECH, i * 100.0))
        microphone.end()
        return asyncio.create_task(self.session.run(microphone.since(), self.typed))

    async def idle_end(self, session: asyncio.Task[EndReason]) -> EndReason:
        self.idle_elapses.set()
        async with asyncio.timeout(WAIT_S):
            return await session

    def turns(self) -> list[tuple[str, str, bool]]:
        return [(e.role, e.text, e.interrupted) for e in self.events if isinstance(e, SpokenTurn)]

    def typed_turns(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, SpokenTurn) and e.typed]

    async def until_state(self, state: AssistantState) -> None:
        reached = asyncio.Event()
        self.states.subscribe(lambda change: reached.set() if change.new is state else None)
        if self.states.state is not state:
            async with asyncio.timeout(WAIT_S):
                await reached.wait()


def answer(*lines: str) -> tuple[InputTranscript | OutputTranscript | Audio | CompleteTurn, ...]:
    return (
        InputTranscript("What's the "),
        InputTranscript("weather?"),
        *(OutputTranscript(line) for line in lines),
        Audio(VOICE),
        CompleteTurn(),
    )


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


async def test_go_away_moves_the_conversation_to_a_resumed_connection(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.script(
        script((AtOnce(), (NewHandle("handle-1"), GoAwaySoon()))),
        script((AtOnce(), answer("Still here."))),
    )
    harness = Harness(gemini_live_server)
    session = harness.start()
    await harness.until_turns(2)
    assert await harness.idle_end(session) is EndReason.IDLE
    resumed = await gemini_live_server.connection(1)
    assert resumed.session_resumption == {"handle": "handle-1"}
    assert (S.LISTENING, S.RECONNECTING) in [(c.old, c.new) for c in harness.changes]
    assert harness.turns()[-1] == ("model", "Still here.", False)


async def test_a_dropped_connection_is_resumed_with_its_handle(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(
        script((AtOnce(), (NewHandle("handle-7"), Drop()))),
        script((AtOnce(), answer("Back again."))),
    )
    harness = Harness(gemini_live_server)
    session = harness.start()
    await harness.until_turns(2)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert (await gemini_live_server.connection(1)).session_resumption == {"handle": "handle-7"}


async def test_a_connection_that_keeps_dropping_is_given_up_with_the_reason(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.script(*(script((AtOnce(), (Drop(),))) for _ in range(RECONNECT_ATTEMPTS + 1)))
    harness = Harness(gemini_live_server)
    async with asyncio.timeout(WAIT_S):
        assert await harness.start() is EndReason.CONNECTION_FAILED
    assert len(gemini_live_server.connections) == RECONNECT_ATTEMPTS + 1
    [failed] = [e for e in harness.events if isinstance(e, ConnectionFailed)]
    assert failed.message.startswith(f"gave up after {RECONNECT_ATTEMPTS + 1} failed connections in a row: ")


async def test_drops_between_completed_turns_never_add_up(gemini_live_server: FakeGeminiLiveServer) -> None:
    # Each connection answers, then drops: a long conversation on a flaky network goes on.
    drops = RECONNECT_ATTEMPTS + 2
    gemini_live_server.script(
        *(script((AtOnce(), (*answer(f"Answer {n}."), Drop()))) for n in range(drops)),
        script((AtOnce(), answer("Still here."))),
    )
    harness = Harness(gemini_live_server)
    session = harness.start()
    await harness.until_turns(2 * (drops + 1))
    assert await harness.idle_end(session) is EndReason.IDLE
    assert not [e for e in harness.events if isinstance(e, ConnectionFailed)]


async def test_each_reconnection_after_a_failure_waits_longer(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(*(script((AtOnce(), (Drop(),))) for _ in range(RECONNECT_ATTEMPTS + 1)))
    harness = Harness(gemini_live_server)
    async with asyncio.timeout(WAIT_S):
        assert await harness.start() is EndReason.CONNECTION_FAILED
    assert harness.pauses == [RECONNECT_BACKOFF.delay(n) for n in range(RECONNECT_ATTEMPTS)] == [0.5, 1.0, 2.0]


async def test_a_completed_turn_starts_the_waits_over_and_a_rotation_does_not_wait(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.script(
        script((AtOnce(), (*answer("One."), Drop()))),
        script((AtOnce(), (*answer("Two."), NewHandle("handle-2"), Drop()))),
        script((AtOnce(), (NewHandle("handle-3"), GoAwaySoon()))),
        script((AtOnce(), answer("Three."))),
    )
    harness = Harness(gemini_live_server)
    session = harness.start()
    await harness.until_turns(6)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert harness.pauses == [0.5, 0.5]  # after each drop, the first wait: each followed a completed turn


async def test_a_refused_resumption_starts_over_with_everything_said(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.script(
        script((AtOnce(), (*answer("Sunny."), NewHandle("handle-1"), Drop()))),
        # The next connection is refused (the handle expired while the network was away) before any script.
        script((AtOnce(), answer("Still sunny."))),
    )
    config = replace(CONFIG, history=(HistoryTurn("user", "Hello."), HistoryTurn("model", "Hi.")))
    harness = Harness(gemini_live_server, config=config)
    harness.on_pause = gemini_live_server.expire_handles
    session = harness.start()
    await harness.until_turns(4)
    assert await harness.idle_end(session) is EndReason.IDLE
    assert (await gemini_live_server.connection(1)).session_resumption == {"handle": "handle-1"}
    fresh = await gemini_live_server.connection(2)
    assert fresh.session_resumption in (None, {})
    seeded = [part["text"] for content in fresh.history for part in content["parts"]]
    assert seeded == ["Hello.", "Hi.", "What's the weather?", "Sunny."]


async def test_a_refused_key_ends_the_session_plainly(gemini_live_server: FakeGeminiLiveServer) -> None:
    harness = Harness(gemini_live_server, api_key="a-wrong-key")
    async with asyncio.timeout(WAIT_S):
        assert await harness.start() is EndReason.CONNECTION_FAILED
    assert harness.turns() == []
    [failed] = [e for e in harness.events if isinstance(e, ConnectionFailed)]
    assert failed.message.startswith("Gemini Live refused the API key")  # said, for the window and the CLI
    assert "a-wrong-key" not in failed.message


async def test_an_unreachable_model_ends_the_session_plainly(unused_tcp_port: int) -> None:
    harness = Harness(None, base_url=f"https://127.0.0.1:{unused_tcp_port}")
    async with asyncio.timeout(WAIT_S):
        assert await harness.start() is EndReason.CONNECTION_FAILED
    assert harness.events == [
        ConnectionFailed(
            "cannot reach Gemini Live (ConnectionRefusedError): check the network, or PARLEY_GEMINI_BASE_URL if set"
        )
    ]


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
