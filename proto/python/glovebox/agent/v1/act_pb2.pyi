from glovebox.agent.v1 import browser_pb2 as _browser_pb2
from glovebox.agent.v1 import common_pb2 as _common_pb2
from glovebox.agent.v1 import element_actions_pb2 as _element_actions_pb2
from glovebox.agent.v1 import page_actions_pb2 as _page_actions_pb2
from glovebox.agent.v1 import snapshot_pb2 as _snapshot_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActBatchRequest(_message.Message):
    __slots__ = ["actions", "owner", "request_id"]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[ActRequest]
    owner: str
    request_id: str
    def __init__(self, owner: _Optional[str] = ..., request_id: _Optional[str] = ..., actions: _Optional[_Iterable[_Union[ActRequest, _Mapping]]] = ...) -> None: ...

class ActBatchResponse(_message.Message):
    __slots__ = ["failure", "results"]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    failure: BatchFailure
    results: _containers.RepeatedCompositeFieldContainer[ActResponse]
    def __init__(self, results: _Optional[_Iterable[_Union[ActResponse, _Mapping]]] = ..., failure: _Optional[_Union[BatchFailure, _Mapping]] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ["activate_tab", "click", "close_tab", "confirm", "drag", "element_click", "element_do_action", "element_focus", "element_scroll_into_view", "element_select_text", "element_set_value", "fill", "history", "hold_key", "hover", "key", "key_down", "key_up", "mouse_down", "mouse_move", "mouse_up", "navigate", "new_tab", "observe", "owner", "page_click", "page_drag", "page_key_down", "page_key_up", "page_scroll", "page_select_text", "page_type", "paste", "press", "release_all", "reload", "request_id", "scroll", "secondary_action", "set_value", "set_viewport", "stop_loading", "target", "type", "wait", "wait_for", "watch_ms"]
    ACTIVATE_TAB_FIELD_NUMBER: _ClassVar[int]
    CLICK_FIELD_NUMBER: _ClassVar[int]
    CLOSE_TAB_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_FIELD_NUMBER: _ClassVar[int]
    DRAG_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_CLICK_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_DO_ACTION_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_FOCUS_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_SCROLL_INTO_VIEW_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_SELECT_TEXT_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_SET_VALUE_FIELD_NUMBER: _ClassVar[int]
    FILL_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    HOLD_KEY_FIELD_NUMBER: _ClassVar[int]
    HOVER_FIELD_NUMBER: _ClassVar[int]
    KEY_DOWN_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_UP_FIELD_NUMBER: _ClassVar[int]
    MOUSE_DOWN_FIELD_NUMBER: _ClassVar[int]
    MOUSE_MOVE_FIELD_NUMBER: _ClassVar[int]
    MOUSE_UP_FIELD_NUMBER: _ClassVar[int]
    NAVIGATE_FIELD_NUMBER: _ClassVar[int]
    NEW_TAB_FIELD_NUMBER: _ClassVar[int]
    OBSERVE_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    PAGE_CLICK_FIELD_NUMBER: _ClassVar[int]
    PAGE_DRAG_FIELD_NUMBER: _ClassVar[int]
    PAGE_KEY_DOWN_FIELD_NUMBER: _ClassVar[int]
    PAGE_KEY_UP_FIELD_NUMBER: _ClassVar[int]
    PAGE_SCROLL_FIELD_NUMBER: _ClassVar[int]
    PAGE_SELECT_TEXT_FIELD_NUMBER: _ClassVar[int]
    PAGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    PASTE_FIELD_NUMBER: _ClassVar[int]
    PRESS_FIELD_NUMBER: _ClassVar[int]
    RELEASE_ALL_FIELD_NUMBER: _ClassVar[int]
    RELOAD_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SCROLL_FIELD_NUMBER: _ClassVar[int]
    SECONDARY_ACTION_FIELD_NUMBER: _ClassVar[int]
    SET_VALUE_FIELD_NUMBER: _ClassVar[int]
    SET_VIEWPORT_FIELD_NUMBER: _ClassVar[int]
    STOP_LOADING_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    WAIT_FOR_FIELD_NUMBER: _ClassVar[int]
    WATCH_MS_FIELD_NUMBER: _ClassVar[int]
    activate_tab: _page_actions_pb2.ActivateTab
    click: Click
    close_tab: _page_actions_pb2.CloseTab
    confirm: bool
    drag: Drag
    element_click: _element_actions_pb2.ElementClick
    element_do_action: _element_actions_pb2.ElementDoAction
    element_focus: _element_actions_pb2.ElementFocus
    element_scroll_into_view: _element_actions_pb2.ElementScrollIntoView
    element_select_text: _element_actions_pb2.ElementSelectText
    element_set_value: _element_actions_pb2.ElementSetValue
    fill: _page_actions_pb2.Fill
    history: _page_actions_pb2.History
    hold_key: HoldKey
    hover: _page_actions_pb2.Hover
    key: Key
    key_down: KeyDown
    key_up: KeyUp
    mouse_down: MouseDown
    mouse_move: MouseMove
    mouse_up: MouseUp
    navigate: _page_actions_pb2.Navigate
    new_tab: _page_actions_pb2.NewTab
    observe: ObserveAfter
    owner: str
    page_click: _page_actions_pb2.PageClick
    page_drag: _page_actions_pb2.PageDrag
    page_key_down: _page_actions_pb2.PageKeyDown
    page_key_up: _page_actions_pb2.PageKeyUp
    page_scroll: _page_actions_pb2.PageScroll
    page_select_text: _page_actions_pb2.PageSelectText
    page_type: _page_actions_pb2.PageType
    paste: _page_actions_pb2.Paste
    press: _page_actions_pb2.Press
    release_all: ReleaseAll
    reload: _page_actions_pb2.Reload
    request_id: str
    scroll: Scroll
    secondary_action: _page_actions_pb2.SecondaryAction
    set_value: _page_actions_pb2.SetValue
    set_viewport: _page_actions_pb2.SetViewport
    stop_loading: _page_actions_pb2.StopLoading
    target: _common_pb2.Target
    type: TypeText
    wait: Wait
    wait_for: _page_actions_pb2.WaitFor
    watch_ms: int
    def __init__(self, owner: _Optional[str] = ..., request_id: _Optional[str] = ..., target: _Optional[_Union[_common_pb2.Target, _Mapping]] = ..., confirm: bool = ..., observe: _Optional[_Union[ObserveAfter, _Mapping]] = ..., watch_ms: _Optional[int] = ..., mouse_move: _Optional[_Union[MouseMove, _Mapping]] = ..., click: _Optional[_Union[Click, _Mapping]] = ..., mouse_down: _Optional[_Union[MouseDown, _Mapping]] = ..., mouse_up: _Optional[_Union[MouseUp, _Mapping]] = ..., drag: _Optional[_Union[Drag, _Mapping]] = ..., scroll: _Optional[_Union[Scroll, _Mapping]] = ..., key: _Optional[_Union[Key, _Mapping]] = ..., key_down: _Optional[_Union[KeyDown, _Mapping]] = ..., key_up: _Optional[_Union[KeyUp, _Mapping]] = ..., hold_key: _Optional[_Union[HoldKey, _Mapping]] = ..., type: _Optional[_Union[TypeText, _Mapping]] = ..., wait: _Optional[_Union[Wait, _Mapping]] = ..., release_all: _Optional[_Union[ReleaseAll, _Mapping]] = ..., element_click: _Optional[_Union[_element_actions_pb2.ElementClick, _Mapping]] = ..., element_focus: _Optional[_Union[_element_actions_pb2.ElementFocus, _Mapping]] = ..., element_set_value: _Optional[_Union[_element_actions_pb2.ElementSetValue, _Mapping]] = ..., element_select_text: _Optional[_Union[_element_actions_pb2.ElementSelectText, _Mapping]] = ..., element_do_action: _Optional[_Union[_element_actions_pb2.ElementDoAction, _Mapping]] = ..., element_scroll_into_view: _Optional[_Union[_element_actions_pb2.ElementScrollIntoView, _Mapping]] = ..., new_tab: _Optional[_Union[_page_actions_pb2.NewTab, _Mapping]] = ..., close_tab: _Optional[_Union[_page_actions_pb2.CloseTab, _Mapping]] = ..., activate_tab: _Optional[_Union[_page_actions_pb2.ActivateTab, _Mapping]] = ..., navigate: _Optional[_Union[_page_actions_pb2.Navigate, _Mapping]] = ..., reload: _Optional[_Union[_page_actions_pb2.Reload, _Mapping]] = ..., stop_loading: _Optional[_Union[_page_actions_pb2.StopLoading, _Mapping]] = ..., history: _Optional[_Union[_page_actions_pb2.History, _Mapping]] = ..., page_click: _Optional[_Union[_page_actions_pb2.PageClick, _Mapping]] = ..., fill: _Optional[_Union[_page_actions_pb2.Fill, _Mapping]] = ..., page_type: _Optional[_Union[_page_actions_pb2.PageType, _Mapping]] = ..., press: _Optional[_Union[_page_actions_pb2.Press, _Mapping]] = ..., page_key_down: _Optional[_Union[_page_actions_pb2.PageKeyDown, _Mapping]] = ..., page_key_up: _Optional[_Union[_page_actions_pb2.PageKeyUp, _Mapping]] = ..., set_value: _Optional[_Union[_page_actions_pb2.SetValue, _Mapping]] = ..., page_select_text: _Optional[_Union[_page_actions_pb2.PageSelectText, _Mapping]] = ..., paste: _Optional[_Union[_page_actions_pb2.Paste, _Mapping]] = ..., page_scroll: _Optional[_Union[_page_actions_pb2.PageScroll, _Mapping]] = ..., hover: _Optional[_Union[_page_actions_pb2.Hover, _Mapping]] = ..., page_drag: _Optional[_Union[_page_actions_pb2.PageDrag, _Mapping]] = ..., set_viewport: _Optional[_Union[_page_actions_pb2.SetViewport, _Mapping]] = ..., wait_for: _Optional[_Union[_page_actions_pb2.WaitFor, _Mapping]] = ..., secondary_action: _Optional[_Union[_page_actions_pb2.SecondaryAction, _Mapping]] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ["characters_remapped", "characters_typed", "damage", "effect", "held", "observation", "paste_path", "pointer", "released", "scroll_after", "scroll_before", "selection", "tab", "target", "timing", "used_element_action", "value"]
    CHARACTERS_REMAPPED_FIELD_NUMBER: _ClassVar[int]
    CHARACTERS_TYPED_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_FIELD_NUMBER: _ClassVar[int]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    HELD_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    PASTE_PATH_FIELD_NUMBER: _ClassVar[int]
    POINTER_FIELD_NUMBER: _ClassVar[int]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    SCROLL_AFTER_FIELD_NUMBER: _ClassVar[int]
    SCROLL_BEFORE_FIELD_NUMBER: _ClassVar[int]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    USED_ELEMENT_ACTION_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    characters_remapped: int
    characters_typed: int
    damage: _common_pb2.Rect
    effect: _common_pb2.Effect
    held: _containers.RepeatedCompositeFieldContainer[HeldInput]
    observation: Observation
    paste_path: _page_actions_pb2.PastePath
    pointer: _common_pb2.Point
    released: _containers.RepeatedCompositeFieldContainer[HeldInput]
    scroll_after: _page_actions_pb2.ScrollPosition
    scroll_before: _page_actions_pb2.ScrollPosition
    selection: _snapshot_pb2.TextRange
    tab: _browser_pb2.Tab
    target: _common_pb2.FrozenTarget
    timing: _common_pb2.Timing
    used_element_action: bool
    value: str
    def __init__(self, effect: _Optional[_Union[_common_pb2.Effect, str]] = ..., target: _Optional[_Union[_common_pb2.FrozenTarget, _Mapping]] = ..., timing: _Optional[_Union[_common_pb2.Timing, _Mapping]] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., held: _Optional[_Iterable[_Union[HeldInput, _Mapping]]] = ..., released: _Optional[_Iterable[_Union[HeldInput, _Mapping]]] = ..., characters_typed: _Optional[int] = ..., characters_remapped: _Optional[int] = ..., pointer: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., value: _Optional[str] = ..., selection: _Optional[_Union[_snapshot_pb2.TextRange, _Mapping]] = ..., scroll_before: _Optional[_Union[_page_actions_pb2.ScrollPosition, _Mapping]] = ..., scroll_after: _Optional[_Union[_page_actions_pb2.ScrollPosition, _Mapping]] = ..., paste_path: _Optional[_Union[_page_actions_pb2.PastePath, str]] = ..., tab: _Optional[_Union[_browser_pb2.Tab, _Mapping]] = ..., used_element_action: bool = ..., damage: _Optional[_Union[_common_pb2.Rect, _Mapping]] = ...) -> None: ...

class BatchFailure(_message.Message):
    __slots__ = ["index", "message", "metadata", "reason"]
    class MetadataEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    INDEX_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    index: int
    message: str
    metadata: _containers.ScalarMap[str, str]
    reason: _common_pb2.ErrorReason
    def __init__(self, index: _Optional[int] = ..., reason: _Optional[_Union[_common_pb2.ErrorReason, str]] = ..., message: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class Click(_message.Message):
    __slots__ = ["at", "button", "count", "modifiers"]
    AT_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    at: _common_pb2.Point
    button: _common_pb2.MouseButton
    count: int
    modifiers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, at: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., button: _Optional[_Union[_common_pb2.MouseButton, str]] = ..., count: _Optional[int] = ..., modifiers: _Optional[_Iterable[str]] = ...) -> None: ...

class Drag(_message.Message):
    __slots__ = ["button", "modifiers", "path", "step_delay_ms"]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    STEP_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    button: _common_pb2.MouseButton
    modifiers: _containers.RepeatedScalarFieldContainer[str]
    path: _containers.RepeatedCompositeFieldContainer[_common_pb2.Point]
    step_delay_ms: int
    def __init__(self, path: _Optional[_Iterable[_Union[_common_pb2.Point, _Mapping]]] = ..., button: _Optional[_Union[_common_pb2.MouseButton, str]] = ..., step_delay_ms: _Optional[int] = ..., modifiers: _Optional[_Iterable[str]] = ...) -> None: ...

class HeldInput(_message.Message):
    __slots__ = ["button", "key"]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    button: _common_pb2.MouseButton
    key: str
    def __init__(self, key: _Optional[str] = ..., button: _Optional[_Union[_common_pb2.MouseButton, str]] = ...) -> None: ...

class HoldKey(_message.Message):
    __slots__ = ["combo", "duration_ms"]
    COMBO_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    combo: str
    duration_ms: int
    def __init__(self, combo: _Optional[str] = ..., duration_ms: _Optional[int] = ...) -> None: ...

class Key(_message.Message):
    __slots__ = ["combo", "repeat"]
    COMBO_FIELD_NUMBER: _ClassVar[int]
    REPEAT_FIELD_NUMBER: _ClassVar[int]
    combo: str
    repeat: int
    def __init__(self, combo: _Optional[str] = ..., repeat: _Optional[int] = ...) -> None: ...

class KeyDown(_message.Message):
    __slots__ = ["combo"]
    COMBO_FIELD_NUMBER: _ClassVar[int]
    combo: str
    def __init__(self, combo: _Optional[str] = ...) -> None: ...

class KeyUp(_message.Message):
    __slots__ = ["combo"]
    COMBO_FIELD_NUMBER: _ClassVar[int]
    combo: str
    def __init__(self, combo: _Optional[str] = ...) -> None: ...

class MouseDown(_message.Message):
    __slots__ = ["at", "button"]
    AT_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    at: _common_pb2.Point
    button: _common_pb2.MouseButton
    def __init__(self, at: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., button: _Optional[_Union[_common_pb2.MouseButton, str]] = ...) -> None: ...

class MouseMove(_message.Message):
    __slots__ = ["to"]
    TO_FIELD_NUMBER: _ClassVar[int]
    to: _common_pb2.Point
    def __init__(self, to: _Optional[_Union[_common_pb2.Point, _Mapping]] = ...) -> None: ...

class MouseUp(_message.Message):
    __slots__ = ["at", "button"]
    AT_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    at: _common_pb2.Point
    button: _common_pb2.MouseButton
    def __init__(self, at: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., button: _Optional[_Union[_common_pb2.MouseButton, str]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ["cursor", "screenshot", "settled"]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    SCREENSHOT_FIELD_NUMBER: _ClassVar[int]
    SETTLED_FIELD_NUMBER: _ClassVar[int]
    cursor: _common_pb2.Point
    screenshot: _common_pb2.Image
    settled: bool
    def __init__(self, screenshot: _Optional[_Union[_common_pb2.Image, _Mapping]] = ..., cursor: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., settled: bool = ...) -> None: ...

class ObserveAfter(_message.Message):
    __slots__ = ["quiet_ms", "screenshot", "timeout_ms"]
    QUIET_MS_FIELD_NUMBER: _ClassVar[int]
    SCREENSHOT_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    quiet_ms: int
    screenshot: _common_pb2.ScreenshotOptions
    timeout_ms: int
    def __init__(self, screenshot: _Optional[_Union[_common_pb2.ScreenshotOptions, _Mapping]] = ..., quiet_ms: _Optional[int] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class ReleaseAll(_message.Message):
    __slots__ = ["everything"]
    EVERYTHING_FIELD_NUMBER: _ClassVar[int]
    everything: bool
    def __init__(self, everything: bool = ...) -> None: ...

class Scroll(_message.Message):
    __slots__ = ["at", "dx", "dy", "modifiers"]
    AT_FIELD_NUMBER: _ClassVar[int]
    DX_FIELD_NUMBER: _ClassVar[int]
    DY_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    at: _common_pb2.Point
    dx: int
    dy: int
    modifiers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, at: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., dx: _Optional[int] = ..., dy: _Optional[int] = ..., modifiers: _Optional[_Iterable[str]] = ...) -> None: ...

class TypeText(_message.Message):
    __slots__ = ["delay_ms", "text"]
    DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    delay_ms: int
    text: str
    def __init__(self, text: _Optional[str] = ..., delay_ms: _Optional[int] = ...) -> None: ...

class Wait(_message.Message):
    __slots__ = ["duration_ms"]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    duration_ms: int
    def __init__(self, duration_ms: _Optional[int] = ...) -> None: ...
