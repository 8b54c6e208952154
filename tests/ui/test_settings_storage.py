"""The settings window's storage choice and Supabase sign-in: offscreen Qt, the real `supabase` client on the
runtime thread against the local Supabase stack, the session into the (in-memory) keyring."""

from __future__ import annotations

import json
import tomllib

import keyring
from pytestqt.qtbot import QtBot

from app.account.session_storage import session_entry
from app.config.settings import Settings, load_settings
from app.runtime import Runtime
from tests.app import MemoryKeyring
from tests.fakes.supabase_stack import SupabaseStack
from tests.ui.conftest import TIMEOUT_MS
from ui.settings.dialog import SettingsDialog

BEFORE = {"voice_model": "gemini"}
"""What the `settings` fixture's config file holds."""


def make_dialog(qtbot: QtBot, settings: Settings, runtime: Runtime) -> SettingsDialog:
    dialog = SettingsDialog(settings, runtime, devices=list, env={})
    qtbot.addWidget(dialog)
    return dialog


def choose_supabase(dialog: SettingsDialog, url: str, anon_key: str) -> None:
    box = dialog.storage_box
    box.storage.setCurrentIndex(box.storage.findData("supabase"))
    box.url.setText(url)
    box.anon_key.setText(anon_key)


def sign_in(qtbot: QtBot, dialog: SettingsDialog, email: str, password: str) -> str:
    box = dialog.storage_box
    box.email.setText(email)
    box.password.setText(password)
    box.sign_in_button.click()
    qtbot.waitUntil(
        lambda: box.sign_in_button.isEnabled() and box.sign_in_result.text() != "Signing in…", timeout=TIMEOUT_MS
    )
    return box.sign_in_result.text()


def entries() -> dict[tuple[str, str], str]:
    backend = keyring.get_keyring()
    assert isinstance(backend, MemoryKeyring)
    return backend.entries


def test_the_project_shows_only_when_supabase_is_chosen_and_is_saved(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    dialog.show()
    qtbot.waitExposed(dialog)
    box = dialog.storage_box
    assert box.project.isHidden() and box.note.text().startswith("Chats and memories are kept in a file")
    choose_supabase(dialog, "https://example.supabase.co", "eyJ.public.anon")
    assert not box.project.isHidden()
    assert dialog.save()
    assert tomllib.loads(settings.config_file.read_text(encoding="utf-8")) == BEFORE | {
        "storage": "supabase",
        "supabase_url": "https://example.supabase.co",
        "supabase_anon_key": "eyJ.public.anon",
    }
    again = load_settings({"data_dir": str(settings.data_dir), "config_file": str(settings.config_file)}, env={})
    assert again.storage == "supabase" and again.supabase_url == "https://example.supabase.co"
    assert make_dialog(qtbot, again, runtime).changes() == {}


def test_supabase_without_a_project_is_refused_and_nothing_changes(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    before = settings.config_file.read_text(encoding="utf-8")
    dialog = make_dialog(qtbot, settings, runtime)
    choose_supabase(dialog, "", "")
    assert not dialog.save()
    assert dialog.error.text() == "Error: to keep chats in Supabase, give the project's URL and its anon key"
    assert settings.config_file.read_text(encoding="utf-8") == before


def test_signing_in_keeps_the_session_in_the_keyring_and_never_the_password(
    qtbot: QtBot, settings: Settings, runtime: Runtime, supabase_stack: SupabaseStack
) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    choose_supabase(dialog, supabase_stack.url, supabase_stack.anon_key)
    user = supabase_stack.new_user("alice")
    assert sign_in(qtbot, dialog, user.email, user.password) == f"Signed in as {user.email}."
    assert dialog.storage_box.password.text() == ""
    kept = entries()
    assert list(kept) == [("parley", session_entry(supabase_stack.url))]
    assert json.loads(kept[("parley", session_entry(supabase_stack.url))])["user"]["id"] == user.id
    assert user.password not in json.dumps(list(kept.values()))


def test_a_refused_sign_in_is_one_line_and_keeps_nothing(
    qtbot: QtBot, settings: Settings, runtime: Runtime, supabase_stack: SupabaseStack
) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    choose_supabase(dialog, supabase_stack.url, supabase_stack.anon_key)
    user = supabase_stack.new_user("alice")
    answer = sign_in(qtbot, dialog, user.email, "not the password")
    assert answer == f"Failed: Supabase did not accept the sign-in for {user.email}: Invalid login credentials"
    assert entries() == {}
    dialog.storage_box.url.setText("")
    assert sign_in(qtbot, dialog, user.email, user.password).startswith("Failed: give the project's URL")
