from glovebox.agent.v1 import clipboard_pb2 as _clipboard_pb2
from glovebox.agent.v1 import common_pb2 as _common_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListClipboardTargetsRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _clipboard_pb2.ListClipboardTargetsRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_clipboard_pb2.ListClipboardTargetsRequest, _Mapping]] = ...) -> None: ...

class ListClipboardTargetsResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _clipboard_pb2.ListClipboardTargetsResponse
    def __init__(self, response: _Optional[_Union[_clipboard_pb2.ListClipboardTargetsResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class PasteTextRequest(_message.Message):
    __slots__ = ["confirm", "request", "session_id"]
    CONFIRM_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    confirm: bool
    request: _clipboard_pb2.PasteTextRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_clipboard_pb2.PasteTextRequest, _Mapping]] = ..., confirm: bool = ...) -> None: ...

class PasteTextResponse(_message.Message):
    __slots__ = ["audit_seq", "response", "target"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _clipboard_pb2.PasteTextResponse
    target: _common_pb2.FrozenTarget
    def __init__(self, response: _Optional[_Union[_clipboard_pb2.PasteTextResponse, _Mapping]] = ..., target: _Optional[_Union[_common_pb2.FrozenTarget, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class ReadClipboardDataRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _clipboard_pb2.ReadClipboardDataRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_clipboard_pb2.ReadClipboardDataRequest, _Mapping]] = ...) -> None: ...

class ReadClipboardDataResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _clipboard_pb2.ReadClipboardDataResponse
    def __init__(self, response: _Optional[_Union[_clipboard_pb2.ReadClipboardDataResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class WriteClipboardDataRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _clipboard_pb2.WriteClipboardDataRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_clipboard_pb2.WriteClipboardDataRequest, _Mapping]] = ...) -> None: ...

class WriteClipboardDataResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _clipboard_pb2.WriteClipboardDataResponse
    def __init__(self, response: _Optional[_Union[_clipboard_pb2.WriteClipboardDataResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...
