# ruff: noqa: E501  (the texts are Claude Code's, copied whole)
"""AskUserQuestion as Claude Code 2.1.332 defines it for its model, byte for byte.

Copied from the ``tools`` entry of the requests 2.1.332 sent to the API in a ``-p`` session
(the standard schema) and with ``CLAUDE_CODE_QUESTION_EXTENDED=1`` (the extended one, whose
questions may be ``text`` or ``number``). ``askcli schema --format claude-code`` and
``claude-code-extended`` print them.
"""

from __future__ import annotations

from typing import Any

VERSION = "2.1.332"
NAME = "AskUserQuestion"

DESCRIPTION = 'Use this tool only when you are blocked on a decision that is genuinely the user\'s to make: one you cannot resolve from the request, the code, or sensible defaults.\n\nUsage notes:\n- Users will always be able to select "Other" to provide custom text input\n- Use multiSelect: true to allow multiple answers to be selected for a question\n- If you recommend a specific option, make that the first option in the list and add "(Recommended)" at the end of the label\n\nPlan mode note: To switch into plan mode, use EnterPlanMode (not this tool). Once in plan mode, use this tool to clarify requirements or choose between approaches BEFORE finalizing your plan. Do NOT use this tool to ask "Is my plan ready?", "Should I proceed?", or otherwise reference "the plan" in questions — the user cannot see the plan until you call ExitPlanMode for approval.\n\nReserve this for decisions where the user\'s answer changes what you do next — not for choices with a conventional default or facts you can verify in the codebase yourself. In those cases pick the obvious option, mention it in your response, and proceed.\n\nThe user may see only the question dialog: tool results and text you wrote earlier in this turn may not be on their screen while it is open. Make each question stand on its own: if it depends on something you found, say so briefly, and name the items you are asking about in the question itself.\n'

EXTENDED_DESCRIPTION = (
    DESCRIPTION
    + '\nExtended questions (this host renders them):\n- Put the most important question first.\n- Omit "kind" for an ordinary choice question. Use "kind": "text" for an open-ended question (a text box, no options) and "kind": "number" with "min"/"max" (optionally "step", "defaultValue", "unit") for a quantity. Prefer choices whenever the likely answers can be listed.\n- Set multiSelect: true on choice questions unless the options are mutually exclusive (people answering are often still exploring).\n- Optional "title" is one short line above the questions; optional per-question "description" is one helper line. Option descriptions are optional here too: add one only when the label alone would be ambiguous.\n- Do not add "Other" or "Skip" options: the user can always type their own answer or leave a question unanswered. The user can also ask you for more questions; when the result says so, call this tool again with follow-up questions before doing the task.\n'
)

# the fields after ``questions``, the same in both schemas
_AFTER_QUESTIONS: dict[str, Any] = {
    "answers": {
        "description": "User answers collected by the permission component",
        "type": "object",
        "propertyNames": {"type": "string"},
        "additionalProperties": {"type": "string"},
    },
    "annotations": {
        "description": "Optional per-question annotations from the user (e.g., notes on preview selections). Keyed by question text.",
        "type": "object",
        "propertyNames": {"type": "string"},
        "additionalProperties": {
            "type": "object",
            "properties": {
                "preview": {
                    "description": "The preview content of the selected option, if the question used previews.",
                    "type": "string",
                },
                "notes": {
                    "description": "Free-text notes the user added to their selection.",
                    "type": "string",
                },
            },
            "additionalProperties": False,
        },
    },
    "metadata": {
        "description": "Optional metadata for tracking and analytics purposes. Not displayed to user.",
        "type": "object",
        "properties": {
            "source": {
                "description": 'Optional identifier for the source of this question (e.g., "remember" for /remember command). Used for analytics tracking.',
                "type": "string",
            }
        },
        "additionalProperties": False,
    },
}

