"""The fallback permission prompt: any tool askcli does not serve itself (Bash, Edit, ...).

Claude Code 2.1.88's FallbackPermissionRequest in plain lines: the tool's name and its whole input,
then numbered choices as in Claude Code (1 yes; 2 yes and don't ask again, when there is a
rule to name; 3 no, and what to do instead) and ``Allow?``. askcli never runs the tool:
allowing gives the permission decision (``updatedInput``) for the host to run it; ``n``
gives the rejection result; ``3`` then words, or ``n: words``, the rejection with the
person's words. Nothing is guessed: any other line is asked again
(:mod:`askcli.questions.allowing`).

A person never approves text they could not see: every key and value is shown whole,
wrapped (never cut), with runs of whitespace, blank lines, tabs, odd spaces and controls
made visible; at a terminal a long request is paged, and the pager can only go on or deny.

What a Claude Code request says itself (title, display name, description, the reason it
asks, the blocked path) is shown escaped, one unindented line each, above the input. Its
requests to be careful are honoured: with ``default_to_no`` no single key approves (Enter
and ``n`` deny, ``1``/``y``/``2``/``a`` are refused with a hint, the words ``yes`` and
``always`` approve, ``3`` still asks what to do instead); with ``suppress_always_allow_rule``
no "don't ask again" is offered. ``requires_user_interaction`` is asked as ``default_to_no``
is; with it or ``matched_ask_rule`` (the person's own ask rule asked for this prompt) only a
person at a terminal approves: from answers that are not typed at a terminal (a pipe, an
``--answers`` file, ``inbox answer``) an approving line is refused with a one-line reason and
the call gets no answer (a denying line still denies). The MCP server behind a tool is named
with it.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
import unicodedata
from typing import Any, NamedTuple

from ..errors import AnswerTimeout, InvalidCall
from ..escaping import escape_controls
from ..questions.allowing import Allow, AskWords, Deny, command_word, parse_allow_line
from ..questions.answers import Help
from ..questions.outcome import Outcome
from ..schema.issues import object_expected
from ..terminal import signals
from ..terminal.conversation import Conversation
from ..terminal.rendering import (
    CONTINUED,
    ROOM_TO_TYPE,
    Style,
    display_width,
    wrap,
    wrap_prompt,
)
from ..wire import results
from ..wire.envelopes import ToolCall
from ..wire.results import ToolResult

PROMPT = "Allow? 1 or 3 (y/n): "
PROMPT_ALWAYS = "Allow? 1-3 (y/n): "
# default_to_no: no key alone approves; Enter declines
PROMPT_CAREFUL = "Allow? Type yes to allow, Enter to deny: "
PROMPT_CAREFUL_ALWAYS = "Allow? Type yes or always, Enter to deny: "
# after 3: what the agent should do instead
WORDS_PROMPT = "Tell the agent what to do instead (Enter: just deny): "
WORDS_PROMPT_SHORT = "Instead (Enter: just deny): "


def prompt(offer: Offer | None, width: int, careful: bool = False) -> str:
    """``Allow? ...``; on a narrow terminal without the words the choices above say."""
    if careful:
        text = PROMPT_CAREFUL_ALWAYS if offer else PROMPT_CAREFUL
    else:
        text = PROMPT_ALWAYS if offer else PROMPT
    if len(text) + ROOM_TO_TYPE > width and "," in text:
        text = text.split(",")[0] + ": "
    return text


def words_prompt(width: int) -> str:
    """The prompt after ``3``, shorter on a narrow terminal."""
    fits = len(WORDS_PROMPT) + ROOM_TO_TYPE <= width
    return WORDS_PROMPT if fits else WORDS_PROMPT_SHORT


def again(offer: Offer | None, careful: bool) -> str:
    """The one-line hint (at most 40 columns) for a line that is no answer here."""
    if careful:
        return AGAIN_CAREFUL_ALWAYS if offer else AGAIN_CAREFUL
    return AGAIN_ALWAYS if offer else AGAIN


MORE = "--more-- ({shown} of {total} lines; Enter for more, n to deny) "
ALLOWED_TEXT = "The user allowed this tool use."
EXACT = "don't ask again for this exact {what} in this session"
SPACE_RUN = 4  # a longer run of spaces inside a line is shown counted
INDENT = 24  # leading spaces kept as indentation up to this many
BLANK_RUN = 2  # a longer run of empty lines inside a value is shown counted
# askcli's own marks; in a value they are shown escaped, so a value cannot forge them
_MARKS = {"\u27e8": "\\u27e8", "\u27e9": "\\u27e9", "\u21aa": "\\u21aa"}
_MARK_RE = re.compile("[\u27e8\u27e9\u21aa]")
# spaces that are not U+0020 (Zs), and blank-looking symbols: shown as escapes
_ODD_SPACES = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800"
_RUN = re.compile(f"( +)|(\t+)|([{_ODD_SPACES}])\\3*")
# what a display line may be broken after, and what it may not be broken inside
_TOKEN = re.compile(r"\u27e8[^\u27e9]*\u27e9|\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|[rn])|.")
WORDS_HELP = (
    ("3", "deny, and tell the agent what to do instead (asked next)"),
    ("n: TEXT", "the same on one line: deny, and tell the agent TEXT"),
    ("?", "this help (any other line is asked again)"),
)
HELP = (
    ("1, y", "allow: the host runs the tool with this input; askcli never runs it"),
    ("2, a", "allow, and {what}"),
    ("n", "deny: the agent is told to stop and wait"),
    *WORDS_HELP,
)
HELP_CAREFUL = (  # default_to_no: only whole words approve
    ("yes", "allow: the host runs the tool with this input; askcli never runs it"),
    ("always", "allow, and {what}"),
    ("Enter, n", "deny: the agent is told to stop and wait"),
    *WORDS_HELP,
)
# the hint for a line that is no answer here: the keys, in at most 40 columns
AGAIN = "! type 1 or 3 (y/n), or n: TEXT"
AGAIN_ALWAYS = "! type 1-3 (y/n), or n: TEXT"
AGAIN_CAREFUL = "! type yes to allow, or Enter to deny"
AGAIN_CAREFUL_ALWAYS = "! type yes or always, or Enter to deny"
NOT_OFFERED = "! 2 is not offered: there is no rule to name for this call"
NO_LASTING_RULE = "! no lasting rule here: Claude Code asks that none be offered for this call"
SCRIPTED = (
    "! Claude Code asks that a person approve this at a terminal: answers that are not typed "
    "there may deny it, not allow it"
)
SCRIPTED_WHY = "a person must approve it at a terminal"
STRAY = (
    "! Claude Code asks that a single key not approve this: type the word yes to allow "
    "(Enter denies)"
)


def parse_any(data: Any) -> dict[str, Any]:
    """A tool askcli does not know takes any JSON object as input."""
    if not isinstance(data, dict):
        issue = object_expected(data)
        raise InvalidCall("tool", [issue])
    return data


def _plain(text: str) -> str:
    """Controls, invisible characters and askcli's marks escaped."""
    return _MARK_RE.sub(lambda m: _MARKS[m.group()], escape_controls(text))


