"""pydantic models of the Codex app-server requests askcli answers, one to one with the JSON
Schema ``codex app-server generate-json-schema --experimental`` writes (Codex 0.171.0; the
copies in ``askcli/wire/data/codex-app-server-*.json``).

Codex reads and writes these with serde: unknown keys are ignored, types are strict, a field
not required may be absent or ``null``. A few deep parts Codex only shows (the parsed
``commandActions``, the file-system entries of ``additionalPermissions``) are kept as sent.
Imported only to validate a request, so that pydantic stays out of askcli's other paths.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Serde(BaseModel):
    """A serde struct: strict types, unknown keys ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


# --- item/tool/requestUserInput -----------------------------------------------------------


class ToolRequestUserInputOption(_Serde):
    description: str
    label: str


class ToolRequestUserInputQuestion(_Serde):
    header: str
    id: str
    isOther: bool = False
    isSecret: bool = False
    options: list[ToolRequestUserInputOption] | None = None
    question: str


class ToolRequestUserInputParams(_Serde):
    autoResolutionMs: int | None = Field(default=None, ge=0)  # deprecated: isBlocking
    isBlocking: bool
    itemId: str
    questions: list[ToolRequestUserInputQuestion]
    threadId: str
    turnId: str


class ToolRequestUserInputAnswer(_Serde):
    answers: list[str]


class ToolRequestUserInputResponse(_Serde):
    answers: dict[str, ToolRequestUserInputAnswer]


# --- item/commandExecution/requestApproval ------------------------------------------------


class NetworkPolicyAmendment(_Serde):
    action: Literal["allow", "deny"]
    host: str


class NetworkApprovalContext(_Serde):
    host: str
    protocol: Literal["http", "https", "socks5Tcp", "socks5Udp"]


class AdditionalFileSystemPermissions(_Serde):
    entries: list[dict[str, Any]] | None = None  # FileSystemSandboxEntry, as sent
    globScanMaxDepth: int | None = Field(default=None, ge=1)
    read: list[str] | None = None
    write: list[str] | None = None


class AdditionalNetworkPermissions(_Serde):
    enabled: bool | None = None


class AdditionalPermissionProfile(_Serde):
    fileSystem: AdditionalFileSystemPermissions | None = None
    network: AdditionalNetworkPermissions | None = None


class ExecpolicyAmendment(_Serde):
    execpolicy_amendment: list[str]


class AcceptWithExecpolicyAmendment(_Serde):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    acceptWithExecpolicyAmendment: ExecpolicyAmendment


class NetworkPolicyAmendmentChoice(_Serde):
    network_policy_amendment: NetworkPolicyAmendment


class ApplyNetworkPolicyAmendment(_Serde):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    applyNetworkPolicyAmendment: NetworkPolicyAmendmentChoice


CommandExecutionApprovalDecision = (
    Literal["accept", "acceptForSession", "decline", "cancel"]
    | AcceptWithExecpolicyAmendment
    | ApplyNetworkPolicyAmendment
)


class CommandExecutionRequestApprovalParams(_Serde):
    additionalPermissions: AdditionalPermissionProfile | None = None
    approvalId: str | None = None
    availableDecisions: list[CommandExecutionApprovalDecision] | None = None
    command: str | None = None
    commandActions: list[dict[str, Any]] | None = None  # CommandAction, as sent
    cwd: str | None = None
    environmentId: str | None = None
    itemId: str
    kind: Literal["command", "writeStdin", "humanCommand"] = "command"
    networkApprovalContext: NetworkApprovalContext | None = None
    proposedExecpolicyAmendment: list[str] | None = None
    proposedNetworkPolicyAmendments: list[NetworkPolicyAmendment] | None = None
    reason: str | None = None
    startedAtMs: int
    threadId: str
    turnId: str


class CommandExecutionRequestApprovalResponse(_Serde):
    decision: CommandExecutionApprovalDecision


# --- item/fileChange/requestApproval ------------------------------------------------------


class FileChangeRequestApprovalParams(_Serde):
    grantRoot: str | None = None
    itemId: str
    reason: str | None = None
    startedAtMs: int
    threadId: str
    turnId: str


class FileChangeRequestApprovalResponse(_Serde):
    decision: Literal["accept", "acceptForSession", "decline", "cancel"]
