"""Settings: one loader, four layers.

Each layer overrides the one before it:

1. built-in defaults (the field defaults of `Settings`);
2. the TOML config file, a flat table whose keys are the field names
   (`platformdirs.user_config_path("parley") / "config.toml"`, or the file named by `PARLEY_CONFIG`);
3. environment variables (`PARLEY_*`; an empty variable counts as unset);
4. command-line overrides, a mapping the CLI passes (None means "not given").

API keys are the exception: they come from the environment or the OS keyring (`app.config.secrets`), never
from the config file, and a config file that holds one is refused.

`SETTINGS` lists every setting once, with its variable, its config key and its description; the loader
reads it, and `settings_table()` renders it for the README and `parley config`, so they cannot drift.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

import platformdirs

from app.config.config_file import SettingsError, read_config
from app.config.secrets import SECRETS, Secret, SecretSpec, get_secret
from app.config.setting_values import LOG_LEVELS, Kind, SettingSpec, convert_value

__all__ = [
    "APP_NAME",
    "CONFIG_KEYS",
    "SETTINGS",
    "Override",
    "SettingRow",
    "SettingSpec",
    "Settings",
    "SettingsError",
    "check_config_values",
    "default_config_file",
    "default_data_dir",
    "load_settings",
    "settings_markdown",
    "settings_table",
]

APP_NAME = "parley"

EmbedderChoice = Literal["auto", "local", "openai", "gemini"]
TextModelChoice = Literal["auto", "offline", "gemini"]
VoiceModelChoice = Literal["auto", "gemini", "offline"]
StorageChoice = Literal["sqlite", "supabase"]

Override = str | os.PathLike[str] | None
"""A command-line value: None means the option was not given."""


@dataclass(frozen=True)
class Settings:
    """Everything the composition root needs to wire the app, resolved once at start-up."""

    data_dir: Path
    """Folder of the chat store, the turn journal and the logs (absolute, `~` expanded)."""
    config_file: Path
    """The config file that was read, or would have been read had it existed."""
    user_id: str = "local"
    """Owner of the chats and memories written by this install."""
    embedder: EmbedderChoice = "auto"
    """Which embedding model to use; "auto" means OpenAI when its key is present (that key serves nothing
    else, so it is a choice), else Gemini when its key is present, else local."""
    text_model: TextModelChoice = "auto"
    """Model for summaries and titles; "auto" means Gemini when its key is present, else offline."""
    gemini_text_model: str = "gemini-3.5-flash-lite"
    """Gemini model name for summaries and titles: a fast, cheap one is enough (gemini-2.5-flash, the old
    default, was shut down on 1 December 2026; Google names gemini-3.5-flash-lite as its replacement)."""
    gemini_base_url: str | None = None
    """Gemini endpoint (None: Google's); tests point it at a local fake."""
    openai_base_url: str | None = None
    """OpenAI endpoint (None: OpenAI's); tests point it at a local fake."""
    openai_embedding_model: str = "text-embedding-3-small"
    """OpenAI embedding model name."""
    gemini_embedding_model: str = "gemini-embedding-2"
    """Gemini embedding model name: gemini-embedding-2 is Google's GA embedding model since April 2026
    (gemini-embedding-001, text only, is still served). Vectors are kept per model name."""
    log_level: str = "INFO"
    """Root logging level name: DEBUG, INFO, WARNING, ERROR or CRITICAL."""
    gemini_live_model: str = "gemini-3.8-live"
    """Gemini Live model for voice conversations (native audio); the names change often. gemini-3.8-live is
    the stable (GA, September 2026) model Google's model list names as the default Live model; the 2.5 and
    3.1 names are previews it asks users to migrate from. `parley doctor` checks the name exists."""
    voice_model: VoiceModelChoice = "auto"
    """Who answers voice conversations; "auto" means Gemini Live when its key is present, else offline."""
    ca_file: Path | None = None
    """Extra trusted CA bundle (PEM) for TLS to the Gemini endpoint, for enterprise proxies and tests."""
    wake_word: str = "hey_jarvis"
    """Built-in wake word (hey_jarvis, alexa, hey_mycroft, hey_rhasspy) or the path of a custom .onnx model."""
    wake_threshold: float = 0.5
    """Wake word score (0 to 1) above which Parley wakes."""
    idle_seconds: float = 10.0
    """Silence after the model's last turn before the conversation is saved and Parley sleeps (seconds)."""
    input_device: str | None = None
    """Microphone: a PortAudio device name (or a part of one); None is the system default."""
    output_device: str | None = None
    """Speaker: a PortAudio device name (or a part of one); None is the system default."""
    close_to_tray: bool = True
    """Closing the window keeps Parley listening in the tray, when the desktop has one."""
    storage: StorageChoice = "sqlite"
    """Where chats and memories live: a SQLite file in `data_dir`, or the user's Supabase project."""
    supabase_url: str | None = None
    """The Supabase project's URL (`https://<ref>.supabase.co`)."""
    supabase_anon_key: Secret | None = None
    """The Supabase project's anon key: public by design (row level security guards the data), but kept
    masked so that it stays out of logs."""
    gemini_api_key: Secret | None = None
    """From GEMINI_API_KEY / GOOGLE_API_KEY or the OS keyring; None when neither has one."""
    openai_api_key: Secret | None = None
    """From OPENAI_API_KEY or the OS keyring; None when neither has one."""

    @property
    def effective_embedder(self) -> Literal["local", "openai", "gemini"]:
        """The embedder "auto" stands for: OpenAI when its key is present (Parley uses that key for
        embeddings only, so setting it chose them), else Gemini when its key is present, else local. An
        explicit choice stays even without its key: wiring reports the missing key rather than silently
        embedding with another model."""
        if self.embedder == "auto":
            if self.openai_api_key is not None:
                return "openai"
            return "gemini" if self.gemini_api_key is not None else "local"
        return self.embedder

    @property
    def effective_text_model(self) -> Literal["offline", "gemini"]:
        """The text model "auto" stands for (same rule as `effective_embedder`)."""
        if self.text_model == "auto":
            return "gemini" if self.gemini_api_key is not None else "offline"
        return self.text_model

    @property
    def effective_voice_model(self) -> Literal["gemini", "offline"]:
        """The voice model "auto" stands for (same rule as `effective_embedder`)."""
        if self.voice_model == "auto":
            return "gemini" if self.gemini_api_key is not None else "offline"
        return self.voice_model


@dataclass(frozen=True)
class SettingRow:
    """One row of the settings reference, every cell printable ("-" for "none")."""

    setting: str
    env_var: str
    config_key: str
    default: str
    description: str


def _field_default(name: str) -> str | None:
    # The defaults live once, on the dataclass; the specs read them from there.
    default = next(f.default for f in dataclasses.fields(Settings) if f.name == name)
    if default is dataclasses.MISSING or default is None:
        return None
    return str(default).lower() if isinstance(default, bool) else str(default)


def _spec(name: str, env_var: str, description: str, kind: Kind = "text", choices: tuple[str, ...] = ()) -> SettingSpec:
    return SettingSpec(name, (env_var,), name, _field_default(name), description, kind, choices)


def _secret_spec(secret: SecretSpec) -> SettingSpec:
    description = (
        f"{secret.label} API key: from the environment or the OS keyring "
        f"(`parley keys set {secret.name}`), never the config file."
    )
    return SettingSpec(secret.setting, secret.env_vars, None, None, description, "secret")


SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec(
        "data_dir",
        ("PARLEY_DATA_DIR",),
        "data_dir",
        None,
        "Folder for the chat store, the journal and the logs; relative paths in the config file "
        "are relative to the file's folder.",
        "path",
    ),
    SettingSpec(
        "config_file",
        ("PARLEY_CONFIG",),
        None,
        None,
        "The TOML config file; the command line's `config_file` wins over PARLEY_CONFIG.",
        "path",
    ),
    _spec("user_id", "PARLEY_USER_ID", "Owner of the chats and memories written by this install."),
    _spec(
        "embedder",
        "PARLEY_EMBEDDER",
        "Embedding model: local (all-MiniLM-L6-v2, on this machine), openai, gemini, or auto (openai when an "
        "OpenAI key is present, else gemini when a Gemini key is present, else local). After a change, "
        "`parley chats reembed` moves the stored vectors to the new model.",
        choices=("auto", "local", "openai", "gemini"),
    ),
    _spec(
        "text_model",
        "PARLEY_TEXT_MODEL",
        "Model for summaries and titles: offline, gemini, or auto (gemini when a Gemini key is present).",
        choices=("auto", "offline", "gemini"),
    ),
    _spec("gemini_text_model", "PARLEY_GEMINI_TEXT_MODEL", "Gemini model name for summaries and titles."),
    _spec("gemini_base_url", "PARLEY_GEMINI_BASE_URL", "Gemini endpoint (default: Google's).", "url"),
    _spec("openai_base_url", "PARLEY_OPENAI_BASE_URL", "OpenAI endpoint (default: OpenAI's).", "url"),
    _spec("openai_embedding_model", "PARLEY_OPENAI_EMBEDDING_MODEL", "OpenAI embedding model name."),
    _spec("gemini_embedding_model", "PARLEY_GEMINI_EMBEDDING_MODEL", "Gemini embedding model name."),
    _spec("log_level", "PARLEY_LOG_LEVEL", f"Logging level: {', '.join(LOG_LEVELS)}.", "level"),
    _spec("gemini_live_model", "PARLEY_GEMINI_LIVE_MODEL", "Gemini Live model for voice conversations."),
    _spec(
        "voice_model",
        "PARLEY_VOICE_MODEL",
        "Who answers voice conversations: gemini (Gemini Live), offline (small local models: Whisper, "
        "SmolLM2-135M, espeak-ng; nothing leaves the machine), or auto (gemini when a Gemini key is present).",
        choices=("auto", "gemini", "offline"),
    ),
    _spec("ca_file", "PARLEY_CA_FILE", "Extra trusted CA bundle (PEM) for TLS to the Gemini endpoint.", "path"),
    _spec(
        "wake_word",
        "PARLEY_WAKE_WORD",
        "Wake word: hey_jarvis, alexa, hey_mycroft, hey_rhasspy, or the path of a custom .onnx model.",
    ),
    _spec("wake_threshold", "PARLEY_WAKE_THRESHOLD", "Wake word score (0 to 1) above which Parley wakes.", "number"),
    _spec(
        "idle_seconds",
        "PARLEY_IDLE_SECONDS",
        "Seconds of silence after Parley's last answer before the chat is saved and Parley sleeps.",
        "number",
    ),
    _spec(
        "input_device",
        "PARLEY_INPUT_DEVICE",
        "Microphone: a device name as `parley doctor` lists it (or a part of it); empty for the system default.",
        "optional",
    ),
    _spec(
        "output_device",
        "PARLEY_OUTPUT_DEVICE",
        "Speaker: a device name as `parley doctor` lists it (or a part of it); empty for the system default.",
        "optional",
    ),
    _spec(
        "close_to_tray",
        "PARLEY_CLOSE_TO_TRAY",
        "Closing the window keeps Parley listening in the tray (true or false); without a tray it quits.",
        "flag",
    ),
    _spec(
        "storage",
        "PARLEY_STORAGE",
        "Where chats and memories live: sqlite (a file in the data folder) or supabase (your own Supabase "
        "project, signed in with `parley supabase signin`).",
        choices=("sqlite", "supabase"),
    ),
    _spec("supabase_url", "PARLEY_SUPABASE_URL", "Your Supabase project's URL (`parley supabase setup`).", "url"),
    _spec(
        "supabase_anon_key",
        "PARLEY_SUPABASE_ANON_KEY",
        "Your Supabase project's anon key: public by design, never a service-role key; kept out of logs.",
        "optional",
    ),
    *(_secret_spec(secret) for secret in SECRETS),
)

