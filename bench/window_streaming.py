"""Window benchmark, section 3: UI-thread stalls while a conversation streams (see bench/window.py)."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer

from app.runtime import Runtime
from bench import locomo
from bench.window_common import (
    AFTER_STOP_S,
    AUDIO_CHUNKS_PER_TURN,
    FRAGMENTS_PER_TEXT,
    PACE_BYTES,
    STALL_GOAL_MS,
    STREAM_TURNS,
    TICK_MS,
    VOICE_CHUNK,
    WAKE_RECORDING,
    bench_settings,
    percentile,
    wait_until,
    window_on,
)
from tests.fakes.gemini_live_scenario import (
    Action,
    AfterAudio,
    Audio,
    CompleteTurn,
    ConnectionScript,
    InputTranscript,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.live_tls import make_live_tls
from ui.voice.window_voice import WindowVoice
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.null_sink import NullSink
from voice.audio.wav import WavFileSource

# -- 3. stalls while a conversation streams ------------------------------------------------------------


def fragments(text: str, count: int) -> list[str]:
    """`text` in `count` pieces that join back to it, cut at spaces as the service's fragments are."""
    words = text.split(" ")
    step = max(1, -(-len(words) // count))
    pieces = [" ".join(words[i : i + step]) for i in range(0, len(words), step)]
    return [piece + " " for piece in pieces[:-1]] + pieces[-1:]


def stream_turns(texts: Sequence[str], turns: int) -> list[tuple[Action, ...]]:
    """Each turn: the user's words in fragments, the model's words in fragments interleaved with voice."""
    rng = random.Random(5)
    script_turns: list[tuple[Action, ...]] = []
    for _ in range(turns):
        actions: list[Action] = [InputTranscript(piece) for piece in fragments(rng.choice(texts), FRAGMENTS_PER_TEXT)]
        for index, piece in enumerate(fragments(rng.choice(texts), FRAGMENTS_PER_TEXT)):
            actions.append(OutputTranscript(piece))
            if index < AUDIO_CHUNKS_PER_TURN:
                actions.append(Audio(VOICE_CHUNK))
        actions.append(CompleteTurn())
        script_turns.append(tuple(actions))
    return script_turns


def conversation_script(turns: Sequence[tuple[Action, ...]], paced: bool) -> ConnectionScript:
    """Burst: every turn the moment the user has spoken. Paced: one turn per `PACE_BYTES` of microphone
    audio, which a real-time recording hands over at its own pace."""
    if not paced:
        return script((AfterAudio(16_000), tuple(action for turn in turns for action in turn)))
    first, *rest = turns
    return script((AfterAudio(16_000), first), *((AfterAudio(PACE_BYTES), turn) for turn in rest))


def streaming_run(folder: Path, turns: Sequence[tuple[Action, ...]], paced: bool) -> dict[str, Any]:
    ticks: list[tuple[float, float]] = []
    """(wall, GUI thread CPU) seconds at each tick."""
    states: list[tuple[str, float]] = []
    stored: list[int] = []
    """Turns of the continued chat when the conversation starts."""
    with Runtime(name="fake-gemini-live") as server_thread:
        server = server_thread.enter(FakeGeminiLiveServer(make_live_tls())).result(timeout=30)
        ca_file = folder / "ca.pem"
        ca_file.write_bytes(server.ca_pem)
        env = {
            "GEMINI_API_KEY": server.api_key,
            "PARLEY_GEMINI_BASE_URL": server.base_url,
            "PARLEY_CA_FILE": str(ca_file),
            "PARLEY_IDLE_SECONDS": "0.3",
            # The fake serves only the Live API: summaries, titles and vectors are made on this machine.
            "PARLEY_TEXT_MODEL": "offline",
            "PARLEY_EMBEDDER": "local",
        }
        # The bench's store: the conversation continues its most recent chat.
        voice_settings = bench_settings(folder, env)
        server.script(conversation_script(turns, paced))
        with window_on(voice_settings) as (window, bridge, runtime):

            def note(state: str) -> None:
                states.append((state, time.perf_counter()))
                if state == "connecting" and window.transcript.chat is not None:
                    stored.append(len(window.transcript.chat.full_history))

            bridge.state_changed.connect(note)
            timer = QTimer()
            timer.setTimerType(Qt.TimerType.PreciseTimer)
            timer.timeout.connect(lambda: ticks.append((time.perf_counter(), time.thread_time())))
            timer.start(TICK_MS)
            voice = WindowVoice(
                bridge,
                runtime,
                voice_settings,
                lambda: (WavFileSource(WAKE_RECORDING, realtime=paced), NullSink(MODEL_VOICE_FORMAT)),
            )
            voice.start()
            wait_until(lambda: any(state == "stopped" for state, _ in states), "the voice loop to stop")
            end = next(at for state, at in states if state == "stopped") + AFTER_STOP_S
            wait_until(lambda: time.perf_counter() > end, "the save's reload")
            timer.stop()
            shown = window.transcript.toPlainText()
            del voice
    start = next(at for state, at in states if state == "connecting")
    inside = [tick for tick in ticks if start <= tick[0] <= end]
    gaps = [(b[0] - a[0]) * 1000 for a, b in itertools.pairwise(inside)]
    # Before the conversation: the voice loop starting (the wake word model, the Live client, the backfill
    # plan), which loads libraries on the runtime thread. Reported, not a goal: it is over before anyone talks.
    starting = [(b[0] - a[0]) * 1000 for a, b in itertools.pairwise(tick for tick in ticks if tick[0] <= start)]
    # The GUI thread's own CPU time over a stall tells its work apart from waiting (on the GIL, held by
    # the runtime thread or the fake server's thread).
    stalls = [
        {
            "gap_ms": round((b[0] - a[0]) * 1000, 1),
            "gui_cpu_ms": round((b[1] - a[1]) * 1000, 1),
            "at_s": round(a[0] - start, 3),
            "state": state_at(states, a[0]),
        }
        for a, b in itertools.pairwise(inside)
        if (b[0] - a[0]) * 1000 > STALL_GOAL_MS
    ]
    last_said = "".join(action.text for action in turns[-1] if isinstance(action, OutputTranscript))
    return {
        "events": sum(len(turn) for turn in turns),
        "turns": len(turns),
        "last_turn_shown": last_said.strip() in shown,
        "chat_turns_at_start": stored[0] if stored else None,
        "measured_s": round(end - start, 2),
        "gap_p50_ms": round(percentile(gaps, 50), 1),
        "gap_p99_ms": round(percentile(gaps, 99), 1),
        "gap_max_ms": round(max(gaps), 1),
        "gaps_over_goal": len(stalls),
        "stalls": stalls,
        "loop_start": {
            "measured_s": round(start - ticks[0][0], 2),
            "gap_max_ms": round(max(starting, default=0.0), 1),
            "gaps_over_goal": sum(gap > STALL_GOAL_MS for gap in starting),
        },
    }


def streaming(folder: Path, corpus: list[locomo.Conversation]) -> dict[str, Any]:
    texts = [t.text for c in corpus for s in c.sessions for t in s.turns if t.text.strip()]
    turns = stream_turns(texts, STREAM_TURNS)
    # Paced first: it continues a 40-turn chat; the burst then continues the same chat, 40 turns longer.
    paced = streaming_run(folder, turns, paced=True)
    burst = streaming_run(folder, turns, paced=False)
    return {
        "tick_ms": TICK_MS,
        "paced": paced,
        "burst": burst,
        "goals": {
            "frame_ms_max": STALL_GOAL_MS,
            "paced_met": paced["gap_max_ms"] <= STALL_GOAL_MS,
            "burst_met": burst["gap_max_ms"] <= STALL_GOAL_MS,
        },
    }


def state_at(states: Sequence[tuple[str, float]], moment: float) -> str:
    """The assistant's state at `moment`, as the window last heard it."""
    before = [state for state, at in states if at <= moment]
    return before[-1] if before else "sleeping"


def report_streaming(results: dict[str, Any]) -> None:
    print(f"GUI thread while a conversation streams ({results['tick_ms']} ms timer, from connecting to stopped):")
    for name in ("paced", "burst"):
        run = results[name]
        goal = "met" if results["goals"][f"{name}_met"] else "MISSED"
        shown = "shown" if run["last_turn_shown"] else "NOT shown"
        print(
            f"  {name}: {run['events']} events in {run['turns']} turns over {run['measured_s']} s (last turn {shown}, "
            f"continuing a chat of {run['chat_turns_at_start']} turns): gaps p50 {run['gap_p50_ms']:.1f} ms "
            f"p99 {run['gap_p99_ms']:.1f} ms max {run['gap_max_ms']:.1f} ms; "
            f"{run['gaps_over_goal']} over {STALL_GOAL_MS:.0f} ms; goal {goal}"
        )
        started = run["loop_start"]
        print(
            f"    before it, while the voice loop started ({started['measured_s']} s): gaps max "
            f"{started['gap_max_ms']:.0f} ms, {started['gaps_over_goal']} over {STALL_GOAL_MS:.0f} ms (not a goal)"
        )
        for stall in run["stalls"]:
            print(
                f"    stall of {stall['gap_ms']:.0f} ms ({stall['gui_cpu_ms']:.0f} ms of it GUI thread CPU) "
                f"at {stall['at_s']:.2f} s, while {stall['state']}"
            )
