"""The HTTP surface: the routes, the chat page, auth, SSE framing, JSON errors, request parsing, OpenAPI."""
