"""How the offline voice asks the app about tools: the small chat model cannot choose them reliably, so
the app recognises tool intents in the user's words and says what to answer once a tool has run. A
protocol and the value it returns, apart from the models so that the app's side needs none of them."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from voice.live.connection import ToolCall


@dataclass(frozen=True, slots=True)
class ToolAnswer:
    """What to say once a tool has answered."""

    template: str
    """A sentence saying what the tool did or found: said as it is when there are no `findings`, or when
    the chat model's phrasing of them does not hold."""
    findings: tuple[str, ...] = ()
    """What the tool found (saved memories, earlier messages): the chat model answers the user's question
    from these, in its own words."""
    names: tuple[str, ...] = ()
    """Names and numbers the answer must say (a memory's "Mia"): when the chat model's words leave one out,
    the template is said after them."""


class IntentRouter(Protocol):
    """Tool intents, recognised by the app (the small model cannot choose tools reliably)."""

    async def match(self, text: str, tools: Collection[str]) -> ToolCall | None:
        """The tool call the user's words ask for, among the declared `tools` (by name), or None to let
        the chat model answer."""
        ...

    def reply(self, call: ToolCall, result: Mapping[str, Any]) -> ToolAnswer:
        """What to say once the tool answered `result`."""
        ...

    def beyond_offline(self, text: str) -> str | None:
        """What to say instead of the chat model's answer when `text` asks what no local model knows (the
        weather, the news, prices: the web's), or None to let the model answer. Asked when no tool matched."""
        ...

    def supported(self, sentence: str, findings: Sequence[str], question: str) -> bool:
        """Whether `sentence` tells what the `findings` say, and nothing they and the `question` do not:
        the chat model's words about a tool's findings are spoken only then."""
        ...
