# jbs_mof_supplier: the MOFSupplier daemon (seed 001 §III-B, seed 004 §3.3.1). Included from
# CMakeLists.txt; uses jbs_core.
