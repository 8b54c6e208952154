"""The real PortAudio on this machine. CI machines have no sound card: every entry point must then say
so in one line. On a machine with devices the same tests check that they work instead. (The virtual
sound card of test_virtual_microphone.py exercises a working device everywhere.)"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path

import pytest

from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.devices import audio_devices, rescan_devices
from voice.audio.microphone import MicrophoneSource
from voice.audio.speaker import SpeakerSink
from voice.audio.synthetic import tone
from voice.errors import NoAudioDevice

REPO = Path(__file__).resolve().parents[2]


async def read_all(mic: MicrophoneSource) -> None:
    async with aclosing(mic.chunks()) as chunks:
        async for _ in chunks:
            pass


@pytest.fixture
def no_sound_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This machine as it is: no sound card and no sound server. PortAudio lists devices once, when it
    starts, so rescan: another test may have run a virtual sound server in this process."""
    for name in ("PULSE_SERVER", "PULSE_RUNTIME_PATH"):
        monkeypatch.delenv(name, raising=False)
    rescan_devices()
    yield


def has_devices(direction: str) -> bool:
    return any(getattr(device, f"{direction}_channels") for device in audio_devices())


@pytest.mark.usefixtures("no_sound_server")
def test_the_devices_are_listed_with_names_and_channels() -> None:
    for device in audio_devices():
        assert device.name and (device.input_channels or device.output_channels)
        assert device.default_rate > 0


@pytest.mark.usefixtures("no_sound_server")
async def test_the_microphone_works_or_says_in_one_line_that_there_is_none() -> None:
    if has_devices("input"):
        microphone = MicrophoneSource()
        async with aclosing(microphone.chunks()) as chunks:
            assert (await anext(chunks)).duration_ms == 80
        return
    with pytest.raises(NoAudioDevice) as caught:
        await read_all(MicrophoneSource())
    message = str(caught.value)
    assert (
        message == "no microphone found: PortAudio sees no audio devices (no sound card, and no sound server running)"
    )


@pytest.mark.usefixtures("no_sound_server")
async def test_the_speaker_works_or_says_on_the_first_write_that_there_is_none() -> None:
    sink = SpeakerSink()
    if has_devices("output"):
        await sink.write(tone(80, format=MODEL_VOICE_FORMAT))
        await sink.drain()
    else:
        with pytest.raises(NoAudioDevice, match=r"^no speaker found: PortAudio sees no audio devices"):
            await sink.write(tone(80, format=MODEL_VOICE_FORMAT))
    await sink.aclose()


@pytest.mark.usefixtures("no_sound_server")
async def test_an_unknown_device_name_says_so_in_one_line() -> None:
    with pytest.raises(NoAudioDevice, match=r"^no microphone found: ") as caught:
        await read_all(MicrophoneSource(device="Parley Test Headset That Does Not Exist"))
    assert "\n" not in str(caught.value)


MISSING_PORTAUDIO = """
import asyncio, ctypes.util
real_find_library = ctypes.util.find_library
# The dynamic loader's view of a machine without libportaudio2; sounddevice itself is untouched.
ctypes.util.find_library = lambda name: None if "portaudio" in name else real_find_library(name)

from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.devices import audio_devices
from voice.errors import NoAudioDevice
from voice.audio.microphone import MicrophoneSource
from voice.audio.speaker import SpeakerSink
from voice.audio.synthetic import tone

async def main() -> None:
    for attempt in (
        audio_devices,
        lambda: anext(MicrophoneSource().chunks()),
        lambda: SpeakerSink().write(tone(80, format=MODEL_VOICE_FORMAT)),
    ):
        try:
            result = attempt()
            if asyncio.iscoroutine(result):
                await result
        except NoAudioDevice as error:
            print(error)

asyncio.run(main())
"""


def test_without_the_portaudio_library_every_entry_point_says_so_in_one_line() -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PULSE")}
    done = subprocess.run(
        [sys.executable, "-c", MISSING_PORTAUDIO],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    hint = ": the PortAudio library is missing (PortAudio library not found); on Debian or Ubuntu install libportaudio2"
    assert lines == [f"no audio device found{hint}", f"no microphone found{hint}", f"no speaker found{hint}"]
