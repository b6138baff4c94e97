"""``askcli acp``: a plain-line client for any Agent Client Protocol agent.

The agent runs as a child in its own process group and speaks ACP (JSON-RPC on stdio) with
askcli through the official Python SDK (``agent-client-protocol``, imported as ``acp``),
whose connection runs on an asyncio loop in a thread of its own. Everything the agent sends
(session updates, permission requests, elicitations) comes to the main thread as a plain
dict on a queue, where askcli shows it and asks the person, as ``askcli claude`` does: the
main thread is the only one that reads the answers and receives the signals.

askcli advertises only what it implements: elicitation forms and URL consent, and with
``--fs`` / ``--terminal`` text files under the session's folder and terminals
(:mod:`askcli.hosts.acp.workspace`). Without them, file system and terminal requests stay with
the agent (they are refused if an agent sends them anyway).

Every string from the agent is untrusted: it is shown through
:func:`~askcli.escaping.visible` (a permission request whole, never shortened).

The modules: :mod:`.agent` (the child process and the SDK's loop thread) with :mod:`.client`
(the SDK's Client on that thread); :mod:`.events` (what passes between the session and its
link); :mod:`.session` (the main thread: waiting, the session and its turns) with
:mod:`.showing`, :mod:`.content`, :mod:`.asking`, :mod:`.forms`, :mod:`.permission_options` and
:mod:`.failures`; :mod:`.recording` and :mod:`.scripted` (``--record`` and ``askcli replay``).
"""

from .agent import AgentLink
from .events import EventKind, Link
from .recording import AcpRecorder
from .scripted import ScriptedAgent
from .session import capabilities, host, show_stderr

__all__ = [
    "AcpRecorder",
    "AgentLink",
    "EventKind",
    "Link",
    "ScriptedAgent",
    "capabilities",
    "host",
    "show_stderr",
]
