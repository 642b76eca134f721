"""The scoring of scripts/derived-groups-ari.py (its ARI, fixtures and the
derive_groups example), for the scripts that score other groupings beside
Sieve's: blind-groupings-ari.py and derived-groups-order.py."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load():
    """scripts/derived-groups-ari.py as a module."""
    spec = importlib.util.spec_from_file_location(
        "derived_groups_ari", ROOT / "scripts/derived-groups-ari.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
