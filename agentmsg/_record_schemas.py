"""Names of the record JSON Schemas shipped in ``agentmsg/schemas/``, to fold into ``_schemas.py``.

>>> RECORD_SCHEMAS["record_file_reference_v1"]
'record_file_reference_v1.json'
>>> record_schema_name("file_reference", 2)
'record_file_reference_v2'
"""

__all__ = ["RECORD_SCHEMAS", "record_schema_name"]

RECORD_SCHEMAS: dict[str, str] = {
    "record": "record.json",
    "record_text_v1": "record_text_v1.json",
    "record_image_v1": "record_image_v1.json",
    "record_file_reference_v1": "record_file_reference_v1.json",
    "record_file_reference_v2": "record_file_reference_v2.json",
    "record_tool_request_v1": "record_tool_request_v1.json",
    "record_tool_result_v1": "record_tool_result_v1.json",
    "record_system_control_v1": "record_system_control_v1.json",
    "record_mcp_resource_v1": "record_mcp_resource_v1.json",
}
"""Schema name -> file name: ``record`` is the envelope, ``record_<type>_v<N>`` one version."""


def record_schema_name(record_type: str, version: int) -> str:
    """Return the schema name of one record type at one version (``record_<type>_v<N>``)."""
    return f"record_{record_type}_v{version}"
