"""Every typed rejection of SPEC.md, one exception family per SPEC.md error enum.

Each variant is a subclass of its family, so callers can catch a whole family
(``except ActivationError``) or one variant (``except ActivationStaleGeneration``).
Every error carries a stable :attr:`SessionToolsetError.code` equal to PROTOCOL.md's dotted
name (``HostActivationError.Bulk.Grant.StaleSnapshot``) and typed payload fields; the payload
that travels over the conformance protocol is :meth:`SessionToolsetError.payload`.

Wrapping errors (``BulkActivationError.Grant``, ``HostActivationError.Issuance`` and
``HostActivationError.Bulk``) keep the wrapped error reachable as ``inner`` (and as
``__cause__``), and derive their code and payload from it, so the dotted path always names
the innermost variant.

Messages are for humans and are bounded: they carry only identities (themselves bounded:
ToolIds are at most 200 bytes, wire names are cut to 128 bytes before they get here) and
numbers, never tool input, schema bytes or unbounded caller text.  Every message stays under
:data:`MESSAGE_MAX_BYTES`.

Rejections never change state: every operation validates fully before it mutates anything.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "MESSAGE_MAX_BYTES",
    "ActivationAlreadyActivated",
    "ActivationAlreadyCore",
    "ActivationDigestMismatch",
    "ActivationError",
    "ActivationGrantControlCharacterSessionId",
    "ActivationGrantEmptySessionId",
    "ActivationGrantError",
    "ActivationGrantOversizedSessionId",
    "ActivationSessionMismatch",
    "ActivationStaleGeneration",
    "ActivationStaleSnapshot",
    "ActivationUnknownTool",
    "AuthorizationNotActivated",
    "AuthorizationNotCataloged",
    "AuthorizationSchemaDigestMismatch",
    "AuthorizationSourceProvenanceMismatch",
    "AuthorizationUnknownTool",
    "AuthorizationUntrustedSource",
    "BulkActivationError",
    "BulkDuplicateRequest",
    "BulkGrant",
    "BulkSourceProvenanceMismatch",
    "BulkUntrustedSource",
    "CatalogDuplicateToolId",
    "CatalogError",
    "CatalogGenerationExhausted",
    "CatalogGenerationOverflow",
    "ExactRevocationError",
    "GrantIssuanceError",
    "HostActivationError",
    "HostBulk",
    "HostConfirmationRequired",
    "HostIssuance",
    "IssuanceSourceProvenanceMismatch",
    "IssuanceUnknownTool",
    "IssuanceUntrustedSource",
    "RevocationCoreTool",
    "RevocationNotActivated",
    "SessionIdControlCharacters",
    "SessionIdEmpty",
    "SessionIdError",
    "SessionIdOversized",
    "SessionToolSetError",
    "SessionToolsetError",
    "ToolAuthorizationError",
    "ToolIdEmpty",
    "ToolIdError",
    "ToolIdInvalidName",
    "ToolIdInvalidNamespace",
    "ToolIdMissingNamespace",
    "ToolIdOversized",
    "UnknownCoreTool",
]

#: Upper bound, in UTF-8 bytes, of every error message (SPEC.md §4 asks < 512 for denials).
MESSAGE_MAX_BYTES = 511

Payload = dict[str, str | int]


def _bounded(text: str) -> str:
    """Cut ``text`` to :data:`MESSAGE_MAX_BYTES` on a character boundary.

    Callers already pass only bounded identities; this is the last line of defence so that a
    message can never grow with its input, whatever a future variant puts into it.
    """
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= MESSAGE_MAX_BYTES:
        return text
    return raw[:MESSAGE_MAX_BYTES].decode("utf-8", "ignore")


class SessionToolsetError(Exception):
    """Base of every typed rejection raised by :mod:`session_toolset`.

    Cause: an operation refused its input or the current state.  Remedy: inspect
    :attr:`code` (stable, PROTOCOL.md's dotted name) and the variant's payload fields; the
    operation changed nothing, so it is always safe to retry after fixing the cause.
    """

    #: The SPEC.md enum this error belongs to, e.g. ``"ActivationError"``.
    family: ClassVar[str] = "SessionToolsetError"
    #: The variant name inside the enum, e.g. ``"StaleGeneration"`` ("" for a lone error type).
    variant: ClassVar[str] = ""

    def __init__(self, message: str) -> None:
        self.message = _bounded(message)
        super().__init__(self.message)

    @property
    def code(self) -> str:
        """PROTOCOL.md's dotted error code, from the outermost enum to the innermost variant."""
        return f"{self.family}.{self.variant}" if self.variant else self.family

    def payload(self) -> Payload:
        """Protocol payload fields of the innermost variant (``tool``, ``actual``/``limit`` …)."""
        return {}


class _ToolPayload(SessionToolsetError):
    """A variant whose only payload is the ToolId it is about."""

    def __init__(self, tool: str, message: str) -> None:
        self.tool = tool
        super().__init__(message)

    def payload(self) -> Payload:
        return {"tool": self.tool}


class _Wrapping(SessionToolsetError):
    """A variant that wraps an error of another family and takes its code and payload."""

    def __init__(self, inner: SessionToolsetError) -> None:
        self.inner = inner
        super().__init__(f"{self.family}.{self.variant}: {inner.message}")
        self.__cause__ = inner

    @property
    def code(self) -> str:
        inner_path = self.inner.code.partition(".")[2] or self.inner.code
        return f"{self.family}.{self.variant}.{inner_path}"

    def payload(self) -> Payload:
        return self.inner.payload()


# --- 1.1 ToolId -------------------------------------------------------------------------------


class ToolIdError(SessionToolsetError, ValueError):
    """``ToolId.parse`` refused the text.  Remedy: pass a ``namespace:name`` id made of
    canonical segments, or build it with a source-aware constructor (``ToolId.mcp`` …)."""

    family = "ToolIdError"


class ToolIdEmpty(ToolIdError):
    variant = "Empty"

    def __init__(self) -> None:
        super().__init__("tool id is empty")


class ToolIdOversized(ToolIdError):
    variant = "Oversized"

    def __init__(self, actual: int, limit: int) -> None:
        self.actual = actual
        self.limit = limit
        super().__init__(f"tool id is {actual} bytes, over the limit of {limit}")

    def payload(self) -> Payload:
        return {"actual": self.actual, "limit": self.limit}


class ToolIdMissingNamespace(ToolIdError):
    variant = "MissingNamespace"

    def __init__(self) -> None:
        super().__init__("tool id has no ':' separating namespace and name")


class ToolIdInvalidNamespace(ToolIdError):
    variant = "InvalidNamespace"

    def __init__(self) -> None:
        super().__init__(
            "tool id namespace is not a canonical segment "
            "(1-64 bytes of [a-z0-9_.-], starting with [a-z0-9])"
        )


class ToolIdInvalidName(ToolIdError):
    variant = "InvalidName"

    def __init__(self) -> None:
        super().__init__(
            "tool id name is not a canonical segment "
            "(1-128 bytes of [a-z0-9_.-], starting with [a-z0-9])"
        )


# --- 1.2 SessionId ----------------------------------------------------------------------------


class SessionIdError(SessionToolsetError, ValueError):
    """``SessionId.parse`` refused the text.  Remedy: a non-empty id of at most 256 UTF-8
    bytes with no Unicode control characters."""

    family = "SessionIdError"


class SessionIdEmpty(SessionIdError):
    variant = "Empty"

    def __init__(self) -> None:
        super().__init__("session id is empty")


class SessionIdOversized(SessionIdError):
    variant = "Oversized"

    def __init__(self, actual: int, limit: int) -> None:
        self.actual = actual
        self.limit = limit
        super().__init__(f"session id is {actual} bytes, over the limit of {limit}")

    def payload(self) -> Payload:
        return {"actual": self.actual, "limit": self.limit}


class SessionIdControlCharacters(SessionIdError):
    variant = "ControlCharacters"

    def __init__(self) -> None:
        super().__init__("session id contains control characters")


# --- 1.3 CatalogGeneration --------------------------------------------------------------------


class CatalogGenerationOverflow(SessionToolsetError, OverflowError):
    """The catalog generation is at 2^64-1 and cannot advance.

    Generations never wrap and never stick, so the mutation was refused.  Remedy: rebuild the
    catalog; a generation value must never be reused.
    """

    family = "CatalogGenerationOverflow"

    def __init__(self) -> None:
        super().__init__("catalog generation is at its maximum (2^64-1) and cannot advance")


# --- 1.5 SessionActivationGrant ---------------------------------------------------------------


class ActivationGrantError(SessionToolsetError, ValueError):
    """A grant was constructed for a session text that is not a valid SessionId."""

    family = "ActivationGrantError"


class ActivationGrantEmptySessionId(ActivationGrantError):
    variant = "EmptySessionId"

    def __init__(self) -> None:
        super().__init__("grant session id is empty")


class ActivationGrantOversizedSessionId(ActivationGrantError):
    variant = "OversizedSessionId"

    def __init__(self, actual: int, limit: int) -> None:
        self.actual = actual
        self.limit = limit
        super().__init__(f"grant session id is {actual} bytes, over the limit of {limit}")

    def payload(self) -> Payload:
        return {"actual": self.actual, "limit": self.limit}


class ActivationGrantControlCharacterSessionId(ActivationGrantError):
    variant = "ControlCharacterSessionId"

    def __init__(self) -> None:
        super().__init__("grant session id contains control characters")


# --- 2 Catalog --------------------------------------------------------------------------------


class CatalogError(SessionToolsetError):
    """A catalog mutation was refused; the catalog is unchanged."""

    family = "CatalogError"


class CatalogDuplicateToolId(CatalogError, _ToolPayload):
    variant = "DuplicateToolId"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"tool id {tool} is already cataloged")


