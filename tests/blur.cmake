# Tests for `kladder blur`, the Gaussian blur ladder of seed 001 (issue 5).
# Included from tests/CMakeLists.txt. Every test here carries the label blur
# (ctest -L blur; the oclgrind ones also oclgrind) and runs with
# KLADDER_CACHE_DIR pointing at a directory that does not exist, so that no
# user's ceiling cache changes a result; the scripts use their own mktemp -d.
# All runs are small and use --warmup 0 --repeats 1 --min-time 0.

set(KL_BLUR_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_BLUR_ENV KLADDER_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/blur_no_cache)
set(KL_BLUR_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/check_blur.sh)
set(KL_BLUR_TESTS "")

# Every rung verified (or skipped, with a reason the device's limits bear
# out) on generated 1×1, 1×9, 9×1, 17×13 and 100×37 images with radius 0, 1
# and one larger than the image, the verified rows counted: with the default
# work-groups (and radii that overflow local and constant memory, radii from
# --sigma, a --rung subset), with 4×4 work-groups (07_fused: strips of 5
# rows, 3 rows loaded ahead), with 8×2 groups of one pixel per work-item,
# and with eight pixels per work-item. One test per
# pixel type and parameter set, so they run side by side (each builds its
# own kernels: 15-75 s each on PoCL with 2 cores, -j2 and a cold kernel
# cache).
foreach(pixel float uchar4)
  foreach(set default tiles px1 px8)
    add_test(NAME blur_rungs_${pixel}_${set} COMMAND ${KL_BLUR_CHECK} ${KL_BLUR_KLADDER} rungs ${pixel} ${set})
    list(APPEND KL_BLUR_TESTS blur_rungs_${pixel}_${set})
  endforeach()
endforeach()
# Real pictures: grey, RGB and RGBA PNGs (and kladder's own), grey+alpha,
# palette and 16-bit PNGs, binary PGM and PPM, blurred in float and uchar4
# with --output: every rung verified, the output PNG of the input's size,
# colour type and channels, within one level of a Gaussian computed by the
# test, different from the input, and equal to it at --radius 0;
# --output-rung and the default (fastest) choice of rung.
add_test(NAME blur_png_native COMMAND ${KL_BLUR_CHECK} ${KL_BLUR_KLADDER} png native)
add_test(NAME blur_png_converted COMMAND ${KL_BLUR_CHECK} ${KL_BLUR_KLADDER} png converted)
add_test(NAME blur_pnm COMMAND ${KL_BLUR_CHECK} ${KL_BLUR_KLADDER} pnm)
list(APPEND KL_BLUR_TESTS blur_png_native blur_png_converted blur_pnm)

# Bad input files: a clear message and exit 2 (the script writes the file).
foreach(case missing directory truncated_png corrupt_png random_png empty pgm16 truncated_ppm
             output_unwritable)
  add_test(NAME cli_blur_${case} COMMAND ${KL_BLUR_CHECK} ${KL_BLUR_KLADDER} bad ${case})
  list(APPEND KL_BLUR_TESTS cli_blur_${case})
endforeach()
# An image above the device's largest allocation is refused (skipped, 77,
# where no image within 65536 on a side and 2^30 pixels exceeds it); a tile
# that does not fit local memory, for a rung named with --rung, is refused.
add_test(NAME cli_blur_too_big_alloc COMMAND ${KL_BLUR_CHECK} ${KL_BLUR_KLADDER} too_big)
add_test(NAME cli_blur_named_rung_tile_too_big COMMAND ${KL_BLUR_CHECK} ${KL_BLUR_KLADDER} named_too_big_tile)
list(APPEND KL_BLUR_TESTS cli_blur_too_big_alloc cli_blur_named_rung_tile_too_big)

# Bad options: a clear message and exit 2. (No ";" in a regex: CMake would
# split it. A function, not a macro: a macro would expand the backslashes
# of a regex.)
set(KL_BLUR_QUICK --warmup 0 --repeats 1 --min-time 0)
function(kl_blur_cli name code regex)
  kl_cli_test(${name} ${code} ${regex} ${ARGN})
  set(KL_BLUR_TESTS ${KL_BLUR_TESTS} cli_${name} PARENT_SCOPE)
