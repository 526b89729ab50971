// A library header (included with -isystem) whose macro expands into an
// indexed write in the user's function: the library's code, not the user's.
#pragma once
#define LIBRARY_CLEAR_PICKED(t, idx) (t).index({(idx)}).zero_()
// A body that starts with its argument: still the library's write.
#define LIBRARY_CLEAR_ARG_FIRST(t, idx) t.index({idx}).zero_()
// A statement the user passes in (as to TORCH_CHECK or a dispatch lambda):
// the user's write.
#define LIBRARY_RUN(statement)                                                 \
  do {                                                                         \
    statement;                                                                 \
  } while (0)
