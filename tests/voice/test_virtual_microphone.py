"""The real microphone and speaker paths, end to end, through a virtual sound card.

A private PulseAudio daemon (its own folders, its own socket; nothing shared with the machine) gets a
null sink, `parley_speaker`, and a virtual microphone, `parley_microphone`, that records the sink's
monitor: whatever is played into the sink comes out of the microphone. PortAudio reaches it through
ALSA's pulse plugin, exactly as on a desktop. Needs Debian's pulseaudio, pulseaudio-utils (paplay,
pactl) and libportaudio2 (libasound2-plugins, the ALSA pulse plugin, comes with pulseaudio).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.devices import audio_devices, rescan_devices
from voice.audio.microphone import MicrophoneSource
from voice.audio.speaker import SpeakerSink
from voice.audio.synthetic import frames, noise, tone
from voice.audio.wav import WavFileSink

SINK = "parley_speaker"
SOURCE = "parley_microphone"
SCRIPT = f"""
load-module module-null-sink sink_name={SINK} rate=16000 channels=1 format=s16le
load-module module-remap-source source_name={SOURCE} master={SINK}.monitor
set-default-sink {SINK}
set-default-source {SOURCE}
load-module module-native-protocol-unix auth-anonymous=1 socket={{socket}}
"""


@dataclass
class SoundServer:
    folder: Path
    client_env: dict[str, str]
    """What a client process needs to reach this daemon (and only it)."""


def wait_until_ready(daemon: subprocess.Popen[bytes], env: dict[str, str], log: Path) -> None:
    """Poll the daemon until it answers (bounded: about 20 s), failing early if it died."""
    for _ in range(200):
        if daemon.poll() is not None:
            pytest.fail(f"pulseaudio exited with {daemon.returncode}: {log.read_text(errors='replace')[-2000:]}")
        if subprocess.run(["pactl", "info"], env=env, capture_output=True, check=False).returncode == 0:
            return
        time.sleep(0.1)  # a readiness poll, not a timing assumption
    pytest.fail(f"pulseaudio did not answer: {log.read_text(errors='replace')[-2000:]}")


@pytest.fixture(scope="module")
def sound_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SoundServer]:
    for tool in ("pulseaudio", "pactl", "paplay"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: apt-get install pulseaudio pulseaudio-utils libportaudio2")
    folder = tmp_path_factory.mktemp("pa")  # short: a unix socket path must stay under 108 bytes
    socket = folder / "native"
    script = folder / "parley.pa"
    script.write_text(SCRIPT.format(socket=socket))
    for sub in ("home", "config", "runtime", "state"):
        (folder / sub).mkdir()
    client_env = {"PULSE_SERVER": f"unix:{socket}", "PULSE_COOKIE": str(folder / "cookie")}
    daemon_env = {
        **{key: value for key, value in os.environ.items() if not key.startswith("PULSE")},
        **client_env,
        "HOME": str(folder / "home"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "XDG_RUNTIME_DIR": str(folder / "runtime"),
        "PULSE_RUNTIME_PATH": str(folder / "runtime"),
        "PULSE_STATE_PATH": str(folder / "state"),
    }
    log = folder / "pulseaudio.log"
    with log.open("wb") as log_file:
        daemon = subprocess.Popen(
            [
                "pulseaudio",
                "--daemonize=no",
                "--system=no",
                "-n",  # no default script: only ours
                f"--file={script}",
                "--exit-idle-time=-1",
                "--use-pid-file=no",
                "--realtime=no",
                "--high-priority=no",
                "--log-target=stderr",
            ],
            env=daemon_env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    with pytest.MonkeyPatch.context() as patch:
        try:
            wait_until_ready(daemon, daemon_env, log)
            for key, value in client_env.items():
                patch.setenv(key, value)
            rescan_devices()  # PortAudio lists devices once: make it see the new server
            yield SoundServer(folder, client_env)
        finally:
            daemon.terminate()
            try:
                daemon.wait(timeout=10)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
    rescan_devices()  # and forget it again, for the tests that check this machine has no devices


class Recorder:
    """Reads the microphone in the background and lets a test wait for what it heard."""

    def __init__(self) -> None:
        self.mic = MicrophoneSource()
        self.chunks: list[AudioChunk] = []
        self._changed = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Recorder:
        self._task = asyncio.create_task(self._run(), name="test-recorder")
        await self.wait_for(lambda: len(self.chunks) > 0)  # the stream is live
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.mic.aclose()
        assert self._task is not None
        await asyncio.wait_for(self._task, timeout=10)

    async def _run(self) -> None:
        async with aclosing(self.mic.chunks()) as chunks:
            async for chunk in chunks:
                async with self._changed:
                    self.chunks.append(chunk)
                    self._changed.notify_all()

    async def wait_for(self, condition: Callable[[], bool]) -> None:
        """Wait (30 s at most) until `condition` holds for what has been recorded."""
        async with asyncio.timeout(30), self._changed:
            await self._changed.wait_for(condition)

    async def more(self, ms: float) -> None:
        """Wait until `ms` more of stream time has been recorded."""
        target = self.stream_ms + ms
        await self.wait_for(lambda: self.stream_ms >= target)

    @property
    def stream_ms(self) -> float:
        return self.chunks[-1].end_ms if self.chunks else 0.0

    def samples(self) -> np.ndarray[tuple[int], np.dtype[np.int16]]:
        return np.frombuffer(b"".join(chunk.pcm for chunk in self.chunks), dtype=np.int16)


@dataclass
class Alignment:
    lag: int
    """Where the played clip starts in the recording (samples)."""
    correlation: float
    """Normalised cross-correlation at that lag: 1.0 is a perfect copy."""
    segment: np.ndarray[tuple[int], np.dtype[np.int16]] = field(repr=False)


def align(
    recording: np.ndarray[tuple[int], np.dtype[np.int16]], clip: np.ndarray[tuple[int], np.dtype[np.int16]]
) -> Alignment:
    """Find `clip` in `recording` by FFT cross-correlation (the two start at unrelated moments)."""
    rec, ref = recording.astype(np.float64), clip.astype(np.float64)
    size = 1 << int(np.ceil(np.log2(len(rec) + len(ref))))
    correlation = np.fft.irfft(np.fft.rfft(rec, size) * np.conj(np.fft.rfft(ref, size)), size)[
        : len(rec) - len(ref) + 1
    ]
    lag = int(np.argmax(correlation))
    segment = recording[lag : lag + len(clip)]
    norm = np.linalg.norm(segment.astype(np.float64)) * np.linalg.norm(ref)
    return Alignment(lag, float(correlation[lag] / norm) if norm else 0.0, segment)


def test_portaudio_lists_the_virtual_devices(sound_server: SoundServer) -> None:
    devices = audio_devices()
    default_input = next(device for device in devices if device.is_default_input)
    assert default_input.input_channels > 0
    assert any(device.is_default_output and device.output_channels > 0 for device in devices)


async def test_the_microphone_receives_a_recording_played_into_the_virtual_card_bit_exact(
    sound_server: SoundServer,
) -> None:
    clip = noise(1500, amplitude=0.3, seed=11)
    played = sound_server.folder / "played.wav"
    sink = WavFileSink(played, MIC_FORMAT)
    for chunk in frames(clip):
        await sink.write(chunk)
    await sink.aclose()

    async with Recorder() as recorder:
        paplay = await asyncio.create_subprocess_exec(
            "paplay", f"--device={SINK}", str(played), env={**os.environ, **sound_server.client_env}
        )
        assert await asyncio.wait_for(paplay.wait(), timeout=30) == 0
        await recorder.more(500)  # paplay returns when its stream is drained; let the monitor catch up

    found = align(recorder.samples(), np.frombuffer(clip.pcm, dtype=np.int16))
    assert found.correlation > 0.999
    assert found.segment.tobytes() == clip.pcm
    assert all(len(chunk.pcm) == 2560 for chunk in recorder.chunks)
    assert [chunk.start_ms for chunk in recorder.chunks[:3]] == [0, 80, 160]


def level(chunk: AudioChunk) -> float:
    samples = np.frombuffer(chunk.pcm, dtype=np.int16).astype(np.float64) / 32768
    return float(np.sqrt(np.mean(samples**2)))


async def test_the_speaker_plays_into_the_card_and_barge_in_cuts_it_off(sound_server: SoundServer) -> None:
    speaker = SpeakerSink(MODEL_VOICE_FORMAT)
    async with Recorder() as recorder:
        # A short reply, played to the end: drain() returns once the callback has taken all of it.
        for chunk in frames(tone(400, 440, amplitude=0.5, format=MODEL_VOICE_FORMAT), frame_ms=20):
            await speaker.write(chunk)
        await asyncio.wait_for(speaker.drain(), timeout=30)
        await recorder.more(400)

        # A long reply, interrupted once it is audible.
        start = len(recorder.chunks)
        for chunk in frames(tone(5000, 440, amplitude=0.5, format=MODEL_VOICE_FORMAT), frame_ms=20):
            await speaker.write(chunk)
        await recorder.wait_for(lambda: sum(level(c) > 0.1 for c in recorder.chunks[start:]) >= 3)
        speaker.clear()
        cleared_at = recorder.stream_ms
        await recorder.more(1500)
        await asyncio.wait_for(speaker.drain(), timeout=1)  # nothing left to play
    await speaker.aclose()

    loud = [chunk for chunk in recorder.chunks if level(chunk) > 0.1]
    first_reply = [chunk for chunk in loud if chunk.start_ms < recorder.chunks[start].start_ms]
    second_reply = [chunk for chunk in loud if chunk.start_ms >= recorder.chunks[start].start_ms]
    assert 300 <= sum(chunk.duration_ms for chunk in first_reply) <= 560  # 400 ms, give or take a frame
    # The interrupted reply stops within the sound server's buffering of the clear() (about 160 ms here,
    # 80 ms of it the microphone's frame; the bound leaves room for a loaded machine), far short of 5 s...
    assert second_reply[-1].end_ms <= cleared_at + 800
    # ...and stays silent after it.
    assert all(level(chunk) < 0.01 for chunk in recorder.chunks if chunk.start_ms > cleared_at + 800)
    spectrum = np.abs(np.fft.rfft(np.frombuffer(b"".join(c.pcm for c in first_reply), dtype=np.int16)))
    peak = np.fft.rfftfreq(sum(len(c.pcm) // 2 for c in first_reply), 1 / 16_000)[np.argmax(spectrum)]
    assert peak == pytest.approx(440, abs=15)  # played at 24 kHz, resampled by the server to the 16 kHz card
