// A registration spelled through the macro of another file (impl.h): the
// project index does not expand it; the compiler does, and torch-tidy-project
// counts the kernel it saw (its summary names it).
#include "impl.h"
#define VEND_NEGATE VEND_IMPL(negate)
