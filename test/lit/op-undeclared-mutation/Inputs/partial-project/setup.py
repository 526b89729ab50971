# The project root of the partial-parse test (its schemas, kernels and fakes
# are read from these files as text).
