"""Build an OmniVoice checkpoint with random weights, in the official folder layout.

The real weights live on the Hugging Face hub; tests, benchmarks and the
self-test need something that loads through exactly the same code paths
without a download. :func:`build_random_checkpoint` writes that folder::

    folder/
        config.json               OmniVoice config with a Qwen3 ``llm_config``
        model.safetensors         llm.*, audio_embeddings, audio_heads, codebook_layer_offsets
        tokenizer.json            byte-level BPE (Qwen2 pipeline), trained here
        tokenizer_config.json     tokenizer_class "Qwen2Tokenizer"
        audio_tokenizer/
            config.json           HiggsAudioV2 codec: 24 kHz, hop 960, 8 x 1024 codes
            model.safetensors
            preprocessor_config.json   DacFeatureExtractor at 24 kHz

``size="tiny"`` gives a model that loads and renders in well under a second
on a CPU; ``size="full"`` has the real model's shapes (about 2.4 GB at fp32 for
the language model alone), for memory and speed measurements.

Everything is deterministic: the same ``size``, ``seed`` and ``dtype`` give
byte-identical weight files. Random numbers come from private
:class:`torch.Generator` objects; the global RNG is never touched.

The text tokenizer is the same small BPE for both sizes (the real Qwen
tokenizer cannot be downloaded here), so its ids, including those of the
special tokens, differ from the real checkpoint's.

Long because it is one deterministic recipe whose parts (configs, weights, a trained
tokenizer, the codec) only make sense together and are used nowhere else.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import torch

__all__ = ["SIZES", "build_random_checkpoint"]

SIZES = ("tiny", "full")

AUDIO_VOCAB_SIZE = 1025  # 1024 codes + the mask id
AUDIO_MASK_ID = 1024
NUM_AUDIO_CODEBOOKS = 8
AUDIO_CODEBOOK_WEIGHTS = (8, 8, 6, 6, 4, 4, 2, 2)
SAMPLE_RATE = 24000
HOP_LENGTH = 960  # 25 frames per second

# Special tokens of the text tokenizer, in id order after the BPE vocabulary:
# Qwen's three chat tokens, then the seven OmniVoice adds in training.
_QWEN_SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
OMNIVOICE_SPECIAL_TOKENS = (
    "<|denoise|>",
    "<|lang_start|>",
    "<|lang_end|>",
    "<|instruct_start|>",
    "<|instruct_end|>",
    "<|text_start|>",
    "<|text_end|>",
)
_PAD_TOKEN = "<|endoftext|>"
_EOS_TOKEN = "<|im_end|>"

_BPE_VOCAB_SIZE = 1200  # ids of the trained BPE; the special tokens follow
_TINY_VOCAB_MULTIPLE = 64  # the tiny LLM's vocabulary is rounded up to this

# The Qwen2 tokenizer's pre-tokenisation split (same as transformers' Qwen2Tokenizer).
_PRETOKENIZE_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# Training text for the tiny BPE: a little of many scripts, weighted towards
# English and Chinese, plus the words the prompt builder always emits.
_CORPUS = """\
Hello world. Hello there, how are you today?
Hi there. This is a short test of the speech synthesis engine.
The studio turns written text into natural sounding speech on your own computer.
Pick a reference clip, type what the voice should say, and press render.
A clear recording of five to ten seconds works best for cloning a voice.
Please speak slowly and clearly, and keep the microphone away from the fan.
The weather is lovely this morning, so we are going for a walk in the park.
She sells sea shells by the sea shore, and the shells she sells are surely seashells.
The quick brown fox jumps over the lazy dog while the cat watches from the window.
Numbers like 1, 2, 3, 42, 2024 and 3.14 should be read out one digit at a time.
Voice design lets you describe a speaker instead of recording one.
female, low pitch, british accent; male, high pitch, american accent.
child, teenager, young adult, middle-aged, elderly; whisper, very low pitch, moderate pitch.
australian accent, canadian accent, indian accent, korean accent, japanese accent.
chinese accent, portuguese accent, russian accent, very high pitch.
None English Chinese Japanese Korean French German Spanish Russian Arabic Hindi
Thank you for listening. Good night, and see you tomorrow!
What time is it? It's half past seven, and dinner's almost ready.
I'll call you back later; we've got a meeting at noon, haven't we?
[laughter] That was the funniest thing I've heard all week. [breath]
你好，世界！今天天气很好，我们一起去公园散步吧。
这是一个语音合成的测试句子，请仔细听一听效果怎么样。
录一段五到十秒的清晰声音，就可以用来克隆说话人的音色。
请慢一点说，声音大一点，不要离麦克风太远。
女，低音调，青年；男，高音调，老年；儿童，少年，中年，耳语。
极低音调，中音调，极高音调，四川话，东北话，河南话，陕西话。
谢谢大家的收听，我们明天同一时间再见。
春天来了，花都开了，小鸟在树上唱歌，孩子们在草地上奔跑。
他每天早上六点起床，先跑步，然后吃早饭，再去上班。
这个软件可以在自己的电脑上运行，不需要连接网络。
こんにちは、世界。今日はとても良い天気ですね。
音声合成のテストです。ゆっくり話してください。
안녕하세요, 세계. 오늘 날씨가 정말 좋네요.
음성 합성 테스트입니다. 천천히 말해 주세요.
Bonjour tout le monde. Il fait très beau aujourd'hui, n'est-ce pas ?
Ceci est un essai de synthèse vocale ; parlez lentement, s'il vous plaît.
Guten Tag, liebe Welt. Heute ist das Wetter schön, und wir gehen spazieren.
Das ist ein kurzer Test der Sprachsynthese. Bitte sprechen Sie langsam.
Hola a todos. ¿Qué tal estás hoy? El día está precioso y soleado.
Esta es una prueba de síntesis de voz; habla despacio, por favor.
Olá, mundo. Hoje o dia está lindo e vamos passear no parque.
Ciao a tutti. Oggi è una bella giornata per fare una passeggiata.
Привет, мир! Сегодня прекрасная погода, пойдём гулять в парк.
Это короткая проверка синтеза речи. Говорите, пожалуйста, медленно.
Γεια σου, κόσμε. Σήμερα ο καιρός είναι υπέροχος.
مرحبا بالعالم. الطقس جميل جدا اليوم.
नमस्ते दुनिया। आज मौसम बहुत अच्छा है।
Xin chào thế giới. Hôm nay trời rất đẹp.
สวัสดีชาวโลก วันนี้อากาศดีมาก
Merhaba dünya. Bugün hava çok güzel.
Witaj świecie. Dzisiaj jest piękna pogoda.
שלום עולם. היום מזג האוויר יפה מאוד.
"""


@dataclass(frozen=True)
class _LlmShape:
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int | None  # None: the tokenizer's size, rounded up


@dataclass(frozen=True)
class _CodecShape:
    codebook_dim: int
    acoustic_encoder_hidden: int
    acoustic_decoder_hidden: int
    acoustic_latent: int
    semantic_hidden: int
    semantic_layers: int
    semantic_heads: int
    semantic_intermediate: int
    semantic_conv_dim: int
    semantic_pos_kernel: int
    semantic_pos_groups: int


_LLM_SHAPES = MappingProxyType(
    {
        "tiny": _LlmShape(64, 2, 4, 2, 16, 128, None),
        # Qwen3-0.6B, with the OmniVoice special tokens appended to its vocabulary.
        "full": _LlmShape(1024, 28, 16, 8, 128, 3072, 151676),
    }
)

_CODEC_SHAPES = MappingProxyType(
    {
        "tiny": _CodecShape(8, 2, 64, 8, 16, 2, 2, 32, 8, 16, 4),
        # bosonai's higgs-audio-v2 tokenizer: DAC 64/1024/256, HuBERT-base semantics.
        "full": _CodecShape(64, 64, 1024, 256, 768, 12, 12, 3072, 512, 128, 16),
    }
)

# Generic PretrainedConfig fields that say nothing about Qwen3; left out of llm_config.
_GENERIC_CONFIG_KEYS = (
    "_name_or_path",
    "id2label",
    "label2id",
    "problem_type",
    "output_attentions",
    "output_hidden_states",
    "return_dict",
    "is_encoder_decoder",
    "chunk_size_feed_forward",
    "transformers_version",
)


def build_random_checkpoint(
    folder: Path,
    size: str = "tiny",
    seed: int = 0,
    dtype: torch.dtype = torch.float32,
) -> Path:
    """Write a complete random OmniVoice checkpoint into ``folder`` and return it.

    ``folder`` is created if needed; files already there are overwritten.
    ``dtype`` applies to the language model's floating-point weights (the
    codec always stays float32, as the real one does).
    """
    if size not in SIZES:
        raise ValueError(f"size must be one of {SIZES}, not {size!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point torch.dtype, not {dtype!r}")

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)

    text_tokenizer = _train_text_tokenizer()
    _write_text_tokenizer(folder, text_tokenizer)

    llm_config = _llm_config(size, text_tokenizer, dtype)
    _write_main_config(folder, llm_config, text_tokenizer, dtype)
    _write_main_weights(folder, llm_config, _generator(seed, 0), dtype)

    _write_codec(folder / "audio_tokenizer", size, _generator(seed, 1))
    return folder


# ---------------------------------------------------------------------------
# Text tokenizer
# ---------------------------------------------------------------------------


def _train_text_tokenizer():
    """Train the byte-level BPE on the built-in corpus (deterministic, ~50 ms)."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, normalizers, pre_tokenizers
    from tokenizers.models import BPE
    from tokenizers.trainers import BpeTrainer

    tokenizer = Tokenizer(
        BPE(
            unk_token=None,
            continuing_subword_prefix="",
            end_of_word_suffix="",
            fuse_unk=False,
            byte_fallback=False,
        )
    )
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(_PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = BpeTrainer(
        vocab_size=_BPE_VOCAB_SIZE,
        min_frequency=1,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tokenizer.train_from_iterator(_CORPUS.splitlines(), trainer=trainer)
    tokenizer.add_special_tokens(
        [
            AddedToken(token, special=True, normalized=False)
            for token in (*_QWEN_SPECIAL_TOKENS, *OMNIVOICE_SPECIAL_TOKENS)
        ]
    )
    return tokenizer


def _write_text_tokenizer(folder: Path, tokenizer) -> None:
    tokenizer.save(str(folder / "tokenizer.json"), pretty=True)
    tokenizer_config = {
        "add_prefix_space": False,
        "backend": "tokenizers",
        "bos_token": None,
        "clean_up_tokenization_spaces": False,
        "eos_token": _EOS_TOKEN,
        "errors": "replace",
        "extra_special_tokens": list(OMNIVOICE_SPECIAL_TOKENS),
        "model_max_length": 131072,
        "pad_token": _PAD_TOKEN,
        "split_special_tokens": False,
        "tokenizer_class": "Qwen2Tokenizer",
        "unk_token": None,
    }
    _write_json(folder / "tokenizer_config.json", tokenizer_config)


# ---------------------------------------------------------------------------
# Language model
# ---------------------------------------------------------------------------


def _llm_config(size: str, tokenizer, dtype: torch.dtype):
    from transformers import Qwen3Config

    shape = _LLM_SHAPES[size]
    vocab_size = shape.vocab_size
    if vocab_size is None:
        vocab_size = _round_up(tokenizer.get_vocab_size(), _TINY_VOCAB_MULTIPLE)
    # The reference embeds every position through the text embedding first,
    # audio positions included (codes and the mask id 1024).
    if vocab_size <= AUDIO_MASK_ID:
        raise AssertionError(f"text vocabulary {vocab_size} must exceed the mask id")
    return Qwen3Config(
        vocab_size=vocab_size,
        hidden_size=shape.hidden_size,
        intermediate_size=shape.intermediate_size,
        num_hidden_layers=shape.num_hidden_layers,
        num_attention_heads=shape.num_attention_heads,
        num_key_value_heads=shape.num_key_value_heads,
        head_dim=shape.head_dim,
        hidden_act="silu",
        max_position_embeddings=40960,
        initializer_range=0.02,
        rms_norm_eps=1e-6,
        use_cache=True,
        tie_word_embeddings=True,
        rope_parameters={"rope_theta": 1000000.0, "rope_type": "default"},
        attention_bias=False,
        attention_dropout=0.0,
        use_sliding_window=False,
        sliding_window=None,
        max_window_layers=shape.num_hidden_layers,
        bos_token_id=tokenizer.token_to_id(_PAD_TOKEN),
        eos_token_id=tokenizer.token_to_id(_EOS_TOKEN),
        architectures=["Qwen3ForCausalLM"],
        dtype=_dtype_name(dtype),
    )


def _write_main_config(folder: Path, llm_config, tokenizer, dtype: torch.dtype) -> None:
    import transformers

    llm_dict = llm_config.to_dict()
    for key in _GENERIC_CONFIG_KEYS:
        llm_dict.pop(key, None)
    config = {
        "architectures": ["OmniVoice"],
        "audio_codebook_weights": list(AUDIO_CODEBOOK_WEIGHTS),
        "audio_mask_id": AUDIO_MASK_ID,
        "audio_vocab_size": AUDIO_VOCAB_SIZE,
        "bos_token_id": None,
        "dtype": _dtype_name(dtype),
        "eos_token_id": tokenizer.token_to_id(_EOS_TOKEN),
        "llm_config": llm_dict,
        "model_type": "omnivoice",
        "num_audio_codebook": NUM_AUDIO_CODEBOOKS,
        "pad_token_id": tokenizer.token_to_id(_PAD_TOKEN),
        "transformers_version": transformers.__version__,
    }
    _write_json(folder / "config.json", config)


def _write_main_weights(folder: Path, llm_config, generator, dtype: torch.dtype) -> None:
    from safetensors.torch import save_file
    from transformers import Qwen3Model

    # Shapes and names only: a meta-device model allocates nothing and
    # draws no random numbers.
    with torch.device("meta"):
        llm = Qwen3Model(llm_config)
    std = llm_config.initializer_range
    hidden = llm_config.hidden_size
    tensors = {}
    for name, meta in llm.state_dict().items():
        if name.endswith("norm.weight"):  # every RMSNorm: layers, q/k norms, final
            tensor = torch.ones(meta.shape)
        elif name.endswith(".weight"):
            tensor = _normal(meta.shape, std, generator)
        else:
            raise AssertionError(f"unexpected Qwen3 tensor {name}")
        tensors[f"llm.{name}"] = tensor.to(dtype)
    rows = NUM_AUDIO_CODEBOOKS * AUDIO_VOCAB_SIZE
    tensors["audio_embeddings.weight"] = _normal((rows, hidden), std, generator).to(dtype)
    tensors["audio_heads.weight"] = _normal((rows, hidden), std, generator).to(dtype)
    # A persistent buffer in the reference model, so the official file carries it.
    tensors["codebook_layer_offsets"] = (
        torch.arange(NUM_AUDIO_CODEBOOKS, dtype=torch.int64) * AUDIO_VOCAB_SIZE
    )
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})


