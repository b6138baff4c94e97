"""Whether a path may be opened as the inbox, looked at before SQLite touches it.

The inbox is shared state that decides what agents are told, so, as ssh does for
``~/.ssh``, askcli uses only a file of the user's own, in a folder of the user's own (or
root's), that nobody else can write (nor its ``-wal`` and ``-shm`` files). A file that is
not askcli's (an SQLite database of something else, any other file) is refused before it
is opened for writing, and so left byte for byte as it was. An askcli inbox says so in its
header (``PRAGMA application_id``); one made before that is known by its tables.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
import urllib.parse
from pathlib import Path

from ...errors import InboxRefused
from ...files import SAFE_OPEN, lstat_or_none, not_regular

APPLICATION_ID = 0x61736B63  # "askc": this SQLite file is an askcli inbox
# PRAGMA user_version of an inbox of this askcli (2: routing, audit; 3: askers, retries;
# 4: when a claim was made; 5: who resumes a deferred question's session)
SCHEMA_VERSION = 5
_MAGIC = b"SQLite format 3\x00"


def _mine(found: os.stat_result, what: str, *, folder: bool = False) -> None:
    """Refuse what another user owns (a folder may be root's), or what others than its
    owner may write."""
    owners = (os.geteuid(), 0) if folder else (os.geteuid(),)
    mode = f"mode {stat.S_IMODE(found.st_mode):04o}"
    if found.st_uid not in owners:
        why = "keeps an inbox only in a folder" if folder else "uses only an inbox"
        raise InboxRefused(
            f"{what} belongs to another user (uid {found.st_uid}); askcli {why} of yours"
        )
    if found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        why = (
            "keeps an inbox only in a folder that only you can write"
            if folder
            else "uses only an inbox that only you can write (chmod go-w)"
        )
        raise InboxRefused(f"{what} can be written by other users ({mode}); askcli {why}")


def check_folder(folder: Path) -> None:
    """The inbox's folder is the user's (or root's) and nobody else can write it."""
    try:
        found = os.stat(folder)
    except OSError as exc:
        raise InboxRefused(f"the folder {folder} cannot be read: {exc.strerror}") from None
    if not stat.S_ISDIR(found.st_mode):
        raise InboxRefused(f"{folder} is not a folder")
    _mine(found, f"the inbox's folder {folder}", folder=True)


def check_file(path: Path) -> os.stat_result | None:
    """The inbox file (None: there is none yet) and its ``-wal`` and ``-shm`` files, where
    they are: regular files of the user's that nobody else can write."""
    found = lstat_or_none(path)
    for side in ("-wal", "-shm"):
        other = lstat_or_none(Path(f"{path}{side}"))
        if other is not None:
            kind = not_regular(other.st_mode)
            if kind is not None:
                raise InboxRefused(f"{path}{side} is {kind}, not an inbox's file")
            _mine(other, f"{path}{side}")
    if found is None:
        return None
    kind = not_regular(found.st_mode)
    if kind is not None:
        raise InboxRefused(f"{path} is {kind}, not an inbox file")
    _mine(found, str(path))
    return found


# the files (device, inode) this process found to be askcli's: never read again by hand, since
# closing a descriptor of a file drops every POSIX lock the process holds on it, SQLite's
# included; another process would then take itself for the file's last user, checkpoint and
# delete the -wal and -shm files under this process's open connections (writes lost)
_KNOWN: set[tuple[int, int]] = set()
_KNOWING = threading.Lock()


def check_askcli(path: Path, found: os.stat_result) -> None:
    """Refuse a file that is neither an askcli inbox nor empty (an empty one becomes an
    inbox). Read without opening it for writing, so a refused file is left unchanged; read
    once per process (``found`` says which file it is)."""
    key = (found.st_dev, found.st_ino)
    with _KNOWING:
        if key not in _KNOWN:
            _check_askcli(path)
            _KNOWN.add(key)


def _check_askcli(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | SAFE_OPEN)
    except OSError as exc:
        raise InboxRefused(f"{path} cannot be read: {exc.strerror}") from None
    try:
        head = os.read(fd, 100)
    finally:
        os.close(fd)
    if not head:
        return
    if not head.startswith(_MAGIC) or len(head) < 100:
        raise _foreign(path, "not an SQLite database")
    header = int.from_bytes(head[68:72], "big")
    if header == APPLICATION_ID:
        return
    if header == 0 and {"questions", "inboxes"} <= _tables(path):
        return  # an inbox an earlier askcli made
    raise _foreign(path, "an SQLite database of something else")


def _foreign(path: Path, what: str) -> InboxRefused:
    return InboxRefused(
        f"{path} cannot be used as an inbox: it is {what}, not an askcli inbox; "
        "askcli leaves it unchanged"
    )


def _tables(path: Path) -> set[str]:
    """The table names of the SQLite file at ``path``, read only. Without a ``-wal`` file
    it is opened immutable (no lock, no side file made); with one, read-only, so that
    what is still in the WAL is seen."""
    quoted = urllib.parse.quote(str(path))
    wal = lstat_or_none(Path(f"{path}-wal")) is not None
    uri = f"file:{quoted}?mode=ro" if wal else f"file:{quoted}?immutable=1"
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=1.0)
        try:
            rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise _foreign(path, f"an SQLite database askcli cannot read ({exc})") from None
    return {str(row[0]) for row in rows}
