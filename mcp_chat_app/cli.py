"""`mcp-chat`: `serve` runs the gateway, `ask` answers one question from the terminal, `up` runs the
whole assistant (backend, gateway, MCP servers)."""

from __future__ import annotations

import argparse
import ctypes
import json
import logging
import signal
import sys

from assistant_launcher import up
from mcp_chat_app.config import GatewayConfig


_M_ARENA_MAX = -8  # glibc's mallopt parameter number


def limit_malloc_arenas(arenas: int = 2) -> None:
    """glibc gives each busy thread its own heap arena (up to 8 per core). Under a thread-per-connection
    server, freed memory stays fragmented across them and RSS creeps up for hours; a couple of arenas
    keep it flat (bench/gateway_load.py measures it). Must run before the threads start."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return  # not glibc: nothing to tune
    libc.mallopt(_M_ARENA_MAX, arenas)


def serve(args: argparse.Namespace) -> int:
    """Run the gateway over HTTP until interrupted."""
    from werkzeug.serving import run_simple

    limit_malloc_arenas()
    from mcp_chat_app.app import create_app
    from mcp_chat_app.gateway import EXTENSION_KEY

    config = GatewayConfig.from_env(**_overrides(args))
    app = create_app(config)
    # SIGTERM (process managers, tests) must run the cleanup below so stdio servers stop with us.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    try:
        run_simple(config.host, config.port, app, threaded=True, use_reloader=False)
    finally:
        app.extensions[EXTENSION_KEY].close()
    return 0


def ask(args: argparse.Namespace) -> int:
    """Answer one question in-process (no HTTP) and print the answer, or the full JSON with --json. Tool calls
    follow the user's approval policy, asked on the terminal (terminal_approvals.py)."""
    from mcp_chat_app.gateway import build_gateway
    from mcp_chat_app.llm.client import LlmUnavailable
    from mcp_chat_app.mcp_client.approval_policy import ApprovalPolicy
    from mcp_chat_app.terminal_approvals import AllowedThisRun, not_run_lines, terminal_questions
    from mcp_chat_app.web.errors import GatewayError
    from mcp_chat_app.web.requests import checked_user

    try:
        user = checked_user(args.user)
    except GatewayError as error:
        print(f"mcp-chat: {error.message}", file=sys.stderr)
        return 2
    # One question: a warm-up would only read the same prompt prefix once more, first.
    gateway = build_gateway(GatewayConfig.from_env(**_overrides(args), warm_up=False))
    policy = ApprovalPolicy(AllowedThisRun(gateway.approvals, args.allow), user, None)  # in no conversation
    questions = terminal_questions(gateway.elicitations, user) if sys.stdin.isatty() else None
    try:
        result = gateway.pipeline.run(args.question, [], use_tools=not args.no_tools,
                                      asker=gateway.elicitations.asker(user, questions, policy=policy))
    except LlmUnavailable as error:
        print(f"mcp-chat: {error}", file=sys.stderr)
        return 1
    finally:
        gateway.close()
    print(json.dumps(result.to_json(), ensure_ascii=False, indent=2) if args.json else result.response)
    for line in not_run_lines(result.notices, user):
        print(line, file=sys.stderr)
    return 0


def _allowed_tool(value: str) -> tuple[str, str]:
    """`--allow`'s value, `server/tool`, as (server, tool)."""
    server, _, tool = value.partition("/")
    if not server or not tool:
        raise argparse.ArgumentTypeError(f"{value!r} is not server/tool")
    return server, tool


def token(args: argparse.Namespace) -> int:
    """Issue (print) or revoke a user's API token in the tokens file."""
    from mcp_chat_app.web.auth import issue_token, revoke_token
    from mcp_chat_app.web.errors import GatewayError
    from mcp_chat_app.web.requests import checked_user

    try:
        user = checked_user(args.user)
    except GatewayError as error:
        print(f"mcp-chat: {error.message}", file=sys.stderr)
        return 2
    tokens_file = GatewayConfig.from_env().tokens_file
    if args.revoke:
        if not revoke_token(tokens_file, user):
            print(f"mcp-chat: {user} has no token in {tokens_file}", file=sys.stderr)
            return 1
        print(f"revoked {user}'s token in {tokens_file}", file=sys.stderr)
        return 0
    print(issue_token(tokens_file, user))
    print(f"stored its hash for {user} in {tokens_file}; send it as 'Authorization: Bearer <token>'",
          file=sys.stderr)
    return 0


def _overrides(args: argparse.Namespace) -> dict[str, object]:
    names = ("host", "port", "profile")
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def build_parser() -> argparse.ArgumentParser:
    """One flat parser with a subcommand per action; add new subcommands here."""
    parser = argparse.ArgumentParser(prog="mcp-chat", description="Chat with MCP tools through an LLM.")
    parser.add_argument("--profile", help="model profile from configs/models.json (default: MCP_CHAT_PROFILE or local)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    commands = parser.add_subparsers(dest="command", required=True)

    serve_parser = commands.add_parser("serve", help="run the HTTP gateway (default 127.0.0.1:8081)")
    serve_parser.add_argument("--host")
    serve_parser.add_argument("--port", type=int)
    serve_parser.set_defaults(handler=serve)

    ask_parser = commands.add_parser("ask", help="answer one question and exit")
    ask_parser.add_argument("question")
    ask_parser.add_argument("--no-tools", action="store_true", help="plain chat, no MCP tools")
    ask_parser.add_argument("--json", action="store_true", help="print the full response JSON")
    ask_parser.add_argument("--user", default="web_user",
                            help="whose approval decisions hold (default: web_user, the page's default user)")
    ask_parser.add_argument("--allow", action="append", default=[], type=_allowed_tool, metavar="SERVER/TOOL",
                            help="run this tool unasked, this time only (repeatable); without a terminal, a tool "
                                 "that is not read-only runs only so or by a kept 'always' rule")
    ask_parser.set_defaults(handler=ask)

    token_parser = commands.add_parser("token", help="issue a user's API token (printed once) or revoke it")
    token_parser.add_argument("user")
    token_parser.add_argument("--revoke", action="store_true", help="remove the user's token instead")
    token_parser.set_defaults(handler=token)

    up_parser = commands.add_parser("up", help="run everything: pull the model, llm-backend, gateway, MCP servers")
    up.add_arguments(up_parser)
    up_parser.set_defaults(handler=up.run_up)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
