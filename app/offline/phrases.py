"""How a user asks the offline voice for each tool in each language but the embedder's, said first in
the sentence (the argument follows), as `app.offline.intents.EXAMPLES` does for the embedder's. Written by
hand, in the everyday forms (informal "tu"/"du", the polite forms where people use them with a device),
in `languages/<code>/requests.toml`.

These are matched word for word at the start of what was heard (`leading_phrase`), before any embedding:
the local embedder is English, and a request said as written here must not depend on it. Paraphrases
still go to the embedder with every example.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from languages.registry import SUPPORTED, table, words


def phrasings(language: str) -> dict[str, tuple[str, ...]]:
    """Tool -> how a user asks for it in `language`, as its file writes them."""
    return {tool: tuple(said) for tool, said in table(language)["intents"].items()}


EMBEDDER_LANGUAGE = "en"
"""The language the local embedder (all-MiniLM-L6-v2) reads: its phrasings are the embedder's examples
(`app.offline.intents.EXAMPLES`), not matched word for word."""
PHRASES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    code: phrasings(code) for code in SUPPORTED if code != EMBEDDER_LANGUAGE
}
"""Language -> tool -> phrasings, lower case, as said first in the sentence."""

_TOKEN = re.compile(r"\w+(?:[-:]\w+)*'?|:")
"""A word, an elided word with its apostrophe ("sull'" of "sull'isola", "j'"), or a colon ("notiz:")."""
ARTICULATED: Mapping[str, Mapping[str, frozenset[str]]] = {
    code: {word: words(forms) for word, forms in table(code)["articulated"].items()} for code in PHRASES
}
"""A phrasing's closing preposition stands for its forms with the article ("su" for "sulla", "sull'")."""


def normalised(text: str) -> str:
    """Lower case, one apostrophe, words only (`_TOKEN`), single spaces."""
    return " ".join(token for token, _ in _tokens(text))


def leading_phrase(utterance: str, language: str) -> tuple[str, str] | None:
    """(tool, what follows) when `utterance` opens with one of `language`'s phrasings (the longest that
    fits), else None. What follows keeps the utterance's own spelling and case."""
    said = _tokens(utterance)
    best: tuple[int, int, str] | None = None
    for tool, phrasings in PHRASES.get(language, {}).items():
        for phrasing in phrasings:
            phrase = [token for token, _ in _tokens(phrasing)]
            if _opens_with(said, phrase, ARTICULATED.get(language, {})) and (best is None or len(phrase) > best[0]):
                best = (len(phrase), said[len(phrase) - 1][1], tool)
    if best is None:
        return None
    _, end, tool = best
    return tool, utterance[end:].strip(" ,.;:!?¿¡")


def phrased_in(utterance: str, language: str) -> str:
    """The language to read `utterance` in: `language` (detected, or the hint for a text too short to tell),
    unless none of its phrasings opens it and another language's does. "Lembra-te que sou vegetariano" is
    Portuguese to the detector at 0.78, below `chats.language.words.MIN_CONFIDENCE`, and only Portuguese asks
    this way."""
    if leading_phrase(utterance, language) is not None:
        return language
    return next((code for code in PHRASES if leading_phrase(utterance, code) is not None), language)


def _tokens(text: str) -> list[tuple[str, int]]:
    """The lower-case words of `text` with where each ends in it (one apostrophe, NFC)."""
    text = unicodedata.normalize("NFC", text)
    return [(m.group().replace("\u2019", "'").lower(), m.end()) for m in _TOKEN.finditer(text.replace("\u2019", "'"))]


def _opens_with(said: list[tuple[str, int]], phrase: list[str], forms: Mapping[str, frozenset[str]]) -> bool:
    if len(said) < len(phrase):
        return False
    for position, word in enumerate(phrase):
        heard = said[position][0]
        last = position == len(phrase) - 1
        if heard != word and not (last and heard in forms.get(word, frozenset())):
            return False
    return True


OPENERS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    code: tuple(
        sorted((tuple(token for token, _ in _tokens(said)) for said in table(code)["openers"]["said"]), key=len)[::-1]
    )
    for code in SUPPORTED
}
"""Language -> what is said before a request without changing it ("hi", "jarvis", "please"), as words,
longest first."""


def without_openers(utterance: str, language: str) -> str:
    """`utterance` after the words said before a request that do not change it ("Hi, could you set a timer"
    -> "set a timer"), in `language`; as said when nothing else is left ("hi", "ciao ciao")."""
    said = _tokens(utterance)
    start = end = 0
    while opener := next(
        (
            words
            for words in OPENERS.get(language, ())
            if tuple(t for t, _ in said[start : start + len(words)]) == words
        ),
        None,
    ):
        start += len(opener)
        end = said[start - 1][1]
    return utterance[end:].lstrip(" ,.;:!?¿¡") or utterance
