# The project root for torch-tidy's index (lit: registration-shapes.cpp).
