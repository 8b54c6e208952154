"""The user's wake word enrolment: recording it, training the verifier, where it lives, and the detector
that uses it.

"Say hey Jarvis three times": three short recordings go through the same echo-cancelled path the
sleeping assistant listens on, the wake word model scores them (and the same recordings played
backwards, the negatives), and openWakeWord's per-user verifier is trained on what it heard
(voice/wake/verifier.py). `parley wake enrol` (app/cli/wake_command.py) and the Settings dialog's "Enrol my
voice" both call `enrol`; whatever starts the sleeping assistant builds its detector with
`wake_detector(settings)`, so the enrolment counts wherever Parley listens: at its next wake check when it
listens already (the detector follows the file, voice/wake/verifier_file.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.config.settings import Settings
from voice.audio.chunks import MIC_FORMAT, AudioChunk, AudioSource
from voice.errors import VoiceError, WakeModelError
from voice.wake.detector import OpenWakeWordDetector, resolve_model
from voice.wake.verifier import Run, WakeVerifier, enrolment_examples, train_verifier
from voice.wake.verifier_file import VerifierFile

ENROLMENT_UTTERANCES = 3
ENOUGH_HEARD = 2
"""Recordings in which the wake word must be heard: one missed (said too softly, or too late) is left out,
as a person who said it well twice would expect; the guide's far-field figures fell from 1 in 7 missed to
1 in 4 when one bad recording refused the whole enrolment (bench/results/wake_rooms_quick_guide.json)."""
RECORD_SECONDS = 3.0
"""Each recording: time to say the wake word once, with room noise before and after it (the negatives)."""


def verifier_path(settings: Settings) -> Path:
    """Where the verifier for `settings.wake_word` lives: only Parley writes there."""
    return settings.data_dir / "wake" / f"{resolve_model(settings.wake_word).name}.verifier.npz"


def load_verifier(settings: Settings) -> WakeVerifier | None:
    """The enrolled verifier for the configured wake word, or None when there is none. `WakeModelError`
    when the file is damaged (enrol again, or `parley wake forget`)."""
    path = verifier_path(settings)
    return WakeVerifier.load(path) if path.is_file() else None


def wake_detector(settings: Settings) -> OpenWakeWordDetector:
    """The wake word detector as the settings and the data folder describe it: the enrolled verifier
    included when there is one, and the one enrolled (or forgotten) later from its next wake check on.
    `WakeModelError` when the file is damaged."""
    verifier = VerifierFile(verifier_path(settings), resolve_model(settings.wake_word).name)
    return OpenWakeWordDetector(settings.wake_word, threshold=settings.wake_threshold, verifier=verifier)


def spoken(wake_word: str) -> str:
    """The wake word as the user says it ("hey jarvis" for hey_jarvis or a hey_jarvis.onnx path)."""
    return Path(wake_word).stem.replace("_", " ")


async def record(source: AudioSource, seconds: float = RECORD_SECONDS) -> bytes:
    """`seconds` of `source` (16 kHz PCM16), then the source is closed."""
    wanted = round(seconds * MIC_FORMAT.bytes_per_second)
    heard = bytearray()
    try:
        async for chunk in source.chunks():
            heard += chunk.pcm
            if len(heard) >= wanted:
                break
    finally:
        await source.aclose()
    return bytes(heard[:wanted])


@dataclass(frozen=True, slots=True)
class Enrolled:
    path: Path
    """Where the verifier is stored."""
    used: int
    """Recordings it was trained on."""
    left_out: tuple[str, ...] = ()
    """Why each other recording was left out ("recording 2: no wake word heard (best score 0.12)")."""

    def summary(self) -> str:
        """ "3 recordings", or "2 of 3 recordings; left out: recording 2: …"."""
        if not self.left_out:
            return f"{self.used} recordings"
        return f"{self.used} of {self.used + len(self.left_out)} recordings; left out: {'; '.join(self.left_out)}"


async def record_enrolment(
    open_source: Callable[[], AudioSource], wake_word: str, say: Callable[[str], None], seconds: float = RECORD_SECONDS
) -> list[bytes]:
    """The enrolment's recordings, each from a source `open_source` opens for it, after `say` prompted it."""
    recordings = []
    for index in range(ENROLMENT_UTTERANCES):
        say(f'{index + 1}/{ENROLMENT_UTTERANCES}: say "{spoken(wake_word)}" now…')
        recordings.append(await record(open_source(), seconds))
    return recordings


async def enrol_by_voice(open_source: Callable[[], AudioSource], settings: Settings, say: Callable[[str], None]) -> str:
    """The whole enrolment from a microphone, prompts through `say`; its last line: done, or why not."""
    try:
        recordings = await record_enrolment(open_source, settings.wake_word, say)
        say("Learning your voice…")
        enrolled = await enrol(settings, recordings)
    except VoiceError as error:
        return f"Not enrolled: {error}"
    done = "Enrolled: the wake word listens for your voice now."
    return done if not enrolled.left_out else f"{done} ({enrolled.summary()})"


async def enrol(settings: Settings, recordings: list[bytes]) -> Enrolled:
    """Train the verifier for `settings.wake_word` on `recordings` (16 kHz PCM16, the wake word said once
    in each) and store it. A recording in which no wake word was heard is left out while `ENOUGH_HEARD`
    others remain; else `WakeModelError` naming the first such recording (nothing is stored then)."""
    async with OpenWakeWordDetector(settings.wake_word) as detector:
        runs, backwards, left_out = [], [], []
        for index, recording in enumerate(recordings, start=1):
            try:
                found, reversed_ = await enrolment_runs(detector, recording)
            except ValueError as error:
                left_out.append(f"recording {index}: {error}")
                continue
            runs += found
            backwards += reversed_
        if len(recordings) - len(left_out) < min(ENOUGH_HEARD, len(recordings)):
            raise WakeModelError(f"{left_out[0]}; enrol again, closer or louder")
        verifier = await asyncio.to_thread(train_verifier, detector.model_name, *enrolment_examples(runs, backwards))
    path = verifier_path(settings)
    await asyncio.to_thread(verifier.save, path)
    return Enrolled(path, len(recordings) - len(left_out), tuple(left_out))


async def enrolment_runs(detector: OpenWakeWordDetector, recording: bytes) -> tuple[list[Run], list[Run]]:
    """One recording's runs (`OpenWakeWordDetector.enrolment_windows`) as heard through the echo canceller,
    and the same played backwards (the negatives: see `enrolment_examples`). `ValueError` when the model
    hears no wake word in it."""
    heard = as_heard(recording)
    found = await detector.enrolment_windows(heard)
    enrolment_examples(found)  # each recording on its own: which one failed
    return found, await detector.enrolment_windows(_reversed(heard))


def as_heard(recording: bytes) -> bytes:
    """`recording` (16 kHz PCM16) as the sleeping assistant hears the microphone: through the echo
    canceller (WebRTC's high-pass filter shapes what the wake word model hears, even with nothing playing)."""
    from voice.echo.canceller import EchoCanceller  # livekit's (0.1-0.2 s): not with the module, which `ask` imports

    canceller = EchoCanceller()
    size = MIC_FORMAT.bytes_per_second * 80 // 1000
    return b"".join(
        canceller.cleaned(AudioChunk(MIC_FORMAT, recording[at : at + size], 0.0)).pcm
        for at in range(0, len(recording) - len(recording) % MIC_FORMAT.width, size)
    )


def _reversed(pcm: bytes) -> bytes:
    return np.frombuffer(pcm, dtype="<i2")[::-1].tobytes()
