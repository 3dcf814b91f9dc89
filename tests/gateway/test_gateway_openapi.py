"""Every route of the app is described in /openapi.json (in-process app with the scripted manager)."""

from __future__ import annotations

import re

from mcp_chat_app.app import create_app
from mcp_chat_app.config import GatewayConfig
from mcp_chat_app.gateway import EXTENSION_KEY, build_gateway
from .mock_mcp_manager import MockMcpManager


def test_every_route_and_method_is_documented(tmp_path):
    config = GatewayConfig(data_dir=tmp_path, base_url_override="http://127.0.0.1:9/v1")
    app = create_app(gateway=build_gateway(config, manager=MockMcpManager([])))
    document = app.test_client().get("/openapi.json").get_json()
    routes = {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules() if rule.endpoint != "static"
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    assert routes == documented
    for path, item in document["paths"].items():
        for operation in item.values():
            assert operation["summary"] and {"200", "201"} & set(operation["responses"])
    app.extensions[EXTENSION_KEY].close()