endfunction()
kl_blur_cli(blur_sigma_zero 2 "--sigma: \"0\" is not a number in \\(0, 1000\\]" blur --width 3 --height 3 --sigma 0 ${KL_BLUR_QUICK})
kl_blur_cli(blur_sigma_negative 2 "--sigma: \"-1\" is not a number in \\(0, 1000\\]" blur --width 3 --height 3 --sigma -1 ${KL_BLUR_QUICK})
kl_blur_cli(blur_sigma_nonnumeric 2 "--sigma: \"abc\" is not a number in \\(0, 1000\\]" blur --width 3 --height 3 --sigma abc ${KL_BLUR_QUICK})
kl_blur_cli(blur_sigma_nan 2 "--sigma: \"nan\" is not a number in \\(0, 1000\\]" blur --width 3 --height 3 --sigma nan ${KL_BLUR_QUICK})
kl_blur_cli(blur_sigma_too_big 2 "--sigma: \"1001\" is not a number in \\(0, 1000\\]" blur --width 3 --height 3 --sigma 1001 ${KL_BLUR_QUICK})
kl_blur_cli(blur_sigma_radius_over_512 2 "radius 600 is more than 512: use a smaller --sigma or --radius" blur --width 3 --height 3 --sigma 200 ${KL_BLUR_QUICK})
kl_blur_cli(blur_radius_negative 2 "--radius: -1 is out of range \\(0\\.\\.512\\)" blur --width 3 --height 3 --radius=-1 ${KL_BLUR_QUICK})
kl_blur_cli(blur_radius_too_big 2 "--radius: 513 is out of range \\(0\\.\\.512\\)" blur --width 3 --height 3 --radius 513 ${KL_BLUR_QUICK})
kl_blur_cli(blur_pixel_int 2 "unknown pixel type \"int\" \\(float or uchar4\\)" blur --width 3 --height 3 --pixel int ${KL_BLUR_QUICK})
kl_blur_cli(blur_width_zero 2 "--width: 0 is out of range \\(1\\.\\.65536\\)" blur --width 0 ${KL_BLUR_QUICK})
kl_blur_cli(blur_height_too_big 2 "--height: 65537 is out of range \\(1\\.\\.65536\\)" blur --height 65537 ${KL_BLUR_QUICK})
kl_blur_cli(blur_width_with_input 2 "--width and --height size the generated image\\S* not with --input" blur --width 3 --input ${CMAKE_CURRENT_BINARY_DIR}/blur_in.png ${KL_BLUR_QUICK})
kl_blur_cli(blur_output_rung_without_output 2 "--output-rung chooses the rung for --output FILE\\S* give --output too" blur --width 3 --height 3 --output-rung 03_separable ${KL_BLUR_QUICK})
kl_blur_cli(blur_unknown_rung 2 "unknown blur rung \"nosuch\"\\S* they are: 01_naive 02_constant 03_separable 04_tiled2d 05_tiled_sep 06_vector 07_fused 08_image 09_async" blur --width 3 --height 3 --rung nosuch ${KL_BLUR_QUICK})
# A CUDA C++ rung named on another backend: refused with the reason.
kl_blur_cli(blur_cuda_rung_elsewhere 2 "rung 09_async is CUDA C\\+\\+: it runs with --backend cuda" blur --width 3 --height 3 --rung 09 --backend opencl ${KL_BLUR_QUICK})
kl_blur_cli(blur_unknown_peer 2 "unknown peer \"nosuch\" for blur \\(npp\\)" blur --width 3 --height 3 --compare nosuch ${KL_BLUR_QUICK})
kl_blur_cli(blur_energy_value 2 "--energy takes no value" blur --width 3 --height 3 --energy=1 ${KL_BLUR_QUICK})
kl_blur_cli(blur_unknown_param 2 "unknown parameter TS" blur --width 3 --height 3 --param TS=4 ${KL_BLUR_QUICK})
kl_blur_cli(blur_px_not_pow2 2 "rung 06_vector: PX=3 is out of range" blur --width 3 --height 3 --param PX=3 ${KL_BLUR_QUICK})
kl_blur_cli(blur_type_not_applicable 2 "option --type does not apply to blur" blur --width 3 --height 3 --type double)
# Success paths that need no measurement, and the table.
kl_blur_cli(blur_list_rungs 0 "08_image +the row pass reads an image object through a sampler" blur --list-rungs)
kl_blur_cli(blur_table 0 "07_fused +verified" blur --width 5 --height 3 --radius 1 ${KL_BLUR_QUICK})

# oclgrind: every blur kernel, float and uchar4 (a test each, side by side);
# skipped without oclgrind unless CI=true.
set(KL_BLUR_OCLGRIND ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_blur.sh)
foreach(pixel float uchar4)
  add_test(NAME oclgrind_blur_${pixel} COMMAND ${KL_BLUR_OCLGRIND} ${KL_BLUR_KLADDER} ${pixel})
  set_tests_properties(oclgrind_blur_${pixel} PROPERTIES LABELS oclgrind TIMEOUT 600)
  list(APPEND KL_BLUR_TESTS oclgrind_blur_${pixel})
endforeach()

set_property(TEST ${KL_BLUR_TESTS} APPEND PROPERTY ENVIRONMENT ${KL_BLUR_ENV})
set_property(TEST ${KL_BLUR_TESTS} APPEND PROPERTY LABELS blur)
set_tests_properties(${KL_BLUR_TESTS} PROPERTIES SKIP_RETURN_CODE 77)
