# accel_key_table(<prefix> <header>): generates <header> in ${CMAKE_BINARY_DIR}/generated from
# accel-default.xml at configure time (re-run when the file or the script changes), holding the
# default and <range> of every numeric key under <prefix>. The directory is added to the include
# path. Needs python3 (CI and the build-dependency installer provide it).
find_package(Python3 REQUIRED COMPONENTS Interpreter)
get_filename_component(ACCEL_DEFAULT_XML
  "${CMAKE_CURRENT_LIST_DIR}/../resources/accel-default.xml" ABSOLUTE)
set(ACCEL_KEY_TABLE_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/accel_key_table.py")

function(accel_key_table prefix header)
  set(out "${CMAKE_BINARY_DIR}/generated/${header}")
  file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/generated")
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" "${ACCEL_KEY_TABLE_SCRIPT}" "${ACCEL_DEFAULT_XML}" "${prefix}"
            "${out}"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "accel_key_table: could not generate ${header} from ${ACCEL_DEFAULT_XML}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    "${ACCEL_DEFAULT_XML}" "${ACCEL_KEY_TABLE_SCRIPT}")
  include_directories("${CMAKE_BINARY_DIR}/generated")
endfunction()
