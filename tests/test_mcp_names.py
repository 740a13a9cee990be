"""Every legal MCP tool name is offered under one name every provider takes, and reaches its own tool.

The servers are the official SDK's (tests/mcp_names_server.py registers the names given; the SDK
takes any of them), over stdio and both Streamable HTTP modes; the turns are driven by scripted
models in each provider's wire shape.
"""

import json
import logging
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmsg import ChatMessage, ConversationHistory
from agentmsg.agent import AgentTurn
from agentmsg.io.execution import ApprovalPolicy
from agentmsg.io.mcp import HttpTransport, McpClient, SkippedTool
from agentmsg.io.mcp.tools import listed_tools, tool_names
from agentmsg.providers import anthropic, gemini, ollama, openai
from agentmsg.tools import check_name, to_wire_name

from mcp_forkserver import sdk_server
from mcp_http import http_server

TESTS = Path(__file__).parent
NAMES_SERVER = TESTS / "mcp_names_server.py"

NAME_76 = "crm.contacts.search_by_company_domain_and_role.with_pagination_and_filter.v2"
NAME_128 = "acme-" + "x" * 118 + "-tool"
DOTTED = "a.b.c.d.e.f.g.h.i.j.k.l.m.n"
MANY_DOTS = "github." + ".".join(["repos"] * 20)
SAME_PREFIX_A = "analytics.reports.quarterly_revenue_by_region_and_product_line.export_csv"
SAME_PREFIX_B = "analytics.reports.quarterly_revenue_by_region_and_product_line.export_pdf"
LEGAL = [NAME_76, NAME_128, DOTTED, MANY_DOTS, SAME_PREFIX_A, SAME_PREFIX_B, "list-recipes", "db.query", "db_query"]
PROVIDER_RULE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")  # OpenAI, Anthropic and Gemini take such a name


def names_server(names, **kwargs):
    return McpClient(sdk_server(NAMES_SERVER, json.dumps(names)), name="names", timeout=60, **kwargs)


@pytest.fixture(scope="module", params=["stdio", "http", "http-json"])
def server(request):
    """One client of the names server per transport (HTTP: event streams or JSON bodies)."""
    if request.param == "stdio":
        with names_server(LEGAL) as client:
            yield client
    else:
        with http_server(json_response=request.param == "http-json", script=NAMES_SERVER, args=(json.dumps(LEGAL),)) as url, \
                McpClient(url, name="names", timeout=60) as client:
            yield client


def offered(client):
    return {tool.server_name: tool.definition.name for tool in client._tools.values()}


def test_the_transport_is_the_one_asked_for(server, request):
    http = request.node.callspec.params["server"] != "stdio"
    assert isinstance(server.transport, HttpTransport) is http and server.server_info["name"] == "agentmsg-names-server"


def test_the_names_are_the_ones_asked_for():
    assert (len(NAME_76), len(NAME_128), len(DOTTED)) == (76, 128, 27)
    assert SAME_PREFIX_A[:64] == SAME_PREFIX_B[:64] and SAME_PREFIX_A != SAME_PREFIX_B


def test_every_legal_name_is_listed_under_a_provider_legal_name(server):
    definitions = server.list_tools()
    assert len(definitions) == len(LEGAL) and server.skipped_tools == ()
    names = offered(server)
    assert set(names) == set(LEGAL)
    assert len(set(names.values())) == len(LEGAL)  # no two tools share a name
    for name in names.values():
        assert check_name(name) == name and PROVIDER_RULE.fullmatch(to_wire_name(name))


def test_the_76_character_name_is_shortened_with_a_hash_and_reaches_its_tool(server):
    server.list_tools()
    name = offered(server)[NAME_76]
    assert len(name) == 64 and re.fullmatch(r"crm_contacts_search_by_company_domain_and_role_with_pag_[0-9a-f]{8}", name)
    assert server.call_tool(name).text == NAME_76


def test_a_128_character_name_reaches_its_tool(server):
    server.list_tools()
    name = offered(server)[NAME_128]
    assert len(name) == 64 and name.startswith("acme_xxx")
    assert server.call_tool(name).text == NAME_128


def test_a_b_c_d_e_f_g_h_i_j_k_l_m_n_stays_readable(server):
    server.list_tools()
    assert offered(server)[DOTTED] == "a_b_c_d_e_f_g_h_i_j_k_l_m_n"
    assert server.call_tool("a_b_c_d_e_f_g_h_i_j_k_l_m_n").text == DOTTED


def test_many_dots(server):
    server.list_tools()
    name = offered(server)[MANY_DOTS]
    assert len(MANY_DOTS) == 126 and len(name) == 64 and name.startswith("github_repos_repos_")
    assert server.call_tool(name).text == MANY_DOTS


def test_two_names_that_shorten_to_the_same_prefix_stay_apart(server):
    server.list_tools()
    a, b = offered(server)[SAME_PREFIX_A], offered(server)[SAME_PREFIX_B]
    assert a != b and a[:55] == b[:55]
    assert server.call_tool(a).text == SAME_PREFIX_A and server.call_tool(b).text == SAME_PREFIX_B


def test_a_name_every_provider_takes_is_kept_and_an_alias_never_takes_it(server):
    server.list_tools()
    names = offered(server)
    assert names["list-recipes"] == "list_x2d_recipes" and names["db_query"] == "db_query"
    assert names["db.query"].startswith("db_query_") and len(names["db.query"]) == 17
    assert server.call_tool(names["db.query"]).text == "db.query" and server.call_tool("db_query").text == "db_query"


