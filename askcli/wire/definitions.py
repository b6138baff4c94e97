"""The AskUserQuestion tool definition for LLM APIs, generated from the pydantic models.

``askcli schema`` prints it for the Anthropic Messages API (``name``, ``description``,
``input_schema``), the OpenAI Chat Completions API (a ``function`` tool) or as the bare
input JSON Schema. The models in :mod:`askcli.schema.models` are the one source of truth.
"""

from __future__ import annotations

from typing import Any

from ..schema.models import AskUserQuestionInput
from ..schema.names import ASK_USER_QUESTION as TOOL_NAME

FORMATS = ("anthropic", "openai", "json-schema")
# each other agent's question tool, as that agent defines it for its model
DIALECT_FORMATS = (
    "claude-code",
    "claude-code-extended",
    "opencode",
    "codex",
    "gemini",
    "elicitation",
)

DESCRIPTION = """\
Use this tool when you need to ask the user questions during execution. This allows you to:
1. Gather user preferences or requirements
2. Clarify ambiguous instructions
3. Get decisions on implementation choices as you work
4. Offer choices to the user about what direction to take.

Usage notes:
- Users will always be able to select "Other" to provide custom text input
- Use multiSelect: true to allow multiple answers to be selected for a question
- If you recommend a specific option, make that the first option in the list and add \
"(Recommended)" at the end of the label"""


def _clean(node: Any, defs: dict[str, Any]) -> Any:
    """Inline ``$ref``s, drop titles, and drop the ``null`` that pydantic allows for
    optional fields: the schema, like zod, wants the key absent instead."""
    if isinstance(node, list):
        return [_clean(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        return _clean({**target, **{k: v for k, v in node.items() if k != "$ref"}}, defs)
    branches = node.get("anyOf")
    if isinstance(branches, list):
        kept = [b for b in branches if b != {"type": "null"}]
        if len(kept) == 1:
            rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
            return _clean({**kept[0], **rest}, defs)
    return {
        key: _clean(value, defs)
        for key, value in node.items()
        if key not in ("title", "$defs") and not (key == "default" and value is None)
    }


def schema_of(model: Any, *, described_parts: bool = True) -> dict[str, Any]:
    """A pydantic ``model``'s JSON Schema, self-contained (no ``$ref``, no titles, no
    ``null`` branches), without the model's own description; without its parts' ones
    either unless ``described_parts``."""
    raw = model.model_json_schema()
    defs = raw.get("$defs", {})
    if not described_parts:
        defs = {
            name: {k: v for k, v in d.items() if k != "description"} for name, d in defs.items()
        }
    schema: dict[str, Any] = _clean({k: v for k, v in raw.items() if k != "description"}, defs)
    return schema


def input_schema() -> dict[str, Any]:
    """The input JSON Schema, self-contained (no ``$ref``)."""
    schema = schema_of(AskUserQuestionInput, described_parts=False)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def tool_definition(fmt: str = "anthropic") -> dict[str, Any]:
    """The tool definition in ``fmt``: one of :data:`FORMATS` or :data:`DIALECT_FORMATS`."""
    if fmt in ("claude-code", "claude-code-extended"):
        from .claude_code_tool import definition

        return definition(extended=fmt == "claude-code-extended")
    if fmt in DIALECT_FORMATS:
        from .dialects import by_name

        dialect = by_name(fmt)
        assert dialect is not None
        return dialect.definition()
    schema = input_schema()
    if fmt == "json-schema":
        return schema
    schema.pop("$schema")
    if fmt == "openai":
        return {
            "type": "function",
            "function": {"name": TOOL_NAME, "description": DESCRIPTION, "parameters": schema},
        }
    if fmt == "anthropic":
        return {"name": TOOL_NAME, "description": DESCRIPTION, "input_schema": schema}
    known = ", ".join(FORMATS + DIALECT_FORMATS)
    raise ValueError(f"unknown format {fmt!r}; choose from {known}")
