"""Settings: one loader, four layers.

Each layer overrides the one before it:

1. built-in defaults (the field defaults of `Settings`);
2. the TOML config file, a flat table whose keys are the field names
   (`platformdirs.user_config_path("parley") / "config.toml"`, or the file named by `PARLEY_CONFIG`);
3. environment variables (`PARLEY_*`; an empty variable counts as unset);
4. command-line overrides, a mapping the CLI passes (None means "not given").

API keys are the exception: they come from the environment or the OS keyring (`app.config.secrets`), never
from the config file, and a config file that holds one is refused.

Each setting is declared once, as a `Settings` field; `SETTINGS` (its variable, config key, description and
choices) is derived from the fields, the loader reads it, and `settings_table()` renders it for docs/guide/settings.md
and `parley config` (`app.config.settings_table`), so they cannot drift.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, get_args, get_origin, get_type_hints

from app.config.config_file import SettingsError, read_config
from app.config.desktop_language import desktop_language
from app.config.paths import default_config_file, default_data_dir
from app.config.secrets import SECRETS, ApiKeys, Secret, SecretSpec
from app.config.setting_values import LOG_LEVELS, Kind, SettingSpec, convert_value, typed_value
from languages.registry import SUPPORTED, about

EmbedderChoice = Literal["auto", "local", "openai", "gemini"]
TextModelChoice = Literal["auto", "offline", "gemini"]
VoiceModelChoice = Literal["auto", "gemini", "offline"]
StorageChoice = Literal["sqlite", "supabase"]
LANGUAGES: tuple[tuple[str, str], ...] = (
    *((code, about(code)["language"]["name"]) for code in SUPPORTED),
    ("auto", "Whatever I speak (auto)"),
)
"""The `language` setting's values, each with the name its speakers give it (Settings, the first-start guide
and `parley setup` offer them in this order)."""

Override = str | os.PathLike[str] | None
"""A command-line value: None means the option was not given."""


def _about(description: str, *, kind: Kind = "text", **where: object) -> dict[str, object]:
    """A `Settings` field's metadata: the sentence the user reads (the guide, `parley config`) and how its values
    are checked. Its variable is `PARLEY_<NAME>` unless `env_var` names another, and its config key is its
    name unless `in_file=False`. A `Literal` type gives its choices; the field's default is the built-in one."""
    return {"description": description, "kind": kind, **where}


