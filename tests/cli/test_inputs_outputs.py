"""Issue 10, inputs and outputs: bounded validation, numeric options, valid JSON out, FIFOs,
one line per report, malformed fixtures, unserved requests, closed streams, BOMs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from askcli import fixtures
from askcli.errors import BadFixture, InvalidCall
from askcli.runners.recordings import play
from askcli.schema.inputs import parse_ask, parse_todos
from askcli.schema.validation import MAX_ISSUES
from askcli.tools.registry import check_call
from askcli.wire.documents import MAX_DOCUMENT_BYTES
from askcli.wire.envelopes import Output, _arguments, json_document, json_line

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES, ROOT
from tests.support.processes import askcli_path, run_askcli

LIBRARY = EXAMPLES / "library.json"
GOOD_TODO = {"content": "a", "status": "pending", "activeForm": "doing a"}
OPTION = {"label": "a", "description": ""}
ONE_QUESTION = {"question": "q?", "header": "h", "options": [OPTION, {**OPTION, "label": "b"}]}


def strict_json(line: str) -> Any:
    """``json.loads`` that refuses ``NaN``/``Infinity`` (not RFC 8259)."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} in output")

    return json.loads(line, parse_constant=refuse)


# --- item 7: a large invalid call is validated in bounded time and memory ---------------

LARGE: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "todos of {}": (parse_todos, {"todos": [{}] * 340_000}),
    "todos of numbers": (parse_todos, {"todos": [1] * 500_000}),
    "todos of lists": (parse_todos, {"todos": [[]] * 340_000}),
    "todos of nulls": (parse_todos, {"todos": [None] * 200_000}),
    "todos of bad status": (parse_todos, {"todos": [{**GOOD_TODO, "status": "x"}] * 20_000}),
    "todos valid but the last": (parse_todos, {"todos": [GOOD_TODO] * 20_000 + [{}]}),
    "options": (parse_ask, {"questions": [{**ONE_QUESTION, "options": [{}] * 300_000}]}),
    "questions": (parse_ask, {"questions": [{}] * 300_000}),
    "questions of options": (
        parse_ask,
        {"questions": [{**ONE_QUESTION, "options": [{}] * 1000} for _ in range(300)]},
    ),
    "unknown keys": (
        parse_ask,
        {"questions": [ONE_QUESTION], **{f"k{i}": 0 for i in range(60_000)}},
    ),
    "answers": (
        parse_ask,
        {"questions": [ONE_QUESTION], "answers": {f"k{i}": 0 for i in range(60_000)}},
    ),
    "annotations": (
        parse_ask,
        {
            "questions": [ONE_QUESTION],
            "annotations": {f"k{i}": {"notes": 1} for i in range(40_000)},
        },
    ),
    "deep within the limit": (
        parse_ask,
        {"questions": [{"options": [[[[[[[[[[{}]]]]]]]]]]}] * 9000},
    ),
}


