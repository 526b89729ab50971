"""torch-tidy's Python front end (torch-tidy-py): the seed hazard in compiled
Python, on the same measured table as the C++ checks."""
