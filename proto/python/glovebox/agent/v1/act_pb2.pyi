from glovebox.agent.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
EFFECT_DONE: Effect
EFFECT_UNSPECIFIED: Effect
EFFECT_UNVERIFIABLE: Effect
EFFECT_VERIFIED: Effect
MOUSE_BUTTON_BACK: MouseButton
MOUSE_BUTTON_FORWARD: MouseButton
MOUSE_BUTTON_LEFT: MouseButton
MOUSE_BUTTON_MIDDLE: MouseButton
MOUSE_BUTTON_RIGHT: MouseButton
MOUSE_BUTTON_UNSPECIFIED: MouseButton

class ActRequest(_message.Message):
    __slots__ = ["click", "confirm", "drag", "hold_key", "key", "key_down", "key_up", "mouse_down", "mouse_move", "mouse_up", "observe", "owner", "release_all", "request_id", "scroll", "target", "type", "wait"]
    CLICK_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_FIELD_NUMBER: _ClassVar[int]
    DRAG_FIELD_NUMBER: _ClassVar[int]
    HOLD_KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_DOWN_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_UP_FIELD_NUMBER: _ClassVar[int]
    MOUSE_DOWN_FIELD_NUMBER: _ClassVar[int]
    MOUSE_MOVE_FIELD_NUMBER: _ClassVar[int]
    MOUSE_UP_FIELD_NUMBER: _ClassVar[int]
    OBSERVE_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    RELEASE_ALL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SCROLL_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    click: Click
    confirm: bool
    drag: Drag
    hold_key: HoldKey
    key: Key
    key_down: KeyDown
    key_up: KeyUp
    mouse_down: MouseDown
    mouse_move: MouseMove
    mouse_up: MouseUp
    observe: ObserveAfter
    owner: str
    release_all: ReleaseAll
    request_id: str
    scroll: Scroll
    target: _common_pb2.Target
    type: TypeText
    wait: Wait
    def __init__(self, owner: _Optional[str] = ..., request_id: _Optional[str] = ..., target: _Optional[_Union[_common_pb2.Target, _Mapping]] = ..., confirm: bool = ..., observe: _Optional[_Union[ObserveAfter, _Mapping]] = ..., mouse_move: _Optional[_Union[MouseMove, _Mapping]] = ..., click: _Optional[_Union[Click, _Mapping]] = ..., mouse_down: _Optional[_Union[MouseDown, _Mapping]] = ..., mouse_up: _Optional[_Union[MouseUp, _Mapping]] = ..., drag: _Optional[_Union[Drag, _Mapping]] = ..., scroll: _Optional[_Union[Scroll, _Mapping]] = ..., key: _Optional[_Union[Key, _Mapping]] = ..., key_down: _Optional[_Union[KeyDown, _Mapping]] = ..., key_up: _Optional[_Union[KeyUp, _Mapping]] = ..., hold_key: _Optional[_Union[HoldKey, _Mapping]] = ..., type: _Optional[_Union[TypeText, _Mapping]] = ..., wait: _Optional[_Union[Wait, _Mapping]] = ..., release_all: _Optional[_Union[ReleaseAll, _Mapping]] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ["characters_remapped", "characters_typed", "effect", "held", "observation", "pointer", "released", "target", "timing"]
    CHARACTERS_REMAPPED_FIELD_NUMBER: _ClassVar[int]
    CHARACTERS_TYPED_FIELD_NUMBER: _ClassVar[int]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    HELD_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    POINTER_FIELD_NUMBER: _ClassVar[int]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    characters_remapped: int
    characters_typed: int
    effect: Effect
    held: _containers.RepeatedCompositeFieldContainer[HeldInput]
    observation: Observation
    pointer: _common_pb2.Point
    released: _containers.RepeatedCompositeFieldContainer[HeldInput]
    target: _common_pb2.FrozenTarget
    timing: Timing
    def __init__(self, effect: _Optional[_Union[Effect, str]] = ..., target: _Optional[_Union[_common_pb2.FrozenTarget, _Mapping]] = ..., timing: _Optional[_Union[Timing, _Mapping]] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., held: _Optional[_Iterable[_Union[HeldInput, _Mapping]]] = ..., released: _Optional[_Iterable[_Union[HeldInput, _Mapping]]] = ..., characters_typed: _Optional[int] = ..., characters_remapped: _Optional[int] = ..., pointer: _Optional[_Union[_common_pb2.Point, _Mapping]] = ...) -> None: ...

class Click(_message.Message):
    __slots__ = ["at", "button", "count", "modifiers"]
    AT_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    at: _common_pb2.Point
    button: MouseButton
    count: int
    modifiers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, at: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., button: _Optional[_Union[MouseButton, str]] = ..., count: _Optional[int] = ..., modifiers: _Optional[_Iterable[str]] = ...) -> None: ...

class Drag(_message.Message):
    __slots__ = ["button", "modifiers", "path", "step_delay_ms"]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    STEP_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    button: MouseButton
    modifiers: _containers.RepeatedScalarFieldContainer[str]
    path: _containers.RepeatedCompositeFieldContainer[_common_pb2.Point]
    step_delay_ms: int
    def __init__(self, path: _Optional[_Iterable[_Union[_common_pb2.Point, _Mapping]]] = ..., button: _Optional[_Union[MouseButton, str]] = ..., step_delay_ms: _Optional[int] = ..., modifiers: _Optional[_Iterable[str]] = ...) -> None: ...

class HeldInput(_message.Message):
    __slots__ = ["button", "key"]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    button: MouseButton
    key: str
    def __init__(self, key: _Optional[str] = ..., button: _Optional[_Union[MouseButton, str]] = ...) -> None: ...

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
    button: MouseButton
    def __init__(self, at: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., button: _Optional[_Union[MouseButton, str]] = ...) -> None: ...

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
    button: MouseButton
    def __init__(self, at: _Optional[_Union[_common_pb2.Point, _Mapping]] = ..., button: _Optional[_Union[MouseButton, str]] = ...) -> None: ...

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

class MouseButton(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Effect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
