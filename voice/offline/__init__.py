"""The offline voice: a `LiveConnection` made of local parts, for when there is no Gemini key.

    microphone ─► vad (Silero) ─► endpoint (end of speech) ─► transcriber (faster-whisper, Whisper base)
        ─► router (the app's intents, by embedding similarity) ─► a tool call ─► its answer: a template,
           or what it found put in words by the chat model
        └► chat_model (SmolLM2-135M-Instruct on CTranslate2) ─► text (sentences) ─► speech (espeak-ng)

`connection.OfflineLiveConnection` emits the same events as the Gemini connection, so the session, the
tools, the window and the tests do not care which one runs. `engine.OfflineVoice` loads the models once
(per app run); `files` and `convert` prepare their files once into a cache folder.
"""