def _count(n: int, one: str, many: str) -> str:
    return f"\u27e8{n} {one if n == 1 else many}\u27e9"


def _run(match: re.Match[str], at_end: bool) -> str:
    spaces, tabs, odd = match.group(1), match.group(2), match.group(3)
    if spaces:
        if at_end or len(spaces) > SPACE_RUN:
            return _count(len(spaces), "space", "spaces")
        return spaces
    if tabs:
        return _count(len(tabs), "tab", "tabs")
    code = f"\\u{ord(odd):04x}"
    n = len(match.group())
    return code if n == 1 else f"\u27e8{n} \u00d7 {code}\u27e9"


def mark_line(line: str, *, indent: bool = True) -> str:
    """One line (no newline in it) with whitespace runs counted and the rest escaped.

    Leading spaces up to :data:`INDENT` stay as indentation when ``indent``; a longer
    run of spaces, spaces at the end, tabs and odd spaces are shown as marks.
    """
    if not line:
        return ""
    if line.isascii() and line.isprintable() and "  " not in line and not line.endswith(" "):
        return line  # the usual case: nothing to mark (and no mark: they are not ASCII)
    body = line.lstrip(" ")
    lead = len(line) - len(body)
    out = []
    if lead and indent and body and lead <= INDENT:
        out.append(" " * lead)
        line = body
    pos = 0
    for match in _RUN.finditer(line):
        out.append(_plain(line[pos : match.start()]))
        out.append(_run(match, match.end() == len(line)))
        pos = match.end()
    out.append(_plain(line[pos:]))
    return "".join(out)


