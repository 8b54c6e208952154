"""What the offline voice says once a tool has answered (`voice.offline.engine.ToolAnswer`). Pure.

- A tool that acted (switched or started a chat, saved, added or forgot a memory, ended the conversation)
  gets a templated sentence only. The outcome is a fact the app knows exactly; the 135M chat model would
  add half a second and, often, something the tool did not do.
- A tool that found something (`search_memories`, `recall_conversations`) hands its findings to the chat
  model, which answers the question from them in its own words ("You decided on white zellige tiles"),
  each sentence checked against them (`supported`); the template, which reads the findings out as they are,
  is said when the model's words do not hold.

The templates are in the language the request was heard in (`SAY`, from each language's
`replies.toml`); the memories and messages found are read out as they were written. A question only the web can
answer gets "no_web" (`app.offline.web_questions`): the offline voice cannot look it up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.timers.declarations import TIMER_TOOL_NAMES
from app.timers.sayings import tool_reply as timer_reply
from chats.errors import InvalidMemory
from chats.language.words import detect
from chats.memory.grounding import grounded, names_and_numbers
from chats.memory.text import SUBJECT, second_person, third_person
from languages.registry import DEFAULT, SUPPORTED, table
from voice.offline.router import ToolAnswer

FINDING_MAX_WORDS = 40
"""An earlier message is cut to this many words: the small model's prompt stays short and to the point."""

SAY: Mapping[str, Mapping[str, str]] = {code: table(code)["replies"] for code in SUPPORTED}
"""Language -> what the offline voice says, by message: `languages/<code>/replies.toml`."""


def tool_answer(tool: str, result: Mapping[str, Any], language: str = "en") -> ToolAnswer:
    """What to say about `result`, the answer of `tool`, in `language` (a code; English for one it has
    no templates in)."""
    say = SAY.get(language, SAY[DEFAULT])
    if tool in TIMER_TOOL_NAMES:
        return ToolAnswer(timer_reply(tool, result, language))
    if "error" in result and tool not in _MEMORY_TOOLS:
        return ToolAnswer(say["failed"])
    if tool == "switch_chat":
        return ToolAnswer(_switched(result, say))
    if tool == "new_chat":
        return ToolAnswer(say["new_chat"])
    if tool == "list_recent_chats":
        titles = [str(chat.get("title") or say["untitled"]) for chat in result.get("chats", [])]
        return ToolAnswer(say["recent"].format(chats=_listed(titles, say)) if titles else say["no_chats"])
    if tool == "end_conversation":
        return ToolAnswer(say["goodbye"])
    if tool == "recall_conversations":
        return _recalled(result, say)
    return _memory_answer(tool, result, say, language)


def supported(sentence: str, findings: Sequence[str], question: str) -> bool:
    """Whether `sentence` says what the findings say: grounded in them and the question together (every
    name and number in it, and most of its other words: `chats.memory.grounding.grounded`, the check a
    saved memory passes against the user's words), but not in the question alone, which a small model
    otherwise echoes ("The user asked what was decided about the kitchen tiles")."""
    return (
        grounded(sentence, [*findings, question]) and not grounded(sentence, [question]) and not _as_its_own(sentence)
    )


def _as_its_own(sentence: str) -> bool:
    """Whether the chat model says `sentence` in the first person: a memory read back as its own ("I'm
    allergic to hazelnuts", from "You are allergic to hazelnuts"), which a check of its words alone lets
    through. The third person rewrites such a sentence; one it refuses ("We decided on the tiles", of an
    earlier chat) is left to the other checks."""
    try:
        return third_person(sentence) != " ".join(sentence.split())
    except InvalidMemory:
        return False


_MEMORY_TOOLS = ("save_memory", "add_memory", "forget_memory", "search_memories", "recall_conversations")


def _switched(result: Mapping[str, Any], say: Mapping[str, str]) -> str:
    outcome = result.get("outcome")
    title = result.get("title")
    if outcome == "switched":
        return say["switching"].format(title=title) if title else say["switching_there"]
    if outcome == "already_here":
        return say["already_here"]
    if outcome == "ask":
        titles = [str(option.get("title") or say["untitled"]) for option in result.get("options", [])]
        return say["several"].format(chats=_listed(titles, say))
    return say["no_chat"]


