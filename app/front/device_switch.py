"""The microphone and the speaker of a front end's voice loop, changed in Settings while it runs.

`DeviceSwitch` is the loop's `AudioFactory`: it opens the devices the settings name, behind a
`SwitchableSource` and a `SwitchableSink`. When Settings name other devices, `switch` opens those and swaps
them in while the assistant sleeps, never in the middle of a conversation: it waits for the status the
presenter posts (`saw`), opens the new pair off the event loop, and swaps only if the assistant still sleeps
(else it closes them and waits for the next sleep). A newer `switch` supersedes one still waiting. A
microphone or a speaker that failed (the presenter posts `DeviceLost`) is opened again by the next `switch`,
even to the same device: the loop then reads the microphone again (`VoiceLoop.hear_again`) and tries the
speaker again (`VoiceLoop.speak_again`). Until a device opened again says whether it works (the presenter posts
`DeviceBack` or `DeviceLost`), a newer `switch` waits: a failure then makes it open the device once more, where
deciding at once would have found nothing to do and left the device failed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from app.config.settings import Settings
from app.core.events import DeviceBack, DeviceLost, FrontEvent, StatusChanged
from app.core.status import VoiceStatus
from app.voice_loop import AudioDevice
from voice.audio.chunks import AudioSink, AudioSource
from voice.audio.switchable import SwitchableSink, SwitchableSource
from voice.errors import VoiceError

log = logging.getLogger(__name__)

OpenDevices = Callable[[Settings], tuple[AudioSource, AudioSink]]
"""Opens the microphone and the speaker `settings` name (`app.front.device_checks.microphone_and_speaker`)."""


def devices_of(settings: Settings) -> tuple[str | None, str | None]:
    """The input and output device `settings` name (None: the system default)."""
    return settings.input_device, settings.output_device


class DeviceSwitch:
    def __init__(self, settings: Settings, open_devices: OpenDevices) -> None:
        self._settings = settings
        self._open = open_devices
        self._audio: tuple[SwitchableSource, SwitchableSink] | None = None
        self._in_use = devices_of(settings)
        self._sleeping = asyncio.Event()
        """Set while the assistant sleeps (bound to the loop that first waits on it)."""
        self._wanted = 0
        """How many switches were asked for: a waiting switch that is no longer the last gives way."""
        self._failed: set[AudioDevice] = set()
        """The devices in use that failed (or could not be opened): the next switch opens them again."""
        self._trying: set[AudioDevice] = set()
        """The failed devices a switch opened again that have not yet said whether they work."""
        self._tried = asyncio.Event()
        """Set while nothing is being tried (bound to the loop that first waits on it)."""
        self._tried.set()

    def __call__(self) -> tuple[AudioSource, AudioSink]:
        """The devices of the latest settings, switchable (on a worker thread, as the loop starts)."""
        source, sink = self._open(self._settings)
        self._in_use = devices_of(self._settings)
        self._audio = SwitchableSource(source), SwitchableSink(sink)
        return self._audio

    def saw(self, event: FrontEvent) -> None:
        """Every event the presenter posts, on the loop's event loop: the status says when it sleeps."""
        if isinstance(event, StatusChanged):
            if event.status is VoiceStatus.SLEEPING:
                self._sleeping.set()
            else:
                self._sleeping.clear()
        elif isinstance(event, DeviceLost):
            self._failed.add(event.device)
            self._told(event.device)
        elif isinstance(event, DeviceBack):
            self._told(event.device)

    def _told(self, device: AudioDevice) -> None:
        """`device` said whether it works: a switch waiting on that decides now."""
        self._trying.discard(device)
        if not self._trying:
            self._tried.set()

    async def switch(self, settings: Settings) -> frozenset[AudioDevice]:
        """Use the devices `settings` name from the assistant's next sleep on (now, if it sleeps); the same
        ones again when one failed. Before the loop has opened any, it opens these; devices that fail to open
        leave the old ones in use (logged: the loop reports a device it loses itself). Returns the devices
        that had failed and were replaced: the loop must read (or play through) them again."""
        self._settings = settings
        self._wanted += 1
        wanted = self._wanted
        while self._audio is not None and wanted == self._wanted:
            if not self._tried.is_set():
                await self._tried.wait()
                continue
            if not self._due(settings):
                break
            if not self._sleeping.is_set():
                await self._sleeping.wait()
                continue
            try:
                source, sink = await asyncio.to_thread(self._open, settings)
            except VoiceError as error:
                log.warning("the audio devices chosen in Settings could not be opened: %s", error)
                return frozenset()
            if not self._sleeping.is_set() or wanted != self._wanted:
                await source.aclose()  # a conversation began meanwhile, or newer settings came
                await sink.aclose()
                continue
            microphone, speaker = self._audio
            self._in_use = devices_of(settings)
            reopened = frozenset(self._failed)
            self._failed.clear()
            self._trying = set(reopened)
            if reopened:
                self._tried.clear()
            await microphone.switch(source)
            await speaker.switch(sink)
            return reopened
        return frozenset()

    def _due(self, settings: Settings) -> bool:
        return bool(self._failed) or devices_of(settings) != self._in_use
