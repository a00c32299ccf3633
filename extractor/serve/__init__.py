"""Serve: loaded catalogs -> answers for coding agents (the MCP server of ``raisedocs mcp``).

``library`` loads docs folders and corpus datasets once, read only, and answers lookups as
plain data; ``server`` exposes them as MCP tools through the official MCP SDK (the optional
extra ``raisedocs[mcp]``).
"""