# ---------------------------------------------------------------------------
# Audio codec
# ---------------------------------------------------------------------------


def _codec_config(size: str):
    from transformers import HiggsAudioV2TokenizerConfig

    shape = _CODEC_SHAPES[size]
    ratios = [8, 5, 4, 2, 3]
    return HiggsAudioV2TokenizerConfig(
        # 2 kbps at 25 frames/s and 10 bits per code: 8 codebooks.
        target_bandwidths=[0.5, 1, 1.5, 2],
        sample_rate=SAMPLE_RATE,
        kernel_size=3,
        channel_ratios=[1, 1],
        strides=[1, 1],
        block_dilations=[1, 1],
        unit_kernel_size=3,
        codebook_size=1024,
        codebook_dim=shape.codebook_dim,
        initializer_range=0.02,
        semantic_sample_rate=16000,
        downsample_factor=320,
        acoustic_model_config={
            "model_type": "dac",
            "encoder_hidden_size": shape.acoustic_encoder_hidden,
            "decoder_hidden_size": shape.acoustic_decoder_hidden,
            "hidden_size": shape.acoustic_latent,
            "downsampling_ratios": ratios,
            "upsampling_ratios": ratios,
        },
        semantic_model_config={
            "model_type": "hubert",
            "hidden_size": shape.semantic_hidden,
            "num_hidden_layers": shape.semantic_layers,
            "num_attention_heads": shape.semantic_heads,
            "intermediate_size": shape.semantic_intermediate,
            # The strides must stay HuBERT's (320 in all): 50 semantic frames
            # per second, halved to the codec's 25.
            "conv_dim": [shape.semantic_conv_dim] * 7,
            "conv_kernel": [10, 3, 3, 3, 3, 2, 2],
            "conv_stride": [5, 2, 2, 2, 2, 2, 2],
            "num_conv_pos_embeddings": shape.semantic_pos_kernel,
            "num_conv_pos_embedding_groups": shape.semantic_pos_groups,
            "mask_time_prob": 0.0,
        },
    )


