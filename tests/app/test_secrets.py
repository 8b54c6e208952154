from __future__ import annotations

import logging
from collections.abc import Iterator

import keyring.errors
import pytest
from keyring.backends import fail, null

from app.config.secrets import (
    KEYRING_SERVICE,
    SECRET_NAMES,
    Secret,
    SecretsError,
    delete_secret,
    get_secret,
    keyring_available,
    secret_source,
    set_secret,
)
from tests.app import MemoryKeyring, using_keyring

GEMINI_KEY = "AIzaSyTest-gemini-key-0123456789abcdef"
OPENAI_KEY = "sk-test-openai-key-0123456789abcdef"


class LockedKeyring(MemoryKeyring):
    """A keyring that is present but refuses every call, as a locked desktop keyring does."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("the keyring is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        # Some backends echo what they were given: the value must not reach our message.
        raise keyring.errors.PasswordSetError(f"cannot store {password!r}: the keyring is locked")


@pytest.fixture
def no_keyring() -> Iterator[None]:
    with using_keyring(fail.Keyring()):  # type: ignore[no-untyped-call]  # keyring has no hints here
        yield


# Secret


def test_secret_never_shows_its_value() -> None:
    secret = Secret(GEMINI_KEY)
    assert repr(secret) == "Secret('********')"
    assert str(secret) == "Secret('********')"
    assert f"{secret}" == "Secret('********')"
    assert GEMINI_KEY not in repr([secret, {"key": secret}])
    assert secret.reveal() == GEMINI_KEY


def test_secret_cannot_be_empty() -> None:
    with pytest.raises(ValueError, match="empty"):
        Secret("")


# Lookup order


def test_environment_wins_over_the_keyring(memory_keyring: MemoryKeyring) -> None:
    memory_keyring.set_password(KEYRING_SERVICE, "gemini_api_key", "from-the-keyring")
    env = {"GEMINI_API_KEY": GEMINI_KEY}
    secret = get_secret("gemini", env)
    assert secret is not None
    assert secret.reveal() == GEMINI_KEY
    assert secret_source("gemini", env) == "environment"


def test_keyring_is_used_when_the_environment_has_no_key(memory_keyring: MemoryKeyring) -> None:
    memory_keyring.set_password(KEYRING_SERVICE, "openai_api_key", OPENAI_KEY)
    secret = get_secret("openai", {})
    assert secret is not None
    assert secret.reveal() == OPENAI_KEY
    assert secret_source("openai", {}) == "keyring"


def test_google_api_key_is_a_fallback_for_gemini(memory_keyring: MemoryKeyring) -> None:
    only_google = get_secret("gemini", {"GOOGLE_API_KEY": "AIza-google"})
    assert only_google is not None
    assert only_google.reveal() == "AIza-google"
    both = get_secret("gemini", {"GOOGLE_API_KEY": "AIza-google", "GEMINI_API_KEY": GEMINI_KEY})
    assert both is not None
    assert both.reveal() == GEMINI_KEY


def test_an_empty_variable_counts_as_unset(memory_keyring: MemoryKeyring) -> None:
    memory_keyring.set_password(KEYRING_SERVICE, "gemini_api_key", GEMINI_KEY)
    secret = get_secret("gemini", {"GEMINI_API_KEY": "  "})
    assert secret is not None
    assert secret.reveal() == GEMINI_KEY


def test_missing_everywhere_is_none(memory_keyring: MemoryKeyring) -> None:
    assert get_secret("gemini", {}) is None
    assert secret_source("gemini", {}) is None


def test_env_defaults_to_the_process_environment(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    secret = get_secret("openai")
    assert secret is not None
    assert secret.reveal() == OPENAI_KEY


def test_unknown_names_are_refused(memory_keyring: MemoryKeyring) -> None:
    assert SECRET_NAMES == ("gemini", "openai")
    with pytest.raises(SecretsError, match=r"unknown key name 'anthropic'.*gemini, openai"):
        get_secret("anthropic", {})
    with pytest.raises(SecretsError):
        set_secret("anthropic", "x")


# Storing and deleting


def test_set_stores_under_the_parley_service(memory_keyring: MemoryKeyring) -> None:
    set_secret("gemini", f"  {GEMINI_KEY}\n")
    assert memory_keyring.entries == {("parley", "gemini_api_key"): GEMINI_KEY}
    set_secret("openai", OPENAI_KEY)
    assert memory_keyring.entries[("parley", "openai_api_key")] == OPENAI_KEY


def test_set_replaces_an_earlier_value(memory_keyring: MemoryKeyring) -> None:
    set_secret("gemini", "AIza-old")
    set_secret("gemini", "AIza-new")
    secret = get_secret("gemini", {})
    assert secret is not None
    assert secret.reveal() == "AIza-new"


def test_set_refuses_an_empty_value(memory_keyring: MemoryKeyring) -> None:
    with pytest.raises(SecretsError, match="empty"):
        set_secret("gemini", "   ")
    assert memory_keyring.entries == {}


def test_delete_reports_whether_there_was_a_key(memory_keyring: MemoryKeyring) -> None:
    set_secret("openai", OPENAI_KEY)
    assert delete_secret("openai") is True
    assert get_secret("openai", {}) is None
    assert delete_secret("openai") is False


def test_delete_leaves_the_environment_in_effect(memory_keyring: MemoryKeyring) -> None:
    set_secret("openai", "sk-stored")
    delete_secret("openai")
    assert secret_source("openai", {"OPENAI_API_KEY": OPENAI_KEY}) == "environment"


# Machines without a keyring


def test_without_a_keyring_lookups_find_nothing_quietly(no_keyring: None, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="app.config.secrets")
    assert keyring_available() is False
    assert get_secret("gemini", {}) is None
    assert secret_source("openai", {}) is None
    assert [r.levelno for r in caplog.records] == [logging.DEBUG, logging.DEBUG]
    assert "NoKeyringError" in caplog.text


def test_without_a_keyring_the_environment_still_works(no_keyring: None) -> None:
    secret = get_secret("gemini", {"GEMINI_API_KEY": GEMINI_KEY})
    assert secret is not None
    assert secret.reveal() == GEMINI_KEY


def test_without_a_keyring_set_says_to_use_the_environment(no_keyring: None) -> None:
    with pytest.raises(SecretsError) as caught:
        set_secret("gemini", GEMINI_KEY)
    assert str(caught.value) == "no OS keyring is available; set GEMINI_API_KEY in the environment instead"
    with pytest.raises(SecretsError, match="set OPENAI_API_KEY in the environment instead"):
        set_secret("openai", OPENAI_KEY)
    with pytest.raises(SecretsError, match="no OS keyring is available"):
        delete_secret("gemini")


def test_the_null_keyring_counts_as_no_keyring() -> None:
    # It accepts writes and drops them: storing there would tell the user a lie.
    with using_keyring(null.Keyring()):  # type: ignore[no-untyped-call]  # keyring has no hints here
        assert get_secret("gemini", {}) is None
        with pytest.raises(SecretsError, match="no OS keyring is available"):
            set_secret("gemini", GEMINI_KEY)


def test_a_locked_keyring_reads_as_empty_and_refuses_writes_without_echoing_the_value() -> None:
    with using_keyring(LockedKeyring()):
        assert get_secret("gemini", {}) is None
        with pytest.raises(SecretsError) as caught:
            set_secret("gemini", GEMINI_KEY)
    message = str(caught.value)
    assert "PasswordSetError" in message
    assert "set GEMINI_API_KEY in the environment instead" in message
    assert GEMINI_KEY not in message
    # Nothing chained either: a printed traceback must not carry the backend's message.
    assert caught.value.__cause__ is None
    assert caught.value.__suppress_context__
