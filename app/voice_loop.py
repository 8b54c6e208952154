"""The voice loop as one coroutine: the assistant on an audio source and sink, bound to a chat, its turns
journaled and saved. `parley listen` runs it on the command line, the window on its runtime thread."""

from __future__ import annotations

import functools
import ssl
from collections.abc import Awaitable
from contextlib import AsyncExitStack
from typing import Protocol
from uuid import UUID

from app.conversation import ChatConversation, ConversationEvent, VoiceSettings
from app.settings import Settings, SettingsError
from app.wiring import ChatServices
from chats.journal import TurnJournal
from chats.maintenance import MaintenanceWorker
from voice.assistant import Assistant
from voice.audio import MODEL_VOICE_FORMAT, AudioSink, AudioSource
from voice.echo import EchoCancelledSource, EchoCanceller
from voice.gemini_live import connect
from voice.microphone import MicrophoneSource
from voice.speaker import SpeakerSink
from voice.state import StateChanged, StateMachine
from voice.wake import OpenWakeWordDetector
from voice.wake_protocol import WakeEvent

JOURNAL_FILE = "journal.jsonl"


class VoiceObserver(Protocol):
    """Who watches the loop: the `--events` printer, or the window's bridge."""

    def state(self, change: StateChanged) -> None: ...

    def wake(self, wake: WakeEvent) -> Awaitable[None]: ...

    def conversation(self, event: ConversationEvent) -> Awaitable[None]: ...

    def ready(self, wake_word: str, chat_id: UUID) -> None:
        """The loop hears the wake word from now on."""
        ...


def ssl_context(settings: Settings) -> ssl.SSLContext | None:
    """The TLS context for the Gemini endpoint: the system's trust, plus `ca_file` when set."""
    if settings.ca_file is None:
        return None
    context = ssl.create_default_context()
    try:
        context.load_verify_locations(cafile=settings.ca_file)
    except (OSError, ssl.SSLError) as error:
        raise SettingsError(f"cannot read the CA file {settings.ca_file}: {error}") from None
    return context


def microphone_and_speaker(settings: Settings, speaker: AudioSink | None = None) -> tuple[AudioSource, AudioSink]:
    """The microphone (`settings.input_device`), with what the speaker plays cancelled out of it so Parley
    never hears (or interrupts, or wakes) itself, and the speaker (`settings.output_device`); or another
    sink in the speaker's place."""
    canceller = EchoCanceller()
    sink = speaker or SpeakerSink(MODEL_VOICE_FORMAT, device=settings.output_device, on_played=canceller.played)
    return EchoCancelledSource(MicrophoneSource(device=settings.input_device), canceller), sink


class VoiceLoop:
    def __init__(
        self,
        *,
        settings: Settings,
        services: ChatServices,
        source: AudioSource,
        sink: AudioSink,
        chat_id: UUID,
        observer: VoiceObserver,
    ) -> None:
        if settings.gemini_api_key is None:
            raise SettingsError(
                "voice conversations need a Gemini API key: set GEMINI_API_KEY or `parley keys set gemini`"
            )
        self._settings = settings
        self._services = services
        self._source = source
        self._sink = sink
        self._observer = observer
        self._journal = TurnJournal(settings.data_dir / JOURNAL_FILE)
        self._chat_id = chat_id
        self._conversation: ChatConversation | None = None

    @property
    def chat_id(self) -> UUID:
        """The chat the conversation is in (or the next one will continue)."""
        return self._conversation.chat_id if self._conversation else self._chat_id

    def continue_in(self, chat_id: UUID) -> None:
        """Make `chat_id` the chat the next conversation continues. On the loop's own event loop."""
        self._chat_id = chat_id
        if self._conversation is not None:
            self._conversation.continue_in(chat_id)

    async def run(self) -> None:
        """Until the source ends or the task is cancelled; what was said is saved either way."""
        settings = self._settings
        key = settings.gemini_api_key.reveal() if settings.gemini_api_key else ""
        async with AsyncExitStack() as stack:
            await self._journal.deliver(self._services.store)  # turns a crash left behind, first
            maintenance = await stack.enter_async_context(MaintenanceWorker(self._services.maintainer))
            wake = await stack.enter_async_context(
                OpenWakeWordDetector(settings.wake_word, threshold=settings.wake_threshold)
            )
            await wake.warm_up()
            stack.push_async_callback(self._source.aclose)
            stack.push_async_callback(self._sink.aclose)
            stack.push_async_callback(self._sink.drain)
            conversation = ChatConversation(
                services=self._services,
                journal=self._journal,
                maintenance=maintenance,
                connect=functools.partial(
                    connect, api_key=key, base_url=settings.gemini_base_url, ssl_context=ssl_context(settings)
                ),
                sink=self._sink,
                settings=VoiceSettings(live_model=settings.gemini_live_model, idle_after_s=settings.idle_seconds),
                chat_id=self._chat_id,
                on_event=self._observer.conversation,
            )
            self._conversation = conversation
            states = StateMachine()
            states.subscribe(self._observer.state)
            assistant = Assistant(
                source=self._source, wake=wake, conversation=conversation, states=states, on_wake=self._observer.wake
            )
            self._observer.ready(wake.model_name, conversation.chat_id)
            try:
                await assistant.run()
            finally:
                await conversation.save()
