"""LoCoMo (../shared/data/locomo10.json) read as Parley chats: one user per conversation, one chat per
session, the session's summary as the chat's summary. Measuring only: the data is CC BY-NC 4.0."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from chats.models import Turn

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10.json"
ADVERSARIAL = 5


@dataclass(frozen=True, slots=True)
class Session:
    number: int
    at: datetime
    turns: tuple[Turn, ...]
    summary: str
    speakers: tuple[str, ...] = ()
    """Who said each turn, by name as the data has it; turn i is dialogue id "D{number}:{i + 1}"."""


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    sessions: frozenset[int]
    """Sessions holding the question's evidence."""
    evidence: frozenset[str] = frozenset()
    """The dialogue turns holding the evidence, as LoCoMo names them ("D3:11": session 3, turn 11)."""


@dataclass(frozen=True, slots=True)
class Observation:
    """A fact LoCoMo's authors drew from one session ("Caroline attended an LGBTQ support group")."""

    text: str
    session: int
    speaker: str
    sources: frozenset[str]
    """The dialogue turns it was drawn from ("D1:3")."""


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    observations: tuple[Observation, ...] = ()


_DIALOGUE_ID = re.compile(r"D(\d+):(\d+)")


def dialogue_ids(value: object) -> frozenset[str]:
    """Turn ids from LoCoMo's evidence fields, which hold one id, a list, or a few run together
    ("D8:6; D9:17")."""
    texts = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return frozenset(f"D{s}:{t}" for text in texts if isinstance(text, str) for s, t in _DIALOGUE_ID.findall(text))


def load(path: Path = DEFAULT_PATH) -> list[Conversation]:
    return [_conversation(sample) for sample in json.loads(path.read_text(encoding="utf-8"))]


def _conversation(sample: dict[str, object]) -> Conversation:
    conversation = sample["conversation"]
    summaries = sample["session_summary"]
    assert isinstance(conversation, dict) and isinstance(summaries, dict)
    first_speaker = conversation["speaker_a"]
    sessions = []
    for key, turns in conversation.items():
        match = re.fullmatch(r"session_(\d+)", key)
        summary = summaries.get(f"{key}_summary")
        if not match or summary is None:
            continue
        at = datetime.strptime(conversation[f"{key}_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
        sessions.append(
            Session(
                number=int(match.group(1)),
                at=at,
                turns=tuple(
                    Turn(role="user" if t["speaker"] == first_speaker else "model", text=t["text"]) for t in turns
                ),
                summary=summary,
                speakers=tuple(str(t["speaker"]) for t in turns),
            )
        )
    questions = []
    qa = sample["qa"]
    assert isinstance(qa, list)
    for item in qa:
        evidence = {int(m.group(1)) for e in item["evidence"] if (m := re.match(r"D(\d+):", e))}
        if item["category"] != ADVERSARIAL and evidence:
            questions.append(Question(item["question"], frozenset(evidence), dialogue_ids(item["evidence"])))
    return Conversation(
        str(sample["sample_id"]),
        tuple(sorted(sessions, key=lambda s: s.number)),
        tuple(questions),
        _observations(sample.get("observation")),
    )


def _observations(observations: object) -> tuple[Observation, ...]:
    found = []
    if isinstance(observations, dict):
        for key, by_speaker in observations.items():
            match = re.fullmatch(r"session_(\d+)_observation", key)
            if not match or not isinstance(by_speaker, dict):
                continue
            for speaker, facts in by_speaker.items():
                for text, sources in facts:
                    found.append(Observation(text, int(match.group(1)), speaker, dialogue_ids(sources)))
    return tuple(sorted(found, key=lambda o: o.session))
