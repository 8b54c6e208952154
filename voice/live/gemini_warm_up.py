"""Paying google-genai's first-use costs as the voice loop starts, not in the middle of the first conversation.

The SDK's pydantic models are built on first use (`defer_build`): the connect config's when a connection
opens, and each server message's as it first arrives (`AsyncSession.receive` validates every frame into a
`LiveServerMessage` and, on the way, builds each nested model the frame holds); and a closing client imports
its HTTP stack's async backend. Together 0.3-0.6 s holding the interpreter's lock, which the window's GUI
thread would wait out mid-conversation. A second home of the SDK beside `voice.live.gemini`, whose
connection this warms, and whose translation functions it runs once.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

import pydantic
from google.genai import types

from voice.live.connection import HistoryTurn, LiveConfig, ToolDeclaration
from voice.live.gemini import make_client
from voice.live.gemini_setup import build_connect_config, history_contents

WARM_UP_MESSAGES: tuple[dict[str, Any], ...] = (
    {"setupComplete": {}},
    {
        "serverContent": {
            "modelTurn": {"parts": [{"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": "AAAA"}}]},
            "inputTranscription": {"text": "hi"},
            "outputTranscription": {"text": "hi"},
            "turnComplete": True,
        }
    },
    {"toolCall": {"functionCalls": [{"id": "1", "name": "warm_up", "args": {}}]}},
    {"toolCallCancellation": {"ids": ["1"]}},
    {"sessionResumptionUpdate": {"newHandle": "handle", "resumable": True}},
    {"goAway": {"timeLeft": "1s"}},
)
"""One of each message the service sends (camelCase, as on the wire)."""


async def warm_up() -> None:
    """Build the SDK's models a connection uses, run the translation of a config once, and close a client."""
    tool = ToolDeclaration("warm_up", "Warms the types.", {"type": "object", "properties": {"x": {"type": "string"}}})
    config = LiveConfig(model="warm-up", system_prompt="warm-up", tools=(tool,), history=(HistoryTurn("user", "hi"),))
    build_connect_config(config)
    history_contents(config)
    # The SDK parses a frame with a private function (`LiveServerMessage._from_response`, google-genai 3.x)
    # and offers no public one: pydantic's public API builds the same models. Every model a server message
    # can hold is built, as `_from_response` builds each one a frame holds, and one of each message is
    # validated.
    built: set[type[pydantic.BaseModel]] = set()
    _build(types.LiveServerMessage, built)
    for message in WARM_UP_MESSAGES:
        types.LiveServerMessage.model_validate(message)
    await make_client("warm-up", None, None, None).aio.aclose()


def _build(model: type[pydantic.BaseModel], built: set[type[pydantic.BaseModel]]) -> None:
    """Build `model` and every model its fields can hold, once each."""
    if model in built:
        return
    built.add(model)
    model.model_rebuild(raise_errors=False)  # resolves the fields' forward references too
    for field in model.model_fields.values():
        for nested in _models_in(field.annotation):
            _build(nested, built)


def _models_in(annotation: Any) -> Iterator[type[pydantic.BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _models_in(argument)
