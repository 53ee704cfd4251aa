# Sanitizer and fuzzing builds (docs/hardening.md); neither changes the default build.
#
#   -DNABLA_SANITIZE=address,undefined  every target compiled and linked with these
#                                       sanitizers (gcc or clang): the whole ctest runs
#                                       under them (build-asan/, scripts/hardening_report.sh)
#   -DNABLA_FUZZ=ON                     clang only: everything with libFuzzer's coverage
#                                       (fuzzer-no-link) and address,undefined, plus the
#                                       fuzz targets of tests/fuzz/ (build-fuzz/, scripts/fuzz.sh)
#
# Findings stop the program (-fno-sanitize-recover): a test under UBSan fails on its
# first report instead of printing it and passing.
set(NABLA_SANITIZE "" CACHE STRING "Sanitizers for every target (-fsanitize=LIST), e.g. address,undefined")
option(NABLA_FUZZ "Build the libFuzzer targets of tests/fuzz/ (clang; implies NABLA_SANITIZE=address,undefined)" OFF)

if(NABLA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "NABLA_FUZZ=ON needs clang's libFuzzer: configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  if(NOT NABLA_SANITIZE)
    set(NABLA_SANITIZE address,undefined)
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(NABLA_SANITIZE)
  message(STATUS "nabla: sanitizers ${NABLA_SANITIZE}")
  add_compile_options(-fsanitize=${NABLA_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${NABLA_SANITIZE})
  # Line tables, so that reports name files and lines, without a full debug build.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_compile_options(-gline-tables-only)
  else()
    add_compile_options(-g1)
  endif()
endif()
