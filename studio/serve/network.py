"""Who may talk to ``serve``, and how long a client may take to say what it wants.

Two ASGI middlewares around the app, composed by :func:`protect`:

- :class:`HostOriginGuard` refuses a request whose ``Host`` is not a name this server
  answers for (DNS rebinding: a web page whose own name resolves to this machine) with
  421, and one sent by a web page of another origin with 403. A page can POST
  ``text/plain`` to any address without a CORS preflight, so the server itself must
  refuse; a request with no ``Origin`` (curl, the SDKs, the studio) is no page's.
- :class:`BodyDeadline` answers 408 when a request body has not arrived in full within
  ``body_timeout`` seconds of its headers, however slowly it trickles.

The deadlines that come before the app (the headers, an idle connection) and the cap
on open connections live in :mod:`studio.serve.connections`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from studio.errors import UserError
from studio.serve.limits import Limits
from studio.serve.request import RequestError

ANY = "*"
# Response headers a page of an allowed origin may read (CORS hides the others).
EXPOSED_HEADERS = ("X-Seed", "X-Model", "X-Audio-Sample-Rate", "X-Warning", "X-Batch-Size",
                   "X-Audio-Duration-S", "X-OmniVoice-Cleanup", "X-OmniVoice-Score",
                   "X-OmniVoice-Judgement", "Retry-After")


@dataclass(frozen=True)
class NetPolicy:
    """The ``Host`` names served and the web origins allowed (lowercase; ``*`` = any)."""

    hosts: frozenset[str] = field(default_factory=frozenset)
    origins: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def for_bind(cls, bind: str, allow_hosts=(), allow_origins=()) -> NetPolicy:
        """The policy for a server bound to ``bind`` plus the user's ``--allow-host`` and
        ``--allow-origin`` values, each checked (one sentence when malformed).

        Served by default: ``localhost``, any IP address literal (a rebinding attack needs
        a DNS name of the attacker's), the bound name, and, when the server listens beyond
        loopback, this machine's host name, its fully qualified name and ``NAME.local``."""
        hosts = {"localhost", *(_host_name(value) for value in allow_hosts)}
        if not _is_ip(bind) and bind:
            hosts.add(bind.lower().rstrip("."))
        if not is_loopback(bind):
            name = socket.gethostname().lower().rstrip(".")
            hosts.update({name, f"{name.split('.')[0]}.local", socket.getfqdn().lower()})
        return cls(frozenset(hosts), frozenset(_origin(value) for value in allow_origins))

    def host_allowed(self, host: str | None) -> bool:
        if host is None or ANY in self.hosts:  # no Host: HTTP/1.0 probes, never a browser
            return True
        name = _split_host(host)
        return _is_ip(name) or name in self.hosts

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        if origin is None or ANY in self.origins:
            return True
        origin = origin.lower().rstrip("/")
        if origin in self.origins:
            return True
        # Same origin: a page this very host:port served (behind a proxy, say).
        return host is not None and urlsplit(origin).netloc == host.lower()


def _split_host(host: str) -> str:
    """``Host`` without its port, lowercase: ``[::1]:8000`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def is_loopback(bind: str) -> bool:
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind).is_loopback
    except ValueError:
        return False


def _host_name(value: str) -> str:
    name = value.strip().lower().rstrip(".")
    if name == ANY:
        return ANY
    if not name or any(ch in name for ch in "/@ \t*?#") or "://" in value:
        raise UserError(f"--allow-host takes a host name such as tts.example.com, or * for "
                        f"any; got {value[:100]!r}.")
    return _split_host(name)


def _origin(value: str) -> str:
    origin = value.strip().lower().rstrip("/")
    if origin in (ANY, "null"):
        return origin
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path \
            or parts.query or parts.fragment or "@" in parts.netloc:
        raise UserError(f"--allow-origin takes a web origin such as https://app.example.com "
                        f"(scheme, name and port, no path), or * for any; got {value[:100]!r}.")
    return origin


def _header(scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


class HostOriginGuard:
    """Refuses foreign ``Host`` names (421) and other web pages' requests (403)."""

    def __init__(self, app, policy: NetPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            from studio.serve.app import error

            host, origin = _header(scope, b"host"), _header(scope, b"origin")
            refusal = None
            if not self.policy.host_allowed(host):
                refusal = error(421, f"This server does not answer for the name "
                                     f"{_split_host(host)[:100]}; start it with --allow-host "
                                     "NAME to serve a name that should reach it.")
            elif not self.policy.origin_allowed(origin, host):
                refusal = error(403, f"Requests from web pages of {origin[:100]} are refused; "
                                     "start the server with --allow-origin ORIGIN to allow "
                                     "that page.")
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class BodyTimeout(RequestError):
    status = 408


class BodyDeadline:
    """The whole request body within ``seconds`` of its headers, or 408.

    The app reads the body through ``receive``; past the deadline that call raises in the
    route, which the app answers as it answers every refusal (one JSON sentence). How many
    bodies may be read at once is the speech route's budget (:mod:`studio.serve.intake`)."""

    def __init__(self, app, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        body_done = False

        async def timed_receive():
            nonlocal body_done
            if body_done:  # later calls only watch for a disconnect
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except asyncio.TimeoutError:  # not the builtin before Python 3.11
                raise BodyTimeout(f"The request body did not arrive within {self.seconds:g} s "
                                  "of its headers; send it faster, or a shorter one.") from None
            body_done = message["type"] != "http.request" or not message.get("more_body")
            return message

        await self.app(scope, timed_receive, send)


def protect(app, policy: NetPolicy, limits: Limits):
    """``app`` behind the Host/Origin policy, CORS for the allowed origins, and the body
    deadline."""
    inner = BodyDeadline(app, limits.body_timeout)
    if policy.origins:  # a page of an allowed origin must be able to preflight and read
        from starlette.middleware.cors import CORSMiddleware

        # Any request header (the OpenAI SDKs add their own), and a page on the internet
        # may call a server on this machine (Chrome's Private Network Access preflight):
        # the user named the origin.
        inner = CORSMiddleware(inner, allow_origins=sorted(policy.origins),
                               allow_methods=("GET", "POST"), allow_headers=("*",),
                               allow_private_network=True, expose_headers=EXPOSED_HEADERS)
    return HostOriginGuard(inner, policy)
