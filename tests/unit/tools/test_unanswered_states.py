"""Claude Code 2.1.332's answer states (issue 31, item 4): a skipped question, "chat about
this" (``c``) and a dismissal go to a Claude Code that lists ``ask_user_question_unanswered_v1``
as an allow whose ``annotations[q].unanswered`` says why; to any other, as before. A call
nobody answered within ``--timeout`` carries ``afkTimeoutMs`` when Claude Code offered to
take it (``metadata.afkTimeoutOfferedAt``)."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import pytest

from askcli.questions.outcome import Outcome
from askcli.questions.state import Conclusion, specs, start
from askcli.runners.recordings import play
from askcli.schema.inputs import parse_ask
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.tools import registry
from askcli.wire.envelopes import ToolCall
from askcli.wire.wording import texts
from askcli.wire.wording.base import CLAUDE_CODE_2_1_88
from askcli.wire.wording.current import CLAUDE_CODE

COLOR = {
    "question": "Which color?",
    "header": "Color",
    "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
    "multiSelect": False,
}
SIZE = {**COLOR, "question": "Which size?", "header": "Size"}
INIT = {"type": "system", "subtype": "init", "capabilities": [texts.UNANSWERED_CAPABILITY]}


def control(tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "control_request",
        "request_id": "req_1",
        "request": {
            "subtype": "can_use_tool",
            "tool_name": "AskUserQuestion",
            "input": tool_input,
            "tool_use_id": "toolu_s",
        },
    }


CONTROL = control({"questions": [COLOR, SIZE]})
WORDINGS = ["claude-code", "claude-code-2.1.88"]


def decision(calls: list[Any], answers: list[str], wording: str) -> dict[str, Any]:
    outcome = play(calls=calls, answers=answers, wording=wording)
    return json.loads(outcome.stdout[-1])["response"]["response"]


# (answers typed, the unanswered annotations with the capability, what goes without it)
STATES = {
    "skipped": (["1", "s", ""], {"Which size?": {"unanswered": "skipped"}}, "allow"),
    "replied_in_chat (r)": (
        ["1", "r let us talk"],
        {"Which size?": {"unanswered": "replied_in_chat"}},
        "allow",
    ),
    "replied_in_chat (c)": (
        ["1", "c what sizes are there?"],
        {"Which size?": {"unanswered": "replied_in_chat"}},
        "deny",
    ),
    "dismissed (answers ended)": (["1"], {"Which size?": {"unanswered": "dismissed"}}, "deny"),
}


@pytest.mark.parametrize(
    ("state", "wording"),
    # 2.1.88's wording answers every question: nothing is skipped there
    [(s, w) for s in STATES for w in WORDINGS if (s, w) != ("skipped", "claude-code-2.1.88")],
)
def test_each_state_with_and_without_the_capability(state: str, wording: str) -> None:
    typed, annotations, bare = STATES[state]
    told = decision([INIT, CONTROL], typed, wording)
    assert told["behavior"] == "allow"
    assert told["updatedInput"]["annotations"] == annotations
    assert told["updatedInput"]["answers"] == {"Which color?": "Red"}
    untold = decision([CONTROL], typed, wording)
    assert untold["behavior"] == bare
    assert "annotations" not in untold.get("updatedInput", {})


@pytest.mark.parametrize("wording", WORDINGS)
def test_chat_about_this_sends_the_words_as_the_response(wording: str) -> None:
    told = decision([INIT, CONTROL], ["1", "c what sizes are there?"], wording)
    assert told["updatedInput"] == {
        "questions": [COLOR, SIZE],
        "answers": {"Which color?": "Red"},
        "annotations": {"Which size?": {"unanswered": "replied_in_chat"}},
        "response": "what sizes are there?",
    }
    untold = decision([CONTROL], ["1", "c what sizes are there?"], wording)
    assert "what sizes are there?" in untold["message"]  # today's text, a deny
    assert untold["behavior"] == "deny"


def test_chat_about_this_keeps_its_exit_status_and_prints_claude_code_s_text() -> None:
    outcome = play(calls=[INIT, CONTROL], answers=["1", "c what sizes?"], wording="claude-code")
    assert outcome.status == 1  # still the person's no for the exit status
    call = {
        "type": "tool_use",
        "id": "toolu_t",
        "name": "AskUserQuestion",
        "input": {"questions": [COLOR, SIZE]},
    }
    printed = play(calls=[INIT, call], answers=["1", "c what sizes?"], wording="claude-code")
    assert json.loads(printed.stdout[-1]) == {
        "type": "tool_result",
        "tool_use_id": "toolu_t",
        "content": "The user responded: what sizes?",
    }


def conv_of(options: RunOptions) -> Conversation:
    from askcli.lines import TextLineReader

    return Conversation(
        TextLineReader(io.StringIO(""), interactive=False), io.StringIO(), None, options
    )


def ended(
    monkeypatch: pytest.MonkeyPatch, tool_input: dict[str, Any], outcome: Outcome, **kw: Any
) -> Any:
    """The result of a call that ended with ``outcome`` and nothing answered."""
    data = parse_ask(tool_input)

    def converse(*_: Any) -> Conclusion:
        return Conclusion(start(specs(data)), outcome)

    monkeypatch.setattr(registry, "converse", converse)
    call = ToolCall("toolu_s", "AskUserQuestion", tool_input)
    return registry.ask_user_question(call, data, conv_of(RunOptions(**kw)))


@pytest.mark.parametrize("wording", [CLAUDE_CODE, CLAUDE_CODE_2_1_88])
def test_a_stopped_askcli_is_a_dismissal_only_for_a_claude_code_that_takes_it(
    monkeypatch: pytest.MonkeyPatch, wording: Any
) -> None:
    told = {texts.UNANSWERED_CAPABILITY}
    result = ended(monkeypatch, {"questions": [COLOR]}, Outcome.STOPPED, wording=wording)
    assert result.decision()["behavior"] == "deny" and result.decision()["interrupt"] is True
    result = ended(
        monkeypatch, {"questions": [COLOR]}, Outcome.STOPPED, wording=wording, capabilities=told
    )
    assert result.decision() == {
        "behavior": "allow",
        "updatedInput": {
            "questions": [COLOR],
            "answers": {},
            "annotations": {"Which color?": {"unanswered": "dismissed"}},
        },
    }
    assert result.status is Outcome.STOPPED.status
    # declined and Ctrl-C stay the person's no
    for outcome in (Outcome.DECLINED, Outcome.INTERRUPTED, Outcome.TIMED_OUT):
        result = ended(
            monkeypatch, {"questions": [COLOR]}, outcome, wording=wording, capabilities=told
        )
        assert result.decision()["behavior"] == "deny"


def offered(at: float) -> dict[str, Any]:
    return {"questions": [COLOR], "metadata": {"source": "app", "afkTimeoutOfferedAt": at}}


@pytest.mark.parametrize("wording", [CLAUDE_CODE, CLAUDE_CODE_2_1_88])
def test_a_timeout_carries_afk_timeout_ms_when_claude_code_offered_it(
    monkeypatch: pytest.MonkeyPatch, wording: Any
) -> None:
    now = time.time() * 1000
    result = ended(monkeypatch, offered(now), Outcome.TIMED_OUT, timeout=90, wording=wording)
    assert result.decision() == {
        "behavior": "allow",
        "updatedInput": {
            "questions": [COLOR],
            "metadata": {"source": "app", "afkTimeoutOfferedAt": now},
            "answers": {},
            "afkTimeoutMs": 90000,
        },
    }
    assert result.answers()["afkTimeoutMs"] == 90000
    assert result.status is Outcome.TIMED_OUT.status
    if wording is CLAUDE_CODE:  # what askcli prints is what Claude Code tells its model
        assert result.content == texts.idle_text(90, "")


@pytest.mark.parametrize(
    ("tool_input", "timeout"),
    [
        ({"questions": [COLOR]}, 90),  # not offered
        (offered(time.time() * 1000 - 3 * 3_600_000), 90),  # offered too long ago
        (offered(time.time() * 1000), 0.5),  # under Claude Code's 1000 ms
        ({"questions": [COLOR], "metadata": {"afkTimeoutOfferedAt": True}}, 90),
    ],
)
def test_no_afk_timeout_ms_where_claude_code_would_refuse_it(
    monkeypatch: pytest.MonkeyPatch, tool_input: dict[str, Any], timeout: float
) -> None:
    result = ended(monkeypatch, tool_input, Outcome.TIMED_OUT, timeout=timeout, wording=CLAUDE_CODE)
    assert result.decision()["behavior"] == "deny"
    assert "afkTimeoutMs" not in result.answers()


def test_the_answers_ended_is_no_afk_timeout() -> None:
    assert registry.afk_timeout_ms(offered(time.time() * 1000), None, time.time() * 1000) is None
