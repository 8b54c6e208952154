"""`parley listen`: the whole voice loop on the microphone, or on a recording instead of it."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

from app.cli.command_runner import UsageError, chat_id_argument
from app.config.settings import Settings
from app.core.status import VoiceStatus
from voice.audio.devices import AudioDevice, audio_devices
from voice.errors import NoAudioDevice

NO_SOUND = "no sound card, and no sound server running"

if TYPE_CHECKING:  # the voice loop and its audio are imported by `run`, not when `parley` reads its options
    from app.conversation import ConversationEvent
    from app.core.events import FrontEvent
    from chats.store import ChatStore
    from voice.audio.chunks import AudioSink, AudioSource
    from voice.state import StateChanged
    from voice.wake.protocol import WakeEvent


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
    settings.api_keys.read_all()  # a key that cannot be used is refused before the conversation starts
    # Before the models load and the chats open (seconds): a wrong file, or no microphone, is said at once.
    if args.audio_in is not None:
        from voice.audio.wav import read_header

        header = read_header(args.audio_in)
        if header.ended_early:
            print(f"parley: warning: {header.warning(args.audio_in)}", file=sys.stderr)
    else:
        require_microphone()
    return asyncio.run(_listen(settings, args))


def require_microphone(devices: Callable[[], list[AudioDevice]] = audio_devices) -> None:
    """`NoAudioDevice` when `devices` (PortAudio's) holds nothing that records. A device that is listed and
    still fails to open is found when the loop opens it."""
    found = devices()
    if not found:
        raise NoAudioDevice(f"no microphone found: PortAudio sees no audio devices ({NO_SOUND})")
    if not any(device.input_channels > 0 for device in found):
        raise NoAudioDevice(f"no microphone found: PortAudio sees no device that records ({NO_SOUND})")


async def _listen(settings: Settings, args: argparse.Namespace) -> int:
    # Imported here, not with the module: the voice loop (the offline voice, the echo canceller, the tools)
    # takes a second to import, which every other `parley` command would pay.
    from app.tool_kits import tool_kits
    from app.voice_loop import VoiceLoop
    from app.wiring import open_chat_services

    # The local embedding model in a child process: its work would otherwise hold this interpreter's
    # lock while the microphone and speaker callbacks wait for it.
    async with open_chat_services(settings, local_models_in_child=True) as services:
        source, sink = _audio(settings, args)
        printer = EventPrinter(enabled=args.events)
        chat_id, new_chat = await chat_to_talk_in(services.store, args.chat, new_chat=args.new_chat)
        loop = VoiceLoop(
            settings=settings,
            services=services,
            source=source,
            sink=sink,
            chat_id=chat_id,
            new_chat=new_chat,
            observer=printer,
            toolkits=tool_kits(settings, services, post=printer.front, sink=sink).all,
        )
        await loop.run()
    # A conversation that could not connect is a failure of the command, so scripts and CI notice a wrong
    # key or no network.
    if printer.connection_failed is not None:
        print(f"parley: {printer.connection_failed}", file=sys.stderr)
        return 1
    return 0


def _audio(settings: Settings, args: argparse.Namespace) -> tuple[AudioSource, AudioSink]:
    """A recording in and the voice to a file (or nowhere); else the microphone and the speaker."""
    from app.front.device_checks import microphone_and_speaker
    from voice.audio.chunks import MODEL_VOICE_FORMAT
    from voice.audio.null_sink import NullSink
    from voice.audio.wav import WavFileSink, WavFileSource

    if args.audio_in is not None:
        source = WavFileSource(args.audio_in, realtime=not args.fast)
        # Read in real time, the voice plays in real time too (speaking over it stops it); read as fast as
        # possible, it is heard the moment it is written.
        clock = None if args.fast else time.monotonic
        sink: AudioSink = (
            WavFileSink(args.audio_out, MODEL_VOICE_FORMAT, clock=clock) if args.audio_out else NullSink(clock=clock)
        )
        return source, sink
    if args.audio_out is not None:
        return microphone_and_speaker(settings, speaker=WavFileSink(args.audio_out, MODEL_VOICE_FORMAT))
    return microphone_and_speaker(settings)


async def chat_to_talk_in(store: ChatStore, chat: str | None, *, new_chat: bool) -> tuple[UUID, bool]:
    """The chat a command talks in (`chat`, else a new one with `new_chat`, else the most recent), and
    whether it is new: a new chat is an id the store does not hold yet, created with its first saved
    turn, so a run that fails before anything is said leaves no empty chat behind."""
    if chat is not None:
        return (await store.load_assistant_context(chat_id_argument(chat))).chat_id, False
    recent = [] if new_chat else await store.list_chats(limit=1)
    return (recent[0].id, False) if recent else (uuid4(), True)


class EventPrinter:
    """`--events`: one JSON object per line on stdout, each naming its kind under "event"."""

    def __init__(self, *, enabled: bool) -> None:
        self._enabled = enabled
        self.connection_failed: str | None = None
        """Why a conversation could not connect to the live model, in one line."""
        self._status: str = VoiceStatus.SLEEPING.value
        """The status the last `state` line gave (the loop starts asleep)."""

    def emit(self, event: dict[str, Any]) -> None:
        if self._enabled:
            sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
            sys.stdout.flush()

    def front(self, event: FrontEvent) -> None:
        """What the tool kits tell a front end: a timer rang, stopped or was missed (the list of running timers is
        `parley timers`'s); Parley looks at the screen (`looking`, a status between two of the loop's states,
        printed as a `state` line like them)."""
        from app.core.events import StatusChanged, TimerRinging, TimersMissed  # loaded with the loop already

        if isinstance(event, StatusChanged):
            self._changed(self._status, event.status.value)
        elif isinstance(event, TimerRinging):
            self.emit({"event": "timer", "id": event.timer.id, "message": event.message})
        elif isinstance(event, TimersMissed):
            self.emit({"event": "timers_missed", "ids": list(event.timer_ids), "message": event.message})

    def ready(self, wake_word: str, chat_id: UUID) -> None:
        self.emit({"event": "ready", "wake_word": wake_word, "chat_id": str(chat_id)})

    def state(self, change: StateChanged) -> None:
        self._changed(change.old.value, change.new.value)

    def _changed(self, old: str, new: str) -> None:
        self._status = new
        self.emit({"event": "state", "old": old, "new": new})

    def muted(self, muted: bool) -> None:
        return None  # `parley listen` has no mute control: never called

    def level(self, dbfs: float) -> None:
        return None  # ten lines a second would bury the conversation's events: the window shows levels

    async def wake(self, wake: WakeEvent) -> None:
        self.emit({"event": "wake", "model": wake.model, "score": round(wake.score, 3), "offset_ms": wake.offset_ms})

    async def conversation(self, event: ConversationEvent) -> None:
        # Loaded with the loop already (see `_listen`): `parley --help` reads this module, and `app.core.events`
        # brings numpy with the chats' models.
        from app.conversation import ChatSwitched, Saved
        from app.core.events import TurnSpoken
        from voice.session_events import ConnectionFailed, ToolUsed

        if isinstance(event, TurnSpoken):
            turn = event.turn
            self.emit({"event": "transcript", "role": turn.role, "text": turn.text, "interrupted": turn.interrupted})
        elif isinstance(event, ToolUsed):
            call = event.call
            self.emit(
                {"event": "tool_call", "name": call.name, "args": dict(call.args), "result": dict(event.reply.result)}
            )
        elif isinstance(event, Saved):
            self.emit({"event": "saved", "chat_id": str(event.chat_id), "turns": event.turns})
        elif isinstance(event, ChatSwitched):
            self.emit({"event": "chat", "chat_id": str(event.chat_id)})
        elif isinstance(event, ConnectionFailed):
            self.connection_failed = event.message
            self.emit({"event": "error", "message": event.message})
