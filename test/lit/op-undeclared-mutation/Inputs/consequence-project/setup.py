# The project's root (its setup.py marks it).
