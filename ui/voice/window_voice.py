"""The voice loop inside the window: `app.front.voice_presenter.VoicePresenter` runs it on the runtime
thread and posts what happens to the bridge; this binds the window's controls and the chat chosen in it to
the presenter's requests, submitted to the runtime.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any
from uuid import UUID

from app.config.settings import Settings
from app.core.events import FrontEvent
from app.front.device_switch import DeviceSwitch
from app.front.voice_presenter import AudioFactory, VoicePresenter
from app.runtime import Runtime, RuntimeClosed
from ui.bridge import ChatBridge
from ui.voice.confirmations import ConfirmationsPanel
from ui.voice.controls import VoiceControls
from ui.voice.timers_panel import TimersPanel


class WindowVoice:
    def __init__(self, bridge: ChatBridge, runtime: Runtime, settings: Settings, audio: AudioFactory) -> None:
        """`audio`: a `DeviceSwitch` lets Settings change the microphone and speaker while the loop runs."""
        self._bridge = bridge
        self._runtime = runtime
        self._devices = audio if isinstance(audio, DeviceSwitch) else None
        # `current_chat_id` is read on the runtime thread as the loop starts: a reference read, and the
        # chat chosen later reaches the loop through `continue_in` anyway.
        self._presenter = VoicePresenter(settings, audio, self._post, lambda: bridge.current_chat_id)
        bridge.chat_chosen.connect(self.continue_in)

    def start(self) -> None:
        """Start listening once the chat services are open; problems show in the window's banner."""
        self._presenter.announce()
        self._bridge.run_with_services(self._presenter.run)

    def bind(self, controls: VoiceControls) -> None:
        """Push-to-talk, the typed text and the mute switch of the window act on this loop."""
        controls.talk_requested.connect(self.talk)
        controls.text_typed.connect(self.send_text)
        controls.look_requested.connect(self.look_at_screen)
        if not self._presenter.looks_at_screen:  # hidden, never shown here: before it has a parent, that opens a window
            controls.look_button.hide()
        controls.typing_started.connect(self.prepare)
        controls.mute_action.toggled.connect(self.set_muted)

    def bind_timers(self, panel: TimersPanel, confirmations: ConfirmationsPanel) -> None:
        """The timers panel's Stop and Cancel act on the loop's timers; Allow and Deny on its held tool calls."""
        panel.stop_requested.connect(self.stop_timer)
        panel.cancel_requested.connect(self.cancel_timer)
        confirmations.answered.connect(self.answer_confirmation)

    # GUI thread in, runtime thread to act.

    def stop_timer(self, timer_id: str) -> None:
        self._submit(self._presenter.stop_timer(timer_id))

    def cancel_timer(self, timer_id: str) -> None:
        self._submit(self._presenter.cancel_timer(timer_id))

    def answer_confirmation(self, confirmation: str, allowed: bool) -> None:
        self._submit(self._presenter.answer_confirmation(confirmation, allowed))

    def continue_in(self, chat_id: UUID) -> None:
        """The chat the user chose in the window is where the next conversation goes."""
        self._submit(self._presenter.continue_in(chat_id))

    def apply_settings(self, settings: Settings) -> None:
        """Settings saved while the window runs: the loop takes the wake threshold at once, the idle time and
        the language from its next conversation, the devices at its next sleep (`app.live_settings`)."""
        self._submit(self._presenter.apply_settings(settings))
        if self._devices is not None:
            self._submit(self._presenter.switch_devices(self._devices, settings))

    def talk(self) -> None:
        self._submit(self._presenter.talk())

    def send_text(self, text: str) -> None:
        self._submit(self._presenter.send_text(text))

    def look_at_screen(self) -> None:
        self._submit(self._presenter.look_at_screen())

    def prepare(self) -> None:
        self._submit(self._presenter.prepare())

    def set_muted(self, muted: bool) -> None:
        self._submit(self._presenter.set_muted(muted))

    def _post(self, event: FrontEvent) -> None:
        # The runtime thread: the device switch learns when the assistant sleeps, then the window.
        if self._devices is not None:
            self._devices.saw(event)
        self._bridge.post(event)

    def _submit(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            self._runtime.submit(work)
        except RuntimeClosed as closed:
            work.close()
            self._bridge.error.emit(str(closed))
