#pragma once
#include "../mock_aten.h"
