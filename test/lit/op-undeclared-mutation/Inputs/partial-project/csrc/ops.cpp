// A schema file whose headers the lint machine lacks: torch's own (no
// -isystem given) and a header the project's build generates.
#include <torch/library.h>
#include "registration.h"

TORCH_LIBRARY(partial, m) {
  m.def("silent_void(Tensor out, Tensor x) -> ()");
  m.def("graph_break_void(Tensor out, Tensor x) -> ()");
  m.def("declared(Tensor(a!) out, Tensor x) -> ()");
  m.def("returns(Tensor x) -> Tensor");
}

REGISTER_EXTENSION(_C)
