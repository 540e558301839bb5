from glovebox.agent.v1 import common_pb2 as _common_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

CLOSE_REASON_BROKER_SHUTDOWN: CloseReason
CLOSE_REASON_GUEST_GONE: CloseReason
CLOSE_REASON_IDLE_TIMEOUT: CloseReason
CLOSE_REASON_REQUESTED: CloseReason
CLOSE_REASON_TTL_EXPIRED: CloseReason
CLOSE_REASON_UNSPECIFIED: CloseReason
DESCRIPTOR: _descriptor.FileDescriptor
SESSION_MODE_ACT: SessionMode
SESSION_MODE_OBSERVE: SessionMode
SESSION_MODE_UNSPECIFIED: SessionMode
SESSION_STATE_CLOSED: SessionState
SESSION_STATE_OPEN: SessionState
SESSION_STATE_UNSPECIFIED: SessionState

class CreateSessionRequest(_message.Message):
    __slots__ = ["guest", "idle_timeout_seconds", "label", "mode", "ttl_seconds"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    IDLE_TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    guest: str
    idle_timeout_seconds: int
    label: str
    mode: SessionMode
    ttl_seconds: int
    def __init__(self, guest: _Optional[str] = ..., label: _Optional[str] = ..., mode: _Optional[_Union[SessionMode, str]] = ..., idle_timeout_seconds: _Optional[int] = ..., ttl_seconds: _Optional[int] = ...) -> None: ...

class CreateSessionResponse(_message.Message):
    __slots__ = ["session"]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class DeleteSessionRequest(_message.Message):
    __slots__ = ["session_id"]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class DeleteSessionResponse(_message.Message):
    __slots__ = ["session"]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = ["session_id"]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ["session"]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class ListSessionsRequest(_message.Message):
    __slots__ = ["guest", "include_closed", "page_size", "page_token"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_CLOSED_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    guest: str
    include_closed: bool
    page_size: int
    page_token: str
    def __init__(self, guest: _Optional[str] = ..., include_closed: bool = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListSessionsResponse(_message.Message):
    __slots__ = ["next_page_token", "sessions"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    sessions: _containers.RepeatedCompositeFieldContainer[Session]
    def __init__(self, sessions: _Optional[_Iterable[_Union[Session, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class Session(_message.Message):
    __slots__ = ["close_reason", "closed_at", "created_at", "default_target", "guest", "id", "idle_timeout_seconds", "label", "last_used_at", "mode", "principal", "state", "ttl_seconds"]
    CLOSED_AT_FIELD_NUMBER: _ClassVar[int]
    CLOSE_REASON_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TARGET_FIELD_NUMBER: _ClassVar[int]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    IDLE_TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_AT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    close_reason: CloseReason
    closed_at: _timestamp_pb2.Timestamp
    created_at: _timestamp_pb2.Timestamp
    default_target: _common_pb2.Target
    guest: str
    id: str
    idle_timeout_seconds: int
    label: str
    last_used_at: _timestamp_pb2.Timestamp
    mode: SessionMode
    principal: str
    state: SessionState
    ttl_seconds: int
    def __init__(self, id: _Optional[str] = ..., guest: _Optional[str] = ..., principal: _Optional[str] = ..., label: _Optional[str] = ..., mode: _Optional[_Union[SessionMode, str]] = ..., state: _Optional[_Union[SessionState, str]] = ..., close_reason: _Optional[_Union[CloseReason, str]] = ..., default_target: _Optional[_Union[_common_pb2.Target, _Mapping]] = ..., idle_timeout_seconds: _Optional[int] = ..., ttl_seconds: _Optional[int] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_used_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., closed_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SetSessionDefaultsRequest(_message.Message):
    __slots__ = ["default_target", "session_id"]
    DEFAULT_TARGET_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    default_target: _common_pb2.Target
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., default_target: _Optional[_Union[_common_pb2.Target, _Mapping]] = ...) -> None: ...

class SetSessionDefaultsResponse(_message.Message):
    __slots__ = ["session"]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class SessionMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class SessionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class CloseReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
