"""Skips with a reason where torch, a GPU or the compiled backend is missing."""
import pytest


def pytest_collection_modifyitems(config, items):
    try:
        import torch
    except ImportError:
        reason = "torch is not installed"
    else:
        reason = None if torch.cuda.is_available() else "no CUDA GPU"
    if reason:
        for it in items:
            it.add_marker(pytest.mark.skip(reason=reason))
