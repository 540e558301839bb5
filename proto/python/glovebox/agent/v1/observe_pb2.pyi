from glovebox.agent.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CaptureScreenshotRequest(_message.Message):
    __slots__ = ["options"]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    options: _common_pb2.ScreenshotOptions
    def __init__(self, options: _Optional[_Union[_common_pb2.ScreenshotOptions, _Mapping]] = ...) -> None: ...

class CaptureScreenshotResponse(_message.Message):
    __slots__ = ["frame_seq", "image", "unchanged"]
    FRAME_SEQ_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    frame_seq: int
    image: _common_pb2.Image
    unchanged: bool
    def __init__(self, image: _Optional[_Union[_common_pb2.Image, _Mapping]] = ..., unchanged: bool = ..., frame_seq: _Optional[int] = ...) -> None: ...

class GetCursorPositionRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetCursorPositionResponse(_message.Message):
    __slots__ = ["display_id", "position", "window_id"]
    DISPLAY_ID_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    WINDOW_ID_FIELD_NUMBER: _ClassVar[int]
    display_id: str
    position: _common_pb2.Point
    window_id: int
    def __init__(self, position: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., window_id: _Optional[int] = ..., display_id: _Optional[str] = ...) -> None: ...

class ListWindowsRequest(_message.Message):
    __slots__ = ["include_unmapped"]
    INCLUDE_UNMAPPED_FIELD_NUMBER: _ClassVar[int]
    include_unmapped: bool
    def __init__(self, include_unmapped: bool = ...) -> None: ...

class ListWindowsResponse(_message.Message):
    __slots__ = ["windows"]
    WINDOWS_FIELD_NUMBER: _ClassVar[int]
    windows: _containers.RepeatedCompositeFieldContainer[_common_pb2.Window]
    def __init__(self, windows: _Optional[_Iterable[_Union[_common_pb2.Window, _Mapping]]] = ...) -> None: ...

class WatchScreenRequest(_message.Message):
    __slots__ = ["max_fps", "options"]
    MAX_FPS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    max_fps: int
    options: _common_pb2.ScreenshotOptions
    def __init__(self, options: _Optional[_Union[_common_pb2.ScreenshotOptions, _Mapping]] = ..., max_fps: _Optional[int] = ...) -> None: ...

class WatchScreenResponse(_message.Message):
    __slots__ = ["captured_at_us", "frame_seq", "image"]
    CAPTURED_AT_US_FIELD_NUMBER: _ClassVar[int]
    FRAME_SEQ_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    captured_at_us: int
    frame_seq: int
    image: _common_pb2.Image
    def __init__(self, image: _Optional[_Union[_common_pb2.Image, _Mapping]] = ..., frame_seq: _Optional[int] = ..., captured_at_us: _Optional[int] = ...) -> None: ...
