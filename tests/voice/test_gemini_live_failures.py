"""`voice.live.gemini` when a session cannot open or is lost: refused keys, models and handles, unreachable
endpoints, a dropped connection resumed with its handle, a close by the service."""

from __future__ import annotations

import socket
from contextlib import aclosing

import pytest

from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AtOnce,
    Close,
    CompleteTurn,
    Drop,
    GoAwaySoon,
    NewHandle,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.voice.live_client import CONFIG, HISTORY, SPEECH, open_live, say, take, until_turn_complete
from voice.errors import LiveConnectionError
from voice.live.connection import (
    GoAway,
    LiveConfig,
    LiveConnectionLost,
    LiveConnectionRefused,
    ModelTranscript,
    ResumptionHandle,
    TurnComplete,
)
from voice.live.gemini import connect
from voice.live.gemini_wire import refusal


async def test_a_wrong_key_is_refused_without_the_key_in_the_message(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    with pytest.raises(LiveConnectionRefused) as refused:
        async with open_live(gemini_live_server, api_key="AIza-wrong-key-0042"):
            pytest.fail("a wrong key must not open a session")
    message = str(refused.value)
    assert "AIza-wrong-key-0042" not in message
    assert "API key" in message
    assert "\n" not in message
    assert refused.value.code == 1007
    assert (await gemini_live_server.connection(0)).api_key == "AIza-wrong-key-0042"


async def test_an_empty_key_is_refused_before_any_connection(gemini_live_server: FakeGeminiLiveServer) -> None:
    with pytest.raises(LiveConnectionRefused, match="no Gemini API key"):
        async with open_live(gemini_live_server, api_key="  "):
            pytest.fail("an empty key must not open a session")
    assert gemini_live_server.connections == []


async def test_a_closed_port_is_a_connection_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(LiveConnectionError, match="cannot reach Gemini Live") as failed:
        async with connect(CONFIG, api_key="AIza-some-key-77", base_url=f"https://127.0.0.1:{port}"):
            pytest.fail("nothing listens there")
    assert not isinstance(failed.value, LiveConnectionRefused)
    assert "AIza-some-key-77" not in str(failed.value)


async def test_an_untrusted_certificate_is_a_connection_error(gemini_live_server: FakeGeminiLiveServer) -> None:
    with pytest.raises(LiveConnectionError, match="cannot reach Gemini Live"):
        async with connect(CONFIG, api_key=gemini_live_server.api_key, base_url=gemini_live_server.base_url):
            pytest.fail("the fake's certificate is signed by a CA only the test trusts")


async def test_a_wrong_endpoint_is_refused(gemini_live_server: FakeGeminiLiveServer) -> None:
    with pytest.raises(LiveConnectionRefused, match="404"):
        async with connect(
            CONFIG,
            api_key=gemini_live_server.api_key,
            base_url=gemini_live_server.base_url + "/not-here",
            ssl_context=gemini_live_server.ssl_context,
        ):
            pytest.fail("the path is wrong")


async def test_an_unknown_resumption_handle_is_refused(gemini_live_server: FakeGeminiLiveServer) -> None:
    with pytest.raises(LiveConnectionRefused) as refused:
        async with open_live(gemini_live_server, CONFIG.resumed("handle-from-last-week")):
            pytest.fail("the service does not know this handle")
    assert refused.value.code == 1007


# -- losing the connection and resuming ---------------------------------------------------------------


async def test_a_dropped_connection_is_resumed_with_the_last_handle(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(
        script((AtOnce(), (NewHandle("handle-9"),)), (AfterAudio(1), (Drop(),))),
        script((AfterAudio(1), (OutputTranscript("Still here."), CompleteTurn()))),
    )
    config = LiveConfig("gemini-test-live", "Be brief.", history=HISTORY)
    async with open_live(gemini_live_server, config) as live, aclosing(live.events()) as events:
        assert await take(events, 1) == [ResumptionHandle("handle-9")]
        await say(live, SPEECH[:3_200])
        with pytest.raises(LiveConnectionLost) as lost:
            await take(events, 1)
        with pytest.raises(LiveConnectionLost):
            await say(live)
    assert lost.value.code == 1006
    assert lost.value.resumption_handle == "handle-9"

    async with open_live(gemini_live_server, config.resumed(lost.value.resumption_handle)) as live:
        resumed = await gemini_live_server.connection(1)
        await say(live)
        async with aclosing(live.events()) as events:
            assert await until_turn_complete(events) == [ModelTranscript("Still here."), TurnComplete()]
        assert live.resumption_handle == "handle-9"
    assert resumed.session_resumption == {"handle": "handle-9"}
    # The resumed session already holds the history: none is sent again.
    assert not resumed.history_in_client_content
    assert set(resumed.frame_kinds) == {"realtime_input"}


async def test_a_clean_close_by_the_service_is_a_lost_connection(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(script((AtOnce(), (GoAwaySoon("0.250s"), Close(1000, "session over")))))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        assert await take(events, 1) == [GoAway(time_left_ms=250)]
        with pytest.raises(LiveConnectionLost) as lost:
            await take(events, 1)
    assert lost.value.code == 1000
    assert lost.value.resumption_handle is None


@pytest.mark.parametrize(
    ("model", "reason"),
    [
        # As projects logged the service's close: the model named first, the reason cut at 123 bytes.
        ("gemini-live-2.5-flash-preview", "models/gemini-live-2.5-flash-preview is not found for API version v1beta,"),
        ("", "models/gemini-flash-2.0-live-001 is not found for API version v1beta, or is not supported for bidi"),
        ("models/gemini-2.5-flash", "models/gemini-2.5-flash is not found for API version v1, or is not supported"),
    ],
)
def test_a_model_the_service_does_not_know_is_named_with_the_setting_to_change(model: str, reason: str) -> None:
    refused = refusal(1008, reason + " Call ListMod", "key-1", model)
    assert isinstance(refused, LiveConnectionRefused) and refused.code == 1008
    named = model.removeprefix("models/") or "gemini-flash-2.0-live-001"
    assert str(refused) == (
        f"Gemini Live does not know the model '{named}': set gemini_live_model to a current Live model (parley config)"
    )


def test_other_policy_closes_are_still_a_refused_session() -> None:
    refused = refusal(1008, "Operation is not implemented, or supported, or enabled.", "key-1", "gemini-3.8-live")
    assert (
        str(refused)
        == "Gemini Live refused the session (1008: Operation is not implemented, or supported, or enabled.)"
    )
