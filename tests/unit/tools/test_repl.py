"""The REPL on in-memory streams: every way a conversation can end, at every prompt."""

from __future__ import annotations

import io

import pytest

from askcli.lines import TextLineReader
from askcli.questions.outcome import Outcome
from askcli.runners.session import answer_document
from askcli.schema.inputs import parse_ask as parse_input
from askcli.status import ExitStatus
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style
from askcli.tools.repl import ask_questions
from askcli.wire.documents import Document
from askcli.wire.results import REJECT_MESSAGE

from tests.support.calls import Scripted, call, question

TWO = call(
    question("Q1?", "One", ("A", "B")),
    question("Q2?", "Two", ("X", "Y"), multi=True),
)
PROMPTS = {
    "question": ([], "Choose 1-3: "),
    "other-text": (["3"], "Other, type your answer: "),
    "second-question": (["1"], "Choose 1-3, several allowed (e.g. 1,3): "),
    "clarify-text": (["1", "c"], "What would you like to clarify? "),
    "review": (["1", "2"], "Submit? [y]: "),
}
ANSWERED_BEFORE = {
    "question": "",
    "other-text": "",
    "second-question": ' Answers given before that: "Q1?"="A".',
    "clarify-text": ' Answers given before that: "Q1?"="A".',
    "review": ' Answers given before that: "Q1?"="A", "Q2?"="Y".',
}


def conversation(
    lines: list[str], then: str, timeout: float | None = None
) -> tuple[Conversation, io.StringIO]:
    out = io.StringIO()
    return Conversation(Scripted(lines, then), out, Style(), RunOptions(timeout=timeout)), out


@pytest.mark.parametrize("where", PROMPTS)
def test_end_of_input_at_every_prompt(where: str) -> None:
    lines, prompt = PROMPTS[where]
    conv, out = conversation(lines, "end")
    reply = answer_document(Document(TWO), conv)
    assert out.getvalue().endswith(prompt + "\naskcli: no answer (the input ended)\n")
    assert reply.status is ExitStatus.NO_ANSWER
    (result,) = reply.results
    assert result.is_error
    assert result.content == "No answer from the user (the input ended)." + ANSWERED_BEFORE[where]


@pytest.mark.parametrize("where", PROMPTS)
def test_timeout_at_every_prompt(where: str) -> None:
    lines, prompt = PROMPTS[where]
    conv, out = conversation(lines, "timeout", timeout=2.5)
    reply = answer_document(Document(TWO), conv)
    assert reply.status is ExitStatus.NO_ANSWER
    assert reply.results[0].content.startswith(
        "No answer from the user (no reply within 2.5 seconds)."
    )
    assert prompt in out.getvalue()


@pytest.mark.parametrize("where", PROMPTS)
def test_ctrl_c_at_every_prompt(where: str) -> None:
    lines, prompt = PROMPTS[where]
    conv, out = conversation(lines, "interrupt")
    reply = answer_document(Document(TWO), conv)
    assert reply.status is ExitStatus.INTERRUPTED
    assert reply.results[0].content == REJECT_MESSAGE + ANSWERED_BEFORE[where]
    assert out.getvalue().endswith(prompt + "\n")


def test_answers_from_a_text_stream_are_echoed_for_the_transcript() -> None:
    out = io.StringIO()
    conv = Conversation(TextLineReader(io.StringIO("2\n")), out, Style())
    conclusion = ask_questions(parse_input(call()["input"]), conv)
    assert conclusion.outcome is Outcome.ANSWERED
    assert "Choose 1-3: 2\n" in out.getvalue()


def test_a_json_line_ends_the_call_only_when_calls_follow_on_the_same_stream() -> None:
    data = parse_input(call()["input"])
    shared = Conversation(
        Scripted(['{"type": "tool_use"}'], "end"),
        io.StringIO(),
        options=RunOptions(calls_follow=True),
    )
    assert ask_questions(data, shared).outcome is Outcome.ENDED
    assert shared.reader.readline() == '{"type": "tool_use"}'  # left for the next call
    separate = Conversation(Scripted(['{"x": 1}', "1"], "end"), io.StringIO())
    assert ask_questions(data, separate).outcome is Outcome.ANSWERED


def test_a_json_line_is_text_when_other_asks_for_it() -> None:
    data = parse_input(call()["input"])
    conv = Conversation(
        Scripted(["3", "{not a call}"], "end"), io.StringIO(), options=RunOptions(calls_follow=True)
    )
    conclusion = ask_questions(data, conv)
    assert conclusion.state.answers == {"Which one?": "{not a call}"}


