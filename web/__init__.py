"""Static browser client, shipped as package data (importlib.resources.files("web"))."""
