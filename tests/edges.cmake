# The edges a new user hit (issue 57), each with the command that showed it:
# messages, options that do not apply, one file named twice, runs in which nothing
# ran; tests/check_edges.sh the ones that need a run's output read back.
kl_cli_test(edge_mgemm_cpu 2 "mgemm runs on CUDA devices .*not cpu:all" mgemm --device cpu:all)
kl_cli_test(edge_max_time_zero 2 "--max-time: 0 is out of range" gemm --size 8 --max-time 0)
kl_cli_test(edge_gate_huge 2 "1e9 % is more than a slowdown can be" compare a.json b.json --fail-on-regression 1e9)
kl_cli_test(edge_time_units 2 "\"1m30s\" is not a time .*ms, s, m or h" gemm --size 8 --min-time 1m30s)
kl_cli_test(edge_bytes_units 2 "\"64Q\" is not a size .*K, M, G or T" peak --bytes 64Q)
kl_cli_test(edge_transfers_quick 2 "--transfers .*--quick shapes the ceilings' search" peak --transfers --quick)
kl_cli_test(edge_transfers_vec 2 "--transfers .*--vec shapes the ceilings' search" peak --transfers --vec 4)
kl_cli_test(edge_soak_kernel 2 "with --kernel FILE, name your kernel's rung with --rung" soak --kernel k.cl)
kl_cli_test(edge_size_and_m 2 "--size sets every dimension and --m, --n, --k one each" gemm --size 8 --m 33)
kl_cli_test(edge_json_is_report 2 "--json x.json and --report ./x.json are the same file" gemm --size 8 --json x.json --report ./x.json)
kl_cli_test(edge_all_skipped 2 "no row ran: all 1 were skipped \\(the first: " gemm --size 8 --rung 14 --backend opencl ${QUICK})
add_test(NAME edges COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_edges.sh $<TARGET_FILE:kladder-cli>)
set_tests_properties(edges PROPERTIES LABELS "cli;pocl")