def test_answers_in_the_call_are_shown_and_confirmed_never_submitted_unseen() -> None:
    conv, out = conversation([], "end")
    reply = answer_document(Document(call(answers={"Which one?": "B"})), conv)
    assert reply.status is ExitStatus.NO_ANSWER  # nobody confirmed the model's answer
    assert "suggested by the agent (2): B" in out.getvalue()
    assert "Choose 1-3 [2]: " in out.getvalue()
    assert '"Which one?"="B"' not in reply.results[0].content
    conv, out = conversation([""], "end")
    reply = answer_document(Document(call(answers={"Which one?": "B"})), conv)
    assert reply.results[0].content == (
        'User has answered your questions: "Which one?"="B". '
        "You can now continue with the user's answers in mind."
    )


def test_answers_and_notes_to_questions_not_in_the_call_are_dropped_with_a_notice() -> None:
    doc = call(
        answers={"Other question?": "forged", "Which one?": "A"},
        annotations={"Ghost?": {"notes": "forged notes"}},
    )
    conv, out = conversation([""], "end")
    reply = answer_document(Document(doc), conv)
    (result,) = reply.results
    assert "the call's answer for 'Other question?' is dropped" in out.getvalue()
    assert "the call's annotation for 'Ghost?' is dropped" in out.getvalue()
    assert "forged" not in result.content
    assert result.updated_input is not None
    assert result.updated_input["answers"] == {"Which one?": "A"}
    assert "Ghost?" not in result.updated_input.get("annotations", {})


def test_notes_in_the_call_are_shown_as_the_persons_to_keep_or_clear() -> None:
    doc = call(
        question("Q1?"),
        question("Q2?"),
        answers={"Q1?": "A"},
        annotations={"Q1?": {"notes": "from the agent", "preview": "forged preview"}},
    )
    conv, out = conversation(["", "n mine", "2", ""], "end")
    reply = answer_document(Document(doc), conv)
    (result,) = reply.results
    assert "  notes: from the agent\n" in out.getvalue()
    assert result.data is not None
    assert result.data["annotations"] == {
        "Q1?": {"notes": "from the agent"},
        "Q2?": {"notes": "mine"},
    }
    assert result.content == (
        'User has answered your questions: "Q1?"="A" user notes: from the agent, '
        '"Q2?"="B" user notes: mine. You can now continue with the user\'s answers in mind.'
    )
    conv, _ = conversation(["n", "", "2", ""], "end")  # cleared: not sent as the person's
    (result,) = answer_document(Document(doc), conv).results
    assert "from the agent" not in result.content


@pytest.mark.parametrize(
    ("questions", "kept"),
    [
        ((question(),), ["2"]),  # one line completed the only question
        ((question("Q1?"), question("Q2?")), ["1", "2", ""]),  # ... and the submit
        ((question("Q1?"), question("Q2?")), ["1", "b", "2", "1"]),
    ],
)
def test_a_resumed_call_is_shown_for_review_before_it_is_submitted(
    questions: tuple[dict, ...], kept: list[str]
) -> None:
    data = parse_input(call(*questions)["input"])
    conv, out = conversation([""], "end")  # Enter at Resume? [Y/n]
    conclusion = ask_questions(data, conv, resume=kept)
    assert conclusion.outcome is Outcome.ENDED  # nothing submitted without the person
    assert "Review your answers:" in out.getvalue()
    conv, out = conversation(["", ""], "end")
    conclusion = ask_questions(data, conv, resume=kept)
    assert conclusion.outcome is Outcome.ANSWERED
    assert conclusion.state.answers


def test_a_kept_decline_is_not_replayed() -> None:
    data = parse_input(call(question("Q1?"), question("Q2?"))["input"])
    conv, _ = conversation(["y", "2", ""], "end")
    conclusion = ask_questions(data, conv, resume=["1", "q", "y"])
    assert conclusion.outcome is Outcome.ANSWERED
    assert conclusion.state.answers == {"Q1?": "A", "Q2?": "B"}


LOGIN_LIKE = call(
    question("Q1?", "One", ("A", "B")),
    question("Q2?", "Two", ("X", "Y"), multi=True),
)


