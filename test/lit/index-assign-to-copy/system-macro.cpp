// RUN: %check_torch_tidy %s torch-index-assign-to-copy %t -- -isystem %inputs/system-macros
// A write spelled by a macro of a library header (included with -isystem) is
// the library's code: no warning (isUserSpelled asks where the token that
// writes, zero_, is spelled), whichever token starts it. A write the user
// passes to a library macro, and one through the user's own macro, are
// reported at the macro's use, without a fix; the message quotes an object
// the lexer has no text for as Clang prints it, never ''.
#include <torch/torch.h>
#include <library_macros.h>

void library_macro(at::Tensor t, const at::Tensor &idx) {
  LIBRARY_CLEAR_PICKED(t, idx);
  LIBRARY_CLEAR_ARG_FIRST(t, idx);
}

// The user's write passed as an argument to a library macro is the user's.
void user_write_in_library_macro(at::Tensor t, const at::Tensor &idx) {
  LIBRARY_RUN(t.index({idx}).zero_());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ into the result of advanced indexing of 't' is lost
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the write is in a macro
}

#define USER_CLEAR_PICKED(t, idx) (t).index({(idx)}).zero_()
void user_macro(at::Tensor t, const at::Tensor &idx) {
  USER_CLEAR_PICKED(t, idx);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ into the result of advanced indexing of '(t)' is lost
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the write is in a macro
}