@pytest.mark.parametrize("name", LARGE)
def test_a_large_invalid_call_is_refused_quickly_in_bounded_memory(name: str) -> None:
    parse, data = LARGE[name]
    assert len(json.dumps(data)) <= 1.6 * MAX_DOCUMENT_BYTES  # about the size limit
    parse({"todos": [GOOD_TODO]} if parse is parse_todos else {"questions": [ONE_QUESTION]})
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(InvalidCall) as caught:
            parse(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 5
    assert peak < 100 * 1024 * 1024
    assert 1 <= len(caught.value.issues) <= MAX_ISSUES + 1


def test_a_bounded_report_lists_the_first_issues_and_says_what_was_left() -> None:
    with pytest.raises(InvalidCall) as caught:
        parse_todos({"todos": [{}] * 340_000})
    issues = caught.value.issues
    assert len(issues) == MAX_ISSUES + 1
    assert issues[0]["path"] == ["todos", 0, "content"]
    assert "more issue(s) not listed" in issues[-1]["message"]


def test_an_issue_past_the_first_window_has_its_own_index() -> None:
    with pytest.raises(InvalidCall) as caught:
        parse_todos({"todos": [GOOD_TODO] * 20_000 + [{**GOOD_TODO, "status": "done"}]})
    first = caught.value.issues[0]
    assert first["path"] == ["todos", 20_000, "status"] and first["received"] == "done"


def test_a_small_invalid_call_keeps_its_full_report() -> None:
    with pytest.raises(InvalidCall) as caught:
        parse_todos({"todos": [{}] * 3})
    assert len(caught.value.issues) == 9  # three fields of three items, nothing cut


def test_a_large_valid_call_is_still_valid() -> None:
    assert len(parse_todos({"todos": [GOOD_TODO] * 20_000}).todos) == 20_000


def test_openai_arguments_with_many_items_are_bounded() -> None:
    arguments = json.dumps({"todos": [{}] * 250_000})
    started = time.monotonic()
    parsed = _arguments("call_1", "TodoWrite", arguments, "tool call")
    with pytest.raises(InvalidCall) as caught:
        check_call(parsed)
    assert time.monotonic() - started < 5
    assert len(caught.value.issues) <= MAX_ISSUES + 1


# --- item 8: numeric options -----------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e10", "-0", "1e309", "0", "604801", "1_e3"]
)
def test_an_out_of_range_timeout_is_one_usage_error_line(value: str) -> None:
    proc = run_askcli("ask", "--timeout", value, str(LIBRARY), input="1\n")
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "--timeout" in lines[0], proc.stderr


def test_a_timeout_of_a_week_is_accepted() -> None:
    proc = run_askcli("ask", "--timeout", "604800", str(LIBRARY), input="1\n")
    assert proc.returncode == 0


@pytest.mark.parametrize("value", ["1001", "10000000000000000000000", "19", "-5", "wide"])
def test_an_out_of_range_columns_is_one_usage_error_line(value: str, tmp_path: Path) -> None:
    out = tmp_path / "f.json"
    proc = run_askcli("record", "--columns", value, "-o", str(out), str(LIBRARY), input="1\n")
    assert proc.returncode == 2 and not out.exists()
    assert len(proc.stderr.splitlines()) == 1 and "--columns" in proc.stderr


def test_a_usage_error_quoting_controls_is_escaped() -> None:
    proc = run_askcli("ask", "--timeout", "\x1b]0;t\x07\nforged", str(LIBRARY))
    assert proc.returncode == 2
    assert "\x1b" not in proc.stderr and len(proc.stderr.splitlines()) == 1


# --- item 12: every JSON byte written is valid JSON -------------------------------------

