"""``--wording claude-code``: every AskUserQuestion result text of Claude Code 2.1.332,
pinned; ``m`` (followUp), ``r`` (response) and the ``unanswered`` annotations."""

from __future__ import annotations

import json
import select
import subprocess
from pathlib import Path
from typing import Any

import pytest

from askcli.runners.recordings import play
from askcli.schema.shapes import Option, SharedQuestion
from askcli.schema.value_rules import ValueRule
from askcli.wire.envelopes import Output
from askcli.wire.wording import current, texts

from tests.support.paths import ROOT
from tests.support.processes import askcli_path, run_askcli

COLOR = {
    "question": "Which color?",
    "header": "Color",
    "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
    "multiSelect": False,
}
SIZES = {
    "question": "Which sizes?",
    "header": "Sizes",
    "options": [
        {"label": "S", "description": "small"},
        {"label": "M", "description": "medium"},
        {"label": "L", "description": "large"},
    ],
    "multiSelect": True,
}
CALL = {
    "type": "tool_use",
    "id": "toolu_w",
    "name": "AskUserQuestion",
    "input": {"questions": [COLOR, SIZES]},
}
CAREFUL = (
    "Read the answers carefully \u2014 they may request clarification, changes, or that you "
    "not proceed \u2014 and follow what they actually say."
)
CLEAN = "You can now continue with these answers in mind."
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). "
)


def result(answers: list[str], call: Any = CALL, **kw: Any) -> tuple[dict[str, Any], str, int]:
    outcome = play(calls=[call], answers=answers, wording="claude-code", **kw)
    (line,) = outcome.stdout
    return json.loads(line), outcome.stderr, outcome.status


# --- each case, with the text 2.1.332 gives (confirmed live: see docs/dialects.md) -------

CASES = {
    "all labels": (
        ["1", "1,2", ""],
        f'Your questions have been answered: "Which color?"="Red", "Which sizes?"="S, M". {CLEAN}',
    ),
    "partly answered": (
        ["1", "s", ""],
        f'Your questions have been answered: "Which color?"="Red". {CLEAN}',
    ),
    "other text": (
        ["3", "Green please", "2", ""],
        f'The user answered: "Which color?"="Green please", "Which sizes?"="M". {CAREFUL}',
    ),
    "notes": (
        ["n a darker red", "1", "2", ""],
        'The user answered: "Which color?"="Red" notes: a darker red, "Which sizes?"="M". '
        + CAREFUL,
    ),
    "notes, no option": (
        ["n not sure yet", "s", "2", ""],
        'The user answered: "Which color?"=(no option selected) notes: not sure yet, '
        f'"Which sizes?"="M". {CAREFUL}',
    ),
    "nothing answered": (["s", "s", ""], "The user did not answer the questions."),
    "response": (["r Let's discuss this first."], "The user responded: Let's discuss this first."),
    "response after answers": (
        ["1", "r Also use blue accents."],
        "The user responded: Also use blue accents.",
    ),
    "follow-up with answers": (
        ["1", "s", "m"],
        'The user asked for more questions before you proceed. So far they answered: "Which '
        'color?"="Red". Call AskUserQuestion again with follow-up questions that build on these '
        "answers (do not repeat these); do not start the task yet.",
    ),
    "follow-up with words": (
        ["1", "s", "m Ask me about fonts too"],
        'The user asked for more questions before you proceed. So far they answered: "Which '
        'color?"="Red". They also wrote: "Ask me about fonts too". Call AskUserQuestion again '
        "with follow-up questions that build on these answers (do not repeat these); do not "
        "start the task yet.",
    ),
    "follow-up, nothing answered": (
        ["m"],
        "The user asked for more questions before answering. Call AskUserQuestion again now with "
        "further questions about this decision (do not repeat these); do not proceed with the "
        "task yet.",
    ),
    "follow-up, nothing answered, words": (
        ["m Ask me about fonts too"],
        'The user asked for more questions before answering. They also wrote: "Ask me about fonts '
        'too". Call AskUserQuestion again now with further questions about this decision (do not '
        "repeat these); do not proceed with the task yet.",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_each_claude_code_text(name: str) -> None:
    answers, text = CASES[name]
    reply, _, status = result(answers)
    assert reply == {"type": "tool_result", "tool_use_id": "toolu_w", "content": text}
    assert status == 0


def test_chat_about_this_is_claude_code_s_dialog_text_and_the_words_last() -> None:
    reply, _, status = result(["1", "c I need to think about sizes"])
    assert reply["is_error"] is True and status == 1
    assert reply["content"] == (
        REJECTED + "To tell you how to proceed, the user said:\n"
        "The user wants to clarify these questions.\n"
        "    This means they may have additional information, context or questions for you.\n"
        "    Take their response into account and then reformulate the questions if appropriate.\n"
        "    Start by asking them what they would like to clarify.\n"
        "\n"
        "    Questions asked:\n"
        '- "Which color?"\n'
        "  Answer: Red\n"
        '- "Which sizes?"\n'
        "  (No answer provided)\n"
        "\n"
        "I need to think about sizes"
    )


def test_declining_is_the_same_in_both_wordings() -> None:
    reply, _, status = result(["q"])
    assert reply["content"] == REJECTED + (
        "STOP what you are doing and wait for the user to tell you how to proceed."
    )
    assert status == 1


@pytest.mark.process
def test_an_idle_timeout_is_claude_code_s_away_from_keyboard_text() -> None:
    """The answers stay open (a person who went away): --timeout gives the idle text."""
    command = [str(askcli_path()), "ask", "-", "--wording", "claude-code", "--timeout", "0.6"]
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(CALL) + "\n1\n").encode())
    proc.stdin.flush()
    assert proc.stdout is not None and proc.stderr is not None
    try:  # the result comes after the timeout; then askcli waits for the next call
        ready, _, _ = select.select([proc.stdout], [], [], 20)
        assert ready, "no result within 20 s"
        out = proc.stdout.readline()
        proc.stdin.close()
        proc.wait(timeout=20)
    finally:
        proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    assert json.loads(out)["content"] == (
        "No response after 1s \u2014 the user may be away from keyboard. Proceed using your best "
        "judgment based on the context so far; you can re-ask this question later if it's still "
        'relevant.\n\nBefore going idle the user had selected: "Which color?"="Red".'
    )
    assert proc.returncode == 3


