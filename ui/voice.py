"""The voice loop inside the window: it runs on the runtime thread, and what it does reaches the window
through the bridge's `post_*` methods; the chat chosen in the window is where the next conversation goes.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from app.conversation import ChatSwitched, ConversationEvent, Saved
from app.runtime import Runtime
from app.settings import Settings
from app.voice_loop import VoiceLoop
from app.wiring import ChatServices
from ui.bridge import ChatBridge
from voice.audio import AudioSink, AudioSource
from voice.session import SpokenTurn
from voice.state import StateChanged
from voice.wake_protocol import WakeEvent

NO_KEY = "Voice needs a Gemini API key: add it in Settings (Ctrl+,), then restart Parley."

AudioFactory = Callable[[], tuple[AudioSource, AudioSink]]


class WindowVoice:
    def __init__(self, bridge: ChatBridge, runtime: Runtime, settings: Settings, audio: AudioFactory) -> None:
        self._bridge = bridge
        self._runtime = runtime
        self._settings = settings
        self._audio = audio
        self._loop: VoiceLoop | None = None
        bridge.current_chat_changed.connect(self.continue_in)

    def start(self) -> None:
        """Start listening once the chat services are open; problems show in the window's banner."""
        if self._settings.gemini_api_key is None:
            self._bridge.post_state("off")
            self._bridge.error.emit(NO_KEY)
            return
        self._bridge.run_with_services(self._run)

    def continue_in(self, chat_id: UUID | None) -> None:
        """GUI thread: the chat selected in the window is where the next conversation goes."""
        if chat_id is not None:
            self._runtime.submit(self._continue_in(chat_id))

    async def _continue_in(self, chat_id: UUID) -> None:
        if self._loop is not None:
            self._loop.continue_in(chat_id)

    async def _run(self, services: ChatServices) -> None:
        chat_id = self._bridge.current_chat_id
        if chat_id is None:
            recent = await services.store.list_chats(limit=1)
            chat_id = recent[0].id if recent else (await services.store.create()).id
        source, sink = self._audio()
        self._loop = VoiceLoop(
            settings=self._settings, services=services, source=source, sink=sink, chat_id=chat_id, observer=self
        )
        await self._loop.run()

    # The observer: called on the runtime thread.

    def ready(self, wake_word: str, chat_id: UUID) -> None:
        self._bridge.post_chat_switched(chat_id)  # the window shows the chat the next conversation continues
        self._bridge.post_state("sleeping")

    def state(self, change: StateChanged) -> None:
        self._bridge.post_state(change.new.value)

    async def wake(self, wake: WakeEvent) -> None:
        return None  # the state change to "connecting" says it

    async def conversation(self, event: ConversationEvent) -> None:
        if isinstance(event, SpokenTurn) and self._loop is not None:
            self._bridge.post_turn(self._loop.chat_id, event.role, event.text)
        elif isinstance(event, Saved):
            self._bridge.post_chat_saved(event.chat_id)
        elif isinstance(event, ChatSwitched):
            self._bridge.post_chat_switched(event.chat_id)