def shown(text: str) -> str:
    """``text`` on one line: newlines as ``\\n``, whitespace runs counted, the rest escaped."""
    if not text:
        return "\u27e8empty string\u27e9"
    return "\\n".join(mark_line(line, indent=False) for line in text.split("\n"))


def value_lines(text: str) -> list[str]:
    """A string value as display lines before wrapping: marked, blank-line runs counted.

    The final newline is not shown; blank lines at the start or the end of the value, and
    runs of more than :data:`BLANK_RUN` inside it, are shown counted.
    """
    if not text:
        return ["\u27e8empty string\u27e9"]
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    out: list[str] = []
    blank = 0
    for line in lines:
        if not line:
            blank += 1
            continue
        if blank:
            edge = len(out) == 0
            out += [""] * blank if blank <= BLANK_RUN and not edge else [_blank(blank)]
            blank = 0
        out.append(mark_line(line))
    if blank:
        out.append(_blank(blank))
    return out


def _blank(n: int) -> str:
    return _count(n, "blank line", "blank lines")


def fold(text: str, width: int, first: str, rest: str) -> list[str]:
    """``text`` (one marked line) wrapped to ``width`` columns, never cut.

    A line that goes on after a wrap begins with :data:`CONTINUED`, so a wrap can never
    be taken for a line break of the value. Lines break at spaces and after marks; a word
    that fits on a line of its own is moved there whole, a longer one fills the line and
    goes on, but never inside a URL's scheme, user name, host and port (when those fit on
    a line). Marks and escapes are never split.
    """
    if text.isascii() and len(first) + len(text) <= width:
        return [first + text]
    return _Folding(text, width, first, rest).lines


class _Folding:
    """The lines of one :func:`fold`, built a word at a time."""

    def __init__(self, text: str, width: int, first: str, rest: str) -> None:
        self.lines: list[str] = []
        self.prefix, self.later = first, rest + CONTINUED
        self.room = max(width - display_width(first), 10)
        self.later_room = max(width - display_width(self.later), 10)
        self.line: list[str] = []
        self.used = 0
        self.tokens = tokens = _TOKEN.findall(text)
        widths: dict[str, int] = {}
        self.sizes = [widths.get(t) or widths.setdefault(t, _columns(t)) for t in tokens]
        self.keep = _kept_whole(text, tokens)
        start = 0
        for at in [n for n, token in enumerate(tokens) if token == " " or token[-1] == "\u27e9"]:
            if tokens[at] == " ":  # a word goes with the space after it
                self._word(start, at + 1)
            else:  # a mark: a place to break on both sides
                self._word(start, at)
                self._word(at, at + 1)
            start = at + 1
        self._word(start, len(tokens))
        self.lines.append(self.prefix + "".join(self.line))

    def _newline(self) -> None:
        self.lines.append(self.prefix + "".join(self.line))
        self.prefix, self.room, self.line, self.used = self.later, self.later_room, [], 0

    def _put(self, start: int, end: int, size: int) -> None:
        self.line += self.tokens[start:end]
        self.used += size

    def _word(self, start: int, end: int) -> None:
        size = sum(self.sizes[start:end])
        if self.used + size <= self.room:
            self._put(start, end, size)
            return
        if self.line and size <= self.later_room:  # it fits on a line of its own: moved whole
            self._newline()
            self._put(start, end, size)
            return
        at = start
        while at < end:  # too wide for any line: it fills this one and goes on
            whole = self._kept(at)
            if whole is not None:  # a URL's head, its scheme and user name, or its host
                kept, size = whole
                if self.used + size > self.room:
                    self._newline()
                self._put(at, kept, size)
                at = kept
                continue
            token, size = self.tokens[at], self.sizes[at]
            if size > self.later_room:  # a mark wider than a whole line (narrow)
                for piece in _pieces(token, self.later_room):
                    if self.line:
                        self._newline()
                    self.line.append(piece)
                    self.used += display_width(piece)
            else:
                if self.used + size > self.room:
                    self._newline()
                self._put(at, at + 1, size)
            at += 1

    def _kept(self, at: int) -> tuple[int, int] | None:
        """The longest run kept whole that starts at token ``at`` and fits on a line: its
        end and its width."""
        for kept in self.keep.get(at, ()):
            size = sum(self.sizes[at:kept])
            if size <= self.later_room:
                return kept, size
        return None