_BY_NAME = {spec.name: spec for spec in SETTINGS}
_BY_CONFIG_KEY = {spec.config_key: spec for spec in SETTINGS if spec.config_key is not None}

CONFIG_KEYS: tuple[str, ...] = tuple(_BY_CONFIG_KEY)
"""Every key the config file may hold."""


def default_config_file() -> Path:
    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def default_data_dir() -> Path:
    return platformdirs.user_data_path(APP_NAME)


def settings_table(*, for_docs: bool = False) -> list[SettingRow]:
    """The settings reference, one row per setting, in `SETTINGS` order.

    The default folders are this machine's (for `parley config`), or platform-neutral text when
    `for_docs` is set (for the README).
    """
    if for_docs:
        computed = {
            "config_file": "config.toml in the platform config folder (~/.config/parley on Linux)",
            "data_dir": "the platform data folder (~/.local/share/parley on Linux)",
        }
    else:
        computed = {"config_file": str(default_config_file()), "data_dir": str(default_data_dir())}
    return [
        SettingRow(
            setting=spec.name,
            env_var=" or ".join(spec.env_vars) or "-",
            config_key=spec.config_key or "-",
            default=computed.get(spec.name, spec.default if spec.default is not None else "-"),
            description=spec.description,
        )
        for spec in SETTINGS
    ]


