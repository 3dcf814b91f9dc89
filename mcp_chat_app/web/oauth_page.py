"""The page a person's browser ends on after signing in at an OAuth server (`GET /oauth/callback` asked for HTML):
whether it worked, for which server and user, and that the window may be closed. Its script (static/js/signed_in.js)
tells the chat pages of this origin, whose Connections list then reads the outcome at once: the sign-in tab has no
opener to post to (connections.js cuts it), so a BroadcastChannel carries the news."""

from __future__ import annotations

from html import escape

from flask import Response, request

# The page shows text from the query string (the authorization server's `error`): only its own script may run.
_POLICY = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"
_STYLE = ("body{font:16px/1.5 system-ui,sans-serif;max-width:32em;margin:15vh auto;padding:0 1em;color:#1f2933}"
          "h1{font-size:1.3em}.failed h1{color:#b42318}p{color:#52606d}")


def wants_page() -> bool:
    """Whether the caller is a browser (it prefers HTML to JSON); an API caller gets JSON."""
    return request.accept_mimetypes.best_match(("application/json", "text/html")) == "text/html"


def callback_page(status: int, server: str | None, user: str | None, failure: str | None = None) -> Response:
    """The signed-in page, or (with `failure`, the reason) the failed one, with the callback's HTTP status."""
    if failure is None:
        title, lines = f"Signed in to {server}", [f"Signed in to {server} as {user}.", "You can close this window."]
    else:
        title = f"Sign-in to {server} failed" if server else "Sign-in failed"
        lines = [f"{title}: {failure}", "You can close this window and connect again from the chat page."]
    data = "".join(f' data-{key}="{escape(value)}"' for key, value in
                   (("server", server), ("user", user), ("ok", "false" if failure else "true")) if value)
    html = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_STYLE}</style></head>'
            f'<body class="{"failed" if failure else "signed-in"}"{data}><h1>{escape(lines[0])}</h1>'
            f'<p>{escape(lines[1])}</p><script type="module" src="/static/js/signed_in.js"></script></body></html>')
    response = Response(html, status, mimetype="text/html")
    response.headers["Content-Security-Policy"] = _POLICY
    return response
