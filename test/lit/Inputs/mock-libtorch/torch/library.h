#pragma once
#include "../mock_libtorch.h"