STANDARD_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "questions": {
            "description": "Questions to ask the user (1-4 questions)",
            "minItems": 1,
            "maxItems": 4,
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "question": {
                        "description": 'The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"',
                        "type": "string",
                    },
                    "header": {
                        "description": 'Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".',
                        "type": "string",
                    },
                    "options": {
                        "description": "The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.",
                        "minItems": 2,
                        "maxItems": 4,
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "label": {
                                    "description": "The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.",
                                    "type": "string",
                                },
                                "description": {
                                    "description": "Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.",
                                    "type": "string",
                                },
                                "preview": {
                                    "description": "Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.",
                                    "type": "string",
                                },
                            },
                            "required": ["label", "description"],
                            "additionalProperties": False,
                        },
                    },
                    "multiSelect": {
                        "description": "Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.",
                        "default": False,
                        "type": "boolean",
                    },
                },
                "required": ["question", "header", "options", "multiSelect"],
                "additionalProperties": False,
            },
        },
        **_AFTER_QUESTIONS,
    },
    "required": ["questions"],
    "additionalProperties": False,
}

EXTENDED_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "title": {
            "description": 'Optional single-line heading shown above the questions, e.g. "Before I build your deck".',
            "type": "string",
        },
        "questions": {
            "description": "Questions to ask the user (1-4, most important first). The 1-4 questions and 2-4 options bounds are hard schema constraints; do not exceed them even if the user requests more — split into multiple calls instead.",
            "minItems": 1,
            "maxItems": 4,
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "question": {
                        "description": 'The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"',
                        "type": "string",
                    },
                    "header": {
                        "description": 'Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".',
                        "type": "string",
                    },
                    "kind": {
                        "description": 'How the user answers. "choice" (the default when omitted): picks from options. "text": a free-text box, no options — for open-ended input. "number": a slider/stepper between min and max — for quantities.',
                        "type": "string",
                        "enum": ["choice", "text", "number"],
                    },
                    "description": {
                        "description": "Optional single helper line shown under the question.",
                        "type": "string",
                    },
                    "options": {
                        "description": 'Choices for a "choice" question: 2-4 distinct options; with multiSelect false they must be mutually exclusive. Omit for "text" and "number" questions. There should be no \'Other\' or \'Skip\' option; the form lets the user type their own answer or leave a question unanswered.',
                        "default": [],
                        "maxItems": 4,
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "label": {
                                    "description": "The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.",
                                    "type": "string",
                                },
                                "description": {
                                    "description": "Optional: add only when the label alone would be ambiguous. One short line on what choosing it leads to.",
                                    "type": "string",
                                },
                                "preview": {
                                    "description": "Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.",
                                    "type": "string",
                                },
                            },
                            "required": ["label"],
                            "additionalProperties": False,
                        },
                    },
                    "multiSelect": {
                        "description": "Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.",
                        "default": False,
                        "type": "boolean",
                    },
                    "placeholder": {
                        "description": '"text" questions only: placeholder for the empty text box.',
                        "type": "string",
                    },
                    "min": {
                        "description": '"number" questions only (required there): lowest value.',
                        "type": "number",
                    },
                    "max": {
                        "description": '"number" questions only (required there): highest value.',
                        "type": "number",
                    },
                    "step": {
                        "description": '"number" questions only: increment between values.',
                        "type": "number",
                        "exclusiveMinimum": 0,
                    },
                    "defaultValue": {
                        "description": '"number" questions only: the value the control starts at (within min..max).',
                        "type": "number",
                    },
                    "unit": {
                        "description": '"number" questions only: short unit shown next to the value, e.g. "px", "slides", "%".',
                        "type": "string",
                    },
                },
                "required": ["question", "header", "options", "multiSelect"],
                "additionalProperties": False,
            },
        },
        **_AFTER_QUESTIONS,
    },
    "required": ["questions"],
    "additionalProperties": False,
}


def definition(extended: bool = False) -> dict[str, Any]:
    """The Messages API tool, as Claude Code sends it."""
    if extended:
        return {"name": NAME, "description": EXTENDED_DESCRIPTION, "input_schema": EXTENDED_SCHEMA}
    return {"name": NAME, "description": DESCRIPTION, "input_schema": STANDARD_SCHEMA}
