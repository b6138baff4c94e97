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


OTHER_LABEL = "None of the above"  # codex-acp's Other choice (Codex's TUI label)
NOTE_PREFIX = "user_note: "


def _codex_meta(node: dict[str, Any]) -> dict[str, Any]:
    return as_dict(as_dict(node.get("_meta")).get("codex"))


def codex_input(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]] | None:
    """codex-acp 2.x's form for Codex's ``request_user_input`` (a choice per question id,
    ``_meta.codex`` carrying ``isOther`` and ``isSecret``, a ``<id>_note`` field of role
    ``user_note`` for Other's text) as ``request_user_input``'s input, and each question's
    note field by question id; None for any other form."""
    props = as_dict(as_dict(params.get("requestedSchema")).get("properties"))
    questions: list[dict[str, Any]] = []
    notes: dict[str, str] = {}
    for key, value in props.items():
        node = as_dict(value)
        meta = _codex_meta(node)
        if meta.get("role") == "user_note" and isinstance(meta.get("questionId"), str):
            notes[meta["questionId"]] = key
            continue
        choices = node.get("oneOf")
        if "isOther" not in meta or not isinstance(choices, list):
            return None
        options = []
        for choice in map(as_dict, choices):
            label = choice.get("const")
            if not isinstance(label, str):
                return None
            if label != OTHER_LABEL:
                options.append({"label": label, "description": as_text(choice.get("description"))})
        questions.append(
            {
                "id": key,
                "header": as_text(node.get("description")),
                "question": as_text(node.get("title")) or key,
                "isOther": meta.get("isOther") is True,
                "isSecret": meta.get("isSecret") is True,
                "options": options,
            }
        )
    if not questions:
        return None
    return {"questions": questions}, notes


def codex_content(data: dict[str, Any], notes: dict[str, str]) -> dict[str, Any]:
    """``request_user_input``'s answers (``{id: {"answers": [label, "user_note: ..."]}}``) as
    codex-acp's form content: the label (or ``None of the above``) in the question's field,
    the notes, without their prefix, in its note field; codex-acp turns them back into the
    same answers."""
    content: dict[str, Any] = {}
    for qid, given in as_dict(data.get("answers")).items():
        values = [str(v) for v in as_dict(given).get("answers", [])]
        labels = [v for v in values if not v.startswith(NOTE_PREFIX)]
        texts = [v[len(NOTE_PREFIX) :] for v in values if v.startswith(NOTE_PREFIX)]
        if labels:
            content[qid] = labels[0]
        if texts and qid in notes:
            content[notes[qid]] = "\n".join(texts)
    return content
