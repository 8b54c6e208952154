"""Work that a settings control hands to the runtime thread, and its one-line answer coming back.

The microphone level test, the wake word enrolment, a key check and the Supabase sign-in all run this way:
the work is a coroutine that ends in a line to show; the line is emitted as a signal on the runtime thread,
and the signal delivers it queued to a bound slot on the GUI thread.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

from app.runtime import Runtime, RuntimeClosed


def submit_for_answer(
    runtime: Runtime,
    work: Coroutine[Any, Any, str],
    emit: Callable[[str], object],
    *,
    refused: str,
    failed: str = "Failed",
) -> concurrent.futures.Future[str] | None:
    """Run `work` on `runtime`; once it is done (and not cancelled), `emit` gets its line, or
    "`failed`: <error type>". A closed runtime answers "`refused`: <why>" at once and None is returned.

    `emit` is a signal's: once its widget is deleted it raises `RuntimeError` ("Signal source has been
    deleted"), and the answer is dropped, having nowhere to go."""
    try:
        future = runtime.submit(work)
    except RuntimeClosed as closed:
        emit(f"{refused}: {closed}")
        return None
    future.add_done_callback(lambda done: _deliver(done, emit, failed))
    return future


def _deliver(future: concurrent.futures.Future[str], emit: Callable[[str], object], failed: str) -> None:
    # The runtime thread: the signal queues the answer to the GUI thread.
    if future.cancelled():
        return
    failure = future.exception()
    # An unexpected failure shows by its type only: its text could quote what the service said.
    answer = future.result() if failure is None else f"{failed}: {type(failure).__name__}"
    with contextlib.suppress(RuntimeError):  # the widget was deleted while the work ran
        emit(answer)
