"""The subjects bench/switch_generated.py makes chats of: twelve kinds, each in two variants that a user may
both have (two trips to different cities, two interviews at different firms), written by hand as templates.

Each variant fills the `{slots}` of its kind's lines. A kind has its user's opening, the body of the talk
(model and user lines in turn), details the user says once (each with the words a request quotes), and
paraphrases: requests for the chat that share no content word with it (`bench.switch_generated` checks
them), naming the variant by a word the chat never says ("Portugal" for the Lisbon trip).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of chat, its lines templates over its variants' slots."""

    name: str
    title: str
    """How the user names the subject in a request ("the {place} trip")."""
    opening: str
    body: tuple[str, ...]
    """Model and user lines in turn, the model first (it answers the opening)."""
    details: tuple[tuple[str, str], ...]
    """(a sentence the user says once, the words a request quotes from it)."""
    paraphrases: tuple[str, ...]
    variants: tuple[dict[str, str], ...]


KINDS: tuple[Kind, ...] = (
    Kind(
        "trip",
        "the {place} trip",
        "I'm planning a trip to {place} in May with my partner, four nights.",
        (
            "Four nights in {place} is a good length. Stay near the old town so you can walk everywhere.",
            "Is it worth getting a city card for {place}?",
            "If you visit three museums or more it pays for itself, and it covers the trams.",
            "We mostly want to eat well and wander around {place}.",
            "Then skip the card and book one good dinner ahead; the old town fills up on weekends.",
        ),
        (
            ("A colleague told me the {sight} is a must.", "the {sight}"),
            ("Our flight lands at {hour}, so the first evening is short.", "landing at {hour}"),
        ),
        ("my holiday in {country}", "that getaway abroad to {country}"),
        (
            {"place": "Lisbon", "country": "Portugal", "sight": "tower of Belem", "hour": "ten at night"},
            {"place": "Krakow", "country": "Poland", "sight": "salt mine", "hour": "eleven at night"},
        ),
    ),
    Kind(
        "interview",
        "the {firm} interview",
        "I have a job interview at {firm} next Tuesday for an analyst role.",
        (
            "Good luck! Read their last annual report and prepare two stories about problems you solved.",
            "They said there is a case study in the interview. What does that look like?",
            "Usually a short business problem: you talk through your reasoning, numbers first, then a recommendation.",
            "Should I ask about the salary in the interview?",
            "Wait until they raise it, or ask about the next steps and the range at the end.",
        ),
        (
            ("The recruiter is called {recruiter}.", "the recruiter {recruiter}"),
            ("I'll wear the {outfit} I bought for my cousin's graduation.", "the {outfit}"),
        ),
        ("getting ready to meet the hiring panel at that {industry} company", "my {industry} employer meeting"),
        (
            {"firm": "Northwind", "industry": "shipping", "recruiter": "Priya", "outfit": "navy suit"},
            {"firm": "Halvorsen Bank", "industry": "finance", "recruiter": "Tomasz", "outfit": "grey blazer"},
        ),
    ),
    Kind(
        "car",
        "the car {symptom}",
        "My car makes a {symptom} when I {when}.",
        (
            "A {symptom} when you {when} usually points to {cause}. Get it checked soon.",
            "Can I still drive it to work this week?",
            "Short trips are fine if it gets no worse, but book a garage before the weekend.",
            "The garage quoted {price} for the repair.",
            "That is a fair price for {cause}; ask them to show you the old part.",
        ),
        (("My neighbour {neighbour} heard it too and winced.", "my neighbour {neighbour}"),),
        ("the vehicle fault that worried me", "fixing my motor"),
        (
            {
                "symptom": "grinding noise",
                "when": "brake",
                "cause": "worn pads",
                "price": "180 euros",
                "neighbour": "Gerald",
            },
            {
                "symptom": "rattling sound",
                "when": "accelerate",
                "cause": "a loose heat shield",
                "price": "95 euros",
                "neighbour": "Ines",
            },
        ),
    ),
    Kind(
        "recipe",
        "the {dish} recipe",
        "How do I make a proper {dish} at home?",
        (
            "Start with {base}; that is where most of the flavour comes from.",
            "How long does the {dish} take altogether?",
            "About {time}, most of it waiting rather than working.",
            "Can I make the {dish} the day before?",
            "Yes, it is often better the next day. Reheat it gently.",
        ),
        (("My sister-in-law {guest} is vegetarian, so no meat.", "{guest}, who is vegetarian"),),
        ("that {cuisine} cooking question", "the {cuisine} dinner I wanted to cook"),
        (
            {"dish": "lasagne", "base": "a slow ragu", "time": "three hours", "cuisine": "Italian", "guest": "Ruth"},
            {"dish": "green curry", "base": "a fresh paste", "time": "one hour", "cuisine": "Thai", "guest": "Odile"},
        ),
    ),
    Kind(
        "pet",
        "{pet} {problem}",
        "My {animal} {pet} has been {problem} for three days.",
        (
            "If {pet} is also off food or tired, see a vet today; otherwise watch for another day.",
            "{pet} is eating normally and still plays.",
            "Then it is likely {likely}. Keep an eye on it and call the clinic if it lasts a week.",
        ),
        (("We got {pet} from a shelter in {shelter}.", "the shelter in {shelter}"),),
        ("my sick {species_word}", "the {species_word} health worry"),
        (
            {
                "animal": "cat",
                "pet": "Miso",
                "problem": "sneezing",
                "likely": "a mild cold",
                "species_word": "kitty",
                "shelter": "Leeds",
            },
            {
                "animal": "dog",
                "pet": "Biscuit",
                "problem": "limping",
                "likely": "a strained muscle",
                "species_word": "puppy",
                "shelter": "Bristol",
            },
        ),
    ),
    Kind(
        "repair",
        "the {fixture}",
        "The {fixture} in our bathroom {fault}.",
        (
            "For a {fixture} that {fault}, {fix} usually does it. Turn the water off first.",
            "Do I need special tools for that?",
            "An adjustable spanner and some plumber's tape; it takes about half an hour.",
            "And if that doesn't work?",
            "Then the part itself is worn and it is time to replace the {fixture}.",
        ),
        (("The landlord {landlord} never answers emails.", "the landlord {landlord}"),),
        ("sorting out the {room_word} plumbing", "the {room_word} leak I had"),
        (
            {
                "fixture": "tap",
                "fault": "drips all night",
                "fix": "a new washer",
                "room_word": "washbasin",
                "landlord": "Mr Okafor",
            },
            {
                "fixture": "toilet",
                "fault": "keeps running",
                "fix": "a new flapper",
                "room_word": "loo",
                "landlord": "Mrs Lindqvist",
            },
        ),
    ),
    Kind(
        "running",
        "training for the {race}",
        "I signed up for the {race} in {month} and I can only run twice a week now.",
        (
            "Build up slowly: add one run a week and make one of them long and easy.",
            "How long should the long run get before the {race}?",
            "Aim for about {longest} three weeks before, then cut back.",
            "My knees ache after the long runs.",
            "Check your shoes first; more than 800 kilometres on them and they are done.",
        ),
        (("I'm raising money for the hospice where my aunt {aunt} worked.", "my aunt {aunt}"),),
        ("becoming fit for that {distance_word} event", "my jogging schedule for the {distance_word} event"),
        (
            {
                "race": "half marathon",
                "month": "October",
                "longest": "18 kilometres",
                "distance_word": "21k",
                "aunt": "Marge",
            },
            {
                "race": "10k race",
                "month": "June",
                "longest": "12 kilometres",
                "distance_word": "short road",
                "aunt": "Dolores",
            },
        ),
    ),
    Kind(
        "budget",
        "saving for the {goal}",
        "We want to save for {goal_phrase} and we have {months} months.",
        (
            "Work out the total first, then divide by the months: that is your monthly target.",
            "It comes to about {monthly} a month, which feels like a lot.",
            "Look at subscriptions and eating out first; those are the easiest cuts.",
            "Should we open a separate account for the {goal}?",
            "Yes, a separate savings account makes it harder to spend by accident.",
        ),
        (("My brother {brother} offered to lend us some, but I'd rather not.", "my brother {brother}"),),
        ("putting money aside for the {goal_paraphrase}", "our {goal_paraphrase} fund"),
        (
            {
                "goal": "wedding",
                "goal_phrase": "our wedding",
                "months": "fourteen",
                "monthly": "600 pounds",
                "goal_paraphrase": "big day",
                "brother": "Callum",
            },
            {
                "goal": "house deposit",
                "goal_phrase": "a house deposit",
                "months": "thirty",
                "monthly": "900 pounds",
                "goal_paraphrase": "home purchase",
                "brother": "Declan",
            },
        ),
    ),
    Kind(
        "gift",
        "a present for {person}",
        "I need a birthday present for {person}, who turns {age} next month.",
        (
            "What is {person} into at the moment?",
            "{person} loves {hobby} but already has most of the gear.",
            "Then an experience works better than a thing: a class or a day out around {hobby}.",
            "What budget would you go for?",
            "For a {age}th birthday, something around 50 to 80 is generous without being awkward.",
        ),
        (("Last year I gave {person} a {old_gift} and it was a flop.", "the {old_gift}"),),
        ("what to buy my {relation_word} for the {age_word} milestone", "the {relation_word} celebration idea"),
        (
            {
                "person": "Dad",
                "age": "60",
                "hobby": "fishing",
                "relation_word": "father",
                "age_word": "sixty",
                "old_gift": "scarf",
            },
            {
                "person": "Nora",
                "age": "30",
                "hobby": "climbing",
                "relation_word": "best friend",
                "age_word": "thirty",
                "old_gift": "candle",
            },
        ),
    ),
    Kind(
        "laptop",
        "the {device} {trouble_title}",
        "My {device} {trouble} since the last update.",
        (
            "Updates often leave a background task running. Check the task manager for anything using the CPU.",
            "There's something called an indexer using a lot.",
            "That usually calms down after a day; if not, you can pause it in the settings.",
            "It's been two days already.",
            "Then pause it, restart, and if the {device} still {trouble_short}, roll the update back.",
        ),
        (("I use it for my {shop} shop's accounts.", "the {shop} shop"),),
        ("my {device_paraphrase} misbehaving lately", "the sluggish {device_paraphrase}"),
        (
            {
                "device": "laptop",
                "trouble": "has been really slow",
                "trouble_short": "crawls",
                "trouble_title": "slowing down",
                "device_paraphrase": "notebook computer",
                "shop": "pottery",
            },
            {
                "device": "tablet",
                "trouble": "keeps freezing",
                "trouble_short": "freezes",
                "trouble_title": "freezing",
                "device_paraphrase": "iPad-style gadget",
                "shop": "bicycle",
            },
        ),
    ),
    Kind(
        "garden",
        "the {plant}",
        "The {plant} in my garden {symptom}.",
        (
            "That is often {cause}. How often do you water them?",
            "Every evening, more or less.",
            "That may be too much; water deeply twice a week and feed them once a fortnight.",
            "Should I cut off the bad bits?",
            "Yes, remove the worst leaves so the plants put their energy into new growth.",
        ),
        (("My allotment neighbour {gardener} swears by {remedy}.", "{remedy}"),),
        ("my sad {plant_paraphrase} outdoors", "the {plant_paraphrase} that looked unwell"),
        (
            {
                "plant": "tomatoes",
                "symptom": "have yellow leaves",
                "cause": "a lack of nitrogen",
                "plant_paraphrase": "veg patch",
                "gardener": "Wilf",
                "remedy": "coffee grounds",
            },
            {
                "plant": "roses",
                "symptom": "have black spots",
                "cause": "a fungus",
                "plant_paraphrase": "flower beds",
                "gardener": "Agnes",
                "remedy": "banana peels",
            },
        ),
    ),
    Kind(
        "learning",
        "learning {skill}",
        "I want to start learning {skill} this year, I'm a complete beginner.",
        (
            "Fifteen minutes every day beats two hours at the weekend. Pick one course and stick with it.",
            "Should I get a teacher or use an app?",
            "An app for the basics, then a teacher once a week after a couple of months.",
            "How long until I'm any good at {skill}?",
            "Give it six months of steady practice before you judge.",
        ),
        (("My grandmother {granny} used to play and speak it.", "my grandmother {granny}"),),
        ("taking up {skill_paraphrase} as a novice", "my {skill_paraphrase} lessons idea"),
        (
            {"skill": "Spanish", "skill_paraphrase": "a foreign tongue", "granny": "Rosa"},
            {"skill": "the piano", "skill_paraphrase": "a keyboard instrument", "granny": "Edith"},
        ),
    ),
)
"""Twelve kinds of chat, two variants each."""

FILLERS: tuple[str, ...] = (
    "Sorry, long day, the kids woke at dawn again.",
    "Anyway, I digress, it has been a strange week.",
    "Honestly I keep putting this off and then it bites me.",
    "I was telling my mum about this on the phone yesterday.",
    "Also it has been raining nonstop here, which does not help my mood.",
    "I know that's a lot of detail, bear with me.",
)
"""What a rambling user adds around their point: general words, no subject's."""
