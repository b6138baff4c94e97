"""The runners layer and the Python API: fixtures, the API, the path of every call."""
