from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
EFFECT_DONE: Effect
EFFECT_NO_VISIBLE_CHANGE: Effect
EFFECT_UNSPECIFIED: Effect
EFFECT_UNVERIFIABLE: Effect
EFFECT_VERIFIED: Effect
ERROR_REASON_CAPABILITY_UNAVAILABLE: ErrorReason
ERROR_REASON_CONFIRMATION_REQUIRED: ErrorReason
ERROR_REASON_CONTROL_HELD: ErrorReason
ERROR_REASON_CONTROL_NOT_HELD: ErrorReason
ERROR_REASON_DUPLICATE_REQUEST: ErrorReason
ERROR_REASON_GENERATION_CHANGED: ErrorReason
ERROR_REASON_INTERNAL: ErrorReason
ERROR_REASON_INTERRUPTED: ErrorReason
ERROR_REASON_INVALID_ARGUMENT: ErrorReason
ERROR_REASON_NOT_FOUND: ErrorReason
ERROR_REASON_PERMISSION_DENIED: ErrorReason
ERROR_REASON_POLICY_DENIED: ErrorReason
ERROR_REASON_READ_ONLY_SESSION: ErrorReason
ERROR_REASON_RESOURCE_EXHAUSTED: ErrorReason
ERROR_REASON_SNAPSHOT_SUPERSEDED: ErrorReason
ERROR_REASON_STALE_REF: ErrorReason
ERROR_REASON_TARGET_AMBIGUOUS: ErrorReason
ERROR_REASON_TARGET_COVERED: ErrorReason
ERROR_REASON_TARGET_GONE: ErrorReason
ERROR_REASON_TIMEOUT: ErrorReason
ERROR_REASON_UNAVAILABLE: ErrorReason
ERROR_REASON_UNSPECIFIED: ErrorReason
ERROR_REASON_UNSUPPORTED_ACTION: ErrorReason
ERROR_REASON_VALUE_MISMATCH: ErrorReason
IMAGE_FORMAT_JPEG: ImageFormat
IMAGE_FORMAT_PNG: ImageFormat
IMAGE_FORMAT_UNSPECIFIED: ImageFormat
MOUSE_BUTTON_BACK: MouseButton
MOUSE_BUTTON_FORWARD: MouseButton
MOUSE_BUTTON_LEFT: MouseButton
MOUSE_BUTTON_MIDDLE: MouseButton
MOUSE_BUTTON_RIGHT: MouseButton
MOUSE_BUTTON_UNSPECIFIED: MouseButton
TARGET_SOURCE_ACTIVE: TargetSource
TARGET_SOURCE_EXPLICIT: TargetSource
TARGET_SOURCE_SESSION: TargetSource
TARGET_SOURCE_UNSPECIFIED: TargetSource

class AppTarget(_message.Message):
    __slots__ = ["app_id", "window_id"]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_ID_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    window_id: str
    def __init__(self, app_id: _Optional[str] = ..., window_id: _Optional[str] = ...) -> None: ...

class DisplayTarget(_message.Message):
    __slots__ = ["display_id"]
    DISPLAY_ID_FIELD_NUMBER: _ClassVar[int]
    display_id: str
    def __init__(self, display_id: _Optional[str] = ...) -> None: ...

class FrozenTarget(_message.Message):
    __slots__ = ["app_id", "browser_id", "display_id", "element_ref", "generation", "snapshot_id", "source", "tab_id", "window_id", "window_title"]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_ID_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_REF_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAB_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_TITLE_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    browser_id: str
    display_id: str
    element_ref: str
    generation: int
    snapshot_id: str
    source: TargetSource
    tab_id: str
    window_id: int
    window_title: str
    def __init__(self, display_id: _Optional[str] = ..., window_id: _Optional[int] = ..., window_title: _Optional[str] = ..., source: _Optional[_Union[TargetSource, str]] = ..., generation: _Optional[int] = ..., app_id: _Optional[str] = ..., snapshot_id: _Optional[str] = ..., browser_id: _Optional[str] = ..., tab_id: _Optional[str] = ..., element_ref: _Optional[str] = ...) -> None: ...

class Image(_message.Message):
    __slots__ = ["data", "format", "height", "region", "scale", "width"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    SCALE_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    format: ImageFormat
    height: int
    region: Rect
    scale: float
    width: int
    def __init__(self, format: _Optional[_Union[ImageFormat, str]] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., scale: _Optional[float] = ..., region: _Optional[_Union[Rect, _Mapping]] = ..., data: _Optional[bytes] = ...) -> None: ...

class Point(_message.Message):
    __slots__ = ["x", "y"]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ...) -> None: ...

