"""Finding, checking, downloading and loading the official OmniVoice checkpoint.

A checkpoint is a folder in the official layout (``config.json``,
``model.safetensors``, the Qwen2 tokenizer files and ``audio_tokenizer/`` with
the HiggsAudioV2 codec) or a Hugging Face repo id resolved through the hub
cache. Everything is checked before any weights are read, and every problem is
one sentence naming the file and what to do.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from studio.engine.hub_download import LICENSE_NOTICE  # noqa: F401  (the CLI reads it here)
from studio.engine.model import AudioSpec, OmniVoiceNet
from studio.engine.options import model_source
from studio.errors import ModelNotDownloaded, UserError

log = logging.getLogger(__name__)


TOKENIZER_FILES = ("tokenizer_config.json",)
TOKENIZER_VOCAB = (("tokenizer.json",), ("vocab.json", "merges.txt"))
CODEC_FILES = ("config.json", "model.safetensors", "preprocessor_config.json")
SPECIAL_TOKENS = (
    "<|denoise|>", "<|lang_start|>", "<|lang_end|>", "<|instruct_start|>", "<|instruct_end|>",
    "<|text_start|>", "<|text_end|>",
)


@dataclass(frozen=True)
class CheckpointInfo:
    """What the config files promise, checked before the weights are read."""

    root: Path
    llm_config: dict
    audio: AudioSpec
    codebook_weights: tuple[float, ...]
    sample_rate: int
    hop_length: int
    frame_rate: int


def _read_json(path: Path, fix: str) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"The checkpoint is missing {path}; {fix}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise UserError(f"{path} is damaged (not valid JSON); {fix}") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} does not hold a configuration object; {fix}")
    return data


MAX_LAYERS = 512  # the real model has 28; a config past this is damaged, not a model


def _whole(config: dict, key: str, default, where: Path, fix: str, low: int = 1,
           high: int = 1 << 30, what: str | None = None) -> int:
    """``config[key]`` as a whole number from ``low`` to ``high``, or one sentence."""
    value = config.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise UserError(f"{where} gives {what or key} as {str(value)[:30]!r}, not a whole number "
                        f"from {low} to {high}; {fix}")
    return value


def _refetch_hint(root: Path) -> str:
    return (
        f"download the checkpoint again (omnivoice-desktop download) or point --model at a "
        f"complete copy of {root.name}."
    )


def inspect_checkpoint(root: str | Path) -> CheckpointInfo:
    """Check a local checkpoint folder without loading any weights."""
    root = Path(root)
    if not root.is_dir():
        raise UserError(f"The model folder {root} does not exist; pass a checkpoint folder or a repo id.")
    fix = _refetch_hint(root)
    config = _read_json(root / "config.json", fix)
    if config.get("model_type") != "omnivoice":
        raise UserError(
            f"{root / 'config.json'} describes a {config.get('model_type')!r} model, not OmniVoice; "
            "point --model at an OmniVoice checkpoint."
        )
    llm = config.get("llm_config")
    if not isinstance(llm, dict) or llm.get("model_type") != "qwen3":
        raise UserError(f"{root / 'config.json'} has no Qwen3 llm_config; {fix}")
    where = root / "config.json"
    codebooks = _whole(config, "num_audio_codebook", 8, where, fix, high=64)
    vocab = _whole(config, "audio_vocab_size", 1025, where, fix, high=1 << 20)
    mask_id = _whole(config, "audio_mask_id", 1024, where, fix, low=0, high=1 << 20)
    for key, high in (("hidden_size", 1 << 16), ("intermediate_size", 1 << 18),
                      ("num_hidden_layers", MAX_LAYERS), ("num_attention_heads", 1024),
                      ("num_key_value_heads", 1024), ("vocab_size", 1 << 22)):
        if key in llm:
            _whole(llm, key, None, where, fix, high=high, what=f"llm_config {key}")
    if mask_id != vocab - 1:
        raise UserError(f"{root / 'config.json'} has an audio mask id {mask_id} outside the audio vocab; {fix}")
    if int(llm.get("vocab_size", 0)) <= mask_id:
        # Padding columns carry the mask id through the text table.
        raise UserError(f"{root / 'config.json'} has a text vocab too small for this model; {fix}")
    if not (root / "model.safetensors").is_file():
        raise UserError(f"The checkpoint is missing {root / 'model.safetensors'}; {fix}")
    missing = [name for name in TOKENIZER_FILES if not (root / name).is_file()]
    if missing or not any(all((root / n).is_file() for n in group) for group in TOKENIZER_VOCAB):
        raise UserError(f"The checkpoint in {root} is missing its text tokenizer files; {fix}")
    codec_dir = root / "audio_tokenizer"
    for name in CODEC_FILES:
        if not (codec_dir / name).is_file():
            raise UserError(f"The checkpoint is missing {codec_dir / name}; {fix}")
    codec = _read_json(codec_dir / "config.json", fix)
    codec_json = codec_dir / "config.json"
    sample_rate = _whole(codec, "sample_rate", 24000, codec_json, fix, low=1000, high=192_000)
    acoustic = codec.get("acoustic_model_config") or {}
    ratios = acoustic.get("downsampling_ratios", [8, 5, 4, 2]) if isinstance(acoustic, dict) else None
    if not (isinstance(ratios, list) and ratios and all(
            type(r) is int and 1 <= r <= 64 for r in ratios)):
        raise UserError(f"{codec_json} has downsampling ratios {str(ratios)[:40]}, not a list of "
                        f"whole numbers from 1 to 64; {fix}")
    hop = math.prod(ratios)
    frame_rate = math.ceil(sample_rate / hop)
    codebook_size = _whole(codec, "codebook_size", 1024, codec_json, fix, low=2, high=1 << 20)
    bandwidths = codec.get("target_bandwidths", [0.5, 1, 1.5, 2, 4])
    if not (isinstance(bandwidths, list) and bandwidths and all(
            type(b) in (int, float) and math.isfinite(b) and b > 0 for b in bandwidths)):
        raise UserError(f"{codec_json} has target bandwidths {str(bandwidths)[:40]}, not a list of "
                        f"positive numbers; {fix}")
    quantizers = int(1000 * bandwidths[-1] // (frame_rate * math.ceil(math.log2(codebook_size))))
    if quantizers != codebooks or codebook_size != mask_id:
        raise UserError(
            f"The audio codec in {codec_dir} gives {quantizers} codebooks of {codebook_size}, but the "
            f"model expects {codebooks} of {mask_id}; {fix}"
        )
    weights = config.get("audio_codebook_weights") or [8, 8, 6, 6, 4, 4, 2, 2]
    return CheckpointInfo(
        root=root,
        llm_config=llm,
        audio=AudioSpec(vocab_size=vocab, mask_id=mask_id, codebooks=codebooks),
        codebook_weights=tuple(float(w) for w in weights),
        sample_rate=sample_rate,
        hop_length=hop,
        frame_rate=frame_rate,
    )


def resolve_checkpoint(source: str | Path | None) -> Path:
    """A local folder as is; a repo id through the studio's own download (the setup card's)
    or the hub cache (``omnivoice-desktop download``), never downloading."""
    from studio.engine.hub_download import downloaded_folder

    source = model_source(source)
    path = Path(source).expanduser()
    if path.exists() or source.startswith((".", "/", "~")) or source.count("/") != 1:
        return path
    own = downloaded_folder(source)
    if own is not None:
        return own
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return Path(snapshot_download(source, local_files_only=True))
    except LocalEntryNotFoundError:
        raise ModelNotDownloaded(
            f"The model {source} is not downloaded yet; run `omnivoice-desktop download {source}` "
            "while online, or pass --model with a local checkpoint folder."
        ) from None


# safetensors' dtype names; the format is little-endian, like every CPU torch runs on.
_SAFETENSORS_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
                       "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
                       "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}


def _read_weights(path: Path, fix: str, dtype: torch.dtype | None = None,
                  convert: Callable[[str, torch.Tensor], object] | None = None) -> dict[str, object]:
    """Every tensor of ``path``; floating-point ones cast to ``dtype`` as they are read,
    then passed through ``convert(key, tensor)`` (e.g. into an int8 module) if given.

    Plain reads into fresh tensors, not a memory map: a mapped file's pages count as
    resident while the mapping lives (2.4 GB at full size, beside the bf16 copy), and
    casting tensor by tensor keeps at most one uncast tensor alive, so a bf16 load
    peaks near its bf16 size instead of fp32 + bf16.
    """
    try:
        with open(path, "rb") as file:
            size = int.from_bytes(file.read(8), "little")
            header = json.loads(file.read(size))
            base = 8 + size
            state = {}
            for key, entry in header.items():
                if key == "__metadata__":
                    continue
                begin, end = entry["data_offsets"]
                tensor = torch.empty(entry["shape"], dtype=_SAFETENSORS_DTYPES[entry["dtype"]])
                raw = tensor.reshape(-1).view(torch.uint8).numpy()
                file.seek(base + begin)
                if end - begin != raw.nbytes or file.readinto(memoryview(raw)) != raw.nbytes:
                    raise ValueError(f"{key} is truncated or misshapen")
                if dtype is not None and tensor.is_floating_point() and tensor.dtype != dtype:
                    tensor = tensor.to(dtype)
                state[key] = tensor if convert is None else convert(key, tensor)
        return state
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:  # JSONDecodeError too
        log.info("reading %s failed: %r", path, exc)
        raise UserError(f"{path} is damaged or incomplete; {fix}") from None


def _llm_config(info: CheckpointInfo):
    from transformers import Qwen3Config

    return Qwen3Config.from_dict({k: v for k, v in info.llm_config.items() if k != "model_type"})


def build_network(info: CheckpointInfo, device: torch.device, dtype: torch.dtype,
                  convert: Callable[[str, torch.Tensor], object] | None = None) -> OmniVoiceNet:
    """Create the network on ``device`` and fill it from ``model.safetensors``.

    ``convert(key, tensor)`` may turn a ``<module>.weight`` into a module as it is read
    (int8: each projection quantised before the next is read, so the float
    projections never exist all at once); that module replaces ``<module>``.
    """
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RotaryEmbedding

    llm_config = _llm_config(info)
    llm_config._attn_implementation = "sdpa"
    fix = _refetch_hint(info.root)
    state = _read_weights(info.root / "model.safetensors", fix, dtype, convert)
    modules = {k.removesuffix(".weight"): state.pop(k) for k in list(state)
               if isinstance(state[k], torch.nn.Module)}
    # Build without random init (meta tensors), then adopt the checkpoint's tensors.
    with torch.device("meta"):
        net = OmniVoiceNet(llm_config, info.audio)
    for path, module in modules.items():  # placeholders until after the cast below
        try:
            linear = net.get_submodule(path)
        except AttributeError:
            linear = None
        if not isinstance(linear, torch.nn.Linear) or (module.in_features, module.out_features) != (
                linear.in_features, linear.out_features):
            raise UserError(f"{info.root / 'model.safetensors'} has {path}.weight of the wrong "
                            f"shape for this config; {fix}")
        net.set_submodule(path, torch.nn.Identity())
    expected = dict(net.state_dict())
    state.setdefault("codebook_layer_offsets", torch.arange(info.audio.codebooks) * info.audio.vocab_size)
    missing = sorted(set(expected) - set(state))
    wrong = [k for k in expected if k in state and tuple(state[k].shape) != tuple(expected[k].shape)]
    if missing or wrong:
        what = f"lacks {missing[0]}" if missing else f"has {wrong[0]} of the wrong shape"
        raise UserError(f"{info.root / 'model.safetensors'} {what} for this config; {fix}")
    # NaN or infinite weights decode into noise that looks like a render: refuse them.
    # A NaN or an infinity makes a tensor's sum non-finite (real weights are far from
    # overflowing it); one reduction per tensor, 0.19 s for 605 M fp32 weights here.
    broken = next((k for k in expected if state[k].is_floating_point()
                   and not bool(torch.isfinite(state[k].sum()))), None)
    if broken is not None:
        raise UserError(f"{info.root / 'model.safetensors'} holds invalid (NaN or infinite) "
                        f"values in {broken}; {fix}")
    net.load_state_dict({k: state[k] for k in expected}, assign=True, strict=True)
    # The rotary table is a non-persistent buffer, still on meta; it is rebuilt
    # after the cast because it must stay fp32 whatever the model's precision.
    net.llm.rotary_emb = torch.nn.Identity()
    net.to(device=device, dtype=dtype)
    net.llm.rotary_emb = Qwen3RotaryEmbedding(config=llm_config).to(device)
    for path, module in modules.items():
        net.set_submodule(path, module)
    return net.eval()


def load_codec(info: CheckpointInfo, device: torch.device):
    """The HiggsAudioV2 codec, refusing a file with missing or misshapen weights
    (transformers would fill them with zeros and every frame would encode to 0)."""
    from safetensors import SafetensorError
    from transformers import HiggsAudioV2TokenizerModel

    folder = info.root / "audio_tokenizer"
    fix = _refetch_hint(info.root)
    try:
        codec, report = HiggsAudioV2TokenizerModel.from_pretrained(folder, output_loading_info=True)
    except (SafetensorError, OSError, ValueError, RuntimeError) as exc:  # a truncated file too
        log.info("loading the codec from %s failed: %r", folder, exc)
        raise UserError(f"The audio codec in {folder} is damaged or incomplete; {fix}") from None
    problems = sorted(str(k) for k in (*report["missing_keys"], *report["mismatched_keys"]))
    if problems:
        raise UserError(f"The audio codec in {folder} lacks or misshapes {problems[0]}; {fix}")
    return codec.to(device).eval()


def load_text_tokenizer(info: CheckpointInfo):
    from transformers import AutoTokenizer

    try:
        # Handing over the backbone's config keeps transformers from reading config.json
        # (model_type "omnivoice", unknown to it) and printing a misleading warning.
        tokenizer = AutoTokenizer.from_pretrained(info.root, config=_llm_config(info))
    except (OSError, ValueError, TypeError) as exc:
        log.info("loading the tokenizer from %s failed: %r", info.root, exc)
        raise UserError(f"The text tokenizer in {info.root} is damaged; {_refetch_hint(info.root)}") from None
    missing = [t for t in SPECIAL_TOKENS if tokenizer.convert_tokens_to_ids(t) in (None, tokenizer.unk_token_id)]
    if missing:
        raise UserError(
            f"The text tokenizer in {info.root} lacks the OmniVoice token {missing[0]}; "
            f"{_refetch_hint(info.root)}"
        )
    return tokenizer
