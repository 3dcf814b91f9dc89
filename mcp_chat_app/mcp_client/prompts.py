"""MCP prompts as the gateway offers them: listed for a person to pick, checked against their declared arguments,
and rendered from `prompts/get` into the text of one user turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_types import EmbeddedResource, GetPromptResult, Prompt, TextContent, TextResourceContents


class UnknownPrompt(LookupError):
    """No such server (`code` unknown_server) or no such prompt on it (unknown_prompt)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class BadPromptArguments(ValueError):
    """The arguments miss a required one, or name one the prompt does not declare."""


@dataclass(frozen=True)
class RenderedPrompt:
    """A prompt's messages as one user turn: their text, and the kinds of content that had to be left out."""

    server: str
    name: str
    text: str
    left_out: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"server": self.server, "name": self.name, "text": self.text, "left_out": self.left_out}


def prompt_entry(server: str, prompt: Prompt) -> dict[str, Any]:
    """One prompt as `GET /prompts` lists it."""
    return {"server": server, "name": prompt.name, "title": prompt.title, "description": prompt.description,
            "arguments": [{"name": argument.name, "description": argument.description,
                           "required": bool(argument.required)} for argument in prompt.arguments or []]}


def find_prompt(server: str, prompts: list[Prompt], name: str) -> Prompt:
    """The prompt called `name` among a server's listed ones, or UnknownPrompt."""
    for prompt in prompts:
        if prompt.name == name:
            return prompt
    raise UnknownPrompt("unknown_prompt", f"server {server!r} has no prompt {name!r}")


def check_arguments(server: str, prompt: Prompt, arguments: dict[str, str]) -> None:
    """Checked here, not left to the server: a server's SDK may turn a missing argument into an opaque error.
    A blank value of a required argument is missing too (what an empty form field sends)."""
    declared = {argument.name: argument for argument in prompt.arguments or []}
    missing = [name for name, argument in declared.items()
               if argument.required and not arguments.get(name, "").strip()]
    if missing:
        raise BadPromptArguments(f"prompt {prompt.name!r} on {server!r} needs {', '.join(map(repr, missing))}")
    unknown = [name for name in arguments if name not in declared]
    if unknown:
        raise BadPromptArguments(f"prompt {prompt.name!r} on {server!r} has no argument "
                                 f"{', '.join(map(repr, unknown))} (it takes: {', '.join(declared) or 'none'})")


def render(server: str, name: str, result: GetPromptResult) -> RenderedPrompt:
    """The messages' text in order, blank-line separated, whatever their role (the turn is one user message).
    Embedded text resources count as text; images, audio, binary resources and resource links are left out (a
    text model cannot read them) and named in `left_out`."""
    texts: list[str] = []
    left_out: list[str] = []
    for message in result.messages:
        content = message.content
        if isinstance(content, TextContent):
            texts.append(content.text)
        elif isinstance(content, EmbeddedResource) and isinstance(content.resource, TextResourceContents):
            texts.append(content.resource.text)
        else:
            left_out.append(content.type)
    return RenderedPrompt(server, name, "\n\n".join(text.strip() for text in texts if text.strip()), left_out)