@dataclass(frozen=True)
class Settings:
    """Everything the composition root needs to wire the app, resolved once at start-up. Each field is the
    one place its setting is declared: `SETTINGS`, the loader and the guide's table come from these."""

    data_dir: Path = field(
        metadata=_about(
            "Folder for the chat store, the journal and the logs; relative paths in the config file are relative "
            "to the file's folder.",
            kind="path",
        )
    )
    config_file: Path = field(
        metadata=_about(
            "The TOML config file; the command line's `config_file` wins over PARLEY_CONFIG.",
            kind="path",
            env_var="PARLEY_CONFIG",
            in_file=False,
        )
    )
    user_id: str = field(default="local", metadata=_about("Owner of the chats and memories written by this install."))
    embedder: EmbedderChoice = field(
        default="auto",
        metadata=_about(
            "Embedding model: local (all-MiniLM-L6-v2, on this machine), openai, gemini, or auto (openai when an "
            "OpenAI key is present, else gemini when a Gemini key is present, else local). After a change, "
            "`parley chats reembed` moves the stored vectors to the new model."
        ),
    )
    text_model: TextModelChoice = field(
        default="auto",
        metadata=_about(
            "Model for summaries and titles: offline, gemini, or auto (gemini when a Gemini key is present)."
        ),
    )
    # A fast, cheap model is enough. gemini-2.5-flash, the old default, was shut down on 1 December 2026;
    # Google names gemini-3.5-flash-lite as its replacement.
    gemini_text_model: str = field(
        default="gemini-3.5-flash-lite", metadata=_about("Gemini model name for summaries and titles.")
    )
    # Tests point both endpoints at local fakes.
    gemini_base_url: str | None = field(
        default=None, metadata=_about("Gemini endpoint (default: Google's).", kind="url")
    )
    openai_base_url: str | None = field(
        default=None, metadata=_about("OpenAI endpoint (default: OpenAI's).", kind="url")
    )
    openai_embedding_model: str = field(
        default="text-embedding-3-small", metadata=_about("OpenAI embedding model name.")
    )
    # gemini-embedding-2 is Google's GA embedding model since April 2026 (gemini-embedding-001, text only,
    # is still served). Vectors are kept per model name.
    gemini_embedding_model: str = field(default="gemini-embedding-2", metadata=_about("Gemini embedding model name."))
    log_level: str = field(default="INFO", metadata=_about(f"Logging level: {', '.join(LOG_LEVELS)}.", kind="level"))
    # The names change often. gemini-3.8-live is the stable (GA, September 2026) model Google's model list
    # names as the default Live model; the 2.5 and 3.1 names are previews it asks users to migrate from.
    # `parley doctor` checks the name exists.
    gemini_live_model: str = field(
        default="gemini-3.8-live", metadata=_about("Gemini Live model for voice conversations.")
    )
    voice_model: VoiceModelChoice = field(
        default="auto",
        metadata=_about(
            "Who answers voice conversations: gemini (Gemini Live), offline (small local models: Whisper, "
            "SmolLM2-135M, espeak-ng; nothing leaves the machine), or auto (gemini when a Gemini key is present)."
        ),
    )
    web_search: bool = field(
        default=True,
        metadata=_about(
            "Gemini Live may search Google to answer (weather, news, prices) and shows the pages it used under "
            "its answer (true or false). Only with a Gemini key: the offline voice never searches.",
            kind="flag",
        ),
    )
    look_at_screen: bool = field(
        default=True,
        metadata=_about(
            'Gemini Live may look at your screen when you ask it to ("what does this error mean?"): one picture, '
            "taken only then (true or false). Off: it is not offered the tool.",
            kind="flag",
        ),
    )
    ca_file: Path | None = field(
        default=None, metadata=_about("Extra trusted CA bundle (PEM) for TLS to the Gemini endpoint.", kind="path")
    )
    wake_word: str = field(
        default="hey_jarvis",
        metadata=_about("Wake word: hey_jarvis, alexa, hey_mycroft, hey_rhasspy, or the path of a custom .onnx model."),
    )
    wake_threshold: float = field(
        default=0.5, metadata=_about("Wake word score (0 to 1) above which Parley wakes.", kind="fraction")
    )
    talk_shortcut: str | None = field(
        default="Ctrl+Alt+Space",
        metadata=_about(
            "A key combination that starts a conversation from any application, as the wake word does (X11, or "
            "Wayland desktops with the global shortcuts portal); empty for none.",
            kind="optional",
        ),
    )
    idle_seconds: float = field(
        default=10.0,
        metadata=_about(
            "Seconds of silence after Parley's last answer before the chat is saved and Parley sleeps.", kind="number"
        ),
    )
    models_release_s: float = field(
        default=600.0,
        metadata=_about(
            "Seconds a model (the offline voice's, the language detector, the local embedding models) stays loaded "
            "after its last use; Parley asleep holds only the wake word, a few hundred MB less.",
            kind="number",
        ),
    )
    input_device: str | None = field(
        default=None,
        metadata=_about(
            "Microphone: a device name as `parley doctor` lists it (or a part of it); empty for the system default.",
            kind="optional",
        ),
    )
    output_device: str | None = field(
        default=None,
        metadata=_about(
            "Speaker: a device name as `parley doctor` lists it (or a part of it); empty for the system default.",
            kind="optional",
        ),
    )
    close_to_tray: bool = field(
        default=True,
        metadata=_about(
            "Closing the window keeps Parley listening in the tray (true or false); without a tray it quits.",
            kind="flag",
        ),
    )
    storage: StorageChoice = field(
        default="sqlite",
        metadata=_about(
            "Where chats and memories live: sqlite (a file in the data folder) or supabase (your own Supabase "
            "project, signed in with `parley supabase signin`)."
        ),
    )
    # None until loaded: `load_settings` puts the desktop's language in its place, as it does the data folder.
    language: str | None = field(
        default=None,
        metadata=_about(
            f"The language you speak to Parley: {', '.join(SUPPORTED)}, or auto (found in what you say, per "
            "conversation, where the models can). Gemini Live is asked to speak it; the offline voice hears, "
            "speaks and recognises requests in it. The window and `parley` messages stay in English.",
            choices=("auto", *SUPPORTED),
        ),
    )
    supabase_url: str | None = field(
        default=None, metadata=_about("Your Supabase project's URL (`parley supabase setup`).", kind="url")
    )
    supabase_anon_key: Secret | None = field(
        default=None,
        metadata=_about(
            "Your Supabase project's anon key: public by design, never a service-role key; kept out of logs.",
            kind="masked",
        ),
    )
    api_keys: ApiKeys = field(default_factory=ApiKeys.of, repr=False, compare=False, metadata={"kind": "keys"})
    """Where `gemini_api_key` and `openai_api_key` come from (read when first asked for); none by default."""

    @property
    def gemini_api_key(self) -> Secret | None:
        return self.api_keys.get("gemini")

    @property
    def openai_api_key(self) -> Secret | None:
        return self.api_keys.get("openai")

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


