# cmake -DIN=script -DOUT=copy -DPYTHON=/abs/python -P WriteScript.cmake
# Copies a Python entry script with its first line (#!/usr/bin/env python3)
# replaced by #!PYTHON: an absolute interpreter, so that a folder whose
# .python-version makes pyenv's python3 another interpreter (one without
# the script's dependencies) does not change which Python runs it.
file(READ "${IN}" _text)
string(REGEX REPLACE "^#![^\n]*\n" "#!${PYTHON}\n" _text "${_text}")
file(WRITE "${OUT}" "${_text}")
file(CHMOD "${OUT}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
     GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