def _columns(token: str) -> int:
    """The most columns ``token`` can take in a line: widths do not add up everywhere (a
    spacing mark takes a column after a letter and none alone; a variation selector can
    widen the character before it), so each of those counts one, and a line of tokens is
    never wider than their sum."""
    width = display_width(token)
    if token.isascii():
        return width
    return width + sum(1 for ch in token if ch == "\ufe0f" or unicodedata.category(ch) == "Mc")


def _kept_whole(text: str, tokens: list[str]) -> dict[int, list[int]]:
    """What a long word is not broken inside: for each URL, the token where its head
    (scheme to port) starts -> the token after it, then (where the head is too wide) the
    token its host starts at (the scheme and a user name kept together, so that a user
    name that reads as a host is not cut either); and the same for its host and port."""
    if "http" not in text.lower():
        return {}
    from ..wire import urls  # its patterns cost 1.7 ms to make: only where a URL may be

    offsets = list(itertools.accumulate(map(len, tokens), initial=0))  # where each starts

    def token_at(offset: int) -> int | None:
        n = bisect.bisect_left(offsets, offset)
        return n if offsets[n] == offset else None

    kept: dict[int, list[int]] = {}
    for begin, host, end in urls.heads(text):
        after = bisect.bisect_left(offsets, end)  # a head ends inside an escape: up to its end
        first, at_host = token_at(begin), token_at(host)
        if at_host is not None:
            kept[at_host] = [after]
        if first is not None and end - begin <= 1000:  # the whole head first where it fits
            kept[first] = [after] + ([at_host] if at_host is not None and at_host > first else [])
    return kept


def _pieces(token: str, room: int) -> list[str]:
    out, piece, used = [], "", 0
    for ch in token:
        w = display_width(ch)
        if piece and used + w > room:
            out.append(piece)
            piece, used = "", 0
        piece, used = piece + ch, used + w
    return [*out, piece] if piece else out


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def input_lines(value: Any, style: Style) -> list[str]:
    """The input as ``key: value`` lines, every key and value whole, wrapped to the width;
    then where each URL in it leads (:func:`url_lines`)."""
    width = style.width
    if not isinstance(value, dict):
        lines = [row for line in value_lines(_json(value)) for row in fold(line, width, "  ", "  ")]
        return lines + url_lines(value, width)
    lines = []
    for key, item in value.items():
        label = f"{shown(str(key))}:"
        rows = value_lines(item if isinstance(item, str) else _json(item))
        if len(rows) == 1:
            lines += fold(f"{label} {rows[0]}", width, "  ", "      ")
            continue
        lines += fold(label, width, "  ", "      ")
        for row in rows:  # each line of the value indented, so code keeps its shape
            lines += fold(row, width, "      ", "      ") if row else [""]
    return (lines or ["  (no input)"]) + url_lines(value, width)


def url_lines(value: Any, width: int) -> list[str]:
    """Under a request's input, for every URL in any of its strings: the host a browser
    would open, and the warnings (:func:`askcli.wire.urls.report`). Unindented, so no line
    of the input can pass for one."""
    from ..wire import urls  # (as in _kept_whole)

    lines = []
    for row in urls.report(urls.strings_in(value), shown):
        if row.startswith("  "):
            lines += fold(row[2:], width, "  ", "  ")
        else:
            lines += fold(row, width, "", "  ")
    return lines


class Offer(NamedTuple):
    """Choice 2: what it allows in plain words, and the suggestions to send back (None:
    only the identical input, remembered by the host)."""

    phrases: list[str]
    permissions: list[Any] | None


def offer_for(call: ToolCall, conv: Conversation) -> Offer | None:
    """Choice 2, if there is a rule to name and the call does not forbid one: the call's
    suggestions, else (``askcli claude``) the identical input."""
    if call.no_lasting_rule:
        return None
    if call.suggestions is not None and call.suggestions != []:
        from .permission_rules import offered  # pydantic: only for calls with suggestions

        found = offered(call.suggestions, shown)
        if found.dropped:
            conv.error(
                f"{found.dropped} permission suggestion(s) could not be read and are not offered"
            )
        if found.too_many:
            conv.error("the permission suggestions are too many to show and are not offered")
        if found.sent:
            return Offer(found.phrases, found.sent)
    if conv.options.permission_always:
        what = "command" if call.name == "Bash" else "input"
        return Offer([EXACT.format(what=what)], None)
    return None


