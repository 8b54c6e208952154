"""Offline voice figures: `python -m bench.offline [--repeats N] [--out FILE]`.

Everything runs on this machine's real models (Whisper base, SmolLM2-135M on CTranslate2, Silero VAD,
espeak-ng, all-MiniLM-L6-v2 for intents), prepared in the user cache folder as the app does.

1. Word error rate of Whisper, decoded as the app decodes (beam 5, temperature 0, the prompt naming the
   assistant), against the text `scripts/make_audio_fixtures.sh` spoke, both normalised after Whisper's
   English normaliser convention (`bench.offline_wer.NORMALISATION`); goal <= 10 %, per fixture and pooled:
   - on every speech fixture in assets/audio, whole file (the wake phrase included);
   - on the questions as a session hears them: from the pre-roll on (800 ms before the wake word), through
     the VAD, the wake phrase's tail dropped and cut from the text; for the three questions of the first
     measurement (`FIRST_QUESTIONS`) and for all of them;
   - on a dozen more requests spoken by espeak-ng here (`SENTENCES`): nine fixtures are few words.
2. Speech-to-text real-time factor: transcription time over the utterance's length.
3. End of speech to first audio: an `OfflineLiveConnection` fed each question fixture at the microphone's
   pace (80 ms chunks, real time), with the app's real system prompt and intents (embedded in the local
   models' child process, as the app does); from the wall time at
   which the last chunk holding speech was sent to the first `ModelAudio` event (goal p95 <= 2.5 s), over
   every question and over the three first measured. A tool call is answered at once with a canned
   result (`CANNED`), as the app's tools would (they take ~10 ms); a recall's finding is put in words by
   the chat model, as in the app. Other work on the machine slows every stage: the load average is kept
   beside the figures.
4. The chat model's speed: tokens per second after the first token, and the first token's delay.
5. Memory: resident set size before and after loading the models, and its peak over the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import threading
import time
from contextlib import aclosing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from app.config.paths import model_cache
from app.conversation import END_CONVERSATION
from app.offline.intents import OfflineIntents
from app.tools.chat_tools import TOOLS
from app.tools.memory_tools import MEMORY_TOOLS
from app.tools.prompt import system_prompt
from app.tools.recall_tools import RECALL_TOOLS
from bench.offline_wer import NORMALISATION, Scored, rate, scored
from chats.embedders.local_process import LocalModelsProcess, ProcessEmbedder
from tests.voice.fixtures import read_pcm, silence, split, utterances
from tests.voice.rooms import SimulatedRoom, condition
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT
from voice.audio.pcm import convert, pcm16_to_float
from voice.echo.vad import load_session
from voice.live.connection import LiveConfig, ModelAudio, ToolCall, TurnComplete
from voice.offline.chat_model import ChatModel
from voice.offline.connection import connect
from voice.offline.endpoint import EndpointConfig, Endpointer, SpeechEnded
from voice.offline.engine import LoadedTranscriber, OfflineVoice, load_transcriber, prepare_files
from voice.offline.prompt import ChatMessage
from voice.offline.speech import EspeakSynthesizer
from voice.offline.text import whisper_prompt, without_wake_phrase
from voice.offline.transcriber import BEAM_SIZE

RESULTS = Path(__file__).resolve().parent / "results"
WER_GOAL = 0.10
FIRST_AUDIO_P95_GOAL_S = 2.5
PREROLL_MS = 800.0
WAKE_PHRASE = "hey jarvis"

SPOKEN = {
    "wake_hey_jarvis": "hey jarvis",
    "wake_hey_jarvis_slow_female": "hey jarvis",
    "wake_hey_jarvis_fast_british": "hey jarvis",
    "wake_weather": "hey jarvis what's the weather like in rome tomorrow",
    "wake_switch_chat": "hey jarvis let's go back to the chat about the kitchen renovation",
    "wake_goodbye": "hey jarvis thanks that's all for now goodbye",
    "wake_remember": "hey jarvis remember that my daughter's name is mia",
    "wake_recall": "hey jarvis what did we decide about the kitchen tiles",
    "wake_alexa": "alexa",
    "speech_hello": "hello there how are you today",
    "speech_hey_travis": "hey travis pass me the jar",
}
"""Fixture -> the words scripts/make_audio_fixtures.sh had espeak-ng say."""
FIRST_QUESTIONS = ("wake_weather", "wake_switch_chat", "wake_goodbye")
"""The fixtures with something after the wake phrase when the offline voice was first measured."""
QUESTIONS = (*FIRST_QUESTIONS, "wake_remember", "wake_recall")
FIRST_FIXTURES = tuple(name for name in SPOKEN if name not in QUESTIONS[len(FIRST_QUESTIONS) :])
"""Fixtures with something after the wake phrase: what a session is asked."""
CANNED: dict[str, dict[str, Any]] = {
    "switch_chat": {"outcome": "switched", "chat_id": "00000000-0000-0000-0000-000000000001", "title": "Kitchen"},
    "end_conversation": {"outcome": "ending"},
    "save_memory": {"success": True, "message": "Memory saved successfully", "content": "User's daughter is Mia"},
    "recall_conversations": {
        "success": True,
        "results": [
            {
                "chatTitle": "Kitchen renovation",
                "role": "user",
                "text": "Let's go with the white zellige tiles for the wall behind the sink.",
                "before": [],
                "after": [],
            }
        ],
    },
}
"""What the app's tools answer, as they would (they take about 10 ms)."""
SENTENCES = (
    "Set a timer for ten minutes.",
    "What time is it in Tokyo right now?",
    "Remind me to call my sister tomorrow morning.",
    "How many grams of flour are in a cup?",
    "Play some relaxing music in the living room.",
    "What is the capital of Australia?",
    "Can you recommend a good book about history?",
    "Turn off the lights in the kitchen.",
    "How far is the moon from the earth?",
    "Remember that my daughter's name is Mia.",
    "Let's go back to the chat about the garden.",
    "Thanks, that's all for now.",
)
"""More requests, spoken by espeak-ng (en-us, 175 words a minute) at bench time: a wider WER sample."""
LLM_PROMPTS = (
    "What's the weather like in Rome tomorrow?",
    "How do I boil an egg?",
    "Tell me something about the moon.",
    "What should I cook tonight?",
)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def heard_question(pcm: bytes) -> bytes:
    """What the VAD hands to Whisper from the pre-roll on: the question, the wake phrase's tail dropped."""
    from voice.echo.vad import SileroVad

    start = utterances(pcm)[0][1]  # the wake word fires about 150 ms after the phrase: pre-roll from there
    offset = int(max(start + 150.0 - PREROLL_MS, 0) * MIC_FORMAT.bytes_per_second / 1000) & ~1
    vad, endpointer = SileroVad(load_session()), Endpointer(EndpointConfig(skip_leading=True))
    for window, probability in vad.push(pcm[offset:] + silence(800)):
        for event in endpointer.push(window, probability):
            if isinstance(event, SpeechEnded):
                return event.pcm
    return b""


