"""The data that drives the fake Gemini Live server, and what it records.

A `ConnectionScript` is what one connection does: a list of `Step`s, each fired by a `Trigger` (at once,
after so much microphone audio, after a typed text turn, after a tool response) and sending its `Action`s
in order, one server frame each. Frames are built with the SDK's own `LiveServerMessage`, serialised
camelCase as the service does. What the client sends back is recorded by `gemini_live_record`.

Two kinds of model answer:

- `Audio`, `OutputTranscript`, `CompleteTurn`, ...: sent at once, one frame each (the lab's timing: the
  answer is on the client before a microphone chunk could follow it).
- `Speak`: an answer generated as the service generates it, in time. The server streams its audio in
  chunks, faster than real time (the server's `speed`, 4x by default), each chunk followed by its share of
  the transcript, then `generationComplete` and `turnComplete` while the client's playback goes on. It can
  be interrupted only while it is being generated: see `FakeGeminiLiveServer`. `RecordedConnection.replies`
  tells when each one was generated, on the event loop's clock.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from google.genai import types

# -- triggers --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AtOnce:
    """Fire as soon as the step is reached (after setup and history seeding, or after the previous step)."""


@dataclass(frozen=True, slots=True)
class AfterAudio:
    """Fire once the client has streamed `min_bytes` of microphone audio since the previous step."""

    min_bytes: int = 1


@dataclass(frozen=True, slots=True)
class AfterSpeech:
    """Fire once the server's voice activity detection has heard `count` utterances end since the previous
    step (speech, then a pause): when the service would answer a spoken question."""

    count: int = 1


@dataclass(frozen=True, slots=True)
class AfterText:
    """Fire once the client has sent `count` typed user turns since the previous step: a `client_content`
    turn with `turn_complete` after the history (Gemini 2.x), or realtime text (any model)."""

    count: int = 1


@dataclass(frozen=True, slots=True)
class AfterToolResponse:
    """Fire once a tool response arrived since the previous step (for `call_id`, if given)."""

    call_id: str | None = None


Trigger = AtOnce | AfterAudio | AfterSpeech | AfterText | AfterToolResponse


# -- actions ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InputTranscript:
    """A fragment of the transcription of the user's speech."""

    text: str
    finished: bool = False


@dataclass(frozen=True, slots=True)
class OutputTranscript:
    """A fragment of the transcription of the model's speech."""

    text: str
    finished: bool = False


@dataclass(frozen=True, slots=True)
class Audio:
    """A chunk of model voice."""

    pcm: bytes
    rate: int = 24_000
    """Hertz, declared in the blob's mime type."""


@dataclass(frozen=True, slots=True)
class Speak:
    """A model answer generated in time: `pcm` streamed in chunks of `chunk_ms`, at the server's `speed`
    times real time, each chunk followed by its share of `transcript` (split at word boundaries in
    proportion to the audio); then `generationComplete` and `turnComplete`. While it is generated, speech
    from the user (the server's voice activity detection) or a typed turn interrupts it: `interrupted`, then
    `turnComplete`, and nothing more of it is sent, nor the actions after it in its step. A later step
    fires only once the answer's generation has ended."""

    pcm: bytes
    transcript: str = ""
    rate: int = 24_000
    """Hertz, declared in each blob's mime type."""
    chunk_ms: int = 40
    """Audio per `modelTurn` frame (milliseconds)."""

    @property
    def duration_s(self) -> float:
        """How long the answer plays (mono 16-bit PCM), in seconds."""
        return len(self.pcm) / (2 * self.rate)


@dataclass(frozen=True, slots=True)
class Call:
    id: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CallTools:
    """One `toolCall` frame asking for these calls."""

    calls: tuple[Call, ...]


@dataclass(frozen=True, slots=True)
class CancelToolCalls:
    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SearchedWeb:
    """`serverContent.groundingMetadata`: the answer draws on these pages (`(title, uri)`), found by
    searching `queries`; each page supports the answer's first `supported` characters."""

    pages: tuple[tuple[str, str], ...]
    queries: tuple[str, ...] = ()
    supported: str = ""


@dataclass(frozen=True, slots=True)
class Interrupt:
    """`serverContent.interrupted`: the user spoke over the model."""


@dataclass(frozen=True, slots=True)
class CompleteTurn:
    """`serverContent.turnComplete`."""


@dataclass(frozen=True, slots=True)
class CompleteGeneration:
    """`serverContent.generationComplete`: the model has generated its whole answer. The service sends it
    before `turnComplete`; never in an interrupted turn (interrupted, then turnComplete: the SDK's
    `LiveServerContent.generation_complete` docstring)."""


@dataclass(frozen=True, slots=True)
class GoAwaySoon:
    time_left: str = "50s"
    """A protobuf JSON duration, as the service sends it."""


@dataclass(frozen=True, slots=True)
class NewHandle:
    """A `sessionResumptionUpdate`; the server remembers the handle as resumable on later connections."""

    handle: str
    resumable: bool = True


