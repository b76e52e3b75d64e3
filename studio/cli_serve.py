"""`omnivoice-desktop serve`: the engine behind an OpenAI-compatible speech API.

The model loads first, on the renderer's own thread, so a bad checkpoint is one
sentence before anything listens. Uvicorn's logging goes to the log file, not the
terminal, which says only where the server listens.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys

from studio.engine.options import PRECISION_CHOICES


def add_parser(commands) -> None:
    from studio.cli import _positive_int

    serve = commands.add_parser("serve", help="serve the engine over HTTP (OpenAI's speech API)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--api-key", default=None,
                       help="require this key (Authorization: Bearer KEY) on every request")
    serve.add_argument("--model", help="checkpoint folder or Hugging Face repo id")
    serve.add_argument("--queue", type=_positive_int, default=16,
                       help="requests queued or rendering before more get 429 (default 16)")
    serve.add_argument("--batch", type=_positive_int, default=8,
                       help="most requests rendered together in one batch (default 8)")
    serve.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"))
    serve.add_argument("--precision", default="auto", choices=PRECISION_CHOICES)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace, studio_model: str | None = None) -> int:
    import uvicorn

    from studio.cli import _library_chatter_to_log
    from studio.engine.errors import UserError
    from studio.paths import data_dir
    from studio.serve.app import create_app
    from studio.serve.renderer import Renderer

    if not 0 < args.port < 65536:
        raise UserError(f"The port must be from 1 to 65535; got {args.port}.")
    if not _loopback(args.host) and not args.api_key:
        print(f"warning: serving on {args.host} without --api-key: anyone who can reach this "
              "machine can render.", file=sys.stderr)
    renderer = Renderer(args.model or studio_model, device=args.device,
                        precision=args.precision, limit=args.queue, batch=args.batch,
                        data_root=data_dir())
    with _library_chatter_to_log():
        renderer.start()
    app = create_app(renderer, args.api_key, data_dir())
    # log_config=None: uvicorn's loggers propagate to the root logger (the log file).
    config = uvicorn.Config(app, host=args.host, port=args.port, log_config=None,
                            access_log=False, timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    print(f"Serving {renderer.model_id} on http://{args.host}:{args.port}/v1 "
          f"(queue {args.queue}, batch {args.batch}); Ctrl+C stops.", file=sys.stderr, flush=True)
    try:
        server.run()
    except SystemExit:  # uvicorn exits when it cannot bind; the sentence below says why
        pass
    finally:
        renderer.stop()
    if not server.started:
        raise UserError(f"Cannot listen on {args.host}:{args.port}; the port is in use or the "
                        "address is not this machine's.")
    return 0
