from glovebox.agent.v1 import agent_pb2 as _agent_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
GUEST_STATE_CONNECTING: GuestState
GUEST_STATE_READY: GuestState
GUEST_STATE_UNREACHABLE: GuestState
GUEST_STATE_UNSPECIFIED: GuestState

class GetGuestRequest(_message.Message):
    __slots__ = ["name"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetGuestResponse(_message.Message):
    __slots__ = ["guest"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    guest: Guest
    def __init__(self, guest: _Optional[_Union[Guest, _Mapping]] = ...) -> None: ...

class Guest(_message.Message):
    __slots__ = ["agent", "control_held", "endpoint", "generation", "labels", "last_error", "name", "open_sessions", "source", "state", "state_since"]
    class LabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    AGENT_FIELD_NUMBER: _ClassVar[int]
    CONTROL_HELD_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPEN_SESSIONS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_SINCE_FIELD_NUMBER: _ClassVar[int]
    agent: _agent_pb2.GetInfoResponse
    control_held: bool
    endpoint: str
    generation: int
    labels: _containers.ScalarMap[str, str]
    last_error: str
    name: str
    open_sessions: int
    source: str
    state: GuestState
    state_since: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., endpoint: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., state: _Optional[_Union[GuestState, str]] = ..., last_error: _Optional[str] = ..., state_since: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., agent: _Optional[_Union[_agent_pb2.GetInfoResponse, _Mapping]] = ..., generation: _Optional[int] = ..., control_held: bool = ..., open_sessions: _Optional[int] = ..., source: _Optional[str] = ...) -> None: ...

class ListGuestsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListGuestsResponse(_message.Message):
    __slots__ = ["guests"]
    GUESTS_FIELD_NUMBER: _ClassVar[int]
    guests: _containers.RepeatedCompositeFieldContainer[Guest]
    def __init__(self, guests: _Optional[_Iterable[_Union[Guest, _Mapping]]] = ...) -> None: ...

class RegisterGuestRequest(_message.Message):
    __slots__ = ["endpoint", "labels", "name"]
    class LabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    endpoint: str
    labels: _containers.ScalarMap[str, str]
    name: str
    def __init__(self, name: _Optional[str] = ..., endpoint: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ...) -> None: ...

class RegisterGuestResponse(_message.Message):
    __slots__ = ["guest"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    guest: Guest
    def __init__(self, guest: _Optional[_Union[Guest, _Mapping]] = ...) -> None: ...

class UnregisterGuestRequest(_message.Message):
    __slots__ = ["name"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class UnregisterGuestResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GuestState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
