"""lazy's machine one-shots (`claude -p` in a throwaway container) and `lazy ask`, which asks them."""
