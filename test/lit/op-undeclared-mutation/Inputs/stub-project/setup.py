# Marks the project root for the project index (nothing is built).
