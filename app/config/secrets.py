"""API keys: read from the environment first, then the OS keyring; never from a file.

The only module that imports `keyring`. A key travels through the app as a `Secret`, whose `repr` and
`str` are masked, so a key that slips into a log line or a traceback shows as `Secret('********')`.

On a machine with no keyring backend (a headless Linux box, a CI runner) lookups quietly find nothing
and `set_secret` raises `SecretsError` telling the user to use the environment instead.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

# `keyring` is imported where a key is looked up (0.1 s with its backends): `parley --help` needs none.

log = logging.getLogger(__name__)

KEYRING_SERVICE = "parley"
"""Service name of every Parley entry in the OS keyring."""

SecretSource = Literal["environment", "keyring"]


class SecretsError(Exception):
    """A key cannot be stored, deleted or named. The message is one line a user can read."""


@dataclass(frozen=True)
class Secret:
    """A key that never shows its value by accident: only `reveal()` returns it."""

    _value: str = field(repr=False)

    def __post_init__(self) -> None:
        if not self._value:
            raise ValueError("a Secret cannot be empty")

    def reveal(self) -> str:
        """The value itself: pass it to the SDK, never to a log call or a message."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    __str__ = __repr__


@dataclass(frozen=True)
class SecretSpec:
    """Where one named key lives."""

    name: str
    """What the user types: `parley keys set <name>`."""
    env_vars: tuple[str, ...]
    """Environment variables read in this order; the first one is the one we tell users about."""
    keyring_username: str
    """Username of the entry under the `parley` service in the OS keyring."""
    setting: str
    """The `Settings` field that carries the key."""
    label: str
    """The service's name as users write it, for messages."""


