"""askcli acp --fs, --terminal, --thoughts and --timeout: askcli.hosts.acp.workspace in-process,
and end to end against the scripted SDK agent (tests/peers/acp_agent.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from askcli.hosts.acp import workspace
from askcli.hosts.acp.workspace import Files, RequestRefused, Terminals

# --- Files ------------------------------------------------------------------------------


def test_read_whole_and_by_lines(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("one\ntwo\nthree\n")
    files = Files(str(tmp_path))
    assert files.read(str(f)) == "one\ntwo\nthree\n"
    assert files.read(str(f), 2) == "two\nthree\n"
    assert files.read(str(f), 2, 1) == "two\n"
    assert files.read(str(f), None, 1) == "one\n"
    assert files.read(str(f), 9) == ""
    with pytest.raises(RequestRefused, match="line must be a whole number from 1"):
        files.read(str(f), 0)


def test_a_missing_file_is_resource_not_found(tmp_path: Path) -> None:
    with pytest.raises(RequestRefused) as caught:
        Files(str(tmp_path)).read(str(tmp_path / "nope.txt"))
    assert caught.value.missing
    assert str(caught.value).endswith("nope.txt does not exist")
    with pytest.raises(RequestRefused) as caught:
        Files(str(tmp_path)).read(str(tmp_path / "no" / "folder.txt"))
    assert caught.value.missing
    (tmp_path / "a.txt").write_text("a")
    with pytest.raises(RequestRefused, match=r"cannot read .*a\.txt/b: Not a directory") as caught:
        Files(str(tmp_path)).read(str(tmp_path / "a.txt" / "b"))
    assert not caught.value.missing


@pytest.mark.parametrize("where", ["outside", "relative", "link out", "dotdot"])
def test_only_files_under_the_session_folder(tmp_path: Path, where: str) -> None:
    root, other = tmp_path / "root", tmp_path / "other"
    root.mkdir()
    other.mkdir()
    (other / "secret").write_text("s")
    (root / "out").symlink_to(other / "secret")
    path = {
        "outside": str(other / "secret"),
        "relative": "secret",
        "link out": str(root / "out"),
        "dotdot": str(root / ".." / "other" / "secret"),
    }[where]
    files = Files(str(root))
    with pytest.raises(RequestRefused) as caught:
        files.read(path)
    assert not caught.value.missing
    with pytest.raises(RequestRefused):
        files.write(path, "changed")
    assert (other / "secret").read_text() == "s"


def test_what_is_not_a_text_file_is_refused(tmp_path: Path) -> None:
    files = Files(str(tmp_path))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(RequestRefused, match="not a regular file"):
        files.read(str(fifo))  # never blocks on a FIFO
    with pytest.raises(RequestRefused, match="not a regular file"):
        files.read(str(tmp_path))
    (tmp_path / "bin").write_bytes(b"\xff\xfe")
    with pytest.raises(RequestRefused, match="not UTF-8 text"):
        files.read(str(tmp_path / "bin"))


def test_too_large_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace, "MAX_FILE", 10)
    (tmp_path / "big").write_text("x" * 11)
    files = Files(str(tmp_path))
    with pytest.raises(RequestRefused, match="larger than 10 bytes"):
        files.read(str(tmp_path / "big"))
    with pytest.raises(RequestRefused, match="larger than 10 bytes"):
        files.write(str(tmp_path / "new"), "y" * 11)
    assert not (tmp_path / "new").exists()


def test_write_makes_folders_keeps_the_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    files = Files(str(tmp_path))
    files.write(str(tmp_path / "sub" / "dir" / "new.txt"), "héllo\n")
    assert (tmp_path / "sub" / "dir" / "new.txt").read_text() == "héllo\n"
    script = tmp_path / "run.sh"
    script.write_text("old")
    script.chmod(0o750)
    files.write(str(script), "new")
    assert script.read_text() == "new"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh", "sub"]


def test_a_new_file_gets_the_umask_s_mode_and_the_umask_is_never_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The umask is the whole process's: reading it by setting it would leave other threads'
    new files world-writable for a moment."""
    before = os.umask(0o027)
    try:
        changed: list[int] = []
        real = os.umask
        monkeypatch.setattr(os, "umask", lambda mask: changed.append(mask) or real(mask))
        Files(str(tmp_path)).write(str(tmp_path / "new.txt"), "x")
        assert changed == []
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


