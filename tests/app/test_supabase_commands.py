"""`parley supabase ...` and the app on Supabase: the real `supabase` client against the local stack (real
Postgres with row level security, the GoTrue and PostgREST doubles), the session in a test keyring."""

from __future__ import annotations

import io
import json
import tomllib
import uuid
from pathlib import Path

import keyring
import pytest

from app.account.session_storage import session_entry
from app.config.settings import load_settings
from chats.supabase.migrations import SCHEMA_VERSION, migration_script, migrations
from tests.app import MemoryKeyring
from tests.app.conftest import Parley
from tests.fakes.supabase_stack import PostgresCluster, SupabaseStack, TestUser, applied_migrations


def config_of(parley: Parley) -> dict[str, object]:
    return tomllib.loads((parley.data_dir.parent / "config.toml").read_text(encoding="utf-8"))


def the_keyring() -> MemoryKeyring:
    backend = keyring.get_keyring()
    assert isinstance(backend, MemoryKeyring)
    return backend


def set_up(parley: Parley, stack: SupabaseStack) -> None:
    code, _ = parley("supabase", "setup", "--url", stack.url, "--anon-key", stack.anon_key)
    assert code == 0, parley.err


def sign_in(parley: Parley, user: TestUser, monkeypatch: pytest.MonkeyPatch, password: str | None = None) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO((password or user.password) + "\n"))
    code, out = parley("supabase", "signin", "--email", user.email)
    if code == 0:
        assert out.startswith(f"Signed in to {parley_url(parley)} as {user.email}")
    return code


def parley_url(parley: Parley) -> str:
    return str(config_of(parley)["supabase_url"])


def test_setup_saves_the_project_and_prints_the_migration(parley: Parley, supabase_stack: SupabaseStack) -> None:
    code, out = parley("supabase", "setup", "--url", supabase_stack.url, "--anon-key", supabase_stack.anon_key)
    assert code == 0, parley.err
    assert out == migration_script()
    assert config_of(parley) == {
        "storage": "supabase",
        "supabase_url": supabase_stack.url,
        "supabase_anon_key": supabase_stack.anon_key,
    }
    assert "parley supabase signin" in parley.err
    assert supabase_stack.anon_key not in parley.err


def test_setup_refuses_half_a_project(parley: Parley) -> None:
    code, _ = parley("supabase", "setup", "--url", "https://example.supabase.co")
    assert (code, parley.err) == (1, "parley: give both --url and --anon-key\n")
    code, _ = parley("supabase", "setup", "--url", "example.supabase.co", "--anon-key", "k")
    assert code == 1
    assert "must start with http:// or https://" in parley.err
    assert not (parley.data_dir.parent / "config.toml").read_text(encoding="utf-8")  # nothing written


