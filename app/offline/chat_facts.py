"""What a chat and the saved memories say to a question, for the offline voice. Pure.

The 135M chat model cannot find a fact twenty turns back: given a long chat it made dates and colours up,
and answered new questions with an earlier answer word for word (bench/offline_voice.py: 4 of 23 facts
held on the tuning part, 5 answers repeated). So the app finds the fact, and the model only puts it in
words:

- The chat is cut into sentences (the user's and Parley's) and the memories added; each is scored by
  the question's words it holds (their stems, `chats.language.words.stems`), a rarer word counting more
  (inverse document frequency over the chat), a word that only says what kind of fact is asked ("name",
  "colour", "when", `GENERIC`) a quarter.
- A question (it ends with "?") whose telling words are found gets the best `MAX_FINDINGS` as findings,
  with what was said read out as the template ("Earlier in this chat you said: ..."), in the language the
  question was heard in. In a language the model does not write, the template alone is said.
- A finding an earlier answer read out already, to another question, is passed over: read out again it
  would be that answer repeated (the tuning part's bike price got the bike's colour twice).
- A question about the user ("my", "I", in every language: `FIRST_PERSON`) that nothing answers gets
  "I don't know that: you haven't told me". A question that asks what to do ("how do I make a risotto?", "my
  dog scratches, what can I do?": `ADVICE`) gets one honest sentence (`no_advice`): the 135M model's advice
  was wrong ("the most important ingredient of a risotto is flour"). Any other question goes to the model
  freely.
- A free answer's sentence that reads back a saved memory or something the user said, whole, or the
  question itself, is not said (`unfit`): had the memory or the words answered the question, its words would
  have found them above. The 135M model answered "what is the capital of France?", asked in Italian, with "The
  answer is: L'utente è allergico alle noci."
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.offline.replies import SAY
from chats.language.words import detect, resolve, stems
from chats.memory.grounding import grounded, names_and_numbers
from chats.memory.text import second_person
from languages.registry import SUPPORTED, Language, table, words
from voice.offline.router import FromChat, ToolAnswer

MAX_FINDINGS = 2
GENERIC_WEIGHT = 0.25
_FACTS = [table(code)["chat_facts"] for code in SUPPORTED]
"""Each language's words of a question (`languages/<code>/questions.toml`); a question is read against every
language's at once, as a user mixes them."""
GENERIC = " ".join(facts["generic"] for facts in _FACTS)
NUMERIC = frozenset(word for facts in _FACTS for word in words(facts["numeric"]))
"""Words of a question that asks for a number, a date or a time: a finding that holds one (a digit or a
number word; not "one", "uno", "un": articles as often) gets `NUMBER_BONUS`."""
NUMBER_BONUS = 2.0
_NUMBER = re.compile(
    r"\d|\b(" + "|".join(word for facts in _FACTS for word in facts["numbers"].split()) + r")\b", re.IGNORECASE
)
FIRST_PERSON = frozenset(word for facts in _FACTS for word in words(facts["first_person"]))
ADVICE = re.compile(r"\b(" + "|".join(part for facts in _FACTS for part in facts["advice"]) + r")\b", re.IGNORECASE)
"""A question that asks what to do, what something could be or which is better, in any language: advice,
not a fact about the user to be told."""
_CLAUSE = re.compile(r"[.:;!?]")
"""Where a clause of the prompt's instructions ends: the model reads them out a clause at a time."""
MIN_READ_BACK_WORDS = 4
"""Fewer words ("yes please") are said again in a real answer by chance."""
MODEL_LANGUAGE = "en"
MODEL_LANGUAGES = frozenset({MODEL_LANGUAGE})
"""Languages the offline chat model writes (`voice.offline.chat_model.LANGUAGES`): in others, the template."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[\w']+")
_MODEL_WORDS = table(MODEL_LANGUAGE)["chat_facts"]
_ABOUT_YOU = re.compile(_MODEL_WORDS["about_you"], re.IGNORECASE)
"""A sentence that tells the user about themselves ("your sister is Maria", "you live in Rome"), not advice
("you can oil the oak")."""


@dataclass(frozen=True, slots=True)
class Finding:
    text: str
    """A sentence of the chat, or a memory said to the user ("Your daughter is called Mia")."""
    speaker: str
    """"user", "assistant" or "memory"."""


@dataclass(frozen=True, slots=True)
class Scored:
    finding: Finding
    score: float


def findings_of(history: Sequence[tuple[str, str]], memories: Sequence[str], language: str) -> list[Finding]:
    """The chat's sentences, oldest first, then the memories in the second person. The user's questions are
    left out: they ask, they tell nothing; so are the sentences in which Parley read the chat out (in any
    language): the sentence read out is a finding already."""
    found = [
        Finding(s, role)
        for role, text in history
        for s in _SENTENCE.split(text.strip())
        if s.strip() and not (role == "user" and is_question(s)) and not (role == "assistant" and _read_out(s))
    ]
    return found + [Finding(second_person(memory, language), "memory") for memory in memories]


def ranked(question: str, findings: Sequence[Finding], language: Language) -> list[Scored]:
    """The findings that hold a telling word of `question`, best first (a tie: the user's words, then the
    latest)."""
    asked = stems(question, language)
    generic = set(stems(GENERIC, language))
    telling = [s for s in asked if s not in generic]
    numeric = any(word in NUMERIC for word in _WORD.findall(question.lower()))
    bags = [set(stems(f.text, language)) for f in findings]
    count = Counter(s for bag in bags for s in bag)
    scored = []
    for index, (finding, bag) in enumerate(zip(findings, bags, strict=True)):
        if not any(s in bag for s in telling):
            continue
        weight = sum(
            (GENERIC_WEIGHT if s in generic else 1.0) * math.log(1 + len(findings) / count[s])
            for s in asked
            if s in bag
        )
        if numeric and _NUMBER.search(finding.text):
            weight += NUMBER_BONUS
        scored.append((weight, finding.speaker != "assistant", index, finding))
    scored.sort(key=lambda item: item[:3], reverse=True)
    return [Scored(finding, weight) for weight, _, _, finding in scored]


def is_question(text: str) -> bool:
    return text.rstrip().endswith("?")


def about_the_user(question: str) -> bool:
    """Whether `question` asks for a fact about the user ("what is my sister called?")."""
    return any(word in FIRST_PERSON for word in _WORD.findall(question.lower()))


def unanswered(question: str, say: Mapping[str, str]) -> ToolAnswer | None:
    """What the offline voice says to a question that neither the chat nor the memories answer: advice is
    beyond its small model, a fact about the user was never told; None lets the model answer freely."""
    if ADVICE.search(question) is not None:
        return ToolAnswer(say["no_advice"])
    return ToolAnswer(say["not_known"]) if about_the_user(question) else None


def from_chat(
    question: str,
    history: Sequence[tuple[str, str]],
    memories: Sequence[str],
    language: str,
    say: Mapping[str, str],
) -> FromChat:
    """What `history` (the question last) and `memories` say to `question`, heard in `language`; `say`:
    the offline voice's sentences in that language (`app.offline.replies.SAY`)."""
    earlier = list(history[:-1]) if history and history[-1][1].strip() == question.strip() else list(history)
    lang = resolve(question, language)
    findings = findings_of(earlier, memories, lang)
    known = tuple(
        [text for role, text in earlier if role == "user"]
        + [f.text for f in findings if f.speaker == "memory"]
        + list(memories)  # as the system prompt reads them out, for a free answer that reads one back
    )
    if not is_question(question):
        return FromChat(None, known)
    best = [
        scored for scored in ranked(question, findings, lang) if not _quoted(scored.finding, question, earlier, say)
    ]
    best = best[:MAX_FINDINGS]
    if not best:
        return FromChat(unanswered(question, say), known)
    top = best[0].finding
    template = _template(top, say)
    if lang not in MODEL_LANGUAGES:
        return FromChat(ToolAnswer(template), known)
    told = [_told(scored.finding) for scored in best]
    asked = {word.lower() for word in _WORD.findall(question)}
    names = tuple(dict.fromkeys(n for n in names_and_numbers(top.text) if n.lower() not in asked))
    return FromChat(ToolAnswer(template, tuple(told), names), known)


