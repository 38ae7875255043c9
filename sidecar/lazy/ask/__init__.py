"""lazy's machine one-shots (`claude -p` in a throwaway container) and what asks them."""
