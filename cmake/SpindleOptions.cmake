# SPDX-License-Identifier: Apache-2.0
# Warnings and sanitizers, applied per target.

function(spindle_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wno-unknown-pragmas>
    $<$<AND:$<BOOL:${SPINDLE_WARNINGS_AS_ERRORS}>,$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>>:-Werror>)
endfunction()

if(SPINDLE_SANITIZE)
  string(REPLACE ";" "," _spindle_san "${SPINDLE_SANITIZE}")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${_spindle_san}>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=all>)
  add_link_options(-fsanitize=${_spindle_san})
endif()
