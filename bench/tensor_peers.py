"""The vendor libraries' fastest GEMM in each tensor-core precision, for `kladder peak`'s
ceilings to be compared with in the same run (bench/ceilings.sh). Not part of kladder:
PyTorch calls cuBLAS and cuBLASLt here (matmul, _scaled_mm for FP8, _int_mm for INT8).

Each product runs on two kinds of data: kladder's (small integers, -3 .. 3, exact in
every format, as its ceiling kernels use) and uniform [-1, 1) (FP8: scaled into range;
INT8: -127 .. 127). Timed by CUDA events around 20 products after 5 warm-ups, the
median of 5 such runs; TFLOP/s = 2 M N K / time. Prints one line per case and a JSON
line per case on stdout.

usage: python3 bench/tensor_peers.py [SIZE ...]   (default 8192 16384)
"""

import json
import sys

import torch


def timed(fn, reps=20, runs=5, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3 / reps)
    return sorted(times)[len(times) // 2]


def data(kind, shape, dtype):
    if kind == "int":
        return torch.randint(-3, 4, shape, device="cuda").to(dtype)
    if dtype == torch.int8:
        return torch.randint(-127, 128, shape, device="cuda", dtype=torch.int8)
    x = torch.rand(shape, device="cuda") * 2 - 1
    if dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        return (x * 4).to(dtype)
    return x.to(dtype)


def case(name, n, kind):
    m = k = n
    one = torch.ones((), device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = name == "fp16_f16acc"
    if name in ("tf32", "fp16", "fp16_f16acc", "bf16", "fp64"):
        dtype = {"tf32": torch.float32, "fp16": torch.float16, "fp16_f16acc": torch.float16,
                 "bf16": torch.bfloat16, "fp64": torch.float64}[name]
        a, b = data(kind, (m, k), dtype), data(kind, (k, n), dtype)
        fn = lambda: torch.matmul(a, b)
    elif name in ("fp8", "fp8e5m2"):
        # cuBLASLt has no e5m2 x e5m2 product: the e5m2 case multiplies e5m2 by e4m3.
        a = data(kind, (m, k), torch.float8_e5m2 if name == "fp8e5m2" else torch.float8_e4m3fn)
        b = data(kind, (n, k), torch.float8_e4m3fn).t()  # column-major, as cuBLASLt wants
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    elif name == "int8":
        a = data(kind, (m, k), torch.int8)
        b = data(kind, (n, k), torch.int8).t()
        fn = lambda: torch._int_mm(a, b)
    else:
        raise ValueError(name)
    t = timed(fn)
    return 2.0 * m * n * k / t * 1e-12


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [8192, 16384]
    names = ["tf32", "fp16", "fp16_f16acc", "bf16", "fp8", "fp8e5m2", "int8", "fp64"]
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"cuBLAS {torch.backends.cuda.preferred_blas_library()}")
    for name in names:
        for n in sizes:
            if name == "fp64" and n > 8192:
                continue  # 16384^3 in FP64 takes seconds and adds nothing
            for kind in ("int", "uniform"):
                try:
                    tflops = case(name, n, kind)
                    err = None
                except Exception as e:  # a product this torch or cuBLAS lacks
                    tflops, err = None, f"{type(e).__name__}: {e}"[:200]
                line = {"precision": name, "n": n, "data": kind, "tflops": tflops, "error": err}
                print(json.dumps(line), flush=True)
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
