# The multi-GPU pieces (src/multi/): block distributions, NCCL through dlopen,
# the multi-GPU GEMM ladder and the link measurements. They compile in every
# build; without the CUDA backend (KLADDER_HAVE_CUDA unset) their entry points
# say that CUDA support was not built. Included from CMakeLists.txt after the
# CUDA backend's block.
target_sources(kladder PRIVATE src/multi/dist.c src/multi/nccl.c src/multi/menv.c
                               src/multi/mgemm.c src/multi/summa.c src/multi/p2p.c
                               src/multi/coll.c src/multi/coll_nccl.c src/multi/mref.c
                               src/multi/links.c)
