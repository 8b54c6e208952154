"""The language detector's model (py3langid's, read from an lzma file: 1.2 s on a 2-core CPU) is loaded on a
thread as the voice loop starts, not on its event loop when the first spoken answer asks a text's language:
there it stalled the loop, and the voice with it. In a `parley listen` of its own, so that nothing this test
process loaded before counts; py3langid's identifier is wrapped to say where it was made ready."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.fakes.gemini_live_scenario import (
    AfterSpeech,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    InputTranscript,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"
CHILD_S = 120.0
"""A `parley` in another process answers in seconds, and in a minute on a loaded machine."""

LISTEN_SAYING_WHERE_THE_DETECTOR_LOADS = """
import asyncio
import sys

from py3langid import langid

narrow = langid.LanguageIdentifier.set_languages


def said_where(self, *args, **kwargs):
    try:
        asyncio.get_running_loop()
        print("language detector loaded on an event loop", file=sys.stderr)
    except RuntimeError:
        print("language detector loaded off the event loop", file=sys.stderr)
    return narrow(self, *args, **kwargs)


# The last step of every load, from the package's file or from the model cache's prepared arrays.
langid.LanguageIdentifier.set_languages = said_where

from app.cli.main import main

sys.exit(main(sys.argv[1:]))
"""


async def test_the_voice_loop_loads_the_language_detector_off_its_event_loop(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    # A memory to save: whether the user said it is read in the language they said it in, on the event loop.
    mia = {
        "content": "User's daughter is called Mia",
        "category": "relationship",
        "reasoning": "A family member the user will mention again.",
    }
    gemini_live_server.script(
        script(
            (
                AfterSpeech(),
                (InputTranscript("My daughter is called Mia."), CallTools((Call("m-1", "save_memory", mia),))),
            ),
            (AfterToolResponse("m-1"), (OutputTranscript("I'll remember Mia."), CompleteTurn())),
        )
    )
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        LISTEN_SAYING_WHERE_THE_DETECTOR_LOADS,
        *("listen", "--fast", "--events", "--audio-in", str(ASSETS / "wake_weather.wav")),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )
    async with asyncio.timeout(CHILD_S):
        _, err = await child.communicate()
    assert child.returncode == 0, err.decode()
    loads = [line for line in err.decode().splitlines() if line.startswith("language detector loaded")]
    assert loads == ["language detector loaded off the event loop"], err.decode()