def care_lines(call: ToolCall, data: dict[str, Any], width: int) -> list[str]:
    """What the request itself says (its title, reason, blocked path, ...), one escaped
    line each, unindented so that no line of the input can pass for one."""
    care = call.care
    if care is None:
        return []
    facts: list[tuple[str, str]] = []
    if care.ask_rule is not None:
        facts.append(("Your ask rule", care.ask_rule))
    if care.title is not None:
        facts.append(("Title", care.title))
    if care.display_name is not None and care.display_name != call.name:
        facts.append(("Display name", care.display_name))
    said = [value for value in data.values() if isinstance(value, str)]
    if care.description is not None and not any(care.description in value for value in said):
        facts.append(("Description", care.description))  # unless the input shows it
    if care.reason is not None:
        kind = "" if care.reason_type is None else f" ({shown(care.reason_type)})"
        facts.append((f"Reason{kind}", care.reason))
    if care.blocked_path is not None:
        facts.append(("Blocked path", care.blocked_path))
    lines: list[str] = []
    for label, text in facts:
        lines += fold(f"{label}: {shown(text)}", width, "", "  ")
    return lines


def careful_choices(offer: Offer | None, width: int) -> list[str]:
    """The choices under ``default_to_no``: the words that choose them (3 alone denies)."""
    rest = " " * 10
    lines = wrap("Yes", width, first="  yes     ", rest=rest)
    if offer is not None:
        if len(offer.phrases) == 1:
            lines += fold(f"Yes, and {offer.phrases[0]}", width, "  always  ", rest)
        else:
            lines += fold("Yes, and:", width, "  always  ", rest)
            for phrase in offer.phrases:
                lines += fold(f"- {phrase}", width, rest, rest + "  ")
    lines += wrap("No", width, first="  Enter   ", rest=rest)
    no = "No, and tell the agent what to do instead"
    return lines + wrap(no, width, first="  3       ", rest=rest)


def request_lines(
    call: ToolCall, data: dict[str, Any], offer: Offer | None, style: Style
) -> list[str]:
    """Everything the approval covers, as display lines: the tool, its input, the choices."""
    width = style.width
    server = call.care.mcp_server if call.care is not None else None
    named = shown(call.name) + ("" if server is None else f" (MCP server {shown(server)})")
    title = fold(f"Tool use: {named}", width, "", "  ")
    lines = ["", *(style.strong(row) for row in title), *care_lines(call, data, width)]
    lines += input_lines(data, style)
    if call.default_to_no or call.person_only:
        return lines + careful_choices(offer, width)
    lines += wrap("1. Yes", width, first="  ", rest="     ")
    if offer is not None:
        if len(offer.phrases) == 1:
            lines += fold(f"2. Yes, and {offer.phrases[0]}", width, "  ", "     ")
        else:
            lines += fold("2. Yes, and:", width, "  ", "     ")
            for phrase in offer.phrases:
                lines += fold(f"- {phrase}", width, "     ", "       ")
    lines += wrap("3. No, and tell the agent what to do instead", width, first="  ", rest="     ")
    return lines


def _help(offer: Offer | None, width: int, careful: bool = False) -> str:
    lines = []
    for keys, text in HELP_CAREFUL if careful else HELP:
        if keys.startswith(("2", "always")):
            if offer is None:
                continue
            one = len(offer.phrases) == 1
            text = text.format(what=offer.phrases[0] if one else "make the changes listed in 2")
        lines += fold(f"{keys:<9}{text}", width, "  ", "           ")
    return "\n".join(lines) + "\n"


class _Paged(NamedTuple):
    denied: bool = False
    ended: bool = False