async def word_error_rate(voice: OfflineVoice) -> dict[str, Any]:
    prompt = whisper_prompt(WAKE_PHRASE)
    fixtures: list[Scored] = []
    rtf: list[float] = []
    for name, text in SPOKEN.items():
        pcm = read_pcm(name)
        spans = utterances(pcm)
        started = time.perf_counter()
        heard = await voice.transcribe(pcm, prompt)
        rtf.append((time.perf_counter() - started) / ((spans[-1][1] - spans[0][0]) / 1000))
        fixtures.append(scored(name, text, heard))
    questions: list[Scored] = []
    for name in QUESTIONS:
        said = " ".join(SPOKEN[name].split()[len(WAKE_PHRASE.split()) :])
        heard = without_wake_phrase(await voice.transcribe(heard_question(read_pcm(name)), prompt), WAKE_PHRASE)
        questions.append(scored(name, said, heard))
    sentences = [scored(text, text, await voice.transcribe(await _espeak_16k(text), prompt)) for text in SENTENCES]
    first = [row for row in questions if row.name in FIRST_QUESTIONS]
    first_fixtures = [row for row in fixtures if row.name in FIRST_FIXTURES]
    return {
        "normalisation": NORMALISATION,
        "decoding": {"beam_size": BEAM_SIZE, "temperature": 0.0, "prompt": prompt},
        "fixtures": [row.to_json() for row in fixtures],
        "wer": rate(fixtures),
        "first_fixtures_wer": rate(first_fixtures),
        "questions": [row.to_json() for row in questions],
        "questions_wer": rate(questions),
        "first_questions_wer": rate(first),
        "sentences": [row.to_json() for row in sentences],
        "sentences_wer": rate(sentences),
        "stt_real_time_factor": {
            "mean": round(statistics.mean(rtf), 3),
            "max": round(max(rtf), 3),
            "note": "Whisper reads 30 s windows: an utterance costs about the same whatever its length",
        },
    }


ROOM_10_DB = condition(2.0, 0.45, "pink", 10.0)
"""A living room with the user 2 m away and noise 10 dB under their voice (tests/voice/rooms.py)."""


async def room_word_error_rate(voice: OfflineVoice) -> dict[str, Any]:
    """The fixtures as the laptop's microphone hears them in `ROOM_10_DB`, three talker spots (seeds)."""
    prompt = whisper_prompt(WAKE_PHRASE)
    rows: list[Scored] = []
    for seed in (1, 2, 3):
        room = SimulatedRoom(ROOM_10_DB, seed=seed)
        for name, text in SPOKEN.items():
            heard = await voice.transcribe(room.microphone(read_pcm(name)), prompt)
            rows.append(scored(f"{name}@{seed}", text, heard))
    return {"condition": ROOM_10_DB.name, "fixtures": [row.to_json() for row in rows], "wer": rate(rows)}


