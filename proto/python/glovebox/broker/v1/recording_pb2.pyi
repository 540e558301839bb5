from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
REPLAY_STATUS_DONE: ReplayStatus
REPLAY_STATUS_DONE_BY_COORDINATES: ReplayStatus
REPLAY_STATUS_FAILED: ReplayStatus
REPLAY_STATUS_NOT_FOUND: ReplayStatus
REPLAY_STATUS_RESOLVED_DIFFERENTLY: ReplayStatus
REPLAY_STATUS_SKIPPED: ReplayStatus
REPLAY_STATUS_UNSPECIFIED: ReplayStatus

class ReplayRecordingRequest(_message.Message):
    __slots__ = ["guest", "keep_going", "recording_id"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    KEEP_GOING_FIELD_NUMBER: _ClassVar[int]
    RECORDING_ID_FIELD_NUMBER: _ClassVar[int]
    guest: str
    keep_going: bool
    recording_id: str
    def __init__(self, recording_id: _Optional[str] = ..., guest: _Optional[str] = ..., keep_going: bool = ...) -> None: ...

class ReplayRecordingResponse(_message.Message):
    __slots__ = ["session_id", "steps"]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    steps: _containers.RepeatedCompositeFieldContainer[ReplayStep]
    def __init__(self, session_id: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[ReplayStep, _Mapping]]] = ...) -> None: ...

class ReplayStep(_message.Message):
    __slots__ = ["action", "audit_seq", "detail", "index", "status"]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    action: str
    audit_seq: int
    detail: str
    index: int
    status: ReplayStatus
    def __init__(self, index: _Optional[int] = ..., action: _Optional[str] = ..., status: _Optional[_Union[ReplayStatus, str]] = ..., detail: _Optional[str] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class ReplayStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
