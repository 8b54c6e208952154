"""SmolLM2's GGUF file as a CTranslate2 model: the only module that imports `gguf` and
`ctranslate2.specs`. Run once, into the cache folder (`voice.offline.files.prepared`).

Why convert: the GGUF's own runtime, llama.cpp, has no wheel that loads on Debian 12 (the prebuilt
ones need glibc 2.38 or GCC 14's libstdc++), and building llama-cpp-python takes 10-13 minutes on two
cores. CTranslate2 comes with faster-whisper anyway, runs the same Llama architecture, and the GGUF
holds everything it needs: the weights (dequantised here, then stored as int8), the hyper-parameters
and the byte-level BPE tokenizer.

Facts the conversion relies on:
- llama.cpp's converter permutes the query and key projections of Llama models so that its default
  rotary embedding (adjacent pairs) applies; CTranslate2 calls that layout `rotary_interleave=True`.
- SmolLM2 ties its output projection to the token embeddings: the GGUF has no `output.weight`.
- The tokenizer is GPT-2 style byte-level BPE with single-digit pre-tokenization ("smollm"), and
  ChatML's `<|im_start|>`/`<|im_end|>` as special tokens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gguf
import numpy as np
from ctranslate2.specs import common_spec, transformer_spec
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

from voice.offline.errors import OfflineVoiceError

TOKENIZER_FILE = "tokenizer.json"
SPECIAL_TOKENS = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")


def convert_gguf(source: Path, folder: Path) -> None:
    """Write a CTranslate2 model (int8) and its `tokenizer.json` for the Llama GGUF `source` into `folder`."""
    try:
        reader = gguf.GGUFReader(source)
        fields = _Fields(reader)
        weights = {tensor.name: _dequantised(tensor) for tensor in reader.tensors}
    except (OSError, ValueError, KeyError) as error:
        raise OfflineVoiceError(f"cannot read the chat model {source.name}: {error}") from error
    if fields.get("general.architecture") != "llama":
        raise OfflineVoiceError(f"{source.name} is not a Llama model")
    tokens = [str(token) for token in fields.get("tokenizer.ggml.tokens")]
    spec = _spec(fields, weights)
    spec.register_vocabulary(tokens)
    spec.config.bos_token = tokens[int(fields.get("tokenizer.ggml.bos_token_id"))]
    spec.config.eos_token = tokens[int(fields.get("tokenizer.ggml.eos_token_id"))]
    spec.config.unk_token = tokens[int(fields.get("tokenizer.ggml.unknown_token_id"))]
    spec.config.layer_norm_epsilon = float(fields.get("llama.attention.layer_norm_rms_epsilon"))
    spec.validate()
    spec.optimize(quantization="int8")
    spec.save(str(folder))
    tokenizer(tokens, [str(merge) for merge in fields.get("tokenizer.ggml.merges")]).save(str(folder / TOKENIZER_FILE))


def tokenizer(tokens: list[str], merges: list[str]) -> Tokenizer:
    """The byte-level BPE tokenizer a GGUF's `tokenizer.ggml.*` fields describe (GPT-2 style)."""
    vocabulary = {token: index for index, token in enumerate(tokens)}
    pairs = [tuple(merge.split(" ", 1)) for merge in merges]
    bpe = Tokenizer(models.BPE(vocab=vocabulary, merges=[(a, b) for a, b in pairs]))
    bpe.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    bpe.decoder = decoders.ByteLevel()
    bpe.add_special_tokens([AddedToken(token, special=True) for token in SPECIAL_TOKENS if token in vocabulary])
    return bpe


class _Fields:
    def __init__(self, reader: gguf.GGUFReader) -> None:
        self._reader = reader

    def get(self, key: str) -> Any:
        return self._reader.fields[key].contents()


def _dequantised(tensor: Any) -> np.ndarray[Any, np.dtype[np.float32]]:
    array = np.asarray(gguf.quants.dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
    # GGUF lists dimensions innermost first; numpy wants them outermost first.
    return array.reshape([int(size) for size in reversed(tensor.shape)])


def _spec(fields: _Fields, weights: dict[str, Any]) -> transformer_spec.TransformerDecoderModelSpec:
    heads, heads_kv = int(fields.get("llama.attention.head_count")), int(fields.get("llama.attention.head_count_kv"))
    spec = transformer_spec.TransformerDecoderModelSpec.from_config(
        int(fields.get("llama.block_count")),
        heads,
        activation=common_spec.Activation.SWISH,
        pre_norm=True,
        ffn_glu=True,
        rms_norm=True,
        rotary_dim=0,
        rotary_interleave=True,
        rotary_base=float(fields.get("llama.rope.freq_base")),
        num_heads_kv=heads_kv if heads_kv != heads else None,
    )
    decoder = spec.decoder
    decoder.scale_embeddings = False
    decoder.embeddings.weight = weights["token_embd.weight"]
    decoder.layer_norm.gamma = weights["output_norm.weight"]
    decoder.projection.weight = weights.get("output.weight", weights["token_embd.weight"])
    for index, layer in enumerate(decoder.layer):
        block = f"blk.{index}."
        layer.self_attention.layer_norm.gamma = weights[block + "attn_norm.weight"]
        layer.self_attention.linear[0].weight = np.concatenate(
            [weights[block + "attn_q.weight"], weights[block + "attn_k.weight"], weights[block + "attn_v.weight"]]
        )
        layer.self_attention.linear[1].weight = weights[block + "attn_output.weight"]
        layer.ffn.layer_norm.gamma = weights[block + "ffn_norm.weight"]
        layer.ffn.linear_0.weight = weights[block + "ffn_gate.weight"]
        layer.ffn.linear_0_noact.weight = weights[block + "ffn_up.weight"]
        layer.ffn.linear_1.weight = weights[block + "ffn_down.weight"]
    return spec
