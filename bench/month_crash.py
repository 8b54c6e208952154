"""The app process that `bench.month` kills with SIGKILL in mid-conversation:
`python -m bench.month_crash SPEC.json`, with Parley's variables set as `bench.month_app.environment` sets them.

SPEC holds the chat to talk in, the simulated time (ISO 8601) and the texts to type, one after another
once the previous was answered. Each turn the conversation records (journaled before it is told, see
`app.conversation`) is printed as one JSON line, `{"role": ..., "text": ...}`; the parent kills this
process once it has read the last text, which the fake model is scripted never to answer: the user has
spoken, the answer has not come, and nothing has been saved to the store yet.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from uuid import UUID

from app.core.events import TurnSpoken
from bench.month_app import WAIT_S, Clock, RunningApp
from bench.month_talk import Exchange, exchange_steps
from chats.journal import JOURNAL_FILE, JournalEntry, TurnJournal
from tests.fakes.gemini_live_scenario import script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer


async def converse(chat_id: UUID, now: datetime, texts: list[str]) -> None:
    async with RunningApp(Clock(now), chat_id) as app:
        printed = 0
        for text in texts:
            await app.loop.send_text(text)
            answered = app.observer.model_turns() + 1
            while True:

                def news(seen: int = printed) -> bool:
                    return len(app.observer.events) > seen

                await app.observer.until(news)
                for event in app.observer.events[printed:]:
                    if isinstance(event, TurnSpoken):
                        sys.stdout.write(json.dumps({"role": event.turn.role, "text": event.turn.text}) + "\n")
                        sys.stdout.flush()
                printed = len(app.observer.events)
                heard = any(
                    isinstance(e, TurnSpoken) and e.turn.role == "user" and e.turn.text == text
                    for e in app.observer.events
                )
                if app.observer.model_turns() >= answered or (text == texts[-1] and heard):
                    break
        await asyncio.Event().wait()  # until killed


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    asyncio.run(converse(UUID(spec["chat_id"]), datetime.fromisoformat(spec["now"]), list(spec["texts"])))


@dataclass(frozen=True, slots=True)
class Crash:
    printed: list[tuple[str, str]]
    """The turns the killed process reported, in order."""
    journaled: list[JournalEntry]
    """What its journal held when it died."""


async def crash_conversation(
    server: FakeGeminiLiveServer, folder: Path, chat_id: UUID, now: datetime, exchanges: Sequence[Exchange]
) -> Crash:
    """The conversation in a child process, killed with SIGKILL once its last user turn was recorded (the fake
    model never answers it). The caller must have closed its own app: one voice loop per data folder."""
    server.script(script(*exchange_steps(exchanges[:-1], "c")))
    spec = folder / "crash.json"
    texts = [e.user for e in exchanges]
    spec.write_text(json.dumps({"chat_id": str(chat_id), "now": now.isoformat(), "texts": texts}), encoding="utf-8")
    # A long idle time: the conversation must still be going (nothing saved) when it is killed.
    env = os.environ | {"PARLEY_IDLE_SECONDS": "60"}
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", __name__, str(spec), stdout=asyncio.subprocess.PIPE, env=env
    )
    assert child.stdout is not None
    printed: list[tuple[str, str]] = []
    try:
        async with asyncio.timeout(WAIT_S):
            while line := await child.stdout.readline():
                turn = json.loads(line)
                printed.append((turn["role"], turn["text"]))
                if turn["role"] == "user" and turn["text"] == texts[-1]:
                    break
    finally:
        child.send_signal(signal.SIGKILL)
        await child.wait()
    journal = TurnJournal(Path(os.environ["PARLEY_DATA_DIR"]) / JOURNAL_FILE)
    return Crash(printed, await journal.pending())


if __name__ == "__main__":
    main()
