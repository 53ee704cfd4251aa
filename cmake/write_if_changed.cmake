# write_if_changed(PATH CONTENT): writes PATH only when CONTENT differs from what it
# holds, so that an unchanged generated file rebuilds nothing.
function(write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()
