#pragma once
#include "../mock_libtorch.h"
#include "../pybind11/pybind11.h"
