"""How asking one call ended (askcli.questions.outcome): every outcome's exit status and fate,
from the one table, and the outcome of an exit status for a result that kept only that."""

from __future__ import annotations

import pytest

from askcli.questions.outcome import Outcome
from askcli.status import ExitStatus

# written out here, not read from the table: a changed row fails this test
EXPECTED = {
    Outcome.ANSWERED: (ExitStatus.ANSWERED, "answered"),
    Outcome.FOLLOW_UP: (ExitStatus.ANSWERED, "answered"),
    Outcome.RESPONDED: (ExitStatus.ANSWERED, "answered"),
    Outcome.DECLINED: (ExitStatus.DECLINED, "declined"),
    Outcome.CLARIFIED: (ExitStatus.DECLINED, "declined"),
    Outcome.INTERRUPTED: (ExitStatus.INTERRUPTED, "declined"),
    Outcome.STOPPED: (ExitStatus.INTERRUPTED, "dismissed"),
    Outcome.ENDED: (ExitStatus.NO_ANSWER, "dismissed"),
    Outcome.TIMED_OUT: (ExitStatus.NO_ANSWER, "timed out"),
    Outcome.INVALID: (ExitStatus.INVALID, "invalid"),
}


def test_the_table_is_complete() -> None:
    assert set(EXPECTED) == set(Outcome)
    assert len(Outcome.__members__) == len(list(Outcome))  # no member is another's alias


@pytest.mark.parametrize("outcome", list(Outcome), ids=lambda o: o.name)
def test_every_outcome_s_status_and_fate(outcome: Outcome) -> None:
    assert (outcome.status, outcome.fate) == EXPECTED[outcome]
    assert isinstance(outcome.status, ExitStatus)


def test_the_person_decided_only_when_they_answered_or_declined() -> None:
    decided = {o for o in Outcome if o.decided}
    assert decided == {
        Outcome.ANSWERED,
        Outcome.FOLLOW_UP,
        Outcome.RESPONDED,
        Outcome.DECLINED,
        Outcome.CLARIFIED,
    }


def test_fates_skip_the_questions_left_open_only_when_answered() -> None:
    questions = ["Name?", "City?"]
    assert Outcome.ANSWERED.fates(questions, {"City?": "Paris"}) == {
        "Name?": "skipped",
        "City?": "answered",
    }
    assert Outcome.RESPONDED.fates(questions, {}) == {"Name?": "skipped", "City?": "skipped"}
    for outcome in (Outcome.DECLINED, Outcome.STOPPED, Outcome.TIMED_OUT):
        fate = EXPECTED[outcome][1]
        assert outcome.fates(questions, {"City?": "Paris"}) == {"Name?": fate, "City?": fate}


def test_the_outcome_of_each_status_a_call_gives() -> None:
    assert Outcome.of_status(ExitStatus.ANSWERED) is Outcome.ANSWERED
    assert Outcome.of_status(ExitStatus.DECLINED) is Outcome.DECLINED
    assert Outcome.of_status(ExitStatus.INTERRUPTED) is Outcome.INTERRUPTED
    assert Outcome.of_status(ExitStatus.NO_ANSWER) is Outcome.ENDED
    assert Outcome.of_status(ExitStatus.INVALID) is Outcome.INVALID
    for outcome in Outcome:  # a status read back gives the status it was
        assert Outcome.of_status(outcome.status).status is outcome.status


@pytest.mark.parametrize(
    "status",
    [ExitStatus.OUTPUT_FAILED, ExitStatus.HANGUP, ExitStatus.STDOUT_GONE, ExitStatus.TERMINATED],
)
def test_no_call_ends_with_a_command_s_own_status(status: ExitStatus) -> None:
    with pytest.raises(ValueError, match=f"no call ends with the exit status {int(status)}"):
        Outcome.of_status(status)