@pytest.mark.parametrize(
    ("typed", "answers", "dropped"),
    [
        (["", "1", ""], {"Q1?": "B", "Q2?": "X"}, False),  # Enter: the kept answer stays
        (["y", "1", ""], {"Q1?": "B", "Q2?": "X"}, False),
        (["n", "1", "2", ""], {"Q1?": "A", "Q2?": "Y"}, True),  # afresh, from question 1
    ],
)
def test_a_kept_answer_is_shown_and_resume_asked(
    typed: list[str], answers: dict[str, str], dropped: bool
) -> None:
    data = parse_input(LOGIN_LIKE["input"])
    conv, out = conversation(typed, "end")
    calls: list[str] = []
    conclusion = ask_questions(data, conv, resume=["2"], drop=lambda: calls.append("drop"))
    shown = out.getvalue()
    assert "[One] Q1? -> B" in shown
    assert "Resume? [Y/n] " in shown
    assert conclusion.outcome is Outcome.ANSWERED
    assert conclusion.state.answers == answers
    assert calls == (["drop"] if dropped else [])


@pytest.mark.parametrize("then", ["end", "timeout", "interrupt"])
def test_no_answer_at_resume_keeps_what_was_kept(then: str) -> None:
    data = parse_input(LOGIN_LIKE["input"])
    conv, out = conversation(["maybe"], then, timeout=1)
    conclusion = ask_questions(data, conv, resume=["2"])
    assert "! type y for yes or n for no (Enter: yes)" in out.getvalue()
    expected = {
        "end": Outcome.ENDED,
        "timeout": Outcome.TIMED_OUT,
        "interrupt": Outcome.INTERRUPTED,
    }
    assert conclusion.outcome is expected[then]
    assert conclusion.state.answers == {"Q1?": "B"}


def test_lines_that_change_nothing_ask_nothing() -> None:
    data = parse_input(LOGIN_LIKE["input"])
    conv, out = conversation(["1", "1", ""], "end")
    conclusion = ask_questions(data, conv, resume=["?", "9"])
    assert "Resume?" not in out.getvalue()
    assert conclusion.outcome is Outcome.ANSWERED


def test_the_lines_of_a_decline_confirmation_are_not_kept() -> None:
    data = parse_input(LOGIN_LIKE["input"])
    kept: list[str] = []
    conv, out = conversation(["2", "q", "", "q", "n", "1", ""], "end")
    conclusion = ask_questions(data, conv, keep=kept.append)
    assert out.getvalue().count("Decline all 2 questions? [y/N] ") == 2
    assert conclusion.state.answers == {"Q1?": "B", "Q2?": "X"}
    assert kept == ["2", "1", ""]


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        (["s"], "Skipped question 1; answer it from the review.\n"),
        (["1", "skip"], "Skipped question 2; answer it from the review.\n"),
    ],
)
def test_skip_says_what_it_did(typed: list[str], said: str) -> None:
    data = parse_input(LOGIN_LIKE["input"])
    conv, out = conversation(typed, "end")
    ask_questions(data, conv)
    assert said in out.getvalue()


def test_help_lists_every_answer_word() -> None:
    data = parse_input(LOGIN_LIKE["input"])
    conv, out = conversation(["?", "1", "help"], "end")
    ask_questions(data, conv)
    shown = out.getvalue()
    for words in [
        "b back",
        "s skip",
        "c chat",
        "q quit",
        "? h help",
        "A; B; C",
        "Q:A Q:A",
        "+N -N",
    ]:
        assert f"  {words} " in shown
    assert "Enter y " not in shown  # the review's words only at the review


@pytest.mark.parametrize("typed", ["n", "no", "N"])
def test_n_at_the_review_does_not_submit_and_says_what_to_type(typed: str) -> None:
    data = parse_input(TWO["input"])
    kept: list[str] = []
    conv, out = conversation(["1", "2", typed, "1", "2", ""], "end")
    conclusion = ask_questions(data, conv, keep=kept.append)
    shown = out.getvalue()
    said = "Not submitted: 1-2 changes an answer, b goes back, q declines.\n"
    assert f"Submit? [y]: {typed}\n{said}" in shown
    assert "! " not in shown  # no error
    assert conclusion.outcome is Outcome.ANSWERED
    assert conclusion.state.answers == {"Q1?": "B", "Q2?": "Y"}  # 1 reopened, 2 chose B
    assert kept == ["1", "2", "1", "2", ""]  # n moved nothing: it is not kept


def test_n_at_the_review_ends_nothing_when_the_answers_end() -> None:
    data = parse_input(TWO["input"])
    conv, out = conversation(["1", "2", "n"], "end")
    conclusion = ask_questions(data, conv)
    assert conclusion.outcome is Outcome.ENDED and conclusion.state.mode.value == "review"
    assert out.getvalue().count("Submit? [y]: ") == 2
