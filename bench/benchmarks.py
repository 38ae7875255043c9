"""What the benchmarks share: loading one benchmark's module from another.

bench/ is no package, and ``import.py`` cannot be imported by name (``import`` is a keyword),
so a benchmark that reuses another's helpers loads it by path, once per process.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def load(name: str) -> ModuleType:
    """``bench/<name>.py`` as the module ``lazy_bench_<name>`` (tests load it by that name)."""
    key = f"lazy_bench_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module
