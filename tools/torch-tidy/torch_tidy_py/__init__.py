"""torch-tidy's Python front end (torch-tidy-py): the seed hazard in compiled
Python, on the same measured table as the C++ checks."""

__version__ = "0.1.0"  # CMakeLists.txt's project VERSION (python-frontend-unit checks)
