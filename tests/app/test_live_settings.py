"""Which saved settings a running Parley takes at once, and what the window says about the rest."""

from __future__ import annotations

from app.live_settings import SavedChanges, saved_changes


def test_the_settings_a_loop_takes_at_once_are_said_to_apply_now() -> None:
    changes = saved_changes(["wake_threshold", "idle_seconds", "language", "input_device"], offline_voice=False)
    assert changes == SavedChanges(now=("wake_threshold", "idle_seconds", "language", "input_device"), at_restart=())
    assert changes.note() == "Settings saved: they apply now."


def test_the_rest_wait_for_a_restart_and_the_note_names_them() -> None:
    changes = saved_changes(["wake_word", "close_to_tray", "Gemini key"], offline_voice=False)
    assert changes.at_restart == ("wake_word", "Gemini key")
    assert changes.note() == "Settings saved: the wake word, Gemini key when Parley restarts; the rest applies now."


def test_with_the_offline_voice_a_new_language_waits_for_a_restart() -> None:
    changes = saved_changes(["language"], offline_voice=True)
    assert changes.note() == "Settings saved: the language (of the offline voice) when Parley restarts."
