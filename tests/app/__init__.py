"""Tests of the composition root, and the in-memory keyring they share."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import keyring
import keyring.errors
from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    """A real keyring backend that keeps its entries in a dict, for tests.

    `viable = False` keeps it out of keyring's own backend detection: defining the class registers it
    with keyring, and a detected test backend would leak into every later `keyring.get_keyring()`.
    """

    priority = 1
    viable = False

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring's own __init__ has no hints
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.entries.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError(f"no {username} entry under {service}")


@contextmanager
def using_keyring(backend: KeyringBackend) -> Iterator[KeyringBackend]:
    """Make `backend` the process's keyring for the block, then put the previous one back."""
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
