"""Splitting a source into JSON documents without reading ahead."""

from __future__ import annotations

import io
import json

import pytest

from askcli.lines import TextLineReader
from askcli.wire.documents import parse_object, read_documents


def reader(text: str) -> TextLineReader:
    return TextLineReader(io.StringIO(text))


def test_one_document_per_line_and_answer_lines_stay_unread() -> None:
    r = reader('{"a": 1}\n2\n{"b": "}"}\n')
    docs = read_documents(r)
    assert next(docs).value == {"a": 1}
    assert r.readline() == "2"  # the answer line is still there for the REPL
    assert next(docs).value == {"b": "}"}
    assert next(docs, None) is None


def test_pretty_printed_documents_span_lines() -> None:
    r = reader('{\n  "a": {\n    "b": "{ not a brace"\n  }\n}\n{"c": "\\"}"}\n')
    assert [d.value for d in read_documents(r)] == [{"a": {"b": "{ not a brace"}}, {"c": '"}'}]


def test_concatenated_documents_on_one_line() -> None:
    r = reader('{"a": 1}{"b": 2} \n')
    assert [d.value for d in read_documents(r)] == [{"a": 1}, {"b": 2}]


def test_text_before_the_first_document_is_an_error() -> None:
    docs = list(read_documents(reader('hello\n{"a": 1}\n')))
    assert docs[0].value is None and "not a JSON object" in (docs[0].error or "")
    assert docs[1].value == {"a": 1}


def test_leftover_lines_between_documents_are_skipped_with_one_notice() -> None:
    notices: list[str] = []
    docs = list(read_documents(reader('{"a": 1}\n1\n2\n\n{"b": 2}\n3\n'), notices.append))
    assert [d.value for d in docs] == [{"a": 1}, {"b": 2}]
    assert notices == ["skipping lines that do not begin a JSON call"] * 2


def test_malformed_json_is_an_error_and_the_stream_goes_on() -> None:
    docs = list(read_documents(reader('{"a": }\n{"b": 2}\n')))
    assert docs[0].value is None and "not valid JSON" in (docs[0].error or "")
    assert docs[1].value == {"b": 2}


def test_the_input_ending_inside_a_document() -> None:
    (doc,) = read_documents(reader('{"a": [\n1,\n'))
    assert doc.error == "the input ended inside a JSON document"


def test_non_objects_nan_bad_utf8_and_deep_nesting_are_errors() -> None:
    assert parse_object("[1]").error == "the input is not a JSON object"
    assert "not valid JSON" in (parse_object('{"a": NaN}').error or "")
    assert parse_object('{"a": "\udcff"}').error == "the input is not valid UTF-8"
    deep = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert parse_object(deep).error == "the input nests deeper than 64 levels, the limit"


def test_crlf_line_endings() -> None:
    r = reader('{"a": 1}\r\n2\r\n')
    assert next(read_documents(r)).value == {"a": 1}
    assert r.readline() == "2"


def test_a_piece_cut_after_a_backslash_inside_a_string() -> None:
    text = '{"a": "' + "x" * 65528 + '\\"still inside", "b": 1}\n{"c": 2}\n'
    docs = list(read_documents(reader(text)))
    assert [d.value for d in docs] == [{"a": "x" * 65528 + '"still inside', "b": 1}, {"c": 2}]


@pytest.mark.parametrize(
    ("after", "next_line"),
    [("\n3\n", "3"), ("  \r\n3\n", "3"), (" 2\n3\n", " 2"), ("\n\n3\n", "")],
)
def test_after_a_document_over_several_lines_the_next_line_is_the_one_that_follows(
    after: str, next_line: str
) -> None:
    text = json.dumps({"questions": [{"question": "q", "x": "y" * 70_000}]}, indent=2)
    reader = TextLineReader(io.StringIO(text + after))
    documents = read_documents(reader)
    first = next(documents)
    assert first.value is not None
    assert reader.readline() == next_line
