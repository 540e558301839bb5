from glovebox.agent.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

BACKEND_ACCESSIBILITY: Backend
BACKEND_BROWSER: Backend
BACKEND_CLIPBOARD: Backend
BACKEND_INPUT: Backend
BACKEND_SCREEN: Backend
BACKEND_UNSPECIFIED: Backend
CAPABILITY_STATE_AVAILABLE: CapabilityState
CAPABILITY_STATE_DEGRADED: CapabilityState
CAPABILITY_STATE_UNAVAILABLE: CapabilityState
CAPABILITY_STATE_UNSPECIFIED: CapabilityState
DESCRIPTOR: _descriptor.FileDescriptor

class Capability(_message.Message):
    __slots__ = ["backend", "reason", "state"]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    backend: Backend
    reason: str
    state: CapabilityState
    def __init__(self, backend: _Optional[_Union[Backend, str]] = ..., state: _Optional[_Union[CapabilityState, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class Display(_message.Message):
    __slots__ = ["bounds", "id", "primary", "scale"]
    BOUNDS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_FIELD_NUMBER: _ClassVar[int]
    SCALE_FIELD_NUMBER: _ClassVar[int]
    bounds: _common_pb2.Rect
    id: str
    primary: bool
    scale: float
    def __init__(self, id: _Optional[str] = ..., bounds: _Optional[_Union[_common_pb2.Rect, _Mapping]] = ..., scale: _Optional[float] = ..., primary: bool = ...) -> None: ...

class GetInfoRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetInfoResponse(_message.Message):
    __slots__ = ["capabilities", "displays", "generation", "protocol_version", "version", "x_display"]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    DISPLAYS_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    X_DISPLAY_FIELD_NUMBER: _ClassVar[int]
    capabilities: _containers.RepeatedCompositeFieldContainer[Capability]
    displays: _containers.RepeatedCompositeFieldContainer[Display]
    generation: int
    protocol_version: str
    version: str
    x_display: str
    def __init__(self, version: _Optional[str] = ..., protocol_version: _Optional[str] = ..., generation: _Optional[int] = ..., x_display: _Optional[str] = ..., displays: _Optional[_Iterable[_Union[Display, _Mapping]]] = ..., capabilities: _Optional[_Iterable[_Union[Capability, _Mapping]]] = ...) -> None: ...

class Backend(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class CapabilityState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
