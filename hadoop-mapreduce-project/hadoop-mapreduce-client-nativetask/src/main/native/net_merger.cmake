# jbs_net_merger: the NetMerger daemon (seed 001 §III-C, seed 004 §3.3.2). Included from
# CMakeLists.txt; uses jbs_core.
add_library(jbs_merger_core STATIC
  src/reducer_protocol.cc src/ifile_segment.cc src/raw_comparator.cc src/segment_merger.cc
  src/run_file.cc src/connection_pool.cc src/fetch_client.cc src/remote_segment.cc
  src/unix_socket.cc src/merger_session.cc src/net_merger_server.cc src/register_gate.cc
  src/spill_sweep.cc src/block_codec.cc)
target_link_libraries(jbs_merger_core PUBLIC jbs_core)

# Snappy and LZ4 map output (Hadoop's SnappyCodec, Lz4Codec). Each is optional: without its
# library the daemon refuses that codec at REGISTER and such reduces fall back (FALLBACK_CODEC).
foreach(codec_header SNAPPY:snappy-c.h LZ4:lz4.h)
  string(REPLACE ":" ";" parts ${codec_header})
  list(GET parts 0 codec)
  list(GET parts 1 header)
  string(TOLOWER ${codec} lib)
  find_path(JBS_${codec}_INCLUDE_DIR NAMES ${header})
  find_library(JBS_${codec}_LIBRARY NAMES ${lib})
  if(JBS_${codec}_INCLUDE_DIR AND JBS_${codec}_LIBRARY)
    message(STATUS "jbs_net_merger: ${lib} map output supported (${JBS_${codec}_LIBRARY})")
    target_compile_definitions(jbs_merger_core PUBLIC JBS_HAVE_${codec})
    target_include_directories(jbs_merger_core PRIVATE ${JBS_${codec}_INCLUDE_DIR})
    target_link_libraries(jbs_merger_core PUBLIC ${JBS_${codec}_LIBRARY})
  else()
    message(WARNING "jbs_net_merger: lib${lib} not found; ${lib} map output falls back to stock")
  endif()
endforeach()

add_executable(jbs_net_merger src/net_merger_main.cc)
target_link_libraries(jbs_net_merger PRIVATE jbs_merger_core)
set_target_properties(jbs_net_merger PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${JBS_BIN_OUTPUT_DIR}")

add_executable(jbs_net_merger_test
  ${TEST_DIR}/reducer_protocol_test.cc ${TEST_DIR}/raw_comparator_test.cc
  ${TEST_DIR}/ifile_segment_test.cc ${TEST_DIR}/block_codec_test.cc ${TEST_DIR}/segment_merger_test.cc
  ${TEST_DIR}/connection_pool_test.cc ${TEST_DIR}/fetch_client_test.cc
  ${TEST_DIR}/net_merger_e2e_test.cc ${TEST_DIR}/net_merger_daemon_test.cc)
target_link_libraries(jbs_net_merger_test PRIVATE jbs_merger_core GTest::gtest GTest::gtest_main)
# The daemon test runs the real binary.
target_compile_definitions(jbs_net_merger_test PRIVATE
  JBS_NET_MERGER_BIN="$<TARGET_FILE:jbs_net_merger>")
add_dependencies(jbs_net_merger_test jbs_net_merger)
gtest_discover_tests(jbs_net_merger_test PROPERTIES TIMEOUT 60)

# The reducer-protocol decoders under the standalone mutation driver, briefly, in ctest.
jbs_add_fuzz_smoke(reducer_protocol_fuzz_smoke jbs_reducer_protocol_fuzz
  ${TEST_DIR}/fuzz/reducer_protocol_fuzz.cc ${TEST_DIR}/fuzz/reducer_protocol_seeds.cc
  src/reducer_protocol.cc ${JBS_WIRE_SOURCES} ${ACCEL_COMMON_NATIVE_DIR}/src/crc32.cc)
jbs_add_libfuzzer(jbs_reducer_protocol_fuzzer ${TEST_DIR}/fuzz/reducer_protocol_fuzz.cc
  src/reducer_protocol.cc ${JBS_WIRE_SOURCES} ${ACCEL_COMMON_NATIVE_DIR}/src/crc32.cc)

# Snappy / LZ4 segments (BlockDecoder behind SegmentReader), when both libraries are built in.
if(JBS_SNAPPY_LIBRARY AND JBS_LZ4_LIBRARY AND JBS_SNAPPY_INCLUDE_DIR AND JBS_LZ4_INCLUDE_DIR)
  jbs_add_fuzz_smoke(block_codec_fuzz_smoke jbs_block_codec_fuzz
    ${TEST_DIR}/fuzz/block_codec_fuzz.cc ${TEST_DIR}/fuzz/block_codec_seeds.cc
    src/ifile_segment.cc src/block_codec.cc ${ACCEL_COMMON_NATIVE_DIR}/src/crc32.cc)
  target_compile_definitions(jbs_block_codec_fuzz PRIVATE JBS_HAVE_SNAPPY JBS_HAVE_LZ4)
  target_link_libraries(jbs_block_codec_fuzz PRIVATE ${JBS_SNAPPY_LIBRARY} ${JBS_LZ4_LIBRARY})
endif()

# Both daemons as processes together (only when the supplier's target is part of the build).
if(TARGET jbs_mof_supplier)
  add_executable(jbs_net_merger_with_supplier_test ${TEST_DIR}/net_merger_with_supplier_test.cc)
  target_link_libraries(jbs_net_merger_with_supplier_test PRIVATE jbs_merger_core GTest::gtest
                        GTest::gtest_main)
  target_compile_definitions(jbs_net_merger_with_supplier_test PRIVATE
    JBS_NET_MERGER_BIN="$<TARGET_FILE:jbs_net_merger>"
    JBS_MOF_SUPPLIER_BIN="$<TARGET_FILE:jbs_mof_supplier>")
  add_dependencies(jbs_net_merger_with_supplier_test jbs_net_merger jbs_mof_supplier)
  gtest_discover_tests(jbs_net_merger_with_supplier_test PROPERTIES TIMEOUT 60)
endif()

# Connection floods against both daemons as processes (threat model: a local user or a
# network peer floods a daemon before authenticating); each test < 30 s.
if(TARGET jbs_mof_supplier)
  add_executable(jbs_flood_test ${TEST_DIR}/flood_test.cc)
  target_link_libraries(jbs_flood_test PRIVATE jbs_merger_core GTest::gtest GTest::gtest_main)
  target_compile_definitions(jbs_flood_test PRIVATE
    JBS_NET_MERGER_BIN="$<TARGET_FILE:jbs_net_merger>"
    JBS_MOF_SUPPLIER_BIN="$<TARGET_FILE:jbs_mof_supplier>")
  add_dependencies(jbs_flood_test jbs_net_merger jbs_mof_supplier)
  gtest_discover_tests(jbs_flood_test PROPERTIES TIMEOUT 60 RUN_SERIAL TRUE)
endif()