async def _espeak_16k(text: str) -> bytes:
    pcm = await EspeakSynthesizer().synthesize(text)
    return convert(pcm16_to_float(pcm, 1), MODEL_VOICE_FORMAT.rate, MIC_FORMAT)


async def first_audio(voice: OfflineVoice, repeats: int) -> dict[str, Any]:
    tools = (*TOOLS, *MEMORY_TOOLS, *RECALL_TOOLS, END_CONVERSATION)
    config = LiveConfig(
        model=voice.model_name,
        system_prompt=system_prompt(tools=tools, chat_title=None, now=datetime.now(UTC), memories=""),
        tools=tools,
    )
    # Embedded as `parley listen` and the window embed: in the local models' child process, on one BLAS
    # thread. In this process, with numpy's two BLAS threads, a match stalled up to 3 s whenever other
    # work took a core (p95 0.53 s against 0.06 s in the child, on a machine loaded to about 2).
    child = LocalModelsProcess()
    try:
        intents = OfflineIntents(ProcessEmbedder(child))
        await intents.prepare()
        runs = []
        for _ in range(repeats):
            for name in QUESTIONS:
                runs.append(await _one_turn(voice, intents, config, name))
    finally:
        await child.aclose()
    delays = [run["seconds"] for run in runs]
    first = [run["seconds"] for run in runs if run["fixture"] in FIRST_QUESTIONS]
    return {
        "runs": runs,
        "p50_s": round(statistics.median(delays), 3),
        "p95_s": round(float(np.percentile(delays, 95)), 3),
        "max_s": round(max(delays), 3),
        "first_questions_p95_s": round(float(np.percentile(first, 95)), 3),
    }


async def _one_turn(voice: OfflineVoice, intents: OfflineIntents, config: LiveConfig, name: str) -> dict[str, Any]:
    pcm = read_pcm(name)
    spans = utterances(pcm)
    preroll = max(spans[0][1] + 150.0 - PREROLL_MS, 0.0)
    speech_end = spans[-1][1]
    chunks = [c for c in split(pcm + silence(1500)) if c.end_ms > preroll]
    eos_at: float | None = None
    first: float | None = None
    tool: str | None = None
    async with (
        connect(config, voice=voice, intents=intents, wake_phrase=WAKE_PHRASE) as connection,
        aclosing(connection.events()) as events,
    ):

        async def listen() -> None:
            nonlocal first, tool
            async for event in events:
                if isinstance(event, ModelAudio) and first is None:
                    first = time.perf_counter()
                elif isinstance(event, ToolCall):
                    tool = event.name
                    await connection.send_tool_result(event.id, event.name, CANNED.get(event.name, {}))
                elif isinstance(event, TurnComplete):
                    return

        listening = asyncio.create_task(listen(), name="bench-listen")
        started = time.perf_counter()
        for chunk in chunks:
            # Paced like a microphone: each chunk is sent when its last sample would have been spoken.
            await asyncio.sleep(max(0.0, started + (chunk.end_ms - preroll) / 1000 - time.perf_counter()))
            await connection.send_audio(chunk)
            if eos_at is None and chunk.end_ms >= speech_end:
                eos_at = time.perf_counter()
        await asyncio.wait_for(listening, 30)
    assert eos_at is not None and first is not None, name
    return {"fixture": name, "tool": tool, "seconds": round(first - eos_at, 3)}


def chat_speed(folder: Path) -> dict[str, Any]:
    chat = ChatModel(folder)
    system = "You are Parley, a voice assistant. Answer in one or two short sentences."
    chat.warm(system)
    rates, firsts = [], []
    for prompt in LLM_PROMPTS:
        started, first, text = time.perf_counter(), None, ""
        for piece in chat.stream(system, [ChatMessage("user", prompt)], threading.Event()):
            first = first or time.perf_counter()
            text += piece
        ended = time.perf_counter()
        tokens = chat.count(text)
        if first is not None and tokens > 1:
            rates.append((tokens - 1) / (ended - first))
            firsts.append(first - started)
    return {
        "threads": 1,
        "tokens_per_s": {"mean": round(statistics.mean(rates), 1), "min": round(min(rates), 1)},
        "first_token_s": {"mean": round(statistics.mean(firsts), 3), "max": round(max(firsts), 3)},
    }


