"""Bad arguments as one sentence.

The SDK answers a call whose arguments fail its checks with pydantic's report (several
lines, a link to pydantic's site). This middleware reads such an answer's arguments
against the tool's published JSON schema and puts one sentence in its place, naming
the argument and what it must be.
"""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, TextContent

_TYPES = {"string": "a string", "integer": "a whole number", "number": "a number",
          "boolean": "true or false", "array": "a list", "object": "an object", "null": "null"}


def problem(tool: str, schema: dict, arguments: Any) -> str:
    """The sentence for ``arguments`` that do not fit ``tool``'s ``schema``."""
    import jsonschema

    fallback = (f"The arguments of {tool} do not match its schema; list the tools to see what "
                "each argument takes.")
    if not isinstance(arguments, dict):
        return f"The arguments of {tool} must be an object of named arguments."
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(arguments))
    if error is None:
        return fallback
    if error.validator == "required":
        return f"{tool} needs the argument '{_quoted(error.message)}'."
    # A path-less error is about the whole call; it names the tool then.
    name = str(error.absolute_path[0]) if error.absolute_path else tool
    if error.validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        side = "at least" if "inimum" in error.validator else "at most"
        return f"The argument '{name}' of {tool} must be {side} {error.validator_value}."
    wanted = _wanted(schema.get("properties", {}).get(name, {}))
    if wanted:
        return f"The argument '{name}' of {tool} must be {wanted}."
    return fallback


def _quoted(message: str) -> str:
    """The name jsonschema quotes in "'text' is a required property"."""
    parts = message.split("'")
    return parts[1] if len(parts) > 2 else message


def _wanted(prop: dict) -> str:
    kinds = [prop["type"]] if "type" in prop else [p.get("type") for p in prop.get("anyOf", [])]
    named = [_TYPES[k] for k in kinds if k in _TYPES and k != "null"]
    return " or ".join(named)


def refusal(sentence: str) -> CallToolResult:
    """An error result the client shows its model: one sentence."""
    return CallToolResult(content=[TextContent(type="text", text=sentence)], is_error=True)


class OneSentence:
    """Server middleware: a tools/call that failed the SDK's argument check gets
    :func:`problem`'s sentence instead of pydantic's report."""

    server = None  # the MCPServer whose schemas it reads, set once it exists

    async def __call__(self, ctx, call_next):
        unknown = await self._unknown(ctx)
        if unknown:  # pydantic would drop it: "voise" would silently speak in no voice
            return refusal(unknown).model_dump(by_alias=True, mode="json", exclude_none=True)
        result = await call_next(ctx)
        if ctx.method != "tools/call" or not isinstance(result, dict) or not result.get("isError"):
            return result
        content = result.get("content") or []
        text = content[0].get("text", "") if content and isinstance(content[0], dict) else ""
        params = ctx.params or {}
        name = str(params.get("name", ""))
        if not text.startswith(f"Error executing tool {name}") or "validation error" not in text:
            return result
        sentence = problem(name, await self._schema(name), params.get("arguments") or {})
        return {**result, "content": [{"type": "text", "text": sentence}]}

    async def _schema(self, name: str) -> dict:
        for tool in await self.server.list_tools():
            if tool.name == name:
                return tool.input_schema
        return {}

    async def _unknown(self, ctx) -> str | None:
        """The sentence for an argument the tool does not have, or None."""
        params = ctx.params or {}
        arguments = params.get("arguments")
        if ctx.method != "tools/call" or not isinstance(arguments, dict) or not arguments:
            return None
        name = str(params.get("name", ""))
        known = (await self._schema(name)).get("properties")
        if known is None:
            return None  # an unknown tool: the SDK says so
        extra = sorted(set(arguments) - set(known))
        if not extra:
            return None
        return (f"{name} has no argument '{extra[0][:60]}'; its arguments are "
                f"{', '.join(known) or 'none'}.")
