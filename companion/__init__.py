"""The 18xx table companion: rules engine, table service, store, hardware adapters and UI."""

__version__ = "0.1.0"