def show_whole(lines: list[str], conv: Conversation) -> _Paged:
    """Show ``lines``, a page at a time when a person reads them at a terminal.

    The pager cannot skip: Enter shows more, ``n`` (or ``q``) denies at once, anything
    else is refused; the input ending is no answer. AnswerTimeout and KeyboardInterrupt
    pass through.
    """
    page = max(conv.style.height - 2, 3)
    if not conv.reader.interactive or len(lines) <= page + 1:
        conv.say("\n".join(lines) + "\n")
        return _Paged()
    start = 0
    while True:
        chunk = lines[start : start + page]
        start += len(chunk)
        conv.say("\n".join(chunk) + "\n")
        if start >= len(lines):
            return _Paged()
        more = wrap_prompt(MORE.format(shown=start, total=len(lines)), conv.style.width)
        while True:
            answer = conv.read_answer(more, command=False)
            if answer is None:
                return _Paged(ended=True)
            word = command_word(answer)
            if not word:
                break
            if word in ("n", "no", "q", "3"):
                return _Paged(denied=True)
            conv.say(conv.style.warn("! press Enter to see the rest before answering") + "\n")


def _not_offered(call: ToolCall) -> str:
    if call.no_lasting_rule:
        return NO_LASTING_RULE
    return NOT_OFFERED


def _hints(word: str, call: ToolCall, offer: Offer | None, careful: bool) -> list[str]:
    """What to say to a line that is no answer here (``word`` as read): asked again."""
    if careful:
        if word in ("1", "y", "2", "a", "always") or word.isdigit():
            lasting = word in ("2", "a", "always") and offer is None
            return [_not_offered(call), STRAY] if lasting else [STRAY]
        return [again(offer, careful)]
    if word in ("2", "a", "always"):
        return [f"{_not_offered(call)}; type 1 or 3"]
    return [again(offer, careful)]


def fallback(call: ToolCall, data: dict[str, Any], conv: Conversation) -> ToolResult:
    """Ask whether the host may run ``call``; the answer is a permission decision."""
    facts: dict[str, Any] = {"tool_name": call.name, "input": data, "allowed": False}

    def denied(text: str, outcome: Outcome = Outcome.DECLINED, **more: Any) -> ToolResult:
        return ToolResult(call.id, text, outcome, is_error=True, data={**facts, **more})

    def allowed(**more: Any) -> ToolResult:
        permissions = more.get("permissions")
        return ToolResult(
            call.id,
            ALLOWED_TEXT,
            Outcome.ANSWERED,
            data={**facts, "allowed": True, **more},
            updated_input=data,
            deferred=True,
            updated_permissions=permissions,
        )

    why = None  # set when a scripted line may not approve: the call gets no answer
    try:
        offer = offer_for(call, conv)
        paged = show_whole(request_lines(call, data, offer, conv.style), conv)
        if paged.denied:
            return denied(results.REJECT_MESSAGE)
        ended = Outcome.ENDED
        careful = call.default_to_no or call.person_only
        while not paged.ended:
            line = conv.read_answer(prompt(offer, conv.style.width, careful))
            if line is None:
                break
            meaning = parse_allow_line(line, careful=careful)
            approves = isinstance(meaning, Allow) and (offer is not None or not meaning.always)
            if approves and call.needs_person and not conv.reader.interactive:
                conv.say(conv.style.warn(SCRIPTED) + "\n")
                why = SCRIPTED_WHY
                break
            if isinstance(meaning, Allow) and not meaning.always:
                return allowed()
            if isinstance(meaning, Allow) and offer is not None:
                if offer.permissions is None:
                    return allowed(always=True)
                return allowed(permissions=offer.permissions)
            if isinstance(meaning, AskWords):
                words = conv.read_answer(words_prompt(conv.style.width), command=False)
                meaning = Deny((words or "").strip() or None)
            if isinstance(meaning, Deny):
                if meaning.words is None:
                    return denied(results.REJECT_MESSAGE)
                words = meaning.words
                return denied(results.REJECT_WITH_WORDS_PREFIX + words, feedback=words)
            if isinstance(meaning, Help):
                conv.say(_help(offer, conv.style.width, careful=careful))
                continue
            for hint in _hints(command_word(line), call, offer, careful):
                conv.say(conv.style.warn(hint) + "\n")
    except AnswerTimeout:
        conv.say("\n")
        ended = Outcome.TIMED_OUT
    except KeyboardInterrupt:
        conv.say("\n")
        return denied(signals.interrupted_text({}), signals.interruption())
    why = why or conv.why(ended)
    conv.error(f"no answer ({why})")
    return denied(results.no_answer_text(why, {}), ended)
