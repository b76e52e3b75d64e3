"""`omnivoice-desktop serve`: the engine behind an OpenAI-compatible speech API.

The model loads first, on the renderer's own thread, so a bad checkpoint is one
sentence before anything listens. Uvicorn's logging goes to the log file, not the
terminal, which says only where the server listens.
"""

from __future__ import annotations

import argparse
import sys

from studio.cli.common import library_chatter_to_log
from studio.cli.options import add_hardware, add_model, positive_int


def add_parser(commands) -> None:
    from studio.serve.limits import Limits

    serve = commands.add_parser("serve", help="serve the engine over HTTP (OpenAI's speech API)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--api-key", default=None,
                       help="require this key (Authorization: Bearer KEY) on every request but "
                            "/health; an empty key is an error")
    add_model(serve)
    serve.add_argument("--queue", type=positive_int, default=16,
                       help="requests queued or rendering before more get 429 (default 16)")
    serve.add_argument("--batch", type=positive_int, default=8,
                       help="most requests rendered together in one batch (default 8)")
    add_hardware(serve)
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="also answer requests for this host name (repeatable; * for any); "
                            "by default: localhost, IP addresses, and this machine's name when "
                            "listening beyond loopback")
    serve.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                       help="let web pages of this origin (https://app.example.com) call the "
                            "API (repeatable; * for any); by default every page is refused")
    limits = Limits()
    serve.add_argument("--header-timeout", type=_seconds, default=limits.header_timeout,
                       metavar="S", help="seconds a client may take to send a request's "
                                         f"headers (default {limits.header_timeout:g})")
    serve.add_argument("--body-timeout", type=_seconds, default=limits.body_timeout,
                       metavar="S", help="seconds a client may take to send a request's body "
                                         f"before it gets 408 (default {limits.body_timeout:g})")
    serve.add_argument("--keep-alive-timeout", type=_seconds, default=limits.keep_alive,
                       metavar="S", help="seconds an idle connection stays open between "
                                         f"requests (default {limits.keep_alive:g})")
    serve.add_argument("--max-connections", type=positive_int, default=limits.max_connections,
                       metavar="N", help="open connections before the oldest idle one is "
                                         f"closed (default {limits.max_connections}, and below "
                                         "the open file limit)")


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not 0 < number <= 86_400:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 86400 seconds")
    return number


def check_api_key(key: str | None) -> str | None:
    """The key to require, or None when none was given. An empty or blank key is an
    error (an unset variable in ``--api-key "$KEY"`` must not switch the check off), and
    so is one no client could send in an Authorization header."""
    from studio.errors import UserError

    if key is None:
        return None
    if not key.strip():
        raise UserError("The API key is empty (an unset variable?); give a real key with "
                        "--api-key KEY, or leave --api-key out to serve without one.")
    if key != key.strip() or not all(" " <= ch <= "~" for ch in key):
        raise UserError("The API key must be printable ASCII that neither starts nor ends "
                        "with a space, as clients send it in a header; choose another key.")
    return key


def open_network_warning(host: str, api_key: str | None) -> str | None:
    """What to say when the server is reachable from other machines without a key."""
    from studio.serve.network import is_loopback

    if is_loopback(host) or api_key:
        return None
    return (f"serving on {host} with no API key: anyone who can reach this machine can "
            "render (require one with --api-key KEY).")


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl+C; the model is the command's --model, else the studio's."""
    import uvicorn

    from studio.engine.options import model_source
    from studio.errors import UserError
    from studio.paths import data_dir
    from studio.serve.app import create_app
    from studio.serve.connections import config_options
    from studio.serve.limits import Limits
    from studio.serve.network import NetPolicy, protect
    from studio.serve.renderer import Renderer

    if not 0 < args.port < 65536:
        raise UserError(f"The port must be from 1 to 65535; got {args.port}.")
    api_key = check_api_key(args.api_key)
    policy = NetPolicy.for_bind(args.host, args.allow_host, args.allow_origin)
    limits = Limits(header_timeout=args.header_timeout, body_timeout=args.body_timeout,
                    keep_alive=args.keep_alive_timeout, max_connections=args.max_connections)
    warning = open_network_warning(args.host, api_key)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    renderer = Renderer(model_source(args.model, args.studio_model), device=args.device,
                        precision=args.precision, limit=args.queue, batch=args.batch,
                        data_root=data_dir())
    with library_chatter_to_log():
        renderer.start()
    app = protect(create_app(renderer, api_key, data_dir()), policy, limits)
    # log_config=None: uvicorn's loggers propagate to the root logger (the log file).
    config = uvicorn.Config(app, host=args.host, port=args.port, log_config=None,
                            access_log=False, timeout_graceful_shutdown=5,
                            **config_options(limits))
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
