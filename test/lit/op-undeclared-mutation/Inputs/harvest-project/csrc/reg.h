#include "reg2.h"
#define IMPL_TWICE REG(twice)
