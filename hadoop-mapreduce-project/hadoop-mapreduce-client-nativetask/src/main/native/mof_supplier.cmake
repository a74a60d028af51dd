# jbs_mof_supplier: the MOFSupplier daemon (seed 001 §III-B, seed 004 §3.3.1). Included from
# CMakeLists.txt; uses jbs_core.
# The serving side: an epoll TCP server in front of a pipelined engine (one disk thread reading
# in ReadScheduler order, read-ahead into spare buffers, open-file cache).
add_library(jbs_supplier STATIC
  src/mof_supplier_options.cc src/mof_supplier_auth.cc
  src/prefetch_cache.cc src/pipelined_engine.cc src/epoll_server.cc)
target_link_libraries(jbs_supplier PUBLIC jbs_core)

add_executable(jbs_mof_supplier src/mof_supplier_main.cc)
target_link_libraries(jbs_mof_supplier PRIVATE jbs_supplier)
set_target_properties(jbs_mof_supplier PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${JBS_BIN_OUTPUT_DIR}")

# Tests: the supplier's pieces in process, and the built daemon as a process.
add_executable(jbs_supplier_test
  ${TEST_DIR}/epoll_server_test.cc ${TEST_DIR}/mof_supplier_parts_test.cc)
target_link_libraries(jbs_supplier_test PRIVATE jbs_supplier GTest::gtest GTest::gtest_main)
gtest_discover_tests(jbs_supplier_test PROPERTIES TIMEOUT 60)

add_executable(jbs_supplier_process_test ${TEST_DIR}/mof_supplier_process_test.cc)
target_link_libraries(jbs_supplier_process_test PRIVATE jbs_supplier GTest::gtest GTest::gtest_main)
target_compile_definitions(jbs_supplier_process_test PRIVATE
  JBS_MOF_SUPPLIER_BIN="$<TARGET_FILE:jbs_mof_supplier>")
add_dependencies(jbs_supplier_process_test jbs_mof_supplier)
gtest_discover_tests(jbs_supplier_process_test PROPERTIES TIMEOUT 60)
