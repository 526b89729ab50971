from . import fakes  # noqa: F401
