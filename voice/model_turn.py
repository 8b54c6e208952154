"""What the model has said in a turn, and how much of it the user heard: the session's record of a model
turn while its voice plays, so that a turn spoken over is kept as far as it was played; and where the turn
stands (`ModelTurnState`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from voice.live.connection import WebSource


@dataclass(frozen=True, slots=True)
class SaidFragment:
    """A fragment of the model's transcript and where it stands in the voice written to the speaker."""

    text: str
    at_ms: float
    """Model voice written to the speaker in this session before the fragment arrived (milliseconds):
    the fragment counts as heard once playback has passed this point. The offline voice sends a
    sentence's text just before its audio, so this is where it starts; Gemini sends the transcript with
    or after the audio it transcribes, so a fragment whose audio was only partly played is left out."""


@dataclass(slots=True)
class ModelTurn:
    """What the model has said in its turn so far."""

    said: list[SaidFragment] = field(default_factory=list)
    voiced: bool = False
    """Voice came with it (a transcript-only turn has nothing to cut where playback stopped)."""
    typed_after: list[str] = field(default_factory=list)
    """Messages typed while the model spoke: they follow its turn in the chat."""
    sources: dict[str, WebSource] = field(default_factory=dict)
    """The web pages the turn draws on, by address, in the order they came."""
    searches: dict[str, None] = field(default_factory=dict)
    """What the model searched the web for, in order (a dict: each once)."""

    def grounded_on(self, sources: tuple[WebSource, ...], queries: tuple[str, ...]) -> None:
        """The service named pages the answer draws on and what it searched for (it may name them again, or
        more, later in the turn)."""
        for source in sources:
            self.sources.setdefault(source.uri, source)
        self.searches.update(dict.fromkeys(queries))

    def said_at(self, text: str, voice_ms: float) -> None:
        """A transcript fragment arrived when `voice_ms` of the session's voice had been written."""
        self.said.append(SaidFragment(text, voice_ms))

    def text(self, *, heard_until_ms: float | None = None) -> str:
        """The turn's words; with `heard_until_ms`, only those whose voice had begun playing by then (a turn
        without voice is kept whole: there is nothing to cut it by)."""
        said = self.said
        if heard_until_ms is not None and self.voiced:
            said = [fragment for fragment in said if fragment.at_ms < heard_until_ms]
        return "".join(fragment.text for fragment in said).strip()


class ModelTurnState(Enum):
    """Where the model's turn stands, as the service's messages (and the user speaking over it) move it."""

    WAITING = "waiting"
    """No model turn under way: the user's turn, or the last answer playing out."""
    ANSWERING = "answering"
    """The model speaks or calls a tool: its turn is under way. What the user says meanwhile is their next turn."""
    SPOKEN_OVER = "spoken over"
    """The user spoke over a turn the model still generates: it was cut where they did, and the rest of it is
    dropped until the service says `Interrupted` or `TurnComplete`."""
    CUT = "cut"
    """The service said `Interrupted` and nothing of a new model turn has come since: its next `TurnComplete`
    closes the cut turn, not the user's next one."""
