from glovebox.agent.v1 import browser_pb2 as _browser_pb2
from glovebox.agent.v1 import page_actions_pb2 as _page_actions_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
DROP_TARGET_DESKTOP_CLIPBOARD: DropTarget
DROP_TARGET_DIRECTORY: DropTarget
DROP_TARGET_PAGE: DropTarget
DROP_TARGET_UNSPECIFIED: DropTarget
PAGE_DROP_MODE_DROP_EVENT: PageDropMode
PAGE_DROP_MODE_FILE_INPUT: PageDropMode
PAGE_DROP_MODE_UNSPECIFIED: PageDropMode

class Download(_message.Message):
    __slots__ = ["complete", "modified_unix_ms", "name", "path", "size"]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    complete: bool
    modified_unix_ms: int
    name: str
    path: str
    size: int
    def __init__(self, name: _Optional[str] = ..., path: _Optional[str] = ..., size: _Optional[int] = ..., modified_unix_ms: _Optional[int] = ..., complete: bool = ...) -> None: ...

class DropFile(_message.Message):
    __slots__ = ["name", "sha256", "size"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    name: str
    sha256: str
    size: int
    def __init__(self, name: _Optional[str] = ..., size: _Optional[int] = ..., sha256: _Optional[str] = ...) -> None: ...

class DropFilesHeader(_message.Message):
    __slots__ = ["files", "owner", "page", "target"]
    FILES_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[DropFile]
    owner: str
    page: PageDrop
    target: DropTarget
    def __init__(self, owner: _Optional[str] = ..., files: _Optional[_Iterable[_Union[DropFile, _Mapping]]] = ..., target: _Optional[_Union[DropTarget, str]] = ..., page: _Optional[_Union[PageDrop, _Mapping]] = ...) -> None: ...

class DropFilesRequest(_message.Message):
    __slots__ = ["chunk", "header"]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    chunk: FileChunk
    header: DropFilesHeader
    def __init__(self, header: _Optional[_Union[DropFilesHeader, _Mapping]] = ..., chunk: _Optional[_Union[FileChunk, _Mapping]] = ...) -> None: ...

class DropFilesResponse(_message.Message):
    __slots__ = ["directory", "files", "page_mode", "target"]
    DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    PAGE_MODE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    directory: str
    files: _containers.RepeatedCompositeFieldContainer[DroppedFile]
    page_mode: PageDropMode
    target: DropTarget
    def __init__(self, files: _Optional[_Iterable[_Union[DroppedFile, _Mapping]]] = ..., directory: _Optional[str] = ..., target: _Optional[_Union[DropTarget, str]] = ..., page_mode: _Optional[_Union[PageDropMode, str]] = ...) -> None: ...

class DroppedFile(_message.Message):
    __slots__ = ["in_page", "name", "on_clipboard", "path", "saved_name", "sha256", "size"]
    IN_PAGE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ON_CLIPBOARD_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SAVED_NAME_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    in_page: bool
    name: str
    on_clipboard: bool
    path: str
    saved_name: str
    sha256: str
    size: int
    def __init__(self, name: _Optional[str] = ..., saved_name: _Optional[str] = ..., path: _Optional[str] = ..., size: _Optional[int] = ..., sha256: _Optional[str] = ..., on_clipboard: bool = ..., in_page: bool = ...) -> None: ...

class FileChunk(_message.Message):
    __slots__ = ["data", "file"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    file: int
    def __init__(self, file: _Optional[int] = ..., data: _Optional[bytes] = ...) -> None: ...

class ListDownloadsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListDownloadsResponse(_message.Message):
    __slots__ = ["directory", "downloads"]
    DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    DOWNLOADS_FIELD_NUMBER: _ClassVar[int]
    directory: str
    downloads: _containers.RepeatedCompositeFieldContainer[Download]
    def __init__(self, directory: _Optional[str] = ..., downloads: _Optional[_Iterable[_Union[Download, _Mapping]]] = ...) -> None: ...

class PageDrop(_message.Message):
    __slots__ = ["locator", "mode", "tab"]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    locator: _page_actions_pb2.Locator
    mode: PageDropMode
    tab: _browser_pb2.TabRef
    def __init__(self, tab: _Optional[_Union[_browser_pb2.TabRef, _Mapping]] = ..., locator: _Optional[_Union[_page_actions_pb2.Locator, _Mapping]] = ..., mode: _Optional[_Union[PageDropMode, str]] = ...) -> None: ...

class ReadFileInfo(_message.Message):
    __slots__ = ["path", "size"]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    path: str
    size: int
    def __init__(self, path: _Optional[str] = ..., size: _Optional[int] = ...) -> None: ...

class ReadFileRequest(_message.Message):
    __slots__ = ["max_bytes", "path"]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    max_bytes: int
    path: str
    def __init__(self, path: _Optional[str] = ..., max_bytes: _Optional[int] = ...) -> None: ...

class ReadFileResponse(_message.Message):
    __slots__ = ["data", "info", "sha256"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    info: ReadFileInfo
    sha256: str
    def __init__(self, info: _Optional[_Union[ReadFileInfo, _Mapping]] = ..., data: _Optional[bytes] = ..., sha256: _Optional[str] = ...) -> None: ...

class PageDropMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class DropTarget(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
