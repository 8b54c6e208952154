"""Offline titles name what a chat is about: the issue's four chats, as a user would talk them."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chats.maintenance import transcript
from chats.models import Turn
from chats.text.offline_title import MAX_WORDS, subject_title
from tests.chats.test_offline_text import model, user

LISBON = (
    user("Ana and I are going to Lisbon for five days in May. I'd love to do a day trip out of the city, any ideas?"),
    model(
        "Sintra is the classic day trip from Lisbon: palaces and gardens in the hills, 40 minutes by train from "
        "Rossio station. Cascais is the easy choice if you and Ana would rather have a beach."
    ),
    user("Ana loves beaches but I really want to see the palaces. Could we fit both into one day?"),
    model(
        "You could: take an early train to Sintra for the Pena Palace, then the bus down to Cascais for the "
        "afternoon and the train back to Lisbon in the evening."
    ),
)
KITCHEN_TILES = (
    user(
        "We're redoing the kitchen and I can't choose the tiles for the wall behind the counter. White metro "
        "tiles or those green zellige ones?"
    ),
    model(
        "Both work well on a kitchen wall. White metro tiles are cheap and timeless and make a small kitchen feel "
        "bigger. Green zellige tiles are handmade and uneven, full of character, but cost about three times as "
        "much."
    ),
    user("The kitchen is quite small and the cabinets are dark oak. Which tiles would look better on that wall?"),
    model(
        "With dark oak cabinets in a small kitchen, white tiles keep the room light. If you love the green, use "
        "it on one short stretch of wall only."
    ),
)
SOURDOUGH = (
    user("My sourdough loaves keep coming out flat and dense. I feed the starter every day, what am I doing wrong?"),
    model(
        "Flat, dense loaves usually mean the dough is under-proofed, or the starter was not active enough when "
        "you mixed it. Does your starter double within four to six hours of a feed?"
    ),
    user("It rises a bit but it never doubles. I keep it in the fridge most of the week."),
    model(
        "A cold starter gets sluggish. Keep it on the counter for a few days and feed it twice a day until it "
        "doubles reliably, then bake. Your loaves should rise higher with a more open crumb."
    ),
)
BILLING = (
    user(
        "We want to migrate our billing service from JavaScript to TypeScript. How would you plan it without "
        "freezing feature work?"
    ),
    model(
        "Do it gradually. Turn on allowJs in tsconfig so JavaScript and TypeScript files can live side by side, "
        "then convert one module at a time, starting with leaf modules like the invoice formatting helpers."
    ),
    user(
        "The billing service is about 40k lines and has almost no tests. Should we write tests before the "
        "TypeScript migration?"
    ),
    model(
        "Yes: put tests around the payment and invoice paths first, so each converted module can be checked "
        "against the old behaviour."
    ),
)
VEGETABLE_PATCH = (
    user("I want to start a vegetable patch in the back garden this year, maybe four raised beds."),
    model("Four raised beds make a good first vegetable patch. Put them where they get six hours of sun."),
    user("What should I grow in the first year?"),
    model("Easy crops: lettuce, courgettes, beans and potatoes. Leave the fussy ones for later."),
    user("Something is eating the lettuce at night. I think it's slugs."),
    model("Slugs love young lettuce. Go out with a torch after dark and you will see the slugs."),
    user("Are slug pellets safe with a dog around?"),
    model("Most slug pellets are harmful to dogs. Use a beer trap or copper tape against slugs instead."),
    user("How often do I empty a beer trap for slugs?"),
    model("Every two or three days: the beer goes stale and the drowned slugs stop attracting the others."),
)
CHATS = (LISBON, KITCHEN_TILES, SOURDOUGH, BILLING)


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        (LISBON, "Lisbon trip with Ana"),
        (KITCHEN_TILES, "Kitchen wall tiles"),
        (SOURDOUGH, "Flat sourdough loaves"),
    ],
)
def test_a_title_names_the_subject_as_a_person_would(turns: tuple[Turn, ...], expected: str) -> None:
    assert subject_title(transcript(turns)) == expected
    # A young chat is titled after its first exchange: the subject is already there.
    assert subject_title(transcript(turns[:2])) == expected


def test_the_migration_chat_is_titled_by_the_service_it_moves() -> None:
    # A person says "Billing service TypeScript migration"; the phrase the chat keeps coming back to is
    # the service (the migration is said once, as a verb first): the title names that much.
    assert subject_title(transcript(BILLING)) == "Billing service"
    assert "TypeScript" in subject_title(transcript(BILLING[:2]))


def test_a_long_chat_that_drifts_to_a_detail_is_titled_by_what_it_was_opened_for() -> None:
    # A chat that arrives whole (an import) talks of slugs over and over at the end; a person still calls
    # it by what the user opened it for. (Before issue 23's opening prior: "Slugs beer trap".)
    assert subject_title(transcript(VEGETABLE_PATCH)) == "Vegetable patch"


@pytest.mark.parametrize("turns", CHATS)
def test_titles_are_short_sentence_case_noun_phrases(turns: tuple[Turn, ...]) -> None:
    text = transcript(turns)
    for title in (subject_title(text), subject_title(transcript(turns[:2]))):
        words = title.split()
        assert 2 <= len(words) <= MAX_WORDS
        assert words[0][:1].isupper()
        for word in words[1:]:
            # A later capital is one the chat itself writes inside a sentence: a name, not Title Case.
            assert word.islower() or re.search(r"[a-z,] " + re.escape(word) + r"\b", text), title
        assert not {"User", "Assistant", "user", "assistant"} & set(words)


def test_a_capital_that_only_opens_a_sentence_is_dropped() -> None:
    title = subject_title("Tomato plants: how often should I water them? Tomato plants in pots dry out fast.")

    assert title == "Tomato plants"


def test_a_name_spoken_to_is_not_the_subject() -> None:
    text = "User: Hey Sam! I finally signed up for the pottery class.\nAssistant: Great, Sam! A pottery class is fun."

    assert "Sam" not in subject_title(text)
    assert "pottery" in subject_title(text).lower()


def test_a_summary_is_titled_without_its_labels() -> None:
    summary = (
        "User: Our sourdough loaves come out flat; the starter never doubles.\n"
        "Assistant: Keep the starter warm and feed it twice a day until it doubles.\n"
        "Open question from the user: Should the loaves proof overnight in the fridge?"
    )

    title = subject_title(summary)

    assert "sourdough" in title.lower() or "starter" in title.lower()
    assert not re.search(r"(?i)\b(user|assistant|open question)\b", title)


@pytest.mark.parametrize("text", ["", "  \n ", "?!", "User: Hi!\nAssistant: Hello! How can I help?"])
def test_a_text_that_names_nothing_gets_no_title(text: str) -> None:
    # No title yet: maintenance leaves the chat untitled and asks again after its next exchange.
    assert subject_title(text) == ""


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=400) | st.sampled_from([transcript(chat) for chat in CHATS]))
def test_any_text_gets_a_short_title_or_none(text: str) -> None:
    title = subject_title(text)

    assert title == "" or 2 <= len(title.split()) <= MAX_WORDS
    assert title == subject_title(text)


HOUSE_MOVE = (
    user("We're moving house to Bristol next month and the house move is stressing me out. What do I sort first?"),
    model("Book the removal firm for the house move first, then pack room by room, the least used things first."),
    user("The piano is my worry. The piano weighs a ton and the new stairs are narrow. Can movers take a piano?"),
    model("Specialist piano movers take an upright piano up narrow stairs with a stair-climbing trolley."),
)
GIFT_AFTER_A_GREETING = (
    user("Hi"),
    model("Hello! How can I help you today?"),
    user("I need a birthday present for my sister, she turns thirty in May."),
    model("A silk scarf, a good book, a weekend away or a nice pen are all safe choices."),
    user("A silk scarf is lovely. Which colour of silk scarf suits most people?"),
    model("A navy or a deep green silk scarf suits most people and goes with most coats."),
)
FRIENDS_TALKING = (
    user("Hey Mel! Long time no see. The concert last night was loud."),
    model("Ha, glad you went! I've been doing pottery all week, pottery is my new love."),
    user("Pottery sounds fun, show me your pottery bowls!"),
    model("I'll bring the pottery bowls next time, the glaze on the pottery came out blue."),
)
TRASLOCO = (
    user("Stiamo organizzando il trasloco a Genova per giugno e il trasloco mi mette ansia."),
    model("Per il trasloco prenota presto la ditta e prepara gli scatoloni stanza per stanza."),
    user("La lavatrice è il problema: la lavatrice è pesante e le scale sono strette. Come si sposta una lavatrice?"),
    model("Blocca il cestello della lavatrice con le viti di trasporto e usa un carrello per la lavatrice."),
)


def test_a_short_import_is_titled_by_what_it_was_opened_for_not_its_latest_detail() -> None:
    # Four turns, the piano said most (issue 23: a house move titled "Corner sofa").
    title = subject_title(transcript(HOUSE_MOVE))

    assert "house" in title.lower() and "piano" not in title.lower()
    assert subject_title(transcript(TRASLOCO)).lower().startswith("trasloco")


def test_a_greeting_and_an_offer_of_help_before_the_first_turn_leave_the_opening_the_subject() -> None:
    title = subject_title(transcript(GIFT_AFTER_A_GREETING))

    assert "present" in title.lower() and "scarf" not in title.lower()


def test_a_talk_that_opens_by_speaking_to_someone_is_titled_by_what_it_says_most() -> None:
    # Two friends ("Hey Mel!"): no request opens it, so the opening's concert is no subject.
    assert "pottery" in subject_title(transcript(FRIENDS_TALKING)).lower()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "User: I'm 40 and never learned to ski. Is it too late to learn?\n"
            "Assistant: Not at all. Book a few lessons and rent boots first.\n"
            "User: The boots hurt my shins. Are rental boots always this bad?\n"
            "Assistant: Rental boots often fit badly: ask for a smaller size, boots should feel snug.",
            "Learning to ski",
        ),
        (
            "User: Non ho mai imparato a sciare bene, quest'inverno voglio imparare.\n"
            "Assistant: Qualche lezione con un maestro basta per iniziare. Gli scarponi a noleggio vanno provati.\n"
            "User: Gli scarponi mi fanno male. Gli scarponi a noleggio sono sempre così?",
            "Imparare a sciare",
        ),
    ],
)
def test_a_chat_opened_to_learn_a_skill_is_titled_by_the_skill(text: str, expected: str) -> None:
    # No noun names the skill; the boots are what the chat says most.
    assert subject_title(text) == expected


def test_learning_to_do_something_with_an_object_is_titled_by_the_object() -> None:
    text = (
        "User: I want to learn to bake bread at home.\nAssistant: Start with a simple white bread.\n"
        "User: My bread is dense.\nAssistant: Dense bread usually needs a longer rise."
    )

    assert "bread" in subject_title(text).lower()


def test_a_first_exchange_is_titled_by_what_the_user_asked_not_the_answers_advice_words() -> None:
    # A young chat keeps this title: the answer says "element" four times, the user said "kettle" once.
    text = (
        "User: Our kettle takes ages to boil lately.\n"
        "Assistant: Limescale on the element slows it down. Descale the element with citric acid: fill to cover "
        "the element, boil, leave an hour. Descale the element every month in hard water."
    )

    title = subject_title(text)

    assert title.startswith("Kettle") and "element" not in title.lower()


@pytest.mark.parametrize(
    ("text", "subject", "when"),
    [
        (
            "User: Alla fine del mese prossimo ridipingo il soggiorno, che colore sta bene con il parquet?\n"
            "Assistant: I bianchi caldi e il verde salvia stanno bene con il rovere. Prova dei campioni grandi.",
            "soggiorno",
            {"fine", "prossimo"},
        ),
        (
            "User: A finales del mes próximo pinto el salón, ¿qué color queda bien con el parqué?\n"
            "Assistant: Los blancos cálidos y el verde salvia quedan bien con el roble. Prueba muestras grandes.",
            "salón",
            {"finales", "próximo"},
        ),
        (
            "User: Last Tuesday my bike was stolen from outside the station, what should I do?\n"
            "Assistant: Report it to the police and give them the frame number; check second-hand listings too.",
            "bike",
            {"tuesday", "last"},
        ),
        (
            "User: Entro giugno devo rinnovare il passaporte, come si fa?\n"
            "Assistant: Prenota un appuntamento in questura online e porta due foto.",
            "passaporte",
            {"entro", "giugno"},
        ),
        (
            "User: À la fin du mois prochain je repeins le salon, quelle couleur va avec le parquet ?\n"
            "Assistant: Les blancs chauds et le vert sauge vont bien avec le chêne. Essaie de grands échantillons.",
            "salon",
            {"fin", "prochain"},
        ),
    ],
)
def test_when_a_chat_happens_is_not_what_it_is_about(text: str, subject: str, when: set[str]) -> None:
    # When opens the chat ("the end of next month", "last Tuesday", "by June"); the room or the thing is its subject.
    title = subject_title(text).lower()

    assert subject in title and not when & set(title.split())


def test_someone_close_named_in_the_opening_is_not_the_subject() -> None:
    # "My son Leo" is said with his name twice; the screen time is what the chat is about.
    english = subject_title(
        "User: How much screen time is fine for a six-year-old? My son Leo begs for the tablet.\n"
        "Assistant: Around an hour a day of good programmes is a common guide. Agree the times with Leo in advance."
    )
    german = subject_title(
        "User: Ab wann darf ein Zehnjähriger allein Bus fahren? Mein Sohn Mats fragt jeden Tag danach.\n"
        "Assistant: Viele Kinder fahren ab zehn allein, wenn sie die Strecke kennen. Übt die Fahrt ein paar Mal "
        "gemeinsam, dann entscheidet Mats mit."
    )

    assert "screen" in english.lower() and "son" not in english.lower().split()
    assert "sohn" not in german.lower().split()