class CatalogGenerationExhausted(CatalogError):
    variant = "GenerationExhausted"

    def __init__(self) -> None:
        super().__init__("catalog generation is exhausted (2^64-1); mutation refused")


# --- 3 SessionToolSet -------------------------------------------------------------------------


class SessionToolSetError(SessionToolsetError):
    """Building a session tool set was refused."""

    family = "SessionToolSetError"


class UnknownCoreTool(SessionToolSetError, _ToolPayload):
    variant = "UnknownCoreTool"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"core tool {tool} is not in the catalog")


class ActivationError(SessionToolsetError):
    """``SessionToolSet.activate`` refused a grant (checked in SPEC.md §3 order)."""

    family = "ActivationError"


class ActivationSessionMismatch(ActivationError):
    variant = "SessionMismatch"

    def __init__(self) -> None:
        super().__init__("grant was issued for another session")


class ActivationUnknownTool(ActivationError, _ToolPayload):
    variant = "UnknownTool"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"granted tool {tool} is not in the catalog")


class ActivationStaleGeneration(ActivationError):
    variant = "StaleGeneration"

    def __init__(self, grant: int, catalog: int) -> None:
        self.grant = grant
        self.catalog = catalog
        super().__init__(f"grant is for catalog generation {grant}, catalog is at {catalog}")

    def payload(self) -> Payload:
        return {"grant": self.grant, "catalog": self.catalog}


