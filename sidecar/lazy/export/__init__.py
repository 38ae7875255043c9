"""Export: a Builder (or a range of its messages) as Markdown, self-contained HTML, or JSON of
the documented schema ``lazy.export/1``, redacted unless asked otherwise (``lazy export``,
``export/builder``)."""

from __future__ import annotations

from lazy.export import as_html, as_markdown
from lazy.export.document import ExportDocument, RangeError, as_json, document

FORMATS = ("md", "html", "json")


def rendered(doc: ExportDocument, fmt: str) -> str:
    """The document in a format of FORMATS."""
    if fmt == "md":
        return as_markdown.render(doc)
    if fmt == "html":
        return as_html.render(doc)
    if fmt == "json":
        return as_json(doc)
    raise ValueError(f"no export format {fmt!r}: one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "ExportDocument", "RangeError", "document", "rendered"]
