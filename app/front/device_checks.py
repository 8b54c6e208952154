"""The audio devices, the microphone level test and the wake word model check, as the settings window
and `parley doctor` both run them, each answering in a line for the user; and the microphone and speaker
as the window and `parley listen` open them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.config.settings import Settings
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioSink, AudioSource
from voice.audio.devices import AudioDevice, audio_devices
from voice.audio.level import loudest
from voice.audio.microphone import MicrophoneSource
from voice.audio.speaker import SpeakerSink
from voice.echo.canceller import EchoCancelledSource, EchoCanceller
from voice.errors import VoiceError, WakeModelError
from voice.wake.detector import BUILT_IN_MODELS, resolve_model

WAKE_WORDS: tuple[str, ...] = BUILT_IN_MODELS
"""The wake words that need no model file of the user's."""
LEVEL_TEST_S = 3.0
"""How long the microphone level test listens (seconds): long enough to say a sentence."""
QUIET_DBFS = -50.0
"""A loudest level at or below this gets a hint: well above a quiet room's hiss on most microphones, well
below speech at arm's length."""
NO_DEVICES = "no audio devices found: no sound card, and no sound server running"

DeviceLister = Callable[[], list[AudioDevice]]
MicrophoneFactory = Callable[[str | None], AudioSource]
"""Opens the microphone of a device name (None: the system default)."""


def open_microphone(device: str | None) -> AudioSource:
    return MicrophoneSource(device=device)


@dataclass(frozen=True, slots=True)
class AudioDevices:
    inputs: tuple[str, ...]
    """The names of the devices that record."""
    outputs: tuple[str, ...]
    """The names of the devices that play."""
    failure: str | None = None
    """Why the devices could not be listed (the PortAudio library is missing, say); None when they were."""

    @property
    def problem(self) -> str:
        """Why there is nothing to record from or play on: the listing's failure, or no device at all."""
        return self.failure or NO_DEVICES


def survey_devices(lister: DeviceLister | None = None) -> AudioDevices:
    """The input and output devices by name, as `lister` lists them (None: PortAudio). Blocks while
    PortAudio starts: call it off the event loop."""
    try:
        found = (lister or audio_devices)()
    except VoiceError as error:
        return AudioDevices((), (), str(error))
    inputs = tuple(device.name for device in found if device.input_channels > 0)
    return AudioDevices(inputs, tuple(device.name for device in found if device.output_channels > 0))


@dataclass(frozen=True, slots=True)
class MicrophoneTest:
    line: str
    """For the user: the loudest level heard, or why the microphone could not be heard."""
    heard: bool
    """The microphone opened and was not near silent."""


async def microphone_level(
    microphone: MicrophoneFactory, device: str | None, seconds: float = LEVEL_TEST_S
) -> MicrophoneTest:
    """Listen to `device` for `seconds` and say how loud it was."""
    try:
        level = await loudest(microphone(device), seconds)
    except VoiceError as error:
        return MicrophoneTest(f"Failed: {error}", heard=False)
    hint = "" if level > QUIET_DBFS else " (very quiet: is this the right microphone, and is it muted?)"
    return MicrophoneTest(f"Loudest in {seconds:g} s: {level:.0f} dBFS{hint}", heard=not hint)


def wake_model_problem(wake_word: str) -> str | None:
    """Why `wake_word` names no wake word model (an unknown name; a missing or non-ONNX file), or None.
    Only the name and the file are checked: loading the model is the detector's."""
    try:
        resolve_model(wake_word.strip())
    except WakeModelError as error:
        return str(error)
    return None


def microphone_and_speaker(settings: Settings, speaker: AudioSink | None = None) -> tuple[AudioSource, AudioSink]:
    """The microphone (`settings.input_device`), with what the speaker plays cancelled out of it so Parley
    never hears (or interrupts, or wakes) itself, and the speaker (`settings.output_device`); or another
    sink in the speaker's place."""
    if speaker is None:
        # The speaker reports every block it plays, silence included: the canceller needs no clock.
        canceller = EchoCanceller(clock=None)
        sink: AudioSink = SpeakerSink(MODEL_VOICE_FORMAT, device=settings.output_device, on_played=canceller.played)
    else:
        canceller, sink = EchoCanceller(), speaker
    return EchoCancelledSource(MicrophoneSource(device=settings.input_device), canceller), sink
