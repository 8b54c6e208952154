"""`parley wake enrol | status | forget`: teach the wake word the user's own voice in the user's own room.

"Say hey Jarvis three times": three short recordings (the microphone, or `--audio-in` files) go through
the same echo-cancelled path the sleeping assistant listens on, the wake word model scores them (and
the same recordings played backwards, the negatives), and openWakeWord's per-user verifier is trained on
what it heard (voice/wake_verifier.py). The verifier is
kept in the data folder (`wake/<model>.verifier.npz`, plain arrays, never a pickle) and the wake detector
uses it whenever it is there (`app.wake_enrolment.wake_detector`).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

import numpy as np

from app.chat_commands import UsageError
from app.settings import Settings
from app.wake_enrolment import load_verifier, verifier_path
from voice.audio import MIC_FORMAT, AudioChunk, AudioSource
from voice.echo import EchoCanceller
from voice.errors import WakeModelError
from voice.microphone import MicrophoneSource
from voice.wake import OpenWakeWordDetector
from voice.wake_verifier import enrolment_examples, train_verifier
from voice.wav import read_recording

ENROLMENT_UTTERANCES = 3
RECORD_SECONDS = 3.0
"""Each recording: time to say the wake word once, with room noise before and after it (the negatives)."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    wake = commands.add_parser("wake", help="teach the wake word your voice (enrol), or forget it")
    actions = wake.add_subparsers(dest="wake_command", metavar="ACTION", required=True)
    enrol = actions.add_parser("enrol", help='say "hey Jarvis" three times; the wake word learns your voice')
    enrol.add_argument(
        "--audio-in",
        type=Path,
        nargs=ENROLMENT_UTTERANCES,
        metavar="FILE",
        help="three recordings of the wake word to use instead of the microphone",
    )
    enrol.add_argument("--seconds", type=float, default=RECORD_SECONDS, help="length of each recording")
    enrol.set_defaults(handler=enrol_command)
    status = actions.add_parser("status", help="whether the wake word knows your voice")
    status.set_defaults(handler=status_command)
    forget = actions.add_parser("forget", help="delete the enrolment: the wake word hears everyone alike")
    forget.set_defaults(handler=forget_command)


def enrol_command(settings: Settings, args: argparse.Namespace) -> int:
    if args.seconds < 1.5:
        raise UsageError("--seconds must be at least 1.5: the wake word and a little room noise around it")
    return asyncio.run(_enrol(settings, args.audio_in, args.seconds))


def status_command(settings: Settings, args: argparse.Namespace) -> int:
    path = verifier_path(settings)
    if not path.is_file():
        print(f"not enrolled: {settings.wake_word} wakes for anyone (parley wake enrol to teach it your voice)")
        return 0
    load_verifier(settings)  # a damaged file is an error here, not at the next start
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    print(f"enrolled on {stamp}: {settings.wake_word} listens for your voice ({path})")
    return 0


def forget_command(settings: Settings, args: argparse.Namespace) -> int:
    path = verifier_path(settings)
    path.unlink(missing_ok=True)
    print(f"forgotten: {settings.wake_word} wakes for anyone again")
    return 0


async def _enrol(settings: Settings, files: list[Path] | None, seconds: float) -> int:
    if files is not None:
        recordings = [await asyncio.to_thread(read_recording, path) for path in files]
    else:
        recordings = []
        for index in range(ENROLMENT_UTTERANCES):
            print(f'{index + 1}/{ENROLMENT_UTTERANCES}: say "{_spoken(settings.wake_word)}" now...', flush=True)
            recordings.append(await _record(MicrophoneSource(device=settings.input_device), seconds))
    async with OpenWakeWordDetector(settings.wake_word) as detector:
        runs, backwards = [], []
        for index, recording in enumerate(recordings, start=1):
            heard = as_heard(recording)
            try:
                found = await detector.enrolment_windows(heard)
                enrolment_examples(found)  # each recording on its own: which one failed
            except ValueError as error:
                raise WakeModelError(f"recording {index}: {error}; enrol again, closer or louder") from None
            runs += found
            backwards += await detector.enrolment_windows(_reversed(heard))
        positives, negatives = enrolment_examples(runs, backwards)
        verifier = await asyncio.to_thread(train_verifier, detector.model_name, positives, negatives)
    path = verifier_path(settings)
    await asyncio.to_thread(verifier.save, path)
    print(f"enrolled: {detector.model_name} now listens for your voice ({len(recordings)} recordings, {path})")
    return 0


def as_heard(recording: bytes) -> bytes:
    """`recording` (16 kHz PCM16) as the sleeping assistant hears the microphone: through the echo
    canceller (WebRTC's high-pass filter shapes what the wake word model hears, even with nothing playing)."""
    canceller = EchoCanceller()
    size = MIC_FORMAT.bytes_per_second * 80 // 1000
    return b"".join(
        canceller.cleaned(AudioChunk(MIC_FORMAT, recording[at : at + size], 0.0)).pcm
        for at in range(0, len(recording) - len(recording) % MIC_FORMAT.width, size)
    )


async def _record(source: AudioSource, seconds: float) -> bytes:
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


def _reversed(pcm: bytes) -> bytes:
    """The recording played backwards: the user's voice and room, not the wake word (the verifier's
    negatives: see `enrolment_examples`)."""
    return np.frombuffer(pcm, dtype="<i2")[::-1].tobytes()


def _spoken(wake_word: str) -> str:
    return Path(wake_word).stem.replace("_", " ")
