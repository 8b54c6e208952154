"""What the offline voice says once a tool has answered (`voice.offline.engine.ToolAnswer`). Pure.

- A tool that acted (switched or started a chat, saved, added or forgot a memory, ended the conversation)
  gets a templated sentence only. The outcome is a fact the app knows exactly; the 135M chat model would
  add half a second and, often, something the tool did not do.
- A tool that found something (`search_memories`, `recall_conversations`) hands its findings to the chat
  model, which answers the question from them in its own words ("You decided on white zellige tiles"),
  each sentence checked against them (`supported`); the template, which reads the findings out as they are,
  is said when the model's words do not hold.

The templates are in the language the request was heard in (`SAY`: English, Italian, Spanish, French,
German); the memories and messages found are read out as they were written. A question only the web can
answer gets "no_web" (`app.offline.web_questions`): the offline voice cannot look it up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.timers.declarations import TIMER_TOOL_NAMES
from app.timers.sayings import tool_reply as timer_reply
from chats.memory.grounding import grounded, names_and_numbers
from chats.memory.text import second_person
from voice.offline.router import ToolAnswer

FINDING_MAX_WORDS = 40
"""An earlier message is cut to this many words: the small model's prompt stays short and to the point."""

_ENGLISH = {
    "failed": "Sorry, I couldn't do that right now.",
    "no_web": "I can't look things up on the web offline. With a Gemini key set, I can.",
    "no_advice": "That is more than my small offline voice can help with. With a Gemini key set, I can.",
    "new_chat": "Starting a new chat.",
    "untitled": "an untitled chat",
    "recent": "Your recent chats are: {}.",
    "no_chats": "You have no chats yet.",
    "goodbye": "Goodbye!",
    "switching": "Switching to {}.",
    "switching_there": "Switching to that chat.",
    "already_here": "We're already in that chat.",
    "several": "I found several chats: {}. Which one do you mean?",
    "no_chat": "I couldn't find a chat about that.",
    "remember": "Okay, I'll remember that.",
    "noted": "Okay, I've noted that.",
    "known": "I already know that.",
    "not_saved": "Sorry, I couldn't save that.",
    "forgotten": "Okay, I've forgotten that.",
    "which": "Which one should I forget: {}?",
    "nothing": "I don't have anything saved about that.",
    "nothing_but": "I have nothing saved about that, though I remember other things about you.",
    "nothing_yet": "I haven't saved anything about you yet.",
    "more": "And {} more.",
    "saved": "Here is what I have saved: {}.",
    "not_recalled": "I couldn't find that in our earlier chats.",
    "in_chat": "In our chat {}",
    "in_earlier": "In an earlier chat",
    "you_said": "you said",
    "i_said": "I said",
    "and": "and",
    "none": "none",
    "not_known": "I don't know that: you haven't told me.",
    "chat_user": "Earlier in this chat you said: {}",
    "chat_assistant": "Earlier in this chat I said: {}",
}
SAY: Mapping[str, Mapping[str, str]] = {
    "en": _ENGLISH,
    "it": {
        "failed": "Scusa, ora non ci riesco.",
        "no_web": "Offline non posso cercare sul web. Con una chiave Gemini impostata, posso farlo.",
        "no_advice": "Per questo la mia voce offline non basta. Con una chiave Gemini impostata, posso aiutarti.",
        "new_chat": "Inizio una nuova chat.",
        "untitled": "una chat senza titolo",
        "recent": "Le tue chat recenti sono: {}.",
        "no_chats": "Non hai ancora nessuna chat.",
        "goodbye": "Arrivederci!",
        "switching": "Passo alla chat {}.",
        "switching_there": "Passo a quella chat.",
        "already_here": "Siamo già in quella chat.",
        "several": "Ho trovato più chat: {}. Quale intendi?",
        "no_chat": "Non ho trovato una chat su questo.",
        "remember": "Va bene, me lo ricorderò.",
        "noted": "Va bene, ho preso nota.",
        "known": "Lo so già.",
        "not_saved": "Scusa, non sono riuscito a salvarlo.",
        "forgotten": "Va bene, l'ho dimenticato.",
        "which": "Quale devo dimenticare: {}?",
        "nothing": "Non ho niente di salvato su questo.",
        "nothing_but": "Su questo non ho salvato niente, ma ricordo altre cose di te.",
        "nothing_yet": "Non ho ancora salvato niente su di te.",
        "more": "E altri {}.",
        "saved": "Ecco cosa ho salvato: {}.",
        "not_recalled": "Non l'ho trovato nelle nostre chat precedenti.",
        "in_chat": "Nella chat {}",
        "in_earlier": "In una chat precedente",
        "you_said": "hai detto",
        "i_said": "ho detto",
        "and": "e",
        "none": "nessuna",
        "not_known": "Non lo so: non me l'hai detto.",
        "chat_user": "Prima in questa chat hai detto: {}",
        "chat_assistant": "Prima in questa chat ho detto: {}",
    },
    "es": {
        "failed": "Lo siento, ahora no puedo hacerlo.",
        "no_web": "Sin conexión no puedo buscar en la web. Con una clave de Gemini configurada, sí puedo.",
        "no_advice": "Para eso mi voz sin conexión no basta. Con una clave de Gemini configurada, puedo ayudarte.",
        "new_chat": "Empiezo un chat nuevo.",
        "untitled": "un chat sin título",
        "recent": "Tus chats recientes son: {}.",
        "no_chats": "Todavía no tienes chats.",
        "goodbye": "¡Adiós!",
        "switching": "Cambio al chat {}.",
        "switching_there": "Cambio a ese chat.",
        "already_here": "Ya estamos en ese chat.",
        "several": "Encontré varios chats: {}. ¿Cuál quieres decir?",
        "no_chat": "No encontré ningún chat sobre eso.",
        "remember": "Vale, lo recordaré.",
        "noted": "Vale, lo he anotado.",
        "known": "Ya lo sé.",
        "not_saved": "Lo siento, no pude guardarlo.",
        "forgotten": "Vale, lo he olvidado.",
        "which": "¿Cuál debo olvidar: {}?",
        "nothing": "No tengo nada guardado sobre eso.",
        "nothing_but": "No tengo nada guardado sobre eso, aunque recuerdo otras cosas de ti.",
        "nothing_yet": "Todavía no he guardado nada sobre ti.",
        "more": "Y {} más.",
        "saved": "Esto es lo que tengo guardado: {}.",
        "not_recalled": "No lo encontré en nuestros chats anteriores.",
        "in_chat": "En nuestro chat {}",
        "in_earlier": "En un chat anterior",
        "you_said": "dijiste",
        "i_said": "dije",
        "and": "y",
        "none": "ninguno",
        "not_known": "No lo sé: no me lo has dicho.",
        "chat_user": "Antes en este chat dijiste: {}",
        "chat_assistant": "Antes en este chat dije: {}",
    },
    "fr": {
        "failed": "Désolé, je ne peux pas le faire pour l'instant.",
        "no_web": "Hors ligne, je ne peux pas chercher sur le web. Avec une clé Gemini configurée, je le peux.",
        "no_advice": "Pour cela, ma voix hors ligne ne suffit pas. Avec une clé Gemini configurée, je peux t'aider.",
        "new_chat": "Je commence une nouvelle discussion.",
        "untitled": "une discussion sans titre",
        "recent": "Tes discussions récentes sont : {}.",
        "no_chats": "Tu n'as encore aucune discussion.",
        "goodbye": "Au revoir !",
        "switching": "Je passe à la discussion {}.",
        "switching_there": "Je passe à cette discussion.",
        "already_here": "Nous sommes déjà dans cette discussion.",
        "several": "J'ai trouvé plusieurs discussions : {}. Laquelle veux-tu dire ?",
        "no_chat": "Je n'ai pas trouvé de discussion à ce sujet.",
        "remember": "D'accord, je m'en souviendrai.",
        "noted": "D'accord, c'est noté.",
        "known": "Je le sais déjà.",
        "not_saved": "Désolé, je n'ai pas pu l'enregistrer.",
        "forgotten": "D'accord, je l'ai oublié.",
        "which": "Lequel dois-je oublier : {} ?",
        "nothing": "Je n'ai rien d'enregistré à ce sujet.",
        "nothing_but": "Je n'ai rien d'enregistré à ce sujet, mais je me souviens d'autres choses sur toi.",
        "nothing_yet": "Je n'ai encore rien enregistré sur toi.",
        "more": "Et {} autres.",
        "saved": "Voici ce que j'ai enregistré : {}.",
        "not_recalled": "Je ne l'ai pas trouvé dans nos discussions précédentes.",
        "in_chat": "Dans notre discussion {}",
        "in_earlier": "Dans une discussion précédente",
        "you_said": "tu as dit",
        "i_said": "j'ai dit",
        "and": "et",
        "none": "aucune",
        "not_known": "Je ne sais pas : tu ne me l'as pas dit.",
        "chat_user": "Plus tôt dans cette discussion, tu as dit : {}",
        "chat_assistant": "Plus tôt dans cette discussion, j'ai dit : {}",
    },
    "de": {
        "failed": "Entschuldigung, das geht gerade nicht.",
        "no_web": "Offline kann ich nicht im Web suchen. Mit einem Gemini-Schlüssel kann ich das.",
        "no_advice": "Dafür reicht meine kleine Offline-Stimme nicht. Mit einem Gemini-Schlüssel kann ich helfen.",
        "new_chat": "Ich beginne einen neuen Chat.",
        "untitled": "ein Chat ohne Titel",
        "recent": "Deine letzten Chats sind: {}.",
        "no_chats": "Du hast noch keine Chats.",
        "goodbye": "Tschüss!",
        "switching": "Ich wechsle zum Chat {}.",
        "switching_there": "Ich wechsle zu diesem Chat.",
        "already_here": "Wir sind schon in diesem Chat.",
        "several": "Ich habe mehrere Chats gefunden: {}. Welchen meinst du?",
        "no_chat": "Ich habe keinen Chat dazu gefunden.",
        "remember": "Okay, das merke ich mir.",
        "noted": "Okay, ich habe es notiert.",
        "known": "Das weiß ich schon.",
        "not_saved": "Entschuldigung, das konnte ich nicht speichern.",
        "forgotten": "Okay, ich habe es vergessen.",
        "which": "Was soll ich vergessen: {}?",
        "nothing": "Dazu habe ich nichts gespeichert.",
        "nothing_but": "Dazu habe ich nichts gespeichert, aber ich weiß anderes über dich.",
        "nothing_yet": "Ich habe noch nichts über dich gespeichert.",
        "more": "Und {} weitere.",
        "saved": "Das habe ich gespeichert: {}.",
        "not_recalled": "Das habe ich in unseren früheren Chats nicht gefunden.",
        "in_chat": "In unserem Chat {}",
        "in_earlier": "In einem früheren Chat",
        "you_said": "hast du gesagt",
        "i_said": "habe ich gesagt",
        "and": "und",
        "none": "keine",
        "not_known": "Das weiß ich nicht: Du hast es mir nicht gesagt.",
        "chat_user": "Vorhin in diesem Chat hast du gesagt: {}",
        "chat_assistant": "Vorhin in diesem Chat habe ich gesagt: {}",
    },
}
"""Language -> what the offline voice says, by message."""


