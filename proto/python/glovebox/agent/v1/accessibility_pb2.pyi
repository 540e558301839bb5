from glovebox.agent.v1 import common_pb2 as _common_pb2
from glovebox.agent.v1 import snapshot_pb2 as _snapshot_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class App(_message.Message):
    __slots__ = ["app_id", "name", "pid", "toolkit", "toolkit_version", "windows"]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    TOOLKIT_FIELD_NUMBER: _ClassVar[int]
    TOOLKIT_VERSION_FIELD_NUMBER: _ClassVar[int]
    WINDOWS_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    name: str
    pid: int
    toolkit: str
    toolkit_version: str
    windows: _containers.RepeatedCompositeFieldContainer[AppWindow]
    def __init__(self, app_id: _Optional[str] = ..., name: _Optional[str] = ..., pid: _Optional[int] = ..., toolkit: _Optional[str] = ..., toolkit_version: _Optional[str] = ..., windows: _Optional[_Iterable[_Union[AppWindow, _Mapping]]] = ...) -> None: ...

class AppWindow(_message.Message):
    __slots__ = ["bounds", "name", "role", "states", "window_id"]
    BOUNDS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    WINDOW_ID_FIELD_NUMBER: _ClassVar[int]
    bounds: _common_pb2.Rect
    name: str
    role: str
    states: _containers.RepeatedScalarFieldContainer[str]
    window_id: str
    def __init__(self, window_id: _Optional[str] = ..., name: _Optional[str] = ..., role: _Optional[str] = ..., bounds: _Optional[_Union[_common_pb2.Rect, _Mapping]] = ..., states: _Optional[_Iterable[str]] = ...) -> None: ...

class GetAppRequest(_message.Message):
    __slots__ = ["app_id", "args", "launch", "launch_timeout_ms", "name"]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    LAUNCH_FIELD_NUMBER: _ClassVar[int]
    LAUNCH_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    args: _containers.RepeatedScalarFieldContainer[str]
    launch: bool
    launch_timeout_ms: int
    name: str
    def __init__(self, app_id: _Optional[str] = ..., name: _Optional[str] = ..., launch: bool = ..., args: _Optional[_Iterable[str]] = ..., launch_timeout_ms: _Optional[int] = ...) -> None: ...

class GetAppResponse(_message.Message):
    __slots__ = ["accessible", "app", "effect", "launched", "pid", "target", "timing"]
    ACCESSIBLE_FIELD_NUMBER: _ClassVar[int]
    APP_FIELD_NUMBER: _ClassVar[int]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    LAUNCHED_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    accessible: bool
    app: App
    effect: _common_pb2.Effect
    launched: bool
    pid: int
    target: _common_pb2.FrozenTarget
    timing: _common_pb2.Timing
    def __init__(self, app: _Optional[_Union[App, _Mapping]] = ..., launched: bool = ..., accessible: bool = ..., pid: _Optional[int] = ..., effect: _Optional[_Union[_common_pb2.Effect, str]] = ..., target: _Optional[_Union[_common_pb2.FrozenTarget, _Mapping]] = ..., timing: _Optional[_Union[_common_pb2.Timing, _Mapping]] = ...) -> None: ...

class ListAppsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListAppsResponse(_message.Message):
    __slots__ = ["apps"]
    APPS_FIELD_NUMBER: _ClassVar[int]
    apps: _containers.RepeatedCompositeFieldContainer[App]
    def __init__(self, apps: _Optional[_Iterable[_Union[App, _Mapping]]] = ...) -> None: ...

class SnapshotAppRequest(_message.Message):
    __slots__ = ["app_id", "options"]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    options: _snapshot_pb2.SnapshotOptions
    def __init__(self, app_id: _Optional[str] = ..., options: _Optional[_Union[_snapshot_pb2.SnapshotOptions, _Mapping]] = ...) -> None: ...

class SnapshotAppResponse(_message.Message):
    __slots__ = ["snapshot"]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    snapshot: _snapshot_pb2.Snapshot
    def __init__(self, snapshot: _Optional[_Union[_snapshot_pb2.Snapshot, _Mapping]] = ...) -> None: ...

class SnapshotWindowRequest(_message.Message):
    __slots__ = ["app_id", "options", "window_id"]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    WINDOW_ID_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    options: _snapshot_pb2.SnapshotOptions
    window_id: str
    def __init__(self, app_id: _Optional[str] = ..., window_id: _Optional[str] = ..., options: _Optional[_Union[_snapshot_pb2.SnapshotOptions, _Mapping]] = ...) -> None: ...

class SnapshotWindowResponse(_message.Message):
    __slots__ = ["snapshot"]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    snapshot: _snapshot_pb2.Snapshot
    def __init__(self, snapshot: _Optional[_Union[_snapshot_pb2.Snapshot, _Mapping]] = ...) -> None: ...