all_text = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | all_text
    | st.sampled_from(["\U000e0041", "\ud800", "\udfff", "\U0010ffff", "\u2028", "\x7f"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(all_text, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_json_line_and_document_are_strict_json_in_utf8(value: Any) -> None:
    for text in (json_line(value), json_document(value)):
        text.encode("utf-8")  # no raw surrogate: stdout is valid UTF-8
        parsed = strict_json(text)
        assert json_line(parsed) == json_line(strict_json(json_line(parsed)))
    assert "\n" not in json_line(value)


def test_characters_beyond_the_bmp_are_escaped_as_surrogate_pairs() -> None:
    line = json_line({"tag": "\U000e0041", "lone": "\ud800"})
    assert line == '{"tag":"\\udb40\\udc41","lone":"\\ud800"}'
    assert strict_json(line) == {"tag": "\U000e0041", "lone": "\ud800"}


def test_a_non_finite_float_is_never_written_as_infinity() -> None:
    with pytest.raises(ValueError):
        json_line({"x": float("inf")})


HOSTILE = question("Tag\U000e0041 \\ud800 \U0001f600?", "H\u2028", ("A\x1b[2J", "B\udfff"))
ENVELOPES: dict[str, str] = {
    "tool_use": json.dumps(call(HOSTILE, id="toolu_\U000e0041")),
    "bare": json.dumps({"questions": [HOSTILE]}),
    "control": json.dumps(
        {
            "type": "control_request",
            "request_id": "r\U000e0041",
            "request": {
                "subtype": "can_use_tool",
                "tool_name": "AskUserQuestion",
                "input": {"questions": [HOSTILE]},
                "tool_use_id": "t",
            },
        }
    ),
    "openai": json.dumps(
        {
            "id": "c",
            "type": "function",
            "function": {
                "name": "AskUserQuestion",
                "arguments": json.dumps({"questions": [HOSTILE]}),
            },
        }
    ),
    "overflow": '{"questions":[{"question":"q?","header":"h","options":'
    '[{"label":"a","description":"","n":1e400},{"label":"b","description":"","n":-1e400}]}]}',
    "tool_use with overflow": '{"type":"tool_use","id":"x","name":"Bash","input":{"n":1E999}}',
}


@pytest.mark.parametrize("output", [o.value for o in Output])
@pytest.mark.parametrize("name", ENVELOPES)
def test_stdout_is_strict_json_in_utf8_in_every_mode(name: str, output: str) -> None:
    proc = subprocess.run(
        [str(askcli_path()), "ask", "--output", output],
        input=(ENVELOPES[name] + "\n1\n").encode(),
        capture_output=True,
        timeout=20,
        env={**os.environ, "NO_COLOR": "1"},
    )
    out = proc.stdout.decode("utf-8", "strict")  # valid UTF-8
    assert b"Traceback" not in proc.stderr
    lines = out.splitlines()
    assert len(lines) >= 1
    if output != "text":
        for line in lines:
            strict_json(line)
    if "overflow" in name:
        assert proc.returncode == 2 and "too large" in out


# --- item 16: a FIFO with no writer ------------------------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "answers.fifo"
    os.mkfifo(path)
    return path


def test_answers_from_a_fifo_without_a_writer_end_at_the_timeout(fifo: Path) -> None:
    started = time.monotonic()
    proc = run_askcli("ask", "--timeout", "1", "--answers", str(fifo), str(LIBRARY), timeout=10)
    assert time.monotonic() - started < 5
    assert proc.returncode == 3
    assert "no reply within 1 second" in json.loads(proc.stdout)["content"]


@pytest.mark.parametrize("where", ["answers", "source"])
def test_a_fifo_without_a_writer_waits_and_sigterm_gives_143(fifo: Path, where: str) -> None:
    args = ["--answers", str(fifo), str(LIBRARY)] if where == "answers" else [str(fifo)]
    proc = subprocess.Popen(
        [str(askcli_path()), "ask", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"},
    )
    time.sleep(1.0)
    assert proc.poll() is None  # waiting for a writer, not ended
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=5)
    assert proc.returncode == 143, err
    assert b"Traceback" not in err
    if where == "answers":
        assert json.loads(out)["is_error"] is True


def test_a_fifo_writer_that_comes_later_is_read(fifo: Path) -> None:
    proc = subprocess.Popen(
        [str(askcli_path()), "ask", "--answers", str(fifo), str(LIBRARY)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(0.5)
    fifo.write_text("2\n")
    out, _ = proc.communicate(timeout=5)
    assert proc.returncode == 0 and '="dayjs"' in json.loads(out)["content"]


# --- item 18: one line per report ---------------------------------------------------------

FORGERIES = ["a\nok      forged", "a\rforged", "a\x1b[2Kforged", "a\u2028forged", "a\u0085forged"]


@pytest.mark.parametrize("text", FORGERIES)
def test_check_prints_one_line_per_call_whatever_the_id_and_name(text: str) -> None:
    docs = [
        call(question(), id=f"toolu_{text}"),
        {"type": "tool_use", "id": f"x{text}", "name": f"Tool{text}", "input": {}},
        {"type": "tool_use", "id": "y", "name": "AskUserQuestion", "input": {text: 1}},
    ]
    proc = run_askcli("check", input="".join(json.dumps(d) + "\n" for d in docs))
    lines = proc.stdout.splitlines()
    assert len(lines) == 4, proc.stdout  # three calls and the summary
    assert all(not line.startswith("ok      forged") for line in lines)
    assert "\x1b" not in proc.stdout and "\r" not in proc.stdout and "\u2028" not in proc.stdout


@pytest.mark.parametrize("text", ["a\nok      forged", "a\x1b[2K", "a\u2028b"])
def test_replay_prints_one_line_per_fixture_whatever_its_name(text: str, tmp_path: Path) -> None:
    good = fixtures.make(calls=[call(question())], answers=["1"])
    (tmp_path / f"{text}.json").write_text(fixtures.dumps(good))
    (tmp_path / f"bad{text}.json").write_text("{")
    proc = run_askcli("replay", str(tmp_path))
    assert proc.returncode == 2
    lines = proc.stdout.splitlines()
    assert len(lines) == 2, proc.stdout
    assert sum(line.startswith("ok      ") for line in lines) == 1
    assert "\x1b" not in proc.stdout and "\u2028" not in proc.stdout


# --- item 19: malformed fixtures ---------------------------------------------------------

BASE = fixtures.make(calls=[call(question())], answers=["1"])
CLAUDE = json.loads((ROOT / "fixtures" / "claude-code-session.json").read_text())
MALFORMED: dict[str, Any] = {
    "stdout is a number": {**BASE, "stdout": 5},
    "columns is a word": {**BASE, "columns": "wide"},
    "columns is huge": {**BASE, "columns": 10**30},
    "columns is a bool": {**BASE, "columns": True},
    "status is missing": {k: v for k, v in BASE.items() if k != "status"},
    "calls is missing": {k: v for k, v in BASE.items() if k != "calls"},
    "answers are numbers": {**BASE, "answers": [1, 2]},
    "calls are numbers": {**BASE, "calls": [5]},
    "stderr is a list": {**BASE, "stderr": []},
    "output is unknown": {**BASE, "output": "yaml"},
    "session is a number": {**BASE, "session": 3},
    "format is wrong": {**BASE, "format": "askcli-fixture/2"},
    "unknown key": {**BASE, "extra": 1},
    "not an object": [BASE],
    "claude received is a number": {**CLAUDE, "claude": {**CLAUDE["claude"], "received": 5}},
    "claude received holds numbers": {
        **CLAUDE,
        "claude": {**CLAUDE["claude"], "received": [1, [2]]},
    },
    "claude is a string": {**CLAUDE, "claude": "x"},
    "claude sent is missing": {
        **CLAUDE,
        "claude": {k: v for k, v in CLAUDE["claude"].items() if k != "sent"},
    },
}
RAW_MALFORMED = {
    "deep nesting": '{"format":"askcli-fixture/1","calls":' + "[" * 100_000 + "]" * 100_000 + "}",
    "moderately deep": '{"format":"askcli-fixture/1","calls":[' + "[" * 500 + "]" * 500 + "]}",
    "overflowing number": json.dumps(BASE).replace('"status": 0', '"status": 1e400'),
    "NaN": json.dumps(BASE).replace('"status": 0', '"status": NaN'),
    "not utf-8": b"\xff\xfe{}",
    "cut short": json.dumps(BASE)[:50],
    "empty": "",
}


def _write(path: Path, content: Any) -> None:
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content)
    else:
        path.write_text(json.dumps(content))


def test_replay_reports_each_malformed_fixture_in_one_line_and_goes_on(tmp_path: Path) -> None:
    cases = {**MALFORMED, **RAW_MALFORMED}
    for i, content in enumerate(cases.values()):
        _write(tmp_path / f"{i:02d}.json", content)
    _write(tmp_path / "99-good.json", BASE)
    os.mkfifo(tmp_path / "50-fifo.json")
    (tmp_path / "51-bom.json").write_text("\ufeff" + json.dumps(BASE))
    proc = run_askcli("replay", str(tmp_path), timeout=60)
    assert proc.returncode == 2, proc.stdout
    lines = proc.stdout.splitlines()
    errors = [line for line in lines if line.startswith("error   ")]
    assert len(errors) == len(cases) + 1, proc.stdout  # the FIFO too; the BOM is read
    assert sorted(line for line in lines if line.startswith("ok ")) == [
        f"ok      {tmp_path / '51-bom.json'}",
        f"ok      {tmp_path / '99-good.json'}",
    ]
    assert len(lines) == len(cases) + 3


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_fixture_is_a_bad_fixture_in_process(name: str, tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    _write(path, MALFORMED[name])
    with pytest.raises(BadFixture):
        fixtures.replay(fixtures.load(path))


REAL = sorted((ROOT / "fixtures").glob("*.json"))


def _mutate(value: Any, data: st.DataObject, depth: int = 0) -> Any:
    if isinstance(value, dict) and value and (depth > 4 or data.draw(st.booleans())):
        key = data.draw(st.sampled_from(sorted(value)))
        how = data.draw(st.sampled_from(["drop", "retype", "deeper"]))
        out = dict(value)
        if how == "drop":
            del out[key]
        elif how == "retype":
            choices: list[Any] = [None, 5, "wide", True, [], {}, [[[[1]]]], -1, 10**20, 1.5]
            out[key] = data.draw(st.sampled_from(choices))
        else:
            out[key] = _mutate(out[key], data, depth + 1)
        return out
    if isinstance(value, list) and value:
        i = data.draw(st.integers(0, len(value) - 1))
        how = data.draw(st.sampled_from(["mutate", "retype", "drop"]))
        if how == "drop":
            return value[:i] + value[i + 1 :]
        item = (
            _mutate(value[i], data, depth + 1)
            if how == "mutate"
            else data.draw(st.sampled_from([None, 5, "x", {}, [], {"type": 5}]))
        )
        return [*value[:i], item, *value[i + 1 :]]
    return data.draw(st.sampled_from([None, 5, "x\n\x1b", {}, [], value]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(REAL), st.data())
def test_mutated_real_fixtures_never_raise_anything_but_bad_fixture(
    path: Path, data: st.DataObject
) -> None:
    mutated = _mutate(json.loads(path.read_text()), data)
    target = Path(os.environ.get("TMPDIR", "/tmp")) / f"askcli-fuzz-{os.getpid()}.json"
    target.write_text(json.dumps(mutated))
    try:
        fixtures.replay(fixtures.load(target))
    except BadFixture as exc:
        assert str(exc)
    finally:
        target.unlink()


# --- item 24: an unserved control request gets one line in every mode --------------------


@pytest.mark.parametrize("output", list(Output))
@pytest.mark.parametrize("subtype", ["interrupt", "hook_callback", None, 5])
def test_every_control_request_gets_one_line(output: Output, subtype: Any) -> None:
    request = {"type": "control_request", "request_id": "r1", "request": {"subtype": subtype}}
    outcome = play(calls=[request, call(question())], answers=["1"], output=output)
    assert len(outcome.stdout) == 2, outcome.stdout
    first = outcome.stdout[0]
    if output is Output.TEXT:
        assert "not served" in first
    elif output is Output.RESULT:
        assert json.loads(first)["response"]["subtype"] == "error"
    else:
        assert "not served" in json.loads(first)["error"]


# --- item 25: closed or full standard streams ----------------------------------------------


def _sh(script: str, input: bytes = b"1\n") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["sh", "-c", script, "sh", str(askcli_path()), str(LIBRARY)],
        input=input,
        capture_output=True,
        timeout=20,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_a_closed_stdout_exits_141_with_a_message_and_asks_nothing() -> None:
    proc = _sh('"$1" ask "$2" >&-')
    assert proc.returncode == 141
    assert b"Traceback" not in proc.stderr and b"stdout is closed" in proc.stderr
    assert b"Choose" not in proc.stderr


@pytest.mark.parametrize("command", ['ask "$2"', 'check "$2"', "schema", 'replay "$2"'])
def test_a_full_stdout_exits_74_with_one_line(command: str) -> None:
    if command.startswith("replay"):
        command = f"replay {ROOT / 'fixtures' / 'decline.json'}"
    proc = _sh(f'"$1" {command} >/dev/full')
    assert proc.returncode == 74, proc.stderr
    assert proc.stderr.decode().splitlines()[-1].startswith("askcli: cannot write the result")
    assert b"Traceback" not in proc.stderr


def test_a_closed_stderr_still_gives_the_result() -> None:
    proc = _sh('"$1" ask "$2" 2>&-')
    assert proc.returncode == 0
    assert '="date-fns' in json.loads(proc.stdout)["content"]


def test_a_closed_stdin_reads_as_empty_and_never_as_the_call_file() -> None:
    proc = _sh('"$1" ask "$2" <&-')
    assert proc.returncode == 3, proc.stderr
    assert json.loads(proc.stdout)["content"].startswith("No answer from the user")
    assert b"stdin is closed" in proc.stderr


@pytest.mark.parametrize("command", ['replay "$3"', 'check "$2"', "schema"])
def test_a_reader_that_goes_away_ends_quietly_with_141(command: str) -> None:
    many = ROOT / "fixtures"
    proc = subprocess.run(
        [
            *("bash", "-c", f'"$1" {command} | head -c1 >/dev/null; exit "${{PIPESTATUS[0]}}"'),
            *("sh", str(askcli_path()), str(LIBRARY), str(many)),
        ],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode in (0, 141), proc.stderr  # 0 when it wrote all before head left
    assert b"Traceback" not in proc.stderr and b"Broken pipe" not in proc.stderr


def test_replay_into_head_exits_141() -> None:
    proc = subprocess.run(
        [
            *(
                "bash",
                "-c",
                '"$1" replay "$2" "$2" "$2" | head -1 >/dev/null; exit "${PIPESTATUS[0]}"',
            ),
            *("sh", str(askcli_path()), str(ROOT / "fixtures")),
        ],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 141 and proc.stderr == b""


# --- item 26: a byte-order mark -------------------------------------------------------------


def test_a_bom_at_the_start_of_a_call_file_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "call.json"
    path.write_bytes(b"\xef\xbb\xbf" + LIBRARY.read_bytes())
    proc = run_askcli("ask", str(path), input="2\n")
    assert proc.returncode == 0 and '="dayjs"' in json.loads(proc.stdout)["content"]


def test_a_bom_on_stdin_and_at_the_start_of_a_later_line_is_skipped() -> None:
    one = json.dumps(call(question(), id="toolu_1"))
    two = json.dumps(call(question(), id="toolu_2"))
    proc = run_askcli("ask", input=f"\ufeff{one}\n1\n\ufeff{two}\n2\n")
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["tool_use_id"] for line in proc.stdout.splitlines()] == [
        "toolu_1",
        "toolu_2",
    ]


def test_a_bom_in_openai_arguments_and_the_python_api_is_skipped() -> None:
    arguments = "\ufeff" + json.dumps({"questions": [ONE_QUESTION]})
    parsed = _arguments("c", "AskUserQuestion", arguments, "tool call")
    assert parsed.problem is None and isinstance(check_call(parsed)[1].questions, tuple)
    from askcli.wire.documents import parse_object

    assert parse_object("\ufeff" + json.dumps({"questions": [ONE_QUESTION]})).value is not None