@pytest.mark.parametrize("provider", [anthropic, openai, ollama], ids=["anthropic", "openai", "ollama"])
def test_a_turn_calls_the_shortened_name_and_the_right_mcp_tool_runs(server, provider):
    from test_agent import PARAMS, answer, tool_results

    seen = []

    def model(body):
        seen.append(body)
        if len(seen) == 1:
            tools = [t["name"] if provider is anthropic else t["function"]["name"] for t in body["tools"]]
            calls = [(f"toolu_{i}" if provider is anthropic else f"c{i}", name, {}) for i, name in enumerate(tools)
                     if name.startswith(("crm_", "analytics_"))]
            assert len(calls) == 3
            return answer(provider, None, calls)
        return answer(provider, " | ".join(tool_results(provider, body).values()))

    history = ConversationHistory([ChatMessage.system("s")])
    turn = AgentTurn(provider, history, "Run them", mcp=[server], policy=ApprovalPolicy(default="auto"),
                     params=PARAMS[provider])
    outcome = turn.run(model)
    assert outcome.status == "completed"
    assert sorted(outcome.message.text.split(" | ")) == sorted([NAME_76, SAME_PREFIX_A, SAME_PREFIX_B])
    calls = {c.name: c.id for c in history.messages[2].tool_calls}
    answers = {m.tool_call_id: m.text for m in history.messages[3:6]}
    names = offered(server)
    assert {name: answers[calls[names[name]]] for name in (NAME_76, SAME_PREFIX_A, SAME_PREFIX_B)} == {
        NAME_76: NAME_76, SAME_PREFIX_A: SAME_PREFIX_A, SAME_PREFIX_B: SAME_PREFIX_B}


def test_a_name_that_is_no_name_skips_that_one_tool_with_a_note_and_a_warning(caplog):
    names = ["list_recipes", "bad\x1b[2Jname", "evil\nname", "db.query"]
    with caplog.at_level(logging.WARNING, logger="agentmsg.io.mcp"), names_server(names) as client:
        listed = [tool.name for tool in client.list_tools()]
        assert listed == ["list_recipes", "db_query"]
        assert client.skipped_tools == (
            SkippedTool(1, "bad\x1b[2Jname", "its name holds control characters"),
            SkippedTool(2, "evil\nname", "its name holds control characters"),
        )
        assert repr(client.skipped_tools[0]) == "SkippedTool(index=1, reason='its name holds control characters')"
        assert client.call_tool("db_query").text == "db.query"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert all("\x1b" not in text and "\n" not in text for text in warnings)  # escaped, never raw
    assert "tools[1] 'bad\\x1b[2Jname' left out: its name holds control characters" in warnings[0]


@pytest.mark.parametrize("entry", [
    "not an object",
    {"inputSchema": {"type": "object"}},
    {"name": "", "inputSchema": {"type": "object"}},
    {"name": 7, "inputSchema": {"type": "object"}},
    {"name": "no_schema"},
    {"name": "array_schema", "inputSchema": {"type": "array"}},
    {"name": "ok", "inputSchema": {"type": "object"}},  # repeats the first
])
def test_a_malformed_entry_skips_that_one_tool(entry):
    tools, skipped = listed_tools([{"name": "ok", "inputSchema": {"type": "object"}}, entry,
                                   {"name": "db.query", "inputSchema": {"type": "object"}}])
    assert list(tools) == ["ok", "db_query"]
    assert [s.index for s in skipped] == [1]


def test_a_tool_with_a_title_and_a_description_keeps_the_description(server):
    (raw,) = [t for t in server.request("tools/list")["tools"] if t["name"] == DOTTED]
    assert raw["title"] == f"Tool {LEGAL.index(DOTTED)}" and raw["description"] == f"Tool number {LEGAL.index(DOTTED)}."
    (definition,) = [t for t in server.list_tools() if t.name == "a_b_c_d_e_f_g_h_i_j_k_l_m_n"]
    assert definition.description == raw["description"]
    tools, _ = listed_tools([
        {"name": "both", "title": "Both", "description": "What it does.", "inputSchema": {"type": "object"}},
        {"name": "title_only", "title": "Only a title", "inputSchema": {"type": "object"}},
        {"name": "neither", "inputSchema": {"type": "object"}},
    ])
    assert [t.definition.description for t in tools.values()] == ["What it does.", "Only a title", "neither"]


def test_docs_mcp_claim_is_the_client_truth():
    from agentmsg.providers._common import OPENAI_NAMES

    tools, _ = listed_tools([{"name": "db.query", "inputSchema": {"type": "object"}}])
    (definition,) = [t.definition for t in tools.values()]
    assert definition.name == "db_query" and OPENAI_NAMES.regex.fullmatch(to_wire_name(definition.name))
    for provider in (openai, anthropic, ollama, gemini):
        provider.to_tools([definition])  # every provider takes it


legal_names = st.text(
    st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")), min_size=1, max_size=140
).filter(str.isprintable)


@settings(max_examples=300, deadline=None)
@given(st.lists(legal_names | st.sampled_from(LEGAL), min_size=1, max_size=40, unique=True))
def test_any_legal_names_map_to_distinct_provider_legal_names(names):
    mapped = tool_names(names)
    assert set(mapped) == set(names)
    assert len(set(mapped.values())) == len(names)
    for server_name, name in mapped.items():
        assert check_name(name) == name
        assert PROVIDER_RULE.fullmatch(to_wire_name(name)), (server_name, name)
        if PROVIDER_RULE.fullmatch(server_name) and len(server_name) <= 30 and "-" not in server_name:
            assert to_wire_name(name) == server_name  # a name every provider takes is kept
    assert tool_names(names) == mapped  # stable
