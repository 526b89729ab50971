// The vendored library's registration helper.
#define VEND_IMPL(name) m.impl(#name, &vend::name##_cpu)