SECRETS: tuple[SecretSpec, ...] = (
    # GOOGLE_API_KEY is what google-genai itself reads, so users who set it for the SDK are served too.
    SecretSpec("gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "gemini_api_key", "gemini_api_key", "Gemini"),
    SecretSpec("openai", ("OPENAI_API_KEY",), "openai_api_key", "openai_api_key", "OpenAI"),
)

SECRET_NAMES: tuple[str, ...] = tuple(spec.name for spec in SECRETS)


def secret_spec(name: str) -> SecretSpec:
    """The spec of a named key; `SecretsError` for a name we do not know."""
    for spec in SECRETS:
        if spec.name == name:
            return spec
    raise SecretsError(f"unknown key name {name!r}; known names: {', '.join(SECRET_NAMES)}")


def get_secret(name: str, env: Mapping[str, str] | None = None) -> Secret | None:
    """The key from the environment, else from the OS keyring, else None."""
    found = _lookup(secret_spec(name), os.environ if env is None else env)
    return None if found is None else found[0]


def secret_source(name: str, env: Mapping[str, str] | None = None) -> SecretSource | None:
    """Where `get_secret` finds the key: "environment", "keyring", or None when it is missing."""
    found = _lookup(secret_spec(name), os.environ if env is None else env)
    return None if found is None else found[1]


def checked_key(name: str, value: str, where: str) -> str:
    """`value` stripped, as a key is used; `SecretsError` when it holds white space or a control character
    inside (a line break pasted with it would travel as a request header of its own). `where` says where
    the key came from, for the message; the message never holds the key."""
    value = value.strip()
    if (odd := next((c for c in value if c.isspace() or not c.isprintable()), None)) is not None:
        raise SecretsError(f"the {name} key {where} holds {_character_name(odd)}: give it again without it")
    return value


def _character_name(character: str) -> str:
    return {" ": "a space", "\n": "a line break", "\r": "a line break", "\t": "a tab"}.get(
        character, f"the control character U+{ord(character):04X}"
    )


def set_secret(name: str, value: str) -> None:
    """Store the key in the OS keyring (replacing any earlier value).

    Raises `SecretsError` when the value is empty or no keyring can store it.
    """
    import keyring.errors

    spec = secret_spec(name)
    value = checked_key(name, value, "given")
    if not value:
        raise SecretsError(f"the {name} key is empty; nothing was stored")
    _require_keyring(spec)
    try:
        keyring.set_password(KEYRING_SERVICE, spec.keyring_username, value)
    except keyring.errors.NoKeyringError:
        raise _no_keyring(spec) from None
    except keyring.errors.KeyringError as exc:
        # `from None`: the chained backend exception could carry the value into a traceback.
        reason = str(exc).replace(value, "********")
        raise SecretsError(
            f"the OS keyring refused the {name} key ({type(exc).__name__}: {reason}); "
            f"set {spec.env_vars[0]} in the environment instead"
        ) from None
    log.info("stored the %s key in the OS keyring", name)


def delete_secret(name: str) -> bool:
    """Remove the key from the OS keyring. True if there was one, False if there was none.

    The environment is not touched: a key set there stays in effect.
    """
    import keyring.errors

    spec = secret_spec(name)
    _require_keyring(spec)
    try:
        if keyring.get_password(KEYRING_SERVICE, spec.keyring_username) is None:
            return False
        keyring.delete_password(KEYRING_SERVICE, spec.keyring_username)
    except keyring.errors.NoKeyringError:
        raise _no_keyring(spec) from None
    except keyring.errors.KeyringError as exc:
        raise SecretsError(f"the OS keyring could not delete the {name} key ({type(exc).__name__}: {exc})") from None
    log.info("deleted the %s key from the OS keyring", name)
    return True


def keyring_available() -> bool:
    """Whether an OS keyring backend is in use (False on headless machines)."""
    import keyring
    from keyring.backends import fail, null

    return not isinstance(keyring.get_keyring(), fail.Keyring | null.Keyring)


class ApiKeys:
    """The API keys of one run, each read from the OS keyring only when first asked for, then kept: importing
    `keyring` and finding its backend costs 0.15-0.25 s of CPU, which a command that needs no key does not pay
    (a chat list; a search or a question the running Parley answers). A key in the environment is read and
    checked at once (`SecretsError`), as the settings load; one in the OS keyring, at its first use."""

    def __init__(self, env: Mapping[str, str] | None = None, *, keyring: bool = True) -> None:
        """`env`: where to look first (None: `os.environ`); `keyring`: then the OS keyring (else a key not in `env`
        is None)."""
        env = os.environ if env is None else env
        self._keys: dict[str, Secret | None] = {}
        for spec in SECRETS:
            found = _from_environment(spec, env)
            if found is not None or not keyring:
                self._keys[spec.name] = found
        self._lock = threading.Lock()

    @classmethod
    def of(cls, **keys: Secret | None) -> ApiKeys:
        """These keys (`gemini=Secret(...)`), the others none: looked up nowhere."""
        api_keys = cls({}, keyring=False)
        api_keys._keys |= keys
        return api_keys

    def read_all(self) -> None:
        """Read every key now: what is about to use them (a conversation) refuses a bad one before it has
        written anything (`SecretsError`)."""
        for name in SECRET_NAMES:
            self.get(name)

    def read(self) -> list[Secret]:
        """The keys read so far: what the logs redact (a key never read cannot reach one). Without the lock: a
        lookup under way logs (it would wait for itself), and a log line of another thread does not wait for
        the keyring (a copy of the dict is made whole, under the interpreter's lock)."""
        return [key for key in self._keys.copy().values() if key is not None]

    def get(self, name: str) -> Secret | None:
        """The key named `name` (`SECRET_NAMES`), or None; `SecretsError` for one in the keyring that cannot be used."""
        with self._lock:  # one lookup, whichever thread asks first
            if name not in self._keys:
                self._keys[name] = _from_keyring(secret_spec(name))
            return self._keys[name]


def _lookup(spec: SecretSpec, env: Mapping[str, str]) -> tuple[Secret, SecretSource] | None:
    found = _from_environment(spec, env)
    if found is not None:
        return found, "environment"
    stored = _from_keyring(spec)
    return None if stored is None else (stored, "keyring")


def _from_environment(spec: SecretSpec, env: Mapping[str, str]) -> Secret | None:
    for var in spec.env_vars:
        # An empty variable (`GEMINI_API_KEY=`) counts as unset, as shells make it easy to leave one.
        value = checked_key(spec.name, env.get(var, ""), f"in {var}")
        if value:
            return Secret(value)
    return None


def _from_keyring(spec: SecretSpec) -> Secret | None:
    import keyring.errors

    try:
        stored = keyring.get_password(KEYRING_SERVICE, spec.keyring_username)
    except keyring.errors.KeyringError as exc:
        # Expected on headless machines; the exception text never contains a stored value.
        log.debug("no %s key from the OS keyring: %s", spec.name, type(exc).__name__)
        return None
    if stored is None or not stored.strip():
        return None
    return Secret(checked_key(spec.name, stored, "in the OS keyring"))


def _require_keyring(spec: SecretSpec) -> None:
    # The null backend accepts a write and silently drops it: refuse it like the fail backend.
    if not keyring_available():
        raise _no_keyring(spec)


def _no_keyring(spec: SecretSpec) -> SecretsError:
    return SecretsError(f"no OS keyring is available; set {spec.env_vars[0]} in the environment instead")


def read_entry(username: str) -> str | None:
    """Another entry of Parley's in the OS keyring (not an API key: a sign-in session, say), or None when
    there is none or no keyring can be read."""
    import keyring.errors

    try:
        return keyring.get_password(KEYRING_SERVICE, username)
    except keyring.errors.KeyringError as exc:
        log.debug("no %s entry from the OS keyring: %s", username, type(exc).__name__)
        return None


def write_entry(username: str, value: str, *, what: str) -> None:
    """Store an entry (`what` names it in messages); `SecretsError` when no keyring can keep it."""
    import keyring.errors

    if not keyring_available():
        raise SecretsError(f"no OS keyring is available to keep {what}")
    try:
        keyring.set_password(KEYRING_SERVICE, username, value)
    except keyring.errors.KeyringError as exc:
        # `from None`, and no backend text: either could carry the value.
        raise SecretsError(f"the OS keyring refused to keep {what} ({type(exc).__name__})") from None


def delete_entry(username: str) -> bool:
    """Remove an entry; True if there was one. Nothing to do (False) where no keyring is available."""
    import keyring.errors

    try:
        if keyring.get_password(KEYRING_SERVICE, username) is None:
            return False
        keyring.delete_password(KEYRING_SERVICE, username)
    except keyring.errors.KeyringError as exc:
        raise SecretsError(f"the OS keyring could not delete {username} ({type(exc).__name__})") from None
    return True
