"""Timers and reminders: kept on disk, rung on time by the voice loop's scheduler, set and cancelled by
tools (`toolkit`), by the offline voice's intents and by `parley timers`."""
