"""The month `bench.month` plays, generated from a seed: pure, so the same seed gives the same month.

- 12 topics drawn from `bench.month_vocab.DOMAINS`, each with its own person and place; 6 start in the first
  two days, the others on days drawn from 3..24.
- About 200 conversations over 30 days, 4-12 turns each, every turn filled from the templates. A
  conversation continues the chat last used, returns to an older topic's chat (by a spoken switch, or by
  picking it in the window), or opens a new chat (a new topic, or now and then a fresh chat on an old one).
- 40 of the returns are switches by description, 10 in each simulated week (days 1-7, 8-14, 15-21, 22-30).
- 60 facts said about oneself, in voice conversations: first statements, restatements of the current value
  (to be deduplicated) and contradictions of a single-valued fact (to supersede the older value).
- 10 restarts (the first conversation of every third day) and 2 crashes (a kill -9 mid-conversation, on
  days 10 and 23).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from bench.month_vocab import (
    ADJECTIVES,
    ATTRIBUTES,
    DOMAINS,
    MODEL_LINES,
    OPENING_LINES,
    PEOPLE,
    PLACES,
    SWITCH_LINES,
    USER_LINES,
    WEEKDAYS,
    Attribute,
)

DAYS = 30
TOPICS = 12
CONVERSATIONS = 200
SWITCHES_PER_WEEK = 10
MEMORY_LINES = 60
MEMORY_MIX = {"first": 28, "restate": 18, "contradict": 14}
RESTART_EVERY_DAYS = 3
CRASH_DAYS = (10, 23)
EXPORT_AFTER_DAY = 14


def week_of(day: int) -> int:
    """Days 1-7 are week 1, ..., days 22-30 week 4."""
    return min((day - 1) // 7 + 1, 4)


@dataclass(frozen=True, slots=True)
class Topic:
    number: int
    domain: str
    subjects: tuple[str, ...]
    nouns: tuple[str, ...]
    person: str
    place: str
    start_day: int


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing said about oneself, and how a model saves it."""

    attribute: str
    key: str
    """Single-valued: the attribute; many-valued: attribute and value (each value its own fact)."""
    value: str
    kind: Literal["first", "restate", "contradict"]
    said: str
    content: str
    category: str


@dataclass(frozen=True, slots=True)
class Conversation:
    number: int
    day: int
    minute: int
    """Minutes after midnight of `day`, simulated."""
    topic: int
    chat: int
    """The plan's number for the chat it happens in (`Plan.chat_topics`)."""
    how: Literal["continue", "window", "switch", "new"]
    exchanges: tuple[tuple[str, str], ...]
    """(user, model) turns."""
    switch_words: str | None = None
    facts: tuple[tuple[int, Fact], ...] = ()
    """(exchange index, fact said in that exchange's user turn)."""
    restart_before: bool = False
    crash: bool = False

    @property
    def voice(self) -> bool:
        """Through the voice session: what the voice decides (switches, memories) or where it crashes."""
        return self.how == "switch" or bool(self.facts) or self.crash


@dataclass
class Plan:
    seed: int
    topics: list[Topic]
    chat_topics: list[int] = field(default_factory=list)
    """The topic of each chat, by the plan's chat number."""
    conversations: list[Conversation] = field(default_factory=list)


def fill(template: str, rng: random.Random, topic: Topic) -> str:
    noun, noun2 = rng.sample(topic.nouns, 2)
    line = template.format(
        subject=rng.choice(topic.subjects),
        noun=noun,
        noun2=noun2,
        person=topic.person,
        place=topic.place,
        weekday=rng.choice(WEEKDAYS),
        adjective=rng.choice(ADJECTIVES),
        number=rng.randrange(5, 400, 5),
    )
    return line[0].upper() + line[1:]


def make_topics(rng: random.Random) -> list[Topic]:
    domains = rng.sample(DOMAINS, TOPICS)
    people = rng.sample(PEOPLE, TOPICS)
    places = [rng.choice(PLACES) for _ in range(TOPICS)]
    later = sorted(rng.randint(3, 24) for _ in range(TOPICS - 6))
    starts = [1, 1, 1, 2, 2, 2, *later]
    return [
        Topic(
            number=i,
            domain=d.key,
            subjects=tuple(s.format(place=places[i], person=people[i]) for s in d.subjects),
            nouns=d.nouns,
            person=people[i],
            place=places[i],
            start_day=starts[i],
        )
        for i, d in enumerate(domains)
    ]


