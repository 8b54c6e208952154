"""What a front end gets from the core, in types that carry neither Qt nor `voice`: the voice loop's
status and events (`status`, `events`), the loop run on a front end's behalf (`voice_presenter`), and the
audio device and wake word checks the settings window and `parley doctor` share (`device_checks`)."""
