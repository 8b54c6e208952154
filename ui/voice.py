"""The voice loop inside the window: it runs on the runtime thread, and what it does reaches the window
through the bridge's `post_*` methods; the chat chosen in the window is where the next conversation goes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any
from uuid import UUID

from app.config.settings import Settings
from app.conversation import ChatSwitched, ConversationEvent, Saved
from app.listening_lock import AlreadyListening
from app.runtime import Runtime, RuntimeClosed
from app.voice_loop import OFFLINE_NOTICE, AudioDevice, VoiceLoop
from app.wiring import ChatServices
from ui.bridge import ChatBridge
from ui.tool_chips import ToolChip, chip_chat, chip_text, running_chip_text
from ui.voice_controls import VoiceControls
from voice.audio import AudioSink, AudioSource
from voice.session import ConnectionFailed, SpokenTurn, ToolStarted, ToolUsed
from voice.state import AssistantState, StateChanged
from voice.wake_protocol import WakeEvent

NO_KEY = (
    "Voice is set to Gemini, which needs an API key: add it in Settings (Ctrl+,), or set voice_model to auto "
    "or offline, then restart Parley."
)
NOT_LISTENING = "Parley is not listening yet: try again in a moment."
WAITING_FOR = "Parley is already listening on these chats ({owner}): this window listens once it quits."
NO_MICROPHONE = (
    "{problem}. You can still type to Parley; the wake word and Talk need a microphone (restart Parley once one "
    "is connected)."
)
NO_SPEAKER = "{problem}. Parley's answers are shown, not spoken."
LISTENING_POLL_S = 1.0
"""How often the window checks whether the other process still listens."""
MEMORY_WRITES = frozenset({"save_memory", "add_memory", "forget_memory"})
"""Tools after whose success the Memory page reloads."""

AudioFactory = Callable[[], tuple[AudioSource, AudioSink]]


class WindowVoice:
    def __init__(self, bridge: ChatBridge, runtime: Runtime, settings: Settings, audio: AudioFactory) -> None:
        self._bridge = bridge
        self._runtime = runtime
        self._settings = settings
        self._audio = audio
        self._loop: VoiceLoop | None = None
        self._muted = False
        """What the window asked for; applied to the loop when it starts. Runtime thread only."""
        self._banner: str | None = None
        """The banner this voice put up (another process listens on these chats; a conversation could not
        connect) while it holds: it goes once the loop is ready, or a conversation connects. Runtime thread
        only."""
        self._devices: dict[AudioDevice, str] = {}
        """The audio devices that failed (or could not be opened), with why: the loop goes on without them, and
        the banner says so for as long as it runs. Runtime thread only."""
        bridge.current_chat_changed.connect(self.continue_in)

    def start(self) -> None:
        """Start listening once the chat services are open; problems show in the window's banner."""
        settings = self._settings
        if settings.effective_voice_model == "gemini" and settings.gemini_api_key is None:
            self._bridge.post_state("off")
            self._bridge.error.emit(NO_KEY)
            self._bridge.run_with_services(self._show_most_recent)
            return
        if settings.effective_voice_model == "offline":
            self._bridge.post_notice(OFFLINE_NOTICE)
        self._bridge.run_with_services(self._run)

    def bind(self, controls: VoiceControls) -> None:
        """Push-to-talk, the typed text and the mute switch of the window act on this loop."""
        controls.talk_requested.connect(self.talk)
        controls.text_typed.connect(self.send_text)
        controls.mute_action.toggled.connect(self.set_muted)

    # The window's requests: GUI thread in, runtime thread to act.

    def continue_in(self, chat_id: UUID | None) -> None:
        """The chat selected in the window is where the next conversation goes."""
        if chat_id is not None:
            self._submit(self._continue_in(chat_id))

    def talk(self) -> None:
        """Push-to-talk: start a conversation as the wake word does (nothing while one runs)."""
        self._submit(self._talk())

    def send_text(self, text: str) -> None:
        """A typed message for the assistant: sent at once in a conversation, else it starts one."""
        self._submit(self._send_text(text))

    def set_muted(self, muted: bool) -> None:
        self._submit(self._set_muted(muted))

    def _submit(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            self._runtime.submit(work)
        except RuntimeClosed as closed:
            work.close()
            self._bridge.error.emit(str(closed))

    async def _continue_in(self, chat_id: UUID) -> None:
        if self._loop is not None:
            self._loop.continue_in(chat_id)

    async def _talk(self) -> None:
        if self._loop is not None and not await self._loop.talk() and "microphone" in self._devices:
            self._show_devices()  # again, if it was dismissed: Talk does nothing without a microphone

    async def _send_text(self, text: str) -> None:
        if self._loop is None:
            self._bridge.post_error(NOT_LISTENING)
        else:
            await self._loop.send_text(text)

    async def _set_muted(self, muted: bool) -> None:
        self._muted = muted
        if self._loop is not None:
            await self._loop.set_muted(muted)

    async def _show_most_recent(self, services: ChatServices) -> None:
        recent = await services.store.list_chats(limit=1)
        if recent:
            self._bridge.post_default_chat(recent[0].id)

    async def _run(self, services: ChatServices) -> None:
        chat_id = self._bridge.current_chat_id
        if chat_id is None:
            recent = await services.store.list_chats(limit=1)
            chat_id = recent[0].id if recent else (await services.store.create()).id
        try:
            source, sink = self._audio()
            self._loop = VoiceLoop(
                settings=self._settings,
                services=services,
                source=source,
                sink=sink,
                chat_id=chat_id,
                observer=self,
                on_device_lost=self.device_lost,
            )
            await self._loop.set_muted(self._muted)
            await self._run_when_free(self._loop)
        except Exception:
            self._bridge.post_state("error")  # the banner says what went wrong
            raise

    async def _run_when_free(self, loop: VoiceLoop) -> None:
        """Run the loop; while another process listens on these chats (`parley listen`, say), wait for it
        to quit, with the banner saying so."""
        while True:
            try:
                await loop.run()
                return
            except AlreadyListening as busy:
                if self._banner is None:
                    self._bridge.post_state("off")
                    self._show_banner(WAITING_FOR.format(owner=busy.owner))
            await asyncio.sleep(LISTENING_POLL_S)

    def _show_banner(self, message: str) -> None:
        self._banner = message
        self._bridge.post_error(message)

    def _take_banner_down(self) -> None:
        if self._banner is not None:
            self._bridge.post_error_resolved(self._banner)
            self._banner = None
            if self._devices:
                self._show_devices()  # what still holds, back in its place

    def _show_devices(self) -> None:
        said = []
        if "microphone" in self._devices:
            said.append(NO_MICROPHONE.format(problem=self._devices["microphone"]))
        if "speaker" in self._devices:
            said.append(NO_SPEAKER.format(problem=self._devices["speaker"]))
        self._bridge.post_error(" ".join(said))

    # The observer: called on the runtime thread.

    def ready(self, wake_word: str, chat_id: UUID) -> None:
        self._bridge.post_chat_switched(chat_id)  # the window shows the chat the next conversation continues
        self._bridge.post_state("sleeping")
        self._take_banner_down()  # listening now: another process no longer does

    def state(self, change: StateChanged) -> None:
        self._bridge.post_state(change.new.value)
        if change.new is AssistantState.LISTENING:
            self._take_banner_down()  # connected: a failure to connect no longer holds

    def muted(self, muted: bool) -> None:
        self._bridge.post_muted(muted)

    def device_lost(self, device: AudioDevice, problem: str) -> None:
        """The microphone or the speaker failed: the loop goes on without it, and the banner says so."""
        self._devices[device] = problem
        if self._banner is None:  # else it shows once that banner is taken down
            self._show_devices()

    def level(self, dbfs: float) -> None:
        self._bridge.post_level(dbfs)

    async def wake(self, wake: WakeEvent) -> None:
        return None  # the state change to "connecting" says it

    async def conversation(self, event: ConversationEvent) -> None:
        if isinstance(event, SpokenTurn) and self._loop is not None:
            self._bridge.post_turn(self._loop.chat_id, event.role, event.text)
        elif isinstance(event, ToolStarted) and self._loop is not None:
            running = running_chip_text(event.call.name)
            if running is not None:
                self._bridge.post_tool(self._loop.chat_id, ToolChip(running, call_id=event.call.id))
        elif isinstance(event, ToolUsed) and self._loop is not None:
            self._post_chip(event, self._loop.chat_id)
            if event.call.name in MEMORY_WRITES and event.reply.result.get("success"):
                self._bridge.post_memories_changed()
        elif isinstance(event, Saved):
            self._bridge.post_chat_saved(event.chat_id)
        elif isinstance(event, ChatSwitched):
            self._bridge.post_chat_switched(event.chat_id)
        elif isinstance(event, ConnectionFailed):
            self._show_banner(event.message)

    def _post_chip(self, used: ToolUsed, chat_id: UUID) -> None:
        call, result = used.call, used.reply.result
        words = chip_text(call.name, call.args, result)
        if words is not None:
            text, failed = words
            self._bridge.post_tool(chip_chat(call.name, result, chat_id), ToolChip(text, failed, call.id))