def tool_answer(tool: str, result: Mapping[str, Any], language: str = "en") -> ToolAnswer:
    """What to say about `result`, the answer of `tool`, in `language` (a code; English for one it has
    no templates in)."""
    say = SAY.get(language, _ENGLISH)
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
        return ToolAnswer(say["recent"].format(_listed(titles, say)) if titles else say["no_chats"])
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
    return grounded(sentence, [*findings, question]) and not grounded(sentence, [question])


_MEMORY_TOOLS = ("save_memory", "add_memory", "forget_memory", "search_memories", "recall_conversations")


def _switched(result: Mapping[str, Any], say: Mapping[str, str]) -> str:
    outcome = result.get("outcome")
    title = result.get("title")
    if outcome == "switched":
        return say["switching"].format(title) if title else say["switching_there"]
    if outcome == "already_here":
        return say["already_here"]
    if outcome == "ask":
        titles = [str(option.get("title") or say["untitled"]) for option in result.get("options", [])]
        return say["several"].format(_listed(titles, say))
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
            return ToolAnswer(say["which"].format(_listed(facts, say)))
        return ToolAnswer(say["nothing"])
    # Said to the user, and so handed to the model: "You live in Lyon", not "User lives in Lyon".
    contents = [str(hit["content"]) for hit in result.get("results", [])]
    saved = result.get("totalSaved")
    if not contents:
        return ToolAnswer(say["nothing"] if saved is None else say["nothing_but"] if saved else say["nothing_yet"])
    found = tuple(second_person(content, language) for content in contents)
    template = say["saved"].format(_listed([_mid_sentence(c, language) for c in contents], say))
    if isinstance(saved, int) and saved > len(contents):
        template += " " + say["more"].format(saved - len(contents))
    # The best match's names must be said: the small model drops them ("your daughter loves horses").
    return ToolAnswer(template, found, tuple(dict.fromkeys(names_and_numbers(found[0]))))


def _recalled(result: Mapping[str, Any], say: Mapping[str, str]) -> ToolAnswer:
    hits = [hit for hit in result.get("results", []) if str(hit.get("text", "")).strip()]
    if not result.get("success") or not hits:
        return ToolAnswer(say["not_recalled"])
    findings = tuple(_cut(str(hit["text"])) for hit in hits)
    best = hits[0]
    speaker = say["you_said"] if best.get("role") == "user" else say["i_said"]
    where = say["in_chat"].format(best["chatTitle"]) if best.get("chatTitle") else say["in_earlier"]
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


def _listed(items: Sequence[str], say: Mapping[str, str] = _ENGLISH) -> str:
    items = [item.rstrip(".") for item in items]
    if not items:
        return say["none"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {say['and']} " + items[-1]
