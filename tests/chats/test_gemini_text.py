"""`GeminiTextModel` with the real `google-genai` client against the local fake of the REST API."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator, Callable

import pytest

from chats.errors import TextModelError
from chats.models import Turn
from chats.text.gemini_text import DEFAULT_MODEL, GeminiTextModel, clean_title
from chats.text.text_model import TextModel
from tests.fakes.gemini_server import FAKE_GEMINI_KEY, FakeGeminiServer, RecordedRequest, Reply

TURNS = (
    Turn(role="model", text="The user renovates the kitchen with Marco; the deadline is March 3rd.", summary=True),
    Turn(role="user", text="Our budget is 18,500 euros."),
    Turn(role="model", text="Noted: 18,500 euros for cabinets, floors and labour."),
    Turn(role="user", text="We decided on oak floors. Should we keep the old dishwasher?"),
)
SUMMARY = (
    "The user renovates the kitchen with the contractor Marco, with a budget of 18,500 euros and a "
    "deadline of March 3rd. They decided on oak floors. Open question: keep the old dishwasher?"
)

ModelFactory = Callable[..., GeminiTextModel]


@pytest.fixture
async def make_model(gemini_server: FakeGeminiServer) -> AsyncIterator[ModelFactory]:
    made: list[GeminiTextModel] = []

    def make(api_key: str = FAKE_GEMINI_KEY, **options: object) -> GeminiTextModel:
        options.setdefault("base_url", gemini_server.base_url)
        model = GeminiTextModel(api_key, **options)  # type: ignore[arg-type]
        made.append(model)
        return model

    yield make
    for model in made:
        await model.aclose()


async def test_summary_round_trip(gemini_server: FakeGeminiServer, make_model: ModelFactory) -> None:
    gemini_server.script(SUMMARY)
    text_model: TextModel = make_model(model="gemini-2.5-flash-lite")

    summary = await text_model.summarize(TURNS, 400)

    assert summary == SUMMARY
    request = gemini_server.last_request
    assert request.model == "gemini-2.5-flash-lite"
    assert request.path == f"/{request.api_version}/models/gemini-2.5-flash-lite:generateContent"
    assert request.api_key == FAKE_GEMINI_KEY
    for turn in TURNS:
        assert turn.text in request.prompt_text
    assert "400 characters" in request.prompt_text
    assert "[Earlier summary, consolidated truth]" in request.prompt_text
    assert "User: Our budget is 18,500 euros." in request.prompt_text
    assert "Assistant: Noted:" in request.prompt_text
    assert "consolidated truth" in request.system_text
    assert "Never invent" in request.system_text


async def test_the_default_model_is_gemini_flash(gemini_server: FakeGeminiServer, make_model: ModelFactory) -> None:
    gemini_server.script("Kitchen Renovation")
    text_model = make_model()

    await text_model.title("kitchen")

    assert text_model.name == DEFAULT_MODEL == gemini_server.last_request.model


async def test_an_over_long_summary_is_cut_at_a_sentence_end(
    gemini_server: FakeGeminiServer, make_model: ModelFactory
) -> None:
    gemini_server.script(SUMMARY)
    limit = SUMMARY.index("They decided") + 10

    summary = await make_model().summarize(TURNS, limit)

    assert summary == SUMMARY[: SUMMARY.index(" They decided")]
    assert summary.endswith("March 3rd.")
    assert len(summary) <= limit


async def test_title_round_trip_strips_quotes_and_end_punctuation(
    gemini_server: FakeGeminiServer, make_model: ModelFactory
) -> None:
    gemini_server.script('"Kitchen Renovation With Marco."\n', "Title: \u201cOak Floors\u201d")
    text_model = make_model()

    first = await text_model.title(SUMMARY)
    second = await text_model.title(SUMMARY)

    assert (first, second) == ("Kitchen Renovation With Marco", "Oak Floors")
    request = gemini_server.requests[0]
    assert SUMMARY in request.prompt_text
    assert "2 to 6 words" in request.system_text


async def test_a_wrong_key_is_refused_without_showing_it(
    gemini_server: FakeGeminiServer, make_model: ModelFactory, caplog: pytest.LogCaptureFixture
) -> None:
    wrong_key = "wrong-key-0123456789"
    caplog.set_level(logging.DEBUG)

    with pytest.raises(TextModelError) as caught:
        await make_model(api_key=wrong_key).summarize(TURNS, 300)

    assert str(caught.value) == "the Gemini API key was refused"
    assert gemini_server.last_request.api_key == wrong_key
    assert wrong_key not in caplog.text


async def test_a_refused_title_is_a_text_model_error(gemini_server: FakeGeminiServer, make_model: ModelFactory) -> None:
    with pytest.raises(TextModelError, match="key was refused"):
        await make_model(api_key="another-wrong-key").title(SUMMARY)


async def test_an_unreachable_api_is_a_text_model_error(make_model: ModelFactory) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]

    with pytest.raises(TextModelError) as caught:
        await make_model(base_url=f"http://127.0.0.1:{closed_port}").summarize(TURNS, 300)

    assert str(caught.value) == "cannot reach the Gemini API"
    assert FAKE_GEMINI_KEY not in str(caught.value)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply.empty("SAFETY"), r"no text for the summary \(finish reason: SAFETY\)"),
        (Reply.answer("   "), "no text for the summary"),
        (Reply.error(404, "NOT_FOUND", "models/x is not found."), "no model named 'gemini-2.5-flash'"),
        (Reply.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded."), "quota is used up"),
        (Reply.error(503, "UNAVAILABLE", "The model is overloaded."), r"failed \(HTTP 503\)"),
    ],
)
async def test_api_failures_become_one_line_errors(
    gemini_server: FakeGeminiServer, make_model: ModelFactory, reply: Reply, message: str
) -> None:
    gemini_server.script(reply)

    with pytest.raises(TextModelError, match=message) as caught:
        await make_model().summarize(TURNS, 300)

    assert "\n" not in str(caught.value)


async def test_an_empty_title_is_a_text_model_error(gemini_server: FakeGeminiServer, make_model: ModelFactory) -> None:
    gemini_server.script('""')

    with pytest.raises(TextModelError, match="empty title"):
        await make_model().title(SUMMARY)


async def test_nothing_to_do_makes_no_request(gemini_server: FakeGeminiServer, make_model: ModelFactory) -> None:
    text_model = make_model()

    assert await text_model.summarize([], 300) == ""
    assert await text_model.summarize(TURNS, 0) == ""
    assert await text_model.title("  ") == "New chat"
    assert gemini_server.requests == []


async def test_the_fake_answers_from_a_responder(gemini_server: FakeGeminiServer, make_model: ModelFactory) -> None:
    def echo_model(request: RecordedRequest) -> str:
        return f"Chat About {request.model}"

    gemini_server.respond_with(echo_model)

    assert await make_model(model="gemini-x").title(SUMMARY) == "Chat About gemini-x"


def test_an_empty_key_is_refused_up_front() -> None:
    with pytest.raises(TextModelError, match="no Gemini API key"):
        GeminiTextModel("  ")


def test_clean_title() -> None:
    assert clean_title('"Kitchen Renovation"') == "Kitchen Renovation"
    assert clean_title("**Oak Floors!**\n") == "Oak Floors"
    assert clean_title("'Marco's Quote'") == "Marco's Quote"
    assert clean_title("One Two Three Four Five Six Seven Eight") == "One Two Three Four Five Six"
    assert clean_title("Title: Budget") == "Budget"
