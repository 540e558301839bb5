from glovebox.agent.v1 import act_pb2 as _act_pb2
from glovebox.agent.v1 import clipboard_pb2 as _clipboard_pb2
from glovebox.agent.v1 import common_pb2 as _common_pb2
from glovebox.agent.v1 import observe_pb2 as _observe_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _act_pb2.ActRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_act_pb2.ActRequest, _Mapping]] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _act_pb2.ActResponse
    def __init__(self, response: _Optional[_Union[_act_pb2.ActResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class CaptureScreenshotRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _observe_pb2.CaptureScreenshotRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_observe_pb2.CaptureScreenshotRequest, _Mapping]] = ...) -> None: ...

class CaptureScreenshotResponse(_message.Message):
    __slots__ = ["audit_seq", "response", "target"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _observe_pb2.CaptureScreenshotResponse
    target: _common_pb2.FrozenTarget
    def __init__(self, response: _Optional[_Union[_observe_pb2.CaptureScreenshotResponse, _Mapping]] = ..., target: _Optional[_Union[_common_pb2.FrozenTarget, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class GetCursorPositionRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _observe_pb2.GetCursorPositionRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_observe_pb2.GetCursorPositionRequest, _Mapping]] = ...) -> None: ...

class GetCursorPositionResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _observe_pb2.GetCursorPositionResponse
    def __init__(self, response: _Optional[_Union[_observe_pb2.GetCursorPositionResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class ListWindowsRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _observe_pb2.ListWindowsRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_observe_pb2.ListWindowsRequest, _Mapping]] = ...) -> None: ...

class ListWindowsResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _observe_pb2.ListWindowsResponse
    def __init__(self, response: _Optional[_Union[_observe_pb2.ListWindowsResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class ReadClipboardRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _clipboard_pb2.ReadClipboardRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_clipboard_pb2.ReadClipboardRequest, _Mapping]] = ...) -> None: ...

class ReadClipboardResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _clipboard_pb2.ReadClipboardResponse
    def __init__(self, response: _Optional[_Union[_clipboard_pb2.ReadClipboardResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class WatchScreenRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _observe_pb2.WatchScreenRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_observe_pb2.WatchScreenRequest, _Mapping]] = ...) -> None: ...

class WatchScreenResponse(_message.Message):
    __slots__ = ["response"]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    response: _observe_pb2.WatchScreenResponse
    def __init__(self, response: _Optional[_Union[_observe_pb2.WatchScreenResponse, _Mapping]] = ...) -> None: ...

class WriteClipboardRequest(_message.Message):
    __slots__ = ["confirm", "request", "session_id"]
    CONFIRM_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    confirm: bool
    request: _clipboard_pb2.WriteClipboardRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_clipboard_pb2.WriteClipboardRequest, _Mapping]] = ..., confirm: bool = ...) -> None: ...

class WriteClipboardResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _clipboard_pb2.WriteClipboardResponse
    def __init__(self, response: _Optional[_Union[_clipboard_pb2.WriteClipboardResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...
