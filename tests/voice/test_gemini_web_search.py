"""Answers from the web: Gemini Live's Google Search tool declared (or not), and the pages an answer draws on
carried from the service's `groundingMetadata` through the real google-genai client into the session's turns."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from google.genai import types

from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    Audio,
    CompleteTurn,
    InputTranscript,
    OutputTranscript,
    SearchedWeb,
    script,
)
from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from tests.voice.live_client import open_live, say, until_turn_complete
from tests.voice.session_harness import CONFIG, SPEECH, VOICE, Harness
from voice.live.connection import WebSource, WebSources
from voice.live.gemini_grounding import web_queries, web_sources
from voice.session_events import SpokenTurn

BBC = ("bbc.co.uk", "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC1")
METEO = ("ilmeteo.it", "https://vertexaisearch.cloud.google.com/grounding-api-redirect/XyZ2")


async def test_the_setup_declares_google_search_beside_the_functions_when_web_search_is_on(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    async with open_live(gemini_live_server, replace(CONFIG, web_search=True)):
        sent = await gemini_live_server.connection(0)
    assert sent.searches_google
    assert [d["name"] for d in sent.function_declarations] == ["switch_chat"]


async def test_the_setup_declares_no_google_search_when_web_search_is_off(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    async with open_live(gemini_live_server, replace(CONFIG, web_search=False)):
        sent = await gemini_live_server.connection(0)
    assert not sent.searches_google
    assert [d["name"] for d in sent.function_declarations] == ["switch_chat"]


async def test_a_grounded_answer_brings_its_pages_through_the_sdk(gemini_live_server: FakeGeminiLiveServer) -> None:
    grounding = SearchedWeb((BBC, METEO), queries=("weather Rome tomorrow",), supported="Sunny")
    gemini_live_server.script(
        script((AfterAudio(len(SPEECH)), (OutputTranscript("Sunny, 24 degrees."), grounding, CompleteTurn())))
    )
    async with open_live(gemini_live_server, replace(CONFIG, web_search=True)) as live:
        await say(live)
        events = await until_turn_complete(live.events())
    found = [event for event in events if isinstance(event, WebSources)]
    assert found == [WebSources((WebSource(*BBC), WebSource(*METEO)), ("weather Rome tomorrow",))]


def test_pages_are_kept_once_each_and_only_with_web_addresses() -> None:
    def web(uri: str | None, title: str | None = None, domain: str | None = None) -> types.GroundingChunk:
        return types.GroundingChunk(web=types.GroundingChunkWeb(uri=uri, title=title, domain=domain))

    grounding = types.GroundingMetadata(
        grounding_chunks=[
            web(BBC[1], BBC[0]),
            web(BBC[1], "again"),
            web("javascript:alert(1)", "bad"),
            web(None, "no link"),
            web("https://example.org/a", None, "example.org"),
            web("http://example.net/b"),
            types.GroundingChunk(),
        ]
    )
    assert web_sources(grounding) == (
        WebSource(*BBC),
        WebSource("example.org", "https://example.org/a"),
        WebSource("http://example.net/b", "http://example.net/b"),
    )
    assert web_sources(None) == () == web_queries(None)
    searched = types.GroundingMetadata(web_search_queries=["rome weather", " ", "rome weather", "rain rome"])
    assert (web_sources(searched), web_queries(searched)) == ((), ("rome weather", "rain rome"))


async def test_the_session_keeps_the_pages_with_the_answer_and_only_that_answer(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    searched = (
        InputTranscript("Weather in Rome tomorrow?"),
        OutputTranscript("Sunny, "),
        SearchedWeb((BBC,), queries=("rome weather",), supported="Sunny"),
        OutputTranscript("24 degrees."),
        SearchedWeb((BBC, METEO), queries=("rome weather", "rome rain"), supported="Sunny, 24 degrees."),
        Audio(VOICE),
        CompleteTurn(),
    )
    plain = (InputTranscript("Thanks."), OutputTranscript("You're welcome."), Audio(VOICE), CompleteTurn())
    gemini_live_server.script(script((AfterAudio(len(SPEECH)), searched), (AfterAudio(len(SPEECH)), plain)))
    harness = Harness(gemini_live_server, config=replace(CONFIG, web_search=True))
    session = harness.start(chunks=2)
    await harness.until_turns(4)
    await harness.idle_end(session)
    spoken = [event for event in harness.events if isinstance(event, SpokenTurn)]
    assert [(turn.role, turn.text, turn.sources, turn.searches) for turn in spoken] == [
        ("user", "Weather in Rome tomorrow?", (), ()),
        ("model", "Sunny, 24 degrees.", (WebSource(*BBC), WebSource(*METEO)), ("rome weather", "rome rain")),
        ("user", "Thanks.", (), ()),
        ("model", "You're welcome.", (), ()),
    ]
    async with asyncio.timeout(WAIT_S):
        assert (await gemini_live_server.connection(0)).searches_google