def test_names_are_shown_relative_to_the_session_folder(tmp_path: Path) -> None:
    files = Files(str(tmp_path))
    assert files.name(str(tmp_path / "a" / "b.txt")) == "a/b.txt"
    assert files.name("/elsewhere/x") == "/elsewhere/x"


def test_links_that_stay_in_the_folder_are_followed(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "AGENTS.md").write_text("rules\n")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    (tmp_path / "docs" / "up").symlink_to("..")
    (tmp_path / "whole").symlink_to(tmp_path)  # absolute, and back into the folder
    files = Files(str(tmp_path))
    assert files.read(str(tmp_path / "CLAUDE.md")) == "rules\n"
    assert files.read(str(tmp_path / "docs" / "up" / "whole" / "AGENTS.md")) == "rules\n"
    assert files.read(str(tmp_path / "docs" / ".." / "AGENTS.md")) == "rules\n"
    files.write(str(tmp_path / "CLAUDE.md"), "new rules\n")  # the file it names is written
    assert (tmp_path / "CLAUDE.md").is_symlink()
    assert (tmp_path / "AGENTS.md").read_text() == "new rules\n"
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(
        RequestRefused, match=r"cannot read .*loop: Too many levels of symbolic links"
    ):
        files.read(str(tmp_path / "loop"))
    with pytest.raises(RequestRefused, match="not a regular file"):
        files.read(str(tmp_path / "docs" / ".."))


def _exchange() -> Any:
    """renameat2(RENAME_EXCHANGE): two names swapped in one step (Linux), or None."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return None

    def exchange(a: Path, b: Path) -> None:
        if renameat2(-100, bytes(a), -100, bytes(b), 2) != 0:  # AT_FDCWD, RENAME_EXCHANGE
            raise OSError(ctypes.get_errno(), "renameat2")

    return exchange


def test_a_folder_swapped_for_a_link_out_never_leads_out(tmp_path: Path) -> None:
    """A thread swaps a folder of the session's folder with a link to a folder outside it,
    over and over, while files are read and written through it: no byte from outside is
    read and nothing is written outside (checking by name, then opening by name again,
    read outside a few times in a thousand and wrote there)."""
    exchange = _exchange()
    root, outside = tmp_path / "root", tmp_path / "outside"
    deep = Path(*"abcdefghijklmnopqrst")  # a long path: a long time between look and open
    for top in (root / "d", outside):
        (top / deep).mkdir(parents=True)
    (root / "d" / deep / "f").write_text("inside\n")
    (outside / deep / "f").write_text("SECRET\n")
    (root / "link").symlink_to(outside)
    if exchange is None:
        pytest.skip("no renameat2 here")
    try:
        exchange(root / "d", root / "link")
        exchange(root / "d", root / "link")
    except OSError as exc:
        pytest.skip(f"renameat2 cannot swap here: {exc}")
    files = Files(str(root))
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            exchange(root / "d", root / "link")

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    read = []
    try:
        for _ in range(1000):
            with contextlib.suppress(RequestRefused):
                read.append(files.read(str(root / "d" / deep / "f")))
        for _ in range(1000):
            with contextlib.suppress(RequestRefused):
                files.write(str(root / "d" / "g"), "written\n")
    finally:
        stop.set()
        swapper.join()
    escaped = [text for text in read if text != "inside\n"]
    assert read and not escaped, f"{len(escaped)} of {len(read)} reads were from outside"
    left = sorted(str(p.relative_to(outside)) for p in outside.rglob("*") if p.is_file())
    assert left == [str(deep / "f")], f"written outside: {left}"
    assert (outside / deep / "f").read_text() == "SECRET\n"


# --- Terminals --------------------------------------------------------------------------


def gone(pid: int) -> bool:
    """The process has ended (a zombie nobody reaped yet counts: it runs no more)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def wait_gone(pid: int) -> bool:
    for _ in range(50):
        if gone(pid):
            return True
        time.sleep(0.05)
    return False


def terminals(tmp_path: Path) -> tuple[Terminals, list[str]]:
    shown: list[str] = []
    return Terminals(str(tmp_path), shown.append), shown


