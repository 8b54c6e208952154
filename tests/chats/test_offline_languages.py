"""Offline titles and summaries in Italian, Spanish, French and German (issue 17), on small chats written
for these tests: the title names the subject in the chat's own language, and the summary keeps the
decisions, dates, amounts and commitments and leaves the greetings out, as it does in English."""

from __future__ import annotations

import pytest

from chats.maintenance import transcript
from chats.models import Turn
from chats.text.offline_text import OfflineTextModel, summarize_extractively
from chats.text.offline_title import subject_title
from tests.chats.test_offline_text import model, user

TILES = (
    user("Quiero cambiar los azulejos de la pared de la cocina. ¿Blancos o verdes?"),
    model("Los azulejos blancos agrandan una cocina pequeña; los verdes dan carácter pero cuestan el triple."),
    user("La cocina es pequeña y los muebles son de roble oscuro. ¿Qué azulejos quedan mejor en esa pared?"),
    model("Con roble oscuro, azulejos blancos en la pared y una junta gris clara."),
)
BREAD = (
    user("Mon pain au levain reste tout plat, la pâte s'étale dans le four."),
    model("Un pain plat vient souvent d'un levain trop faible ou d'une pâte trop hydratée."),
    user("Mon levain double en six heures. La pâte est à 80 pour cent d'eau."),
    model("Descends à 70 pour cent d'eau et façonne plus serré : le pain montera mieux."),
)
TOMATOES = (
    user("Le foglie delle mie piante di pomodoro stanno ingiallendo a partire dal basso."),
    model("Le foglie basse che ingialliscono sono spesso carenza di azoto o troppa acqua."),
    user("Le innaffio ogni giorno e le piante di pomodoro sono in vaso sul balcone."),
    model("Ogni giorno è troppo per un vaso: innaffia le piante di pomodoro quando il terriccio è asciutto."),
)
BIKE_TOUR = (
    user("Ich möchte im Sommer eine Radtour an der Donau machen. Wie weit kommt man am Tag?"),
    model("Für Genussradler sind fünfzig bis siebzig Kilometer am Tag gut machbar, der Donauradweg ist flach."),
    user("Welche Etappen passen für die Radtour an der Donau?"),
    model("Passau bis Linz, dann Linz bis Grein: je etwa sechzig Kilometer, mit Pausen an der Donau."),
)


@pytest.mark.parametrize(
    ("turns", "subject", "title"),
    [
        (TILES, "azulejos", "Azulejos blancos en la pared"),
        (BREAD, "pain", "Pain plat"),
        (TOMATOES, "pomodoro", "Piante di pomodoro"),
        (BIKE_TOUR, "Radtour", "Radtour an der Donau"),
    ],
)
def test_a_title_names_the_subject_in_the_chats_language(turns: tuple[Turn, ...], subject: str, title: str) -> None:
    made = subject_title(transcript(turns))
    assert made == title
    assert subject.lower() in made.lower() and 2 <= len(made.split()) <= 5


def test_a_german_title_keeps_its_nouns_capitals_and_an_italian_one_its_elisions() -> None:
    assert subject_title("User: Wir planen die Renovierung der Küche.\nUser: Die Küche bekommt neue Fliesen.") == (
        "Renovierung der Küche"
    )
    assert subject_title(
        "User: Stiamo pensando alla ristrutturazione dell'appartamento.\n"
        "User: Per la ristrutturazione dell'appartamento servono tre mesi."
    ) == ("Ristrutturazione dell'appartamento")


def test_a_short_text_is_titled_in_the_users_language() -> None:
    # Too short to detect: the user's language is the hint, and a one-word subject gets its words.
    assert subject_title("User: Chitarra!\nUser: Chitarra.", "it") == "Chat su chitarra"


BATHROOM = {
    "it": (
        ("Ciao!", "Ciao! Come posso aiutarti?"),
        "Abbiamo deciso di rifare il bagno a marzo, il preventivo è di 6.000 euro.",
        "Devo ricordarti di chiamare l'idraulico giovedì?",
        ("Sì, grazie.", "Va bene."),
    ),
    "es": (
        ("¡Hola!", "¡Hola! ¿En qué puedo ayudarte?"),
        "Hemos decidido reformar el baño en marzo, el presupuesto es de 6.000 euros.",
        "¿Te recuerdo llamar al fontanero el jueves?",
        ("Sí, gracias.", "Vale."),
    ),
    "fr": (
        ("Salut !", "Bonjour ! Comment puis-je t'aider ?"),
        "On a décidé de refaire la salle de bain en mars, le devis est de 6 000 euros.",
        "Je te rappelle d'appeler le plombier jeudi ?",
        ("Oui, merci.", "D'accord."),
    ),
    "de": (
        ("Hallo!", "Hallo! Wie kann ich helfen?"),
        "Wir haben entschieden, im März das Bad zu renovieren, das Angebot liegt bei 6.000 Euro.",
        "Soll ich dich am Donnerstag an den Klempner erinnern?",
        ("Ja, danke.", "Alles klar."),
    ),
}


