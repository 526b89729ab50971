#pragma once
#include "../mock_torch_library.h"
