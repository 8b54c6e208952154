#!/usr/bin/env bash
# Regenerates every WAV in assets/audio/ (the voice tests' and benchmarks' fixtures) with Debian's
# espeak-ng and sox:  apt-get install espeak-ng sox  &&  scripts/make_audio_fixtures.sh
#
# Every file is 16 kHz mono signed 16-bit PCM, the microphone format, with digital silence before and
# after the speech so that detection offsets and the pre-roll kept after a wake word can be checked.
# The output is deterministic: espeak-ng is, `sox -R` seeds the noise generators with a fixed number
# and `-D` turns off dithering.  Re-running it gives byte-identical files with the same tool versions
# (checked with espeak-ng 1.51 and sox 14.4.2, Debian 12).  assets/audio/README.md lists each file.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in espeak-ng sox; do
    command -v "$tool" >/dev/null || { echo "make_audio_fixtures: $tool is missing (apt-get install espeak-ng sox)" >&2; exit 1; }
done

out=assets/audio
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

TAIL=0.8   # seconds of silence after the last word
GAP=0.3    # seconds of silence between the wake phrase and what follows it

sx() { sox -D -R "$@"; }

# speak NAME VOICE SPEED TEXT: one utterance at 16 kHz, its own leading and trailing silence trimmed
# (anything under 0.1 % of full scale), so the script, not espeak, decides where the pauses are.
speak() {
    espeak-ng -v "$2" -s "$3" -w "$work/$1.espeak.wav" "$4"
    sx "$work/$1.espeak.wav" -r 16000 -c 1 -b 16 "$work/$1.wav" \
        silence 1 0.01 0.1% reverse silence 1 0.01 0.1% reverse
}

quiet() { sx -n -r 16000 -c 1 -b 16 "$work/$1.wav" trim 0 "$2"; }

# fixture NAME LEAD PART...: the parts in order, LEAD seconds of silence before them and TAIL after.
# The leads differ a little so the speech does not always start at the same point of an 80 ms frame.
# Where it starts matters: with a lead of 0.9 s (0.5, 0.58, ... 20 ms past a frame boundary) the en-us
# "hey jarvis" followed by more speech peaks at 0.49 and does not fire; bench/voice.py sweeps all shifts.
fixture() {
    local name=$1 lead=$2
    shift 2
    local parts=()
    for part in "$@"; do parts+=("$work/$part.wav"); done
    if [ ${#parts[@]} -gt 1 ]; then
        sx "${parts[@]}" "$work/$name.joined.wav"
    else
        cp "${parts[0]}" "$work/$name.joined.wav"
    fi
    sx "$work/$name.joined.wav" "$out/$name.wav" pad "$lead" "$TAIL"
}

quiet gap "$GAP"

# Positives.  The wake phrase is its own utterance followed by a short pause: "hey jarvis, what's the
# weather" spoken in one breath scores lower (0.67, one frame over 0.5); after a pause it scores 0.98.
speak jarvis en-us 175 "hey jarvis"
speak jarvis_slow en+f2 140 "hey jarvis"
speak jarvis_fast en-gb-x-rp 200 "hey jarvis"
speak alexa en-gb 175 "alexa"
speak weather en-us 175 "what's the weather like in Rome tomorrow?"
speak switch en-us 175 "let's go back to the chat about the kitchen renovation"
speak goodbye en-us 175 "thanks, that's all for now. goodbye."
speak remember en-us 175 "remember that my daughter's name is Mia."
speak recall en-us 175 "what did we decide about the kitchen tiles?"

fixture wake_hey_jarvis 0.8 jarvis
fixture wake_hey_jarvis_slow_female 0.65 jarvis_slow
fixture wake_hey_jarvis_fast_british 0.95 jarvis_fast
fixture wake_weather 0.7 jarvis gap weather
fixture wake_switch_chat 0.85 jarvis gap switch
fixture wake_goodbye 0.75 jarvis gap goodbye
fixture wake_remember 0.9 jarvis gap remember
fixture wake_recall 0.7 jarvis gap recall
fixture wake_alexa 0.8 alexa

# Negatives: other speech (one sentence with near words), silence and noise.
speak hello en-us 175 "hello there, how are you today?"
speak travis en-us 175 "hey Travis, pass me the jar"
fixture speech_hello 0.8 hello
fixture speech_hey_travis 0.6 travis

sx -n -r 16000 -c 1 -b 16 "$out/silence.wav" trim 0 3
sx -n -r 16000 -c 1 -b 16 "$out/white_noise.wav" synth 3 whitenoise vol 0.5
sx -n -r 16000 -c 1 -b 16 "$out/pink_noise.wav" synth 3 pinknoise vol 0.5

du -ch "$out"/*.wav | tail -n 1
