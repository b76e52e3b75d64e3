"""The MCP front end: the studio's use cases as Model Context Protocol tools, for agents
and editors, over stdio (``omnivoice-desktop mcp``) or streamable HTTP (``/mcp`` on
``serve``). Built on the official SDK (``mcp``); no Qt. Every engine call goes through
one :class:`studio.serve.renderer.Renderer`, the model's one owner.
"""
