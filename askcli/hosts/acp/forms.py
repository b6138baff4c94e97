"""An adapter's AskUserQuestion form (claude-agent-acp's ``question_<n>`` fields) as
AskUserQuestion's input, and its answers back as the form's content."""

from __future__ import annotations

import re
from typing import Any

from ..child import as_dict, as_text

_QUESTION = re.compile(r"question_(\d+)")


def auq_input(params: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, bool]]] | None:
    """An adapter's AskUserQuestion form (``question_<n>`` choice fields, with
    ``question_<n>_custom`` for Other) as AskUserQuestion's input, and each question's field
    name and whether it is multiSelect; None for any other form."""
    schema = as_dict(params.get("requestedSchema"))
    props = as_dict(schema.get("properties"))
    if not props:
        return None
    numbers = []
    for key in props:
        m = _QUESTION.fullmatch(key)
        if m:
            numbers.append(int(m.group(1)))
        elif not (key.startswith("question_") and key.endswith("_custom")):
            return None
    if not numbers:
        return None
    questions, fields = [], []
    for n in sorted(numbers):
        key = f"question_{n}"
        node = as_dict(props[key])
        multi = node.get("type") == "array"
        choices = as_dict(node.get("items")).get("anyOf") if multi else node.get("oneOf")
        if not isinstance(choices, list) or not choices:
            return None
        options = []
        for choice in choices:
            choice = as_dict(choice)
            label = choice.get("const")
            if not isinstance(label, str):
                return None
            extra = as_dict(as_dict(choice.get("_meta")).get("_claude/askUserQuestionOption"))
            # the option's description: in _meta (claude-agent-acp 0.49), in the choice
            # itself (0.101)
            about = as_text(extra.get("description")) or as_text(choice.get("description"))
            option: dict[str, Any] = {"label": label, "description": about}
            if isinstance(extra.get("preview"), str):
                option["preview"] = extra["preview"]
            options.append(option)
        text = as_text(node.get("description")) or as_text(params.get("message"))
        header = as_text(node.get("title")) or f"Q{n + 1}"
        questions.append(
            {"question": text, "header": header, "multiSelect": multi, "options": options}
        )
        fields.append((key, multi))
    return {"questions": questions}, fields


def auq_content(
    data: dict[str, Any], fields: list[tuple[str, bool]], questions: list[dict[str, Any]]
) -> dict[str, Any]:
    """AskUserQuestion's answers as the adapter's form content: a chosen label (a list for
    multiSelect) in ``question_<n>``; anything typed, exactly as typed, in the custom field."""
    answers = as_dict(data.get("answers"))
    content: dict[str, Any] = {}
    for (key, multi), question in zip(fields, questions, strict=False):
        answer = answers.get(question["question"])
        labels = {o["label"] for o in question["options"]}
        if isinstance(answer, list):  # a multi-select's labels (and Other's text), as chosen
            parts = [str(part) for part in answer]
            if all(part in labels for part in parts):
                content[key] = parts
            else:
                content[f"{key}_custom"] = ", ".join(parts)
            continue
        if not isinstance(answer, str):
            continue
        if answer in labels:
            content[key] = [answer] if multi else answer
        elif multi and all(part in labels for part in answer.split(", ")):
            content[key] = answer.split(", ")
        else:
            content[f"{key}_custom"] = answer
    return content
