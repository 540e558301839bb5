from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AcquireControlRequest(_message.Message):
    __slots__ = ["guest", "help_id", "reason"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    HELP_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    guest: str
    help_id: str
    reason: str
    def __init__(self, guest: _Optional[str] = ..., reason: _Optional[str] = ..., help_id: _Optional[str] = ...) -> None: ...

class AcquireControlResponse(_message.Message):
    __slots__ = ["lease"]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    lease: ControlLease
    def __init__(self, lease: _Optional[_Union[ControlLease, _Mapping]] = ...) -> None: ...

class ControlLease(_message.Message):
    __slots__ = ["acquired_at", "generation", "guest", "help_ids", "holder", "last_input_at", "reason"]
    ACQUIRED_AT_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    HELP_IDS_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    LAST_INPUT_AT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    acquired_at: _timestamp_pb2.Timestamp
    generation: int
    guest: str
    help_ids: _containers.RepeatedScalarFieldContainer[str]
    holder: str
    last_input_at: _timestamp_pb2.Timestamp
    reason: str
    def __init__(self, guest: _Optional[str] = ..., holder: _Optional[str] = ..., reason: _Optional[str] = ..., acquired_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., generation: _Optional[int] = ..., last_input_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., help_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetControlRequest(_message.Message):
    __slots__ = ["guest"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    guest: str
    def __init__(self, guest: _Optional[str] = ...) -> None: ...

class GetControlResponse(_message.Message):
    __slots__ = ["generation", "held", "lease"]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    HELD_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    generation: int
    held: bool
    lease: ControlLease
    def __init__(self, held: bool = ..., lease: _Optional[_Union[ControlLease, _Mapping]] = ..., generation: _Optional[int] = ...) -> None: ...

class ReleaseControlRequest(_message.Message):
    __slots__ = ["guest", "note"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    guest: str
    note: str
    def __init__(self, guest: _Optional[str] = ..., note: _Optional[str] = ...) -> None: ...

class ReleaseControlResponse(_message.Message):
    __slots__ = ["generation"]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    generation: int
    def __init__(self, generation: _Optional[int] = ...) -> None: ...
