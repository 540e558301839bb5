from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateMcpTokenRequest(_message.Message):
    __slots__ = ["guest", "label", "ttl_seconds"]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    guest: str
    label: str
    ttl_seconds: int
    def __init__(self, guest: _Optional[str] = ..., ttl_seconds: _Optional[int] = ..., label: _Optional[str] = ...) -> None: ...

class CreateMcpTokenResponse(_message.Message):
    __slots__ = ["expires_at", "token", "url"]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    expires_at: _timestamp_pb2.Timestamp
    token: str
    url: str
    def __init__(self, token: _Optional[str] = ..., url: _Optional[str] = ..., expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
