"""How `bench/offline_voice.py` judges an offline answer to a question about a long chat. Pure.

- **Holds the fact**: one of the question's expected forms is in the answer, as words (case, accents and
  thousands separators aside: "12,000" matches "12000", "Colón" matches "Colon"; a word of 4 letters or
  more inflected: "schwarzes" holds "schwarz").
- **Does not know**: the answer says so, in one of the five languages (`DONT_KNOW`).
- **Repeats**: the answer (one that is not a "does not know") is an earlier answer said again word for word,
  or holds a whole earlier answer of 6 words or more: the chat's own or one given earlier in the run; one
  that holds the question's fact is a quote, not a repeat (`bench/offline_voice.py` counts it so).
- **Invents about the user**: a sentence speaks to the user ("you", "your") and holds a content word
  (a number, or 4 letters or more and not a common word) that neither the chat, the memories nor the
  question holds, by its first 5 letters; or, answering a question about the user ("my", "I": "What is
  my sister's name?"), any sentence holds a name or a number they do not ("The sister's name is Maria").
  Deliberately simpler than the product's check (`chats.memory.grounding`), which it must not share:
  the flagged sentences are kept in the results for a reader to judge. Of a sentence that reads the chat
  out ("Earlier you said: ..."), the words after its first colon are judged.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

DONT_KNOW = re.compile(
    r"don'?t know|do not know|not sure|haven'?t (told|said|mentioned)|didn'?t (tell|say|mention)|"
    r"no idea|can'?t (tell|say|remember)|don'?t (remember|have)|not (mentioned|said)|"
    r"non (lo )?so|non me l'hai detto|no (lo )?s[eé]|no me lo has dicho|je ne sais pas|"
    r"tu ne me l'as pas dit|weiß ich nicht|nicht gesagt|keine ahnung",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_YOU = re.compile(r"\b(you|your|you're|you've|yours)\b", re.IGNORECASE)
_MIN_COPIED_WORDS = 6
_FIRST_PERSON = re.compile(
    r"\b(i|my|me|we|our|us|mio|mia|mie|miei|ho|abito|mi|mis|yo|je|mon|ma|mes|ich|mein|meine|meinen|wir|unser)\b",
    re.IGNORECASE,
)
_COMMON = frozenset(
    """
    about also been before come could does done each even from give going good great have here into just
    keep know like look make many more most much need nice only over really right said should some sound
    sounds sure take than that them then there these they thing think this those time very want well were
    what when where which while will with would your yours you're you've plan plans help lovely perfect
    enjoy remember told tell mention mentioned today tomorrow week there's it's that's let's earlier chat
    """.split()
)


def folded(text: str) -> str:
    """Lower case, no accents, no thousands separators between digits, words split by single spaces."""
    text = unicodedata.normalize("NFKD", text.replace("\u2019", "'"))
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = re.sub(r"(?<=\d)[,.](?=\d{3}\b)", "", text)
    text = re.sub(r"'s\b", "", text)
    return " ".join(_WORD.findall(text))


def holds(answer: str, expected: Sequence[str]) -> bool:
    """Whether `answer` says one of the `expected` forms: as whole words, or for a word of letters (4 or
    more) as the start of one, so an inflected form counts ("schwarzes" for "schwarz", "rossa" for "ross")."""
    said = f" {folded(answer)} "
    for form in map(folded, expected):
        inflected = form.isalpha() and len(form) >= 4 and re.search(rf" {re.escape(form)}\w* ", said) is not None
        if f" {form} " in said or inflected:
            return True
    return False


def does_not_know(answer: str) -> bool:
    return DONT_KNOW.search(answer.replace("\u2019", "'")) is not None


def repeats(answer: str, earlier: Iterable[str]) -> bool:
    """Whether `answer` says an `earlier` answer again: the same words, or all of one of 6 words or more."""
    said = folded(answer)
    if not said or does_not_know(answer):
        return False
    for before in earlier:
        old = folded(before)
        if old and (old == said or (len(old.split()) >= _MIN_COPIED_WORDS and f" {old} " in f" {said} ")):
            return True
    return False


def _prefixes(texts: Iterable[str]) -> set[str]:
    return {word[:5] for text in texts for word in folded(text).split()}


def about_user(question: str) -> bool:
    return _FIRST_PERSON.search(question) is not None


def invented_about_user(answer: str, known: Sequence[str], asked_about_user: bool = False) -> list[str]:
    """The sentences of `answer` that tell the user something about them that `known` (the chat, the
    memories and the question) does not hold; `asked_about_user`: the question was about them."""
    seen = _prefixes(known)
    flagged = []
    for sentence in re.split(r"(?<=[.!?])\s+", answer):
        if does_not_know(sentence):
            continue
        judged = sentence.split(": ", 1)[-1]  # "Earlier you said: <the chat's words>": the quote is judged
        words = folded(judged).split()
        if _YOU.search(judged):
            telling = [w for w in words if (len(w) >= 4 or w.isdigit()) and w not in _COMMON]
        elif asked_about_user:
            names = {w.lower() for w in re.findall(r"(?<!^)(?<![.!?:] )\b[A-Z][a-z]+", judged)}
            telling = [w for w in words if w.isdigit() or w in {folded(n) for n in names}]
        else:
            continue
        if any(word[:5] not in seen for word in telling):
            flagged.append(sentence)
    return flagged
