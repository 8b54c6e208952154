"""Memories in the user's language (issue 17): the simple first-person forms of Italian, Spanish, French and
German put in the third person, anything else kept in the user's words with a clear subject; and a memory
said back to the user."""

from __future__ import annotations

import pytest

from chats.errors import InvalidMemory
from chats.memory.text import second_person, third_person


@pytest.mark.parametrize(
    ("said", "language", "memory"),
    [
        ("mi chiamo Marco", "it", "L'utente si chiama Marco"),
        ("Lavoro in banca da dieci anni", "it", "L'utente lavora in banca da dieci anni"),
        ("Io abito a Roma con mia moglie", "it", "L'utente abita a Roma con sua moglie"),
        ("Preferisco il tè al caffè", "it", "L'utente preferisce il tè al caffè"),
        ("Mia moglie si chiama Anna", "it", "La moglie dell'utente si chiama Anna"),
        ("Mi piace il jazz", "it", "All'utente piace il jazz"),
        ("Non mangio carne", "it", "L'utente non mangia carne"),
        ("Marco lavora in banca", "it", "Marco lavora in banca"),  # a name, not a verb said without its pronoun
        ("Me llamo Lucía", "es", "El usuario se llama Lucía"),
        ("Vivo en Madrid con mi esposa", "es", "El usuario vive en Madrid con su esposa"),
        ("Tengo dos hijos", "es", "El usuario tiene dos hijos"),
        ("Mi madre vive en Sevilla", "es", "La madre del usuario vive en Sevilla"),
        ("Me gusta el jazz", "es", "Al usuario le gusta el jazz"),
        ("Je m'appelle Marco", "fr", "L'utilisateur s'appelle Marco"),
        ("J'habite à Lyon avec ma femme", "fr", "L'utilisateur habite à Lyon avec sa femme"),
        ("Je ne mange pas de viande", "fr", "L'utilisateur ne mange pas de viande"),
        ("Mon frère s'appelle Paul", "fr", "Le frère de l'utilisateur s'appelle Paul"),
        ("Ich heiße Marco", "it", "Der Nutzer heißt Marco"),
        ("Ich arbeite bei einer Bank", "de", "Der Nutzer arbeitet bei einer Bank"),
        ("Ich fahre jeden Tag mit dem Rad", "de", "Der Nutzer fährt jeden Tag mit dem Rad"),
        ("ich Vegetarier bin", "de", "Der Nutzer ist Vegetarier"),  # after "merk dir, dass": the verb comes last
        ("Meine Frau heißt Anna", "de", "Die Frau des Nutzers heißt Anna"),
    ],
)
def test_the_simple_first_person_forms_are_put_in_the_third_person(said: str, language: str, memory: str) -> None:
    # With the user's language as the hint, as the offline intents pass it: a few words are too short for
    # the detector to be sure ("Je m'appelle Marco" scores 0.71 French).
    assert third_person(said, language) == memory


def test_a_longer_text_is_read_in_its_own_language_whatever_the_hint() -> None:
    said = "Mi chiamo Marco e lavoro in banca da dieci anni"
    assert third_person(said, "en") == "L'utente si chiama Marco e lavora in banca da dieci anni"


@pytest.mark.parametrize(
    ("said", "language", "memory"),
    [
        ("Je m'appelle Marco et j'habite à Lyon", "fr", "L'utilisateur s'appelle Marco et habite à Lyon"),
        ("Ich heiße Marco und ich wohne in Berlin", "de", "Der Nutzer heißt Marco und wohnt in Berlin"),
        ("Me llamo Ana y trabajo en un banco", "es", "El usuario se llama Ana y trabaja en un banco"),
    ],
)
def test_the_user_goes_on_being_the_subject_after_and(said: str, language: str, memory: str) -> None:
    assert third_person(said, language) == memory


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("Ci siamo sposati a maggio a Roma", "L'utente ha detto: “Ci siamo sposati a maggio a Roma”"),
        ("Nos casamos en mayo en Sevilla", "El usuario dijo: “Nos casamos en mayo en Sevilla”"),
        ("Nous avons déménagé à Lyon en mars", "L'utilisateur a dit : “Nous avons déménagé à Lyon en mars”"),
        ("Das haben wir gestern beschlossen", "Der Nutzer sagte: “Das haben wir gestern beschlossen”"),
    ],
)
def test_other_first_person_forms_keep_the_users_words_with_a_subject(said: str, memory: str) -> None:
    assert third_person(said) == memory


def test_english_is_still_rewritten_or_refused_as_before() -> None:
    assert third_person("I live in Lyon with my wife") == "User lives in Lyon with their wife"
    with pytest.raises(InvalidMemory, match="third person"):
        third_person("We moved to Lyon in March")


def test_a_short_text_reads_in_the_users_language() -> None:
    # Too short for the detector to be sure: the user's language decides.
    assert third_person("Sono vegano", "it") == "L'utente è vegano"


@pytest.mark.parametrize(
    ("memory", "said_to_user"),
    [
        ("L'utente si chiama Marco", "Ti chiami Marco"),
        ("L'utente abita a Roma con sua moglie", "Abiti a Roma con tua moglie"),
        ("All'utente piace il jazz", "Ti piace il jazz"),
        ("El usuario vive en Madrid con su esposa", "Vives en Madrid con tu esposa"),
        ("La madre del usuario vive en Sevilla", "Tu madre vive en Sevilla"),
        ("L'utilisateur habite à Lyon avec sa femme", "Tu habites à Lyon avec ta femme"),
        ("Der Nutzer wohnt in Berlin", "Du wohnst in Berlin"),
        ("Die Frau des Nutzers heißt Anna", "Deine Frau heißt Anna"),
        ("L'utente ha detto: “Ci siamo sposati a maggio”", "Hai detto: “Ci siamo sposati a maggio”"),
    ],
)
def test_a_memory_is_said_back_to_the_user_in_the_second_person(memory: str, said_to_user: str) -> None:
    assert second_person(memory) == said_to_user