@pytest.mark.process
def test_the_environment_sets_the_wording() -> None:
    proc = run_askcli(
        "ask", "-", input=json.dumps(CALL) + "\n1\n1\n\n", env={"ASKCLI_WORDING": "claude-code"}
    )
    assert json.loads(proc.stdout)["content"].startswith("Your questions have been answered: ")
    proc = run_askcli("ask", "-", input=json.dumps(CALL) + "\n1\n1\n\n")
    assert json.loads(proc.stdout)["content"].startswith("User has answered your questions: ")


@pytest.mark.process
def test_claude_code_2_1_88_is_the_default_wording_and_seed_its_old_name() -> None:
    """The texts askcli long called the seed's are Claude Code 2.1.88's, by either name."""
    typed = json.dumps(CALL) + "\n1\n1\n\n"
    runs = [
        run_askcli("ask", "-", input=typed),
        run_askcli("ask", "--wording", "claude-code-2.1.88", "-", input=typed),
        run_askcli("ask", "--wording", "seed", "-", input=typed),
        run_askcli("ask", "-", input=typed, env={"ASKCLI_WORDING": "claude-code-2.1.88"}),
        run_askcli("ask", "-", input=typed, env={"ASKCLI_WORDING": "seed"}),
    ]
    seen = {(proc.stdout, proc.stderr, proc.returncode) for proc in runs}
    assert len(seen) == 1, seen
    assert json.loads(runs[0].stdout)["content"].startswith("User has answered your questions: ")
    for command in ("ask", "record", "claude", "inbox"):
        shown = run_askcli(command, "--help").stdout
        assert "--wording [claude-code-2.1.88|claude-code]" in shown, shown
        assert "else claude-code-2.1.88]" in " ".join(shown.split())
    bad = run_askcli("ask", "--wording", "claude-code-2.1.87", "-", input=typed)
    assert bad.returncode == 2
    assert "'claude-code-2.1.87' is not one of 'claude-code-2.1.88', 'claude-code'" in bad.stderr


@pytest.mark.process
def test_a_fixture_reads_the_old_name_but_no_message_offers_it(tmp_path: Path) -> None:
    recorded = json.loads((ROOT / "fixtures" / "decline.json").read_text())
    for name, status, said in (("seed", 0, "ok "), ("claude-code-2.1.87", 2, "wording: ")):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({**recorded, "wording": name}))
        proc = run_askcli("replay", str(path))
        assert proc.returncode == status, proc.stdout + proc.stderr
        assert said in proc.stdout + proc.stderr
        assert "seed" not in (proc.stdout + proc.stderr).replace(str(path), "")


# --- what a host gets: followUp, response, unanswered ------------------------------------

INIT = {"type": "system", "subtype": "init", "capabilities": [texts.UNANSWERED_CAPABILITY]}
CONTROL = {
    "type": "control_request",
    "request_id": "req_1",
    "request": {
        "subtype": "can_use_tool",
        "tool_name": "AskUserQuestion",
        "input": {"questions": [COLOR, SIZES]},
        "tool_use_id": "toolu_c",
    },
}


def decision(calls: list[Any], answers: list[str], **kw: Any) -> dict[str, Any]:
    outcome = play(calls=calls, answers=answers, **kw)
    return json.loads(outcome.stdout[-1])["response"]["response"]


