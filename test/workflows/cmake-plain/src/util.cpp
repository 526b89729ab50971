// A helper no check can warn in: no schema, registration, kernel or compiled
// region. torch-tidy-project skips it (--all-files lints it).
#include <cstdint>

namespace plain_ops {
int64_t round_up(int64_t n, int64_t to) { return (n + to - 1) / to * to; }
} // namespace plain_ops
