"""`omnivoice-desktop cache info|clear`: the cache of encoded reference clips (voice
prompts). The folder is the same whether the disk layer is on or off."""

from __future__ import annotations

from studio.cli.common import print_summary
from studio.cli.options import add_json


def add_parser(commands) -> None:
    cache = commands.add_parser("cache", help="the cache of encoded reference clips (voice prompts)")
    cache_commands = cache.add_subparsers(dest="cache_command", required=True, metavar="COMMAND")
    cache_info = cache_commands.add_parser("info", help="where the cache is and what it holds")
    add_json(cache_info)
    cache_clear = cache_commands.add_parser("clear", help="delete every cached voice prompt")
    add_json(cache_clear)


def run(args) -> int:
    print_summary(args, summarise(args))
    return 0


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    size = count / 1024
    for unit in ("KB", "MB"):
        if size < 1024:
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def summarise(args) -> dict:
    """What ``cache info`` finds or ``cache clear`` did."""
    from studio.engine.file_hashes import HASHES_FILE, FileHasher
    from studio.engine.prompt_cache import (
        DISK_CACHE_ENV,
        PromptCache,
        default_cache_folder,
        disk_cache_enabled,
    )

    folder = default_cache_folder()
    cache = PromptCache(folder)
    if args.cache_command == "clear":
        removed = cache.clear()
        if (folder / HASHES_FILE).is_file():
            FileHasher(folder / HASHES_FILE).clear()  # it names the user's clips
        noun = "prompt" if removed == 1 else "prompts"
        message = f"Removed {removed} cached voice {noun} from {folder}."
        return {"folder": str(folder), "removed": removed, "message": message}
    enabled = disk_cache_enabled()
    info = cache.info()
    state = "on" if enabled else f"off (by {DISK_CACHE_ENV})"
    noun = "prompt" if info["entries"] == 1 else "prompts"
    message = (
        f"Voice prompt cache: {folder}\n"
        f"Disk layer: {state}\n"
        f"Holds {info['entries']} voice {noun} ({_size(info['bytes'])}); keeps the "
        f"{info['disk_items']} most recently used plus those of saved voices."
    )
    return {"folder": str(folder), "enabled": enabled, "entries": info["entries"],
            "bytes": info["bytes"], "disk_items": info["disk_items"], "message": message}