@dataclass(frozen=True, slots=True)
class Close:
    """Close the WebSocket with this code and reason (the service's clean close)."""

    code: int = 1000
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Drop:
    """Abort the TCP connection without a close frame (a network drop): the client sees 1006."""


Action = (
    InputTranscript
    | OutputTranscript
    | Audio
    | Speak
    | CallTools
    | CancelToolCalls
    | SearchedWeb
    | Interrupt
    | CompleteTurn
    | CompleteGeneration
    | GoAwaySoon
    | NewHandle
    | Close
    | Drop
)


@dataclass(frozen=True, slots=True)
class Step:
    when: Trigger
    then: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class ConnectionScript:
    """What one accepted connection does, step by step; after the last step it only records."""

    steps: tuple[Step, ...] = ()


def script(*steps: tuple[Trigger, tuple[Action, ...]]) -> ConnectionScript:
    """`script((AfterAudio(3200), (OutputTranscript("Hi"), CompleteTurn())), ...)`."""
    return ConnectionScript(tuple(Step(when, then) for when, then in steps))


def server_frame(action: Action) -> dict[str, Any] | None:
    """The JSON frame the service would send for `action`; None for the transport actions and `Speak`
    (many frames over time: `speak_frames`)."""
    message: types.LiveServerMessage
    match action:
        case InputTranscript(text, finished):
            transcription = types.Transcription(text=text, finished=finished or None)
            message = types.LiveServerMessage(server_content=types.LiveServerContent(input_transcription=transcription))
        case OutputTranscript(text, finished):
            transcription = types.Transcription(text=text, finished=finished or None)
            message = types.LiveServerMessage(
                server_content=types.LiveServerContent(output_transcription=transcription)
            )
        case Audio(pcm, rate):
            blob = types.Blob(data=pcm, mime_type=f"audio/pcm;rate={rate}")
            turn = types.Content(role="model", parts=[types.Part(inline_data=blob)])
            message = types.LiveServerMessage(server_content=types.LiveServerContent(model_turn=turn))
        case CallTools(calls):
            function_calls = [types.FunctionCall(id=call.id, name=call.name, args=dict(call.args)) for call in calls]
            message = types.LiveServerMessage(tool_call=types.LiveServerToolCall(function_calls=function_calls))
        case CancelToolCalls(ids):
            cancellation = types.LiveServerToolCallCancellation(ids=list(ids))
            message = types.LiveServerMessage(tool_call_cancellation=cancellation)
        case SearchedWeb(pages, queries, supported):
            chunks = [types.GroundingChunk(web=types.GroundingChunkWeb(uri=uri, title=title)) for title, uri in pages]
            support = types.GroundingSupport(
                segment=types.Segment(start_index=0, end_index=len(supported), text=supported),
                grounding_chunk_indices=list(range(len(pages))),
            )
            grounding = types.GroundingMetadata(
                grounding_chunks=chunks, grounding_supports=[support], web_search_queries=list(queries)
            )
            message = types.LiveServerMessage(server_content=types.LiveServerContent(grounding_metadata=grounding))
        case Interrupt():
            message = types.LiveServerMessage(server_content=types.LiveServerContent(interrupted=True))
        case CompleteTurn():
            message = types.LiveServerMessage(server_content=types.LiveServerContent(turn_complete=True))
        case CompleteGeneration():
            message = types.LiveServerMessage(server_content=types.LiveServerContent(generation_complete=True))
        case GoAwaySoon(time_left):
            message = types.LiveServerMessage(go_away=types.LiveServerGoAway(time_left=time_left))
        case NewHandle(handle, resumable):
            update = types.LiveServerSessionResumptionUpdate(
                new_handle=handle if resumable else "", resumable=resumable
            )
            message = types.LiveServerMessage(session_resumption_update=update)
        case Close() | Drop() | Speak():
            return None
    frame: dict[str, Any] = message.model_dump(mode="json", by_alias=True, exclude_none=True)
    return frame


_WORD = re.compile(r"\S+\s*|\s+")


def speak_chunks(speak: Speak) -> list[tuple[Audio, str]]:
    """`speak` cut as the server streams it: each audio chunk with the transcript fragment it carries.

    The fragments split the transcript at word boundaries in proportion to the audio (a word belongs to
    the chunk its share of the audio ends in), so that `"".join(fragments) == speak.transcript`; some
    fragments are empty."""
    step = max(2, speak.rate * speak.chunk_ms // 1000 * 2)
    pieces = [speak.pcm[start : start + step] for start in range(0, len(speak.pcm), step)] or [b""]
    words = _WORD.findall(speak.transcript)
    chunks: list[tuple[Audio, str]] = []
    taken = 0
    for index, piece in enumerate(pieces):
        upto = len(words) * (index + 1) // len(pieces)
        chunks.append((Audio(piece, speak.rate), "".join(words[taken:upto])))
        taken = upto
    return chunks
