"""One voice loop per data folder: a second `parley listen` while another process listens on the same
chats is refused in one line, and runs once that process has gone (however it ended)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.cli.main import main
from app.listening_lock import AlreadyListening, listening_lock, who_listens
from tests.app.other_listener import another_process_listening
from tests.fakes.gemini_live_scenario import AfterAudio, CompleteTurn, InputTranscript, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"


def test_a_second_holder_is_refused_with_the_first_ones_process(tmp_path: Path) -> None:
    with another_process_listening(tmp_path) as holder:
        refused = f"already listening on these chats \\(process {holder.pid}\\)"
        with pytest.raises(AlreadyListening, match=refused), listening_lock(tmp_path):
            pass
    with listening_lock(tmp_path):  # killed, not closed cleanly: the lock went with the process
        pass


def test_who_listens_names_the_holder_and_the_lock_is_free_again_after_its_block(tmp_path: Path) -> None:
    assert who_listens(tmp_path) is None
    with another_process_listening(tmp_path) as holder:
        assert who_listens(tmp_path) == f"process {holder.pid}"
    with listening_lock(tmp_path):
        pass
    assert who_listens(tmp_path) is None


async def test_parley_listen_beside_another_listening_process_says_so_and_answers_after(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = str(ASSETS / "wake_weather.wav")
    with another_process_listening(environment / "data") as holder:
        capsys.readouterr()
        code = await asyncio.to_thread(main, ["listen", "--fast", "--audio-in", recording])
        assert code == 1
        assert f"Parley is already listening on these chats (process {holder.pid})" in capsys.readouterr().err
    assert gemini_live_server.connections == []  # refused before anything was heard or replayed

    gemini_live_server.script(
        script(
            (AfterAudio(16_000), (InputTranscript("What's the weather?"), OutputTranscript("Sunny."), CompleteTurn()))
        )
    )
    code = await asyncio.to_thread(main, ["listen", "--fast", "--audio-in", recording])
    assert code == 0
