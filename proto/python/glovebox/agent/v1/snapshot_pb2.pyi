from glovebox.agent.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

CARET_PLACEMENT_AFTER: CaretPlacement
CARET_PLACEMENT_BEFORE: CaretPlacement
CARET_PLACEMENT_SELECT: CaretPlacement
CARET_PLACEMENT_UNSPECIFIED: CaretPlacement
DESCRIPTOR: _descriptor.FileDescriptor

class Element(_message.Message):
    __slots__ = ["actions", "bounds", "depth", "description", "name", "parent_ref", "range", "ref", "role", "states", "text", "value"]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    BOUNDS_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARENT_REF_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedScalarFieldContainer[str]
    bounds: _common_pb2.Rect
    depth: int
    description: str
    name: str
    parent_ref: str
    range: ValueRange
    ref: str
    role: str
    states: _containers.RepeatedScalarFieldContainer[str]
    text: str
    value: str
    def __init__(self, ref: _Optional[str] = ..., role: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., states: _Optional[_Iterable[str]] = ..., bounds: _Optional[_Union[_common_pb2.Rect, _Mapping]] = ..., actions: _Optional[_Iterable[str]] = ..., value: _Optional[str] = ..., text: _Optional[str] = ..., parent_ref: _Optional[str] = ..., depth: _Optional[int] = ..., range: _Optional[_Union[ValueRange, _Mapping]] = ...) -> None: ...

class ElementFind(_message.Message):
    __slots__ = ["limit", "name", "name_regex", "role", "states"]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NAME_REGEX_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    limit: int
    name: str
    name_regex: str
    role: str
    states: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, role: _Optional[str] = ..., name: _Optional[str] = ..., name_regex: _Optional[str] = ..., states: _Optional[_Iterable[str]] = ..., limit: _Optional[int] = ...) -> None: ...

class ElementRef(_message.Message):
    __slots__ = ["ref", "snapshot_id"]
    REF_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_ID_FIELD_NUMBER: _ClassVar[int]
    ref: str
    snapshot_id: str
    def __init__(self, snapshot_id: _Optional[str] = ..., ref: _Optional[str] = ...) -> None: ...

class Snapshot(_message.Message):
    __slots__ = ["complete", "elements", "generation", "incomplete_reason", "next_cursor", "offset", "snapshot_id", "target", "text", "took_us", "total"]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    INCOMPLETE_REASON_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOOK_US_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    complete: bool
    elements: _containers.RepeatedCompositeFieldContainer[Element]
    generation: int
    incomplete_reason: str
    next_cursor: str
    offset: int
    snapshot_id: str
    target: _common_pb2.Target
    text: str
    took_us: int
    total: int
    def __init__(self, snapshot_id: _Optional[str] = ..., target: _Optional[_Union[_common_pb2.Target, _Mapping]] = ..., generation: _Optional[int] = ..., elements: _Optional[_Iterable[_Union[Element, _Mapping]]] = ..., complete: bool = ..., incomplete_reason: _Optional[str] = ..., text: _Optional[str] = ..., took_us: _Optional[int] = ..., next_cursor: _Optional[str] = ..., offset: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...

class SnapshotOptions(_message.Message):
    __slots__ = ["cursor", "detached", "find", "interactive_only", "max_bytes", "max_depth", "max_field_bytes", "max_nodes", "max_tokens", "omit_text", "subtree", "text_only", "visible_only"]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    DETACHED_FIELD_NUMBER: _ClassVar[int]
    FIND_FIELD_NUMBER: _ClassVar[int]
    INTERACTIVE_ONLY_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_NODES_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OMIT_TEXT_FIELD_NUMBER: _ClassVar[int]
    SUBTREE_FIELD_NUMBER: _ClassVar[int]
    TEXT_ONLY_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_ONLY_FIELD_NUMBER: _ClassVar[int]
    cursor: str
    detached: bool
    find: ElementFind
    interactive_only: bool
    max_bytes: int
    max_depth: int
    max_field_bytes: int
    max_nodes: int
    max_tokens: int
    omit_text: bool
    subtree: ElementRef
    text_only: bool
    visible_only: bool
    def __init__(self, max_nodes: _Optional[int] = ..., max_depth: _Optional[int] = ..., interactive_only: bool = ..., visible_only: bool = ..., omit_text: bool = ..., max_bytes: _Optional[int] = ..., max_tokens: _Optional[int] = ..., cursor: _Optional[str] = ..., subtree: _Optional[_Union[ElementRef, _Mapping]] = ..., find: _Optional[_Union[ElementFind, _Mapping]] = ..., text_only: bool = ..., max_field_bytes: _Optional[int] = ..., detached: bool = ...) -> None: ...

class TextMatch(_message.Message):
    __slots__ = ["prefix", "suffix", "text"]
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    SUFFIX_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    prefix: str
    suffix: str
    text: str
    def __init__(self, prefix: _Optional[str] = ..., text: _Optional[str] = ..., suffix: _Optional[str] = ...) -> None: ...

class TextRange(_message.Message):
    __slots__ = ["end", "start"]
    END_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    end: int
    start: int
    def __init__(self, start: _Optional[int] = ..., end: _Optional[int] = ...) -> None: ...

class ValueRange(_message.Message):
    __slots__ = ["current", "maximum", "minimum", "step"]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    current: float
    maximum: float
    minimum: float
    step: float
    def __init__(self, current: _Optional[float] = ..., minimum: _Optional[float] = ..., maximum: _Optional[float] = ..., step: _Optional[float] = ...) -> None: ...

class CaretPlacement(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
