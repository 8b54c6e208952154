"""The words the month is generated from: subject domains, names, places, sentence templates and ways of
stating facts about oneself. `bench.month_plan` draws the month's 12 topics from the 16 domains here and
fills every template from these lists with a seeded generator: nothing below was chosen, or tuned, to make
a figure pass; a template that Parley handles badly stays in (that is a finding).

A domain's `subjects` are ways a person names the subject ("the kitchen renovation", "redoing the
kitchen"); `nouns` are the things talked about in it. `{place}` and `{person}` in a subject are filled
with the topic's own place and person.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Domain:
    key: str
    subjects: tuple[str, ...]
    nouns: tuple[str, ...]


DOMAINS = (
    Domain(
        "kitchen",
        ("the kitchen renovation", "redoing the kitchen", "the new kitchen"),
        ("cabinets", "worktop", "wall tiles", "sink", "plumber", "budget", "oven", "floor", "lighting"),
    ),
    Domain(
        "trip",
        ("the trip to {place}", "our {place} holiday", "travelling to {place}"),
        ("flights", "hotel", "day trip", "museum", "train tickets", "restaurant", "itinerary", "luggage"),
    ),
    Domain(
        "sourdough",
        ("baking sourdough", "my sourdough bread", "the bread baking"),
        ("starter", "hydration", "loaf", "proofing", "oven spring", "flour", "crust", "dutch oven"),
    ),
    Domain(
        "migration",
        ("the TypeScript migration", "moving the billing service to TypeScript", "the billing service rewrite"),
        ("types", "invoice module", "unit tests", "build pipeline", "currency helpers", "compiler", "linting"),
    ),
    Domain(
        "marathon",
        ("marathon training", "training for the {place} marathon", "my running plan"),
        ("long run", "pace", "knee", "running shoes", "intervals", "recovery", "race day", "energy gels"),
    ),
    Domain(
        "garden",
        ("the vegetable garden", "my allotment", "growing vegetables"),
        ("tomatoes", "compost", "raised beds", "slugs", "seedlings", "watering", "greenhouse", "courgettes"),
    ),
    Domain(
        "language",
        ("learning Portuguese", "my Portuguese lessons", "practising Portuguese"),
        ("verbs", "vocabulary", "tutor", "pronunciation", "grammar", "podcast", "flashcards", "exam"),
    ),
    Domain(
        "car",
        ("the car repair", "fixing the car", "the garage visit"),
        ("brakes", "mechanic", "tyres", "gearbox", "oil change", "warning light", "insurance", "battery"),
    ),
    Domain(
        "wedding",
        ("planning {person}'s wedding", "the wedding plans", "the wedding with {person}"),
        ("venue", "guest list", "caterer", "invitations", "photographer", "dress", "speech", "seating plan"),
    ),
    Domain(
        "moving",
        ("moving flat", "the move to the new flat", "packing for the move"),
        ("boxes", "removal van", "landlord", "deposit", "new flat", "furniture", "internet contract", "keys"),
    ),
    Domain(
        "dog",
        ("adopting a dog", "the new puppy", "training the puppy"),
        ("shelter", "vet", "lead", "puppy class", "crate", "chew toys", "vaccinations", "dog food"),
    ),
    Domain(
        "taxes",
        ("the tax return", "doing my taxes", "the tax paperwork"),
        ("receipts", "accountant", "deductions", "deadline", "invoices", "pension", "spreadsheet", "refund"),
    ),
    Domain(
        "bookclub",
        ("the book club", "our reading group", "the book club with {person}"),
        ("novel", "chapters", "author", "discussion", "next book", "ending", "characters", "meeting"),
    ),
    Domain(
        "photography",
        ("learning photography", "my camera", "the photo project"),
        ("lens", "aperture", "tripod", "editing", "portraits", "light meter", "prints", "landscapes"),
    ),
    Domain(
        "guitar",
        ("guitar lessons", "learning the guitar", "practising guitar"),
        ("chords", "strings", "teacher", "scales", "fingerpicking", "metronome", "song", "amplifier"),
    ),
    Domain(
        "jobsearch",
        ("the job search", "applying for jobs", "my job applications"),
        ("cover letter", "interview", "recruiter", "portfolio", "salary", "references", "offer", "CV"),
    ),
)

PEOPLE = tuple(
    (
        "Ana Marco Priya Tomás Lena Jonas Sofia Ravi Chloe Mateo Ingrid Kofi Yuki Omar Elena Felix Nadia Hugo Maya Luca"
    ).split()
)
PLACES = tuple("Lisbon Berlin Kyoto Oslo Porto Vienna Seville Dublin Krakow Madrid Valencia Prague Lyon Bergen".split())
COMPANIES = tuple("Acme Globex Initech Umbrella Hooli Vandelay Stark Wayne Cyberdyne Soylent".split())
JOBS = ("nurse", "architect", "teacher", "data analyst", "chef", "translator", "electrician", "pharmacist")
FOODS = ("lasagne", "ramen", "paella", "curry", "dumplings", "tacos", "risotto", "falafel")
COLOURS = ("green", "blue", "orange", "purple", "yellow", "teal")
HOBBIES = ("hiking", "climbing", "chess", "painting", "swimming", "cycling", "knitting", "pottery")
DRINKS = ("green tea", "black coffee", "oat latte", "hot chocolate", "mint tea")
ALLERGIES = ("peanuts", "shellfish", "cats", "pollen", "penicillin")
LANGUAGES = ("Spanish", "French", "German", "Japanese", "Italian", "Dutch")
WEEKDAYS = tuple("Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split())
ADJECTIVES = tuple("cheaper better bigger quieter simpler older newer lighter".split())

USER_LINES = (
    "{person} thinks the {noun} should be sorted before {weekday}.",
    "I found a {adjective} option for the {noun}, about {number} euros.",
    "Can you help me compare the {noun} and the {noun2}?",
    "The {noun} still isn't right, maybe because of the {noun2}.",
    "Let's plan the {noun} for {weekday} with {person}.",
    "What should I check first about the {noun}?",
    "I spent {number} minutes on the {noun} yesterday.",
    "Remind me what we decided about the {noun2}.",
    "{person} asked whether the {noun} can wait until {weekday}.",
    "I'm worried the {noun} will take longer than planned.",
    "For {subject}, the {noun} matters most right now.",
)
OPENING_LINES = (
    "I want to talk about {subject}; the {noun} first.",
    "Can you help me with {subject}? {person} is involved too.",
    "So, {subject}: I need a plan for the {noun}.",
)
"""The first thing said in a new chat: people name what they want to talk about."""
MODEL_LINES = (
    "Start with the {noun}, then see how the {noun2} fits around it.",
    "If the {noun} is the worry, a {adjective} {noun2} could take some pressure off.",
    "Good plan: {weekday} gives you time to sort the {noun} first.",
    "Keep notes on the {noun}; {person} will want the numbers.",
    "That sounds reasonable for the {noun}, about {number} euros is a fair guess.",
    "Compare the {noun} with the {noun2} side by side before you decide.",
)
SWITCH_LINES = (
    "let's go back to the chat about {subject}",
    "open the one about {subject}",
    "back to {subject} please",
    "the chat where we talked about the {noun} and the {noun2}",
    "continue the conversation on {subject}",
    "the one where {person} came up about the {noun}",
    "can we pick up {subject} again",
    "switch to the {noun} chat",
)


@dataclass(frozen=True, slots=True)
class Attribute:
    """A kind of fact about the user: the ways one says it, each with the third-person sentence a model
    saves for it (the same statement rephrased, as the save tool asks)."""

    key: str
    category: str
    values: tuple[str, ...]
    phrasings: tuple[tuple[str, str], ...]
    """(what the user says, what the model saves); `{v}` is the value."""
    single: bool
    """One value at a time (a newer one contradicts the older), or many (each value its own fact)."""


ATTRIBUTES = (
    Attribute(
        "home",
        "identity",
        PLACES,
        (
            ("I live in {v} now.", "User lives in {v} now"),
            ("I moved to {v} last month.", "User moved to {v} last month"),
            ("I'm based in {v} these days.", "User is based in {v}"),
        ),
        single=True,
    ),
    Attribute(
        "employer",
        "identity",
        COMPANIES,
        (
            ("I work at {v}.", "User works at {v}"),
            ("I started working at {v} recently.", "User started working at {v}"),
            ("I've got a job at {v}.", "User has a job at {v}"),
        ),
        single=True,
    ),
    Attribute(
        "job",
        "identity",
        JOBS,
        (
            ("I work as a {v}.", "User works as a {v}"),
            ("I'm a {v} by trade.", "User is a {v} by trade"),
            ("My job is being a {v}.", "User's job is being a {v}"),
        ),
        single=True,
    ),
    Attribute(
        "partner",
        "relationship",
        PEOPLE,
        (
            ("I'm married to {v}.", "User is married to {v}"),
            ("{v} and I got married two years ago.", "User got married to {v} two years ago"),
        ),
        single=True,
    ),
    Attribute(
        "food",
        "preference",
        FOODS,
        (
            ("My favourite food is {v}.", "User's favourite food is {v}"),
            ("{v} is my favourite food, easily.", "User's favourite food is {v}"),
        ),
        single=True,
    ),
    Attribute(
        "colour",
        "preference",
        COLOURS,
        (
            ("My favourite colour is {v}.", "User's favourite colour is {v}"),
            ("I'd say {v} is my favourite colour.", "User's favourite colour is {v}"),
        ),
        single=True,
    ),
    Attribute(
        "dog",
        "relationship",
        PEOPLE,
        (
            ("My dog is called {v}.", "User's dog is called {v}"),
            ("Our dog {v} needs a long walk every day.", "User's dog {v} needs a long walk every day"),
        ),
        single=True,
    ),
    Attribute(
        "hobby",
        "preference",
        HOBBIES,
        (
            ("I love {v} at the weekend.", "User loves {v} at the weekend"),
            ("{v} is what I do to relax.", "User does {v} to relax"),
        ),
        single=False,
    ),
    Attribute(
        "drink",
        "preference",
        DRINKS,
        (
            ("I always drink {v} in the morning.", "User always drinks {v} in the morning"),
            ("Every morning I have {v}.", "User has {v} every morning"),
        ),
        single=False,
    ),
    Attribute(
        "allergy",
        "identity",
        ALLERGIES,
        (
            ("I'm allergic to {v}.", "User is allergic to {v}"),
            ("I have an allergy to {v}, so careful.", "User has an allergy to {v}"),
        ),
        single=False,
    ),
    Attribute(
        "speaks",
        "identity",
        LANGUAGES,
        (
            ("I speak {v} fairly well.", "User speaks {v} fairly well"),
            ("I can get by in {v}.", "User can get by in {v}"),
        ),
        single=False,
    ),
)
