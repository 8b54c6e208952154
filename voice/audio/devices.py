"""The sound card, through PortAudio (`sounddevice`): the only module that imports it.

`sounddevice` is imported on first use, not with this module, so the rest of Parley (text input, WAV
input) works on a machine without PortAudio. Every way of not reaching a device (the PortAudio library
missing, no sound card, a busy or unknown device, an unsupported rate) becomes `NoAudioDevice` with one
line such as "no microphone found: ...".

`PortAudioBackend` is the seam between our sources and sinks and the SDK: `MicrophoneSource` and
`SpeakerSink` take any `StreamBackend`, so a test can stand in at the SDK edge and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from voice.errors import NoAudioDevice

Kind = Literal["input", "output"]
DeviceSelector = int | str | None
"""A PortAudio device index, a substring of its name, or None for the system default."""
StreamCallback = Callable[[Any, int, Any, Any], None]
"""PortAudio's `(buffer, frames, time, status)` callback, run on PortAudio's thread. The buffer is
read (input) or must be filled (output) before returning."""

_WHAT: dict[Kind, str] = {"input": "microphone", "output": "speaker"}


@dataclass(frozen=True, slots=True)
class AudioDevice:
    index: int
    """PortAudio's device index (valid until the devices are rescanned)."""
    name: str
    host_api: str
    """The OS sound system PortAudio reaches it through (ALSA, Core Audio, WASAPI, ...)."""
    input_channels: int
    output_channels: int
    default_rate: float
    """The device's preferred sample rate (Hertz)."""
    is_default_input: bool
    is_default_output: bool


class RawStream(Protocol):
    """What we use of a `sounddevice.RawInputStream` / `RawOutputStream`."""

    @property
    def samplerate(self) -> float:
        """The rate the device runs at (Hertz)."""
        ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class StreamRequest:
    """What a source or sink asks PortAudio for: one PCM16 stream and the callbacks it runs."""

    kind: Kind
    device: DeviceSelector
    channels: int
    rate: int
    """The rate wanted (Hertz); a device that does not take it runs at its own (the stream's `samplerate`)."""
    block_ms: int
    """Audio delivered, or asked for, per callback (milliseconds)."""
    callback: StreamCallback
    finished_callback: Callable[[], None]
    """Run on PortAudio's thread once the stream has stopped, whatever stopped it."""


class StreamBackend(Protocol):
    def open_stream(self, request: StreamRequest) -> RawStream:
        """Open (not start) the stream `request` describes, at its rate if the device takes it, else at the
        device's own rate (read `samplerate`). Raises `NoAudioDevice`."""
        ...


def load_sounddevice(what: str = "audio device") -> Any:
    """The `sounddevice` module, or `NoAudioDevice("no {what} found: ...")` when it cannot load."""
    try:
        import sounddevice
    except OSError as error:
        # sounddevice raises OSError("PortAudio library not found") at import when libportaudio is absent.
        raise NoAudioDevice(
            f"no {what} found: the PortAudio library is missing ({error}); on Debian or Ubuntu install libportaudio2"
        ) from error
    except ImportError as error:
        raise NoAudioDevice(f"no {what} found: the sounddevice package is not installed ({error})") from error
    return sounddevice


def audio_devices() -> list[AudioDevice]:
    """Every input and output device PortAudio sees; empty with no sound card. For `parley doctor`."""
    sd = load_sounddevice()
    host_apis = [api["name"] for api in sd.query_hostapis()]
    default_input, default_output = _default_indices(sd)
    return [
        AudioDevice(
            index=info["index"],
            name=info["name"],
            host_api=host_apis[info["hostapi"]],
            input_channels=info["max_input_channels"],
            output_channels=info["max_output_channels"],
            default_rate=float(info["default_samplerate"]),
            is_default_input=info["index"] == default_input,
            is_default_output=info["index"] == default_output,
        )
        for info in sd.query_devices()
    ]


def rescan_devices() -> None:
    """Make PortAudio look for devices again (it lists them once, when it starts): after a headset is
    plugged in, or a sound server started. Restarting PortAudio breaks open streams, so call it with
    none open. (The sounddevice maintainer's advice: sounddevice issue #125.)"""
    sd = load_sounddevice()
    sd._terminate()
    sd._initialize()


class PortAudioBackend:
    """Opens real streams with sounddevice; int16 samples, PortAudio's low-latency setting."""

    def open_stream(self, request: StreamRequest) -> RawStream:
        what = _WHAT[request.kind]
        sd = load_sounddevice(what)
        try:
            rate = _negotiate_rate(sd, request)
            stream_class = sd.RawInputStream if request.kind == "input" else sd.RawOutputStream
            stream = stream_class(
                device=request.device,
                channels=request.channels,
                samplerate=rate,
                dtype="int16",
                blocksize=rate * request.block_ms // 1000,
                latency="low",
                callback=request.callback,
                finished_callback=request.finished_callback,
            )
        except (sd.PortAudioError, ValueError) as error:
            raise NoAudioDevice(_failure(sd, what, error)) from error
        return _Translated(stream, sd, what)


class _Translated:
    """A sounddevice stream whose `start()` fails with `NoAudioDevice` (a device can be listed and
    still refuse to start: busy, unplugged since, permission denied)."""

    def __init__(self, stream: Any, sd: Any, what: str) -> None:
        self._stream = stream
        self._sd = sd
        self._what = what

    @property
    def samplerate(self) -> float:
        return float(self._stream.samplerate)

    def start(self) -> None:
        try:
            self._stream.start()
        except self._sd.PortAudioError as error:
            self._stream.close()
            raise NoAudioDevice(_failure(self._sd, self._what, error)) from error

    def stop(self) -> None:
        self._stream.stop()

    def close(self) -> None:
        self._stream.close()


def close_stream(stream: RawStream) -> None:
    """Stop and close, closing even when stopping fails. Blocking: call it off the loop."""
    try:
        stream.stop()
    finally:
        stream.close()


def _negotiate_rate(sd: Any, request: StreamRequest) -> int:
    """The request's rate when the device takes it, else the device's default rate (we resample)."""
    check = sd.check_input_settings if request.kind == "input" else sd.check_output_settings
    device, channels = request.device, request.channels
    try:
        check(device=device, channels=channels, dtype="int16", samplerate=request.rate)
        return request.rate
    except sd.PortAudioError:
        native = int(sd.query_devices(device, request.kind)["default_samplerate"])
        check(device=device, channels=channels, dtype="int16", samplerate=native)
        return native


def _failure(sd: Any, what: str, error: Exception) -> str:
    if not sd.query_devices():
        return f"no {what} found: PortAudio sees no audio devices (no sound card, and no sound server running)"
    reason = " ".join(str(error).split()) or type(error).__name__
    return f"no {what} found: {reason}"


def _default_indices(sd: Any) -> tuple[int, int]:
    default_input, default_output = sd.default.device
    return int(default_input), int(default_output)