def settings_markdown() -> str:
    """`settings_table()` as a Markdown table, for the README."""
    lines = [
        "| setting | environment variable | config key | default | description |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in settings_table(for_docs=True):
        cells = (row.setting, row.env_var, row.config_key, row.default, row.description)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def load_settings(overrides: Mapping[str, Override] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Resolve every setting through the four layers; `SettingsError` on any bad value.

    `overrides` maps `Settings` field names to command-line values (None: not given); `env` defaults to
    `os.environ`. API keys are looked up in `env`, then the OS keyring.
    """
    env = os.environ if env is None else env
    given = _given_overrides(overrides or {})

    config_file, explicit = _config_location(given, env)
    from_file = read_config(config_file, explicit=explicit, known_keys=CONFIG_KEYS)

    def resolve(name: str) -> str | Path | None:
        spec = _BY_NAME[name]
        value: str | Path | None = spec.default
        if spec.config_key is not None and spec.config_key in from_file:
            where = f"{config_file}: setting '{spec.config_key}'"
            value = convert_value(spec, from_file[spec.config_key], where, base=config_file.parent)
        for var in spec.env_vars:
            if env.get(var, "").strip():
                value = convert_value(spec, env[var], f"environment variable {var}", base=None)
                break
        if name in given:
            value = convert_value(spec, given[name], f"command-line option '{name}'", base=None)
        return value

    data_dir = resolve("data_dir")
    return Settings(
        data_dir=data_dir if isinstance(data_dir, Path) else default_data_dir(),
        config_file=config_file,
        user_id=_text(resolve("user_id")),
        embedder=cast(EmbedderChoice, resolve("embedder")),
        text_model=cast(TextModelChoice, resolve("text_model")),
        gemini_text_model=_text(resolve("gemini_text_model")),
        gemini_base_url=_optional_text(resolve("gemini_base_url")),
        openai_base_url=_optional_text(resolve("openai_base_url")),
        openai_embedding_model=_text(resolve("openai_embedding_model")),
        gemini_embedding_model=_text(resolve("gemini_embedding_model")),
        log_level=_text(resolve("log_level")),
        gemini_live_model=_text(resolve("gemini_live_model")),
        voice_model=cast(VoiceModelChoice, resolve("voice_model")),
        ca_file=_optional_path(resolve("ca_file")),
        wake_word=_text(resolve("wake_word")),
        wake_threshold=float(_text(resolve("wake_threshold"))),
        idle_seconds=float(_text(resolve("idle_seconds"))),
        input_device=_optional_text(resolve("input_device")),
        output_device=_optional_text(resolve("output_device")),
        close_to_tray=_text(resolve("close_to_tray")) == "true",
        storage=cast(StorageChoice, resolve("storage")),
        supabase_url=_optional_text(resolve("supabase_url")),
        supabase_anon_key=_optional_secret(resolve("supabase_anon_key")),
        gemini_api_key=get_secret("gemini", env),
        openai_api_key=get_secret("openai", env),
    )


def check_config_values(path: Path, table: Mapping[str, object]) -> None:
    """`SettingsError` for the first value in `table` (a config file's keys and values) that
    `load_settings` would refuse, worded as it would word it. Unknown keys are `read_config`'s business."""
    for key, raw in table.items():
        spec = _BY_CONFIG_KEY.get(key)
        if spec is not None:
            convert_value(spec, raw, f"{path}: setting '{key}'", base=path.parent)


def _given_overrides(overrides: Mapping[str, Override]) -> dict[str, str | os.PathLike[str]]:
    given: dict[str, str | os.PathLike[str]] = {}
    for name, value in overrides.items():
        if value is None:
            continue
        spec = _BY_NAME.get(name)
        if spec is None:
            raise SettingsError(f"unknown command-line setting '{name}'")
        if spec.kind == "secret":
            # Command lines end up in shell history and in `ps` output.
            raise SettingsError(f"'{name}' cannot be given on the command line; use `parley keys set`")
        given[name] = value
    return given


def _config_location(given: Mapping[str, str | os.PathLike[str]], env: Mapping[str, str]) -> tuple[Path, bool]:
    """The config file's path, and whether the user named it (then it must exist)."""
    spec = _BY_NAME["config_file"]
    if "config_file" in given:
        path = convert_value(spec, given["config_file"], "command-line option 'config_file'", base=None)
        return cast(Path, path), True
    for var in spec.env_vars:
        if env.get(var, "").strip():
            return cast(Path, convert_value(spec, env[var], f"environment variable {var}", base=None)), True
    return default_config_file(), False


def _optional_path(value: str | Path | None) -> Path | None:
    return value if isinstance(value, Path) else None


def _text(value: str | Path | None) -> str:
    assert isinstance(value, str), value  # guaranteed by `_convert` and the specs' defaults
    return value


def _optional_secret(value: str | Path | None) -> Secret | None:
    text = _optional_text(value)
    return Secret(text) if text else None


def _optional_text(value: str | Path | None) -> str | None:
    assert value is None or isinstance(value, str), value
    return value
