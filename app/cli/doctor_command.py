"""`parley doctor`: what works on this machine and what does not, one line each.

The audio devices, the microphone level test (`--microphone`) and the wake word model check are the
settings window's own (`app.front.device_checks`): both say the same of the same machine."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
from collections.abc import Callable, Coroutine
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from app.config.config_file import SettingsError
from app.config.secrets import secret_source
from app.config.settings import Settings
from app.config.tls import ssl_context
from app.core.status import OFFLINE_NOTICE
from chats.errors import ChatsError
from voice.errors import VoiceError

if TYPE_CHECKING:  # the MCP client is imported when the check runs
    from app.mcp.catalogue import ServerReport

LIVE_CHECK_TIMEOUT_S = 15.0

Status = Literal["ok", "warning", "problem"]


@dataclass(frozen=True, slots=True)
class Finding:
    check: str
    status: Status
    detail: str


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    doctor = commands.add_parser(
        "doctor",
        help=(
            "check the store, who listens, keys, Gemini models, audio, wake word, the talk shortcut, the Live "
            "endpoint and MCP servers"
        ),
    )
    doctor.add_argument("--json", action="store_true", help="print JSON instead of text")
    doctor.add_argument(
        "--microphone",
        action="store_true",
        help="also listen to the microphone for 3 s and say how loud it was (say something meanwhile)",
    )
    doctor.set_defaults(handler=run)


def run(settings: Settings, args: argparse.Namespace) -> int:
    findings = asyncio.run(examine(settings, microphone=args.microphone))
    if args.json:
        print(json.dumps([asdict(finding) for finding in findings], indent=2))
    else:
        marks = {"ok": "ok     ", "warning": "warning", "problem": "PROBLEM"}
        for finding in findings:
            print(f"{marks[finding.status]}  {finding.check:12} {finding.detail}")
    return 1 if any(finding.status == "problem" for finding in findings) else 0


async def examine(settings: Settings, *, microphone: bool = False) -> list[Finding]:
    """Every check in turn; with `microphone`, the level test after the audio devices."""
    checks: list[Callable[[Settings], Coroutine[Any, Any, Finding]]] = [
        _store,
        _listening,
        _keys,
        _models,
        _audio,
        *([_microphone] if microphone else []),
        _wake,
        _shortcut,
        _live,
    ]
    # At once: the wake word model loads (a second of imports) while PortAudio starts, the store opens and
    # the MCP servers start. A task group: cancelled (Ctrl-C), it waits for the servers to stop (`catalogue`).
    async with asyncio.TaskGroup() as group:
        checked = [group.create_task(check(settings)) for check in checks]
        servers = group.create_task(_mcp_servers(settings))
    return [*(task.result() for task in checked), *servers.result()]


async def _mcp_servers(settings: Settings) -> list[Finding]:
    """One finding per server in `mcp.json`: started and listed, switched off, or why not."""
    from app.mcp.catalogue import catalogue
    from app.mcp.config import McpConfigError, mcp_file, read_servers

    try:
        servers = read_servers(mcp_file(settings.config_file))
    except McpConfigError as error:
        return [Finding("mcp", "problem", str(error))]
    return [_mcp_server(report) for report in await catalogue(servers)]


def _mcp_server(report: ServerReport) -> Finding:
    check = f"mcp {report.server.name}"
    if report.error:
        return Finding(check, "problem", report.error)
    if report.server.disabled:
        return Finding(check, "ok", "switched off in mcp.json")
    return Finding(check, "ok", f"{len(report.tools)} tool(s): {', '.join(t.tool.name for t in report.tools)}")


async def _store(settings: Settings) -> Finding:
    from app.wiring import open_chat_services, store_location
    from chats.journal import JOURNAL_FILE, TurnJournal

    try:
        async with open_chat_services(settings) as services:
            count = await services.store.count()
            pending = len(await TurnJournal(settings.data_dir / JOURNAL_FILE).pending())
    except (ChatsError, SettingsError) as error:
        return Finding("store", "problem", str(error))
    waiting = f"; {pending} journaled turn(s) waiting to be saved" if pending else ""
    found = f"{count} chat(s) in {store_location(settings)}{waiting}"
    if settings.storage == "sqlite" and not os.access(settings.data_dir, os.W_OK):
        read_only = "read-only here: they can be read and exported, not changed, and no log file is written"
        return Finding("store", "warning", f"{found}, {read_only}")
    return Finding("store", "ok", found)


async def _listening(settings: Settings) -> Finding:
    from app.listening_lock import FolderNotWritable, who_listens

    try:
        owner = who_listens(settings.data_dir)
    except FolderNotWritable as error:
        return Finding("listening", "problem", str(error))
    if owner is not None:
        return Finding("listening", "warning", f"Parley ({owner}) is listening on these chats")
    return Finding("listening", "ok", "no Parley is listening on these chats")


async def _keys(settings: Settings) -> Finding:
    sources = {name: secret_source(name) for name in ("gemini", "openai")}
    said = ", ".join(f"{name} key {'in the ' + where if where else 'not set'}" for name, where in sources.items())
    if sources["gemini"] is None:
        return Finding("keys", "warning", f"{said}: voice conversations run offline, on a small local model")
    return Finding("keys", "ok", said)


async def _audio(settings: Settings) -> Finding:
    from app.front.device_checks import survey_devices

    devices = await asyncio.to_thread(survey_devices)
    if devices.failure is not None:
        return Finding("audio", "warning", f"{devices.failure}; recordings still work (parley listen --audio-in)")
    if not devices.inputs:
        return Finding("audio", "warning", "no microphone found; recordings still work (parley listen --audio-in)")
    inputs, outputs = ", ".join(devices.inputs), ", ".join(devices.outputs) or "none"
    return Finding("audio", "ok", f"microphones: {inputs}; speakers: {outputs}")


async def _microphone(settings: Settings) -> Finding:
    """The settings window's level test, on the configured microphone."""
    from app.front.device_checks import microphone_level, open_microphone

    test = await microphone_level(open_microphone, settings.input_device)
    return Finding("microphone", "ok" if test.heard else "warning", test.line)


