"""session_toolset — the reference implementation of session tool activation (SPEC.md).

Standard library only.  Where to look:

* identities: :mod:`.tool_id`, :mod:`.session_id`, :mod:`.generation`, :mod:`.digest`,
  :mod:`.grant`
* catalog: :mod:`.source` (sources, provenances, the trust rule), :mod:`.record`,
  :mod:`.catalog`
* sets: :mod:`.toolset` (``SessionToolSet.activate_many`` …), :mod:`.shared`
* gate: :mod:`.gate` (``ExecutionGate.authorize`` and its check order), :mod:`.registry`
  (aliases and wire-name resolution)
* host entry points: :mod:`.host`
* errors: :mod:`.errors` (one family per SPEC.md error enum, PROTOCOL.md codes)
* the conformance adapter (PROTOCOL.md v1): :mod:`.adapter`
"""

from .catalog import ToolCatalog
from .digest import SchemaDigest
from .errors import SessionToolsetError
from .gate import (
    ActivationBasis,
    AuthorizedToolCall,
    CoreBasis,
    ExactBasis,
    ExecutionGate,
)
from .generation import GENERATION_MAX, CatalogGeneration
from .grant import SessionActivationGrant
from .host import (
    ActivationAuthority,
    activate_exact_for_user,
    activate_model_initiated,
    carry_forward_enabled,
    issue_exact_grant,
    rebuild_session_set,
    route_session_set,
)
from .json_value import JsonValue, parse_json
from .record import CapabilityRecord
from .registry import WIRE_NAME_MAX_BYTES, RegisteredTool, ResolvedToolCall, ToolRegistry
from .session_id import SessionId
from .shared import SharedSessionToolSet
from .source import (
    BuiltinRuntime,
    BuiltinSource,
    CapabilitySource,
    ExtensionManifest,
    ExtensionSource,
    McpConfig,
    McpSource,
    PluginConfig,
    PluginSource,
    SourceTrust,
    TrustProvenance,
    UnknownSource,
    Unverified,
    source_trust,
)
from .tool_id import ToolId
from .toolset import (
    ActivatedTool,
    CorePin,
    DroppedActivation,
    DropReason,
    RuntimeLease,
    SessionToolSet,
)

__version__ = "0.2.0"

__all__ = [
    "GENERATION_MAX",
    "WIRE_NAME_MAX_BYTES",
    "ActivatedTool",
    "ActivationAuthority",
    "ActivationBasis",
    "AuthorizedToolCall",
    "BuiltinRuntime",
    "BuiltinSource",
    "CapabilityRecord",
    "CapabilitySource",
    "CatalogGeneration",
    "CoreBasis",
    "CorePin",
    "DropReason",
    "DroppedActivation",
    "ExactBasis",
    "ExecutionGate",
    "ExtensionManifest",
    "ExtensionSource",
    "JsonValue",
    "McpConfig",
    "McpSource",
    "PluginConfig",
    "PluginSource",
    "RegisteredTool",
    "ResolvedToolCall",
    "RuntimeLease",
    "SchemaDigest",
    "SessionActivationGrant",
    "SessionId",
    "SessionToolSet",
    "SessionToolsetError",
    "SharedSessionToolSet",
    "SourceTrust",
    "ToolCatalog",
    "ToolId",
    "ToolRegistry",
    "TrustProvenance",
    "UnknownSource",
    "Unverified",
    "__version__",
    "activate_exact_for_user",
    "activate_model_initiated",
    "carry_forward_enabled",
    "issue_exact_grant",
    "parse_json",
    "rebuild_session_set",
    "route_session_set",
    "source_trust",
]
