from glovebox.agent.v1 import common_pb2 as _common_pb2
from glovebox.agent.v1 import snapshot_pb2 as _snapshot_pb2
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

class CursorShape(_message.Message):
    __slots__ = ["hot_x", "hot_y", "image"]
    HOT_X_FIELD_NUMBER: _ClassVar[int]
    HOT_Y_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    hot_x: int
    hot_y: int
    image: _common_pb2.Image
    def __init__(self, image: _Optional[_Union[_common_pb2.Image, _Mapping]] = ..., hot_x: _Optional[int] = ..., hot_y: _Optional[int] = ...) -> None: ...

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

class ObserveRequest(_message.Message):
    __slots__ = ["omit_screenshot", "omit_snapshot", "screenshot", "snapshot", "target"]
    OMIT_SCREENSHOT_FIELD_NUMBER: _ClassVar[int]
    OMIT_SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    SCREENSHOT_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    omit_screenshot: bool
    omit_snapshot: bool
    screenshot: _common_pb2.ScreenshotOptions
    snapshot: _snapshot_pb2.SnapshotOptions
    target: _common_pb2.Target
    def __init__(self, target: _Optional[_Union[_common_pb2.Target, _Mapping]] = ..., snapshot: _Optional[_Union[_snapshot_pb2.SnapshotOptions, _Mapping]] = ..., screenshot: _Optional[_Union[_common_pb2.ScreenshotOptions, _Mapping]] = ..., omit_screenshot: bool = ..., omit_snapshot: bool = ...) -> None: ...

class ObserveResponse(_message.Message):
    __slots__ = ["cursor", "cursor_window_id", "focused", "frame_seq", "image", "snapshot", "snapshot_unavailable_reason", "took_us", "window"]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    CURSOR_WINDOW_ID_FIELD_NUMBER: _ClassVar[int]
    FOCUSED_FIELD_NUMBER: _ClassVar[int]
    FRAME_SEQ_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_UNAVAILABLE_REASON_FIELD_NUMBER: _ClassVar[int]
    TOOK_US_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    cursor: _common_pb2.Point
    cursor_window_id: int
    focused: _snapshot_pb2.Element
    frame_seq: int
    image: _common_pb2.Image
    snapshot: _snapshot_pb2.Snapshot
    snapshot_unavailable_reason: str
    took_us: int
    window: _common_pb2.Window
    def __init__(self, snapshot: _Optional[_Union[_snapshot_pb2.Snapshot, _Mapping]] = ..., snapshot_unavailable_reason: _Optional[str] = ..., image: _Optional[_Union[_common_pb2.Image, _Mapping]] = ..., frame_seq: _Optional[int] = ..., cursor: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., cursor_window_id: _Optional[int] = ..., window: _Optional[_Union[_common_pb2.Window, _Mapping]] = ..., focused: _Optional[_Union[_snapshot_pb2.Element, _Mapping]] = ..., took_us: _Optional[int] = ...) -> None: ...

class ScreenTile(_message.Message):
    __slots__ = ["image", "rect"]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    RECT_FIELD_NUMBER: _ClassVar[int]
    image: _common_pb2.Image
    rect: _common_pb2.Rect
    def __init__(self, rect: _Optional[_Union[_common_pb2.Rect, _Mapping]] = ..., image: _Optional[_Union[_common_pb2.Image, _Mapping]] = ...) -> None: ...

class WatchScreenRequest(_message.Message):
    __slots__ = ["cursor", "max_fps", "options", "png_when_smaller", "tiles"]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    MAX_FPS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PNG_WHEN_SMALLER_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    cursor: bool
    max_fps: int
    options: _common_pb2.ScreenshotOptions
    png_when_smaller: bool
    tiles: bool
    def __init__(self, options: _Optional[_Union[_common_pb2.ScreenshotOptions, _Mapping]] = ..., max_fps: _Optional[int] = ..., tiles: bool = ..., cursor: bool = ..., png_when_smaller: bool = ...) -> None: ...

class WatchScreenResponse(_message.Message):
    __slots__ = ["captured_at_us", "cursor_position", "cursor_shape", "frame_seq", "image", "tiles"]
    CAPTURED_AT_US_FIELD_NUMBER: _ClassVar[int]
    CURSOR_POSITION_FIELD_NUMBER: _ClassVar[int]
    CURSOR_SHAPE_FIELD_NUMBER: _ClassVar[int]
    FRAME_SEQ_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    captured_at_us: int
    cursor_position: _common_pb2.Point
    cursor_shape: CursorShape
    frame_seq: int
    image: _common_pb2.Image
    tiles: _containers.RepeatedCompositeFieldContainer[ScreenTile]
    def __init__(self, image: _Optional[_Union[_common_pb2.Image, _Mapping]] = ..., frame_seq: _Optional[int] = ..., captured_at_us: _Optional[int] = ..., tiles: _Optional[_Iterable[_Union[ScreenTile, _Mapping]]] = ..., cursor_position: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., cursor_shape: _Optional[_Union[CursorShape, _Mapping]] = ...) -> None: ...
