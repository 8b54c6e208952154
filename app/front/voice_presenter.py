"""The voice loop run for a front end: it starts the loop once the chat services are open, observes it,
and tells the front end what to show as `FrontEvent`s, the problems that hold (another process listens on
these chats; a conversation could not connect; a device failed) included, until they no longer do.

Everything here runs on the runtime thread (the loop's event loop), `announce` aside; the front end's
requests (`talk`, `send_text`, `set_muted`, `continue_in`) are coroutines to submit there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from uuid import UUID

from app.config.settings import Settings
from app.conversation import ChatSwitched, ConversationEvent, Maintained, Saved
from app.core.events import (
    ChatSaved,
    DefaultChat,
    DeviceBack,
    DeviceLost,
    LevelHeard,
    MemoriesChanged,
    MutedChanged,
    Notice,
    Post,
    Problem,
    ProblemResolved,
    StatusChanged,
    ToolActivity,
    TurnSpoken,
    VoiceInChat,
)
from app.core.status import OFFLINE_NOTICE, VoiceStatus
from app.front.device_switch import DeviceSwitch
from app.listening_lock import AlreadyListening
from app.screen.toolkit import look_request
from app.tool_kits import ToolKits, tool_kits
from app.voice_loop import AudioDevice, VoiceLoop
from app.wiring import ChatServices
from voice.audio.chunks import AudioSink, AudioSource
from voice.session_events import ConnectionFailed, ToolStarted, ToolUsed
from voice.state import AssistantState, StateChanged
from voice.wake.protocol import WakeEvent

NO_KEY = (
    "Voice is set to Gemini, which needs an API key: add it in Settings (Ctrl+,), or set voice_model to auto "
    "or offline, then restart Parley."
)
NOT_LISTENING = "Parley is not listening yet: try again in a moment."
WAITING_FOR = "Parley is already listening on these chats ({owner}): this window listens once it quits."
NO_MICROPHONE = (
    "{problem}. You can still type to Parley; the wake word and Talk need a microphone (once one is connected, "
    "choose it in Settings)."
)
NO_SPEAKER = "{problem}. Parley's answers are shown, not spoken."
LISTENING_POLL_S = 1.0
"""How often the front end checks whether the other process still listens."""
MEMORY_WRITES = frozenset({"save_memory", "add_memory", "forget_memory"})
"""Tools whose success changes the memories a front end may be showing."""

AudioFactory = Callable[[], tuple[AudioSource, AudioSink]]
"""Makes the microphone (or a recording) and the speaker when the loop starts, on a worker thread: it may
load native libraries (the echo canceller's)."""


class VoicePresenter:
    def __init__(
        self, settings: Settings, audio: AudioFactory, post: Post, current_chat: Callable[[], UUID | None]
    ) -> None:
        """`post` gets every event; `current_chat` says which chat the front end shows (the loop starts in
        it, else in the most recent chat, else in a new one)."""
        self._settings = settings
        self._audio = audio
        self._post = post
        self._current_chat = current_chat
        self._loop: VoiceLoop | None = None
        self._muted = False
        """What the front end asked for; applied to the loop when it starts."""
        self._banner: str | None = None
        """The problem this presenter said (another process listens on these chats; a conversation could
        not connect) while it holds: resolved once the loop is ready, or a conversation connects."""
        self._kits: ToolKits | None = None
        self._devices: dict[AudioDevice, str] = {}
        """The audio devices that failed (or could not be opened), with why: the loop goes on without them,
        and the problem is said for as long as it runs."""

    @property
    def can_listen(self) -> bool:
        """False when the settings leave the voice off (Gemini without a key): `run` only shows a chat."""
        settings = self._settings
        return not (settings.effective_voice_model == "gemini" and settings.gemini_api_key is None)

    def announce(self) -> None:
        """What is known before the services open: the voice is off, or answered by the offline model.
        Any thread."""
        if not self.can_listen:
            self._post(StatusChanged(VoiceStatus.OFF))
            self._post(Problem(NO_KEY))
        elif self._settings.effective_voice_model == "offline":
            self._post(Notice(OFFLINE_NOTICE))

    async def run(self, services: ChatServices) -> None:
        """Once the chat services are open: the loop, until the runtime stops (or, without a voice, the most
        recent chat shown). A failure posts `ERROR` and is raised for the front end to say."""
        if not self.can_listen:
            recent = await services.store.list_chats(limit=1)
            if recent:
                self._post(DefaultChat(recent[0].id))
            return
        chat_id = self._current_chat()
        if chat_id is None:
            recent = await services.store.list_chats(limit=1)
            chat_id = recent[0].id if recent else (await services.store.create()).id
        try:
            # Off the event loop: the echo canceller loads its native library, while the chat list waits on
            # this loop for its first page.
            source, sink = await asyncio.to_thread(self._audio)
            self._kits = tool_kits(self._settings, services, post=self._post, sink=sink)
            self._loop = VoiceLoop(
                settings=self._settings,
                services=services,
                source=source,
                sink=sink,
                chat_id=chat_id,
                observer=self,
                on_device_lost=self.device_lost,
                on_microphone_back=self.microphone_back,
                toolkits=self._kits.all,
            )
            await self._loop.set_muted(self._muted)
            await self._run_when_free(self._loop)
        except Exception:
            self._post(StatusChanged(VoiceStatus.ERROR))  # the front end says what went wrong
            raise

    # The front end's requests.

    async def continue_in(self, chat_id: UUID) -> None:
        """The chat chosen in the front end is where the next conversation goes."""
        if self._loop is not None:
            self._loop.continue_in(chat_id)

    async def talk(self) -> None:
        """Push-to-talk: start a conversation as the wake word does (nothing while one runs)."""
        if self._loop is not None and not await self._loop.talk() and "microphone" in self._devices:
            self._say_devices()  # again, if it was dismissed: Talk does nothing without a microphone

    async def send_text(self, text: str) -> None:
        """A typed message for the assistant: sent at once in a conversation, else it starts one."""
        if self._loop is None:
            self._post(Problem(NOT_LISTENING))
        else:
            await self._loop.send_text(text)

    @property
    def looks_at_screen(self) -> bool:
        """Gemini answers and may look at the screen (the `look_at_screen` setting): the Look button shows."""
        return self._settings.look_at_screen and self._settings.effective_voice_model == "gemini"

    async def look_at_screen(self) -> None:
        """The user asks the model to look at the screen: their words for it, sent as typed (`look_request`)."""
        await self.send_text(look_request(self._settings))

    async def prepare(self) -> None:
        """A message is being typed: what its answer needs starts loading (`VoiceLoop.prepare`)."""
        if self._loop is not None:
            self._loop.prepare()

    async def stop_timer(self, timer_id: str | None = None) -> None:
        """Stop a ringing timer (None: every one that rings)."""
        if self._kits is not None and self._kits.ringer is not None:
            self._kits.ringer.stop(timer_id)

    async def cancel_timer(self, timer_id: str) -> None:
        """Cancel a timer or a reminder before it rings; the front end learns the list that remains."""
        if self._kits is not None:
            await self._kits.timers.cancel(timer_id)

    async def answer_confirmation(self, confirmation: str, allowed: bool) -> None:
        """The user's Allow (or Deny) of a held tool call: it counts as their yes (or no) for that call, and
        the model hears it as a typed turn, so that it runs (or drops) the call."""
        for kit in () if self._kits is None else self._kits.mcp:
            words = kit.decide(confirmation, allowed)
            if words is not None and self._loop is not None:
                await self._loop.send_text(words)

    async def apply_settings(self, settings: Settings) -> None:
        """Settings saved in the front end: the loop takes what it can at once (`VoiceLoop.apply_settings`)."""
        self._settings = settings
        if self._loop is not None:
            self._loop.apply_settings(settings)

    async def switch_devices(self, devices: DeviceSwitch, settings: Settings) -> None:
        """The devices Settings name, from the loop's next sleep on (`DeviceSwitch.switch`); a microphone that
        or a speaker that failed is opened again even when it is the same one, and the loop reads (or plays
        through) it again."""
        replaced = await devices.switch(settings)
        if self._loop is None:
            return
        if "microphone" in replaced:
            self._loop.hear_again()
        if "speaker" in replaced and await self._loop.speak_again():
            self._device_back("speaker", NO_SPEAKER)

    async def set_muted(self, muted: bool) -> None:
        self._muted = muted
        if self._loop is not None:
            await self._loop.set_muted(muted)

    # The loop's observer (`app.voice_loop.VoiceObserver`).

    def ready(self, wake_word: str, chat_id: UUID) -> None:
        self._post(VoiceInChat(chat_id))  # the front end shows the chat the next conversation continues
        self._post(StatusChanged(VoiceStatus.SLEEPING))
        self._resolve_banner()  # listening now: another process no longer does

    def state(self, change: StateChanged) -> None:
        self._post(StatusChanged(VoiceStatus.of(change.new)))
        if change.new is AssistantState.LISTENING:
            self._resolve_banner()  # connected: a failure to connect no longer holds

    def muted(self, muted: bool) -> None:
        self._post(MutedChanged(muted))

    def device_lost(self, device: AudioDevice, problem: str) -> None:
        """The microphone or the speaker failed: the loop goes on without it, and the front end says so."""
        self._devices[device] = problem
        self._post(DeviceLost(device, problem))
        if self._banner is None:  # else it is said once that problem is resolved
            self._say_devices()

    def microphone_back(self) -> None:
        """The microphone that failed gives sound again: its problem no longer holds."""
        self._device_back("microphone", NO_MICROPHONE)

    def _device_back(self, device: AudioDevice, words: str) -> None:
        problem = self._devices.pop(device, None)
        if problem is not None:
            self._post(ProblemResolved(words.format(problem=problem)))
        self._post(DeviceBack(device))

    def level(self, dbfs: float) -> None:
        self._post(LevelHeard(dbfs))

    async def wake(self, wake: WakeEvent) -> None:
        return None  # the state change to "connecting" says it

    async def conversation(self, event: ConversationEvent) -> None:
        if isinstance(event, TurnSpoken):
            self._post(event)  # the conversation's own record, as journaled
        elif isinstance(event, ToolStarted) and self._loop is not None:
            call = event.call
            self._post(ToolActivity(self._loop.chat_id, call.id, call.name, call.args))
        elif isinstance(event, ToolUsed) and self._loop is not None:
            call, result = event.call, event.reply.result
            self._post(ToolActivity(self._loop.chat_id, call.id, call.name, call.args, result))
            if call.name in MEMORY_WRITES and result.get("success"):
                self._post(MemoriesChanged())
        elif isinstance(event, Saved | Maintained):  # the list and the chat shown, read again
            self._post(ChatSaved(event.chat_id))
        elif isinstance(event, ChatSwitched):
            self._post(VoiceInChat(event.chat_id))
        elif isinstance(event, ConnectionFailed):
            self._say_banner(event.message)

    async def _run_when_free(self, loop: VoiceLoop) -> None:
        """Run the loop; while another process listens on these chats (`parley listen`, say), wait for it
        to quit, saying so."""
        while True:
            try:
                await loop.run()
                return
            except AlreadyListening as busy:
                if self._banner is None:
                    self._post(StatusChanged(VoiceStatus.OFF))
                    self._say_banner(WAITING_FOR.format(owner=busy.owner))
            await asyncio.sleep(LISTENING_POLL_S)

    def _say_banner(self, message: str) -> None:
        self._banner = message
        self._post(Problem(message))

    def _resolve_banner(self) -> None:
        if self._banner is not None:
            self._post(ProblemResolved(self._banner))
            self._banner = None
            if self._devices:
                self._say_devices()  # what still holds, back in its place

    def _say_devices(self) -> None:
        """Each failed device's problem, one message each: a front end shows them one per line."""
        if "microphone" in self._devices:
            self._post(Problem(NO_MICROPHONE.format(problem=self._devices["microphone"])))
        if "speaker" in self._devices:
            self._post(Problem(NO_SPEAKER.format(problem=self._devices["speaker"])))