class ActivationDigestMismatch(ActivationError, _ToolPayload):
    variant = "DigestMismatch"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"grant digest differs from the schema of {tool}")


class ActivationStaleSnapshot(ActivationError):
    variant = "StaleSnapshot"

    def __init__(self, set: int, catalog: int) -> None:
        self.set = set
        self.catalog = catalog
        super().__init__(
            f"tool set is pinned to catalog generation {set}, catalog is at {catalog}; "
            "rebuild the set first"
        )

    def payload(self) -> Payload:
        return {"set": self.set, "catalog": self.catalog}


class ActivationAlreadyActivated(ActivationError, _ToolPayload):
    variant = "AlreadyActivated"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"tool {tool} is already activated")


class ActivationAlreadyCore(ActivationError, _ToolPayload):
    variant = "AlreadyCore"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"tool {tool} is a core tool of this set")


class BulkActivationError(SessionToolsetError):
    """``activate_many`` rejected the whole batch at its first failing grant; nothing applied."""

    family = "BulkActivationError"


class BulkDuplicateRequest(BulkActivationError, _ToolPayload):
    variant = "DuplicateRequest"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"tool {tool} is requested twice in one batch")


class BulkGrant(BulkActivationError, _Wrapping):
    variant = "Grant"
    inner: ActivationError

    def __init__(self, inner: ActivationError) -> None:
        _Wrapping.__init__(self, inner)


