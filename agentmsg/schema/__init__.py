"""JSON Schemas from type hints, validation of tool arguments, and typed objects built from them.

>>> from dataclasses import dataclass
>>> from typing import Literal
>>> @dataclass(frozen=True)
... class GetWeather:
...     city: str
...     unit: Literal["celsius", "fahrenheit"] = "celsius"
>>> schema_for(GetWeather)
{'type': 'object', 'properties': {'city': {'type': 'string'}, 'unit': {'anyOf': [{'type': 'string', 'enum': ['celsius', 'fahrenheit']}, {'type': 'null'}]}}, 'required': ['city', 'unit'], 'additionalProperties': False}
>>> build(GetWeather, {"city": "Oslo", "unit": None})
GetWeather(city='Oslo', unit='celsius')
>>> try:
...     validate_arguments(schema_for(GetWeather), {"city": "Oslo", "unit": "kelvin"})
... except ValidationError as exc:
...     print(exc)
unit: must be one of celsius, fahrenheit

The generator works in two steps: type hints become an intermediate description
(``_types``), which becomes either a schema dict (``_generate``) or a builder of typed objects
(``_build``). ``strict=True`` (the default) follows OpenAI's structured-outputs rules:
every property is required, a field with a default becomes nullable (``null`` means "use the
default"), every object has ``additionalProperties: false``, and only keywords strict mode
accepts are emitted. ``strict=False`` leaves defaulted fields out of ``required`` and records
their defaults.
"""

# No ``from __future__ import annotations`` here: the doctest above defines a dataclass, and the
# generator must resolve its hints (doctest compiles examples with the module's future flags).

from ..errors import ValidationError  # raised by all three (and named by the doctest above)
from ._generate import build, schema_for, validate_arguments

__all__ = ["build", "schema_for", "validate_arguments"]
