"""`parley listen`: the whole voice loop on the microphone, or on a recording instead of it."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import ssl
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any
from uuid import UUID

from app.chat_commands import UsageError
from app.conversation import ChatConversation, ChatSwitched, ConversationEvent, Saved, VoiceSettings
from app.settings import Settings, SettingsError
from app.wiring import open_chat_services
from chats.journal import TurnJournal
from chats.maintenance import MaintenanceWorker
from chats.store import ChatStore
from voice.assistant import Assistant
from voice.audio import MODEL_VOICE_FORMAT, AudioSink, AudioSource
from voice.echo import EchoCancelledSource, EchoCanceller
from voice.gemini_live import connect
from voice.microphone import MicrophoneSource
from voice.null_sink import NullSink
from voice.session import SpokenTurn, ToolUsed
from voice.speaker import SpeakerSink
from voice.state import StateChanged, StateMachine
from voice.wake import OpenWakeWordDetector
from voice.wake_protocol import WakeEvent
from voice.wav import WavFileSink, WavFileSource

JOURNAL_FILE = "journal.jsonl"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    listen = commands.add_parser("listen", help="talk to Parley (the microphone, or a recording)")
    listen.add_argument("--audio-in", type=Path, help="a recording to use instead of the microphone")
    listen.add_argument("--audio-out", type=Path, help="write Parley's voice to this WAV file")
    chat = listen.add_mutually_exclusive_group()
    chat.add_argument("--chat", help="continue this chat (default: the most recent one)")
    chat.add_argument("--new-chat", action="store_true", help="start a new chat")
    listen.add_argument("--events", action="store_true", help="print one JSON object per event on stdout")
    listen.add_argument("--fast", action="store_true", help="read the recording as fast as possible")
    listen.set_defaults(handler=run)


def run(settings: Settings, args: argparse.Namespace) -> int:
    if args.fast and args.audio_in is None:
        raise UsageError("--fast only applies to a recording (--audio-in)")
    if settings.gemini_api_key is None:
        raise SettingsError("voice conversations need a Gemini API key: set GEMINI_API_KEY or `parley keys set gemini`")
    return asyncio.run(_listen(settings, args))


async def _listen(settings: Settings, args: argparse.Namespace) -> int:
    printer = EventPrinter(enabled=args.events)
    async with AsyncExitStack() as stack:
        services = await stack.enter_async_context(open_chat_services(settings))
        journal = TurnJournal(settings.data_dir / JOURNAL_FILE)
        await journal.deliver(services.store)  # turns a crash left behind, before anything new
        maintenance = await stack.enter_async_context(MaintenanceWorker(services.maintainer))
        wake = await stack.enter_async_context(
            OpenWakeWordDetector(settings.wake_word, threshold=settings.wake_threshold)
        )
        await wake.warm_up()
        source, sink = _audio(args)
        stack.push_async_callback(source.aclose)
        stack.push_async_callback(sink.aclose)
        stack.push_async_callback(sink.drain)
        conversation = ChatConversation(
            services=services,
            journal=journal,
            maintenance=maintenance,
            connect=functools.partial(
                connect,
                api_key=settings.gemini_api_key.reveal() if settings.gemini_api_key else "",
                base_url=settings.gemini_base_url,
                ssl_context=ssl_context(settings),
            ),
            sink=sink,
            settings=VoiceSettings(live_model=settings.gemini_live_model, idle_after_s=settings.idle_seconds),
            chat_id=await _chat(services.store, args),
            on_event=printer.conversation,
        )
        states = StateMachine()
        states.subscribe(printer.state)
        assistant = Assistant(source=source, wake=wake, conversation=conversation, states=states, on_wake=printer.wake)
        printer.emit({"event": "ready", "wake_word": wake.model_name, "chat_id": str(conversation.chat_id)})
        try:
            await assistant.run()
        finally:
            await conversation.save()
    return 0


def _audio(args: argparse.Namespace) -> tuple[AudioSource, AudioSink]:
    """A recording in, the voice to a file or nowhere; or the microphone and the speaker, with the
    speaker's sound cancelled out of the microphone so Parley never hears (or interrupts) itself."""
    if args.audio_in is not None:
        source = WavFileSource(args.audio_in, realtime=not args.fast)
        sink: AudioSink = WavFileSink(args.audio_out, MODEL_VOICE_FORMAT) if args.audio_out else NullSink()
        return source, sink
    canceller = EchoCanceller()
    speaker: AudioSink = (
        WavFileSink(args.audio_out, MODEL_VOICE_FORMAT)
        if args.audio_out
        else SpeakerSink(MODEL_VOICE_FORMAT, on_played=canceller.played)
    )
    return EchoCancelledSource(MicrophoneSource(), canceller), speaker


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


async def _chat(store: ChatStore, args: argparse.Namespace) -> UUID:
    if args.chat is not None:
        try:
            chat_id = UUID(args.chat)
        except ValueError:
            raise UsageError(f"not a chat id: {args.chat!r}") from None
        return (await store.load_assistant_context(chat_id)).chat_id
    recent = [] if args.new_chat else await store.list_chats(limit=1)
    return recent[0].id if recent else (await store.create()).id


class EventPrinter:
    """`--events`: one JSON object per line on stdout, each naming its kind under "event"."""

    def __init__(self, *, enabled: bool) -> None:
        self._enabled = enabled

    def emit(self, event: dict[str, Any]) -> None:
        if self._enabled:
            sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
            sys.stdout.flush()

    def state(self, change: StateChanged) -> None:
        self.emit({"event": "state", "old": change.old.value, "new": change.new.value})

    async def wake(self, wake: WakeEvent) -> None:
        self.emit({"event": "wake", "model": wake.model, "score": round(wake.score, 3), "offset_ms": wake.offset_ms})

    async def conversation(self, event: ConversationEvent) -> None:
        if isinstance(event, SpokenTurn):
            self.emit({"event": "transcript", "role": event.role, "text": event.text, "interrupted": event.interrupted})
        elif isinstance(event, ToolUsed):
            call = event.call
            self.emit(
                {"event": "tool_call", "name": call.name, "args": dict(call.args), "result": dict(event.reply.result)}
            )
        elif isinstance(event, Saved):
            self.emit({"event": "saved", "chat_id": str(event.chat_id), "turns": event.turns})
        elif isinstance(event, ChatSwitched):
            self.emit({"event": "chat", "chat_id": str(event.chat_id)})
