"""One conversation's connection: the real session and the real google-genai client against the fake Live
server, which drops it, rotates it (`goAway`), refuses a resumption or a key, or is not there at all. The
session resumes with its handle, starts over with everything said when it cannot, waits longer after each
failure in a row, and gives up with a plain reason."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from tests.fakes.gemini_live_scenario import AtOnce, Drop, GoAwaySoon, NewHandle, script
from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from tests.voice.session_harness import CONFIG, Harness, S, answer
from voice.live.connection import HistoryTurn
from voice.session import RECONNECT_ATTEMPTS, RECONNECT_BACKOFF
from voice.session_events import ConnectionFailed, EndReason


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
