"""Reading queries in five languages: detection, stems and stop words, and the FTS terms they become."""

from __future__ import annotations

import sqlite3

import pytest

from chats.language.words import detect, resolve, stem, stems, stop_words
from chats.search import fts_match_expression, fts_phrase, query_terms


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Torniamo a quello che dicevamo sul preventivo della cucina.", "it"),
        ("¿Qué me recomendaste para los bichos de los calabacines?", "es"),
        ("Ramène-moi à celle sur les oreilles de mon chien.", "fr"),
        ("Wie weit waren wir mit der Vorbereitung auf das Bewerbungsgespräch?", "de"),
        ("What did we decide about the tiles for the kitchen?", "en"),
    ],
)
def test_detect_names_the_language_of_a_short_request(text: str, language: str) -> None:
    assert detect(text) == language


def test_detect_falls_back_to_the_hint_then_english_when_it_cannot_tell() -> None:
    assert detect("", hint="it") == "it"
    assert detect("42 ?", hint="de") == "de"
    assert detect("ok", hint="xx") == "en"
    assert detect("Gotta run, bye!") == "en"  # LoCoMo turn that py3langid calls Italian, unsure


def test_a_known_language_is_taken_as_given_and_auto_is_detected() -> None:
    assert resolve("the kitchen", "it") == "it"
    assert resolve("la cucina nuova e il preventivo", "auto") == "it"
    assert resolve("la cucina nuova e il preventivo", None) == "it"


def test_english_queries_keep_their_words_as_said() -> None:
    # Unchanged from before languages: the index's Porter stemmer handles English.
    assert query_terms("Let's go back to the chat about the Kitchen renovation, the kitchen!") == [
        "kitchen",
        "renovation",
    ]


def test_other_languages_become_stem_prefixes_without_their_stop_words() -> None:
    assert query_terms("Torniamo a quello che dicevamo sui piani di lavoro e sul preventivo dei lavori.") == [
        "pian*",
        "lavor*",
        "prevent*",
    ]
    assert query_terms("Ouvre la conversation sur les nouveaux meubles et l'îlot.", "fr") == [
        "nouveau*",
        "meubl*",
        "îlot*",
    ]
    # A stem too short to be a telling prefix is matched as the word itself.
    assert query_terms("la casa al mare", "it") == ["casa", "mare"]
    # For a store that cannot match prefixes: the words as said, without the stop words.
    assert query_terms("Apri la chat sui piani di lavoro", "it", prefixes=False) == ["piani", "lavoro"]


def test_stems_and_stop_words_per_language() -> None:
    assert stem("ristrutturazione", "it") == stem("ristrutturare", "it") == "ristruttur"
    assert stem("vacaciones", "es") == stem("vacación", "es")
    assert "della" in stop_words("it") and "über" in stop_words("de") and "cucina" not in stop_words("it")
    assert stems("L'utente è allergico alle arachidi.", "it") == ["allerg", "arachid"]


def test_a_prefix_term_matches_every_form_in_an_fts5_porter_index() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5 (text, tokenize = 'porter unicode61')")
    rows = [
        "Stiamo ristrutturando la cucina, le piastrelle costano troppo.",
        "La ristrutturazione del bagno è finita.",
        "Die Küchen werden renoviert.",
        "Il cane ha le orecchie rosse.",
    ]
    db.executemany("INSERT INTO t (text) VALUES (?)", [(row,) for row in rows])

    def found(terms: list[str]) -> set[int]:
        expression = fts_match_expression(terms)
        assert expression is not None
        return {rowid for (rowid,) in db.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,))}

    assert found(query_terms("Parliamo della ristrutturazione", "it")) == {1, 2}
    assert found(query_terms("die neue Küche", "de")) == {3}
    assert fts_phrase('ab"c*') == '"ab""c" *'
    assert fts_phrase("*") == '"*"'
