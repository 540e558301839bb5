from glovebox.agent.v1 import browser_pb2 as _browser_pb2
from glovebox.agent.v1 import common_pb2 as _common_pb2
from glovebox.agent.v1 import snapshot_pb2 as _snapshot_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
HISTORY_DIRECTION_BACK: HistoryDirection
HISTORY_DIRECTION_FORWARD: HistoryDirection
HISTORY_DIRECTION_UNSPECIFIED: HistoryDirection
PASTE_PATH_EVENT: PastePath
PASTE_PATH_INSERT_HTML: PastePath
PASTE_PATH_INSERT_TEXT: PastePath
PASTE_PATH_UNSPECIFIED: PastePath
SCROLL_UNIT_PAGES: ScrollUnit
SCROLL_UNIT_PIXELS: ScrollUnit
SCROLL_UNIT_UNSPECIFIED: ScrollUnit
WAIT_STATE_HIDDEN: WaitState
WAIT_STATE_UNSPECIFIED: WaitState
WAIT_STATE_VISIBLE: WaitState

class ActivateTab(_message.Message):
    __slots__ = ["tab"]
    TAB_FIELD_NUMBER: _ClassVar[int]
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ...) -> None: ...

class CloseTab(_message.Message):
    __slots__ = ["tab"]
    TAB_FIELD_NUMBER: _ClassVar[int]
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ...) -> None: ...

class Fill(_message.Message):
    __slots__ = ["locator", "tab", "text"]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    locator: Locator
    tab: _browser_pb2.TabRef
    text: str
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ..., text: _Optional[str] = ...) -> None: ...

class History(_message.Message):
    __slots__ = ["direction", "tab"]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    direction: HistoryDirection
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., direction: _Optional[_Union[HistoryDirection, str]] = ...) -> None: ...

class Hover(_message.Message):
    __slots__ = ["locator", "tab"]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    locator: Locator
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ...) -> None: ...

class Locator(_message.Message):
    __slots__ = ["point", "ref", "selector"]
    POINT_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    SELECTOR_FIELD_NUMBER: _ClassVar[int]
    point: _common_pb2.Point
    ref: _snapshot_pb2.ElementRef
    selector: str
    def __init__(self, ref: _Optional[_Union[_snapshot_pb2.ElementRef, _Mapping]] = ..., selector: _Optional[str] = ..., point: _Optional[_Union[_common_pb2.Point, _Mapping]] = ...) -> None: ...

class Navigate(_message.Message):
    __slots__ = ["tab", "timeout_ms", "url"]
    TAB_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    tab: _browser_pb2.TabRef
    timeout_ms: int
    url: str
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., url: _Optional[str] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class NewTab(_message.Message):
    __slots__ = ["browser_id", "url"]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    browser_id: str
    url: str
    def __init__(self, browser_id: _Optional[str] = ..., url: _Optional[str] = ...) -> None: ...

class PageClick(_message.Message):
    __slots__ = ["button", "count", "locator", "modifiers", "tab"]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    button: _common_pb2.MouseButton
    count: int
    locator: Locator
    modifiers: _containers.RepeatedScalarFieldContainer[str]
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ..., button: _Optional[_Union[_common_pb2.MouseButton, str]] = ..., count: _Optional[int] = ..., modifiers: _Optional[_Iterable[str]] = ...) -> None: ...

class PageDrag(_message.Message):
    __slots__ = ["steps", "tab", "to"]
    FROM_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    steps: int
    tab: _browser_pb2.TabRef
    to: Locator
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., to: _Optional[_Union[Locator, _Mapping]] = ..., steps: _Optional[int] = ..., **kwargs) -> None: ...

class PageKeyDown(_message.Message):
    __slots__ = ["key", "tab"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    key: str
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., key: _Optional[str] = ...) -> None: ...

class PageKeyUp(_message.Message):
    __slots__ = ["key", "tab"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    key: str
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., key: _Optional[str] = ...) -> None: ...

class PageScroll(_message.Message):
    __slots__ = ["dx", "dy", "locator", "tab", "unit"]
    DX_FIELD_NUMBER: _ClassVar[int]
    DY_FIELD_NUMBER: _ClassVar[int]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    dx: float
    dy: float
    locator: Locator
    tab: _browser_pb2.TabRef
    unit: ScrollUnit
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ..., dx: _Optional[float] = ..., dy: _Optional[float] = ..., unit: _Optional[_Union[ScrollUnit, str]] = ...) -> None: ...

class PageSelectText(_message.Message):
    __slots__ = ["caret", "locator", "match", "tab"]
    CARET_FIELD_NUMBER: _ClassVar[int]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    caret: _snapshot_pb2.CaretPlacement
    locator: Locator
    match: _snapshot_pb2.TextMatch
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ..., match: _Optional[_Union[_snapshot_pb2.TextMatch, _Mapping]] = ..., caret: _Optional[_Union[_snapshot_pb2.CaretPlacement, str]] = ...) -> None: ...

class PageType(_message.Message):
    __slots__ = ["delay_ms", "tab", "text"]
    DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    delay_ms: int
    tab: _browser_pb2.TabRef
    text: str
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., text: _Optional[str] = ..., delay_ms: _Optional[int] = ...) -> None: ...

class Paste(_message.Message):
    __slots__ = ["html", "locator", "tab", "text"]
    HTML_FIELD_NUMBER: _ClassVar[int]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    html: str
    locator: Locator
    tab: _browser_pb2.TabRef
    text: str
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ..., text: _Optional[str] = ..., html: _Optional[str] = ...) -> None: ...

class Press(_message.Message):
    __slots__ = ["key", "repeat", "tab"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    REPEAT_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    key: str
    repeat: int
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., key: _Optional[str] = ..., repeat: _Optional[int] = ...) -> None: ...

class Reload(_message.Message):
    __slots__ = ["hard", "tab"]
    HARD_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    hard: bool
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., hard: bool = ...) -> None: ...

class ScrollPosition(_message.Message):
    __slots__ = ["x", "y"]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    x: float
    y: float
    def __init__(self, x: _Optional[float] = ..., y: _Optional[float] = ...) -> None: ...

class SecondaryAction(_message.Message):
    __slots__ = ["locator", "tab"]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    locator: Locator
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ...) -> None: ...

class SetValue(_message.Message):
    __slots__ = ["locator", "tab", "value"]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    locator: Locator
    tab: _browser_pb2.TabRef
    value: str
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ..., value: _Optional[str] = ...) -> None: ...

class SetViewport(_message.Message):
    __slots__ = ["device_scale_factor", "height", "tab", "width"]
    DEVICE_SCALE_FACTOR_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    device_scale_factor: float
    height: int
    tab: _browser_pb2.TabRef
    width: int
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., device_scale_factor: _Optional[float] = ...) -> None: ...

class StopLoading(_message.Message):
    __slots__ = ["tab"]
    TAB_FIELD_NUMBER: _ClassVar[int]
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ...) -> None: ...

class WaitFor(_message.Message):
    __slots__ = ["selector", "state", "tab", "timeout_ms"]
    SELECTOR_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    selector: str
    state: WaitState
    tab: _browser_pb2.TabRef
    timeout_ms: int
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., selector: _Optional[str] = ..., state: _Optional[_Union[WaitState, str]] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class HistoryDirection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ScrollUnit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class WaitState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class PastePath(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
