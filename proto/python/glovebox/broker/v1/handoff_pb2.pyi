from glovebox.broker.v1 import guest_pb2 as _guest_pb2
from glovebox.broker.v1 import session_pb2 as _session_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

CONTROL_END_CAUSE_FORCED: ControlEndCause
CONTROL_END_CAUSE_IDLE_TIMEOUT: ControlEndCause
CONTROL_END_CAUSE_RELEASED: ControlEndCause
CONTROL_END_CAUSE_UNSPECIFIED: ControlEndCause
DESCRIPTOR: _descriptor.FileDescriptor
HELP_STATE_ANSWERED: HelpState
HELP_STATE_CANCELLED: HelpState
HELP_STATE_PENDING: HelpState
HELP_STATE_TAKEN: HelpState
HELP_STATE_UNSPECIFIED: HelpState

class ControlAcquired(_message.Message):
    __slots__ = ["generation", "holder", "reason"]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    generation: int
    holder: str
    reason: str
    def __init__(self, holder: _Optional[str] = ..., reason: _Optional[str] = ..., generation: _Optional[int] = ...) -> None: ...

class ControlReleased(_message.Message):
    __slots__ = ["by", "cause", "generation"]
    BY_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    by: str
    cause: ControlEndCause
    generation: int
    def __init__(self, by: _Optional[str] = ..., generation: _Optional[int] = ..., cause: _Optional[_Union[ControlEndCause, str]] = ...) -> None: ...

class GuestStateChanged(_message.Message):
    __slots__ = ["agent_generation", "state"]
    AGENT_GENERATION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    agent_generation: int
    state: _guest_pb2.GuestState
    def __init__(self, state: _Optional[_Union[_guest_pb2.GuestState, str]] = ..., agent_generation: _Optional[int] = ...) -> None: ...

class HelpAnswered(_message.Message):
    __slots__ = ["by", "generation", "help_id", "note"]
    BY_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    HELP_ID_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    by: str
    generation: int
    help_id: str
    note: str
    def __init__(self, help_id: _Optional[str] = ..., by: _Optional[str] = ..., note: _Optional[str] = ..., generation: _Optional[int] = ...) -> None: ...

class HelpRequest(_message.Message):
    __slots__ = ["answered_at", "created_at", "guest", "id", "instructions", "note", "principal", "reason", "session_id", "state", "taken_by"]
    ANSWERED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TAKEN_BY_FIELD_NUMBER: _ClassVar[int]
    answered_at: _timestamp_pb2.Timestamp
    created_at: _timestamp_pb2.Timestamp
    guest: str
    id: str
    instructions: str
    note: str
    principal: str
    reason: str
    session_id: str
    state: HelpState
    taken_by: str
    def __init__(self, id: _Optional[str] = ..., guest: _Optional[str] = ..., session_id: _Optional[str] = ..., principal: _Optional[str] = ..., reason: _Optional[str] = ..., instructions: _Optional[str] = ..., state: _Optional[_Union[HelpState, str]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., taken_by: _Optional[str] = ..., answered_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., note: _Optional[str] = ...) -> None: ...

class HelpTaken(_message.Message):
    __slots__ = ["by", "help_id"]
    BY_FIELD_NUMBER: _ClassVar[int]
    HELP_ID_FIELD_NUMBER: _ClassVar[int]
    by: str
    help_id: str
    def __init__(self, help_id: _Optional[str] = ..., by: _Optional[str] = ...) -> None: ...

class ListHelpRequestsRequest(_message.Message):
    __slots__ = ["guest", "include_done"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_DONE_FIELD_NUMBER: _ClassVar[int]
    guest: str
    include_done: bool
    def __init__(self, guest: _Optional[str] = ..., include_done: bool = ...) -> None: ...

class ListHelpRequestsResponse(_message.Message):
    __slots__ = ["requests"]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[HelpRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[HelpRequest, _Mapping]]] = ...) -> None: ...

class RequestHelpRequest(_message.Message):
    __slots__ = ["instructions", "reason", "session_id"]
    INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    instructions: str
    reason: str
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., reason: _Optional[str] = ..., instructions: _Optional[str] = ...) -> None: ...

class RequestHelpResponse(_message.Message):
    __slots__ = ["help"]
    HELP_FIELD_NUMBER: _ClassVar[int]
    help: HelpRequest
    def __init__(self, help: _Optional[_Union[HelpRequest, _Mapping]] = ...) -> None: ...

class SessionClosing(_message.Message):
    __slots__ = ["reason"]
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: _session_pb2.CloseReason
    def __init__(self, reason: _Optional[_Union[_session_pb2.CloseReason, str]] = ...) -> None: ...

class SessionEvent(_message.Message):
    __slots__ = ["control_acquired", "control_released", "guest_state_changed", "help_answered", "help_taken", "seq", "session_closing", "time"]
    CONTROL_ACQUIRED_FIELD_NUMBER: _ClassVar[int]
    CONTROL_RELEASED_FIELD_NUMBER: _ClassVar[int]
    GUEST_STATE_CHANGED_FIELD_NUMBER: _ClassVar[int]
    HELP_ANSWERED_FIELD_NUMBER: _ClassVar[int]
    HELP_TAKEN_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SESSION_CLOSING_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    control_acquired: ControlAcquired
    control_released: ControlReleased
    guest_state_changed: GuestStateChanged
    help_answered: HelpAnswered
    help_taken: HelpTaken
    seq: int
    session_closing: SessionClosing
    time: _timestamp_pb2.Timestamp
    def __init__(self, seq: _Optional[int] = ..., time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., control_acquired: _Optional[_Union[ControlAcquired, _Mapping]] = ..., control_released: _Optional[_Union[ControlReleased, _Mapping]] = ..., help_taken: _Optional[_Union[HelpTaken, _Mapping]] = ..., help_answered: _Optional[_Union[HelpAnswered, _Mapping]] = ..., session_closing: _Optional[_Union[SessionClosing, _Mapping]] = ..., guest_state_changed: _Optional[_Union[GuestStateChanged, _Mapping]] = ...) -> None: ...

class WatchSessionEventsRequest(_message.Message):
    __slots__ = ["from_seq", "session_id"]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    from_seq: int
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., from_seq: _Optional[int] = ...) -> None: ...

class WatchSessionEventsResponse(_message.Message):
    __slots__ = ["event"]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: SessionEvent
    def __init__(self, event: _Optional[_Union[SessionEvent, _Mapping]] = ...) -> None: ...

class HelpState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ControlEndCause(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