@pytest.mark.process
def test_a_command_runs_and_its_output_and_exit_are_kept(tmp_path: Path) -> None:
    async def go() -> tuple[dict[str, Any], dict[str, Any], list[str]]:
        t, shown = terminals(tmp_path)
        made = await t.create("printf 'a\\nb\\n'; exit 3")  # a lone command is a shell line
        status = await t.wait(made)
        await asyncio.sleep(0)
        return status, t.output(made), shown

    status, output, shown = asyncio.run(go())
    assert status == {"exitCode": 3, "signal": None}
    assert output == {
        "output": "a\nb\n",
        "truncated": False,
        "exitStatus": {"exitCode": 3, "signal": None},
    }
    assert shown == [
        "  $ printf 'a\\nb\\n'; exit 3",
        "  | a",
        "  | b",
        "  $ printf 'a\\nb\\n'; exit 3  (exit 3)",
    ]


@pytest.mark.process
def test_a_flood_of_output_is_shown_in_part_and_kept_whole(tmp_path: Path) -> None:
    async def go() -> tuple[dict[str, Any], list[str]]:
        t, shown = terminals(tmp_path)
        made = await t.create("seq 1 2000")
        await t.wait(made)
        return t.output(made), shown

    output, shown = asyncio.run(go())
    assert output["output"] == "".join(f"{n}\n" for n in range(1, 2001))
    assert shown[1:3] == ["  | 1", "  | 2"]
    assert shown[-3:] == [
        "  | 500",
        "  | (1500 more lines, not shown here)",
        "  $ seq 1 2000  (exit 0)",
    ]


