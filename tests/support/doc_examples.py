"""The shell examples of README.md and docs/*.md, read off the pages and run as written.

A fenced block is an example when the line before its fence is a marker:

- ``<!-- runnable -->``: the block is run, and what it printed must be what the page shows;
- ``<!-- not runnable: REASON -->``: the block is left alone, for the reason given (it needs
  a real agent, another terminal, a server, a person's machine).

Every ``sh`` block and every transcript (a block whose first line begins with ``$ ``) that
runs ``askcli`` must carry one of the two, so that a new example is either checked or says
why it is not.

Two forms are run:

- a **script** (````` ```sh `````): lines are commands (a line ending in ``\\`` goes on on
  the next), and the ``# ``-lines right after a command are what it prints, stdout and
  stderr together as a terminal shows them. The block runs in one ``bash``, in order, so a
  later ``echo $?`` shows the status of the command before it;
- a **transcript** (``$ command`` followed by what the terminal shows): run in a pty, and
  where the page shows a prompt followed by what the person typed (``Choose 1-4 [1]: 2``),
  that is typed once askcli's prompt is on screen.

In what a page shows, ``…`` stands for any text within a line and a line ``...`` for any
lines (none included). Trailing blanks are ignored. Each example runs in a folder of its own
holding copies of ``examples/``, ``fixtures/`` and ``tests/corpus/``, with a HOME and state
folders of its own, ``askcli`` of the running interpreter first on PATH, colour off and
nothing on stdin.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COPIED = ("examples", "fixtures", "tests/corpus")  # what an example may read, by these paths
RUNNABLE = "<!-- runnable -->"
NOT_RUNNABLE = re.compile(r"<!-- not runnable: \S.*-->")
_FENCE = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
_MARK = "@@askcli-doc-example@@"
_COLUMNS = 80
QUIET = 0.4  # seconds without output after which a shown prompt is taken to wait for typing


@dataclass
class Step:
    """One command and what the page shows it printing (None: the page shows nothing)."""

    command: str
    shown: list[str] = field(default_factory=list)


@dataclass
class Example:
    page: Path
    line: int  # of the fence
    kind: str  # "script" or "transcript"
    marker: str  # the line before the fence ("" for none)
    body: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def runnable(self) -> bool:
        return self.marker == RUNNABLE

    @property
    def steps(self) -> list[Step]:
        return _steps(self.body, transcript=self.kind == "transcript")


def examples(pages: list[Path] = PAGES) -> Iterator[Example]:
    """Every ``sh`` block and every transcript on ``pages``."""
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            body = match["body"]
            transcript = body.lstrip("\n").startswith("$ ")
            if match["lang"] != "sh" and not (match["lang"] == "" and transcript):
                continue
            before = text[: match.start()].rstrip("\n").rpartition("\n")[2].strip()
            yield Example(
                page=page,
                line=text.count("\n", 0, match.start()) + 1,
                kind="transcript" if transcript else "script",
                marker=before if before.startswith("<!--") else "",
                body=body,
            )


def _steps(body: str, *, transcript: bool) -> list[Step]:
    steps: list[Step] = []
    lines = body.splitlines()
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        command = line[2:] if transcript and line.startswith("$ ") else None
        if not transcript and line.strip() and not line.startswith("#"):
            command = line
        if command is not None:
            while command.endswith("\\") and at < len(lines):
                command += "\n" + lines[at]
                at += 1
            steps.append(Step(command))
        elif steps and transcript:
            steps[-1].shown.append(line)
        elif steps and line.startswith("#"):
            steps[-1].shown.append(line[2:] if line.startswith("# ") else line[1:])
    for step in steps:  # a blank line closing a block shows nothing
        while step.shown and not step.shown[-1].strip():
            step.shown.pop()
    return steps


def pattern(shown: list[str]) -> re.Pattern[str]:
    """What a page shows, as a pattern for the whole output: ``…`` any text in a line, a
    line ``...`` any lines."""
    parts = []
    for line in shown:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*".join(re.escape(piece) for piece in line.rstrip().split("…")) + "\n")
    return re.compile("".join(parts))


def normalise(output: str) -> str:
    """Output as compared: line ends as ``\\n``, trailing blanks and blank last lines gone."""
    lines = [line.rstrip() for line in output.replace("\r\n", "\n").replace("\r", "").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(line + "\n" for line in lines)


def matches(shown: list[str], output: str) -> bool:
    return pattern(shown).fullmatch(normalise(output)) is not None


def folder(base: Path) -> dict[str, str]:
    """``base`` made ready for an example: the copies it may read, a HOME and state folders
    of its own; the environment to run it in."""
    for name in COPIED:
        shutil.copytree(ROOT / name, base / name, dirs_exist_ok=True)
    home = base / ".home"
    home.mkdir()
    bin_dir = Path(sys.executable).parent  # the installed askcli the suite runs
    keep = ("LANG", "LC_ALL", "PGPASSFILE")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        HOME=str(home),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CONFIG_HOME=str(home / ".config"),
        NO_COLOR="1",
        ASKCLI_NOTIFY="none",
        COLUMNS=str(_COLUMNS),
        TERM="dumb",
    )
    env.setdefault("LANG", "C.UTF-8")
    return env


def run_script(steps: list[Step], cwd: Path, env: dict[str, str]) -> list[tuple[str, int]]:
    """Each step's output (stdout and stderr in one stream) and exit status, the steps run
    in order in one bash."""
    # a mark before each command says the status of the one before it and keeps it for
    # an `echo $?`; the last comes from the trap, even after an `exit`
    script = [f"mark() {{ printf '\\n%s %s\\n' {_MARK} \"$1\"; }}\ntrap 'mark $?' EXIT\n"]
    script += [f"__s=$?; mark $__s; (exit $__s)\n{step.command}\n" for step in steps]
    done = subprocess.run(
        ["bash", "-c", "".join(script)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=60,
        check=False,
    )
    pieces = re.split(f"\n{_MARK} (\\d+)\n", "\n" + done.stdout.decode("utf-8", "replace"))
    # pieces: before the first mark, then (status, output) pairs; a step's status is the
    # one the next mark says
    outputs = pieces[2::2]
    statuses = [int(status) for status in pieces[3::2]]
    return list(zip(outputs, statuses, strict=False))  # a block cut short has fewer


def run_transcript(step: Step, cwd: Path, env: dict[str, str], timeout: float = 20) -> str:
    """What a terminal showed while ``step`` ran in a pty, the person typing what the page
    shows them typing after each prompt."""
    import pexpect

    child = pexpect.spawn(
        "bash",
        ["-c", step.command],
        cwd=str(cwd),
        env=env,
        dimensions=(24, _COLUMNS),
        encoding="utf-8",
        codec_errors="replace",
    )
    shown = [line.rstrip() for line in step.shown]
    used = 0  # the shown lines before this one are behind us
    output = ""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                output += child.read_nonblocking(65536, timeout=QUIET)
                continue
            except pexpect.EOF:
                break
            except pexpect.TIMEOUT:
                pass
            prompt = output.replace("\r", "").rpartition("\n")[2]
            if not prompt.strip():
                continue
            for index in range(used, len(shown)):
                line = shown[index]
                if line.startswith(prompt.rstrip()) and len(line) >= len(prompt.rstrip()):
                    typed = line[len(prompt) :] if line.startswith(prompt) else ""
                    child.send(typed + "\r")
                    used = index + 1
                    output += _echo_settled(child)
                    break
        else:
            output += f"\n[the example did not end within {timeout} s]\n"
    finally:
        child.close(force=True)
    return output


def _echo_settled(child: object) -> str:
    """What the terminal echoed of a typed line, read before the next prompt is looked for."""
    import pexpect

    assert isinstance(child, pexpect.spawn)
    try:
        text: str = child.read_nonblocking(65536, timeout=QUIET)
    except (pexpect.TIMEOUT, pexpect.EOF):
        return ""
    return text


def askcli_commands(example: Example) -> Iterator[list[str]]:
    """The arguments of every ``askcli`` command in ``example``, up to the end of its
    command (a pipe, a redirection, ``;``, ``&&``) and without its comment."""
    import shlex

    for step in example.steps:
        lexer = shlex.shlex(step.command.replace("\\\n", " "), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words = list(lexer)
        for at, word in enumerate(words):
            if word != "askcli" or (at and words[at - 1] not in ("|", ";", "&&", "||", "(")):
                continue
            args: list[str] = []
            rest = words[at + 1 :]
            for index, arg in enumerate(rest):
                after = rest[index + 1] if index + 1 < len(rest) else ""
                if arg in ("|", ";", "&&", "||", ")") or arg[0] in "<>&":
                    break
                if arg.isdigit() and after[:1] in ("<", ">"):  # 2>/dev/null
                    break
                args.append(arg)
            yield args


def files_named(example: Example) -> set[str]:
    """The files an example's commands read that the block does not write first: paths in
    the repository's own folders (``examples/x.json``) and any ``*.json``/``*.jsonl``."""
    commands = "\n".join(step.command for step in example.steps)
    written = set(re.findall(r"(?:-o +|>>? *)([\w./-]+)", commands))
    named = re.findall(
        r"(?<![\w/.=-])((?:examples|fixtures|tests/corpus)/[\w./-]*\w|[\w./-]+\.jsonl?)(?![\w/])",
        re.sub(r"(?:-o +|>>? *)[\w./-]+", "", commands),
    )
    return set(named) - written
