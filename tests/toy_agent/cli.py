"""`python -m toy_agent.cli ARGS...`: lazy's command line with the toy agent registered."""

from __future__ import annotations

from lazy.agents import registered
from lazy.cli.main import main
from toy_agent.agent import TOY

if __name__ == "__main__":
    with registered(TOY):
        main()