@pytest.mark.process
def test_arguments_are_not_a_shell_line_and_env_and_cwd_apply(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()

    async def go() -> dict[str, Any]:
        t, _ = terminals(tmp_path)
        made = await t.create(
            "sh",
            ["-c", 'echo "$1 $GREETING $(pwd)"', "-", "$HOME;"],
            [{"name": "GREETING", "value": "hi there"}],
            str(tmp_path / "sub"),
        )
        await t.wait(made)
        return t.output(made)

    assert asyncio.run(go())["output"] == f"$HOME; hi there {tmp_path / 'sub'}\n"


@pytest.mark.process
def test_the_whole_command_is_shown_folder_variables_and_arguments(tmp_path: Path) -> None:
    sub = tmp_path / "my sub"
    sub.mkdir()
    env = [{"name": "GREETING", "value": "hi there"}, {"name": "EMPTY", "value": ""}]

    async def go() -> tuple[list[str], list[str]]:
        t, shown = terminals(tmp_path)
        outputs = []
        for made in [
            await t.create("printf", ["%s|%s", "$GREETING"], env, str(sub)),
            await t.create('echo "$GREETING" | tr a-z A-Z', None, env),
            await t.create("pwd", None, None, str(tmp_path)),  # the session's folder: no cd
        ]:
            await t.wait(made)
            outputs.append(t.output(made)["output"])
        return outputs, shown

    outputs, shown = asyncio.run(go())
    assert outputs == ["$GREETING|", "HI THERE\n", f"{tmp_path}\n"]
    assert [line for line in shown if line.startswith("  $") and "(exit" not in line] == [
        f"  $ cd '{sub}' && GREETING='hi there' EMPTY='' printf '%s|%s' '$GREETING'",
        "  $ GREETING='hi there' EMPTY='' /bin/sh -c 'echo \"$GREETING\" | tr a-z A-Z'",
        "  $ pwd",
    ]


@pytest.mark.parametrize(
    "name",
    [
        *("PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "GIT_CONFIG_COUNT", "GIT_SSH_COMMAND"),
        *("BASH_ENV", "HOME", "IFS", "PYTHONPATH", "NODE_OPTIONS", "DYLD_INSERT_LIBRARIES"),
    ],
)
def test_variables_that_change_what_runs_are_refused(tmp_path: Path, name: str) -> None:
    async def go() -> list[str]:
        t, shown = terminals(tmp_path)
        with pytest.raises(RequestRefused) as caught:
            await t.create("touch ran", None, [{"name": name, "value": str(tmp_path)}])
        assert str(caught.value) == (
            f"env sets {name}, which changes what runs: askcli lets no agent set PATH, HOME, "
            "IFS, LD_*, GIT_*, BASH_ENV, PYTHONPATH, NODE_OPTIONS or the like; not run: touch ran"
        )
        return shown

    assert asyncio.run(go()) == []
    assert not (tmp_path / "ran").exists()


@pytest.mark.process
def test_variables_askcli_has_already_are_no_change(tmp_path: Path) -> None:
    same = [{"name": "PATH", "value": os.environ["PATH"]}, {"name": "TERM_X", "value": "1"}]

    async def go() -> list[str]:
        t, shown = terminals(tmp_path)
        await t.wait(await t.create("true", None, same))
        return shown

    assert asyncio.run(go())[0] == "  $ TERM_X=1 /bin/sh -c true"


def test_a_variable_name_a_shell_could_not_show_is_refused(tmp_path: Path) -> None:
    async def go() -> None:
        t, _ = terminals(tmp_path)
        await t.create("ls", None, [{"name": "BASH_FUNC_ls%%", "value": "() { id; }"}])

    with pytest.raises(
        RequestRefused, match="name 'BASH_FUNC_ls%%' of env is not letters, digits and _"
    ):
        asyncio.run(go())


@pytest.mark.process
def test_a_long_command_is_shown_whole_over_lines(tmp_path: Path) -> None:
    async def go() -> list[str]:
        t, shown = terminals(tmp_path)
        made = await t.create("true", ["x" * 3000, "end"])
        await t.wait(made)
        return shown

    shown = asyncio.run(go())
    assert shown[0] == "  $ true " + "x" * (workspace.terminal_command.LINE - 5)
    assert shown[1].startswith("    xxx") and shown[1].endswith("x end")
    assert len(shown[0]) - 4 + len(shown[1]) - 4 == len("true " + "x" * 3000 + " end")


@pytest.mark.process
def test_output_limit_keeps_the_end_on_a_character_boundary(tmp_path: Path) -> None:
    async def go() -> dict[str, Any]:
        t, _ = terminals(tmp_path)
        made = await t.create("printf", ["%s", "ééééé"], None, None, 5)  # 10 bytes
        await t.wait(made)
        return t.output(made)

    output = asyncio.run(go())
    assert output["truncated"] is True
    assert output["output"] == "éé"  # 4 bytes: the 5th would start inside an é


@pytest.mark.process
def test_kill_ends_the_command_and_its_children_release_forgets_it(tmp_path: Path) -> None:
    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        t, _ = terminals(tmp_path)
        made = await t.create(f"sleep 60 & echo $! > {tmp_path / 'child'}; wait")
        for _ in range(100):
            if (tmp_path / "child").exists() and (tmp_path / "child").read_text():
                break
            await asyncio.sleep(0.05)
        await t.kill(made)
        status = await t.wait(made)
        output = t.output(made)  # still there after kill
        await t.release(made)
        with pytest.raises(RequestRefused, match="no terminal"):
            t.output(made)
        return status, output

    status, output = asyncio.run(go())
    assert status == {"exitCode": None, "signal": "SIGTERM"}
    assert output["exitStatus"]["signal"] == "SIGTERM"
    assert wait_gone(int((tmp_path / "child").read_text()))


@pytest.mark.process
def test_close_ends_every_terminal(tmp_path: Path) -> None:
    async def go() -> list[int]:
        t, _ = terminals(tmp_path)
        pids = []
        for _ in range(3):
            made = await t.create("sleep", ["60"])
            proc = t.open[made].proc
            assert proc is not None
            pids.append(proc.pid)
        await t.close()
        return pids

    for pid in asyncio.run(go()):
        assert wait_gone(pid)


@pytest.mark.process
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("",), "the command is empty"),
        (("/no/such/program", ["x"]), "cannot run /no/such/program x"),
        (("true", None, None, "relative"), "not an absolute path to a folder"),
        (("true", None, [{"name": "A=B", "value": "x"}]), "not a name and a value"),
        (("true", None, None, None, -1), "outputByteLimit must be a whole number from 0"),
    ],
)
def test_bad_terminal_requests_are_refused(
    tmp_path: Path, args: tuple[Any, ...], message: str
) -> None:
    async def go() -> None:
        t, _ = terminals(tmp_path)
        await t.create(*args)

    with pytest.raises(RequestRefused, match=message):
        asyncio.run(go())


