"""`parley ask "TEXT"`: one typed turn, without a microphone, through the voice loop `parley listen` runs
(the same session, tools, journal and saving); the answer's text is printed and the command ends. While a
Parley runs on the same chats (the window, even hidden, or `parley listen`), the question goes to it
instead (`app.asks`), and is answered in its conversation and its chat."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.command_runner import UsageError, chat_id_argument
from app.cli.tool_consent import YES_FLAG, TerminalConsent
from app.config.settings import Settings
from voice.audio.forwarding import ForwardingSink
from voice.errors import VoiceError
from voice.races import race, unless

if TYPE_CHECKING:  # the voice loop and its audio are imported by `ask`, not when `parley` reads its options
    from app.asks.answer import Answer
    from app.core.toolkit import Asker
    from app.voice_loop import VoiceLoop
    from app.wiring import ChatServices


class NoAnswer(VoiceError):
    """The conversation ended without the model saying anything to the message."""


STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""Ctrl-C, and `kill` (or a desktop's session ending): both stop an `ask` the same clean way."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ask = commands.add_parser("ask", help="type one message to Parley and print its answer (no microphone)")
    ask.add_argument("text", help="the message, as it would be typed in the window")
    chat = ask.add_mutually_exclusive_group()
    chat.add_argument("--chat", help="continue this chat (default: the most recent one)")
    chat.add_argument("--new-chat", action="store_true", help="start a new chat")
    ask.add_argument("--json", action="store_true", help="print the chat id, both turns and the tools used as JSON")
    ask.add_argument("--audio-out", type=Path, help="write Parley's voice to this WAV file")
    ask.add_argument(
        YES_FLAG,
        action="store_true",
        help="run the tools that ask first (your MCP tools that may change things) without asking; without it"
        " they are asked about on the terminal, or refused when there is none",
    )
    ask.set_defaults(handler=run)


def run(settings: Settings, args: argparse.Namespace) -> int:
    text = args.text.strip()
    if not text:
        raise UsageError("nothing to ask: the message is blank")
    if args.audio_out is not None and not args.audio_out.parent.is_dir():
        raise UsageError(f"cannot write audio to {args.audio_out}: folder {args.audio_out.parent} does not exist")
    consent = TerminalConsent(allow_all=args.yes)
    answer = asyncio.run(_running_parleys_answer(settings, text, args, consent))
    if answer is None:  # no Parley runs on these chats: this process answers (and prints it as it comes)
        answer = _answer_here(settings, text, args, consent)
    elif answer.failure is None:
        _print_answer(answer, as_json=args.json)
    if answer.failure is not None:
        print(f"parley: {answer.failure}", file=sys.stderr)
        return 1
    for refused in consent.refused:  # answered, but not as asked: a script must not take it for done
        print(f"parley: {refused}", file=sys.stderr)
    return 1 if consent.refused else 0


def _print_answer(answer: Answer, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(answer.as_json(), ensure_ascii=False))
    else:
        print(answer.model)
        for source in answer.sources:
            print(f"  {source['title']}: {source['uri']}")  # the pages a web answer drew on
    # Flushed (a pipe's stdout is held until the exit): the reader has the answer while the chat is titled.
    sys.stdout.flush()


async def _running_parleys_answer(
    settings: Settings, text: str, args: argparse.Namespace, consent: TerminalConsent
) -> Answer | None:
    """The answer of the Parley running on these chats, or None when none runs (then this process may
    listen: `AlreadyListening` at once, not after the models load, when the folder's lock is held by a
    Parley that takes no questions)."""
    from app.asks.client import ask_running, running_parley
    from app.listening_lock import AlreadyListening, who_listens

    data_dir = settings.data_dir
    if args.audio_out is not None:
        if await running_parley(data_dir):
            raise UsageError(
                "--audio-out cannot reach the Parley running on these chats: its voice plays on that Parley's"
                " speaker, not into a file. Ask without --audio-out, or quit it first"
            )
    else:
        chat = None if args.chat is None else chat_id_argument(args.chat)
        with _stop_signals() as stopping:
            asking = ask_running(data_dir, text, chat=chat, new_chat=args.new_chat, asker=consent)
            answer = await unless(asking, stopping.wait())
            if answer is not None:
                return answer
            if stopping.is_set():
                raise Stopped("stopped waiting for the answer; the question stays with the running Parley, in its chat")
    settings.api_keys.read_all()  # this process answers: a key it cannot use is refused before it writes anything
    owner = who_listens(data_dir)
    if owner is not None:
        raise AlreadyListening(owner)
    return None


def _answer_here(settings: Settings, text: str, args: argparse.Namespace, consent: TerminalConsent) -> Answer:
    """The answer of a voice loop run in this process, for this one question."""
    # The voice is written beside its file, and put in its place only once the answer came (before the answer
    # is printed): a failed ask leaves no half-written file (nor an older one overwritten).
    partial = None if args.audio_out is None else args.audio_out.with_name(f".{args.audio_out.name}.partial")

    def told(answer: Answer) -> None:
        if partial is not None:
            partial.replace(args.audio_out)
        _print_answer(answer, as_json=args.json)

    try:
        return asyncio.run(
            ask(settings, text, chat=args.chat, new_chat=args.new_chat, audio_out=partial, asker=consent, told=told)
        )
    finally:
        if partial is not None:  # not answered (once answered, it is in its place already)
            partial.unlink(missing_ok=True)


async def ask(
    settings: Settings,
    text: str,
    *,
    chat: str | None = None,
    new_chat: bool = False,
    audio_out: Path | None = None,
    asker: Asker | None = None,
    told: Callable[[Answer], None] | None = None,
) -> Answer:
    """Send `text` as one typed turn in `chat` (default: the most recent chat; `new_chat`: a new one) and
    wait for the answer, saved with the message. `audio_out`: a WAV file for the voice (else it goes
    nowhere). The answer's `failure` says when the model could not be reached; raises what the loop
    raises, `NoAnswer`, or `ChatNotFound` for an unknown chat. A new chat is created only once the message
    reaches it: no empty chat is left behind. `asker`: whether to run a tool that asks first (else the tool
    waits for a yes no one can say). `told`: given the answer as soon as it is saved, before the chat is titled
    (not for a failure)."""
    # Imported here, not with the module: the voice loop (the offline voice, the echo canceller, the tools)
    # takes a second to import, which every other `parley` command would pay.
    from app.asks.answer import Answer
    from app.cli.listen_command import chat_to_talk_in
    from app.tool_kits import tool_kits
    from app.voice_loop import VoiceLoop
    from app.wiring import open_chat_services
    from chats.errors import ChatsError
    from voice.audio.chunks import MODEL_VOICE_FORMAT
    from voice.audio.null_sink import NullSink
    from voice.audio.wav import WavFileSink

    async with open_chat_services(settings) as services:
        chat_id, new = await chat_to_talk_in(services.store, chat, new_chat=new_chat)
        answer = Answer(chat_id)
        sink = NullSink(MODEL_VOICE_FORMAT) if audio_out is None else WavFileSink(audio_out, MODEL_VOICE_FORMAT)
        # The local embedding model stays in this process (`parley listen` puts it in a child): no
        # microphone or speaker callback waits on this interpreter's lock here.
        # It ends long before timers ring; its one conversation waits for the servers to start or give up (a
        # bounded wait): there is no next one.
        kits = tool_kits(settings, services, rings=False, declare_wait_s=None)
        for kit in kits.mcp:
            kit.ask_with(asker)
        loop = VoiceLoop(
            settings=settings,
            services=services,
            source=None,
            sink=HeardAtOnce(sink),
            chat_id=chat_id,
            new_chat=new,
            observer=answer,
            toolkits=kits.all,
            background=False,  # saved and titled, the answer is printed: the next `listen` or window does the rest
            serve_asks=False,  # it ends at its one answer: a second `ask` waits for nothing
        )
        # The offline title maker reads its language data on first use (py3langid's and lemminflect's, 1-2 s
        # on 2 cores): read while the question is answered, it titles the chat in milliseconds once saved.
        warm_up = asyncio.create_task(_warm_titles(settings, services, answer.opening), name="ask-title-warm-up")
        try:
            await _until_answered(loop, answer, text)
            if answer.failure is None and not answer.model:
                raise NoAnswer("the conversation ended without an answer")
            if answer.failure is None:  # titled before it ends: no list shows it as "New chat" till a window
                if told is not None:
                    told(answer)
                await asyncio.gather(warm_up, return_exceptions=True)
                with suppress(ChatsError):  # not delivered (the delivery said so): the next window titles it
                    await services.maintainer.title(answer.chat_id)
        finally:
            warm_up.cancel()
            await asyncio.gather(warm_up, return_exceptions=True)
        return answer


WARM_UP_CHAT = "User: What should we plan for the weekend?\nAssistant: A walk by the lake."


async def _warm_titles(settings: Settings, services: ChatServices, opening: asyncio.Event) -> None:
    if settings.effective_text_model != "offline":  # Gemini's titles need nothing read first
        return
    # Once the conversation opens: until then this process imports and opens what answers (pure Python,
    # which one thread runs at a time); then the models load in native code, which leaves the interpreter
    # free. Its modules (yake and networkx, half a second) are imported off the event loop too.
    await opening.wait()
    await asyncio.to_thread(importlib.import_module, "chats.text.offline_text")
    await services.text_model.title(WARM_UP_CHAT)


async def _until_answered(loop: VoiceLoop, answer: Answer, text: str) -> None:
    """Run the loop on the one message until it is answered (or cannot be), or until Ctrl-C or SIGTERM,
    then stop it: it closes as `parley listen` does, the turns saved and the chat maintained. Stopped
    early, what was said so far (the question, journaled once sent) is saved now, not left in the journal
    for the next `ask` to deliver; `Stopped` says so."""
    await loop.send_text(text)
    with _stop_signals() as stopping:
        running = asyncio.create_task(loop.run(), name="ask-voice-loop")
        try:
            # Its end raced without ending it: stopped, the loop closes as `parley listen` does.
            await race(asyncio.wait({running}), answer.over.wait(), stopping.wait())
            loop.stop()
            await running
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
    if stopping.is_set() and not answer.model:
        if answer.user:
            raise Stopped(f"stopped before the answer; the question is saved in chat {answer.chat_id}")
        raise Stopped("stopped before the message was sent; nothing was saved")


@contextmanager
def _stop_signals() -> Iterator[asyncio.Event]:
    """An event set by Ctrl-C or SIGTERM while the block runs (on the running event loop)."""
    stopping = asyncio.Event()
    events = asyncio.get_running_loop()
    for number in STOPPING_SIGNALS:
        # Windows' event loops take no signal handlers, nor does a loop outside the main thread (where the
        # signal is not delivered anyway).
        with suppress(NotImplementedError, RuntimeError):
            events.add_signal_handler(number, stopping.set)
    try:
        yield stopping
    finally:
        for number in STOPPING_SIGNALS:
            with suppress(NotImplementedError, RuntimeError):
                events.remove_signal_handler(number)


class Stopped(VoiceError):
    """Ctrl-C or SIGTERM ended the `ask` before the answer came."""


class HeardAtOnce(ForwardingSink):
    """`sink` as nobody hears it in real time: `parley ask` has no speaker to wait for (its voice goes to a
    file, or nowhere), so the voice counts as played the moment it is written, and a finished answer is
    recorded, and the command ends, at once. `sink` still receives all of it."""

    @property
    def queued_ms(self) -> float:
        return 0.0
