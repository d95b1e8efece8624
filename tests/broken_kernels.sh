#!/usr/bin/env bash
# A kernel that does not compile, and one that computes the wrong thing,
# loaded through --kernel-dir: the first must stop with the compiler's log
# (exit 3), the second must be reported FAILED, without a speed (exit 1).
set -u
kladder=$1
src=$2
expect=$(dirname "$0")/expect.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0

cp -r "$src" "$dir/bad_build"
printf '\nthis is not OpenCL C;\n' >>"$dir/bad_build/opencl/gemm/03_private_acc.cl"
"$expect" 3 'build log' "$kladder" gemm --kernel-dir "$dir/bad_build" --rung 03 --size 5 || fails=$((fails + 1))
"$expect" 3 '03_private_acc.cl: (clBuildProgram|nvrtcCompileProgram) failed' "$kladder" gemm --kernel-dir "$dir/bad_build" --rung 03 --size 5 || fails=$((fails + 1))
"$expect" 3 'error: .*(unknown type name|expected|"this")' "$kladder" gemm --kernel-dir "$dir/bad_build" --rung 03 --size 5 || fails=$((fails + 1))

cp -r "$src" "$dir/wrong"
# Drop the last term of every dot product: wrong by one product per element.
sed -i 's/for (int k = 0; k < K; k++)/for (int k = 0; k < K - 1; k++)/' "$dir/wrong/opencl/gemm/03_private_acc.cl"
grep -q 'k < K - 1' "$dir/wrong/opencl/gemm/03_private_acc.cl" || { echo "FAIL: sed did not apply"; exit 1; }
"$expect" 1 '03_private_acc +failed +fp32 +- ' "$kladder" gemm --kernel-dir "$dir/wrong" --rung 01,03 --size 33 || fails=$((fails + 1))
"$expect" 1 'differ from the reference' "$kladder" gemm --kernel-dir "$dir/wrong" --rung 01,03 --size 33 || fails=$((fails + 1))
# The same wrong kernel at K = 1 writes zeros: caught too (int, exact).
"$expect" 1 'failed' "$kladder" gemm --kernel-dir "$dir/wrong" --rung 03 --m 4 --n 4 --k 1 --type int || fails=$((fails + 1))

cp -r "$src" "$dir/past_end"
# One row too many: the last work-items write past the end of C.
sed -i 's/if (r < M \&\& c < N)/if (r <= M \&\& c < N)/' "$dir/past_end/opencl/gemm/03_private_acc.cl"
grep -q 'r <= M' "$dir/past_end/opencl/gemm/03_private_acc.cl" || { echo "FAIL: sed did not apply"; exit 1; }
"$expect" 1 'wrote past the end of C' "$kladder" gemm --kernel-dir "$dir/past_end" --rung 03 --m 7 --n 5 --k 3 || fails=$((fails + 1))

"$expect" 2 'cannot open' "$kladder" gemm --kernel-dir "$dir/nonexistent" --rung 03 --size 5 || fails=$((fails + 1))
exit $fails
