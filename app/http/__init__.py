"""HTTP plumbing shared by the JSON API (``app.api``) and the HTML pages (``app.web``).

Body reading with limits, the error shape, client detection, rate limiting,
the request middleware (request id, access log, metrics, security headers).
Both HTTP layers import from here so that they never import each other
(STYLE.md dependency rule); nothing here reads settings: ``main.py`` passes
the values in.
"""
