"""`parley wake enrol | status | forget`: teach the wake word the user's own voice in the user's own room.

"Say hey Jarvis three times" into the microphone, or give three `--audio-in` recordings; the enrolment
itself (app/wake_enrolment.py) is the one the Settings dialog runs. The verifier is kept in the data
folder (`wake/<model>.verifier.npz`, plain arrays, never a pickle) and the wake detector uses it whenever
it is there (`app.wake_enrolment.wake_detector`).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from functools import partial
from pathlib import Path

from app.cli.command_runner import UsageError
from app.config.settings import Settings

# The enrolment (the wake word model, the echo canceller, numpy) is imported when an action runs, not when
# `parley` reads its options: every other command would pay for it.


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    wake = commands.add_parser("wake", help="teach the wake word your voice (enrol), or forget it")
    actions = wake.add_subparsers(dest="wake_command", metavar="ACTION", required=True)
    enrolling = actions.add_parser("enrol", help='say "hey Jarvis" three times; the wake word learns your voice')
    enrolling.add_argument(
        "--audio-in",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="three recordings of the wake word to use instead of the microphone",
    )
    enrolling.add_argument("--seconds", type=float, help="length of each recording (default: 3)")
    enrolling.set_defaults(handler=enrol_command)
    status = actions.add_parser("status", help="whether the wake word knows your voice")
    status.set_defaults(handler=status_command)
    forget = actions.add_parser("forget", help="delete the enrolment: the wake word hears everyone alike")
    forget.set_defaults(handler=forget_command)


def enrol_command(settings: Settings, args: argparse.Namespace) -> int:
    from app.wake_enrolment import ENROLMENT_UTTERANCES, RECORD_SECONDS

    seconds = RECORD_SECONDS if args.seconds is None else args.seconds
    if seconds < 1.5:
        raise UsageError("--seconds must be at least 1.5: the wake word and a little room noise around it")
    if args.audio_in is not None and len(args.audio_in) != ENROLMENT_UTTERANCES:
        raise UsageError(f"--audio-in takes {ENROLMENT_UTTERANCES} recordings, one per time the wake word is said")
    return asyncio.run(_enrol(settings, args.audio_in, seconds))


def status_command(settings: Settings, args: argparse.Namespace) -> int:
    from app import wake_enrolment

    path = wake_enrolment.verifier_path(settings)
    if not path.is_file():
        print(f"not enrolled: {settings.wake_word} wakes for anyone (parley wake enrol to teach it your voice)")
        return 0
    wake_enrolment.load_verifier(settings)  # a damaged file is an error here, not at the next start
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    print(f"enrolled on {stamp}: {settings.wake_word} listens for your voice ({path})")
    return 0


def forget_command(settings: Settings, args: argparse.Namespace) -> int:
    from app import wake_enrolment

    path = wake_enrolment.verifier_path(settings)
    path.unlink(missing_ok=True)
    print(f"forgotten: {settings.wake_word} wakes for anyone again")
    return 0


async def _enrol(settings: Settings, files: list[Path] | None, seconds: float) -> int:
    from app import wake_enrolment
    from voice.audio.microphone import MicrophoneSource
    from voice.audio.wav import read_recording

    if files is not None:
        recordings = [await asyncio.to_thread(read_recording, path) for path in files]
    else:
        microphone = partial(MicrophoneSource, device=settings.input_device)
        recordings = await wake_enrolment.record_enrolment(
            microphone, settings.wake_word, partial(print, flush=True), seconds
        )
    enrolled = await wake_enrolment.enrol(settings, recordings)
    model = enrolled.path.name.removesuffix(".verifier.npz")
    print(f"enrolled: {model} now listens for your voice ({enrolled.summary()}, {enrolled.path})")
    return 0
