"""Command-line glue of ``mediadesk sim api``: flags, the config they build, and serving until stopped.

Apart from the server so the server knows nothing of argparse; this module sits on top of it.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys

from mediadesk.sim._api_hostile import HOSTILE_HUGE_CHARS, HOSTILE_MODES, HOSTILE_STEADY_S
from mediadesk.sim._api_outages import OUTAGE_MODES
from mediadesk.sim.api_config import REASONING_MODES, ApiSimConfig
from mediadesk.sim.api_server import ApiSimServer

__all__ = ["add_arguments", "config_from_args", "serve_from_args"]


def _latency_arg(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        if len(parts) == 1:
            lo = hi = float(parts[0])
        elif len(parts) == 2:
            lo, hi = float(parts[0]), float(parts[1])
        else:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MIN,MAX in seconds (e.g. 0.5,2), got {text!r}") from None
    if not (0 <= lo <= hi and math.isfinite(hi)):
        raise argparse.ArgumentTypeError(f"need 0 <= MIN <= MAX, got {text!r}")
    return lo, hi


def _nonneg_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    value = _nonneg_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return value


def _rate(text: str) -> float:
    value = _nonneg_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"a rate is between 0 and 1, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text!r}")
    return value


def _nonneg_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def _port_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0..65535 (0 = any free port), got {text!r}")
    return value


def _loopback_arg(text: str) -> str:
    """Simulators are test fixtures: they only ever listen on this machine's loopback."""
    import ipaddress

    if text == "localhost":
        return text
    try:
        if ipaddress.ip_address(text).is_loopback:
            return text
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a loopback address (use 127.0.0.1, ::1 or localhost)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``mediadesk sim api``."""
    parser.add_argument("--host", type=_loopback_arg, default="127.0.0.1",
                        help="loopback address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=_port_arg, default=0, help="port (default 0: any free port)")
    parser.add_argument(
        "--latency", type=_latency_arg, default=(0.0, 0.0), metavar="MIN,MAX",
        help="generation time, uniform between MIN and MAX seconds (default 0,0)",
    )
    parser.add_argument("--time-scale", type=_nonneg_float, default=1.0, help="multiplies every latency")
    parser.add_argument(
        "--quota", type=_positive_int, default=None, help="max concurrent generations (429 beyond)"
    )
    parser.add_argument(
        "--per-key-quota", type=_positive_int, default=None, metavar="N",
        help="max concurrent generations per API key (Authorization header), on top of --quota",
    )
    retry = parser.add_mutually_exclusive_group()
    retry.add_argument("--retry-after", type=_nonneg_float, default=1.0, help="Retry-After seconds on a 429")
    retry.add_argument("--no-retry-after", action="store_true", help="send bare 429s, without Retry-After")
    parser.add_argument("--fail-rate", type=_rate, default=0.0, help="probability of a 500")
    parser.add_argument("--hang-rate", type=_rate, default=0.0, help="probability of never answering")
    parser.add_argument("--reset-rate", type=_rate, default=0.0, help="probability of a connection reset")
    parser.add_argument("--seed", type=int, default=None, help="random seed for latency and faults")
    parser.add_argument(
        "--api-key-env", metavar="NAME", default=None,
        help="require 'Authorization: Bearer <key>' with the key read from this environment variable",
    )
    parser.add_argument("--chunks", type=_positive_int, default=8, help="SSE chunks per streamed answer")
    parser.add_argument(
        "--outage-after", type=_nonneg_float, default=None, metavar="S",
        help="start an outage S seconds after the server starts",
    )
    parser.add_argument(
        "--outage-for", type=_positive_float, default=None, metavar="S",
        help="the outage ends after S seconds (default: it lasts until the server stops)",
    )
    parser.add_argument(
        "--outage-mode", choices=OUTAGE_MODES, default=None,
        help="refuse: the port is closed (connection refused; /stats and /admin too, so give --outage-for); "
        "503: every request 503; 429: every chat "
        "request 429; insufficient_quota: out-of-credit 429 (default 503)",
    )
    parser.add_argument(
        "--hostile", choices=HOSTILE_MODES, default=None,
        help="answer every chat request the hostile way: endless (never ends), huge (--hostile-chars), "
        "cut (stream ends without finish_reason/[DONE]), length (finish_reason length), steady "
        "(a steady trickle for --hostile-seconds)",
    )
    parser.add_argument("--hostile-chars", type=_positive_int, default=HOSTILE_HUGE_CHARS, metavar="N",
                        help=f"size of a huge answer (default {HOSTILE_HUGE_CHARS})")
    parser.add_argument("--hostile-seconds", type=_positive_float, default=HOSTILE_STEADY_S, metavar="S",
                        help=f"duration of a steady answer (default {HOSTILE_STEADY_S:g})")
    parser.add_argument(
        "--reasoning", choices=REASONING_MODES, default="none",
        help="think before answering, as reasoning models do: field (reasoning_content), think_tag "
        "(<think>...</think> at the start of the content) or none (default)",
    )
    parser.add_argument(
        "--think-tokens", type=_nonneg_int, default=0, metavar="N",
        help="tokens the thinking takes (default 0: counted from its text); a request with a smaller "
        "max_tokens ends with finish_reason length and no answer",
    )


def config_from_args(args: argparse.Namespace) -> ApiSimConfig:
    """Build the config; raises ValueError with a message fit for the operator."""
    api_key: str | None = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise ValueError(f"--api-key-env: environment variable {args.api_key_env} is not set")
    if args.outage_after is None:
        given = [flag for flag, value in (("--outage-for", args.outage_for), ("--outage-mode", args.outage_mode))
                 if value is not None]
        if given:
            verb = "needs" if len(given) == 1 else "need"
            raise ValueError(f"{' and '.join(given)} {verb} --outage-after (when the outage starts)")
    return ApiSimConfig(
        latency=args.latency,
        time_scale=args.time_scale,
        quota=args.quota,
        retry_after_s=args.retry_after,
        fail_rate=args.fail_rate,
        hang_rate=args.hang_rate,
        reset_rate=args.reset_rate,
        seed=args.seed,
        api_key=api_key,
        chunks=args.chunks,
        send_retry_after=not args.no_retry_after,
        per_key_quota=args.per_key_quota,
        outage_after_s=args.outage_after,
        outage_for_s=args.outage_for,
        outage_mode=args.outage_mode or "503",
        hostile=getattr(args, "hostile", None),
        hostile_chars=getattr(args, "hostile_chars", HOSTILE_HUGE_CHARS),
        hostile_seconds=getattr(args, "hostile_seconds", HOSTILE_STEADY_S),
        reasoning=getattr(args, "reasoning", "none"),
        think_tokens=getattr(args, "think_tokens", 0),
    )


async def serve_from_args(args: argparse.Namespace) -> None:
    """Run the simulator until cancelled. Bad settings exit with status 2 and one line, no traceback."""
    try:
        config = config_from_args(args)
    except ValueError as exc:
        print(f"mediadesk sim api: error: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    server = ApiSimServer(config, host=args.host, port=args.port)
    try:
        await server.start()
    except OSError as exc:
        where = f"{args.host}:{args.port}"
        print(f"mediadesk sim api: error: cannot listen on {where}: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    try:
        print(f"API simulator on {server.base_url}", flush=True)
        await asyncio.Event().wait()
    finally:
        await server.stop()

