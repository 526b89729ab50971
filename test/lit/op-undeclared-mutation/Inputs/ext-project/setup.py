# Marks the root of a sample extension project for the project-wide
# operator index tests (test/lit/op-undeclared-mutation/project-*.cpp).
