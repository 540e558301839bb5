from glovebox.agent.v1 import common_pb2 as _common_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

AUDIT_PHASE_COMPLETE: AuditPhase
AUDIT_PHASE_INTENT: AuditPhase
AUDIT_PHASE_OUTCOME: AuditPhase
AUDIT_PHASE_UNSPECIFIED: AuditPhase
AUDIT_SOURCE_BROKER: AuditSource
AUDIT_SOURCE_HUMAN: AuditSource
AUDIT_SOURCE_UNSPECIFIED: AuditSource
DESCRIPTOR: _descriptor.FileDescriptor

class AuditRecord(_message.Message):
    __slots__ = ["args", "code", "duration_us", "guest", "hash", "intent_seq", "phase", "prev_hash", "principal", "reason", "replay_of", "request_hash", "request_id", "response", "rpc", "seq", "session_id", "source", "target", "time"]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    DURATION_US_FIELD_NUMBER: _ClassVar[int]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    INTENT_SEQ_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    PREV_HASH_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REPLAY_OF_FIELD_NUMBER: _ClassVar[int]
    REQUEST_HASH_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    RPC_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    args: _struct_pb2.Struct
    code: str
    duration_us: int
    guest: str
    hash: str
    intent_seq: int
    phase: AuditPhase
    prev_hash: str
    principal: str
    reason: str
    replay_of: int
    request_hash: str
    request_id: str
    response: _struct_pb2.Struct
    rpc: str
    seq: int
    session_id: str
    source: AuditSource
    target: _common_pb2.FrozenTarget
    time: _timestamp_pb2.Timestamp
    def __init__(self, seq: _Optional[int] = ..., guest: _Optional[str] = ..., time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., phase: _Optional[_Union[AuditPhase, str]] = ..., intent_seq: _Optional[int] = ..., rpc: _Optional[str] = ..., session_id: _Optional[str] = ..., principal: _Optional[str] = ..., target: _Optional[_Union[_common_pb2.FrozenTarget, _Mapping]] = ..., args: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., code: _Optional[str] = ..., reason: _Optional[str] = ..., duration_us: _Optional[int] = ..., prev_hash: _Optional[str] = ..., hash: _Optional[str] = ..., request_id: _Optional[str] = ..., request_hash: _Optional[str] = ..., replay_of: _Optional[int] = ..., response: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., source: _Optional[_Union[AuditSource, str]] = ...) -> None: ...

class ListAuditRecordsRequest(_message.Message):
    __slots__ = ["from_seq", "guest", "page_size", "page_token", "session_id", "to_seq"]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TO_SEQ_FIELD_NUMBER: _ClassVar[int]
    from_seq: int
    guest: str
    page_size: int
    page_token: str
    session_id: str
    to_seq: int
    def __init__(self, guest: _Optional[str] = ..., session_id: _Optional[str] = ..., from_seq: _Optional[int] = ..., to_seq: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListAuditRecordsResponse(_message.Message):
    __slots__ = ["next_page_token", "records"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    records: _containers.RepeatedCompositeFieldContainer[AuditRecord]
    def __init__(self, records: _Optional[_Iterable[_Union[AuditRecord, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class WatchAuditRecordsRequest(_message.Message):
    __slots__ = ["from_seq", "guest"]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    from_seq: int
    guest: str
    def __init__(self, guest: _Optional[str] = ..., from_seq: _Optional[int] = ...) -> None: ...

class WatchAuditRecordsResponse(_message.Message):
    __slots__ = ["record"]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    record: AuditRecord
    def __init__(self, record: _Optional[_Union[AuditRecord, _Mapping]] = ...) -> None: ...

class AuditPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class AuditSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
