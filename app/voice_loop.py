"""The voice loop as one coroutine: the assistant on an audio source and sink, bound to a chat, its turns
journaled and saved. `parley listen` runs it on the command line, the window on its runtime thread.

The window's controls call `talk`, `set_muted` and `send_text` on the runtime thread's event loop (they
are coroutines, for `runtime.submit`); what happens reaches it through the `VoiceObserver`."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, Literal, Protocol
from uuid import UUID

from app.asks.server import AskServer
from app.chat_in_conversation import ChatInConversation
from app.config.config_file import SettingsError
from app.config.settings import Settings
from app.config.tls import ssl_context
from app.conversation import ChatConversation, ChatSwitched, ConversationEvent, Maintained, Saved
from app.core.toolkit import ConversationVoice, ListensByItself, SpeaksByItself, ToolKit
from app.listening_lock import listening_lock
from app.live_settings import voice_settings
from app.on_demand import OnDemand, holding
from app.outbox import Outbox
from app.tools.prompt import INSTRUCTIONS
from app.wake_enrolment import wake_detector
from app.wiring import ChatServices, language_detector, live_language_code
from chats.journal import JOURNAL_FILE, Delivery, TurnJournal
from chats.maintenance import MaintenanceWorker
from voice.assistant import Assistant
from voice.audio.chunks import AudioSink, AudioSource
from voice.audio.microphone_gate import MicrophoneGate
from voice.audio.optional_sink import OptionalSink
from voice.audio.preroll import StreamCursor
from voice.errors import AudioError
from voice.live.connection import LiveConnectionFactory
from voice.races import unless
from voice.state import AssistantState, StateChanged, StateMachine
from voice.typed import TypedText
from voice.wake.detector import OpenWakeWordDetector
from voice.wake.protocol import TYPED_TEXT, WakeEvent

if TYPE_CHECKING:
    from voice.offline.heard import Heard

AudioDevice = Literal["microphone", "speaker"]


class VoiceObserver(Protocol):
    """Who watches the loop: the `--events` printer, or the window's bridge."""

    def state(self, change: StateChanged) -> None: ...

    def wake(self, wake: WakeEvent) -> Awaitable[None]: ...

    def conversation(self, event: ConversationEvent) -> Awaitable[None]: ...

    def ready(self, wake_word: str, chat_id: UUID) -> None:
        """The loop hears the wake word from now on (`wake_word` is "" for a loop without a microphone, which
        takes typed messages only)."""
        ...

    def muted(self, muted: bool) -> None:
        """The microphone was muted (True: nothing it hears goes anywhere, and no `level` comes until it
        is unmuted) or unmuted (False). Only on a change."""
        ...

    def level(self, dbfs: float) -> None:
        """The microphone's level, about ten times a second while it is heard (sleeping or conversing, not
        while muted): the peak of the last ~100 ms in dBFS, from `voice.audio.level.SILENCE_DBFS` (-96, silence)
        to 0 (full scale); speech near a laptop peaks around -30 to -10."""
        ...