def test_follow_up_and_response_go_back_in_updated_input() -> None:
    allow = decision([CONTROL], ["1", "s", "m Ask me about fonts too"])
    assert allow["behavior"] == "allow"
    assert allow["updatedInput"] == {
        "questions": [COLOR, SIZES],
        "answers": {"Which color?": "Red"},
        "followUp": True,
        "response": "Ask me about fonts too",
    }
    allow = decision([CONTROL], ["r", "Let's talk first"])
    assert allow["updatedInput"]["response"] == "Let's talk first"
    assert "followUp" not in allow["updatedInput"]


def test_unanswered_goes_only_to_a_claude_code_that_lists_the_capability() -> None:
    bare = decision([CONTROL], ["1", "s", ""], wording="claude-code")
    assert "annotations" not in bare["updatedInput"]
    told = decision([INIT, CONTROL], ["1", "s", ""], wording="claude-code")
    assert told["updatedInput"]["annotations"] == {"Which sizes?": {"unanswered": "skipped"}}
    chat = decision([INIT, CONTROL], ["1", "r never mind"])
    assert chat["updatedInput"]["annotations"] == {
        "Which sizes?": {"unanswered": "replied_in_chat"}
    }


def test_the_initialize_response_s_capabilities_count_too() -> None:
    response = {
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": "init",
            "response": {"capabilities": [texts.UNANSWERED_CAPABILITY]},
        },
    }
    told = decision([response, CONTROL], ["1", "s", ""], wording="claude-code")
    assert told["updatedInput"]["annotations"] == {"Which sizes?": {"unanswered": "skipped"}}


def test_the_seed_wording_still_requires_every_answer() -> None:
    outcome = play(calls=[CALL], answers=["1", "s", "y", "", "2", ""])
    assert "! question 2 has no answer yet; Enter or 2 answers it" in outcome.stderr
    assert json.loads(outcome.stdout[0])["content"].startswith("User has answered your questions")


def test_m_and_r_are_only_for_askuserquestion() -> None:
    opencode = {
        "type": "tool_use",
        "id": "toolu_o",
        "name": "question",
        "input": {"questions": [{**COLOR, "multiple": False}]},
    }
    outcome = play(calls=[opencode], answers=["m", "1"])
    assert "! type an option number from 1-3, or ? for help" in outcome.stderr


def test_output_answers_carries_follow_up_and_response() -> None:
    outcome = play(calls=[CALL], answers=["1", "m more please"], output=Output.ANSWERS)
    data = json.loads(outcome.stdout[0])
    assert data["followUp"] is True and data["response"] == "more please"
    assert data["status"] == {"Which color?": "answered", "Which sizes?": "skipped"}


# --- the pure texts -----------------------------------------------------------------------


def test_multi_select_labels_are_joined_and_split_as_claude_code_does() -> None:
    assert texts.join_labels(["S", "a, b", 'say "hi"']) == 'S, "a, b", "say \\"hi\\""'
    assert texts.split_labels('S, "a, b", "say \\"hi\\""') == ["S", "a, b", 'say "hi"']
    assert texts.split_labels('S, "broken') is None
    assert texts.split_labels("S, ") is None


def test_a_number_in_bounds_is_clean_and_text_is_careful() -> None:
    number = SharedQuestion(
        "How many?", "N", (), kind="number", rule=ValueRule("number", minimum=1, maximum=20)
    )
    text = SharedQuestion("Title?", "T", (), kind="text")
    color = SharedQuestion("Which color?", "C", (Option("Red", ""), Option("Blue", "")))
    clean = texts.answered_text([color, number], {"Which color?": "Red", "How many?": "12"}, {})
    assert clean.startswith("Your questions have been answered: ")
    far = texts.answered_text([number], {"How many?": "40"}, {})
    assert far.startswith("The user answered: ")
    typed = texts.answered_text([text], {"Title?": "Roadmap"}, {})
    assert typed == f'The user answered: "Title?"="Roadmap". {CAREFUL}'


def test_idle_seconds_round_as_javascript_does() -> None:
    assert texts.idle_text(2.5, "").startswith("No response after 3s ")
    assert texts.idle_text(60, "").startswith("No response after 60s ")


def test_the_capability_is_named_once() -> None:
    from askcli.tools import registry as tools

    assert tools.UNANSWERED_CAPABILITY == texts.UNANSWERED_CAPABILITY


