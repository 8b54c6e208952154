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


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    sessions: frozenset[int]
    """Sessions holding the question's evidence."""


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]


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
            )
        )
    questions = []
    qa = sample["qa"]
    assert isinstance(qa, list)
    for item in qa:
        evidence = {int(m.group(1)) for e in item["evidence"] if (m := re.match(r"D(\d+):", e))}
        if item["category"] != ADVERSARIAL and evidence:
            questions.append(Question(item["question"], frozenset(evidence)))
    return Conversation(str(sample["sample_id"]), tuple(sorted(sessions, key=lambda s: s.number)), tuple(questions))