def _memory_answer(tool: str, result: Mapping[str, Any], say: Mapping[str, str], language: str) -> ToolAnswer:
    if tool in ("save_memory", "add_memory"):
        if result.get("success"):
            return ToolAnswer(say["remember"] if tool == "save_memory" else say["noted"])
        return ToolAnswer(say["known"] if result.get("duplicate") else say["not_saved"])
    if tool == "forget_memory":
        if result.get("success"):
            return ToolAnswer(say["forgotten"])
        if result.get("choices"):
            facts = [_mid_sentence(str(choice["content"]), language) for choice in result["choices"]]
            return ToolAnswer(say["which"].format(memories=_listed(facts, say)))
        return ToolAnswer(say["nothing"])
    # Said to the user, and so handed to the model: "You live in Lyon", not "User lives in Lyon".
    contents = [str(hit["content"]) for hit in result.get("results", [])]
    saved = result.get("totalSaved")
    if not contents:
        return ToolAnswer(say["nothing"] if saved is None else say["nothing_but"] if saved else say["nothing_yet"])
    template = _framed(say["saved"], contents, say, language)
    if isinstance(saved, int) and saved > len(contents):
        more = saved - len(contents)
        template += " " + (say["one_more"] if more == 1 else say["more"].format(count=more))
    found = tuple(second_person(content, language) for content in contents)
    if len(_apart(contents, language)[1]) > 0:
        return ToolAnswer(template)  # the chat model would put them in its own language's words
    # The best match's names must be said: the small model drops them ("your daughter loves horses").
    return ToolAnswer(template, found, tuple(dict.fromkeys(names_and_numbers(found[0]))))


def remembered(results: Sequence[Mapping[str, Any]], language: str) -> ToolAnswer:
    """What to say once several memories were saved at once ("remember A and B"): each one kept, said to
    the user, and whether any was not."""
    say = SAY.get(language, SAY[DEFAULT])
    kept = [str(result["content"]) for result in results if result.get("success")]
    said = [_framed(say["remember_these"], kept, say, language)] if kept else []
    if len(kept) < len(results):
        said.append(say["not_all_saved"])
    return ToolAnswer(" ".join(said))


def _framed(frame: str, memories: Sequence[str], say: Mapping[str, str], language: str) -> str:
    """`frame` (a sentence of `language` around "{memories}") with the `memories` in `language` said to the
    user inside it; those saved in another language follow, each said to the user as its own sentence
    in its own language (the offline voice cannot translate, and one sentence keeps to one language)."""
    same, other = _apart(memories, language)
    sentences = [frame.format(memories=_listed([_mid_sentence(m, language) for m in same], say))] if same else []
    if other:
        sentences.append(say["in_other_languages"])
    sentences += [second_person(memory, written_in).rstrip(".") + "." for memory, written_in in other]
    return " ".join(sentences)


def _apart(memories: Sequence[str], language: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The `memories` saved in `language`, and the others with the language each was saved in."""
    same: list[str] = []
    other: list[tuple[str, str]] = []
    for memory in memories:
        # A memory about "User" is English whatever its names make the detector think ("User's nonna Pina").
        written_in = "en" if memory.startswith(SUBJECT) else detect(memory, hint=language)
        if written_in == language:
            same.append(memory)
        else:
            other.append((memory, written_in))
    return same, other


def _recalled(result: Mapping[str, Any], say: Mapping[str, str]) -> ToolAnswer:
    hits = [hit for hit in result.get("results", []) if str(hit.get("text", "")).strip()]
    if not result.get("success") or not hits:
        return ToolAnswer(say["not_recalled"])
    findings = tuple(_cut(str(hit["text"])) for hit in hits)
    best = hits[0]
    speaker = say["you_said"] if best.get("role") == "user" else say["i_said"]
    where = say["in_chat"].format(title=best["chatTitle"]) if best.get("chatTitle") else say["in_earlier"]
    return ToolAnswer(f"{where}, {speaker}: {findings[0].rstrip('.')}.", findings)


def _mid_sentence(memory: str, language: str) -> str:
    """A memory said to the user inside a longer sentence: "User lives in Lyon" -> "you live in Lyon",
    "L'utente abita a Roma" -> "abiti a Roma"; a sentence that is not about the user keeps its capital
    ("Marco lavora in banca")."""
    fact = second_person(memory, language)
    if fact.startswith(("You ", "Your ")) or (fact != memory and not memory.startswith("User")):
        return fact[0].lower() + fact[1:]
    return fact


def _cut(text: str) -> str:
    words = text.split()
    return " ".join(words[:FINDING_MAX_WORDS]) + ("..." if len(words) > FINDING_MAX_WORDS else "")


def _listed(items: Sequence[str], say: Mapping[str, str]) -> str:
    items = [item.rstrip(".") for item in items]
    if not items:
        return say["none"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {say['and']} " + items[-1]
