# jbs_net_merger: the NetMerger daemon (seed 001 §III-C, seed 004 §3.3.2). Included from
# CMakeLists.txt; uses jbs_core.
