# Defines the imported target torchtidy::libtorch from the LibTorch inside a
# PyTorch wheel (headers + shared libraries, linked directly with an rpath).
# find_package(Torch) is avoided on purpose: its config looks for a CUDA
# toolkit matching the wheel. Sets TORCH_TIDY_LIBTORCH_VERSION, or leaves the
# target undefined when `python` has no torch.
#   torch_tidy_libtorch_from_wheel(python [target [version_variable]])
# names another target (a second torch beside the reference) and the
# variable its version goes to.
function(torch_tidy_libtorch_from_wheel python)
  set(target torchtidy::libtorch)
  set(version_variable TORCH_TIDY_LIBTORCH_VERSION)
  if(ARGC GREATER 1)
    set(target ${ARGV1})
  endif()
  if(ARGC GREATER 2)
    set(version_variable ${ARGV2})
  endif()
  if(TARGET ${target} OR NOT python)
    return()
  endif()
  execute_process(
    COMMAND ${python} -c "import os, torch; print(os.path.dirname(torch.__file__)); print(torch.__version__); print(int(torch.cuda.is_available()))"
    OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(STATUS "torch-tidy runtime: ${python} cannot import torch")
    return()
  endif()
  string(REPLACE "\n" ";" out "${out}")
  list(GET out 0 torch_dir)
  list(GET out 1 version)
  set(libdir ${torch_dir}/lib)
  set(libs ${libdir}/libtorch.so ${libdir}/libtorch_cpu.so ${libdir}/libc10.so)
  # CUDA builds of the wheel register their kernels from these at load time.
  foreach(extra libtorch_cuda.so libc10_cuda.so)
    if(EXISTS ${libdir}/${extra})
      list(APPEND libs ${libdir}/${extra})
    endif()
  endforeach()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  target_include_directories(${target} SYSTEM INTERFACE
    ${torch_dir}/include ${torch_dir}/include/torch/csrc/api/include)
  target_compile_definitions(${target} INTERFACE _GLIBCXX_USE_CXX11_ABI=1)
  target_link_options(${target} INTERFACE "LINKER:--no-as-needed" "LINKER:-rpath,${libdir}")
  target_link_libraries(${target} INTERFACE ${libs})
  # torch 2.10 and later need C++20 in their headers: whatever links them
  # compiles as C++20.
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" major_minor "${version}")
  if(major_minor VERSION_GREATER_EQUAL 2.10)
    target_compile_features(${target} INTERFACE cxx_std_20)
  endif()
  set(${version_variable} ${version} PARENT_SCOPE)
  message(STATUS "torch-tidy runtime: reference LibTorch ${version} from ${torch_dir}")
endfunction()
