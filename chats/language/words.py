"""Which language a text is in, and the words of it worth matching: stems and stop words per language.

Parley's word matching (BM25 over SQLite FTS5, `chats.search.query_terms`) was English only: the index
stems with Porter, and the stop words were English. In Italian, Spanish, French and German a query's
function words ("della", "sobre", "qu'on", "über") then matched every chat, and the forms of one word
("ristrutturazione", "ristrutturare") never met. Here each supported language gets its Snowball stemmer
(PyStemmer, the C build of the Snowball project's algorithms) and its own stop words (`[search]` in
its folder, `languages/<code>/words.toml`).

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
from array import array
from collections.abc import Iterator
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Any, Protocol, cast

from languages.registry import DEFAULT, SUPPORTED, Language, codes, is_supported, table

MIN_CONFIDENCE = 0.8
"""py3langid's probability (normalised over the supported languages) below which a text's language
is not trusted and the hint is used. With five languages every text of the multilingual set scored above
0.95; LoCoMo's English turns it calls something else ("See ya Nate!") all score below 0.5. With Portuguese
registered, short Spanish, Italian and French texts are less sure (0.62 to 0.79, none named wrong) and fall
back to the hint, the user's language; 0.6 was tried and refused: it trusted "the venue chat" as French
(0.65), and a search request read with the wrong stop words matched "the"."""

_WORD = re.compile(r"\w+", re.UNICODE)
_ELISION = re.compile(r"(\w)['\u2019](?=\w)")
"""An apostrophe between letters: French and Italian elisions ("l'isola", "qu'on", "d'acqua")."""

MIN_STEM_CHARS = 4
"""A stem shorter than this ("cas" of "casa") would match too many words as a prefix: the word itself
is matched instead."""


class _Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...


class _Identifier(Protocol):
    def classify(self, text: str) -> tuple[str, float]: ...


_load_lock = threading.Lock()
_model_cache: list[Path] = []
"""Where the detector's model is kept ready to read (`keep_detector_in`); empty: read from the package's file."""
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


@cache
def stop_words(language: Language) -> frozenset[str]:
    """The words of `language` that never tell one chat or memory from another (its `[search]`
    `stop_words`: function words, and the ways people ask for a chat or a memory)."""
    return frozenset(table(language)["search"]["stop_words"].split())


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
def _stemmer(language: Language) -> _Stemmer:
    import Stemmer  # PyStemmer

    with _load_lock:
        return cast(_Stemmer, Stemmer.Stemmer(codes("snowball")[language]))


def keep_detector_in(cache: Path) -> None:
    """Read the language detector's model from `cache`, where its arrays are kept uncompressed (written the first
    time, `chats.prepared_files`) and read memory-mapped: py3langid unpacks 68 MB from its LZMA file at each
    load, 0.5 s on a 2-core CPU and 2 s at load 10, which every `parley chats search` paid. Before the first
    `detect`."""
    _model_cache[:] = [cache]


def load_detector() -> None:
    """Load the language detector's model now, in the caller's thread: py3langid reads it from an lzma file
    (1.2 s on a 2-core CPU; a tenth of that from `keep_detector_in`'s folder), which the first `detect` would
    otherwise pay wherever it runs."""
    _identifier()


def unload_detector() -> None:
    """Let the language detector's model go (70 MB resident): the next `detect` or `load_detector` reads it
    again. For a Parley asleep, which detects nothing."""
    with _load_lock:
        _identifier.cache_clear()
        _loaded_identifier.cache_clear()


@cache
def _identifier() -> _Identifier:
    with _load_lock:  # a second thread asking meanwhile waits for this load, and does not start its own
        return _loaded_identifier()


@cache
def _loaded_identifier() -> _Identifier:
    from py3langid import langid

    identifier = None
    for cache_folder in _model_cache:
        with suppress(OSError):  # a read-only cache, a full disk: the package's own file, slowly
            identifier = prepared_identifier(cache_folder)
    if identifier is None:
        # norm_probs: a probability over the supported languages, comparable with MIN_CONFIDENCE.
        identifier = langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(SUPPORTED))
    return cast(_Identifier, identifier)


def prepared_identifier(cache_folder: Path) -> Any:
    """py3langid's identifier, as `from_model_file` makes it, from the arrays of its model file kept in
    `cache_folder`."""
    from importlib.metadata import version

    import numpy as np
    from py3langid import langid

    from chats.prepared_files import mapped, prepared

    def unpack(work: Path) -> None:
        import io
        import lzma

        with lzma.open(langid.MODEL_DIR / langid.MODEL_FILE) as packed, np.load(io.BytesIO(packed.read())) as model:
            for name in model.files:
                np.save(work / f"{name}.npy", model[name], allow_pickle=False)

    folder = prepared(cache_folder / f"py3langid-{version('py3langid')}", unpack)
    model = {path.stem: mapped(path) for path in folder.glob("*.npy")}
    return langid.LanguageIdentifier(
        model["ptc"],
        model["pc"],
        model["classes"].tolist(),
        _unsigned(model["nextmove"]),
        model["out_feat"].tolist(),
        norm_probs=True,
        tk_row=_unsigned(model["nextmove_row"]),
    )


def _unsigned(values: Any) -> array[int]:
    """An unsigned integer array as the stdlib array py3langid walks its automaton with (its `modelio`'s form)."""
    out = array({2: "H", 4: "I", 8: "L"}[values.dtype.itemsize])
    out.frombytes(values.tobytes())
    return out
