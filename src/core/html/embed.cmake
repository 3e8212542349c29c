# Writes OUT, a C file holding the HTML report's static parts as strings:
#   cmake -DCSS=report.css -DJS=report.js -DOUT=report_html_page.c -P embed.cmake
# Bytes as hex, so that nothing in them needs C escaping.  The page inlines
# both, so neither may hold what would end its element early.
foreach(part CSS JS)
  file(READ "${${part}}" text)
  if(part STREQUAL "JS")
    set(end "</script")
  else()
    set(end "</style")
  endif()
  string(TOLOWER "${text}" lower)
  string(FIND "${lower}" "${end}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${${part}} holds '${end}', which would end the page's element")
  endif()
  file(READ "${${part}}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  # a line break every 16 bytes keeps the file readable by diff tools
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" hex "${hex}")
  string(TOLOWER "${part}" name)
  string(APPEND body "const char report_html_${name}[] = {\n${hex}0x00};\n")
endforeach()
file(WRITE "${OUT}.tmp" "/* Generated from src/core/html/ by embed.cmake: edit those files. */\n${body}")
file(RENAME "${OUT}.tmp" "${OUT}")