class BulkUntrustedSource(BulkActivationError, _ToolPayload):
    variant = "UntrustedSource"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"tool {tool} comes from an untrusted source")


class BulkSourceProvenanceMismatch(BulkActivationError, _ToolPayload):
    variant = "SourceProvenanceMismatch"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"source and provenance of {tool} disagree")


class ExactRevocationError(SessionToolsetError):
    """``revoke_exact`` refused: only exact activations can be revoked."""

    family = "ExactRevocationError"


class RevocationCoreTool(ExactRevocationError, _ToolPayload):
    variant = "CoreTool"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"tool {tool} is core and cannot be revoked")


class RevocationNotActivated(ExactRevocationError, _ToolPayload):
    variant = "NotActivated"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"tool {tool} is not activated")


# --- 4 Execution gate -------------------------------------------------------------------------


class ToolAuthorizationError(SessionToolsetError):
    """The execution gate denied a call; no implementation was acquired, nothing changed."""

    family = "ToolAuthorizationError"


class AuthorizationNotCataloged(ToolAuthorizationError, _ToolPayload):
    variant = "NotCataloged"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"denied: {tool} is not in the catalog")


class AuthorizationSchemaDigestMismatch(ToolAuthorizationError, _ToolPayload):
    variant = "SchemaDigestMismatch"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(
            self, tool, f"denied: the schema of {tool} changed since it was pinned"
        )


class AuthorizationNotActivated(ToolAuthorizationError, _ToolPayload):
    variant = "NotActivated"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"denied: {tool} is neither core nor activated")


class AuthorizationSourceProvenanceMismatch(ToolAuthorizationError, _ToolPayload):
    variant = "SourceProvenanceMismatch"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(
            self, tool, f"denied: source or provenance of {tool} differs from its pin"
        )


class AuthorizationUntrustedSource(ToolAuthorizationError, _ToolPayload):
    variant = "UntrustedSource"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"denied: {tool} comes from an untrusted source")


class AuthorizationUnknownTool(ToolAuthorizationError):
    """No live tool answers to the wire name.  ``wire_name`` is already bounded to 128 bytes."""

    variant = "UnknownTool"

    def __init__(self, wire_name: str) -> None:
        self.wire_name = wire_name
        super().__init__(f"denied: no tool is registered under the wire name {wire_name!r}")

    def payload(self) -> Payload:
        return {"wire_name": self.wire_name}


# --- 5 Host entry points ----------------------------------------------------------------------


class GrantIssuanceError(SessionToolsetError):
    """The host refused to issue an exact grant."""

    family = "GrantIssuanceError"


class IssuanceUnknownTool(GrantIssuanceError, _ToolPayload):
    variant = "UnknownTool"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"no grant: {tool} is not in the catalog")


class IssuanceUntrustedSource(GrantIssuanceError, _ToolPayload):
    variant = "UntrustedSource"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"no grant: {tool} comes from an untrusted source")


class IssuanceSourceProvenanceMismatch(GrantIssuanceError, _ToolPayload):
    variant = "SourceProvenanceMismatch"

    def __init__(self, tool: str) -> None:
        _ToolPayload.__init__(self, tool, f"no grant: source and provenance of {tool} disagree")


class HostActivationError(SessionToolsetError):
    """A host entry point refused an activation request; the set is unchanged."""

    family = "HostActivationError"


class HostConfirmationRequired(HostActivationError):
    variant = "ConfirmationRequired"

    def __init__(self) -> None:
        super().__init__("model-initiated activation needs the host's confirmation")


class HostIssuance(HostActivationError, _Wrapping):
    variant = "Issuance"
    inner: GrantIssuanceError

    def __init__(self, inner: GrantIssuanceError) -> None:
        _Wrapping.__init__(self, inner)


class HostBulk(HostActivationError, _Wrapping):
    variant = "Bulk"
    inner: BulkActivationError

    def __init__(self, inner: BulkActivationError) -> None:
        _Wrapping.__init__(self, inner)