def _write_codec(folder: Path, size: str, generator) -> None:
    from transformers import DacFeatureExtractor, HiggsAudioV2TokenizerModel

    config = _codec_config(size)
    frames_per_second = SAMPLE_RATE / HOP_LENGTH
    if (
        config.hop_length != HOP_LENGTH
        or config.frame_rate != frames_per_second
        or config.num_quantizers != NUM_AUDIO_CODEBOOKS
        or config.semantic_downsample_factor != 2
    ):
        raise AssertionError("the codec config does not give 8 codebooks at 25 frames/s")

    with torch.device("meta"):
        model = HiggsAudioV2TokenizerModel(config)
    model.to_empty(device="cpu")
    _randomise_codec(model, generator)
    model.eval()
    model.save_pretrained(str(folder))

    feature_extractor = DacFeatureExtractor(
        feature_size=1,
        sampling_rate=SAMPLE_RATE,
        padding_value=0.0,
        hop_length=HOP_LENGTH,
        return_attention_mask=True,
    )
    feature_extractor.save_pretrained(str(folder))


def _randomise_codec(model, generator) -> None:
    """Fill every saved tensor of the codec, walking modules in a fixed order.

    Weights get unit-gain Gaussians (std 1/sqrt(fan-in)) so signals neither
    vanish nor explode through the random encoder and decoder; norms are
    identity; codebooks are spread-out Gaussians so that encoding picks
    varied codes and decoding varied audio.
    """
    from torch import nn

    handled = set()

    def fill(tensor: torch.Tensor, value: torch.Tensor) -> None:
        with torch.no_grad():
            tensor.copy_(value)
        handled.add(id(tensor))

    for module in model.modules():
        kind = type(module).__name__
        parametrized = getattr(module, "parametrizations", None)
        if isinstance(module, (nn.Conv1d, nn.ConvTranspose1d, nn.Linear)):
            if isinstance(module, nn.ConvTranspose1d):
                fan_in = module.in_channels * module.kernel_size[0] / module.stride[0]
            elif isinstance(module, nn.Conv1d):
                fan_in = module.in_channels // module.groups * module.kernel_size[0]
            else:
                fan_in = module.in_features
            std = 1.0 / math.sqrt(fan_in)
            if parametrized is not None and "weight" in parametrized:
                # weight_norm: original0 is the magnitude, original1 the direction.
                direction = parametrized.weight.original1
                value = _normal(direction.shape, std, generator)
                fill(direction, value)
                magnitude = parametrized.weight.original0
                dims = [d for d in range(value.dim()) if magnitude.shape[d] == 1]
                fill(magnitude, value.norm(dim=dims, keepdim=True))
            else:
                fill(module.weight, _normal(module.weight.shape, std, generator))
            if module.bias is not None:
                fill(module.bias, torch.zeros(module.bias.shape))
        elif isinstance(module, (nn.LayerNorm, nn.GroupNorm)):
            fill(module.weight, torch.ones(module.weight.shape))
            fill(module.bias, torch.zeros(module.bias.shape))
        elif kind == "Snake1d":
            fill(module.alpha, torch.ones(module.alpha.shape))
        elif kind == "HiggsAudioV2TokenizerEuclideanCodebook":
            embed = _normal(module.embed.shape, 1.0, generator)
            fill(module.embed, embed)
            fill(module.embed_avg, embed)
            fill(module.cluster_size, torch.ones(module.cluster_size.shape))
            fill(module.inited, torch.ones(module.inited.shape))

    missing = [
        name
        for name, tensor in model.state_dict(keep_vars=True).items()
        if id(tensor) not in handled
    ]
    if missing:
        raise AssertionError(f"codec tensors left uninitialised: {missing[:5]}")


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _generator(seed: int, stream: int) -> torch.Generator:
    """An independent private RNG per part of the checkpoint."""
    return torch.Generator(device="cpu").manual_seed(seed * 1009 + stream)


def _normal(shape, std: float, generator: torch.Generator) -> torch.Tensor:
    return torch.empty(tuple(shape), dtype=torch.float32).normal_(0.0, std, generator=generator)


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _write_json(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", "utf-8")