class Rect(_message.Message):
    __slots__ = ["height", "width", "x", "y"]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    height: int
    width: int
    x: int
    y: int
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., width: _Optional[int] = ..., height: _Optional[int] = ...) -> None: ...

class ScreenshotOptions(_message.Message):
    __slots__ = ["display_id", "format", "include_cursor", "max_edge", "quality", "region"]
    DISPLAY_ID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_CURSOR_FIELD_NUMBER: _ClassVar[int]
    MAX_EDGE_FIELD_NUMBER: _ClassVar[int]
    QUALITY_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    display_id: str
    format: ImageFormat
    include_cursor: bool
    max_edge: int
    quality: int
    region: Rect
    def __init__(self, display_id: _Optional[str] = ..., region: _Optional[_Union[Rect, _Mapping]] = ..., format: _Optional[_Union[ImageFormat, str]] = ..., quality: _Optional[int] = ..., max_edge: _Optional[int] = ..., include_cursor: bool = ...) -> None: ...

class TabTarget(_message.Message):
    __slots__ = ["browser_id", "tab_id"]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    TAB_ID_FIELD_NUMBER: _ClassVar[int]
    browser_id: str
    tab_id: str
    def __init__(self, browser_id: _Optional[str] = ..., tab_id: _Optional[str] = ...) -> None: ...

class Target(_message.Message):
    __slots__ = ["app", "display", "generation", "snapshot_id", "tab", "window"]
    APP_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_ID_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    app: AppTarget
    display: DisplayTarget
    generation: int
    snapshot_id: str
    tab: TabTarget
    window: WindowTarget
    def __init__(self, display: _Optional[_Union[DisplayTarget, _Mapping]] = ..., window: _Optional[_Union[WindowTarget, _Mapping]] = ..., app: _Optional[_Union[AppTarget, _Mapping]] = ..., tab: _Optional[_Union[TabTarget, _Mapping]] = ..., snapshot_id: _Optional[str] = ..., generation: _Optional[int] = ...) -> None: ...

class Timing(_message.Message):
    __slots__ = ["dispatch_us", "queue_us", "resolve_us", "settle_us", "total_us", "validate_us"]
    DISPATCH_US_FIELD_NUMBER: _ClassVar[int]
    QUEUE_US_FIELD_NUMBER: _ClassVar[int]
    RESOLVE_US_FIELD_NUMBER: _ClassVar[int]
    SETTLE_US_FIELD_NUMBER: _ClassVar[int]
    TOTAL_US_FIELD_NUMBER: _ClassVar[int]
    VALIDATE_US_FIELD_NUMBER: _ClassVar[int]
    dispatch_us: int
    queue_us: int
    resolve_us: int
    settle_us: int
    total_us: int
    validate_us: int
    def __init__(self, validate_us: _Optional[int] = ..., queue_us: _Optional[int] = ..., resolve_us: _Optional[int] = ..., dispatch_us: _Optional[int] = ..., settle_us: _Optional[int] = ..., total_us: _Optional[int] = ...) -> None: ...

class Window(_message.Message):
    __slots__ = ["class_name", "focused", "geometry", "id", "instance_name", "mapped", "pid", "title"]
    CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    FOCUSED_FIELD_NUMBER: _ClassVar[int]
    GEOMETRY_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_NAME_FIELD_NUMBER: _ClassVar[int]
    MAPPED_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    class_name: str
    focused: bool
    geometry: Rect
    id: int
    instance_name: str
    mapped: bool
    pid: int
    title: str
    def __init__(self, id: _Optional[int] = ..., title: _Optional[str] = ..., class_name: _Optional[str] = ..., instance_name: _Optional[str] = ..., pid: _Optional[int] = ..., geometry: _Optional[_Union[Rect, _Mapping]] = ..., focused: bool = ..., mapped: bool = ...) -> None: ...

class WindowTarget(_message.Message):
    __slots__ = ["window_id"]
    WINDOW_ID_FIELD_NUMBER: _ClassVar[int]
    window_id: int
    def __init__(self, window_id: _Optional[int] = ...) -> None: ...

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class MouseButton(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ImageFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class TargetSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Effect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