def test_a_recorded_claude_session_keeps_its_wording() -> None:
    from askcli import fixtures

    from tests.support.claude import INIT_OK, RESULT, can_use_tool

    asked = can_use_tool("req_1", "AskUserQuestion", {"questions": [COLOR, SIZES]})
    fixture = fixtures.make_claude(
        prompt="go",
        received=[INIT_OK, asked, RESULT],
        answers=["1", "s", ""],
        wording="claude-code",
    )
    assert fixture["claude"]["wording"] == "claude-code" and fixture["status"] == 0
    (response,) = [m for m in fixture["claude"]["sent"] if m["type"] == "control_response"]
    assert response["response"]["response"]["updatedInput"]["answers"] == {"Which color?": "Red"}
    from askcli.runners.recording_format import check

    expected, actual = fixtures.replay(check(json.loads(fixtures.dumps(fixture))))
    assert actual == expected


def test_a_fixture_may_name_the_wording_claude_code_2_1_88() -> None:
    from askcli.runners import recordings
    from askcli.runners.recording_format import check

    recorded = recordings.make(calls=[json.dumps(CALL)], answers=["1", "1", ""])
    assert "wording" not in recorded  # the default is not written
    named = check({**recorded, "wording": "claude-code-2.1.88"})
    expected, actual = recordings.replay(named)
    assert actual == expected
    assert json.loads(actual.stdout[0])["content"].startswith("User has answered your questions")
    # made with either name, a fixture keeps askcli's one name for it (the default: unwritten)
    assert (
        recordings.make(
            calls=[json.dumps(CALL)], answers=["1", "1", ""], wording="claude-code-2.1.88"
        )
        == recorded
    )


# --- each wording an object, picked once by name -----------------------------------------


def test_a_wording_is_picked_by_name_once_and_seed_is_an_old_name() -> None:
    from askcli.wire.wording import registry
    from askcli.wire.wording.base import CLAUDE_CODE_2_1_88

    assert registry.NAMES == ("claude-code-2.1.88", "claude-code")
    assert registry.DEFAULT is CLAUDE_CODE_2_1_88
    assert registry.wording_named("seed") is registry.wording_named("claude-code-2.1.88")
    assert registry.wording_named("claude-code") is current.CLAUDE_CODE
    with pytest.raises(KeyError):
        registry.wording_named("claude-code-2.1.87")


def test_the_results_are_worded_by_the_wording_object_the_run_carries() -> None:
    """No branch on a wording's name: a wording of one's own words every result."""
    from askcli.wire.wording.base import Wording

    class Terse(Wording):
        name = "terse"

        def answered_text(self, questions: Any, answers: Any, annotations: Any) -> str:
            return f"answered {len(questions)}: {dict(answers)}"

        def no_answer_text(self, why: str, idle: Any, *rest: Any) -> str:
            return f"none ({why})"

        def invalid_text(self, raw: object, issues: Any) -> str:
            return "bad call"

    answered = result_of(play(calls=[CALL], answers=["1", "1", ""], wording=Terse()))
    assert answered == "answered 2: {'Which color?': 'Red', 'Which sizes?': 'S'}"
    assert result_of(play(calls=[CALL], answers=["1"], wording=Terse())) == "none (the input ended)"
    bad = {**CALL, "input": {"questions": []}}
    assert result_of(play(calls=[bad], wording=Terse())) == "bad call"


def result_of(outcome: Any) -> str:
    (line,) = outcome.stdout
    return str(json.loads(line)["content"])


@pytest.mark.process
def test_askcli_record_writes_the_wording_only_when_it_is_not_the_default(tmp_path: Any) -> None:
    typed = json.dumps(CALL) + "\n1\n1\n\n"
    for given, written in (
        ([], None),
        (["--wording", "seed"], None),
        (["--wording", "claude-code-2.1.88"], None),
        (["--wording", "claude-code"], "claude-code"),
    ):
        saved = tmp_path / "f.json"
        proc = run_askcli("record", "-", "-o", str(saved), *given, input=typed)
        assert proc.returncode == 0, proc.stderr
        fixture = json.loads(saved.read_text(encoding="utf-8"))
        assert fixture.get("wording") == written, (given, fixture)
        assert run_askcli("replay", str(saved)).stdout.startswith("ok")
    run_askcli("record", "-", "-o", str(saved), input=typed)
    fixture = json.loads(saved.read_text(encoding="utf-8"))
    fixture["wording"] = "seed"  # as fixtures recorded before the name claude-code-2.1.88 say
    saved.write_text(json.dumps(fixture), encoding="utf-8")
    assert run_askcli("replay", str(saved)).stdout.startswith("ok")


def test_every_wording_is_found_by_its_own_name() -> None:
    from askcli.wire.wording.current import CLAUDE_CODE
    from askcli.wire.wording.registry import NAMES, wording_named

    assert [wording_named(name).name for name in NAMES] == list(NAMES)
    assert wording_named("claude-code") is CLAUDE_CODE
    assert wording_named("seed").name == NAMES[0]
    with pytest.raises(KeyError):
        wording_named("claude-code-2")
