"""The client's requests: ``chat:send``, ``chat:init`` (join a session), ``chat:cancel`` and an approval.

>>> ChatRequest(message="Hi", conversation_id="c1").to_dict()
{'message': 'Hi', 'conversation_id': 'c1'}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .._checks import check_bool, check_nonempty, check_str, expected, missing
from .._fieldtable import Codec, field_table, nested, row, size
from .._time import check_wire_timestamp
from ..content import ImagePart, ImageSource, TextPart
from ..errors import ValidationError
from ..messages import ChatMessage

__all__ = ["ImageAttachment", "ChatRequest", "ChatInitRequest", "ChatCancel", "ToolApprovalResponse"]


def _bare_base64(value: object, path: str) -> object:
    if type(value) is str and value.startswith("data:"):
        raise ValidationError("must be bare base64: strip the 'data:<type>;base64,' prefix", path, "value")
    return _present(value, path)


def _present(value: object, path: str) -> object:
    if value is None:
        raise missing(path)
    return value


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ImageAttachment(Codec):
    """An image the web client attaches to a chat request: bare base64 and its media type.

    >>> ImageAttachment(data="iVBORw0KGgo=", media_type="image/png")
    ImageAttachment(data=<12 chars>, media_type=image/png)
    >>> try:
    ...     ImageAttachment(data="data:image/png;base64,iVBORw0KGgo=", media_type="image/png")
    ... except ValidationError as exc:
    ...     print(exc)
    data: must be bare base64: strip the 'data:<type>;base64,' prefix
    >>> try:
    ...     ImageAttachment(data="iVBORw0KGgo=", media_type="image/bmp")
    ... except ValidationError as exc:
    ...     print(exc)
    media_type: must be one of image/png, image/jpeg, image/gif, image/webp
    """

    data: str = field(metadata=row("data", _bare_base64, show=size("char")))
    media_type: str = field(metadata=row("media_type", _present, show=str))

    def __post_init__(self) -> None:
        self.to_source()  # the core's rules: a supported media type and valid, non-empty base64

    def to_source(self) -> ImageSource:
        """Return the image as a base64 ``ImageSource``.

        >>> ImageAttachment(data="iVBORw0KGgo=", media_type="image/png").to_source().to_dict()
        {'type': 'base64', 'media_type': 'image/png', 'data': 'iVBORw0KGgo='}
        """
        return ImageSource.from_base64(self.data, self.media_type)

    def data_url(self) -> str:
        """Return the image as a ``data:`` URL (what a history entry shows).

        >>> ImageAttachment(data="iVBORw0KGgo=", media_type="image/png").data_url()
        'data:image/png;base64,iVBORw0KGgo='
        """
        return f"data:{self.media_type};base64,{self.data}"


def _image(value: object, path: str) -> object:
    if type(value) is not ImageAttachment:
        raise expected("an ImageAttachment", value, path)
    return value


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatRequest(Codec):
    """``chat:send``: the user's message, an optional conversation id, an optional image.

    >>> req = ChatRequest.from_dict({"message": "What is in this picture?", "conversation_id": "c1",
    ...                              "image": {"data": "iVBORw0KGgo=", "media_type": "image/png"}})
    >>> req
    ChatRequest(message=<24 chars>, conversation_id='c1', image=ImageAttachment(data=<12 chars>, media_type=image/png))
    >>> req.to_message()
    ChatMessage(role=user, content=<2 parts>)
    >>> try:
    ...     ChatRequest(message="  ")
    ... except ValidationError as exc:
    ...     print(exc)
    message: must not be empty unless an image is attached

    ``id`` and ``timestamp`` (optional) are set by the server on the echo it sends to the
    session's room: the user entry's id and time, as ``chat:init`` shows them later.
    """

    EVENT: ClassVar[str] = "chat:send"

    message: str = field(default="", metadata=row("message", check_str, show=size("char")))
    conversation_id: str | None = field(
        default=None, metadata=row("conversation_id", check_nonempty, optional=True)
    )
    image: ImageAttachment | None = field(
        default=None, metadata=row("image", _image, optional=True, decode=nested(ImageAttachment.from_dict))
    )
    id: str | None = field(default=None, metadata=row("id", check_nonempty, optional=True))
    timestamp: str | None = field(default=None, metadata=row("timestamp", check_wire_timestamp, optional=True, show=False))

    def __post_init__(self) -> None:
        if self.image is None and not self.message.strip():
            raise ValidationError("must not be empty unless an image is attached", "message", "value")

    def to_message(self) -> ChatMessage:
        """Return the user ``ChatMessage``: the text, plus an image part when one is attached.

        >>> ChatRequest(message="Hello").to_message().to_dict()
        {'role': 'user', 'content': 'Hello'}
        >>> img = ImageAttachment(data="iVBORw0KGgo=", media_type="image/png")
        >>> [p["type"] for p in ChatRequest(message="Look", image=img).to_message().to_dict()["content"]]
        ['text', 'image']

        Without text, the image is the only part.
        """
        if self.image is None:
            return ChatMessage.user(self.message)
        image = ImagePart(self.image.to_source())
        if not self.message.strip():
            return ChatMessage.user((image,))
        return ChatMessage.user((TextPart(self.message), image))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatInitRequest(Codec):
    """``chat:init`` from the client: join a session (a new one when ``sessionId`` is absent).

    >>> ChatInitRequest.from_dict({"sessionId": "s1"})
    ChatInitRequest(session_id='s1')
    >>> ChatInitRequest().to_dict()
    {}
    """

    EVENT: ClassVar[str] = "chat:init"

    session_id: str | None = field(default=None, metadata=row("sessionId", check_nonempty, optional=True))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatCancel(Codec):
    """``chat:cancel`` from the client: end the running turn of a session.

    >>> ChatCancel.from_dict({"sessionId": "s1", "turnId": "t9"})
    ChatCancel(session_id='s1', turn_id='t9')

    The server answers with the turn's ``completion`` (``success: false``, ``cancelled: true``,
    ``code: "cancelled"``); with ``turnId``, only if that turn is still the running one.
    """

    EVENT: ClassVar[str] = "chat:cancel"

    session_id: str = field(metadata=row("sessionId", check_nonempty))
    turn_id: str | None = field(default=None, metadata=row("turnId", check_nonempty, optional=True))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolApprovalResponse(Codec):
    """``tool:approval:response`` from the client: approve or deny a pending tool call.

    >>> ToolApprovalResponse.from_dict({"sessionId": "s1", "id": "t1", "approved": False, "reason": "not on a Sunday"})
    ToolApprovalResponse(session_id='s1', id='t1', approved=False, reason=<15 chars>)
    >>> try:
    ...     ToolApprovalResponse.from_dict({"sessionId": "s1", "id": "t1", "approved": "yes"})
    ... except ValidationError as exc:
    ...     print(exc)
    approved: expected a boolean, got string

    ``id`` is the tool message's id (of its ``tool:message:start`` and ``tool:approval:request``).
    A denied call is answered to the model as denied; ``reason`` goes with it when given.
    """

    EVENT: ClassVar[str] = "tool:approval:response"

    session_id: str = field(metadata=row("sessionId", check_nonempty))
    id: str = field(metadata=row("id", check_nonempty))
    approved: bool = field(metadata=row("approved", check_bool))
    reason: str | None = field(default=None, metadata=row("reason", check_nonempty, optional=True, show=size("char")))
