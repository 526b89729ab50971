# What `cmake --install` puts where, beyond the targets' own install rules
# (bin/torch-tidy, bin/torch-clangd, bin/torch-tidy-verify, bin/torch-tidy-sarif,
# lib/TorchTidyModule.so and the module beside it), and the Debian package
# (`make package`, CPack): Depends comes from dpkg-shlibdeps on the binaries,
# plus what they open without linking.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/torch_tidy DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The pre-commit hook's entry and the extension-project recipe's helper.
install(PROGRAMS ${CMAKE_SOURCE_DIR}/tools/pre-commit/torch-tidy-hook
                 ${CMAKE_SOURCE_DIR}/tools/pre-commit/torch-tidy-py-hook
        DESTINATION ${CMAKE_INSTALL_BINDIR})
if(EXISTS ${CMAKE_SOURCE_DIR}/tools/torch-tidy/torch-tidy-cdb)
  # Under Debian's /usr/bin/python3 (the package depends on python3), not
  # `env python3`, which pyenv makes whatever a folder's .python-version
  # says; torch-tidy-py runs again under $TORCH_TIDY_PYTHON where that
  # Python has no LibCST.
  foreach(script torch-tidy-cdb torch-tidy-project torch-tidy-py)
    set(_installed ${CMAKE_BINARY_DIR}/installed-scripts/${script})
    add_custom_command(OUTPUT ${_installed}
      COMMAND ${CMAKE_COMMAND} -DIN=${CMAKE_SOURCE_DIR}/tools/torch-tidy/${script}
              -DOUT=${_installed} -DPYTHON=/usr/bin/python3
              -P ${CMAKE_SOURCE_DIR}/cmake/WriteScript.cmake
      DEPENDS ${CMAKE_SOURCE_DIR}/tools/torch-tidy/${script}
              ${CMAKE_SOURCE_DIR}/cmake/WriteScript.cmake
      VERBATIM)
    list(APPEND _installed_scripts ${_installed})
  endforeach()
  add_custom_target(torch-tidy-installed-scripts ALL DEPENDS ${_installed_scripts})
  install(PROGRAMS ${_installed_scripts} DESTINATION ${CMAKE_INSTALL_BINDIR})
  # Their packages: the scripts look for them beside them, then here.
  # torch_tidy_py reads the measured table from the docs installed above.
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/tools/torch-tidy/torch_tidy_project
                    ${CMAKE_SOURCE_DIR}/tools/torch-tidy/torch_tidy_py
          DESTINATION ${CMAKE_INSTALL_DATADIR}/torch-tidy/python
          FILES_MATCHING PATTERN "*.py")
  # torch_tidy_py's fixes go through the rule table's Python forms.
  install(FILES ${CMAKE_SOURCE_DIR}/lib/rules/include/torch_tidy/rules/RewriteRules.def
          DESTINATION ${CMAKE_INSTALL_DATADIR}/torch-tidy)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME torch-tidy)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "torch-tidy developers <torch-tidy@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "clang-tidy checks for LibTorch code that torch.compile reaches")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
# Linked libraries (libclang-cpp19, libllvm19, libc6, ...): dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Not linked, but needed: clang's builtin headers (<stddef.h>, ...), found
# through /usr/lib/clang/N; and the clang-tidy that --loads the module.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libclang-common-${LLVM_VERSION_MAJOR}-dev, clang-tidy-${LLVM_VERSION_MAJOR}, python3")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "torch-tidy finds in-place writes in LibTorch C++ code after which\n torch.compile reports requires_grad == false, and operators that mutate\n arguments their schema does not declare mutable.")
include(CPack)
