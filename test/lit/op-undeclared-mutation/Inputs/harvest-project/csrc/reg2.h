// A registration spelled through a macro of another file: the project index
// does not expand it; the compiler does.
#define REG(n) m.impl(#n, &n##_cpu)