def _specs() -> tuple[SettingSpec, ...]:
    """Every setting's `SettingSpec`, read from its `Settings` field (API keys from their `SecretSpec`)."""
    hints = get_type_hints(Settings)
    specs: list[SettingSpec] = []
    for setting in dataclasses.fields(Settings):
        meta = setting.metadata
        if meta["kind"] == "keys":
            specs.extend(_secret_spec(secret) for secret in SECRETS)
            continue
        hint = hints[setting.name]
        specs.append(
            SettingSpec(
                name=setting.name,
                env_vars=(meta.get("env_var", f"PARLEY_{setting.name.upper()}"),),
                config_key=setting.name if meta.get("in_file", True) else None,
                default=_default_text(setting.default),
                description=meta["description"],
                kind=meta["kind"],
                choices=meta.get("choices") or _choices(hint),
            )
        )
    return tuple(specs)


def _choices(hint: object) -> tuple[str, ...]:
    """The values a `Literal` type allows, also when the field may be None until loaded."""
    if get_origin(hint) is Literal:
        return get_args(hint)
    given = [arg for arg in get_args(hint) if arg is not type(None)]
    return get_args(given[0]) if len(given) == 1 and get_origin(given[0]) is Literal else ()


def _default_text(default: object) -> str | None:
    if default is dataclasses.MISSING or default is None:
        return None
    return str(default).lower() if isinstance(default, bool) else str(default)


def _secret_spec(secret: SecretSpec) -> SettingSpec:
    description = (
        f"{secret.label} API key: from the environment or the OS keyring "
        f"(`parley keys set {secret.name}`), never the config file."
    )
    return SettingSpec(secret.setting, secret.env_vars, None, None, description, "secret")


SETTINGS = _specs()
_BY_NAME = {spec.name: spec for spec in SETTINGS}
_BY_CONFIG_KEY = {spec.config_key: spec for spec in SETTINGS if spec.config_key is not None}

CONFIG_KEYS: tuple[str, ...] = tuple(_BY_CONFIG_KEY)
"""Every key the config file may hold."""


def load_settings(overrides: Mapping[str, Override] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Resolve every setting through the four layers; `SettingsError` on any bad value.

    `overrides` maps `Settings` field names to command-line values (None: not given); `env` defaults to
    `os.environ`. API keys are looked up in `env`, then (when first asked for) the OS keyring.
    """
    return load_with_origins(overrides, env)[0]


def load_with_origins(
    overrides: Mapping[str, Override] | None, env: Mapping[str, str] | None
) -> tuple[Settings, dict[str, str]]:
    """`load_settings`, and where each value came from (`app.config.setting_origins`), keys aside."""
    env = os.environ if env is None else env
    given = _given_overrides(overrides or {})

    config_file, explicit = _config_location(given, env)
    from_file = read_config(config_file, explicit=explicit, known_keys=CONFIG_KEYS)
    origins: dict[str, str] = {}

    def resolve(name: str) -> str | Path | None:
        spec = _BY_NAME[name]
        value: str | Path | None = spec.default
        origins[name] = "default"
        if spec.config_key is not None and spec.config_key in from_file:
            where = f"{config_file}: setting '{spec.config_key}'"
            value = convert_value(spec, from_file[spec.config_key], where, base=config_file.parent)
            origins[name] = "config file"
        for var in spec.env_vars:
            if env.get(var, "").strip():
                value = convert_value(spec, env[var], f"environment variable {var}", base=None)
                origins[name] = f"environment {var}"
                break
        if name in given:
            value = convert_value(spec, given[name], f"command-line option '{name}'", base=None)
            origins[name] = "command line"
        return value

    values: dict[str, Any] = {}
    for spec in SETTINGS:
        if spec.kind != "secret" and spec.name != "config_file":
            values[spec.name] = typed_value(spec, resolve(spec.name))
    origins["config_file"] = "command line" if "config_file" in given else ("environment" if explicit else "default")
    computed = {
        "config_file": config_file,
        "data_dir": values["data_dir"] or default_data_dir(),
        "language": values["language"] or desktop_language(env),
    }
    if values["language"] is None:
        origins["language"] = "desktop"
    return Settings(**(values | computed), api_keys=ApiKeys(env)), origins


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
