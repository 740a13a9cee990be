"""Check agentmsg and provider documents from the command line: ``python -m agentmsg.validate``.

The modules, from the command down:

- ``_cli``: the options, ``--list-kinds``, ``--schema``, ``main``;
- ``_reader``: files and standard input, one JSON document or JSON Lines, ``--conversation``;
- ``_json_lines``: JSON Lines read in bounded blocks, each line on the fast path;
- ``_jobs``: ``--jobs N``, a JSON Lines file cut into pieces for worker processes;
- ``_big_document``: one big conversation array checked a message at a time;
- ``_diagnosis``: the careful path, one document checked and each problem placed and explained;
- ``_report``: the run's counts, its report (text or JSON), the progress line;
- ``_registry``: the kinds of document, how each is detected, the checkers of agentmsg's own;
- ``_provider_kinds``: the checkers of providers' requests, messages arrays and tools;
- ``_provider_rules``, ``_mcp_rules``: what providers' APIs and MCP refuse, in their terms;
- ``_rules``: what the checkers share (``Problems``, the getters the rules read with);
- ``_json_array``, ``_json_position``: a top-level JSON array read an element at a time; where
  a path's value starts in JSON text, and what strict parsing refuses.
"""

from __future__ import annotations

from ._cli import main

__all__ = ["main"]