class VoiceLoop:
    def __init__(
        self,
        *,
        settings: Settings,
        services: ChatServices,
        source: AudioSource | None,
        sink: AudioSink,
        chat_id: UUID,
        observer: VoiceObserver,
        on_device_lost: Callable[[AudioDevice, str], None] | None = None,
        on_microphone_back: Callable[[], None] | None = None,
        new_chat: bool = False,
        toolkits: Sequence[ToolKit] = (),
        background: bool = True,
        serve_asks: bool = True,
    ) -> None:
        """`source`: the microphone, or None for a loop that takes typed messages only (no wake word model is
        loaded). `new_chat`: `chat_id` is a new id, and the chat is created with its first saved turn.
        `on_device_lost`: when given, the loop goes on without a microphone or a speaker that fails (or
        cannot be opened): typed messages still start conversations, and answers are shown but not spoken;
        it is told which device and why (one line), once each, on the loop's event loop. Without it
        (`parley listen`, which has nothing to type into), a failing microphone ends the loop with its
        error, and so does a failing speaker. `on_microphone_back`: a microphone that failed gives sound again
        after `hear_again`. `toolkits`: tools beyond the chat's own (`app.core.toolkit`),
        entered when the loop starts and exited when it stops. `background` False (`parley ask`, one message
        and gone): the loop starts no backfill, and ends once the turns are saved, leaving the chat's topic
        and recall vectors to the next loop's or window's backfill (its new turns have no vectors yet),
        instead of making its user wait seconds for them (`parley ask` titles the chat itself). `serve_asks`:
        while it runs, `parley ask` in another process reaches this loop (`app.asks.server`), as `parley
        listen` and the window do; not `parley ask`'s own loop, which ends at its one answer."""
        if settings.effective_voice_model == "gemini" and settings.gemini_api_key is None:
            raise SettingsError(
                "voice_model is gemini but no Gemini API key is set: set GEMINI_API_KEY or "
                "`parley keys set gemini`, or choose voice_model offline"
            )
        self._settings = settings
        self._services = services
        self._source = None if source is None else MicrophoneGate(source, on_level=observer.level)
        self._on_device_lost = on_device_lost
        self._on_microphone_back = on_microphone_back
        self._sink: AudioSink = sink if on_device_lost is None else OptionalSink(sink, self._speaker_lost)
        self._observer = observer
        self._stopping = asyncio.Event()
        self._journal = TurnJournal(settings.data_dir / JOURNAL_FILE)
        self._chat = ChatInConversation(chat_id, new=new_chat)
        self._toolkits = tuple(toolkits)
        self._background = background
        self._typed = TypedText()
        self._asks = AskServer(settings.data_dir, self, services, self._toolkits) if serve_asks else None
        self._conversation: ChatConversation | None = None
        """Made when the loop runs; `apply_settings` gives it the settings its next session reads."""
        self._assistant: Assistant | None = None
        self._transcribe_in: Callable[[bytes, str, str], Awaitable[Heard]] | None = None
        """The offline voice's Whisper on a short command, for the kits that listen by themselves (None: Gemini's
        voice)."""
        self._wake: OpenWakeWordDetector | None = None
        self._on_demand: tuple[OnDemand[Any], ...] = ()
        """What a conversation needs that loads on demand (`prepare`), once the loop runs."""
        self._hearing: tuple[OnDemand[Any], ...] = ()
        """What hearing the user needs that loads on demand (the offline voice's Whisper): started at the wake word
        or a press of Talk, not for a typed message."""
        for kit in self._toolkits:
            if isinstance(kit, ListensByItself):
                kit.listen_through(self.overhear)

    @property
    def chat_id(self) -> UUID:
        """The chat the conversation is in (or, while none is, the one the next continues)."""
        return self._chat.chat_id

    def continue_in(self, chat_id: UUID) -> None:
        """Make `chat_id` the chat the next conversation continues. On the loop's own event loop."""
        self._chat.continue_in(chat_id)

    async def switch_to(self, chat_id: UUID) -> None:
        """Make `chat_id` the chat the next conversation continues, and tell the observer (`ChatSwitched`: the
        window shows it). On the loop's own event loop."""
        self.continue_in(chat_id)
        await self._told(ChatSwitched(chat_id))

    @property
    def muted(self) -> bool:
        return self._source is not None and self._source.muted

    def overhear(self) -> StreamCursor | None:
        """The microphone from now on, beside the wake word (`Assistant.overhear`); None before `ready`, after
        the loop stopped, or without a microphone. A muted microphone is heard as silence."""
        return None if self._assistant is None else self._assistant.overhear()

    async def talk(self) -> bool:
        """Push-to-talk: while sleeping, start a conversation as the wake word would (the observer's `wake`
        gets a `WakeEvent` with model `PUSH_TO_TALK`). True if one starts; False during a conversation,
        without a microphone (none, or it failed), before `ready` or after the loop stopped, when nothing
        happens."""
        return self._assistant is not None and self._assistant.wake_now()

    def hear_again(self) -> bool:
        """Read the microphone again after it failed (its device was opened again: `app.front.device_switch`),
        on the loop's event loop; the wake word and Talk work again once it gives sound (`on_microphone_back`).
        False when it has not failed, or there is none."""
        return self._assistant is not None and self._assistant.hear_again()

    async def speak_again(self) -> bool:
        """Play through the speaker again after it failed (its device was opened again:
        `app.front.device_switch`), on the loop's event loop: True when it plays now; when it fails again,
        `on_device_lost` is told again. False when it has not failed, or failures end the loop."""
        return isinstance(self._sink, OptionalSink) and await self._sink.retry()

    async def set_muted(self, muted: bool) -> None:
        """Mute or unmute the microphone: while muted no wake word fires and the model hears silence; the
        speaker goes on playing. The observer's `muted` learns of each change. Without a microphone, nothing
        happens."""
        if self._source is not None and self._source.set_muted(muted):
            self._observer.muted(muted)

    async def send_text(self, text: str) -> None:
        """Send a typed message to the model as a user turn: at once in a conversation, else it starts one
        (the observer's `wake` gets model `TYPED_TEXT`) and goes once the session is open. It reaches the
        observer, the journal and the chat as a `TurnSpoken` with `typed=True` once sent. Blank text is
        ignored; a message no connection could take is dropped (logged)."""
        if text.strip():
            self._typed.put(text.strip())

    def prepare(self) -> None:
        """Start loading what a conversation needs (the models: `app.on_demand`), without waiting: a message is
        being typed, and its answer comes sooner. Unused, they go again after the quiet spell."""
        for part in self._on_demand:
            part.prepare()

    def apply_settings(self, settings: Settings) -> None:
        """Settings saved while the loop runs (on its event loop): the wake threshold counts at once, the idle
        time and the language from the next conversation on (`app.live_settings` says which settings wait
        for a restart)."""
        if settings.effective_voice_model == "offline":  # its models were loaded for one language
            settings = dataclasses.replace(settings, language=self._settings.language)
        self._settings = settings
        if self._wake is not None:
            self._wake.threshold = settings.wake_threshold
        if self._conversation is not None:
            live_model = self._conversation.settings.live_model
            self._conversation.settings = voice_settings(settings, live_model)

    def stop(self) -> None:
        """End `run` (on the loop's event loop): a conversation in progress stops where it is, its finished
        turns saved, and the loop closes as when the source ends (the voice written is played out)."""
        self._stopping.set()

    async def run(self) -> None:
        """Until the source ends, `stop()` or the task is cancelled; what was said is saved either way."""
        settings = self._settings
        async with AsyncExitStack() as stack:
            stack.enter_context(listening_lock(settings.data_dir))  # before the journal is replayed
            maintenance = await stack.enter_async_context(
                MaintenanceWorker(self._services.maintainer, finish=self._background, on_changed=self._maintained)
            )
            saved = functools.partial(self._saved, maintenance)
            outbox = await stack.enter_async_context(
                Outbox(self._journal, self._services.store, on_retry_delivered=saved)
            )
            left_behind = await outbox.deliver()  # turns a crash (or an outage) left behind, first
            if left_behind.delivered:
                await saved(left_behind)  # their chats are compacted, titled and listed as after any conversation
            if self._background:
                maintenance.request_backfill()  # chats never maintained, or without recall vectors, while idle
            for kit in self._toolkits:
                await stack.enter_async_context(kit)
            wake = await self._wake_detector(stack)
            opening, live_model = await self._live_model(stack)
            # What a conversation may need loads as it opens and goes after a quiet spell (`app.on_demand`).
            detector = language_detector(settings.models_release_s)
            stack.push_async_callback(detector.aclose)
            self._on_demand = (detector, *self._services.on_demand, *self._on_demand)
            opening = holding((detector, *self._services.on_demand), opening)
            stack.push_async_callback(self._sink.aclose)
            stack.push_async_callback(self._sink.drain)
            barge_in = None
            if self._source is not None:  # imported here: its echo canceller (livekit's) takes 0.1 s, which `ask` skips
                from voice.echo.barge_in import speech_over_playback

                barge_in = await asyncio.to_thread(speech_over_playback)
            conversation = ChatConversation(
                services=self._services,
                journal=self._journal,
                outbox=outbox,
                maintenance=maintenance,
                connect=opening,
                sink=self._sink,
                settings=voice_settings(self._settings, live_model),
                chat=self._chat,
                on_event=self._told,
                barge_in=barge_in,
                toolkits=self._toolkits,
            )
            self._conversation = conversation
            states = StateMachine()
            states.subscribe(self._observer.state)
            if self._asks is not None:
                states.subscribe(self._asks.state)
            self._lend_voice(opening, live_model, states)
            assistant = Assistant(
                source=self._source,
                wake=wake,
                conversation=conversation,
                states=states,
                on_wake=self._woken,
                typed=self._typed,
                on_microphone_lost=None if self._on_device_lost is None else self._microphone_lost,
                on_microphone_back=self._on_microphone_back,
            )
            self._assistant = assistant
            if self._asks is not None:
                await stack.enter_async_context(self._asks)  # closed first: the questions waiting are told
            self._observer.ready(wake.model_name if wake else "", self._chat.chat_id)
            try:
                await self._until_stopped(assistant)
            finally:
                await conversation.save()

    def _lend_voice(self, opening: LiveConnectionFactory, live_model: str, states: StateMachine) -> None:
        """Kits that speak or listen by themselves (a ringing timer) do so in the conversations' voice."""
        voice = ConversationVoice(
            connected=lambda: states.state is not AssistantState.SLEEPING,
            gemini=opening if self._transcribe_in is None else None,
            live_model=live_model,
            language_code=live_language_code(self._settings),
            transcribe=self._transcribe_in,
        )
        for kit in self._toolkits:
            if isinstance(kit, SpeaksByItself):
                kit.speak_with(voice)

    async def _wake_detector(self, stack: AsyncExitStack) -> OpenWakeWordDetector | None:
        """The wake word model, loaded and closed with `stack` (the microphone too); None without one."""
        if self._source is None:
            return None
        wake = self._wake = await stack.enter_async_context(wake_detector(self._settings))
        await wake.warm_up()
        stack.push_async_callback(self._source.aclose)
        return wake

    async def _until_stopped(self, assistant: Assistant) -> None:
        """The assistant until it ends, or until `stop()`: then it is cancelled, and `run` goes on closing
        the loop normally."""
        await unless(assistant.run(), self._stopping.wait())  # the assistant's failure, if it failed

    def _microphone_lost(self, error: AudioError) -> None:
        assert self._on_device_lost is not None
        self._on_device_lost("microphone", str(error))

    def _speaker_lost(self, error: AudioError) -> None:
        assert self._on_device_lost is not None
        self._on_device_lost("speaker", str(error))

    async def _woken(self, wake: WakeEvent) -> None:
        if wake.model != TYPED_TEXT:  # the user is about to speak: Whisper loads while they do
            for part in self._hearing:
                part.prepare()
        await self._observer.wake(wake)

    async def _told(self, event: ConversationEvent) -> None:
        await self._observer.conversation(event)
        if self._asks is not None:
            await self._asks.conversation(event)

    async def _saved(self, maintenance: MaintenanceWorker, delivery: Delivery) -> None:
        """Turns the store could not take before reached it (at start, or on a retry): maintain their chats,
        and say so."""
        for chat_id, turns in delivery.to_chats:
            maintenance.request(chat_id)
            await self._observer.conversation(Saved(chat_id, turns))

    async def _maintained(self, chat_id: UUID) -> None:
        await self._observer.conversation(Maintained(chat_id))

    async def _live_model(self, stack: AsyncExitStack) -> tuple[LiveConnectionFactory, str]:
        """Who answers: Gemini Live, or the offline voice (its models loaded as a conversation opens and let go
        after a quiet spell, `app.offline.voice`; closed with `stack`); and the model's name."""
        settings = self._settings
        if settings.effective_voice_model == "gemini":
            # Imported when a loop starts, not with this module: google-genai takes 0.4 s to import, and
            # the window paints first.
            from voice.live.gemini import connect
            from voice.live.gemini_warm_up import warm_up

            await warm_up()
            key = settings.gemini_api_key.reveal() if settings.gemini_api_key else ""
            gemini: LiveConnectionFactory = functools.partial(
                connect, api_key=key, base_url=settings.gemini_base_url, ssl_context=ssl_context(settings)
            )
            return gemini, settings.gemini_live_model
        # Imported here for the same reason: faster-whisper and CTranslate2 take a quarter of a second.
        from app.offline.voice import offline_voice

        voice = await offline_voice(settings, self._services.embedder, stack, instructions=INSTRUCTIONS)
        self._transcribe_in = voice.transcribe_in
        self._on_demand = (voice.models,)
        self._hearing = (voice.transcriber,)
        return voice.opening, voice.model_name