# The checks import their parts when they run, not with this module: `parley` reads every command's
# module to build its command line, and google-genai, openWakeWord (scikit-learn, scipy) and
# faster-whisper take about a second to import.


async def _wake(settings: Settings) -> Finding:
    from app.front.device_checks import wake_model_problem
    from app.wake_enrolment import wake_detector

    # The name or the file first, as the settings window checks it; loading the model is the slow part.
    if (problem := wake_model_problem(settings.wake_word)) is not None:
        return Finding("wake word", "problem", problem)
    try:
        async with wake_detector(settings) as detector:
            await detector.warm_up()
    except VoiceError as error:
        return Finding("wake word", "problem", str(error))
    return Finding("wake word", "ok", f"{detector.model_name} at threshold {settings.wake_threshold}")


async def _shortcut(settings: Settings) -> Finding:
    """Whether this desktop can give the talk shortcut, as Settings says it (the window grabs it, not this)."""
    from app.front.shortcut.talk import shortcut_support

    if settings.talk_shortcut is None:
        return Finding("shortcut", "ok", "none set (talk_shortcut is empty)")
    support = await asyncio.to_thread(shortcut_support)
    return Finding("shortcut", "ok" if support.works else "warning", f"{settings.talk_shortcut}: {support.line}")


_MODEL_USES = {
    "gemini_live_model": ("bidiGenerateContent", "Live"),
    "gemini_text_model": ("generateContent", "text"),
}
"""Each model setting, the method the service must list for it, and what that method is to a user."""


async def _models(settings: Settings) -> Finding:
    """Whether the Gemini endpoint lists the configured models, asked with the models call (with a key)."""
    if settings.gemini_api_key is None:
        return Finding("models", "ok", "not checked: no Gemini key is set")
    wanted = {}
    if settings.effective_voice_model == "gemini":
        wanted["gemini_live_model"] = settings.gemini_live_model
    if settings.effective_text_model == "gemini":
        wanted["gemini_text_model"] = settings.gemini_text_model
    if not wanted:
        return Finding("models", "ok", "not checked: voice_model and text_model are offline")
    from voice.live.gemini import model_methods

    try:
        listed = await model_methods(
            list(wanted.values()),
            api_key=settings.gemini_api_key.reveal(),
            base_url=settings.gemini_base_url,
            ssl_context=ssl_context(settings),
            timeout_s=LIVE_CHECK_TIMEOUT_S,
        )
    except (VoiceError, SettingsError) as error:
        return Finding("models", "problem", str(error))
    wrong = []
    for setting, model in wanted.items():
        method, kind = _MODEL_USES[setting]
        methods = listed[model]
        if methods is None:
            wrong.append(f"Gemini does not know {setting} '{model}'")
        elif method not in methods:
            wrong.append(f"{setting} '{model}' is not a {kind} model")
    if wrong:
        return Finding("models", "problem", f"{'; '.join(wrong)}: set a current model (parley config)")
    named = ", ".join(f"{model} ({_MODEL_USES[setting][1]})" for setting, model in wanted.items())
    return Finding("models", "ok", f"{named} listed at {settings.gemini_base_url or 'Google'}")


async def _live(settings: Settings) -> Finding:
    if settings.effective_voice_model == "offline":
        return await _offline(settings)
    if settings.gemini_api_key is None:
        return Finding("live model", "problem", "voice_model is gemini but no Gemini key is set")
    from voice.live.connection import LiveConfig
    from voice.live.gemini import connect

    opening = functools.partial(
        connect,
        api_key=settings.gemini_api_key.reveal(),
        base_url=settings.gemini_base_url,
        ssl_context=ssl_context(settings),
        open_timeout_s=LIVE_CHECK_TIMEOUT_S,
    )
    try:
        async with opening(LiveConfig(model=settings.gemini_live_model, system_prompt="Connection check.")):
            pass
    except (VoiceError, SettingsError) as error:
        return Finding("live model", "problem", str(error))
    return Finding(
        "live model", "ok", f"{settings.gemini_live_model} answered at {settings.gemini_base_url or 'Google'}"
    )


async def _offline(settings: Settings) -> Finding:
    from voice.offline.engine import check_installed

    try:
        await asyncio.to_thread(check_installed)
    except VoiceError as error:
        return Finding("live model", "problem", f"offline voice: {error}")
    return Finding("live model", "warning", OFFLINE_NOTICE)
