// A library header (included with -isystem) whose macro expands into an
// indexed write in the user's function: the library's code, not the user's.
#pragma once
#define LIBRARY_CLEAR_PICKED(t, idx) (t).index({(idx)}).zero_()
