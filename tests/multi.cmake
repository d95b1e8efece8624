# The multi-GPU GEMM's block distributions (src/multi/dist.c): pure arithmetic,
# no device, so it runs everywhere. Included from tests/CMakeLists.txt.
kl_c_test(test_dist)
add_test(NAME dist COMMAND test_dist)

# kladder mgemm and peak --p2p on the command line: what they refuse before any device
# (CI has no CUDA device; tests/gpu/multi.sh runs them on one).
kl_cli_test(mgemm_list 0 "3_summa_overlap" mgemm --list-rungs)
kl_cli_test(mgemm_panel 2 "--panel 6: SUMMA's panel width must be a multiple of 4" mgemm --panel 6)
kl_cli_test(mgemm_opencl 2 "mgemm runs on CUDA devices" mgemm --device opencl:0:0)
kl_cli_test(mgemm_type 2 "option --type does not apply to mgemm" mgemm --type double)
kl_cli_test(p2p_opencl 2 "peak --p2p runs on CUDA devices" peak --p2p --device opencl:0:0)
set_tests_properties(cli_mgemm_list cli_mgemm_panel cli_mgemm_opencl cli_mgemm_type cli_p2p_opencl
                     PROPERTIES LABELS multi)
