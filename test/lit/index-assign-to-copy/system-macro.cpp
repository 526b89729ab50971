// RUN: %check_torch_tidy %s torch-index-assign-to-copy %t -- -isystem %inputs/system-macros
// A write spelled by a macro of a library header (included with -isystem) is
// the library's code: no warning (isUserSpelled). The same write through the
// user's own macro is reported, without a fix, and the message quotes the
// object as Clang prints it (the lexer has no text for it), never ''.
#include <torch/torch.h>
#include <library_macros.h>

void library_macro(at::Tensor t, const at::Tensor &idx) {
  LIBRARY_CLEAR_PICKED(t, idx);
}

#define USER_CLEAR_PICKED(t, idx) (t).index({(idx)}).zero_()
void user_macro(at::Tensor t, const at::Tensor &idx) {
  USER_CLEAR_PICKED(t, idx);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ into the result of advanced indexing of '(t)' is lost
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the write is in a macro
}