def conversations_per_day(rng: random.Random) -> list[int]:
    counts = [CONVERSATIONS // DAYS] * DAYS
    for day in rng.sample(range(DAYS), CONVERSATIONS - sum(counts)):
        counts[day] += 1
    return counts


def make_facts(rng: random.Random) -> list[Fact]:
    """60 statements in the order they are said: a fact is restated or contradicted only once said."""
    left = dict(MEMORY_MIX)
    current: dict[str, tuple[Attribute, str]] = {}
    facts: list[Fact] = []
    for _ in range(MEMORY_LINES):
        choices = [kind for kind, count in left.items() if count > 0]
        if not current:
            choices = ["first"]
        if not any(a.single for a, _ in current.values()):
            choices = [c for c in choices if c != "contradict"] or ["first"]
        weights = [left[c] * (2.0 if c == "first" else 1.0) for c in choices]
        kind = rng.choices(choices, weights)[0]
        if kind == "first":
            free = {
                a.key: [v for v in a.values if (a.key if a.single else f"{a.key}:{v}") not in current]
                for a in ATTRIBUTES
            }
            attribute = rng.choice([a for a in ATTRIBUTES if free[a.key] and not (a.single and a.key in current)])
            value = rng.choice(free[attribute.key])
        elif kind == "restate":
            attribute, value = current[rng.choice(sorted(current))]
        else:
            attribute, old = current[rng.choice(sorted(k for k, (a, _) in current.items() if a.single))]
            value = rng.choice([v for v in attribute.values if v != old])
        left[kind] -= 1
        key = attribute.key if attribute.single else f"{attribute.key}:{value}"
        current[key] = (attribute, value)
        said, saved = (text.format(v=value) for text in rng.choice(attribute.phrasings))
        facts.append(
            Fact(
                attribute=attribute.key,
                key=key,
                value=value,
                kind=kind,  # type: ignore[arg-type]
                said=said[0].upper() + said[1:],
                content=saved[0].upper() + saved[1:],
                category=attribute.category,
            )
        )
    return facts


def exchanges(rng: random.Random, topic: Topic, count: int, *, opening: bool = False) -> tuple[tuple[str, str], ...]:
    said = tuple(
        (fill(rng.choice(USER_LINES), rng, topic), fill(rng.choice(MODEL_LINES), rng, topic)) for _ in range(count)
    )
    if not opening:
        return said
    return ((fill(rng.choice(OPENING_LINES), rng, topic), said[0][1]), *said[1:])


def make_plan(seed: int) -> Plan:
    rng = random.Random(seed)
    topics = make_topics(rng)
    plan = Plan(seed, topics)
    chats_of: dict[int, list[int]] = {}
    current_topic = -1
    number = 0
    for day, count in enumerate(conversations_per_day(rng), start=1):
        minutes = sorted(rng.sample(range(7 * 60, 23 * 60, 5), count))
        for minute in minutes:
            due = [t for t in topics if t.start_day <= day and t.number not in chats_of]
            how: Literal["continue", "window", "switch", "new"]
            if due:
                topic, how = due[0].number, "new"
            elif current_topic >= 0 and rng.random() < 0.4:
                topic, how = current_topic, "continue"
            else:
                topic = rng.choice([t for t in chats_of if t != current_topic])
                how = "new" if rng.random() < 0.08 else "window"
            if how == "new":
                plan.chat_topics.append(topic)
                chats_of.setdefault(topic, []).append(len(plan.chat_topics) - 1)
            chat = chats_of[topic][-1]
            plan.conversations.append(
                Conversation(
                    number,
                    day,
                    minute,
                    topic,
                    chat,
                    how,
                    exchanges(rng, topics[topic], rng.randint(2, 6), opening=how == "new"),
                )
            )
            current_topic = topic
            number += 1
    return _with_events(plan, rng, make_facts(rng))


def _with_events(plan: Plan, rng: random.Random, facts: list[Fact]) -> Plan:
    """Marks the switches, restarts and crashes, and puts the facts into conversations."""
    conversations = plan.conversations
    switches: set[int] = set()
    for week in range(1, 5):
        returns = [c.number for c in conversations if c.how == "window" and week_of(c.day) == week]
        switches |= set(rng.sample(returns, min(SWITCHES_PER_WEEK, len(returns))))
    restarts = {next(c.number for c in conversations if c.day == day) for day in range(RESTART_EVERY_DAYS, DAYS + 1, 3)}
    crashes = set()
    for day in CRASH_DAYS:
        plain = [c.number for c in conversations if c.day == day and c.how == "continue" and c.number not in restarts]
        crashes.add(rng.choice(plain or [c.number for c in conversations if c.day == day][1:]))
    open_slots = sorted(
        rng.sample(
            [c.number for c in conversations if c.number not in switches | crashes and c.day > 1],
            MEMORY_LINES * 3 // 4,
        )
    )
    said_in: dict[int, list[Fact]] = {}
    for index, fact in enumerate(facts):
        said_in.setdefault(open_slots[index * len(open_slots) // len(facts)], []).append(fact)
    for c in conversations:
        placed = said_in.get(c.number, [])
        turns = list(c.exchanges)
        while len(turns) < len(placed):
            turns.append(exchanges(rng, plan.topics[c.topic], 1)[0])
        spots = sorted(rng.sample(range(len(turns)), len(placed)))
        switch_words = None
        if c.number in switches:
            switch_words = fill(rng.choice(SWITCH_LINES), rng, plan.topics[c.topic]).rstrip(".")
            switch_words = switch_words[0].lower() + switch_words[1:]
        conversations[c.number] = Conversation(
            number=c.number,
            day=c.day,
            minute=c.minute,
            topic=c.topic,
            chat=c.chat,
            how="switch" if c.number in switches else c.how,
            exchanges=tuple(turns),
            switch_words=switch_words,
            facts=tuple(zip(spots, placed, strict=True)),
            restart_before=c.number in restarts,
            crash=c.number in crashes,
        )
    return plan
