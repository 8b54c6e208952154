"""Which language a text is in, and the words of it worth matching: stems and stop words per language.

Parley's word matching (BM25 over SQLite FTS5, `chats.search.query_terms`) was English only: the index
stems with Porter, and the stop words were English. In Italian, Spanish, French and German a query's
function words ("della", "sobre", "qu'on", "über") then matched every chat, and the forms of one word
("ristrutturazione", "ristrutturare") never met. Here each supported language gets its Snowball stemmer
(PyStemmer, the C build of the Snowball project's algorithms) and its own stop words.

The language of a text: the caller's when it knows it (the user's `language` setting, or a chat's), else
detected from the text by py3langid (langid.py's model, numpy only, restricted to the supported
languages: 0.03 ms for a short request on a 2-core CPU; it named all 280 texts of
bench/language_set.json and all 1,986 LoCoMo questions right). A text too short to tell (a name,
"ok") falls back to the caller's hint, then to English.

`detect`, `words` and `stems` are pure apart from loading the models once.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from functools import cache
from typing import Final, Protocol, cast

from languages.registry import DEFAULT, SUPPORTED, Language, codes, is_supported

MIN_CONFIDENCE = 0.8
"""py3langid's probability (normalised over the supported languages) below which a text's language
is not trusted and the hint is used. Every text of the multilingual set scored above 0.95; LoCoMo's
English turns it calls something else ("See ya Nate!", "Gotta run, bye!") all score below 0.5."""

_WORD = re.compile(r"\w+", re.UNICODE)
_ELISION = re.compile(r"(\w)['\u2019](?=\w)")
"""An apostrophe between letters: French and Italian elisions ("l'isola", "qu'on", "d'acqua")."""

# Function words, and the ways people ask for a chat or a memory, per language. Written for search:
# short, no content words (YAKE's lists, used for English titles, hold "casa", "lavoro", "anni").
_STOP_WORDS: Final[dict[Language, str]] = {
    "en": (
        "a about again all an and any are as at back be been before but by can chat chats conversation "
        "could did discussed do does earlier find for from go going had has have he her him his how i if in "
        "into is it its last let lets me mention mentioned my of on one or our please previous said say she "
        "so some something switch talk talked talking told "
        "that the their them then there these they this those time to us was we were what when where "
        "which who why will with would you your"
    ),
    "it": (
        "a ad al alla alle allo ai agli all anche ancora avere avevamo aveva avevi avuto c che chat chi ci "
        "cioè come con conversazione cosa cose da dal dalla dalle dai degli dei del della delle dello detto "
        "di dice dicevamo dimmi discorso dove e ecco è era eravamo erano essere fa faccio fare favore fine "
        "gli ha hai hanno ho i il in io la le lei li lo loro lui ma me mi mia mie miei mio ne nei nel nella "
        "nelle nello noi non nostra nostro o ogni parlare parlato parlavamo passa passiamo per perché però "
        "più po poi prima punto qua qual quale quali quando quanto quella quelle quelli quello questa queste "
        "questi questo qui riapri apri riportami riprendiamo riprendi se sei si sia siamo sono sta stata "
        "stato sto su sua sue sui sul sulla sulle suo suoi ti torna torniamo tornare tra tu tua tue tuo tuoi "
        "un una uno utente vai voglio vorrei"
    ),
    "es": (
        "a abre al algo algún alguna con como cómo cambia cambiar chat conversación cual cuál cuando cuándo "
        "de del dijimos dijiste donde dónde dos e el él ella ellos en entre era eres es esa ese eso esta "
        "está estaba estábamos este esto favor fue ha habíamos hablamos hablar hablado han has hay he "
        "íbamos la las le les lleva llévame lo los me mi mis muy más nada ni no nos nosotros o otra otro "
        "para pero por porque que qué quiero retoma retomemos se sea ser si sí sobre son su sus también "
        "te tengo tu tus un una uno unos usuario vamos volvamos volver y ya yo"
    ),
    "fr": (
        "à a ai au aux avait avec avions c ça ce cela celle celui ces cet cette chat conversation d dans de des dire "
        "disait discussion dit du échange elle en est et étais était étions être eu fait il ils j je l la le les "
        "leur lui m ma mais me même mes moi mon n ne nos notre nous on ont ou où ouvre par parlé parler pas passe "
        "plaît plus pour qu quand que quel quelle qui ramène reprenons reprends revenons revenir s sa sans "
        "se ses si son sont sur t ta te tes toi ton tu un une utilisateur va vais veux vos votre vous y"
    ),
    "de": (
        "aber als am an auch auf aus bei bin bis bist bitte bring chat da damit dann das dass dem den der "
        "des die dies diese diesem diesen dieser doch du ein eine einem einen einer er es etwas für gesagt "
        "gespräch gesprochen habe haben hast hat hatte hatten ich ihr im in ist ja lass mal man mein meine "
        "meinem meinen meiner mich mir mit nach nicht noch nutzer nur ob oder öffne sein sich sie sind so "
        "über um und uns unser unsere von vor war waren was weit weiter weitermachen wechsle wie wir wo zu zum "
        "zur zurück"
    ),
}
MIN_STEM_CHARS = 4
"""A stem shorter than this ("cas" of "casa") would match too many words as a prefix: the word itself
is matched instead."""


class _Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...


class _Identifier(Protocol):
    def classify(self, text: str) -> tuple[str, float]: ...


_load_lock = threading.Lock()
_stem_lock = threading.Lock()
"""A PyStemmer object is not safe to share between threads; the stores search on worker threads."""


def detect(text: str, *, hint: str | None = None) -> Language:
    """The language of `text` among `SUPPORTED`; `hint` (a supported code, else English) when the text is
    too short or too mixed to tell."""
    fallback: Language = hint if hint is not None and is_supported(hint) else DEFAULT
    if not any(ch.isalpha() for ch in text):
        return fallback
    code, confidence = _identifier().classify(text)
    return code if confidence >= MIN_CONFIDENCE and is_supported(code) else fallback


def resolve(text: str, language: str | None) -> Language:
    """The language to read `text` in: `language` when it is a supported code, else detected ("auto",
    None and unsupported codes alike)."""
    return cast(Language, language) if is_supported(language) else detect(text)


def words(text: str) -> Iterator[str]:
    """The words of `text`, lower-cased, in order."""
    yield from _WORD.findall(text.lower())


def split_elisions(text: str) -> str:
    """`text` with French and Italian elisions opened up, so that "dell'isola" reads as "dell isola" (as
    FTS5's unicode61 tokenizer reads it too)."""
    return _ELISION.sub(r"\1 ", text)


def stop_words(language: Language) -> frozenset[str]:
    """The words of `language` that never tell one chat or memory from another."""
    return _stop_words(language)


def stem(word: str, language: Language) -> str:
    """The Snowball stem of a lower-cased `word` in `language`."""
    stemmer = _stemmer(language)
    with _stem_lock:
        return stemmer.stemWord(word)


def stems(text: str, language: str | None = None) -> list[str]:
    """The stems of `text`'s words worth matching, in order, without repeats: the API for callers that
    compare texts by their words (`language` as in `resolve`)."""
    lang = resolve(text, language)
    stop = stop_words(lang)
    seen: dict[str, None] = {}
    for word in words(split_elisions(text)):
        if word not in stop and (len(word) > 1 or word.isdigit()):
            seen.setdefault(stem(word, lang), None)
    return list(seen)


@cache
def _stop_words(language: Language) -> frozenset[str]:
    return frozenset(_STOP_WORDS[language].split())


@cache
def _stemmer(language: Language) -> _Stemmer:
    import Stemmer  # PyStemmer

    with _load_lock:
        return cast(_Stemmer, Stemmer.Stemmer(codes("snowball")[language]))


def load_detector() -> None:
    """Load the language detector's model now, in the caller's thread: py3langid reads it from an lzma file
    (1.2 s on a 2-core CPU), which the first `detect` would otherwise pay wherever it runs."""
    _identifier()


@cache
def _identifier() -> _Identifier:
    with _load_lock:  # a second thread asking meanwhile waits for this load, and does not start its own
        return _loaded_identifier()


@cache
def _loaded_identifier() -> _Identifier:
    from py3langid import langid

    # norm_probs: a probability over the supported languages, comparable with MIN_CONFIDENCE.
    identifier = langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(SUPPORTED))
    return cast(_Identifier, identifier)
