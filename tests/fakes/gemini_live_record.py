"""What the fake Gemini Live server records of one connection: every frame its client sent (`RecordedConnection`,
read by the tests' assertions) and each `Speak` answer as it was generated (`GeneratedReply`). Frames are read
as the service reads them, in snake_case or lowerCamelCase (`pick`)."""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.gemini_live_scenario import Speak


@dataclass
class GeneratedReply:
    """One `Speak` as the server generated it; times are the event loop's clock (seconds)."""

    speak: Speak
    started_at: float
    """When its first chunk began to be generated."""
    ended_at: float | None = None
    """When generation ended: after the last chunk, or at the interruption; None while generating."""
    interrupted: bool = False
    sent_pcm: int = 0
    """Bytes of its audio sent before it ended."""
    sent_transcript: str = ""

    @property
    def generating(self) -> bool:
        return self.ended_at is None

    @property
    def sent_ms(self) -> float:
        """Milliseconds of its audio sent."""
        return self.sent_pcm / (2 * self.speak.rate) * 1000


def pick(mapping: Mapping[str, Any], snake: str) -> Any:
    """`mapping[snake]` or its lowerCamelCase twin: the SDK mixes both inside frames, the service takes both."""
    head, *rest = snake.split("_")
    camel = head + "".join(word.title() for word in rest)
    return mapping.get(snake, mapping.get(camel))


@dataclass
class RecordedConnection:
    """Everything one connection's client sent, in order."""

    path: str
    api_version: str
    """"v1", "v1beta", ...: from the path."""
    api_key: str | None
    setup: dict[str, Any] = field(default_factory=dict)
    """The `setup` frame's content, as sent."""
    frames: list[dict[str, Any]] = field(default_factory=list)
    """Every frame after `setup`, as sent."""
    history: list[dict[str, Any]] = field(default_factory=list)
    """The contents seeded with `client_content` during the history phase."""
    history_complete: bool = False
    audio: bytearray = field(default_factory=bytearray)
    """All realtime audio, base64-decoded."""
    audio_mime_types: list[str] = field(default_factory=list)
    video: list[bytes] = field(default_factory=list)
    """Every realtime video frame (a picture: the screen), base64-decoded, in order."""
    video_mime_types: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    """Every typed user turn after the history, as `client_content` or realtime text, in order."""
    tool_responses: list[dict[str, Any]] = field(default_factory=list)
    """Every `functionResponse`, in order."""
    received_at: list[float] = field(default_factory=list)
    """When each of `frames` arrived (the event loop's clock, seconds)."""
    replies: list[GeneratedReply] = field(default_factory=list)
    """Every `Speak` the server generated on this connection, in order."""
    speech_heard_at: list[float] = field(default_factory=list)
    """When the server's voice activity detection heard the user start speaking, generating or not."""
    speech_ended_at: list[float] = field(default_factory=list)
    """When it heard the user stop speaking."""
    sent: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    """Every frame the server sent after `setupComplete`, with when (the event loop's clock, seconds)."""
    opened_at: float = 0.0
    """When the WebSocket was accepted (the event loop's clock, seconds): the connection limit counts from it."""
    closed_at: float | None = None
    closed: bool = False
    close_code: int | None = None
    """The close code the server closed with (None: the client closed, or the connection dropped)."""

    @property
    def frame_kinds(self) -> list[str]:
        """The outer key of each frame after setup: "client_content", "realtime_input", "tool_response"."""
        return [next(iter(frame)) for frame in self.frames]

    def index_of(self, kind: str, inner: str) -> list[int]:
        """The positions in `frames` of the frames of `kind` ("realtime_input") that carry `inner` ("video")."""
        return [i for i, frame in enumerate(self.frames) if pick(frame.get(kind) or {}, inner) is not None]

    @property
    def model(self) -> str:
        return str(self.setup.get("model", ""))

    @property
    def sent_kinds(self) -> list[str]:
        """What each sent frame was: its outer key, or for `serverContent` its first inner key
        ("modelTurn", "outputTranscription", "generationComplete", "turnComplete", "interrupted", ...)."""
        kinds = []
        for _, frame in self.sent:
            kind = next(iter(frame))
            kinds.append(next(iter(frame[kind]), kind) if kind == "serverContent" else kind)
        return kinds

    def sent_at(self, kind: str) -> list[float]:
        """When each frame of `kind` (as in `sent_kinds`) was sent."""
        return [at for (at, _), sent in zip(self.sent, self.sent_kinds, strict=True) if sent == kind]

    @property
    def takes_client_content_turns(self) -> bool:
        """Whether the model takes `client_content` turns after the history. Gemini 2.x live models do, and
        3.8 Live takes `client_content` "throughout the session" again (its migration notes); 3.1 Flash Live
        takes it only to seed the history, with `historyConfig.initialHistoryInClientContent` set, and so does
        this fake for other 3.x and unversioned names."""
        match = re.search(r"gemini-(?:live-)?(\d+)(?:\.(\d+))?", self.model)
        if match is None:
            return False
        version = (int(match[1]), int(match[2] or 0))
        return version < (3, 0) or version >= (3, 8)

    @property
    def system_text(self) -> str:
        instruction = pick(self.setup, "system_instruction") or {}
        return "".join(part.get("text", "") for part in instruction.get("parts", []))

    @property
    def generation_config(self) -> Mapping[str, Any]:
        config: Mapping[str, Any] = pick(self.setup, "generation_config") or {}
        return config

    @property
    def function_declarations(self) -> list[dict[str, Any]]:
        return [decl for tool in self.setup.get("tools", []) for decl in pick(tool, "function_declarations") or []]

    @property
    def searches_google(self) -> bool:
        """The setup declares the built-in Google Search tool."""
        return any(pick(tool, "google_search") is not None for tool in self.setup.get("tools", []))

    @property
    def session_resumption(self) -> Mapping[str, Any] | None:
        resumption: Mapping[str, Any] | None = pick(self.setup, "session_resumption")
        return resumption

    @property
    def history_in_client_content(self) -> bool:
        return bool(pick(pick(self.setup, "history_config") or {}, "initial_history_in_client_content"))


def decode_audio(data: str) -> bytes:
    """Realtime audio is URL-safe base64; the decoder also takes the standard alphabet."""
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
