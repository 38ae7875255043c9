"""`lazy doctor`: a health sweep of capture, the store and what `ask` needs, and its repairs."""
