"""The permission prompt for a request that brings its own options (ACP's
``session/request_permission``, :mod:`askcli.wire.dialects.acp_permission`).

As at the fallback prompt (:mod:`askcli.tools.permission`) the person never approves what
they could not see: the tool call is shown whole, escaped and paged, with the host of every
URL in it; then the options in the order sent, each with its kind, and ``Choose 1-N``. A
number picks an option; ``y`` picks the allow-once option and ``n`` the reject-once one,
never an "always" one (:func:`askcli.questions.allowing.parse_option_line`); any other line
is asked again. Nobody choosing (the answers end, ``--timeout``, Ctrl-C) is a cancelled
outcome, never a selected one.
"""

from __future__ import annotations

from ..errors import AnswerTimeout
from ..escaping import visible
from ..questions.allowing import NoOnce, OptionPick, parse_option_line
from ..questions.outcome import Outcome
from ..terminal import signals
from ..terminal.conversation import Conversation
from ..terminal.rendering import Style, wrap
from ..wire.dialects.acp_permission import PermissionRequest, cancelled, picked
from ..wire.envelopes import ToolCall
from ..wire.results import ToolResult
from .permission import fold, input_lines, show_whole, shown

NO_OPTIONS = "the agent's permission request has no options: answered cancelled"


def option_lines(request: PermissionRequest, style: Style) -> list[str]:
    """Everything the choice covers, as display lines: the title, the call whole, the
    options numbered with their kinds."""
    # the title is the agent's: a wrap of it goes on after the mark, never as a line of input
    head = fold(f"The agent asks to run: {shown(request.title)}", style.width, "", "  ")
    lines = ["", *(style.strong(row) for row in head)]
    lines += input_lines(request.details, style)
    for n, option in enumerate(request.options, 1):
        text = f"{n}. {visible(option.name)}  ({visible(option.kind_text)})"
        lines += wrap(text, style.width, first="  ", rest="     ")
    return lines


def option_keys(request: PermissionRequest) -> str:
    """What may be typed: ``1-3, y = 2, n = 3`` (y and n only for once options)."""
    pairs = (("y", request.allow), ("n", request.reject))
    return f"1-{len(request.options)}" + "".join(
        f", {key} = {n + 1}" for key, n in pairs if n is not None
    )


def option_hint(request: PermissionRequest, said: NoOnce | None) -> str:
    """What to tell the person after a line that picks nothing (asked again)."""
    if said is None:
        return f"! type {option_keys(request)}"
    return (
        f"! the agent offers no {said.side}_once option and {said.word} never selects an "
        f'"always" one: type the number of the option you choose (1-{len(request.options)})'
    )


def choose_option(call: ToolCall, request: PermissionRequest, conv: Conversation) -> ToolResult:
    """Ask which of the request's options to select; the result's ``reply`` is ACP's
    response. Ctrl-C gives an interrupted, cancelled result (nothing said: the host says
    what Ctrl-C did)."""
    if not request.options:
        conv.error(NO_OPTIONS)
        return cancelled(call, NO_OPTIONS, Outcome.INVALID)
    reject = request.reject
    try:
        paged = show_whole(option_lines(request, conv.style), conv)
        if paged.denied and reject is not None:
            return picked(call, request, reject)
        while not paged.ended:
            line = conv.read_answer(f"Choose {option_keys(request)}: ")
            if line is None:
                break
            meaning = parse_option_line(line, len(request.options), request.allow, reject)
            if isinstance(meaning, OptionPick):
                return picked(call, request, meaning.at)
            hint = option_hint(request, meaning if isinstance(meaning, NoOnce) else None)
            conv.say(conv.style.warn(hint) + "\n")
    except AnswerTimeout:
        conv.say("\n")
        ended = Outcome.TIMED_OUT
    except KeyboardInterrupt:
        return cancelled(call, signals.interrupted_text({}), signals.interruption())
    else:
        ended = Outcome.ENDED
    why = conv.why(ended)
    conv.error(f"no answer ({why}): the request is answered cancelled")
    return cancelled(call, f"no answer ({why})", ended)
