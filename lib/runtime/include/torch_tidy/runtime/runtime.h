// Umbrella header of the reference runtime.
#pragma once

#include "torch_tidy/runtime/autograd.h"
#include "torch_tidy/runtime/factories.h"
#include "torch_tidy/runtime/index.h"
#include "torch_tidy/runtime/mode.h"
#include "torch_tidy/runtime/operator_call.h"
#include "torch_tidy/runtime/tensor.h"