# --- end to end, with the scripted agent ---------------------------------------------

pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")

from tests.support.acp import SHORT, chunk, run  # noqa: E402


def request(method: str, **params: Any) -> dict[str, Any]:
    return {"request": method, "params": params}


@pytest.mark.process
def test_without_the_flags_files_and_terminals_stay_with_the_agent(tmp_path: Path) -> None:
    turn = [
        request("fs/read_text_file", path=str(tmp_path / "a.txt")),
        request("terminal/create", command="echo hi"),
    ]
    r = run(tmp_path, [turn], "", "--prompt", "go")
    assert r.rc == 0, r.err
    caps = r.log[0]["initialize"]["clientCapabilities"]
    assert caps["fs"] == {"readTextFile": False, "writeTextFile": False}
    assert caps["terminal"] is False
    assert [reply["error"] for reply in r.replies()] == ["Method not found"] * 2
    assert "refused the agent's fs/read_text_file request (askcli does not offer it)" in r.err


@pytest.mark.process
def test_fs_reads_and_writes_under_the_folder(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    turn = [
        request("fs/read_text_file", path=str(tmp_path / "a.txt"), line=2),
        request("fs/write_text_file", path=str(tmp_path / "b" / "c.txt"), content="x\ny\n"),
        request("fs/read_text_file", path=str(tmp_path / "missing.txt")),
        request("fs/write_text_file", path="/etc/askcli-test", content="no"),
        chunk("done"),
    ]
    r = run(tmp_path, [turn], "", "--fs", "--prompt", "go")
    assert r.rc == 0, r.err
    caps = r.log[0]["initialize"]["clientCapabilities"]
    assert caps["fs"] == {"readTextFile": True, "writeTextFile": True}
    replies = r.replies()
    assert replies[0] == {"content": "two\n"}
    assert replies[1] == {}
    assert (tmp_path / "b" / "c.txt").read_text() == "x\ny\n"
    missing = f"{tmp_path}/missing.txt"  # not found, as ACP's TypeScript library says it
    assert replies[2] == {
        "error": f"Resource not found: {missing}",
        "code": -32002,
        "data": {"uri": missing},
    }
    assert replies[3]["error"] == f"/etc/askcli-test is outside the session's folder ({tmp_path})"
    assert not Path("/etc/askcli-test").exists()
    assert (
        "  -> read a.txt from line 2 (1 line)\n"
        "  -> wrote b/c.txt (2 lines)\n"
        "  -> read missing.txt: not found\n"
        "  -> wrote /etc/askcli-test: refused: /etc/askcli-test is outside the session's "
        f"folder ({tmp_path})\n"
    ) in unwrapped(r.err)


def unwrapped(err: str) -> str:
    """The agent's items as one line each: a line wrapped at the width goes on under five
    spaces (its two and three more)."""
    return re.sub(r"\n {5}(?! )", " ", err)


class _Link:
    """What askcli's ACP Client needs of its AgentLink, for reads in-process."""

    def __init__(self, root: Path) -> None:
        import acp

        self.acp, self.files, self.shown = acp, Files(str(root)), []

    def show(self, text: str) -> None:
        self.shown.append(text)


def test_a_missing_file_is_not_found_in_acp_s_own_words(tmp_path: Path) -> None:
    import acp

    from askcli.hosts.acp.client import Client

    link = _Link(tmp_path)
    missing = str(tmp_path / "new" / "file.txt")
    with pytest.raises(acp.RequestError) as caught:
        asyncio.run(Client(link).read_text_file("s", missing))  # type: ignore[arg-type]
    # as @agentclientprotocol/sdk's RequestError.resourceNotFound(uri) makes it
    assert caught.value.to_error_obj() == {
        "code": -32002,
        "message": f"Resource not found: {missing}",
        "data": {"uri": missing},
    }
    assert link.shown == ["  -> read new/file.txt: not found"]
    # Gemini CLI takes every error to a read for a failure, and reads before it creates
    link.files.agent_is("gemini-cli")
    reply = asyncio.run(Client(link).read_text_file("s", missing))  # type: ignore[arg-type]
    assert reply.content == ""
    assert link.shown[1] == "  -> read new/file.txt: not found (an empty text for Gemini CLI)"
    # a read that is refused stays refused, for Gemini CLI too
    with pytest.raises(acp.RequestError) as caught:
        asyncio.run(Client(link).read_text_file("s", "/etc/passwd"))  # type: ignore[arg-type]
    assert caught.value.code == -32603
    assert link.shown[2].startswith("  -> read /etc/passwd: refused: /etc/passwd is outside")
    link.files.agent_is("scripted")
    with pytest.raises(acp.RequestError):
        asyncio.run(Client(link).read_text_file("s", missing))  # type: ignore[arg-type]


@pytest.mark.process
def test_gemini_cli_is_told_of_a_missing_file_as_empty_text(tmp_path: Path) -> None:
    turn = [
        request("fs/read_text_file", path=str(tmp_path / "new.txt")),
        request("fs/write_text_file", path=str(tmp_path / "new.txt"), content="made\n"),
        chunk("done"),
    ]
    r = run(tmp_path, [turn], "", "--fs", "--prompt", "go", script={"agent_name": "gemini-cli"})
    assert r.rc == 0, r.err
    assert r.replies()[:2] == [{"content": ""}, {}]
    assert (tmp_path / "new.txt").read_bytes() == b"made\n"
    assert (
        "  -> read new.txt: not found (an empty text for Gemini CLI)\n  -> wrote new.txt (1 line)\n"
    ) in r.err


@pytest.mark.process
def test_terminal_runs_shows_and_reports(tmp_path: Path) -> None:
    turn = [
        request("terminal/create", command="echo", args=["hi", "\x1b[2J"], outputByteLimit=100),
        {
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "echo hi",
                "content": [{"type": "terminal", "terminalId": "term-1"}],
            }
        },
        request("terminal/wait_for_exit", terminalId="$terminal"),
        request("terminal/output", terminalId="$terminal"),
        request("terminal/release", terminalId="$terminal"),
        request("terminal/output", terminalId="$terminal"),
        chunk("ran it"),
    ]
    r = run(tmp_path, [turn], "", "--terminal", "--prompt", "go")
    assert r.rc == 0, r.err
    assert r.log[0]["initialize"]["clientCapabilities"]["terminal"] is True
    replies = r.replies()
    assert replies[0] == {"terminalId": "term-1"}
    assert replies[1] == {"exitCode": 0}
    assert replies[2] == {
        "output": "hi \x1b[2J\n",
        "truncated": False,
        "exitStatus": {"exitCode": 0},
    }
    assert replies[3] == {}
    assert replies[4] == {
        "error": "no terminal 'term-1' (released, or never created)",
        "code": -32603,
    }
    assert "  $ echo hi '\\x1b[2J'\n" in r.err
    assert "  | hi \\x1b[2J\n" in r.err
    assert "  $ echo hi '\\x1b[2J'  (exit 0)\n" in r.err
    assert "\x1b" not in r.err
    assert r.out == "ran it\n"


