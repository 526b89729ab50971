// Outcome comparison for the differential suite.
#pragma once

#include "case.h"

#include <string>

namespace torch_tidy::differential {

/// Empty when the outcomes agree; otherwise the first difference.
std::string compare(const Case &c, const Outcome &runtime,
                    const Outcome &libtorch);

} // namespace torch_tidy::differential
