"""How a user asks the offline voice for each tool in Italian, Spanish, French and German, said first in
the sentence (the argument follows), as `app.tools.offline_intents.EXAMPLES` does for English. Written by
hand, in the everyday forms (informal "tu"/"du", the polite forms where people use them with a device).

These are matched word for word at the start of what was heard (`leading_phrase`), before any embedding:
the local embedder is English, and a request said as written here must not depend on it. Paraphrases
still go to the embedder with every example.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

PHRASES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "it": {
        "switch_chat": (
            "torniamo alla chat su",
            "torniamo alla conversazione su",
            "torna alla chat su",
            "torna alla conversazione su",
            "passa alla chat su",
            "passa alla conversazione su",
            "riapri la chat su",
            "riapri la conversazione su",
            "riprendiamo la chat su",
            "riprendiamo la conversazione su",
            "riprendiamo il discorso su",
            "apri la chat su",
            "apri la conversazione su",
        ),
        "new_chat": ("nuova chat", "apri una nuova chat", "inizia una nuova chat", "iniziamo una nuova chat"),
        "save_memory": ("ricordati che", "ricorda che", "non dimenticare che", "tieni a mente che"),
        "add_memory": ("prendi nota che", "annota che", "scrivi che", "aggiungi una nota:"),
        "forget_memory": ("dimentica che", "dimentica quello che ti ho detto su", "cancella il ricordo su"),
        "search_memories": ("cosa ricordi di", "cosa ricordi su", "cosa sai di me", "cosa sai su"),
        "recall_conversations": (
            "cosa avevamo deciso su",
            "cosa abbiamo deciso su",
            "cosa avevamo detto su",
            "cosa abbiamo detto su",
            "ricordami cosa abbiamo detto su",
        ),
        "list_recent_chats": ("elenca le mie chat recenti", "quali sono le ultime chat", "mostrami le chat recenti"),
        "end_conversation": ("arrivederci", "ciao ciao", "a dopo", "basta così grazie", "smetti di ascoltare"),
    },
    "es": {
        "switch_chat": (
            "volvamos al chat sobre",
            "volvamos a la conversación sobre",
            "vuelve al chat sobre",
            "vuelve a la conversación sobre",
            "cambia al chat sobre",
            "cambia a la conversación sobre",
            "abre el chat sobre",
            "abre la conversación sobre",
            "retomemos el chat sobre",
            "retomemos la conversación sobre",
        ),
        "new_chat": ("nuevo chat", "abre un nuevo chat", "empieza un chat nuevo", "empecemos un chat nuevo"),
        "save_memory": ("recuerda que", "acuérdate de que", "no olvides que", "ten en cuenta que"),
        "add_memory": ("toma nota de que", "anota que", "apunta que", "añade una nota:"),
        "forget_memory": ("olvida que", "olvida lo que te dije sobre", "borra el recuerdo sobre"),
        "search_memories": ("qué recuerdas de", "qué recuerdas sobre", "qué sabes de mí", "qué sabes sobre"),
        "recall_conversations": (
            "qué decidimos sobre",
            "qué habíamos decidido sobre",
            "qué dijimos sobre",
            "recuérdame qué hablamos sobre",
        ),
        "list_recent_chats": ("muestra mis chats recientes", "cuáles son mis últimos chats", "lista mis chats"),
        "end_conversation": ("adiós", "hasta luego", "eso es todo gracias", "deja de escuchar"),
    },
    "fr": {
        "switch_chat": (
            "revenons à la discussion sur",
            "revenons à la conversation sur",
            "reviens à la discussion sur",
            "reviens à la conversation sur",
            "passe à la discussion sur",
            "passe à la conversation sur",
            "ouvre la discussion sur",
            "ouvre la conversation sur",
            "reprenons la conversation sur",
            "reprenons la discussion sur",
        ),
        "new_chat": ("nouvelle discussion", "ouvre une nouvelle discussion", "commençons une nouvelle discussion"),
        "save_memory": ("souviens-toi que", "rappelle-toi que", "n'oublie pas que", "retiens que"),
        "add_memory": ("prends note que", "note que", "ajoute une note:", "écris que"),
        "forget_memory": ("oublie que", "oublie ce que je t'ai dit sur", "efface le souvenir sur"),
        "search_memories": (
            "que sais-tu de moi",
            "de quoi te souviens-tu sur",
            "que sais-tu sur",
            "qu'est-ce que tu sais sur",
        ),
        "recall_conversations": (
            "qu'avions-nous décidé pour",
            "qu'est-ce qu'on avait décidé pour",
            "qu'est-ce qu'on a décidé pour",
            "qu'est-ce qu'on a dit sur",
            "rappelle-moi ce qu'on a dit sur",
        ),
        "list_recent_chats": ("montre mes discussions récentes", "quelles sont mes dernières discussions"),
        "end_conversation": ("au revoir", "à plus tard", "c'est tout merci", "arrête d'écouter"),
    },
    "de": {
        "switch_chat": (
            "zurück zum chat über",
            "zurück zum gespräch über",
            "wechsle zum chat über",
            "wechsle zum gespräch über",
            "öffne den chat über",
            "öffne das gespräch über",
            "machen wir mit dem chat über",
            "machen wir mit dem gespräch über",
        ),
        "new_chat": ("neuer chat", "öffne einen neuen chat", "starte einen neuen chat", "neues gespräch"),
        "save_memory": ("merk dir dass", "merke dir dass", "vergiss nicht dass", "denk daran dass"),
        "add_memory": ("notiere dass", "mach eine notiz dass", "schreib auf dass", "notiz:"),
        "forget_memory": ("vergiss dass", "vergiss was ich dir über", "lösche die erinnerung an"),
        "search_memories": ("was weißt du über mich", "was weißt du über", "woran erinnerst du dich bei"),
        "recall_conversations": (
            "was hatten wir über",
            "was haben wir über",
            "was hatten wir entschieden zu",
            "was haben wir beschlossen zu",
            "erinnere mich was wir über",
        ),
        "list_recent_chats": ("zeig meine letzten chats", "welche chats hatten wir zuletzt", "liste meine chats"),
        "end_conversation": ("tschüss", "auf wiedersehen", "das wäre alles danke", "hör auf zuzuhören"),
    },
}
"""Language -> tool -> phrasings, lower case, as said first in the sentence."""

_TOKEN = re.compile(r"\w+(?:[-:]\w+)*'?|:")
"""A word, an elided word with its apostrophe ("sull'" of "sull'isola", "j'"), or a colon ("notiz:")."""
ARTICULATED: Mapping[str, Mapping[str, frozenset[str]]] = {
    "it": {
        "su": frozenset("su sul sullo sulla sull' sui sugli sulle".split()),
        "di": frozenset("di del dello della dell' dei degli delle".split()),
        "a": frozenset("a al allo alla all' ai agli alle".split()),
    },
    "es": {"a": frozenset({"a", "al"}), "de": frozenset({"de", "del"})},
    "fr": {"à": frozenset({"à", "au", "aux"}), "de": frozenset({"de", "du", "des", "d'"})},
    "de": {"zu": frozenset({"zu", "zum", "zur"})},
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
