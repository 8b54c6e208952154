"""Questions only the web can answer (the weather, the news, a score, a price, "search the web for..."):
the offline voice cannot look anything up, and its small chat model would invent an answer, so it says
so instead (`app.offline.replies`, "no_web").

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


def needs_the_web(utterance: str) -> bool:
    """Whether `utterance` asks what only the web can tell: it holds one of the phrases, as whole words."""
    said = f" {normalised(utterance)} "
    return any(f" {phrase} " in said for phrase in _ALL)
