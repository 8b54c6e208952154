from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from uuid import uuid4

import pytest

from app.core.timer import Timer
from app.timers.store import KEEP_FINISHED, TimerFile, TimerFileError
from tests.app.timers.clock import START


def pasta(timer_id: str = "a1b2c3", due_in_s: float = 540) -> Timer:
    return Timer(timer_id, "timer", "pasta", START + timedelta(seconds=due_in_s), START, uuid4())


def test_timers_are_kept_as_they_were_set(tmp_path: Path) -> None:
    file = TimerFile(tmp_path)
    assert file.read() == []
    timer = pasta()
    file.add(timer)
    assert TimerFile(tmp_path).read() == [timer]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["timers.json", "timers.lock"]  # no temporary left


def test_a_timer_changes_state_only_from_the_state_expected(tmp_path: Path) -> None:
    file = TimerFile(tmp_path)
    file.add(pasta())
    rung = file.mark("a1b2c3", "rung")
    assert rung is not None and rung.state == "rung"
    assert file.mark("a1b2c3", "rung") is None  # already rung: never twice
    assert file.mark("a1b2c3", "cancelled") is None
    assert file.mark("nope00", "rung") is None
    assert [t.state for t in file.read()] == ["rung"]


def test_finished_timers_are_pruned_to_the_newest(tmp_path: Path) -> None:
    file = TimerFile(tmp_path)
    for n in range(KEEP_FINISHED + 5):
        file.add(pasta(f"{n:06x}", due_in_s=n).with_state("rung"))
    file.add(pasta("ffffff", due_in_s=-100))  # pending: always kept, however old
    kept = file.read()
    assert len(kept) == KEEP_FINISHED + 1
    assert "000000" not in {t.id for t in kept} and "ffffff" in {t.id for t in kept}


def test_a_damaged_file_is_one_clear_error_and_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "timers.json").write_text('{"timers": [{"id": 1', encoding="utf-8")
    with pytest.raises(TimerFileError, match=r"timers\.json: the timers file is damaged"):
        TimerFile(tmp_path).read()
    with pytest.raises(TimerFileError):
        TimerFile(tmp_path).add(pasta())
    assert (tmp_path / "timers.json").read_text(encoding="utf-8") == '{"timers": [{"id": 1'


def test_a_time_without_its_zone_is_refused(tmp_path: Path) -> None:
    data = {"timers": [{**pasta().to_json(), "due_at": "2026-11-27T16:00:00"}]}
    (tmp_path / "timers.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TimerFileError, match="without a zone"):
        TimerFile(tmp_path).read()