async def measure(repeats: int) -> dict[str, Any]:
    cache = model_cache()
    before = rss_mb()
    started = time.perf_counter()
    folders = await asyncio.to_thread(prepare_files, cache)
    prepared_s = time.perf_counter() - started
    started = time.perf_counter()
    # Side by side, as the app loads them at the wake word.
    whisper, chat = await asyncio.gather(load_transcriber(cache), asyncio.to_thread(ChatModel, folders.chat))
    voice = OfflineVoice(transcribers=LoadedTranscriber(whisper), chat=chat, vad=await asyncio.to_thread(load_session))
    loaded_s = time.perf_counter() - started
    loaded = rss_mb()
    load_before = os.getloadavg()
    try:
        figures: dict[str, Any] = {
            "machine": {"cores": 2, "note": "the project's 2-core machine, shared with other work"},
            "load": {"prepare_files_s": round(prepared_s, 2), "load_models_s": round(loaded_s, 2)},
            "stt": await word_error_rate(voice),
            "stt_in_a_room": await room_word_error_rate(voice),
            "first_audio": await first_audio(voice, repeats),
            "chat_model": await asyncio.to_thread(chat_speed, folders.chat),
        }
    finally:
        await voice.aclose()
    figures["machine"]["load_average_1_5_15"] = {
        "before": [round(x, 2) for x in load_before],
        "after": [round(x, 2) for x in os.getloadavg()],
    }
    figures["memory_mb"] = {
        "before_models": round(before, 1),
        "after_loading": round(loaded, 1),
        "models": round(loaded - before, 1),
        "peak": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    figures["goals"] = {
        "wer_le_10_percent": figures["stt"]["wer"] <= WER_GOAL,
        "first_fixtures_wer_le_10_percent": figures["stt"]["first_fixtures_wer"] <= WER_GOAL,
        "questions_wer_le_10_percent": figures["stt"]["questions_wer"] <= WER_GOAL,
        "first_questions_wer_le_10_percent": figures["stt"]["first_questions_wer"] <= WER_GOAL,
        "sentences_wer_le_10_percent": figures["stt"]["sentences_wer"] <= WER_GOAL,
        "first_audio_p95_le_2_5_s": figures["first_audio"]["p95_s"] <= FIRST_AUDIO_P95_GOAL_S,
    }
    return figures


def report(figures: dict[str, Any]) -> None:
    stt, audio, chat, memory = figures["stt"], figures["first_audio"], figures["chat_model"], figures["memory_mb"]
    print(f"Models: prepared in {figures['load']['prepare_files_s']} s, loaded in {figures['load']['load_models_s']} s")
    print(f"WER (goal <= {WER_GOAL:.0%}), words normalised: {stt['normalisation']}; decoding {stt['decoding']}")
    print(
        f"  whole fixture files: {stt['wer']:.1%} ({stt['first_fixtures_wer']:.1%} on the {len(FIRST_FIXTURES)}"
        " first measured)"
    )
    print(
        f"  questions as a session hears them: {stt['questions_wer']:.1%}"
        f" ({stt['first_questions_wer']:.1%} on the {len(FIRST_QUESTIONS)} first measured)"
    )
    print(f"  {len(stt['sentences'])} more requests spoken by espeak-ng: {stt['sentences_wer']:.1%}")
    room = figures["stt_in_a_room"]
    print(f"  the fixtures in a room ({room['condition']}, three talker spots): {room['wer']:.1%} (reported)")
    for kind in ("fixtures", "questions", "sentences"):
        for row in stt[kind]:
            heard = f"heard {row['heard']!r}" + (f", {row['errors']} error(s)" if row["errors"] else "")
            print(f"  {kind[:-1]} {row['name']}: {row['words']} words, {heard}")
    rtf = stt["stt_real_time_factor"]
    print(f"STT real-time factor: mean {rtf['mean']}, max {rtf['max']}")
    print(
        f"End of speech to first audio: p50 {audio['p50_s']} s, p95 {audio['p95_s']} s, max {audio['max_s']} s"
        f" (goal p95 <= {FIRST_AUDIO_P95_GOAL_S} s, {len(audio['runs'])} turns; p95 of the first three questions"
        f" {audio['first_questions_p95_s']} s)"
    )
    print(f"Load average (1, 5, 15 min) before and after: {figures['machine']['load_average_1_5_15']}")
    print(
        f"Chat model: {chat['tokens_per_s']['mean']} tokens/s (min {chat['tokens_per_s']['min']}),"
        f" first token {chat['first_token_s']['mean']} s"
    )
    print(f"Memory: models {memory['models']} MB, after loading {memory['after_loading']} MB, peak {memory['peak']} MB")
    print(f"Goals: {figures['goals']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=4, help="runs of each question for the first-audio figure")
    parser.add_argument("--out", type=Path, default=RESULTS / "offline.json")
    arguments = parser.parse_args()
    figures = asyncio.run(measure(arguments.repeats))
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    report(figures)


if __name__ == "__main__":
    main()
