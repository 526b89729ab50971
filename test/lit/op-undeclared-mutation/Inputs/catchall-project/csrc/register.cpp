// The operators are defined here with functions and no schema string: the
// schema is inferred from their C++ signatures (no argument mutable).
#include "ops.h"

TORCH_LIBRARY_FRAGMENT(ca, m) {
  m.def("gather_async", &gather_async);
  m.def("gather_read", &gather_read);
}
