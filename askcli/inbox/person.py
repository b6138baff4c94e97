"""The person's side of the queue: a claimed question is asked like any call, and its reply
stored for the asker (``askcli inbox``)."""

from __future__ import annotations

import os
import socket
import time

from ..conversation import Conversation
from ..documents import Document
from ..session import answer_document
from .asking import reply_to_json
from .store import Question, Store


def inbox_id() -> str:
    """This inbox's name in the queue: host, process and start time."""
    return f"{socket.gethostname()}:{os.getpid()}:{time.time():.6f}"


def answer_one(store: Store, inbox: str, question: Question, conv: Conversation) -> bool:
    """Ask a question ``inbox`` claimed and store its reply; False when it was no longer
    this inbox's to answer (the asker withdrew it meanwhile)."""
    reply = answer_document(Document(question.call), conv, question.id)
    return store.answer(inbox, question.id, reply_to_json(reply))
