"""`omnivoice-desktop download [REPO]`: the model into the data folder, resumable."""

from __future__ import annotations

import sys

from studio.engine.options import DEFAULT_REPO

# The dispatcher checks the data folder first for each command that keeps something
# there; this one does not.
NEEDS_DATA_FOLDER = False


def add_parser(commands) -> None:
    download = commands.add_parser("download", help="download the model into the data folder (resumes)")
    download.add_argument("repo", nargs="?", default=None, help=f"repo id (default {DEFAULT_REPO})")


def run(args) -> int:
    """The studio's own resumable download (the setup card's), with one progress line."""
    from studio.engine.hub_download import (
        LICENSE_NOTICE,
        describe_progress,
        download_folder,
        download_repo,
    )

    repo = args.repo or DEFAULT_REPO
    print(LICENSE_NOTICE, file=sys.stderr)
    print(f"Downloading {repo} ...", file=sys.stderr)
    live = sys.stderr.isatty()

    def show(progress) -> None:
        if live:
            print(f"\r{describe_progress(progress)}   ", end="", file=sys.stderr, flush=True)

    path = download_repo(repo, download_folder(repo), on_progress=show)
    if live:
        print(file=sys.stderr)
    print(f"Done: {path}", file=sys.stderr)
    return 0
