"""Files opened beneath a folder, never outside it, even while links change under it.

A path is walked one part at a time from a descriptor of the folder: each folder on the way
is opened relative to the one before with ``O_NOFOLLOW``, ``..`` goes back to the folder the
walk came from, and a link met on the way is read (``readlinkat``) and followed only while
it stays under the folder. The look and the step are one system call, so a link swapped in
between cannot lead out (a check by name, then an open by name, can).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator

MAX_LINKS = 40  # links followed in one path (the kernel's own limit)
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Outside(Exception):
    """The path leads out of the folder."""


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


class Beneath:
    """The folder ``root`` (and everything under it, through links that stay under it)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        given = _parts(os.path.abspath(root))
        real = _parts(self.root)
        self.prefixes = [real] if given == real else [real, given]

    def under(self, path: str) -> list[str]:
        """The parts of the absolute ``path`` below the folder (as named when made, or its
        real path); Outside when it does not start with the folder."""
        parts = _parts(path)
        for prefix in self.prefixes:
            if parts[: len(prefix)] == prefix:
                return parts[len(prefix) :]
        raise Outside

    @contextlib.contextmanager
    def parent(self, path: str, *, make: bool = False) -> Iterator[tuple[int, str]]:
        """A descriptor of the folder holding ``path``'s last part, and that part's name
        (never a link when looked at); missing folders are made when ``make``. Outside,
        OSError (FileNotFoundError for a missing folder), IsADirectoryError for the folder
        itself."""
        held = [os.open(self.root, _FOLDER)]
        try:
            name = self._walk(held, self.under(path), make)
            yield held[-1], name
        finally:
            for fd in held:
                os.close(fd)

    def _walk(self, held: list[int], todo: list[str], make: bool) -> str:
        links = 0
        while True:
            if not todo:
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
            name = todo.pop(0)
            if name == "..":
                if len(held) == 1:
                    raise Outside
                os.close(held.pop())
                continue
            if todo:  # a folder on the way
                try:
                    held.append(self._folder(held[-1], name, make))
                    continue
                except OSError as exc:
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    target = _link(held[-1], name)
                    if target is None and not _changed(held[-1], name):
                        raise
            else:
                target = _link(held[-1], name)
                if target is None:
                    return name
            links += 1
            if links > MAX_LINKS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
            if target is None:  # a link when opened, none when read: look again
                todo.insert(0, name)
            elif target.startswith("/"):
                while len(held) > 1:
                    os.close(held.pop())
                todo[:0] = self.under(target)
            else:
                todo[:0] = _parts(target)

    def _folder(self, fd: int, name: str, make: bool) -> int:
        """The folder ``name`` in ``fd``, opened; a link there now is refused (ELOOP)."""
        try:
            return os.open(name, _FOLDER, dir_fd=fd)
        except FileNotFoundError:
            if not make:
                raise
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=fd)
        return os.open(name, _FOLDER, dir_fd=fd)


def _changed(fd: int, name: str) -> bool:
    """``name`` in ``fd`` is a folder or a link now: it changed since it was opened."""
    try:
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode) or stat.S_ISLNK(mode)


def _link(fd: int, name: str) -> str | None:
    """What the link ``name`` in ``fd`` points to; None when it is not a link (or missing)."""
    try:
        return os.readlink(name, dir_fd=fd)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return None
        raise
