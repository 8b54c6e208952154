"""The audio devices, the microphone level test and the wake word model check, as the settings window,
the first-start guide and `parley doctor` run them, each answering in a line for the user (the guide adds a
live level and a test sound); and the microphone and speaker as the window and `parley listen` open them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from app.config.settings import Settings
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk, AudioFormat, AudioSink, AudioSource
from voice.audio.devices import AudioDevice, audio_devices
from voice.audio.earcon import earcon
from voice.audio.level import LevelMeter, loudest
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


async def level_line(microphone: MicrophoneFactory, device: str | None) -> str:
    """`microphone_level`'s line, for a window to show."""
    return (await microphone_level(microphone, device)).line


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


SpeakerFactory = Callable[[str | None], AudioSink]
"""Opens the speaker of a device name (None: the system default)."""
LevelReport = Callable[[float], object]
"""Gets the live microphone level (dBFS) about ten times a second, on the thread that reads the microphone."""


def open_speaker(device: str | None) -> AudioSink:
    return SpeakerSink(MODEL_VOICE_FORMAT, device=device)


async def play_test_sound(speaker: SpeakerFactory, device: str | None) -> str:
    """Play the wake chime on `device` to its end; a line for the user: what to listen for, or why not."""
    try:
        sink = speaker(device)
        try:
            await sink.write(earcon(sink.format))
            await sink.drain()
        finally:
            await sink.aclose()
    except VoiceError as error:
        return f"Failed: {error}"
    return "Played Parley's chime: heard nothing? Choose another speaker, or turn the volume up."


def metered(microphone: MicrophoneFactory, report: LevelReport) -> MicrophoneFactory:
    """`microphone`, reporting its live level to `report` as it is read (the first-start guide's meter)."""
    return lambda device: MeteredSource(microphone(device), report)


class MeteredSource:
    """An `AudioSource` that passes another's chunks on, reporting their level (`LevelMeter`) on the way."""

    def __init__(self, source: AudioSource, report: LevelReport) -> None:
        self._source = source
        self._report = report

    @property
    def format(self) -> AudioFormat:
        return self._source.format

    async def chunks(self) -> AsyncIterator[AudioChunk]:
        meter = LevelMeter()
        async for chunk in self._source.chunks():
            if (level := meter.feed(chunk)) is not None:
                self._report(level)
            yield chunk

    async def aclose(self) -> None:
        await self._source.aclose()