def test_setup_applies_the_migration_given_a_connection_string(
    parley: Parley, postgres_cluster: PostgresCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    conninfo = postgres_cluster.create_database(f"setup_{uuid.uuid4().hex[:10]}")
    monkeypatch.setattr("sys.stdin", io.StringIO(conninfo + "\n"))
    code, out = parley("supabase", "setup", "--db-url", "-")
    assert code == 0, parley.err
    names = ", ".join(m.name for m in migrations())
    assert out == f"Applied {names}. The project has Parley schema {SCHEMA_VERSION}.\n"
    assert applied_migrations(conninfo) == [m.version for m in migrations()]
    code, out = parley("supabase", "setup", "--db-url", conninfo)
    assert (code, out) == (0, f"Nothing to apply. The project has Parley schema {SCHEMA_VERSION}.\n")


def test_signed_in_the_chats_live_in_supabase(
    parley: Parley, supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_up(parley, supabase_stack)
    user = supabase_stack.new_user("alice")
    assert sign_in(parley, user, monkeypatch) == 0
    entries = the_keyring().entries
    assert list(entries) == [("parley", session_entry(supabase_stack.url))]
    assert user.password not in json.dumps(list(entries.values()))
    chat = parley.json("chats", "new", "--title", "Kitchen plans")
    assert supabase_stack.query("SELECT user_id::text, title FROM chats WHERE id = %s", chat["id"]) == [
        (user.id, "Kitchen plans")
    ]
    assert [c["id"] for c in parley.json("chats", "list")] == [chat["id"]]
    assert parley()[1].startswith(f"Parley keeps 1 chat in the Supabase project {supabase_stack.url}.")
    assert not (parley.data_dir / "chats.sqlite3").exists()


def test_without_a_session_the_app_says_what_to_run(parley: Parley, supabase_stack: SupabaseStack) -> None:
    set_up(parley, supabase_stack)
    code, _ = parley("chats", "list")
    assert code == 1
    assert parley.err == "parley: not signed in to Supabase: sign in again with `parley supabase signin`\n"


def test_without_a_project_the_app_says_what_to_run(parley: Parley, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_STORAGE", "supabase")
    code, _ = parley("chats", "list")
    assert code == 1
    assert parley.err == (
        "parley: no Supabase project is set (supabase_url and supabase_anon_key missing): "
        "run `parley supabase setup --url URL --anon-key KEY`\n"
    )


def test_a_wrong_password_is_refused_and_nothing_is_kept(
    parley: Parley, supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_up(parley, supabase_stack)
    user = supabase_stack.new_user("alice")
    assert sign_in(parley, user, monkeypatch, password="not the password") == 1
    assert parley.err == (f"parley: Supabase did not accept the sign-in for {user.email}: Invalid login credentials\n")
    assert the_keyring().entries == {}


def test_a_refreshed_session_is_kept_for_the_next_run(
    parley: Parley, supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tokens living 5 s are inside the client's refresh margin at once: every run refreshes first. A
    # refresh token is good once, so the second run works only if the first one kept the new session.
    monkeypatch.setattr(supabase_stack.auth, "access_token_seconds", 5)
    set_up(parley, supabase_stack)
    user = supabase_stack.new_user("alice")
    assert sign_in(parley, user, monkeypatch) == 0
    kept = the_keyring().entries[("parley", session_entry(supabase_stack.url))]
    for _ in range(2):
        code, _ = parley("chats", "list")
        assert code == 0, parley.err
        now_kept = the_keyring().entries[("parley", session_entry(supabase_stack.url))]
        assert json.loads(now_kept)["refresh_token"] != json.loads(kept)["refresh_token"]
        kept = now_kept
    grants = [token.grant for token in supabase_stack.auth.issued if token.user_id == user.id]
    assert grants[0] == "password" and set(grants[1:]) == {"refresh_token"}


def test_status_then_sign_out(parley: Parley, supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch) -> None:
    set_up(parley, supabase_stack)
    user = supabase_stack.new_user("alice")
    assert sign_in(parley, user, monkeypatch) == 0
    assert parley.json("supabase", "status") == {
        "storage": "supabase",
        "project": supabase_stack.url,
        "signed_in": True,
        "email": user.email,
        "user_id": user.id,
        "schema_version": SCHEMA_VERSION,
        "problem": None,
    }
    code, out = parley("supabase", "signout")
    assert (code, out) == (0, f"Signed out of {supabase_stack.url}.\n")
    assert the_keyring().entries == {}
    status = parley.json("supabase", "status")
    assert (status["signed_in"], status["problem"]) == (
        False,
        "not signed in to Supabase: sign in again with `parley supabase signin`",
    )
    code, out = parley("supabase", "signout")
    assert (code, out) == (0, f"Not signed in to {supabase_stack.url}.\n")


def test_signing_out_while_supabase_is_unreachable_forgets_the_session_here(
    parley: Parley, supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    front = supabase_stack.serve()
    code, _ = parley("supabase", "setup", "--url", front.url, "--anon-key", supabase_stack.anon_key)
    assert code == 0
    user = supabase_stack.new_user("alice")
    assert sign_in(parley, user, monkeypatch) == 0
    front.stop()
    code, out = parley("supabase", "signout")
    assert code == 0
    assert out == f"Signed out on this computer; {front.url} could not be reached to end the session there.\n"
    assert the_keyring().entries == {}


def test_the_anon_key_and_the_tokens_stay_out_of_the_log(
    parley: Parley, supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_up(parley, supabase_stack)
    user = supabase_stack.new_user("alice")
    assert sign_in(parley, user, monkeypatch) == 0
    code, _ = parley("--log-level", "DEBUG", "chats", "list")
    assert code == 0, parley.err
    log = (parley.data_dir / "logs" / "parley.log").read_text(encoding="utf-8")
    assert "POST" in log  # the requests are logged, at DEBUG
    kept = json.loads(the_keyring().entries[("parley", session_entry(supabase_stack.url))])
    for secret in (supabase_stack.anon_key, kept["access_token"], kept["refresh_token"], user.password):
        assert secret not in log


def test_the_anon_key_setting_is_masked(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('storage = "supabase"\nsupabase_anon_key = "eyJpublic.but.unlogged"\n', encoding="utf-8")
    settings = load_settings({"config_file": str(config)}, env={})
    assert settings.supabase_anon_key is not None
    assert settings.supabase_anon_key.reveal() == "eyJpublic.but.unlogged"
    assert "eyJpublic" not in repr(settings)
    config.write_text("", encoding="utf-8")
    assert load_settings({"config_file": str(config)}, env={}).storage == "sqlite"
