"""Golden transcripts: the whole stderr conversation and the exact stdout line(s)."""

from __future__ import annotations

from typing import Any

import pytest

from askcli.runners.recordings import play

from tests.support.calls import call, example, option, question
from tests.support.goldens_tools import TOOL_SESSIONS

LIBRARY = example("library.json")
TWO = call(
    question("Which database?", "Database", ("Postgres (Recommended)", "SQLite")),
    question("Which extras?", "Extras", ("Cache", "Queue", "Search"), multi=True),
)
PREVIEW = call(
    {
        "question": "Which layout?",
        "header": "Layout",
        "options": [
            option(
                "Sidebar", "Menu on the left", preview="+----+------+\n|menu| main |\n+----+------+"
            ),
            option("Top bar", "Menu on top"),
        ],
    }
)
MESSAGE = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "Two things to settle."},
        call(id="toolu_a"),
        call(question("Second?"), id="toolu_b"),
    ],
}
GIVEN = call(
    question("Which database?", "Database", ("Postgres", "SQLite")),
    question("Which cache?", "Cache", ("Redis", "None")),
    answers={"Which database?": "Postgres"},
)

# name: (calls, answer lines, stderr lines, stdout lines, exit status)
SESSIONS: dict[str, tuple[list[Any], list[str], list[str], list[str], int]] = {
    "single": (
        [LIBRARY],
        ["2"],
        [
            "",
            "[Library] Which library should we use for date formatting?   (question 1 of 1)",
            "  1. date-fns (Recommended) - Lightweight, tree-shakeable, functional API",
            "  2. dayjs - Moment.js compatible, small bundle size",
            "  3. Temporal - Modern native API, no dependencies needed",
            "  4. Other - type your own answer",
            "  (keys: 1-4 choose, ? help, q decline)",
            "Choose 1-4 [1]: 2",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_01ABC123","content":"User has answered your questions: \\"Which library should we use for date formatting?\\"=\\"dayjs\\". You can now continue with the user\'s answers in mind."}'
        ],
        0,
    ),
    "recommended_default": (
        [LIBRARY],
        [""],
        [
            "",
            "[Library] Which library should we use for date formatting?   (question 1 of 1)",
            "  1. date-fns (Recommended) - Lightweight, tree-shakeable, functional API",
            "  2. dayjs - Moment.js compatible, small bundle size",
            "  3. Temporal - Modern native API, no dependencies needed",
            "  4. Other - type your own answer",
            "  (keys: 1-4 choose, ? help, q decline)",
            "Choose 1-4 [1]: ",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_01ABC123","content":"User has answered your questions: \\"Which library should we use for date formatting?\\"=\\"date-fns (Recommended)\\". You can now continue with the user\'s answers in mind."}'
        ],
        0,
    ),
    "refusals_then_answer": (
        [LIBRARY],
        ["0", "1,2", "x", "?", "3"],
        [
            "",
            "[Library] Which library should we use for date formatting?   (question 1 of 1)",
            "  1. date-fns (Recommended) - Lightweight, tree-shakeable, functional API",
            "  2. dayjs - Moment.js compatible, small bundle size",
            "  3. Temporal - Modern native API, no dependencies needed",
            "  4. Other - type your own answer",
            "  (keys: 1-4 choose, ? help, q decline)",
            "Choose 1-4 [1]: 0",
            "! there is no option 0; choose from 1-4",
            "Choose 1-4 [1]: 1,2",
            "! this question takes one answer; type a single number",
            "Choose 1-4 [1]: x",
            "! type an option number from 1-4, or ? for help",
            "Choose 1-4 [1]: ?",
            "  N        choose option N, also written N. (4 is Other: then type your own",
            "           answer)",
            "  LABEL    an option's label, typed whole, chooses it too",
            "  N,M N-M  choose several options, in the order typed (not for this question)",
            "  +N -N    add or remove option N from the choice shown (not for this question)",
            "  Enter    take the choice shown in [brackets], if any",
            "  A; B; C  answer every question on one line, in order, then see the review:",
            "           each part as above, empty for its default, Other as N=TEXT (a text",
            "           with ; is typed at its own question)",
            "  Q:A Q:A  the same by question number, e.g. 1:2 3:1,3",
            "  p N      show option N's preview",
            "  n TEXT   add notes to this question (n alone clears them)",
            "  b back   back to the previous question",
            "  s skip   skip: answer it later, from the review",
            "  c chat   chat about this: decline and tell the agent what to clarify (c TEXT",
            "           at once)",
            "  q quit   decline to answer (asked to confirm once answers were given)",
            "  m [TEXT] ask me more first: the agent asks further questions before it starts",
            "  r [TEXT] reply in your own words instead of answering",
            "  ? h help this help",
            "  A label that is also a word above (b, q, ...) is the word: type its number. At",
            "  the Other and chat prompts, an empty line or b goes back.",
            "Choose 1-4 [1]: 3",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_01ABC123","content":"User has answered your questions: \\"Which library should we use for date formatting?\\"=\\"Temporal\\". You can now continue with the user\'s answers in mind."}'
        ],
        0,
    ),
    "multi_with_review": (
        [TWO],
        ["", "3,1", "y"],
        [
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres (Recommended) - about Postgres (Recommended)",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3 [1]: ",
            "",
            "[Extras] Which extras?   (question 2 of 2)",
            "  1. Cache - about Cache",
            "  2. Queue - about Queue",
            "  3. Search - about Search",
            "  4. Other - type your own answer",
            "Choose 1-4, several allowed (e.g. 1,3): 3,1",
            "",
            "Review your answers:",
            "  1. [Database] Which database?",
            "       Postgres (Recommended)",
            "  2. [Extras] Which extras?",
            "       Search, Cache",
            "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help.",
            "Submit? [y]: y",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"User has answered your questions: \\"Which database?\\"=\\"Postgres (Recommended)\\", \\"Which extras?\\"=\\"Search, Cache\\". You can now continue with the user\'s answers in mind."}'
        ],
        0,
    ),
    "other_text": (
        [LIBRARY],
        ["4", "", "4", "Luxon"],
        [
            "",
            "[Library] Which library should we use for date formatting?   (question 1 of 1)",
            "  1. date-fns (Recommended) - Lightweight, tree-shakeable, functional API",
            "  2. dayjs - Moment.js compatible, small bundle size",
            "  3. Temporal - Modern native API, no dependencies needed",
            "  4. Other - type your own answer",
            "  (keys: 1-4 choose, ? help, q decline)",
            "Choose 1-4 [1]: 4",
            "Other, type your answer: ",
            "Choose 1-4 [1]: 4",
            "Other, type your answer: Luxon",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_01ABC123","content":"User has answered your questions: \\"Which library should we use for date formatting?\\"=\\"Luxon\\". You can now continue with the user\'s answers in mind."}'
        ],
        0,
    ),
    "other_inside_multi": (
        [TWO],
        ["2", "1,4", "Audit log", ""],
        [
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres (Recommended) - about Postgres (Recommended)",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3 [1]: 2",
            "",
            "[Extras] Which extras?   (question 2 of 2)",
            "  1. Cache - about Cache",
            "  2. Queue - about Queue",
            "  3. Search - about Search",
            "  4. Other - type your own answer",
            "Choose 1-4, several allowed (e.g. 1,3): 1,4",
            "Other, type your answer: Audit log",
            "",
            "Review your answers:",
            "  1. [Database] Which database?",
            "       SQLite",
            "  2. [Extras] Which extras?",
            "       Cache, Audit log",
            "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help.",
            "Submit? [y]: ",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"User has answered your questions: \\"Which database?\\"=\\"SQLite\\", \\"Which extras?\\"=\\"Cache, Audit log\\". You can now continue with the user\'s answers in mind."}'
        ],
        0,
    ),
    "notes_and_preview": (
        [PREVIEW],
        ["p 1", "n keep the menu narrow", "1"],
        [
            "",
            "[Layout] Which layout?   (question 1 of 1)",
            "  1. Sidebar - Menu on the left",
            "  2. Top bar - Menu on top",
            "  3. Other - type your own answer",
            "  (p N shows a preview: options 1)",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3: p 1",
            "--- preview of 1. Sidebar ---",
            "+----+------+",
            "|menu| main |",
            "+----+------+",
            "--- end of preview ---",
            "Choose 1-3: n keep the menu narrow",
            "Notes saved.",
            "Choose 1-3: 1",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"User has answered your questions: \\"Which layout?\\"=\\"Sidebar\\" selected preview:\\n+----+------+\\n|menu| main |\\n+----+------+ user notes: keep the menu narrow. You can now continue with the user\'s answers in mind."}'
        ],
        0,
    ),
    "back_and_reopen": (
        [TWO],
        ["1", "b", "2", "2", "1", "1", "y"],
        [
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres (Recommended) - about Postgres (Recommended)",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3 [1]: 1",
            "",
            "[Extras] Which extras?   (question 2 of 2)",
            "  1. Cache - about Cache",
            "  2. Queue - about Queue",
            "  3. Search - about Search",
            "  4. Other - type your own answer",
            "Choose 1-4, several allowed (e.g. 1,3): b",
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres (Recommended) - about Postgres (Recommended)",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  current answer: Postgres (Recommended)",
            "Choose 1-3 [1]: 2",
            "",
            "[Extras] Which extras?   (question 2 of 2)",
            "  1. Cache - about Cache",
            "  2. Queue - about Queue",
            "  3. Search - about Search",
            "  4. Other - type your own answer",
            "Choose 1-4, several allowed (e.g. 1,3): 2",
            "",
            "Review your answers:",
            "  1. [Database] Which database?",
            "       SQLite",
            "  2. [Extras] Which extras?",
            "       Queue",
            "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help.",
            "Submit? [y]: 1",
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres (Recommended) - about Postgres (Recommended)",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  current answer: SQLite",
            "Choose 1-3 [2]: 1",
            "",
            "Review your answers:",
            "  1. [Database] Which database?",
            "       Postgres (Recommended)",
            "  2. [Extras] Which extras?",
            "       Queue",
            "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help.",
            "Submit? [y]: y",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"User has answered your questions: \\"Which database?\\"=\\"Postgres (Recommended)\\", \\"Which extras?\\"=\\"Queue\\". You can now continue with the user\'s answers in mind."}'
        ],
        0,
    ),
    "decline": (
        [TWO],
        ["q"],
        [
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres (Recommended) - about Postgres (Recommended)",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3 [1]: q",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"The user doesn\'t want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true}'
        ],
        1,
    ),
    "clarify": (
        [TWO],
        ["1", "c", "What does Queue cover?"],
        [
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres (Recommended) - about Postgres (Recommended)",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3 [1]: 1",
            "",
            "[Extras] Which extras?   (question 2 of 2)",
            "  1. Cache - about Cache",
            "  2. Queue - about Queue",
            "  3. Search - about Search",
            "  4. Other - type your own answer",
            "Choose 1-4, several allowed (e.g. 1,3): c",
            "What would you like to clarify? What does Queue cover?",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"The user doesn\'t want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\\nThe user wants to clarify these questions.\\nWhat does Queue cover?\\n\\nQuestions asked:\\n- \\"Which database?\\"\\n  Answer: Postgres (Recommended)\\n- \\"Which extras?\\"\\n  (No answer provided)","is_error":true}'
        ],
        1,
    ),
    "eof": (
        [TWO],
        ["1"],
        [
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres (Recommended) - about Postgres (Recommended)",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3 [1]: 1",
            "",
            "[Extras] Which extras?   (question 2 of 2)",
            "  1. Cache - about Cache",
            "  2. Queue - about Queue",
            "  3. Search - about Search",
            "  4. Other - type your own answer",
            "Choose 1-4, several allowed (e.g. 1,3): ",
            "askcli: no answer (the input ended)",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"No answer from the user (the input ended). Answers given before that: \\"Which database?\\"=\\"Postgres (Recommended)\\".","is_error":true}'
        ],
        3,
    ),
    "invalid_call": (
        [call(question(labels=("Only",)))],
        [],
        [
            "askcli: invalid AskUserQuestion call toolu_test: questions[0].options: Array must contain at least 2 element(s)",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"<tool_use_error>InputValidationError: [\\n  {\\n    \\"code\\": \\"too_small\\",\\n    \\"minimum\\": 2,\\n    \\"type\\": \\"array\\",\\n    \\"inclusive\\": true,\\n    \\"exact\\": false,\\n    \\"message\\": \\"Array must contain at least 2 element(s)\\",\\n    \\"path\\": [\\n      \\"questions\\",\\n      0,\\n      \\"options\\"\\n    ]\\n  }\\n]</tool_use_error>","is_error":true}'
        ],
        2,
    ),
    "malformed_json": (
        ['{"questions": [}'],
        [],
        [
            "askcli: document 1, line 1: the input is not valid JSON: Expecting value (column 16)",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":null,"content":"<tool_use_error>InputValidationError: document 1, line 1: the input is not valid JSON: Expecting value (column 16)</tool_use_error>","is_error":true}'
        ],
        2,
    ),
    "message_cancels_the_rest": (
        [MESSAGE],
        ["q"],
        [
            "",
            "Assistant: Two things to settle.",
            "",
            "[Pick] Which one?   (question 1 of 1)",
            "  1. A - about A",
            "  2. B - about B",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3: q",
            "",
        ],
        [
            '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"The user doesn\'t want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true},{"type":"tool_result","tool_use_id":"toolu_b","content":"The user doesn\'t want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true}]}'
        ],
        1,
    ),
    "given_answers": (
        [GIVEN],
        ["", "2", ""],
        [
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres - about Postgres",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "  suggested by the agent (1): Postgres",
            "Choose 1-3 [1]: ",
            "",
            "[Cache] Which cache?   (question 2 of 2)",
            "  1. Redis - about Redis",
            "  2. None - about None",
            "  3. Other - type your own answer",
            "Choose 1-3: 2",
            "",
            "Review your answers:",
            "  1. [Database] Which database?",
            "       Postgres",
            "  2. [Cache] Which cache?",
            "       None",
            "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help.",
            "Submit? [y]: ",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"User has answered your questions: \\"Which database?\\"=\\"Postgres\\", \\"Which cache?\\"=\\"None\\". You can now continue with the user\'s answers in mind."}'
        ],
        0,
    ),
    "one_line_skip_plus_minus_and_a_confirmed_q": (
        [TWO],
        ["s", "2; 9", "SQLite; 1,3", "q", "", "2", "+2 -1", "y"],
        [
            "",
            "[Database] Which database?   (question 1 of 2)",
            "  1. Postgres (Recommended) - about Postgres (Recommended)",
            "  2. SQLite - about SQLite",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3 [1]: s",
            "Skipped question 1; answer it from the review.",
            "",
            "[Extras] Which extras?   (question 2 of 2)",
            "  1. Cache - about Cache",
            "  2. Queue - about Queue",
            "  3. Search - about Search",
            "  4. Other - type your own answer",
            "Choose 1-4, several allowed (e.g. 1,3): 2; 9",
            "! question 2: there is no option 9; choose from 1-4; nothing was changed",
            "Choose 1-4, several allowed (e.g. 1,3): SQLite; 1,3",
            "",
            "Review your answers:",
            "  1. [Database] Which database?",
            "       SQLite",
            "  2. [Extras] Which extras?",
            "       Cache, Search",
            "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help.",
            "Submit? [y]: q",
            "Decline all 2 questions? [y/N] ",
            "Submit? [y]: 2",
            "",
            "[Extras] Which extras?   (question 2 of 2)",
            "  1. Cache - about Cache",
            "  2. Queue - about Queue",
            "  3. Search - about Search",
            "  4. Other - type your own answer",
            "  current answer: Cache, Search",
            "Choose 1-4, several allowed (e.g. 1,3) [1,3]: +2 -1",
            "",
            "Review your answers:",
            "  1. [Database] Which database?",
            "       SQLite",
            "  2. [Extras] Which extras?",
            "       Search, Queue",
            "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help.",
            "Submit? [y]: y",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_test","content":"User has answered your questions: \\"Which database?\\"=\\"SQLite\\", \\"Which extras?\\"=\\"Search, Queue\\". You can now continue with the user\'s answers in mind."}',
        ],
        0,
    ),
}


ALL_SESSIONS = {**SESSIONS, **TOOL_SESSIONS}


@pytest.mark.parametrize("name", ALL_SESSIONS)
def test_golden_transcript(name: str) -> None:
    calls, answers, stderr, stdout, status = ALL_SESSIONS[name]
    outcome = play(calls=calls, answers=answers)
    assert outcome.stderr == "\n".join(stderr)
    assert outcome.stdout == stdout
    assert outcome.status == status
