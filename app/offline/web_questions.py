"""Questions only the web can answer (the weather, the news, a score, a price, "search the web for..."):
the offline voice cannot look anything up, and its small chat model would invent an answer, so it says
so instead (`app.offline.replies`, "no_web"). Likewise for a question about the screen ("look at my screen",
"what does this error mean?"): the offline voice cannot see it (`screen.toml`, "offline").

Recognised by the phrases of `languages/<code>/requests.toml` (`[web] questions`), each matched word for
word anywhere in what was heard. Every language's phrases are tried, whatever the user's language: a
question too short to tell its language by is still recognised. A request for one of Parley's own tools
is matched first ("remember that the weather was great" saves a memory).
"""

from __future__ import annotations

from collections.abc import Mapping

from app.offline.phrases import normalised
from languages.registry import SUPPORTED, table

WEB_PHRASES: Mapping[str, tuple[str, ...]] = {
    code: tuple(normalised(phrase) for phrase in table(code)["web"]["questions"]) for code in SUPPORTED
}
"""Language -> the phrases of a question only the web can answer, normalised."""

_ALL = frozenset(phrase for phrases in WEB_PHRASES.values() for phrase in phrases)
_SCREEN = frozenset(normalised(phrase) for code in SUPPORTED for phrase in table(code)["screen"]["questions"])


def needs_the_web(utterance: str) -> bool:
    """Whether `utterance` asks what only the web can tell: it holds one of the phrases, as whole words."""
    return _holds(utterance, _ALL)


def needs_the_screen(utterance: str) -> bool:
    """Whether `utterance` speaks of what is on the screen: it holds one of the phrases, as whole words."""
    return _holds(utterance, _SCREEN)


def _holds(utterance: str, phrases: frozenset[str]) -> bool:
    said = f" {normalised(utterance)} "
    return any(f" {phrase} " in said for phrase in phrases)
