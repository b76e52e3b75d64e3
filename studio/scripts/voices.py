"""A script's voices: each speaker's entry of a voice map checked (one sentence for a
problem), and the checked entries turned into the VoiceSpecs a render takes. The
command line's ``script render`` and MCP's render_script share them.
"""

from __future__ import annotations

from pathlib import Path

from studio.engine.options import MAX_SEED
from studio.errors import UserError

VOICE_KEYS = ("voice", "ref", "ref_text", "instruct", "seed", "language")


def voice_specs(data: dict, speakers: list[str], path: str, folder: Path) -> dict[str, dict]:
    """Each speaker's entry of a voice map, checked; clip paths resolved from ``folder``."""
    missing = [s for s in speakers if s not in data]
    if missing:
        raise UserError(f"The voice map {path} has no voice for {', '.join(missing)}; add "
                        f"{'them' if len(missing) > 1 else 'it'}.")
    specs = {}
    for speaker in speakers:
        entry = data[speaker]
        if not isinstance(entry, dict) or not entry:
            raise UserError(f"The voice of {speaker} in {path} must be an object such as "
                            '{"voice": NAME}, {"ref": CLIP, "ref_text": TEXT} or '
                            '{"instruct": TEXT, "seed": N}.')
        unknown = [k for k in entry if k not in VOICE_KEYS]
        if unknown:
            raise UserError(f"The voice of {speaker} in {path} has an unknown key "
                            f"{unknown[0]!r}; use {', '.join(VOICE_KEYS)}.")
        # A saved voice alone, a clip (with an instruct to steady it, if wanted), or an
        # instruct alone.
        sources = [k for k in ("voice", "ref") if k in entry]
        if len(sources) > 1 or ("voice" in entry and "instruct" in entry) \
                or not (sources or "instruct" in entry) or ("ref_text" in entry and "ref" not in entry):
            raise UserError(f"The voice of {speaker} in {path} needs exactly one of a saved "
                            '"voice", a "ref" clip or an "instruct".')
        for key in ("voice", "ref", "ref_text", "instruct", "language"):
            if key in entry and not isinstance(entry[key], str):
                raise UserError(f'The "{key}" of {speaker} in {path} must be text.')
        seed = entry.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                                 or not 0 <= seed <= MAX_SEED):
            raise UserError(f'The "seed" of {speaker} in {path} must be a whole number from 0 '
                            f'to {MAX_SEED}.')
        spec = dict(entry)
        if "ref" in spec:
            ref = Path(spec["ref"]).expanduser()
            spec["ref"] = ref if ref.is_absolute() else Path(folder) / ref
            if not spec["ref"].is_file():
                raise UserError(f"The reference clip {spec['ref']} of {speaker} does not exist.")
        specs[speaker] = spec
    return specs


def script_voices(engine, prompts, specs: dict[str, dict], root: Path | None = None) -> dict:
    """speaker -> VoiceSpec for checked ``specs``: a saved voice's prompt read, a clip's
    obtained through ``prompts`` (a PromptSource), an instruct kept."""
    from studio.library.voices import VoiceLibrary
    from studio.scripts.render import VoiceSpec
    from studio.service.voices import VoiceChoice, resolve_voice

    voices = {}
    for speaker, spec in specs.items():
        saved = None
        if "voice" in spec:
            with VoiceLibrary(root) as library:
                saved = library.prompt_path(library.find(spec["voice"]).id)
        prompt, _source = resolve_voice(engine, prompts, VoiceChoice(
            saved_prompt=saved, reference=spec.get("ref"), ref_text=spec.get("ref_text")))
        voices[speaker] = VoiceSpec(prompt, spec.get("instruct"), spec.get("seed"),
                                    spec.get("language"))
    return voices
