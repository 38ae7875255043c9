"""What every exit from the store shows of transcript text: redacted and made safe for its surface.

The terminal, the webview, exports, the ask prompt and (later) MCP and team push take their text
through this package, never straight from the store (ARCHITECTURE.md, invariants 8 and 9).
"""
