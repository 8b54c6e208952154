pytest_plugins = ["tests.fakes.openai_server", "tests.fakes.gemini_server", "tests.fakes.gemini_live_server"]
