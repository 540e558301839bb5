from glovebox.agent.v1 import files_pb2 as _files_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DropFilesRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _files_pb2.DropFilesRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_files_pb2.DropFilesRequest, _Mapping]] = ...) -> None: ...

class DropFilesResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _files_pb2.DropFilesResponse
    def __init__(self, response: _Optional[_Union[_files_pb2.DropFilesResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class ListDownloadsRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _files_pb2.ListDownloadsRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_files_pb2.ListDownloadsRequest, _Mapping]] = ...) -> None: ...

class ListDownloadsResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _files_pb2.ListDownloadsResponse
    def __init__(self, response: _Optional[_Union[_files_pb2.ListDownloadsResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...

class ReadFileRequest(_message.Message):
    __slots__ = ["request", "session_id"]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    request: _files_pb2.ReadFileRequest
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., request: _Optional[_Union[_files_pb2.ReadFileRequest, _Mapping]] = ...) -> None: ...

class ReadFileResponse(_message.Message):
    __slots__ = ["audit_seq", "response"]
    AUDIT_SEQ_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    audit_seq: int
    response: _files_pb2.ReadFileResponse
    def __init__(self, response: _Optional[_Union[_files_pb2.ReadFileResponse, _Mapping]] = ..., audit_seq: _Optional[int] = ...) -> None: ...