@pytest.mark.parametrize("language", sorted(BATHROOM))
def test_a_summary_keeps_the_decision_and_the_reminder_and_drops_the_greetings(language: str) -> None:
    greeting, decision, reminder, thanks = BATHROOM[language]
    turns = [user(greeting[0]), model(greeting[1]), user(decision), model(reminder), user(thanks[0]), model(thanks[1])]
    summary = summarize_extractively(turns, max_chars=len(decision) + len(reminder) + 40)
    # French puts a space before "?" and "!", which the sentence splitter needs without.
    assert summary == f"User: {decision}\nAssistant: {reminder}".replace(" ?", "?")


async def test_the_offline_model_reads_a_short_text_in_the_users_language() -> None:
    assert await OfflineTextModel("es").title("User: ¡Guitarra!\nUser: Guitarra.") == "Chat sobre guitarra"


def test_a_young_chat_opened_on_what_is_the_users_is_titled_by_it_not_the_answers_detail() -> None:
    # The first answer dwells on the knocking and the limescale; the user opened on their water heater.
    made = subject_title(
        transcript(
            (
                user("Mon ballon d'eau chaude fait des claquements bizarres depuis lundi."),
                model(
                    "Des claquements viennent souvent du tartre : les claquements cessent après un détartrage. "
                    "Vérifiez le tartre sur la résistance, puis la soupape."
                ),
            )
        )
    )
    assert made.startswith("Ballon")


def test_a_young_chat_opened_on_a_doctors_words_is_about_what_they_said() -> None:
    made = subject_title(
        transcript(
            (
                user("Mon médecin dit que mon cholestérol est trop élevé."),
                model("Un cholestérol élevé se soigne d'abord par l'alimentation : moins de graisses saturées."),
            )
        )
    )
    assert "cholestérol" in made.lower() and "médecin" not in made.lower()


def test_the_french_cat_is_a_subject() -> None:
    made = subject_title(
        transcript(
            (
                user("Mon chat Minou vomit après chaque repas."),
                model("Un chat qui vomit après le repas mange souvent trop vite : essayez une gamelle anti-glouton."),
            )
        )
    )
    assert made.lower().startswith("chat")


def test_german_typed_in_lower_case_is_titled_by_its_nouns() -> None:
    made = subject_title(
        transcript(
            (
                user("ich will das wohnzimmer neu tapezieren, die alte tapete ist vergilbt"),
                model("Alte Tapete zuerst einweichen und abziehen, dann die Wände glätten und grundieren."),
                user("welche tapete hält im wohnzimmer am längsten?"),
                model("Vliestapete: robust und später trocken abziehbar."),
            )
        )
    )
    assert "wohnzimmer" in made.lower()  # without its capital it was read as no noun


def test_only_the_user_brings_company_to_a_german_title() -> None:
    # "mit Leckerlis" is a noun the lexicon does not know, said by the assistant: no companion.
    made = subject_title(
        transcript(
            (
                user("Unser Hund bellt jeden Abend, wenn es klingelt."),
                model(
                    "Üben Sie das Klingeln mit Leckerlis: der Hund bekommt eins, wenn er bei der Klingel ruhig bleibt."
                ),
            )
        )
    )
    assert "Leckerlis" not in made and "Hund" in made


def test_a_french_verb_after_a_singular_noun_ends_its_phrase() -> None:
    # "le congélateur marche encore": "marche" is the verb; "pneus neige" stays one phrase.
    made = subject_title(
        transcript(
            (
                user("Notre frigo ne refroidit plus, le congélateur marche encore."),
                model("Si le congélateur marche, dégivrez le frigo une journée, portes ouvertes."),
            )
        )
    )
    assert "marche" not in made.lower() and made.startswith("Frigo")
    assert "Pneus neige" in subject_title(
        "User: Il me faut des pneus neige pour la Savoie ?\nAssistant: Les pneus neige ou des chaînes."
    )


def test_what_the_user_wants_to_do_something_to_is_the_subject_unless_said_after_it() -> None:
    answer = model(
        "Demandez d'abord l'accord du syndic pour la cour ; le syndic vote en assemblée, la cour est commune."
    )
    wanted = subject_title(
        transcript((user("Notre immeuble voudrait installer un compost collectif dans la cour."), answer))
    )
    assert wanted.lower().startswith("compost collectif")
    # The subject came first, in a sentence of its own: what the user wants next is a detail of it.
    kitchen = (
        user("On refait enfin la cuisine. Je veux enlever les vieux placards."),
        model("Dans une cuisine ancienne, les placards partent à la ressourcerie."),
    )
    assert subject_title(transcript(kitchen)).startswith("Cuisine")
