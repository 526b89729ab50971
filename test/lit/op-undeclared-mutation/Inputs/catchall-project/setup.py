# Marks the project root for torch-tidy's project index (lit case
# op-undeclared-mutation/catch-all-kernels.cpp).
