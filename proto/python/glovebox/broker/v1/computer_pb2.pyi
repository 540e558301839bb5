from glovebox.agent.v1 import accessibility_pb2 as _accessibility_pb2
from glovebox.agent.v1 import act_pb2 as _act_pb2
from glovebox.agent.v1 import browser_pb2 as _browser_pb2
from glovebox.agent.v1 import clipboard_pb2 as _clipboard_pb2
from glovebox.agent.v1 import common_pb2 as _common_pb2
from glovebox.agent.v1 import observe_pb2 as _observe_pb2
from glovebox.broker.v1 import clipboard_data_pb2 as _clipboard_data_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActBatchRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _act_pb2.ActBatchRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_act_pb2.ActBatchRequest, _Mapping]] = ...) -> None: ...

class ActBatchResponse(_message.Message):
    __slots__ = ["audit_seq", "response", "timing"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _act_pb2.ActBatchResponse
    timing: MutationTiming
    def __init__(self, response: _Optional[_Union[_act_pb2.ActBatchResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ..., timing: _Optional[_Union[MutationTiming, _Mapping]] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _act_pb2.ActRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_act_pb2.ActRequest, _Mapping]] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ["audit_seq", "replayed", "response", "timing"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    replayed: bool
    response: _act_pb2.ActResponse
    timing: MutationTiming
    def __init__(self, response: _Optional[_Union[_act_pb2.ActResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ..., timing: _Optional[_Union[MutationTiming, _Mapping]] = ..., replayed: bool = ...) -> None: ...

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

class CaptureTabRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _browser_pb2.CaptureTabRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_browser_pb2.CaptureTabRequest, _Mapping]] = ...) -> None: ...

class CaptureTabResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _browser_pb2.CaptureTabResponse
    def __init__(self, response: _Optional[_Union[_browser_pb2.CaptureTabResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class ExtractRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _browser_pb2.ExtractRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_browser_pb2.ExtractRequest, _Mapping]] = ...) -> None: ...

class ExtractResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _browser_pb2.ExtractResponse
    def __init__(self, response: _Optional[_Union[_browser_pb2.ExtractResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class GetAppRequest(_message.Message):
    __slots__ = ["request", "request_id", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _accessibility_pb2.GetAppRequest
    request_id: str
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_accessibility_pb2.GetAppRequest, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class GetAppResponse(_message.Message):
    __slots__ = ["audit_seq", "replayed", "response", "timing"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    replayed: bool
    response: _accessibility_pb2.GetAppResponse
    timing: MutationTiming
    def __init__(self, response: _Optional[_Union[_accessibility_pb2.GetAppResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ..., timing: _Optional[_Union[MutationTiming, _Mapping]] = ..., replayed: bool = ...) -> None: ...

class GetBrowserRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _browser_pb2.GetBrowserRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_browser_pb2.GetBrowserRequest, _Mapping]] = ...) -> None: ...

class GetBrowserResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _browser_pb2.GetBrowserResponse
    def __init__(self, response: _Optional[_Union[_browser_pb2.GetBrowserResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

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

class ListAppsRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _accessibility_pb2.ListAppsRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_accessibility_pb2.ListAppsRequest, _Mapping]] = ...) -> None: ...

class ListAppsResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _accessibility_pb2.ListAppsResponse
    def __init__(self, response: _Optional[_Union[_accessibility_pb2.ListAppsResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class ListBrowsersRequest(_message.Message):
    __slots__ = ["request", "request_id", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _browser_pb2.ListBrowsersRequest
    request_id: str
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_browser_pb2.ListBrowsersRequest, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ListBrowsersResponse(_message.Message):
    __slots__ = ["audit_seq", "replayed", "response", "timing"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    replayed: bool
    response: _browser_pb2.ListBrowsersResponse
    timing: MutationTiming
    def __init__(self, response: _Optional[_Union[_browser_pb2.ListBrowsersResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ..., timing: _Optional[_Union[MutationTiming, _Mapping]] = ..., replayed: bool = ...) -> None: ...

class ListTabsRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _browser_pb2.ListTabsRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_browser_pb2.ListTabsRequest, _Mapping]] = ...) -> None: ...

class ListTabsResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _browser_pb2.ListTabsResponse
    def __init__(self, response: _Optional[_Union[_browser_pb2.ListTabsResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

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

class MutationTiming(_message.Message):
    __slots__ = ["guest_us", "intent_audit_us", "outcome_audit_us", "queue_us", "total_us", "validate_us"]
    GUEST_US_FIELD_NUMBER: _ClassVar[int]
    INTENT_AUDIT_US_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_AUDIT_US_FIELD_NUMBER: _ClassVar[int]
    QUEUE_US_FIELD_NUMBER: _ClassVar[int]
    TOTAL_US_FIELD_NUMBER: _ClassVar[int]
    VALIDATE_US_FIELD_NUMBER: _ClassVar[int]
    guest_us: int
    intent_audit_us: int
    outcome_audit_us: int
    queue_us: int
    total_us: int
    validate_us: int
    def __init__(self, validate_us: _Optional[int] = ..., intent_audit_us: _Optional[int] = ..., queue_us: _Optional[int] = ..., guest_us: _Optional[int] = ..., outcome_audit_us: _Optional[int] = ..., total_us: _Optional[int] = ...) -> None: ...

class ObserveRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _observe_pb2.ObserveRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_observe_pb2.ObserveRequest, _Mapping]] = ...) -> None: ...

class ObserveResponse(_message.Message):
    __slots__ = ["audit_seq", "response", "target"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _observe_pb2.ObserveResponse
    target: _common_pb2.FrozenTarget
    def __init__(self, response: _Optional[_Union[_observe_pb2.ObserveResponse, _Mapping]] = ..., target: _Optional[_Union[_common_pb2.FrozenTarget, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

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

class SnapshotAppRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _accessibility_pb2.SnapshotAppRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_accessibility_pb2.SnapshotAppRequest, _Mapping]] = ...) -> None: ...

class SnapshotAppResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _accessibility_pb2.SnapshotAppResponse
    def __init__(self, response: _Optional[_Union[_accessibility_pb2.SnapshotAppResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class SnapshotTabRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _browser_pb2.SnapshotTabRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_browser_pb2.SnapshotTabRequest, _Mapping]] = ...) -> None: ...

class SnapshotTabResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _browser_pb2.SnapshotTabResponse
    def __init__(self, response: _Optional[_Union[_browser_pb2.SnapshotTabResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class SnapshotWindowRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _accessibility_pb2.SnapshotWindowRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_accessibility_pb2.SnapshotWindowRequest, _Mapping]] = ...) -> None: ...

class SnapshotWindowResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _accessibility_pb2.SnapshotWindowResponse
    def __init__(self, response: _Optional[_Union[_accessibility_pb2.SnapshotWindowResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

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
    __slots__ = ["confirm", "request", "request_id", "session_id"]
    CONFIRM_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    confirm: bool
    request: _clipboard_pb2.WriteClipboardRequest
    request_id: str
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_clipboard_pb2.WriteClipboardRequest, _Mapping]] = ..., confirm: bool = ..., request_id: _Optional[str] = ...) -> None: ...

class WriteClipboardResponse(_message.Message):
    __slots__ = ["audit_seq", "replayed", "response", "timing"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    replayed: bool
    response: _clipboard_pb2.WriteClipboardResponse
    timing: MutationTiming
    def __init__(self, response: _Optional[_Union[_clipboard_pb2.WriteClipboardResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ..., timing: _Optional[_Union[MutationTiming, _Mapping]] = ..., replayed: bool = ...) -> None: ...
