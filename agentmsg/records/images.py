"""Image records: an image, how it should be recognised, and what was recognised.

>>> ImageRecord(id="i", source=ImageSource.from_path("a.png")).to_dict()["data"]
{'source': {'type': 'file', 'path': 'a.png'}, 'mode': 'auto', 'state': 'pending'}
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from .._checks import check_choice, check_float, check_nonempty, check_object, check_str, expected
from .._fieldtable import Codec, nested, row, size
from ..content import ImageSource
from ..errors import ValidationError
from ._envelope import ID, new_record_id, record

__all__ = ["ImageRecord"]

RecognitionMode = Literal["vision", "ocr", "auto"]
ImageState = Literal["pending", "recognized", "failed"]

_RECOGNITION_MODES: tuple[RecognitionMode, ...] = ("vision", "ocr", "auto")
_USED_MODES: tuple[Literal["vision", "ocr"], ...] = ("vision", "ocr")
_IMAGE_STATES: tuple[ImageState, ...] = ("pending", "recognized", "failed")
_IMAGE_RESULTS = ("recognized_by", "analysis", "text", "confidence", "language")  # set only when recognized
_NO_RESULTS: dict[str, Any] = dict.fromkeys(_IMAGE_RESULTS)


def _image_source(value: object, path: str) -> ImageSource:
    if not isinstance(value, ImageSource):
        raise expected("an ImageSource", value, path)
    return value


def _source_from_dict(value: object) -> ImageSource:
    return ImageSource.from_dict(check_object(value))


@record
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ImageRecord(Codec):
    """Hold an image, how it should be recognised, and (once processed) what was recognised.

    ``mode`` asks for ``vision`` (send the image to the model), ``ocr`` (send the recognised
    text) or ``auto`` (the processor decides; ``recognized_by`` says which it used).

    >>> img = ImageRecord(id="i1", source=ImageSource.from_url("https://example.com/a.png"), mode="ocr")
    >>> done = img.with_ocr("Total: 42", confidence=0.93, language="en")
    >>> done.state, done.recognized_by, done.confidence
    ('recognized', 'ocr', 0.93)
    >>> done
    ImageRecord(id='i1', source=ImageSource(type=url, url=<25 chars>), mode='ocr', state='recognized', recognized_by='ocr', text=<9 chars>, confidence=0.93, language='en')
    """

    TYPE: ClassVar[str] = "image"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=ID)
    source: ImageSource = field(metadata=row("source", _image_source, decode=nested(_source_from_dict)))
    mode: RecognitionMode = field(default="auto", metadata=row("mode", check_choice, _RECOGNITION_MODES))
    state: ImageState = field(default="pending", metadata=row("state", check_choice, _IMAGE_STATES))
    recognized_by: Literal["vision", "ocr"] | None = field(
        default=None, metadata=row("recognized_by", check_choice, _USED_MODES, optional=True)
    )
    analysis: str | None = field(default=None, metadata=row("analysis", check_str, optional=True, show=size("char")))
    text: str | None = field(default=None, metadata=row("text", check_str, optional=True, show=size("char")))
    confidence: float | None = field(
        default=None, metadata=row("confidence", check_float, optional=True, minimum=0.0, maximum=1.0)
    )
    language: str | None = field(default=None, metadata=row("language", check_nonempty, optional=True))
    error: str | None = field(default=None, metadata=row("error", check_nonempty, optional=True, show=size("char")))

    def __post_init__(self) -> None:
        state = self.state
        if state != "recognized":
            for name in _IMAGE_RESULTS:
                if getattr(self, name) is not None:
                    raise ValidationError("must be absent unless state is recognized", name, "value")
        if state != "failed" and self.error is not None:
            raise ValidationError("must be absent unless state is failed", "error", "value")
        if state == "failed" and self.error is None:
            raise ValidationError("is required when state is failed", "error", "missing")
        if state == "recognized":
            if self.recognized_by is None:
                raise ValidationError("is required when state is recognized", "recognized_by", "missing")
            if self.mode != "auto" and self.recognized_by != self.mode:
                raise ValidationError("must match the requested mode", "recognized_by", "value")
            if self.recognized_by == "ocr" and self.text is None:
                raise ValidationError("is required when recognized_by is ocr", "text", "missing")
            if self.recognized_by == "vision" and (self.text is not None or self.confidence is not None):
                name = "text" if self.text is not None else "confidence"
                raise ValidationError("must be absent when recognized_by is vision", name, "value")

    def with_vision(
        self, analysis: str | None = None, *, language: str | None = None, source: ImageSource | None = None
    ) -> "ImageRecord":
        """Return a copy recognised by vision (optionally with the model's analysis and a new source).

        >>> img = ImageRecord(id="i", source=ImageSource.from_path("shot.png"))
        >>> img.with_vision("A login form.").recognized_by
        'vision'
        """
        return replace(
            self,
            state="recognized",
            recognized_by="vision",
            analysis=analysis,
            language=language,
            source=self.source if source is None else source,
            error=None,
        )

    def with_ocr(
        self, text: str, *, confidence: float | None = None, language: str | None = None
    ) -> "ImageRecord":
        """Return a copy recognised by OCR, with the recognised text and its metadata.

        >>> ImageRecord(id="i", source=ImageSource.from_path("a.png")).with_ocr("hi").text
        'hi'
        """
        return replace(
            self,
            state="recognized",
            recognized_by="ocr",
            text=text,
            confidence=confidence,
            language=language,
            analysis=None,
            error=None,
        )

    def fail(self, error: str) -> "ImageRecord":
        """Return a copy whose recognition failed with ``error`` (clears any results).

        >>> ImageRecord(id="i", source=ImageSource.from_path("a.png")).fail("unreadable").state
        'failed'
        """
        return replace(self, state="failed", error=error, **_NO_RESULTS)
