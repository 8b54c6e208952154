"""What Gemini Live's wire says, without the SDK: which way typed text goes to a model, durations,
audio formats, and what a refused opening means. `voice.live.gemini` applies them to the SDK's types."""

from __future__ import annotations

import math
import re
from typing import Literal

from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioFormat
from voice.errors import LiveConnectionError
from voice.live.connection import LiveConnectionRefused

_REFUSAL_CODES = frozenset({1007, 1008})
"""Close codes the service uses for "no": invalid argument (a bad key or handle) and policy violation."""
_KEY_WORDS = ("api key", "api_key", "unregistered callers", "authentication")
_UNKNOWN_MODEL_WORDS = ("is not found for api version", "not supported for bidigeneratecontent")
"""How the service says it does not know a model, or that the model does not do Live: it closes with 1008
"models/X is not found for API version v1beta, or is not supported for bidiGenerateContent. Call ListMod"
(the reason cut to 123 bytes; as logged in livekit/agents#4414, google/adk-python#3964)."""
_RATE = re.compile(r"rate=(\d+)")
_GENERATION = re.compile(r"gemini-(?:live-)?(\d+)(?:\.\d+)?-")

TextRoute = Literal["client_content", "realtime_input"]


def text_route(model: str) -> TextRoute:
    """How typed text reaches `model` as a user turn that it answers.

    "client_content" (a `Content` turn, `turn_complete=True`) for Gemini 2.x live models: the native audio
    2.5 models answer that, and it keeps the turn in the context in order. "realtime_input" (text as
    realtime input) for Gemini 3.x and later, which take `client_content` only to seed the history (the
    service closes the connection otherwise), and for names without a version: new models follow the
    newer protocol."""
    match = _GENERATION.search(model)
    if match is not None and int(match[1]) < 3:
        return "client_content"
    return "realtime_input"


def parse_duration_ms(text: str | None) -> int | None:
    """A protobuf JSON duration ("50s", "0.250s") in whole milliseconds; None if absent or unreadable."""
    if not text or not text.endswith("s"):
        return None
    try:
        seconds = float(text[:-1])
    except ValueError:
        return None
    return round(seconds * 1000) if math.isfinite(seconds) and seconds >= 0 else None


def audio_format_of(mime_type: str | None) -> AudioFormat:
    """The PCM format a `audio/pcm;rate=N` blob declares; native audio models speak 24 kHz mono."""
    match = _RATE.search(mime_type or "")
    if match is None or int(match[1]) == MODEL_VOICE_FORMAT.rate:
        return MODEL_VOICE_FORMAT
    return AudioFormat(rate=int(match[1]), channels=1)


def unknown_model(model: str) -> str:
    """What to tell a user whose configured Live model the service does not know, in one line."""
    name = " ".join(model.removeprefix("models/").split())[:80]
    return (
        f"Gemini Live does not know the model '{name}': set gemini_live_model to a current Live model (parley config)"
    )


def refusal(code: int | None, reason: str, api_key: str, model: str = "") -> LiveConnectionError:
    """The domain error for a close (or HTTP status) while opening `model`: one line, never the key."""
    if api_key:
        reason = reason.replace(api_key, "***")  # before cutting, so no part of the key survives
    reason = " ".join(reason.split())[:160]
    detail = f"{code}: {reason}" if reason else f"{code}"
    if any(words in reason.lower() for words in _UNKNOWN_MODEL_WORDS):
        return LiveConnectionRefused(unknown_model(model or reason.split(" ", 1)[0]), code=code)
    if any(word in reason.lower() for word in _KEY_WORDS) or code in (401, 403):
        return LiveConnectionRefused(f"Gemini Live refused the API key ({detail})", code=code)
    if code in _REFUSAL_CODES or (code is not None and 400 <= code < 500):
        return LiveConnectionRefused(f"Gemini Live refused the session ({detail})", code=code)
    return LiveConnectionError(f"Gemini Live closed the connection while opening it ({detail})")