@pytest.mark.process
def test_terminal_env_is_shown_or_refused_to_the_person_and_the_agent(tmp_path: Path) -> None:
    git = [{"name": "GIT_CONFIG_COUNT", "value": "1"}, {"name": "GIT_CONFIG_KEY_0", "value": "x"}]
    turn = [
        request("terminal/create", command="git", args=["status"], env=git),
        request(
            "terminal/create", command="echo", args=["hi"], env=[{"name": "LANG", "value": ""}]
        ),
        request("terminal/wait_for_exit", terminalId="$terminal"),
        chunk("done"),
    ]
    r = run(tmp_path, [turn], "", "--terminal", "--prompt", "go")
    assert r.rc == 0, r.err
    why = (
        "env sets GIT_CONFIG_COUNT, which changes what runs: askcli lets no agent set PATH, "
        "HOME, IFS, LD_*, GIT_*, BASH_ENV, PYTHONPATH, NODE_OPTIONS or the like; not run: "
        "git status"
    )
    assert r.replies()[0] == {"error": why, "code": -32603}
    assert f"  -> terminal/create: refused: {why}\n" in unwrapped(r.err)
    assert "  $ LANG='' echo hi\n" in r.err


@pytest.mark.process
def test_a_terminal_left_running_is_ended_with_the_session(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    turn = [request("terminal/create", command=f"echo $$ > {pidfile}; exec sleep 60")]
    r = run(tmp_path, [turn, []], "", "--terminal", "--prompt", "go")
    assert r.rc == 0, r.err
    assert wait_gone(int(pidfile.read_text()))


@pytest.mark.process
def test_askcli_killed_ends_the_agent_and_its_terminals(tmp_path: Path) -> None:
    import subprocess

    from tests.support.acp import setup
    from tests.support.processes import askcli_path

    shell, agent_pid = tmp_path / "shell", tmp_path / "agent"
    turn = [
        {"pidfile": str(agent_pid)},
        request(
            "terminal/create",
            command=f"echo $$ > {shell}.tmp; mv {shell}.tmp {shell}; exec sleep 60",
        ),
        {"sleep": 60},
    ]
    agent, _ = setup(tmp_path, [turn])
    proc = subprocess.Popen(
        [str(askcli_path()), "acp", "--terminal", "--prompt", "go", "--", *agent],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    try:
        for _ in range(200):
            if shell.exists() and agent_pid.exists():
                break
            time.sleep(0.05)
        assert shell.exists() and agent_pid.exists()
    finally:
        proc.kill()
        proc.wait()
    # PR_SET_PDEATHSIG: SIGTERM to each when askcli is gone, even by SIGKILL
    assert wait_gone(int(agent_pid.read_text()))
    assert wait_gone(int(shell.read_text()))


@pytest.mark.process
def test_fs_session_records_and_replays(tmp_path: Path) -> None:
    from askcli import fixtures

    (tmp_path / "a.txt").write_text("one\n")
    turn = [
        request("fs/read_text_file", path=str(tmp_path / "a.txt")),
        request("terminal/create", command="echo", args=["hi"]),
        request("terminal/wait_for_exit", terminalId="$terminal"),
        chunk("done"),
    ]
    path = tmp_path / "s.json"
    r = run(tmp_path, [turn], "", "--fs", "--terminal", "--record", str(path), "--prompt", "go")
    assert r.rc == 0, r.err
    fixture = fixtures.load(path)
    assert fixture["acp"]["fs"] is True and fixture["acp"]["terminal"] is True
    assert {"shown": "  -> read a.txt (1 line)"} in fixture["acp"]["received"]
    expected, actual = fixtures.replay(fixture)
    assert actual == expected
    assert "  | hi\n" in actual.stderr


@pytest.mark.process
def test_thoughts_only_with_the_flag(tmp_path: Path) -> None:
    thought = {
        "update": {
            "sessionUpdate": "agent_thought_chunk",
            "content": {"type": "text", "text": "Let me weigh \x1b[31mthis."},
        }
    }
    turn = [chunk("First."), thought, chunk("Answer.")]
    shown = run(tmp_path, [turn], "", "--thoughts", "--prompt", "go")
    assert shown.rc == 0, shown.err
    assert "Agent: First.\nThinking: Let me weigh \\x1b[31mthis.\nAgent: Answer.\n" in shown.err
    assert shown.out == "First.Answer.\n"
    hidden = run(tmp_path / "..", [turn], "", "--prompt", "go")
    assert "weigh" not in hidden.err
    assert "Agent: First.Answer.\n" in hidden.err


@pytest.mark.process
def test_timeout_answers_a_permission_cancelled(tmp_path: Path) -> None:
    import subprocess

    from tests.support.acp import read_log, setup
    from tests.support.processes import askcli_path

    agent, log = setup(tmp_path, [[SHORT, chunk("after")]])
    silent, kept_open = os.pipe()  # open and silent: only the timeout ends the wait
    try:
        proc = subprocess.run(
            [str(askcli_path()), "acp", "--timeout", "0.5", "--prompt", "go", "--", *agent],
            stdin=silent,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=30,
        )
    finally:
        os.close(silent)
        os.close(kept_open)
    err = proc.stderr
    assert proc.returncode == 3, err
    assert "no answer (no reply within 0.5 seconds): the request is answered cancelled" in err
    replies = [e["reply"]["result"] for e in read_log(log) if "reply" in e]
    assert replies == [{"outcome": {"outcome": "cancelled"}}]


@pytest.mark.pty
def test_timeout_is_not_for_the_prompt(tmp_path: Path) -> None:
    import pexpect

    from tests.support.acp import setup
    from tests.support.processes import askcli_path

    agent, _ = setup(tmp_path, [[chunk("hello back")]])
    child = pexpect.spawn(
        str(askcli_path()),
        ["acp", "--timeout", "0.3", "--", *agent],
        cwd=str(tmp_path),
        encoding="utf-8",
        timeout=10,
    )
    try:
        child.expect_exact("> ")
        time.sleep(1.0)  # longer than --timeout, at the prompt
        child.sendline("hi")
        child.expect_exact("Agent: hello back")
        child.expect_exact("> ")
        child.sendeof()
        child.expect(pexpect.EOF)
    except (pexpect.TIMEOUT, pexpect.EOF):
        print(child.before)
        raise
    child.close()
    assert child.exitstatus == 0, child.before


MODES = {
    "currentModeId": "default",
    "availableModes": [
        {"id": "default", "name": "Default", "description": "Prompts for approval"},
        {"id": "plan", "name": "Plan", "description": "Read-only mode"},
    ],
}


def run_with_modes(tmp_path: Path, turns: list[Any], *args: str) -> Any:
    return run(tmp_path, turns, "", *args, script={"modes": MODES})


@pytest.mark.process
def test_mode_switches_the_new_session_and_changes_are_shown(tmp_path: Path) -> None:
    back = {"update": {"sessionUpdate": "current_mode_update", "currentModeId": "default"}}
    r = run_with_modes(tmp_path, [[chunk("planned"), back]], "--mode", "plan", "--prompt", "go")
    assert r.rc == 0, r.err
    assert r.kinds()[:4] == ["initialize", "new_session", "set_mode", "prompt"]
    assert r.log[2] == {"set_mode": "plan"}
    assert "(scripted 1.0 session sess-1)\n(mode: Plan)\nAgent: planned\n(mode: Default)\n" in (
        r.err
    )


@pytest.mark.process
def test_mode_already_current_is_not_set_again(tmp_path: Path) -> None:
    r = run_with_modes(tmp_path, [[chunk("hi")]], "--mode", "default", "--prompt", "go")
    assert r.rc == 0, r.err
    assert "set_mode" not in r.kinds()
    assert "(mode:" not in r.err


@pytest.mark.process
def test_a_mode_the_agent_does_not_offer_is_refused(tmp_path: Path) -> None:
    r = run_with_modes(tmp_path, [[chunk("hi")]], "--mode", "yolo\x1b", "--prompt", "go")
    assert r.rc == 2, r.err
    assert (
        "askcli: the agent has no mode 'yolo\\x1b'; its modes: default (Prompts for approval), "
        "plan (Read-only mode)\n"
    ) in r.err
    assert "prompt" not in r.kinds()
    assert "\x1b" not in r.err


@pytest.mark.process
def test_signal_names_of_an_ended_terminal(tmp_path: Path) -> None:
    async def go() -> dict[str, Any]:
        t, _ = terminals(tmp_path)
        made = await t.create("kill -INT $$")
        return await t.wait(made)

    assert asyncio.run(go()) == {"exitCode": None, "signal": signal.Signals.SIGINT.name}


@pytest.mark.process
def test_a_terminal_is_told_the_inbox_askcli_uses(tmp_path: Path) -> None:
    """``--inbox-url`` reaches the terminals the agent starts as ``$ASKCLI_INBOX``, so that
    an ``askcli`` run there finds the same inbox."""
    inbox = str(tmp_path / "elsewhere" / "inbox.sqlite")
    turn = [
        request("terminal/create", command="sh", args=["-c", 'printf %s "$ASKCLI_INBOX"']),
        request("terminal/wait_for_exit", terminalId="$terminal"),
        request("terminal/output", terminalId="$terminal"),
        chunk("done"),
    ]
    r = run(tmp_path, [turn], "", "--terminal", "--inbox-url", inbox, "--prompt", "go")
    assert r.rc == 0, r.err
    replies = r.replies()
    assert replies[1] == {"exitCode": 0}, replies
    assert replies[2]["output"] == inbox, replies
