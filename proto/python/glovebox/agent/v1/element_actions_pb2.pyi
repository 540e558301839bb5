from glovebox.agent.v1 import snapshot_pb2 as _snapshot_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ElementClick(_message.Message):
    __slots__ = ["element"]
    ELEMENT_FIELD_NUMBER: _ClassVar[int]
    element: _snapshot_pb2.ElementRef
    def __init__(self, element: _Optional[_Union[_snapshot_pb2.ElementRef, _Mapping]] = ...) -> None: ...

class ElementDoAction(_message.Message):
    __slots__ = ["action", "element"]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_FIELD_NUMBER: _ClassVar[int]
    action: str
    element: _snapshot_pb2.ElementRef
    def __init__(self, element: _Optional[_Union[_snapshot_pb2.ElementRef, _Mapping]] = ..., action: _Optional[str] = ...) -> None: ...

class ElementFocus(_message.Message):
    __slots__ = ["element"]
    ELEMENT_FIELD_NUMBER: _ClassVar[int]
    element: _snapshot_pb2.ElementRef
    def __init__(self, element: _Optional[_Union[_snapshot_pb2.ElementRef, _Mapping]] = ...) -> None: ...

class ElementScrollIntoView(_message.Message):
    __slots__ = ["element"]
    ELEMENT_FIELD_NUMBER: _ClassVar[int]
    element: _snapshot_pb2.ElementRef
    def __init__(self, element: _Optional[_Union[_snapshot_pb2.ElementRef, _Mapping]] = ...) -> None: ...

class ElementSelectText(_message.Message):
    __slots__ = ["caret", "element", "match", "offsets"]
    CARET_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    OFFSETS_FIELD_NUMBER: _ClassVar[int]
    caret: _snapshot_pb2.CaretPlacement
    element: _snapshot_pb2.ElementRef
    match: _snapshot_pb2.TextMatch
    offsets: _snapshot_pb2.TextRange
    def __init__(self, element: _Optional[_Union[_snapshot_pb2.ElementRef, _Mapping]] = ..., offsets: _Optional[_Union[_snapshot_pb2.TextRange, _Mapping]] = ..., match: _Optional[_Union[_snapshot_pb2.TextMatch, _Mapping]] = ..., caret: _Optional[_Union[_snapshot_pb2.CaretPlacement, str]] = ...) -> None: ...

class ElementSetValue(_message.Message):
    __slots__ = ["element", "number", "text"]
    ELEMENT_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    element: _snapshot_pb2.ElementRef
    number: float
    text: str
    def __init__(self, element: _Optional[_Union[_snapshot_pb2.ElementRef, _Mapping]] = ..., text: _Optional[str] = ..., number: _Optional[float] = ...) -> None: ...
