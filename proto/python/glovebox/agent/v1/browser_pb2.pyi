from glovebox.agent.v1 import common_pb2 as _common_pb2
from glovebox.agent.v1 import snapshot_pb2 as _snapshot_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
EXTRACT_KIND_A11Y: ExtractKind
EXTRACT_KIND_CONSOLE: ExtractKind
EXTRACT_KIND_DOM: ExtractKind
EXTRACT_KIND_UNSPECIFIED: ExtractKind

class Browser(_message.Message):
    __slots__ = ["browser_id", "default_workspace", "engine", "port", "tab_count", "version"]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_WORKSPACE_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    TAB_COUNT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    browser_id: str
    default_workspace: bool
    engine: str
    port: int
    tab_count: int
    version: str
    def __init__(self, browser_id: _Optional[str] = ..., port: _Optional[int] = ..., version: _Optional[str] = ..., tab_count: _Optional[int] = ..., default_workspace: bool = ..., engine: _Optional[str] = ...) -> None: ...

class CaptureTabRequest(_message.Message):
    __slots__ = ["format", "full_page", "max_edge", "quality", "tab"]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    FULL_PAGE_FIELD_NUMBER: _ClassVar[int]
    MAX_EDGE_FIELD_NUMBER: _ClassVar[int]
    QUALITY_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    format: _common_pb2.ImageFormat
    full_page: bool
    max_edge: int
    quality: int
    tab: TabRef
    def __init__(self, tab: _Optional[_Union[TabRef, _Mapping]] = ..., full_page: bool = ..., format: _Optional[_Union[_common_pb2.ImageFormat, str]] = ..., quality: _Optional[int] = ..., max_edge: _Optional[int] = ...) -> None: ...

class CaptureTabResponse(_message.Message):
    __slots__ = ["image"]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    image: _common_pb2.Image
    def __init__(self, image: _Optional[_Union[_common_pb2.Image, _Mapping]] = ...) -> None: ...

class ConsoleMessage(_message.Message):
    __slots__ = ["level", "text", "timestamp_us"]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_US_FIELD_NUMBER: _ClassVar[int]
    level: str
    text: str
    timestamp_us: int
    def __init__(self, level: _Optional[str] = ..., text: _Optional[str] = ..., timestamp_us: _Optional[int] = ...) -> None: ...

class ExtractRequest(_message.Message):
    __slots__ = ["kind", "max_bytes", "tab"]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    kind: ExtractKind
    max_bytes: int
    tab: TabRef
    def __init__(self, tab: _Optional[_Union[TabRef, _Mapping]] = ..., kind: _Optional[_Union[ExtractKind, str]] = ..., max_bytes: _Optional[int] = ...) -> None: ...

class ExtractResponse(_message.Message):
    __slots__ = ["console", "content", "dom_derived", "truncated"]
    CONSOLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    DOM_DERIVED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    console: _containers.RepeatedCompositeFieldContainer[ConsoleMessage]
    content: str
    dom_derived: bool
    truncated: bool
    def __init__(self, content: _Optional[str] = ..., console: _Optional[_Iterable[_Union[ConsoleMessage, _Mapping]]] = ..., truncated: bool = ..., dom_derived: bool = ...) -> None: ...

class GetBrowserRequest(_message.Message):
    __slots__ = ["browser_id", "url"]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    browser_id: str
    url: str
    def __init__(self, browser_id: _Optional[str] = ..., url: _Optional[str] = ...) -> None: ...

class GetBrowserResponse(_message.Message):
    __slots__ = ["browser", "tab"]
    BROWSER_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    browser: Browser
    tab: Tab
    def __init__(self, browser: _Optional[_Union[Browser, _Mapping]] = ..., tab: _Optional[_Union[Tab, _Mapping]] = ...) -> None: ...

class ListBrowsersRequest(_message.Message):
    __slots__ = ["engine", "start_default"]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    START_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    engine: str
    start_default: bool
    def __init__(self, start_default: bool = ..., engine: _Optional[str] = ...) -> None: ...

class ListBrowsersResponse(_message.Message):
    __slots__ = ["browsers", "effect", "target", "timing"]
    BROWSERS_FIELD_NUMBER: _ClassVar[int]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    browsers: _containers.RepeatedCompositeFieldContainer[Browser]
    effect: _common_pb2.Effect
    target: _common_pb2.FrozenTarget
    timing: _common_pb2.Timing
    def __init__(self, browsers: _Optional[_Iterable[_Union[Browser, _Mapping]]] = ..., effect: _Optional[_Union[_common_pb2.Effect, str]] = ..., target: _Optional[_Union[_common_pb2.FrozenTarget, _Mapping]] = ..., timing: _Optional[_Union[_common_pb2.Timing, _Mapping]] = ...) -> None: ...

class ListTabsRequest(_message.Message):
    __slots__ = ["browser_id"]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    browser_id: str
    def __init__(self, browser_id: _Optional[str] = ...) -> None: ...

class ListTabsResponse(_message.Message):
    __slots__ = ["tabs"]
    TABS_FIELD_NUMBER: _ClassVar[int]
    tabs: _containers.RepeatedCompositeFieldContainer[Tab]
    def __init__(self, tabs: _Optional[_Iterable[_Union[Tab, _Mapping]]] = ...) -> None: ...

class SnapshotTabRequest(_message.Message):
    __slots__ = ["options", "tab"]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    options: _snapshot_pb2.SnapshotOptions
    tab: TabRef
    def __init__(self, tab: _Optional[_Union[TabRef, _Mapping]] = ..., options: _Optional[_Union[_snapshot_pb2.SnapshotOptions, _Mapping]] = ...) -> None: ...

class SnapshotTabResponse(_message.Message):
    __slots__ = ["snapshot"]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    snapshot: _snapshot_pb2.Snapshot
    def __init__(self, snapshot: _Optional[_Union[_snapshot_pb2.Snapshot, _Mapping]] = ...) -> None: ...

class Tab(_message.Message):
    __slots__ = ["active", "browser_id", "tab_id", "title", "url"]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    TAB_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    active: bool
    browser_id: str
    tab_id: str
    title: str
    url: str
    def __init__(self, browser_id: _Optional[str] = ..., tab_id: _Optional[str] = ..., url: _Optional[str] = ..., title: _Optional[str] = ..., active: bool = ...) -> None: ...

class TabRef(_message.Message):
    __slots__ = ["browser_id", "tab_id"]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    TAB_ID_FIELD_NUMBER: _ClassVar[int]
    browser_id: str
    tab_id: str
    def __init__(self, browser_id: _Optional[str] = ..., tab_id: _Optional[str] = ...) -> None: ...

class ExtractKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