def unfit(sentence: str, question: str, known: Sequence[str], instructions: Sequence[str] = ()) -> bool:
    """Whether a free answer's `sentence` to `question` must not be said: it is written in a language the
    model does not write (asked for English, it answered an Italian statement in made-up Italian: "Il mio
    posto di project manager giudice ho una storia per un puntaggio."), it tells the user about themselves
    (`_ABOUT_YOU`) what `known` (what the user said, the saved memories) does not hold, or it reads back one
    of them, the question or a clause of the prompt's `instructions` whole (`reads_back`; "The user speaks
    English: speak English with them, ...", its instructions said to the user)."""
    if detect(sentence, hint=MODEL_LANGUAGE) not in MODEL_LANGUAGES:
        return True
    told_unknown = _ABOUT_YOU.search(sentence) is not None and not grounded(sentence, known)
    clauses = [clause for text in instructions for clause in _CLAUSE.split(text)]
    return told_unknown or any(reads_back(sentence, text) for text in (question, *known, *clauses))


def reads_back(sentence: str, text: str) -> bool:
    """Whether `sentence` holds every word of `text` (`MIN_READ_BACK_WORDS` at least), in order: "The user's
    response is: Ricordati che sono allergico alle noci." reads the request back; "The capital of France is
    Paris." does not read back "What is the capital of France?"."""
    wanted = _WORD.findall(text.lower())
    if len(wanted) < MIN_READ_BACK_WORDS:
        return False
    said = iter(_WORD.findall(sentence.lower()))
    return all(word in said for word in wanted)


_READ_OUT = tuple(say[key].split("{")[0] for say in SAY.values() for key in ("chat_user", "chat_assistant"))


def _read_out(sentence: str) -> bool:
    return sentence.startswith(_READ_OUT)


def _template(finding: Finding, say: Mapping[str, str]) -> str:
    return finding.text if finding.speaker == "memory" else say[f"chat_{finding.speaker}"].format(text=finding.text)


def _quoted(finding: Finding, question: str, earlier: Sequence[tuple[str, str]], say: Mapping[str, str]) -> bool:
    """Whether an earlier answer read `finding` out already, to another question: said again to a new
    question, it would be an old answer repeated (the next finding is better, or "I don't know")."""
    if any(role == "user" and text.strip() == question.strip() for role, text in earlier):
        return False
    template = _template(finding, say)
    return any(role == "assistant" and template in text for role, text in earlier)


def _told(finding: Finding) -> str:
    """A finding as put to the model, in its language."""
    if finding.speaker == "memory":
        return finding.text
    return str(_MODEL_WORDS[f"told_{finding.speaker}"]).format(text=finding.text)
