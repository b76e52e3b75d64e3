"""What judging a take costs next to rendering it (issue 28's budget: under 10 % of a
Standard render), on this CPU. Not a test.

One process:
1. renders ONE ~10 s design take at the Standard preset (studio.engine.options.PRESETS)
   on a full-size random checkpoint (studio.engine.random_checkpoint, the real model's
   shapes), precision ``auto`` (bf16 on a CPU with native bf16), after a 1-step warm-up;
2. judges that same take with each judge the studio loads (sound: DNSMOS; voice: GE2E
   embedding against a reference and the mid-take switch scan; the word diff), cold and
   warm (median of --repeats);
3. times the words judge's recogniser, Whisper, at the sizes a user might set, with
   RANDOM weights from transformers' WhisperConfig of each published size (real weights
   cannot be downloaded here; the compute is the same): log-mel features of the take,
   the encoder over Whisper's fixed 30 s window and a greedy decode of --tokens tokens
   (about a 10 s transcript of ~30 words), cold and warm.

Times are process CPU seconds (all threads) and wall seconds; on a shared machine the
CPU seconds are the steadier number. The judges run on --judge-threads torch threads (1 by
default: on a busy CPU a second thread mostly spins; Whisper tiny took 1.3 s CPU for 40
tokens on one thread and 5.6 s on two here). The load average is recorded before and after
each part, with the CPU model and flags.

Usage (from the repository root)::

    python benchmarks/bench_judge_cost.py [--checkpoint DIR] [--threads 2]
        [--whisper tiny,base,small,large-v3-turbo] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TEXT = ("The harbour was quiet this morning; a few boats drifted out past the lighthouse "
        "while the gulls argued over the nets.")
# Published Whisper shapes: d_model, encoder layers, decoder layers, heads, mel bins.
WHISPER = {"tiny": (384, 4, 4, 6, 80), "base": (512, 6, 6, 8, 80),
           "small": (768, 12, 12, 12, 80), "medium": (1024, 24, 24, 16, 80),
           "large-v3-turbo": (1280, 32, 4, 20, 128)}
FLAGS_OF_NOTE = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile", "avx512_vnni")


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load() -> float:
    return round(os.getloadavg()[0], 2)


def machine() -> dict:
    info = Path("/proc/cpuinfo").read_text(errors="replace").splitlines()
    model = next((ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")), "")
    flags = next((ln.split(":", 1)[1].split() for ln in info if ln.startswith("flags")), [])
    import torch

    return {"cpu": model, "cores": os.cpu_count(),
            "flags": [f for f in FLAGS_OF_NOTE if f in flags], "torch": torch.__version__,
            "torch_threads": torch.get_num_threads()}


class Clock:
    def __enter__(self):
        self.cpu, self.wall, self.load = time.process_time(), time.perf_counter(), load()
        return self

    def __exit__(self, *exc):
        self.cpu_s = round(time.process_time() - self.cpu, 3)
        self.wall_s = round(time.perf_counter() - self.wall, 3)

    def row(self) -> dict:
        return {"cpu_s": self.cpu_s, "wall_s": self.wall_s, "load_before": self.load,
                "load_after": load()}


def timed(fn, repeats: int) -> dict:
    with Clock() as cold:
        fn()
    warm = []
    for _ in range(repeats):
        with Clock() as c:
            fn()
        warm.append(c)
    return {"cold_cpu_s": cold.cpu_s, "warm_cpu_s": statistics.median(c.cpu_s for c in warm),
            "warm_wall_s": statistics.median(c.wall_s for c in warm),
            "load_after": load()}


def render(checkpoint: Path | None, steps: int, duration: float) -> tuple[dict, object]:
    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import Engine, GenerationOptions, SynthesisItem

    with tempfile.TemporaryDirectory() as tmp:
        if checkpoint is None:
            from studio.engine.random_checkpoint import build_random_checkpoint

            checkpoint = build_random_checkpoint(Path(tmp) / "full", "full")
        engine = Engine.load(checkpoint, device="cpu", precision="auto")
    item = SynthesisItem(text=TEXT, instruct="female, low pitch", duration=duration, seed=0)
    engine.synthesize([item], GenerationOptions(decode=DecodeOptions(num_step=1)))  # warm-up
    with Clock() as clock:
        [take] = engine.synthesize([item], GenerationOptions(decode=DecodeOptions(num_step=steps)))
    row = {"steps": steps, "precision": engine.precision, "reason": engine.precision_reason,
           "audio_s": round(take.audio.size / take.sample_rate, 3), **clock.row(),
           "rss_MiB": round(rss_mib())}
    del engine
    gc.collect()
    return row, take


def judges(take, repeats: int) -> dict:
    from studio.judges.sound import Dnsmos, judge_sound
    from studio.judges.voice import SpeakerEncoder, cosine, find_switch
    from studio.judges.words import judge_words

    audio, rate = take.audio.reshape(-1), take.sample_rate
    out = {}
    with Clock() as c:
        dnsmos = Dnsmos()
    out["sound"] = {"load_cpu_s": c.cpu_s, **timed(lambda: judge_sound(audio, rate, dnsmos),
                                                   repeats)}
    with Clock() as c:
        encoder = SpeakerEncoder()
    reference = encoder.embed(audio[: audio.size // 2], rate)  # a clip's cost is paid once
    out["voice"] = {"load_cpu_s": c.cpu_s,
                    **timed(lambda: cosine(reference, encoder.embed(audio, rate)), repeats)}
    out["voice_switch"] = timed(lambda: find_switch(encoder, audio, rate, reference), repeats)
    heard = TEXT.replace("quiet ", "")
    out["words_diff"] = timed(lambda: judge_words(TEXT, heard), repeats)
    out["rss_MiB"] = round(rss_mib())
    return out


def whisper(name: str, take, tokens: int, repeats: int) -> dict:
    import torch
    from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration

    from studio.engine.audio import resample

    d, enc, dec, heads, mels = WHISPER[name]
    config = WhisperConfig(d_model=d, encoder_layers=enc, decoder_layers=dec,
                           encoder_attention_heads=heads, decoder_attention_heads=heads,
                           encoder_ffn_dim=4 * d, decoder_ffn_dim=4 * d, num_mel_bins=mels,
                           vocab_size=51866 if mels == 128 else 51865)
    torch.manual_seed(0)
    model = WhisperForConditionalGeneration(config).eval()  # fp32: the studio's CPU dtype
    features = WhisperFeatureExtractor(feature_size=mels)
    wave16 = resample(take.audio.reshape(-1), take.sample_rate, 16000)

    def transcribe():
        x = features(wave16, sampling_rate=16000, return_tensors="pt").input_features
        with torch.inference_mode():
            model.generate(input_features=x, max_new_tokens=tokens, min_new_tokens=tokens,
                           do_sample=False)

    row = {"params_M": round(sum(p.numel() for p in model.parameters()) / 1e6),
           "dtype": "float32", **timed(transcribe, repeats), "rss_MiB": round(rss_mib())}
    model = None  # freed before the next size
    gc.collect()
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, help="a full-size checkpoint (default: build one)")
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="the render's")
    p.add_argument("--judge-threads", default="1",
                   help="torch threads for the judges and Whisper, e.g. 1,2 (each timed)")
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--whisper-repeats", type=int, default=1)
    p.add_argument("--tokens", type=int, default=40, help="decoded tokens (~30 words)")
    p.add_argument("--whisper", default="tiny,base,small,large-v3-turbo")
    p.add_argument("--skip-render", action="store_true", help="judge 10 s of noise instead")
    p.add_argument("--json-out", type=Path)
    args = p.parse_args(argv)
    import numpy as np
    import torch

    from studio.engine.engine import Rendering
    from studio.engine.options import DEFAULT_PRESET, PRESETS

    torch.set_num_threads(args.threads)
    out = {"machine": machine(), "loadavg_start": list(os.getloadavg()),
           "preset": DEFAULT_PRESET, "text": TEXT}
    if args.skip_render:
        rng = np.random.default_rng(0)
        take = Rendering(0.1 * rng.standard_normal(int(args.duration * 24000)).astype(
            np.float32), 24000, [], 0)
    else:
        out["render"], take = render(args.checkpoint, PRESETS[DEFAULT_PRESET], args.duration)
        print(json.dumps({"render": out["render"]}), flush=True)
    threads = [int(t) for t in args.judge_threads.split(",")]
    torch.set_num_threads(threads[0])
    out["judge_threads"] = threads[0]
    out["judges"] = judges(take, args.repeats)
    print(json.dumps({"judges": out["judges"]}), flush=True)
    out["whisper"] = {}
    for count in threads:
        torch.set_num_threads(count)
        for name in filter(None, args.whisper.split(",")):
            key = name if count == threads[0] else f"{name}@{count}threads"
            out["whisper"][key] = whisper(name, take, args.tokens, args.whisper_repeats)
            print(json.dumps({key: out["whisper"][key]}), flush=True)
    out["loadavg_end"] = list(os.getloadavg())
    out["budget"] = budget(out)
    text = json.dumps(out, indent=1)
    print(text)
    if args.json_out:
        args.json_out.write_text(text + "\n")
    return 0


def budget(out: dict) -> dict:
    """Each judge's warm CPU seconds as a share of the render's CPU seconds."""
    if "render" not in out:
        return {}
    base = out["render"]["cpu_s"]
    j = out["judges"]
    cheap = {"sound": j["sound"]["warm_cpu_s"], "voice": j["voice"]["warm_cpu_s"],
             "voice_switch": j["voice_switch"]["warm_cpu_s"],
             "words_diff": j["words_diff"]["warm_cpu_s"]}
    shares = {k: round(v / base, 5) for k, v in cheap.items()}
    rows = {"render_cpu_s": base, "cheap_judges": shares,
            "cheap_judges_total": round(sum(cheap.values()) / base, 5)}
    for name, row in out["whisper"].items():
        total = sum(cheap.values()) + row["warm_cpu_s"]
        rows[f"with_whisper_{name}"] = {"recogniser": round(row["warm_cpu_s"] / base, 4),
                                        "total": round(total / base, 4)}
    return rows


if __name__ == "__main__":
    sys.exit(main())
