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


@dataclass(frozen=True, slots=True)
class FromChat:
    """What the chat so far and the saved memories say to a question (`IntentRouter.from_chat`)."""

    answer: ToolAnswer | None
    """The answer they give, as a tool's would be given (findings for the chat model to put in words, the
    template said when its words do not hold; a template alone, such as "I don't know", when there are no
    findings); None when the question is not one they answer, and the chat model answers it freely."""
    known: tuple[str, ...] = ()
    """What the user said and what is saved about them: a free answer's sentence that tells the user
    something about themselves must hold to these, and one that reads one back whole is not said
    (`IntentRouter.unfit`)."""


class IntentRouter(Protocol):
    """Tool intents, recognised by the app (the small model cannot choose tools reliably)."""

    async def match(self, text: str, tools: Collection[str]) -> tuple[ToolCall, ...]:
        """The tool calls the user's words ask for, among the declared `tools` (by name), in order (one, or
        several of one tool: "remember A and B"); none to let the chat model answer."""
        ...

    def reply(self, answered: Sequence[tuple[ToolCall, Mapping[str, Any]]]) -> ToolAnswer:
        """What to say once the tools answered: each call with its result, in order."""
        ...

    def beyond_offline(self, text: str) -> str | None:
        """What to say instead of the chat model's answer when `text` asks what no local model knows (the
        weather, the news, prices: the web's), or None to let the model answer. Asked when no tool matched."""
        ...

    def from_chat(self, question: str, history: Sequence[tuple[str, str]], system: str) -> FromChat:
        """What the chat's `history` ((role, text), "user" or "assistant", oldest first, the question last)
        and the memories in the `system` prompt say to `question`. Asked when no tool matched and the
        question is not one for the web."""
        ...

    def unfit(self, sentence: str, question: str, known: Sequence[str]) -> bool:
        """Whether the chat model's free answer to `question` must leave `sentence` out: it tells the user
        something about themselves that `known` does not hold, or it reads back one of `known` or the
        question whole."""
        ...

    def no_answer(self) -> str:
        """What to say, in the language the user was heard in, when the chat model's free answer had no
        sentence fit to be said (`unfit`, or said before)."""
        ...

    def supported(self, sentence: str, findings: Sequence[str], question: str) -> bool:
        """Whether `sentence` tells what the `findings` say, and nothing they and the `question` do not:
        the chat model's words about a tool's findings are spoken only then."""
        ...
