"""`parley setup`: the window's first-start guide in a terminal. Four steps, each a question with a
default, each skippable: the microphone (a live level line) and speaker (the chime), the wake word
enrolment ("say hey Jarvis three times", as `parley wake enrol`), the language, and a Gemini key (tested
at once, stored in the OS keyring) or staying offline.

Values go where the window's guide and Settings put them (the config file through `save_config`, the key
through `app.config.secrets`, the enrolment through `app.wake_enrolment`); once through, the window does
not offer its guide at the next start.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from app.cli.command_runner import UsageError
from app.cli.terminal import raw
from app.config.settings import LANGUAGES, Settings

if TYPE_CHECKING:
    from app.front.device_checks import DeviceLister, MicrophoneFactory, SpeakerFactory

# The sound card's parts (PortAudio, the echo canceller's native library, numpy), the wake word's models and the
# key checks are imported when the command runs: `parley --help` builds this command's parser too.

METER_WIDTH = 30
"""Characters of the terminal's level bar, from `METER_FLOOR_DBFS` (empty) to full scale (full)."""
METER_FLOOR_DBFS = -60.0
"""As the window's meter: a quiet room stays near empty, speech at arm's length fills half or more."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    setup = commands.add_parser(
        "setup", help="first start: check the microphone and speaker, enrol your voice, language, Gemini key"
    )
    setup.add_argument(
        "--no-audio", action="store_true", help="skip the microphone, speaker and enrolment (language and key only)"
    )
    setup.set_defaults(handler=setup_command)


@dataclass(frozen=True, slots=True)
class AudioParts:
    """Where the devices step and the enrolment find the sound card (tests give recordings and a fake)."""

    devices: DeviceLister | None
    """Lists the sound cards (None: PortAudio's)."""
    microphone: MicrophoneFactory
    speaker: SpeakerFactory


def setup_command(settings: Settings, args: argparse.Namespace) -> int:
    from app.front.device_checks import open_microphone, open_speaker

    return run_setup(settings, None if args.no_audio else AudioParts(None, open_microphone, open_speaker))


def run_setup(settings: Settings, audio: AudioParts | None) -> int:
    """The four steps, questions on stdin; without `audio`, the language and the key only."""
    from app.front.first_start import mark_guide_done
    from app.wake_enrolment import ENROLMENT_UTTERANCES, enrol_by_voice, spoken

    print("Parley's first start. Press Enter for the answer in brackets; every step can be skipped.")
    word = spoken(settings.wake_word)
    if (
        audio is not None
        and _devices(settings, audio)
        and ask(f'Teach the wake word your voice: say "{word}" {ENROLMENT_UTTERANCES} times?', "y")
    ):
        print(asyncio.run(enrol_by_voice(partial(audio.microphone, settings.input_device), settings, say)))
    else:
        print(f'Wake word enrolment skipped: later, `parley wake enrol` (say "{word}" three times).')
    _language(settings)
    _key(settings)
    mark_guide_done(settings)
    print("Done. `parley` opens the window; `parley setup` runs these steps again.")
    return 0


def say(line: str) -> None:
    print(line, flush=True)


def ask(question: str, default: str) -> bool:
    """A yes/no question; Enter (or the end of stdin) takes `default`."""
    answer = answer_to(f"{question} [{'Y/n' if default == 'y' else 'y/N'}] ") or default
    if answer.lower() not in ("y", "yes", "n", "no"):
        raise UsageError(f"answer y or n, not {answer!r}")
    return answer.lower().startswith("y")


def answer_to(prompt: str) -> str:
    """One line from the terminal (or stdin), stripped; "" at the end of stdin."""
    try:
        return input(prompt).strip()
    except EOFError:
        print()
        return ""


def _devices(settings: Settings, audio: AudioParts) -> bool:
    """The devices step; whether a microphone may be there to enrol with."""
    from app.front.device_checks import LEVEL_TEST_S, metered, microphone_level, play_test_sound, survey_devices

    found = survey_devices(audio.devices)
    if not found.inputs and not found.outputs:
        print(f"Microphone and speaker: {found.problem}.")
        return False
    print(f"Microphones: {', '.join(found.inputs) or 'none'}. Speakers: {', '.join(found.outputs) or 'none'}.")
    using = (settings.input_device or "the system default", settings.output_device or "the system default")
    print(f"Parley uses {using[0]} and {using[1]} (`input_device`, `output_device` in Settings or the config file).")
    if found.inputs and ask(f"Test the microphone ({LEVEL_TEST_S:g} s: say something)?", "y"):
        live = sys.stdout.isatty()
        microphone = metered(audio.microphone, _print_level) if live else audio.microphone
        result = asyncio.run(microphone_level(microphone, settings.input_device))
        print(("\r" if live else "") + result.line.ljust(METER_WIDTH + 12), file=raw(sys.stdout))
    if found.outputs and ask("Play a test sound?", "y"):
        print(asyncio.run(play_test_sound(audio.speaker, settings.output_device)))
    return bool(found.inputs)


def _print_level(dbfs: float) -> None:
    from voice.audio.level import SILENCE_DBFS  # loaded with the microphone already

    share = min(max((dbfs - METER_FLOOR_DBFS) / -METER_FLOOR_DBFS, 0.0), 1.0)
    filled = round(share * METER_WIDTH)
    shown = f"{dbfs:.0f} dBFS" if dbfs > SILENCE_DBFS else "silence"
    print(f"\r[{'#' * filled}{' ' * (METER_WIDTH - filled)}] {shown:>9}", end="", flush=True, file=raw(sys.stdout))


def _language(settings: Settings) -> None:
    codes = [code for code, _ in LANGUAGES]
    current = settings.language or "auto"
    names = ", ".join(f"{code} ({name})" for code, name in LANGUAGES)
    while True:
        choice = answer_to(f"The language you speak: {names} [{current}] ").lower() or current
        if choice in codes:
            break
        print(f"Not a language Parley speaks: {choice!r}. Answer one of {', '.join(codes)}.")
    from app.config.config_writer import save_config

    save_config(settings.config_file, {"language": choice})
    print(f"Language: {choice}.")


def _key(settings: Settings) -> None:
    from app.config.key_checks import KeyCheckFailed, check_gemini_key
    from app.config.secrets import set_secret

    print("A Gemini API key (from Google AI Studio) lets Gemini Live answer; without one a small offline voice does.")
    while True:
        key = _read_key()
        if not key:
            print("No key: Parley stays offline (later: `parley keys set gemini`).")
            return
        try:
            works = asyncio.run(check_gemini_key(settings, key))
        except KeyCheckFailed as failed:
            print(f"Failed: {failed}. Paste another key, or press Enter to stay offline.")
            continue
        set_secret("gemini", key)
        print(f"{works} Stored in the OS keyring.")
        return


def _read_key() -> str:
    # A key is never echoed: getpass on a terminal, one line of stdin otherwise (as `parley keys set`).
    prompt = "Gemini API key (Enter to stay offline): "
    if not sys.stdin.isatty():
        return answer_to(prompt)
    try:
        return getpass.getpass(prompt).strip()
    except EOFError:
        print()
        return ""
