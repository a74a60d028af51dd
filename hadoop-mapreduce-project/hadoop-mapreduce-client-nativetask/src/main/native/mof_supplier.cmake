# jbs_mof_supplier: the MOFSupplier daemon (seed 001 §III-B, seed 004 §3.3.1). Included from
# CMakeLists.txt; uses jbs_core.
add_library(jbs_supplier STATIC
  src/mof_supplier_options.cc src/mof_supplier_auth.cc)
target_link_libraries(jbs_supplier PUBLIC jbs_core)

add_executable(jbs_mof_supplier src/mof_supplier_main.cc)
target_link_libraries(jbs_mof_supplier PRIVATE jbs_supplier)
set_target_properties(jbs_mof_supplier PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${JBS_BIN_OUTPUT_DIR}")
