from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
VIEWER_MODE_CONTROL: ViewerMode
VIEWER_MODE_UNSPECIFIED: ViewerMode
VIEWER_MODE_VIEW: ViewerMode

class CreateViewerLinkRequest(_message.Message):
    __slots__ = ["guest", "mode", "ttl_seconds"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    guest: str
    mode: ViewerMode
    ttl_seconds: int
    def __init__(self, guest: _Optional[str] = ..., mode: _Optional[_Union[ViewerMode, str]] = ..., ttl_seconds: _Optional[int] = ...) -> None: ...

class CreateViewerLinkResponse(_message.Message):
    __slots__ = ["expires_at", "link_id", "url"]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    LINK_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    expires_at: _timestamp_pb2.Timestamp
    link_id: str
    url: str
    def __init__(self, url: _Optional[str] = ..., expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., link_id: _Optional[str] = ...) -> None: ...

class ViewerMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
