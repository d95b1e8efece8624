# Sourced by the test scripts that run every workload: $sizes, each workload's
# options for a small size that is no multiple of a work-group.
declare -A sizes=([gemm]="--m 33 --n 17 --k 9" [copy]="--n 1001" [rowdot]="--rows 37 --d 101"
    [gemv]="--m 53 --n 29" [blur]="--width 37 --height 11 --sigma 1.5" [reduce]="--size 1001"
    [scan]="--size 1001" [histogram]="--size 1001 --bins 7" [transpose]="--size 37,70" [softmax]="--size 37,70")
