from glovebox.agent.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

CLIPBOARD_RESTORE_KEPT: ClipboardRestore
CLIPBOARD_RESTORE_PARTIAL: ClipboardRestore
CLIPBOARD_RESTORE_RESTORED: ClipboardRestore
CLIPBOARD_RESTORE_UNSPECIFIED: ClipboardRestore
DESCRIPTOR: _descriptor.FileDescriptor
SELECTION_CLIPBOARD: Selection
SELECTION_PRIMARY: Selection
SELECTION_UNSPECIFIED: Selection
SELECTION_XDND: Selection

class ListClipboardTargetsRequest(_message.Message):
    __slots__ = ["selection"]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    selection: Selection
    def __init__(self, selection: _Optional[_Union[Selection, str]] = ...) -> None: ...

class ListClipboardTargetsResponse(_message.Message):
    __slots__ = ["owned", "targets"]
    OWNED_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    owned: bool
    targets: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, targets: _Optional[_Iterable[str]] = ..., owned: bool = ...) -> None: ...

class PasteTextRequest(_message.Message):
    __slots__ = ["owner", "text", "wait_ms", "window_id"]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    WINDOW_ID_FIELD_NUMBER: _ClassVar[int]
    owner: str
    text: str
    wait_ms: int
    window_id: int
    def __init__(self, owner: _Optional[str] = ..., text: _Optional[str] = ..., window_id: _Optional[int] = ..., wait_ms: _Optional[int] = ...) -> None: ...

class PasteTextResponse(_message.Message):
    __slots__ = ["length", "lost_targets", "requested", "restore", "window_id"]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    LOST_TARGETS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_FIELD_NUMBER: _ClassVar[int]
    RESTORE_FIELD_NUMBER: _ClassVar[int]
    WINDOW_ID_FIELD_NUMBER: _ClassVar[int]
    length: int
    lost_targets: _containers.RepeatedScalarFieldContainer[str]
    requested: bool
    restore: ClipboardRestore
    window_id: int
    def __init__(self, requested: bool = ..., restore: _Optional[_Union[ClipboardRestore, str]] = ..., window_id: _Optional[int] = ..., lost_targets: _Optional[_Iterable[str]] = ..., length: _Optional[int] = ...) -> None: ...

class ReadClipboardDataRequest(_message.Message):
    __slots__ = ["mime_type", "selection"]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    selection: Selection
    def __init__(self, selection: _Optional[_Union[Selection, str]] = ..., mime_type: _Optional[str] = ...) -> None: ...

class ReadClipboardDataResponse(_message.Message):
    __slots__ = ["data", "dragging", "length", "mime_type", "offered", "owned", "stale"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    DRAGGING_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    OFFERED_FIELD_NUMBER: _ClassVar[int]
    OWNED_FIELD_NUMBER: _ClassVar[int]
    STALE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    dragging: bool
    length: int
    mime_type: str
    offered: bool
    owned: bool
    stale: bool
    def __init__(self, data: _Optional[bytes] = ..., mime_type: _Optional[str] = ..., owned: bool = ..., offered: bool = ..., length: _Optional[int] = ..., dragging: bool = ..., stale: bool = ...) -> None: ...

class ReadClipboardRequest(_message.Message):
    __slots__ = ["selection"]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    selection: Selection
    def __init__(self, selection: _Optional[_Union[Selection, str]] = ...) -> None: ...

class ReadClipboardResponse(_message.Message):
    __slots__ = ["dragging", "format", "owned", "stale", "text"]
    DRAGGING_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    OWNED_FIELD_NUMBER: _ClassVar[int]
    STALE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    dragging: bool
    format: str
    owned: bool
    stale: bool
    text: str
    def __init__(self, text: _Optional[str] = ..., format: _Optional[str] = ..., owned: bool = ..., dragging: bool = ..., stale: bool = ...) -> None: ...

class WriteClipboardDataRequest(_message.Message):
    __slots__ = ["data", "mime_type", "owner", "selection"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    mime_type: str
    owner: str
    selection: Selection
    def __init__(self, owner: _Optional[str] = ..., selection: _Optional[_Union[Selection, str]] = ..., mime_type: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class WriteClipboardDataResponse(_message.Message):
    __slots__ = ["length"]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    length: int
    def __init__(self, length: _Optional[int] = ...) -> None: ...

class WriteClipboardRequest(_message.Message):
    __slots__ = ["owner", "selection", "text"]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    owner: str
    selection: Selection
    text: str
    def __init__(self, owner: _Optional[str] = ..., selection: _Optional[_Union[Selection, str]] = ..., text: _Optional[str] = ...) -> None: ...

class WriteClipboardResponse(_message.Message):
    __slots__ = ["effect", "length", "target", "timing"]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    effect: _common_pb2.Effect
    length: int
    target: _common_pb2.FrozenTarget
    timing: _common_pb2.Timing
    def __init__(self, length: _Optional[int] = ..., effect: _Optional[_Union[_common_pb2.Effect, str]] = ..., target: _Optional[_Union[_common_pb2.FrozenTarget, _Mapping]] = ..., timing: _Optional[_Union[_common_pb2.Timing, _Mapping]] = ...) -> None: ...

class ClipboardRestore(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Selection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
