"""One faithful session writer per agent, shared by the tests, the VS Code suite and bench/.

``claude``: Claude Code's JSONL session files (2.0.x two-line turns, and 2.1.x full turns);
``codex``: Codex CLI rollouts; ``opencode``: OpenCode's database and JSON trees. They import
nothing of lazy: they write what the agents write, so lazy can be tested against it.
"""

# the project a Codex rollout or an OpenCode session runs in unless told otherwise
APP_CWD = "/home/u/dev/app"
